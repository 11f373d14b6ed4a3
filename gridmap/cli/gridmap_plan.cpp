// SPDX-License-Identifier: BSD-3-Clause
// malleable-gridmap (target gridmap-plan): plan an expansion, a shrink, a heterogeneous
// mapping or a processor selection from the command line (thesis chapters 4-6). A
// readable table by default, JSON with --json (before or after the subcommand). Usage
// errors and bad input exit 2 with a message naming the option or value;
// --help and --version exit 0.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/hetero.hpp"
#include "malleable/gridmap/movement.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/gridmap/selection.hpp"
#include "malleable/gridmap/topology.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/version.h"

#include "plan_common.hpp"

using nlohmann::json;
using namespace gridmap;
using namespace gridmap_cli;

namespace {

// ---- expand ----

struct ExpandArgs {
  std::string grid, strategy = "all";
  int add = 0;
  MatrixArgs matrix;
  AspectArgs aspect;
};

int run_expand(const ExpandArgs& a, bool as_json) {
  const Placement from = Placement::row_major(parse_topology(a.grid));
  const redist::MatrixSpec shape = a.matrix.shape();
  std::vector<PlacementStrategy> wanted;
  if (a.strategy == "all")
    wanted = {PlacementStrategy::Global, PlacementStrategy::Local1, PlacementStrategy::Local2, PlacementStrategy::Optimal};
  else
    wanted = {parse_placement_strategy(a.strategy)};
  const LocalExpansion local = plan_local_expansion(from.grid, a.add, a.aspect.ratio(), a.aspect.parsed_scope());
  std::vector<ExpansionPlan> plans;
  std::string optimal_skipped;
  for (auto s : wanted) {
    if (s != PlacementStrategy::Global && !local.possible && a.strategy == "all") continue;
    // With no local step possible, show Global on every process (the thesis's 5x5 + 3 ->
    // 4x7) rather than a constrained Global that may not grow at all.
    const AspectRatio ratio = (s == PlacementStrategy::Global && !local.possible && a.strategy == "all")
                                  ? AspectRatio::any() : a.aspect.ratio();
    // Side by side, an optimal placement beyond the exact assignment's limit is left out
    // with the reason; asked for alone (--strategy optimal) it is an error.
    if (s == PlacementStrategy::Optimal && a.strategy == "all") {
      try {
        plans.push_back(plan_expansion(from, a.add, s, shape, ratio, a.aspect.parsed_scope(), a.matrix.bytes));
      } catch (const Error& e) {
        optimal_skipped = e.what();
      }
      continue;
    }
    plans.push_back(plan_expansion(from, a.add, s, shape, ratio, a.aspect.parsed_scope(), a.matrix.bytes));
  }
  const ExpansionPlan *local2 = nullptr, *global = nullptr, *optimal = nullptr;
  for (const auto& p : plans) {
    if (p.strategy == PlacementStrategy::Local2) local2 = &p;
    if (p.strategy == PlacementStrategy::Global) global = &p;
    if (p.strategy == PlacementStrategy::Optimal) optimal = &p;
  }
  // How much less the optimal placement moves than Local2 and Global (percent of theirs).
  const auto saving = [](const ExpansionPlan* opt, const ExpansionPlan* other) {
    if (!opt || !other || other->movement.elements_moved == 0) return 0.0;
    return 100.0 * static_cast<double>(other->movement.elements_moved - opt->movement.elements_moved) /
           static_cast<double>(other->movement.elements_moved);
  };

  if (as_json) {
    json out{{"command", "expand"}, {"from", placement_json(from)}, {"offered", a.add},
             {"local_expansion", {{"possible", local.possible}, {"add_rows", local.add_rows},
                                  {"add_cols", local.add_cols}, {"used", local.used},
                                  {"grid", grid_json(local.grid)}, {"smallest_step", local.smallest_step},
                                  {"global_grid", grid_json(local.global_grid)},
                                  {"global_constrained", grid_json(local.global_constrained)},
                                  {"reason", local.reason}}},
             {"plans", json::array()}};
    for (const auto& p : plans)
      out["plans"].push_back({{"strategy", to_string(p.strategy)}, {"used", p.used},
                              {"to", placement_json(p.to)}, {"movement", movement_json(p.movement)}});
    if (!optimal_skipped.empty()) out["optimal_skipped"] = optimal_skipped;
    if (optimal && local2) out["optimal_saves_vs_local2_percent"] = saving(optimal, local2);
    if (optimal && global && global->to.grid == optimal->to.grid)
      out["optimal_saves_vs_global_percent"] = saving(optimal, global);
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::cout << "expand " << to_string(from.grid) << " by up to " << a.add << " processes; matrix "
            << shape.m << "x" << shape.n << (shape.dist == redist::Distribution::Block ? " block" : " block-cyclic " + std::to_string(shape.mb) + "x" + std::to_string(shape.nb))
            << "\nlocal optimiser: " << local.reason << "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : plans) {
    const auto& mv = p.movement;
    std::string vs = "-";
    if (local2 && local2->movement.elements_moved > 0)
      vs = fmt(100.0 * static_cast<double>(mv.elements_moved - local2->movement.elements_moved) /
                   static_cast<double>(local2->movement.elements_moved), 1) + "%";
    rows.push_back({to_string(p.strategy), to_string(p.to.grid), std::to_string(p.used), std::to_string(mv.elements_moved),
                    mib(mv.bytes_moved()), fmt(100.0 * static_cast<double>(mv.elements_kept) / static_cast<double>(mv.elements_total), 1) + "%",
                    mib(mv.max_sent_by_one * mv.element_bytes), mib(mv.max_recv_by_one * mv.element_bytes), vs});
  }
  print_table({"strategy", "grid", "new", "moved elems", "moved MiB", "kept", "max sent MiB", "max recv MiB", "vs local2"}, rows);
  if (!optimal_skipped.empty()) std::cout << "optimal skipped: " << optimal_skipped << '\n';
  if (optimal && local2) {
    std::cout << "optimal moves " << fmt(saving(optimal, local2), 1) << "% less than local2";
    if (global && global->to.grid == optimal->to.grid) std::cout << " and " << fmt(saving(optimal, global), 1) << "% less than global";
    std::cout << '\n';
  }
  for (const auto& p : plans) {
    std::cout << '\n';
    print_grid(to_string(p.strategy) + " placement (process id per slot; ids >= " + std::to_string(from.grid.size()) + " are new):",
               p.to.grid, ids_text(p.to));
    print_movement_by_rank(p.movement);
  }
  return 0;
}

// ---- shrink ----

struct ShrinkArgs {
  std::string grid, levels, rule = "inverse-local2", stack_strategy = "local2";
  int give_back = 0, to_level = -1;
  MatrixArgs matrix;
  AspectArgs aspect;
};

int run_shrink(const ShrinkArgs& a, bool as_json) {
  const redist::MatrixSpec shape = a.matrix.shape();
  std::vector<ShrinkPlan> plans;
  if (a.to_level >= 0) {
    if (a.levels.empty()) fail("shrink: --to-level needs --levels (the grids of the stack, e.g. 2x2,3x3,4x4)");
    std::vector<Topology> grids;
    std::stringstream in(a.levels);
    std::string item;
    while (std::getline(in, item, ',')) grids.push_back(parse_topology(item));
    if (grids.size() < 2) fail("shrink: --levels needs at least two grids, got \"", a.levels, "\"");
    const Placement start = Placement::row_major(grids.front());
    const auto stack = expansion_stack(start, std::vector<Topology>(grids.begin() + 1, grids.end()),
                                       parse_placement_strategy(a.stack_strategy), &shape);
    plans.push_back(plan_shrink_to_level(stack, static_cast<std::size_t>(a.to_level)));
  } else {
    if (a.grid.empty()) fail("shrink: give --grid and --give-back, or --levels and --to-level");
    const Placement cur = Placement::row_major(parse_topology(a.grid));
    std::vector<ShrinkRule> rules;
    if (a.rule == "all")
      rules = {ShrinkRule::InverseLocal1, ShrinkRule::InverseLocal2, ShrinkRule::Optimal};
    else
      rules = {parse_shrink_rule(a.rule)};
    for (auto r : rules)
      plans.push_back(plan_shrink(cur, a.give_back, a.aspect.ratio(), a.aspect.parsed_scope(), r, &shape));
  }
  std::vector<Movement> moves;
  for (const auto& p : plans) moves.push_back(account(p.from, p.to, shape, a.matrix.bytes));

  if (as_json) {
    json out{{"command", "shrink"}, {"plans", json::array()}};
    for (std::size_t k = 0; k < plans.size(); ++k)
      out["plans"].push_back({{"from", placement_json(plans[k].from)}, {"to", placement_json(plans[k].to)},
                              {"leaving", plans[k].leaving}, {"remove_rows", plans[k].remove_rows},
                              {"remove_cols", plans[k].remove_cols}, {"reason", plans[k].reason},
                              {"movement", movement_json(moves[k])}});
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const auto& p = plans[k];
    std::cout << p.reason << "\nleaving:";
    for (int id : p.leaving) std::cout << ' ' << id;
    std::cout << "\nmoved " << moves[k].elements_moved << " elements (" << mib(moves[k].bytes_moved()) << " MiB), kept "
              << fmt(100.0 * static_cast<double>(moves[k].elements_kept) / static_cast<double>(moves[k].elements_total), 1) << "%\n";
    print_grid("current:", p.from.grid, ids_text(p.from));
    print_grid("after:", p.to.grid, ids_text(p.to));
    print_movement_by_rank(moves[k]);
    std::cout << '\n';
  }
  return 0;
}

// ---- hetero ----

struct HeteroArgs {
  std::string powers, grid, method = "svd";
  bool search = false, thesis = false;
  std::int64_t m = 2000, n = 2000, row_cycle = 0, col_cycle = 0;
  double time_factor = 1.0;
  AspectArgs aspect;
};

HeteroOptions hetero_options(const std::string& method, bool thesis) {
  HeteroOptions o = thesis ? HeteroOptions::thesis() : HeteroOptions{};
  if (method == "svd") o.method = HeteroMethod::Svd;
  else if (method == "natural") o.method = HeteroMethod::NaturalBlock;
  else fail("--method: expected svd or natural, got \"", method, "\"");
  return o;
}

json mapping_json(const HeteroMapping& h, double factor) {
  return {{"grid", grid_json(h.grid)}, {"ids", h.ids}, {"powers", h.power}, {"rows", h.rows},
          {"cols", h.cols}, {"utilisation", h.utilisation()}, {"t_opt", h.t_opt()},
          {"iteration_time", h.iteration_time()}, {"t_th", factor * h.iteration_time()},
          {"throughput", h.throughput()}, {"refinement_iterations", h.iterations}};
}

void print_mapping(const HeteroMapping& h, double factor) {
  std::vector<std::string> head{"rows \\ cols"};
  for (auto c : h.cols) head.push_back(std::to_string(c));
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < h.grid.rows; ++i) {
    std::vector<std::string> r{std::to_string(h.rows[static_cast<std::size_t>(i)])};
    for (int j = 0; j < h.grid.cols; ++j) r.push_back(fmt(h.power_at(i, j), 1));
    rows.push_back(r);
  }
  std::cout << "data distribution (processor powers in the grid, cf. Table 6.4):\n";
  print_table(head, rows);
  std::vector<std::string> u, t;
  for (double v : h.utilisation()) u.push_back(fmt(v, 3));
  for (double v : h.t_opt()) t.push_back(fmt(v, 1));
  print_grid("utilisation U = r_i c_j / (PP_ij T):", h.grid, u);
  print_grid("T_opt (power each slot needs, cf. Table 6.5):", h.grid, t);
  std::cout << "iteration time max r_i c_j / PP_ij = " << fmt(h.iteration_time(), 1);
  if (factor != 1.0) std::cout << "; x " << factor << " = " << fmt(factor * h.iteration_time(), 1);
  std::cout << "\n";
}

int run_hetero(const HeteroArgs& a, bool as_json) {
  const ProcessorPowers p = parse_powers(a.powers);
  p.validate();
  const HeteroOptions o = hetero_options(a.method, a.thesis);
  HeteroMapping h;
  if (a.search) {
    h = search_topology(p, a.m, a.n, a.aspect.ratio(), o);
  } else {
    if (a.grid.empty()) fail("hetero: give --grid RxC or --search");
    h = map_heterogeneous(p, parse_topology(a.grid), a.m, a.n, o);
  }
  json layout;
  if (a.row_cycle > 0) {  // both or neither, checked at parse time
    const auto l = to_layout_cyclic(h, a.row_cycle, a.col_cycle, h.ids);
    layout = {{"row_blocks", l.row_blocks.to_vector()}, {"col_blocks", l.col_blocks.to_vector()}, {"ranks", l.rank_list()}};
  } else {
    const auto l = to_layout(h, h.ids);
    layout = {{"row_blocks", l.row_blocks.to_vector()}, {"col_blocks", l.col_blocks.to_vector()}, {"ranks", l.rank_list()}};
  }
  if (as_json) {
    json out = mapping_json(h, a.time_factor);
    out["command"] = "hetero";
    out["method"] = to_string(o.method);
    out["layout"] = layout;
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::cout << "heterogeneous mapping (" << to_string(o.method) << (a.thesis ? ", thesis only" : "") << ") of "
            << p.size() << " processors on " << to_string(h.grid) << ", matrix " << a.m << "x" << a.n << "\n";
  print_mapping(h, a.time_factor);
  std::cout << "redist layout: " << layout["row_blocks"].size() << " row blocks, " << layout["col_blocks"].size()
            << " column blocks; ranks (process id per slot):";
  for (int id : h.ids) std::cout << ' ' << id;
  std::cout << '\n';
  return 0;
}

// ---- select ----

struct SelectArgs {
  std::string powers, grid, free, strategy = "all", method = "svd";
  double tpp = 0, time_factor = 1.0, iterations = 100, sec_per_unit = 1e-6, sec_per_element = 1e-8;
  std::int64_t m = 2000, n = 2000;
  bool no_replacement = false, keep_arrangement = false, search = false, thesis = false;
  AspectArgs aspect;
};

int run_select(const SelectArgs& a, bool as_json) {
  const ProcessorPowers cur = parse_powers(a.powers);
  cur.validate("powers");
  const ProcessorPowers offer = parse_powers(a.free);
  const Topology g = parse_topology(a.grid);
  SelectionOptions o = a.thesis ? SelectionOptions::thesis() : SelectionOptions{};
  o.mapping = hetero_options(a.method, a.thesis);
  o.replacement = !a.no_replacement;
  o.global_grid = a.search ? GlobalGrid::Search : GlobalGrid::Squarest;
  o.aspect = AspectRatio{a.aspect.p, a.aspect.q};
  o.cost = {a.iterations, a.sec_per_unit, a.sec_per_element};
  HeteroMapping current;
  if (a.keep_arrangement) {
    HeteroOptions fixed = o.mapping;
    fixed.refine_arrangement = fixed.swap_search = false;
    std::vector<int> ids(cur.size());
    for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int>(k);
    current = map_arranged(cur, g, ids, a.m, a.n, fixed);
  } else {
    current = map_heterogeneous(cur, g, a.m, a.n, o.mapping);
  }
  std::vector<Selection> sels;
  if (a.strategy == "all")
    sels = compare_selections(current, offer, a.tpp, o);
  else
    sels = {select_processors(current, offer, a.tpp, parse_selection_strategy(a.strategy), o)};

  if (as_json) {
    json out{{"command", "select"}, {"tpp", a.tpp}, {"current", mapping_json(current, a.time_factor)},
             {"selections", json::array()}};
    for (std::size_t k = 0; k < sels.size(); ++k) {
      const auto& s = sels[k];
      std::vector<double> powers;
      for (int i : s.chosen) powers.push_back(offer.values[static_cast<std::size_t>(i)]);
      const bool adaptive = a.strategy == "adaptive" || (a.strategy == "all" && k + 1 == sels.size());
      out["selections"].push_back({{"strategy", adaptive ? "adaptive" : to_string(s.strategy)},
                                   {"picked", to_string(s.strategy)}, {"chosen", s.chosen},
                                   {"chosen_powers", powers}, {"tpp_used", s.tpp_used},
                                   {"mapping", mapping_json(s.mapping, a.time_factor)},
                                   {"movement", movement_json(s.movement)},
                                   {"predicted_seconds", s.predicted_seconds}, {"notes", s.notes}});
    }
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::cout << "current grid " << to_string(current.grid) << ", T = " << fmt(a.time_factor * current.iteration_time(), 1)
            << "; TPP " << a.tpp << " over " << offer.size() << " offered processors\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < sels.size(); ++k) {
    const auto& s = sels[k];
    const bool adaptive = a.strategy == "adaptive" || (a.strategy == "all" && k + 1 == sels.size());
    rows.push_back({adaptive ? "adaptive->" + to_string(s.strategy) : to_string(s.strategy), to_string(s.mapping.grid),
                    std::to_string(s.chosen.size()), fmt(s.tpp_used, 2), fmt(a.time_factor * s.mapping.iteration_time(), 1),
                    std::to_string(s.movement.elements_moved),
                    std::to_string(std::max(s.movement.max_sent_by_one, s.movement.max_recv_by_one)),
                    fmt(s.predicted_seconds, 4)});
  }
  print_table({"strategy", "grid", "added", "TPP used", "T_Th", "moved elems", "busiest elems", "predicted s"}, rows);
  for (const auto& s : sels) {
    std::cout << '\n' << to_string(s.strategy) << ": " << s.notes << "; chosen powers:";
    for (int i : s.chosen) std::cout << ' ' << offer.values[static_cast<std::size_t>(i)];
    std::cout << '\n';
    print_mapping(s.mapping, a.time_factor);
  }
  return 0;
}

// ---- topology ----

int run_topology(int procs, const AspectArgs& a, const std::string& history_text, bool as_json) {
  TopologyHistory history;
  std::stringstream in(history_text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) fail("--history: expected RxC=seconds, got \"", item, "\"");
    const std::string value = item.substr(eq + 1);
    char* end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0')
      fail("--history: seconds in \"", item, "\" are not a number");
    if (!(seconds > 0) || !std::isfinite(seconds))
      fail("--history: seconds per iteration must be positive and finite, got \"", item, "\"");
    history[parse_topology(item.substr(0, eq))] = seconds;
  }
  const auto c = choose_topology(procs, a.ratio(), history.empty() ? nullptr : &history);
  if (as_json) {
    std::cout << json{{"command", "topology"}, {"processes", procs}, {"grid", grid_json(c.grid)},
                      {"from_history", c.from_history}, {"reason", c.reason}}.dump(2) << '\n';
    return 0;
  }
  std::cout << to_string(c.grid) << "  (" << c.reason << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"malleable-gridmap: plan resizes of ScaLAPACK process grids (the thesis's chapters 4-6)"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // every --help shows the defaults
  app.set_version_flag("--version", "malleable-gridmap (malleable " MALLEABLE_VERSION ", commit " MALLEABLE_GIT_COMMIT ")");
  // Options a subcommand does not know (--json) are tried on the main app, so --json may
  // come before or after the subcommand. Subcommands copy this setting when created.
  app.fallthrough();
  bool as_json = false;
  app.add_flag("--json", as_json, "print JSON instead of tables (before or after the subcommand)");

  ExpandArgs ex;
  auto* expand = app.add_subcommand("expand", "grow a grid: local optimiser, Global/Local1/Local2/optimal placement, bytes moved");
  expand->add_option("--grid", ex.grid, "current grid RxC")->required();
  expand->add_option("--add", ex.add, "processes offered by the scheduler")->required()->check(at_least(0));
  expand->add_option("--strategy", ex.strategy, "placement to show")
      ->check(CLI::IsMember({"global", "local1", "local2", "optimal", "all"}));
  add_matrix_options(expand, ex.matrix);
  add_aspect_options(expand, ex.aspect, "increment");

  ShrinkArgs sh;
  auto* shrink = app.add_subcommand("shrink", "give processes back, or return to a stack level");
  shrink->add_option("--grid", sh.grid, "current grid RxC (row-major ids)");
  shrink->add_option("--give-back", sh.give_back, "processes to release (at least)")->check(at_least(1));
  shrink->add_option("--rule", sh.rule, "who leaves")
      ->check(CLI::IsMember({"inverse-local2", "inverse-local1", "local2", "local1", "optimal", "all"}));
  shrink->add_option("--levels", sh.levels, "grids of the expansion stack, e.g. 2x2,3x3,4x4");
  shrink->add_option("--stack-strategy", sh.stack_strategy, "placement used to build the stack")
      ->check(CLI::IsMember({"global", "local1", "local2", "optimal"}));
  shrink->add_option("--to-level", sh.to_level, "stack level to return to (0 = first grid; -1: not used)")
      ->check(at_least(-1));
  add_matrix_options(shrink, sh.matrix);
  add_aspect_options(shrink, sh.aspect, "final");
  sh.aspect.p = sh.aspect.q = std::numeric_limits<double>::infinity();

  HeteroArgs he;
  auto* hetero = app.add_subcommand("hetero", "map processors of unequal power (SVD heuristic, natural block)");
  hetero->add_option("--powers", he.powers, "processing powers, comma separated")->required();
  hetero->add_option("--grid", he.grid, "grid RxC (rows*cols = number of powers)");
  hetero->add_flag("--search", he.search, "try every p x q with p*q = P");
  hetero->add_option("--m", he.m, "global rows")->check(at_least(1));
  hetero->add_option("--n", he.n, "global columns")->check(at_least(1));
  hetero->add_option("--method", he.method, "sizing method")->check(CLI::IsMember({"svd", "natural"}));
  hetero->add_flag("--thesis", he.thesis, "the heuristic as the thesis ran it (§6.2.1: rank-1 rows, feasible columns; no ascent, no swaps)");
  auto* row_cycle = hetero->add_option("--row-cycle", he.row_cycle,
                                       "block-cyclic layout: rows per cycle (with --col-cycle; 0: block layout)")
                         ->check(at_least(0));
  auto* col_cycle = hetero->add_option("--col-cycle", he.col_cycle,
                                       "block-cyclic layout: columns per cycle (with --row-cycle)")
                         ->check(at_least(0));
  hetero->add_option("--time-factor", he.time_factor, "scale for the iteration time (0.096 gives the thesis's ms)")
      ->check(finite_positive());
  add_aspect_options(hetero, he.aspect, "final");
  he.aspect.p = he.aspect.q = std::numeric_limits<double>::infinity();

  SelectArgs se;
  auto* select = app.add_subcommand("select", "choose processors under a total processing power (TPP)");
  select->add_option("--powers", se.powers, "powers of the current processors")->required();
  select->add_option("--grid", se.grid, "current grid RxC")->required();
  select->add_option("--free", se.free, "powers of the offered free processors")->required();
  select->add_option("--tpp", se.tpp, "total processing power the scheduler allows")->required()
      ->check(finite_positive());
  select->add_option("--strategy", se.strategy, "selection to show")
      ->check(CLI::IsMember({"global", "local", "mixed", "adaptive", "all"}));
  select->add_option("--m", se.m, "global rows")->check(at_least(1));
  select->add_option("--n", se.n, "global columns")->check(at_least(1));
  select->add_option("--method", se.method, "sizing method")->check(CLI::IsMember({"svd", "natural"}));
  select->add_flag("--thesis", se.thesis, "the thesis's own rules (§6.2.1 sizing, §6.3.1.1 replacement, proc_max lines)");
  select->add_flag("--no-replacement", se.no_replacement, "Global without its replacement step");
  select->add_flag("--keep-arrangement", se.keep_arrangement, "the current powers are already arranged row-major");
  select->add_flag("--search", se.search, "Global tries every p x q (default: squarest)");
  select->add_option("--time-factor", se.time_factor, "scale for the iteration time (0.096 gives the thesis's ms)")
      ->check(finite_positive());
  select->add_option("--iterations", se.iterations, "adaptive: iterations until the next resize")
      ->check(finite_nonnegative());
  select->add_option("--sec-per-unit", se.sec_per_unit, "adaptive: seconds per unit of iteration time")
      ->check(finite_nonnegative());
  select->add_option("--sec-per-element", se.sec_per_element, "adaptive: seconds per element through the busiest process")
      ->check(finite_nonnegative());
  add_aspect_options(select, se.aspect, "final");
  se.aspect.p = se.aspect.q = std::numeric_limits<double>::infinity();

  int procs = 0;
  std::string history;
  AspectArgs ta;
  auto* topology = app.add_subcommand("topology", "choose a grid for P processes (§5.1.1)");
  topology->add_option("--procs", procs, "number of processes P")->required();  // P < 1: the library names it
  topology->add_option("--history", history, "measured seconds per iteration, e.g. 3x4=77,2x7=74");
  add_aspect_options(topology, ta, "final");

  try {
    app.parse(argc, argv);
    if ((row_cycle->count() > 0) != (col_cycle->count() > 0) || ((he.row_cycle > 0) != (he.col_cycle > 0)))
      throw CLI::ValidationError("--row-cycle/--col-cycle",
                                 "give both (a block-cyclic layout) or neither, got --row-cycle " +
                                     std::to_string(he.row_cycle) + " and --col-cycle " + std::to_string(he.col_cycle));
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2 (CLI11's own codes are 100+).
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (*expand) return run_expand(ex, as_json);
    if (*shrink) return run_shrink(sh, as_json);
    if (*hetero) return run_hetero(he, as_json);
    if (*select) return run_select(se, as_json);
    if (*topology) return run_topology(procs, ta, history, as_json);
  } catch (const std::bad_alloc&) {
    // The library's limits bound every allocation by the input sizes; this is a machine
    // short of memory for an accepted request.
    std::cerr << "malleable-gridmap: error: out of memory for a request within gridmap's limits\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "malleable-gridmap: error: " << e.what() << '\n';
    return 2;
  }
  return 1;
}
