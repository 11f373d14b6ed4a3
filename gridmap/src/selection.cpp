// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/gridmap/selection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/limits.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/redist/layout.hpp"

namespace gridmap {

std::string to_string(SelectionStrategy s) {
  switch (s) {
    case SelectionStrategy::Global: return "global";
    case SelectionStrategy::Local: return "local";
    case SelectionStrategy::Mixed: return "mixed";
    case SelectionStrategy::Adaptive: return "adaptive";
  }
  return "?";
}

SelectionStrategy parse_selection_strategy(const std::string& t) {
  if (t == "global") return SelectionStrategy::Global;
  if (t == "local") return SelectionStrategy::Local;
  if (t == "mixed") return SelectionStrategy::Mixed;
  if (t == "adaptive") return SelectionStrategy::Adaptive;
  fail("selection strategy: expected global, local, mixed or adaptive, got \"", t, "\"");
}

namespace {

constexpr double kEps = 1e-9;

struct Context {
  const HeteroMapping& current;
  const ProcessorPowers& free;
  double tpp;
  const SelectionOptions& opt;
  int old_count;
  std::vector<double> old_power;  // by current process id
};

double sum_of(const Context& cx, const std::vector<int>& chosen) {
  double s = 0;
  for (int k : chosen) s += cx.free.values[static_cast<std::size_t>(k)];
  return s;
}

ProcessorPowers combined(const Context& cx, const std::vector<int>& chosen) {
  ProcessorPowers p{cx.old_power};
  for (int k : chosen) p.values.push_back(cx.free.values[static_cast<std::size_t>(k)]);
  return p;
}

// Free processors not in `chosen`, fastest first.
std::vector<int> unused(const Context& cx, const std::vector<int>& chosen) {
  std::vector<char> in(cx.free.size(), 0);
  for (int k : chosen) in[static_cast<std::size_t>(k)] = 1;
  std::vector<int> out;
  for (std::size_t k = 0; k < cx.free.size(); ++k)
    if (!in[k]) out.push_back(static_cast<int>(k));
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return cx.free.values[static_cast<std::size_t>(a)] > cx.free.values[static_cast<std::size_t>(b)];
  });
  return out;
}

// "As many high-end machines as possible" within the budget (§6.3.1.1): fastest first,
// skipping any that no longer fit. Returns the sequence in the order taken.
std::vector<int> greedy_fill(const Context& cx, const std::vector<int>& chosen, double budget) {
  std::vector<int> taken;
  for (int k : unused(cx, chosen)) {
    const double v = cx.free.values[static_cast<std::size_t>(k)];
    if (v <= budget + kEps) {
      taken.push_back(k);
      budget -= v;
    }
  }
  return taken;
}

Selection finish(const Context& cx, SelectionStrategy s, std::vector<int> chosen, HeteroMapping h,
                 std::string notes) {
  Selection out;
  out.strategy = s;
  out.chosen = std::move(chosen);
  out.tpp_used = sum_of(cx, out.chosen);
  out.mapping = std::move(h);
  const int comm = cx.old_count + static_cast<int>(out.chosen.size());
  out.movement = account(to_layout(cx.current, cx.current.ids), to_layout(out.mapping, out.mapping.ids),
                         comm, cx.opt.element_bytes);
  const auto& c = cx.opt.cost;
  out.predicted_seconds =
      c.iterations * c.seconds_per_unit * out.mapping.iteration_time() +
      c.seconds_per_element * static_cast<double>(std::max(out.movement.max_sent_by_one,
                                                           out.movement.max_recv_by_one));
  out.notes = std::move(notes);
  return out;
}

// ---- Global (§6.3.1.1) ----

// `quick` leaves out the swap search: the replacement loop compares many candidate sets,
// and only the final set needs the full mapping.
HeteroMapping global_map(const Context& cx, const std::vector<int>& chosen, bool quick = true) {
  const auto all = combined(cx, chosen);
  HeteroOptions o = cx.opt.mapping;
  o.fixed.clear();
  if (quick) o.swap_search = false;
  if (cx.opt.global_grid == GlobalGrid::Search)
    return search_topology(all, cx.current.m, cx.current.n, cx.opt.aspect, o);
  return map_heterogeneous(all, squarest_factorization(static_cast<int>(all.size()), cx.opt.aspect),
                           cx.current.m, cx.current.n, o);
}

// The `count` fastest processors that fit together: each pick leaves room for the rest at
// the slowest offered powers. This is how a refill reaches a better grid shape (the
// thesis's "two processors (95 and 114) instead of one, to avoid a 7 x 1 grid").
std::vector<int> fill_count(const Context& cx, const std::vector<int>& chosen, double budget,
                            std::size_t count) {
  const auto avail = unused(cx, chosen);  // fastest first
  if (avail.size() < count) return {};
  std::vector<int> taken;
  for (std::size_t a = 0; a < avail.size() && taken.size() < count; ++a) {
    const std::size_t still = count - taken.size() - 1;
    if (avail.size() - a - 1 < still) return {};
    double reserve = 0;  // the `still` slowest processors after position a
    for (std::size_t b = avail.size() - still; b < avail.size(); ++b)
      reserve += cx.free.values[static_cast<std::size_t>(avail[b])];
    const double v = cx.free.values[static_cast<std::size_t>(avail[a])];
    if (v + reserve <= budget + kEps) {
      taken.push_back(avail[a]);
      budget -= v;
    }
  }
  return taken.size() == count ? taken : std::vector<int>{};
}

// Under an aspect constraint some processor counts have no admitted grid (a prime P with
// a near-square constraint); such candidates are skipped.
std::optional<HeteroMapping> try_global_map(const Context& cx, const std::vector<int>& chosen) {
  try {
    return global_map(cx, chosen);
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool single_line(Topology g) { return g.size() > 1 && (g.rows == 1 || g.cols == 1); }

// `count` unused processors, each near an equal share budget / count, that fit together:
// nearest to the share first (ties to the faster), skipping any that no longer fit.
std::vector<int> fill_shares(const Context& cx, const std::vector<int>& chosen, double budget,
                             std::size_t count) {
  if (count == 0) return {};
  auto avail = unused(cx, chosen);  // fastest first; the stable sort keeps that for ties
  const double share = budget / static_cast<double>(count);
  const auto power = [&](int k) { return cx.free.values[static_cast<std::size_t>(k)]; };
  std::stable_sort(avail.begin(), avail.end(),
                   [&](int a, int b) { return std::fabs(power(a) - share) < std::fabs(power(b) - share); });
  std::vector<int> taken;
  for (int k : avail) {
    if (taken.size() == count) break;
    if (power(k) <= budget + kEps) {
      taken.push_back(k);
      budget -= power(k);
    }
  }
  return taken.size() == count ? taken : std::vector<int>{};
}

// The slowest unused processor that still reaches power `need` and is slower than `have`
// (the one it would replace), or -1.
int slowest_reaching(const Context& cx, const std::vector<int>& chosen, double need, double have) {
  int pick = -1;
  for (int k : unused(cx, chosen)) {
    const double v = cx.free.values[static_cast<std::size_t>(k)];
    if (v + kEps >= need && v < have - kEps) pick = k;  // fastest first: the last is the slowest
  }
  return pick;
}

// §6.3.1.1's replacement step as the thesis ran it at TPP 600 (Tables 6.8-6.10); see
// ReplacementRule::Thesis. One round, kept whether or not it is faster.
void replace_as_thesis(const Context& cx, std::vector<int>& chosen, HeteroMapping& h, std::ostringstream& notes) {
  const auto u = h.utilisation();
  const auto need = h.t_opt();
  int replaced = 0;
  for (std::size_t s = 0; s < h.ids.size(); ++s) {
    if (h.ids[s] < cx.old_count || u[s] >= cx.opt.underuse) continue;
    const std::size_t pos = static_cast<std::size_t>(h.ids[s] - cx.old_count);
    const double have = cx.free.values[static_cast<std::size_t>(chosen[pos])];
    // "a processor of reduced processing power that can equal this efficiency"
    const int pick = slowest_reaching(cx, chosen, need[s], have);
    if (pick < 0) continue;
    notes << "; replaced " << have << " (U = " << u[s] << ", T_opt " << need[s] << ") by "
          << cx.free.values[static_cast<std::size_t>(pick)];
    chosen[pos] = pick;
    ++replaced;
  }
  if (!replaced) return;
  // "If more processors can be added now, they are also included and the algorithm is
  // carried out again", fastest first; a single row or column is avoided as the thesis did.
  const double budget = cx.tpp - sum_of(cx, chosen);
  const std::vector<int> greedy = greedy_fill(cx, chosen, budget);
  // Refill sizes in the order tried: the greedy one, then more processors, then fewer.
  std::vector<std::size_t> counts{greedy.size()};
  for (std::size_t k = greedy.size() + 1; k <= greedy.size() + 4; ++k) counts.push_back(k);
  for (std::size_t k = greedy.size(); k-- > 0;) counts.push_back(k);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const std::vector<int> refill = r == 0 ? greedy : fill_shares(cx, chosen, budget, counts[r]);
    if (refill.size() != counts[r]) continue;  // no such refill fits the budget
    std::vector<int> cand = chosen;
    cand.insert(cand.end(), refill.begin(), refill.end());
    auto ch = try_global_map(cx, cand);
    if (!ch || single_line(ch->grid)) continue;
    notes << "; refilled " << refill.size() << " (the fastest-first refill has " << greedy.size() << ")";
    chosen = std::move(cand);
    h = std::move(*ch);
    return;
  }
  // Every refill gives a single row or column (or no admitted grid): the greedy one, as
  // the first fill does.
  std::vector<int> cand = chosen;
  cand.insert(cand.end(), greedy.begin(), greedy.end());
  if (auto ch = try_global_map(cx, cand)) {
    notes << "; refilled " << greedy.size() << " (no refill avoids a single row or column)";
    chosen = std::move(cand);
    h = std::move(*ch);
  } else if (auto bare = try_global_map(cx, chosen)) {
    notes << "; no refill";
    h = std::move(*bare);
  }
}

// "As many high-end machines as possible" (§6.3.1.1), fastest first, less the slowest picks
// until the processor count has an admitted grid: `chosen` and its mapping.
HeteroMapping fastest_first(const Context& cx, std::vector<int>& chosen) {
  chosen = greedy_fill(cx, {}, cx.tpp);
  std::optional<HeteroMapping> first = try_global_map(cx, chosen);
  while (!first && !chosen.empty()) {
    chosen.pop_back();  // greedy order: the last taken is the slowest
    first = try_global_map(cx, chosen);
  }
  if (!first)
    fail("selection: no grid for ", cx.old_count, " or more processors satisfies the aspect constraints p = ",
         cx.opt.aspect.p, ", q = ", cx.opt.aspect.q);
  return std::move(*first);
}

// The slots of the new processors to try replacing, least utilised first: those with U
// below the threshold, and the slowest new processor (it can be the bottleneck itself,
// U = 1, so it is always a candidate for dropping).
std::vector<std::size_t> replacement_candidates(const Context& cx, const HeteroMapping& h,
                                                const std::vector<double>& u) {
  std::vector<std::size_t> under;
  for (std::size_t s = 0; s < h.ids.size(); ++s)
    if (h.ids[s] >= cx.old_count && u[s] < cx.opt.underuse) under.push_back(s);
  std::stable_sort(under.begin(), under.end(), [&](auto a, auto b) { return u[a] < u[b]; });
  std::size_t slowest = h.ids.size();
  for (std::size_t s = 0; s < h.ids.size(); ++s)
    if (h.ids[s] >= cx.old_count && (slowest == h.ids.size() || h.power[s] < h.power[slowest])) slowest = s;
  if (slowest < h.ids.size() && std::find(under.begin(), under.end(), slowest) == under.end())
    under.push_back(slowest);
  return under;
}

// The fastest mapping of the sets made from `chosen` for the new processor at slot s
// (utilisation u_s, T_opt need_s): swapped for the slowest processor that still reaches
// need_s (only when under-used), or dropped; each set refilled with 0..4 processors within
// the budget. False when no set has an admitted grid.
bool best_replacement(const Context& cx, const std::vector<int>& chosen, const HeteroMapping& h, std::size_t s,
                      double u_s, double need_s, std::vector<int>& best_set, HeteroMapping& best_h) {
  const std::size_t pos = static_cast<std::size_t>(h.ids[s] - cx.old_count);
  const double have = cx.free.values[static_cast<std::size_t>(chosen[pos])];
  const int pick = slowest_reaching(cx, chosen, need_s, have);
  std::vector<std::vector<int>> bases;
  if (pick >= 0 && u_s < cx.opt.underuse) {
    bases.push_back(chosen);
    bases.back()[pos] = pick;
  }
  bases.push_back(chosen);
  bases.back().erase(bases.back().begin() + static_cast<long>(pos));
  bool have_best = false;
  for (const auto& base : bases)
    for (std::size_t add = 0; add <= 4; ++add) {
      auto extra = fill_count(cx, base, cx.tpp - sum_of(cx, base), add);
      if (add > 0 && extra.empty()) continue;
      std::vector<int> cand = base;
      cand.insert(cand.end(), extra.begin(), extra.end());
      auto ch = try_global_map(cx, cand);
      if (!ch) continue;
      if (!have_best || ch->iteration_time() < best_h.iteration_time()) {
        best_h = std::move(*ch);
        best_set = std::move(cand);
        have_best = true;
      }
    }
  return have_best;
}

// One round of the replacement step: the first candidate whose best replacement shortens
// the iteration is taken (`chosen`, `h` updated). False when none does.
bool replacement_round(const Context& cx, std::vector<int>& chosen, HeteroMapping& h) {
  const auto u = h.utilisation();
  const auto need = h.t_opt();
  for (std::size_t s : replacement_candidates(cx, h, u)) {
    std::vector<int> best_set;
    HeteroMapping best_h;
    if (best_replacement(cx, chosen, h, s, u[s], need[s], best_set, best_h) &&
        best_h.iteration_time() < h.iteration_time() * (1 - 1e-12)) {
      chosen = std::move(best_set);
      h = std::move(best_h);
      return true;
    }
  }
  return false;
}

Selection select_global(const Context& cx) {
  std::vector<int> chosen;
  HeteroMapping h = fastest_first(cx, chosen);
  std::ostringstream notes;
  notes << "fastest first: " << chosen.size() << " processor(s), grid " << to_string(h.grid);
  if (cx.opt.replacement && cx.opt.replacement_rule == ReplacementRule::Thesis) {
    if (h.grid.size() <= kMaxSwapSearchSlots)
      replace_as_thesis(cx, chosen, h, notes);
    else
      notes << "; replacement step skipped (more than " << kMaxSwapSearchSlots << " processors)";
    notes << " -> " << chosen.size() << ", grid " << to_string(h.grid);
    return finish(cx, SelectionStrategy::Global, std::move(chosen), std::move(h), notes.str());
  }
  int rounds = 0;
  // Replacement step (§6.3.1.1): a new processor with U below the threshold is swapped for
  // the slowest offered processor that still reaches its T_opt, or dropped (an extension:
  // a 12th processor of power 11 turns a balanced 1 x 11 into a 3 x 4). The budget freed
  // is refilled with 0..4 processors so the processor count can reach a better grid
  // shape. A round is kept only if it shortens the iteration.
  // Each round maps O(under x offered) candidate sets; like the swap search it runs only on
  // grids of at most kMaxSwapSearchSlots processors (larger grids took
  // minutes), and says so in the notes when skipped.
  const bool replace = cx.opt.replacement && h.grid.size() <= kMaxSwapSearchSlots;
  if (cx.opt.replacement && !replace)
    notes << "; replacement step skipped (more than " << kMaxSwapSearchSlots << " processors)";
  for (int round = 0; replace && round < 2 * static_cast<int>(cx.free.size()); ++round) {
    if (!replacement_round(cx, chosen, h)) break;
    ++rounds;
  }
  if (rounds) notes << "; " << rounds << " replacement round(s) -> " << chosen.size() << ", grid " << to_string(h.grid);
  if (cx.opt.mapping.swap_search) {
    HeteroMapping full = global_map(cx, chosen, false);
    if (full.iteration_time() < h.iteration_time()) h = std::move(full);
  }
  return finish(cx, SelectionStrategy::Global, std::move(chosen), std::move(h), notes.str());
}

// ---- Local (§6.3.1.2) ----

struct LocalGrowth {
  Topology grid;
  std::vector<int> ids;     // slot -> process id (old ids, then old_count + k)
  std::vector<int> chosen;  // free indices, k-th is process old_count + k
  int rows_added = 0, cols_added = 0;
};

// A line whose powers follow `ratios`, or empty. proc_max is the processor for the slot
// with the largest ratio; each other slot takes the offered processor nearest
// ratio * proc_max / ratio_max. proc_max is the fastest for which the whole line fits the
// budget ("to ensure the high-end processors are used effectively", §6.3.1.2).
std::vector<int> find_line(const Context& cx, const std::vector<int>& chosen,
                           const std::vector<double>& ratios, double budget) {
  const auto avail = unused(cx, chosen);
  if (avail.size() < ratios.size()) return {};
  const auto jmax = static_cast<std::size_t>(std::max_element(ratios.begin(), ratios.end()) - ratios.begin());
  const double rmax = ratios[jmax];
  for (int top : avail) {
    const double scale = cx.free.values[static_cast<std::size_t>(top)] / rmax;
    std::vector<int> line(ratios.size(), -1);
    line[jmax] = top;
    std::vector<char> taken(cx.free.size(), 0);
    taken[static_cast<std::size_t>(top)] = 1;
    bool ok = true;
    for (std::size_t j = 0; j < ratios.size() && ok; ++j) {
      if (j == jmax) continue;
      const double target = ratios[j] * scale;
      int best = -1;
      for (int k : avail) {
        if (taken[static_cast<std::size_t>(k)]) continue;
        const double d = std::fabs(cx.free.values[static_cast<std::size_t>(k)] - target);
        const double bd = best < 0 ? 0 : std::fabs(cx.free.values[static_cast<std::size_t>(best)] - target);
        if (best < 0 || d < bd - kEps ||
            (d <= bd + kEps && cx.free.values[static_cast<std::size_t>(k)] < cx.free.values[static_cast<std::size_t>(best)]))
          best = k;
      }
      if (best < 0) ok = false;
      else {
        line[j] = best;
        taken[static_cast<std::size_t>(best)] = 1;
      }
    }
    if (ok && sum_of(cx, line) <= budget + kEps) return line;
  }
  return {};
}

// The grid grown by one line of new processors (appended as the last row or column).
void append_line(const Context& cx, const LocalGrowth& g, bool as_row, Topology& ng, std::vector<int>& ids) {
  const int first = cx.old_count + static_cast<int>(g.chosen.size());
  ng = as_row ? Topology{g.grid.rows + 1, g.grid.cols} : Topology{g.grid.rows, g.grid.cols + 1};
  ids.clear();
  for (int i = 0; i < ng.rows; ++i)
    for (int j = 0; j < ng.cols; ++j) {
      if (as_row && i == g.grid.rows) ids.push_back(first + j);
      else if (!as_row && j == g.grid.cols) ids.push_back(first + i);
      else ids.push_back(g.ids[static_cast<std::size_t>(i) * g.grid.cols + j]);
    }
}

LocalGrowth grow_locally(const Context& cx, std::string& notes) {
  LocalGrowth g{cx.current.grid, cx.current.ids, {}, 0, 0};
  HeteroMapping h = cx.current;
  std::ostringstream log;
  for (;;) {
    const double budget = cx.tpp - sum_of(cx, g.chosen);
    // Step 1: colratio over the grid rows (data rows / first row's), rowratio over the
    // columns; add a row when the row direction carries more (rowratio_sum > colratio_sum).
    std::vector<double> colratio(h.rows.size()), rowratio(h.cols.size());
    for (std::size_t i = 0; i < h.rows.size(); ++i) colratio[i] = static_cast<double>(h.rows[i]) / static_cast<double>(h.rows[0]);
    for (std::size_t j = 0; j < h.cols.size(); ++j) rowratio[j] = static_cast<double>(h.cols[j]) / static_cast<double>(h.cols[0]);
    const bool row_first = std::accumulate(rowratio.begin(), rowratio.end(), 0.0) >
                           std::accumulate(colratio.begin(), colratio.end(), 0.0);
    bool added = false;
    for (int attempt = 0; attempt < 2 && !added; ++attempt) {
      const bool as_row = (attempt == 0) == row_first;
      // Step 2: a new row holds one processor per grid column, so its powers follow the
      // columns' data sizes (rowratio); a new column follows the rows' (colratio).
      const auto line = find_line(cx, g.chosen, as_row ? rowratio : colratio, budget);
      if (line.empty()) continue;
      Topology ng;
      std::vector<int> ids;
      append_line(cx, g, as_row, ng, ids);
      g.grid = ng;
      g.ids = std::move(ids);
      g.chosen.insert(g.chosen.end(), line.begin(), line.end());
      (as_row ? g.rows_added : g.cols_added) += 1;
      log << (as_row ? " +row" : " +col");
      added = true;
    }
    if (!added) break;
    // Sizes of the grown grid for the next step's ratios; nothing moves yet.
    HeteroOptions quick = cx.opt.mapping;
    quick.refine_arrangement = quick.swap_search = false;  // h's rows must be g's rows
    h = map_arranged(combined(cx, g.chosen), g.grid, g.ids, cx.current.m, cx.current.n, quick);
  }
  notes = log.str().empty() ? "no row or column fits the budget" : "added" + log.str();
  return g;
}

// New lines go to the Local2 positions among the old ones (§4.5): the iteration time does
// not depend on the order of rows and columns, the data to move does.
std::vector<int> interleave_ids(const LocalGrowth& g, Topology old) {
  const auto rpos = local2_positions(old.rows, g.rows_added);
  const auto cpos = local2_positions(old.cols, g.cols_added);
  const auto order = [](int n_old, const std::vector<int>& pos) {
    std::vector<int> src(n_old + pos.size(), -1);
    for (std::size_t k = 0; k < pos.size(); ++k) src[static_cast<std::size_t>(pos[k])] = n_old + static_cast<int>(k);
    int next = 0;
    for (int& s : src)
      if (s < 0) s = next++;
    return src;
  };
  const auto rsrc = order(old.rows, rpos), csrc = order(old.cols, cpos);
  // Grown grid lines were appended in the order they were added, per dimension.
  std::vector<int> ids;
  for (int i : rsrc)
    for (int j : csrc) ids.push_back(g.ids[static_cast<std::size_t>(i) * g.grid.cols + j]);
  return ids;
}

Selection select_local(const Context& cx) {
  std::string notes;
  LocalGrowth g = grow_locally(cx, notes);
  const auto ids = interleave_ids(g, cx.current.grid);
  // Refinement step: the whole grid is sized again, but only new processors interchange.
  HeteroOptions o = cx.opt.mapping;
  o.fixed.assign(ids.size(), 0);
  for (std::size_t s = 0; s < ids.size(); ++s) o.fixed[s] = ids[s] < cx.old_count;
  HeteroMapping h = map_arranged(combined(cx, g.chosen), g.grid, ids, cx.current.m, cx.current.n, o);
  return finish(cx, SelectionStrategy::Local, std::move(g.chosen), std::move(h), notes);
}

// Mixed (§6.4.2): Local's processor set, then the SVD heuristic with every processor free
// to move. It starts from Local's arrangement and keeps the best one seen, so it is never
// slower than Local (a fresh sorted start can refine into a worse arrangement).
Selection select_mixed(const Context& cx, const Selection& local) {
  HeteroOptions o = cx.opt.mapping;
  o.fixed.clear();
  HeteroMapping h = map_arranged(combined(cx, local.chosen), local.mapping.grid, local.mapping.ids,
                                 cx.current.m, cx.current.n, o);
  const HeteroMapping fresh =
      map_heterogeneous(combined(cx, local.chosen), local.mapping.grid, cx.current.m, cx.current.n, o);
  if (fresh.iteration_time() < h.iteration_time()) h = fresh;
  return finish(cx, SelectionStrategy::Mixed, local.chosen, std::move(h),
                "local's processors, every processor free to move");
}

Context make_context(const HeteroMapping& current, const ProcessorPowers& free, double tpp,
                     const SelectionOptions& opt) {
  free.validate("free");
  if (free.size() > static_cast<std::size_t>(kMaxOfferedProcessors))
    fail("selection: ", free.size(), " offered processors are more than the limit of ", kMaxOfferedProcessors);
  if (!(tpp > 0) || !std::isfinite(tpp)) fail("selection: TPP must be positive and finite, got TPP = ", tpp);
  const double slowest = *std::min_element(free.values.begin(), free.values.end());
  if (tpp < slowest)
    fail("selection: TPP = ", tpp, " is below every offered processor (the slowest has power ", slowest, ")");
  if (!(opt.underuse > 0 && opt.underuse <= 1)) fail("selection: underuse threshold must be in (0, 1], got ", opt.underuse);
  const auto check_cost = [](const char* name, double v) {
    if (!(v >= 0) || !std::isfinite(v)) fail("selection: adaptive cost ", name, " must be finite and >= 0, got ", v);
  };
  check_cost("iterations", opt.cost.iterations);
  check_cost("seconds_per_unit", opt.cost.seconds_per_unit);
  check_cost("seconds_per_element", opt.cost.seconds_per_element);
  const int P = current.grid.size();
  if (current.ids.size() != static_cast<std::size_t>(P) || current.power.size() != static_cast<std::size_t>(P))
    fail("selection: current mapping has ", current.ids.size(), " ids for a ", to_string(current.grid), " grid");
  Context cx{current, free, tpp, opt, P, std::vector<double>(static_cast<std::size_t>(P), 0)};
  for (std::size_t s = 0; s < current.ids.size(); ++s) {
    const int id = current.ids[s];
    if (id < 0 || id >= P) fail("selection: current process id ", id, " is outside 0..", P - 1);
    cx.old_power[static_cast<std::size_t>(id)] = current.power[s];
  }
  ProcessorPowers{cx.old_power}.validate("current");
  return cx;
}

}  // namespace

SelectionOptions SelectionOptions::thesis() {
  SelectionOptions o;
  o.mapping = HeteroOptions::thesis();
  o.replacement_rule = ReplacementRule::Thesis;
  return o;
}

std::vector<Selection> compare_selections(const HeteroMapping& current, const ProcessorPowers& free,
                                          double tpp, const SelectionOptions& opt) {
  const Context cx = make_context(current, free, tpp, opt);
  std::vector<Selection> out;
  out.push_back(select_global(cx));
  out.push_back(select_local(cx));
  out.push_back(select_mixed(cx, out.back()));
  std::size_t best = 0;
  for (std::size_t k = 1; k < out.size(); ++k)
    if (out[k].predicted_seconds < out[best].predicted_seconds) best = k;
  Selection pick = out[best];
  pick.notes = "adaptive picked " + to_string(pick.strategy) + ": " + pick.notes;
  out.push_back(std::move(pick));
  return out;
}

Selection select_processors(const HeteroMapping& current, const ProcessorPowers& free, double tpp,
                            SelectionStrategy strategy, const SelectionOptions& opt) {
  const Context cx = make_context(current, free, tpp, opt);
  switch (strategy) {
    case SelectionStrategy::Global: return select_global(cx);
    case SelectionStrategy::Local: return select_local(cx);
    case SelectionStrategy::Mixed: return select_mixed(cx, select_local(cx));
    case SelectionStrategy::Adaptive: return compare_selections(current, free, tpp, opt).back();
  }
  fail("selection: unknown strategy");
}

}  // namespace gridmap
