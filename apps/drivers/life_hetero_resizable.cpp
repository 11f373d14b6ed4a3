// SPDX-License-Identifier: BSD-3-Clause
// Resizable heterogeneous Game of Life (thesis §6.3-6.4): processors of unequal power
// (--powers, one per world rank, emulated by repeating the update base*max/power times),
// the board in one block per process row/column sized by gridmap's SVD mapping for the
// current grid (map_arranged: the session's placement is kept, only sizes change), or
// uniform blocks. At a resize the session moves the board between the two extended
// descriptors with redist. Checked against a serial run; the final grid's work
// rows*cols/power must be within --balance-tol of the ideal N*N/sum(power) (proportional).
//
// --policy budget: at remap point --tpp-at the "scheduler" offers a total processing
// power --tpp and free processors of powers --free-powers (thesis §6.3); gridmap's
// select_processors (--selection local|global|mixed|adaptive) picks which to add and where
// they go, the session spawns that many and uses the policy's placement, and the powers
// of the new ranks reach every process through the session's application state.
//
// Measured powers and adapting to load (A-MPI's measured load, Arefeen's time adaptation):
//   --powers measured   the mapping follows the session's measured speeds (every rank
//                       reports its update's cells and seconds) instead of a list; the
//                       emulated speeds are then --true-powers (default: all equal);
//   --load R@A-B:xF     world rank R runs F times slower in iterations A..B (emulated load:
//                       F times the repetitions), e.g. 3@8-20:x4 (comma-separated list);
//   --policy adaptive   at every remap point, plan_adaptation (resize/adapt.hpp) predicts
//                       re-weighting the blocks, dropping a process from the grid or taking
//                       one back, and acts when the predicted gain over the remaining
//                       iterations exceeds the predicted cost (Arefeen's time adaptation). Processes off the
//                       grid time a probe board so their speed stays known.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "driver.hpp"
#include "malleable/gridmap/hetero.hpp"
#include "malleable/gridmap/selection.hpp"
#include "malleable/resize/adapt.hpp"
#include "life_kernel.hpp"

namespace {

struct Hetero {
  std::vector<double> powers;  // by world rank (given mode)
  bool proportional = true;
  bool measured = false;       // mapping powers from the session (Session::powers())
  const resize::Session* session = nullptr;
  int n = 0;

  void sizes(const resize::Grid& g, std::vector<long long>& rows, std::vector<long long>& cols) const {
    sizes_with(g, [&](int r) { return power(r); }, rows, cols);
  }
  template <class PowerOf>
  void sizes_with(const resize::Grid& g, PowerOf power_of, std::vector<long long>& rows,
                  std::vector<long long>& cols) const {
    rows.clear();
    cols.clear();
    if (!proportional) {
      const auto rs = apps::uniform_starts(n, g.nprow), cs = apps::uniform_starts(n, g.npcol);
      for (int k = 0; k < g.nprow; ++k) rows.push_back(rs[k + 1] - rs[k]);
      for (int k = 0; k < g.npcol; ++k) cols.push_back(cs[k + 1] - cs[k]);
      return;
    }
    gridmap::ProcessorPowers sub;
    std::vector<int> ids;
    for (int k = 0; k < g.size(); ++k) {
      sub.values.push_back(power_of(g.rank_map()[static_cast<std::size_t>(k)]));
      ids.push_back(k);
    }
    gridmap::HeteroOptions opt;
    opt.refine_arrangement = false;  // keep the placement the session chose (Local2 etc.)
    const auto map = gridmap::map_arranged(sub, gridmap::Topology{g.nprow, g.npcol}, ids, n, n, opt);
    rows.assign(map.rows.begin(), map.rows.end());
    cols.assign(map.cols.begin(), map.cols.end());
  }
  double power(int rank) const {
    if (measured) {
      // Until a decision sets them, every process counts as equal.
      const auto& p = session->powers();
      return rank >= 0 && rank < static_cast<int>(p.size()) ? p[static_cast<std::size_t>(rank)] : 1.0;
    }
    if (rank < 0 || rank >= static_cast<int>(powers.size()))
      throw resize::Error("--powers: no power given for world rank " + std::to_string(rank) + " (" +
                          std::to_string(powers.size()) + " values)");
    return powers[static_cast<std::size_t>(rank)];
  }
  // This process's block on grid g: LifeBlocks with offsets (myrow = -1 off the grid).
  apps::LifeBlocks blocks(const resize::Grid& g, int me) const {
    apps::LifeBlocks b;
    std::vector<long long> rows, cols;
    sizes(g, rows, cols);
    b.row_start.assign(1, 0);
    for (auto r : rows) b.row_start.push_back(b.row_start.back() + static_cast<int>(r));
    b.col_start.assign(1, 0);
    for (auto c : cols) b.col_start.push_back(b.col_start.back() + static_cast<int>(c));
    b.grid = g;
    for (int i = 0; i < g.nprow; ++i)
      for (int j = 0; j < g.npcol; ++j)
        if (g.rank_at(i, j) == me) {
          b.myrow = i;
          b.mycol = j;
        }
    return b;
  }
};

// The §6.3 negotiation as a policy: offer (TPP, free powers) -> selection -> expand.
class BudgetPolicy final : public resize::Policy {
 public:
  BudgetPolicy(Hetero& h, int at, double tpp, std::vector<double> free, gridmap::SelectionStrategy how)
      : h_(h), at_(at), tpp_(tpp), free_(std::move(free)), how_(how) {}
  std::string name() const override { return "budget"; }
  resize::Decision decide(const resize::PolicyInput& in) override {
    if (in.iteration != at_) return resize::Decision::none();
    const resize::Grid& g = in.grid;
    // The running mapping: current processes 0..P-1 with their powers, as placed now.
    gridmap::ProcessorPowers cur;
    for (int k = 0; k < g.size(); ++k) cur.values.push_back(h_.power(k));
    gridmap::HeteroOptions opt;
    opt.refine_arrangement = false;
    const auto now = gridmap::map_arranged(cur, gridmap::Topology{g.nprow, g.npcol}, g.rank_map(), h_.n, h_.n, opt);
    const auto sel = gridmap::select_processors(now, gridmap::ProcessorPowers{free_}, tpp_, how_);
    if (sel.chosen.empty()) return resize::Decision::none("budget: no processor worth adding");
    resize::Decision d;
    d.action = resize::Action::Expand;
    d.procs = g.size() + static_cast<int>(sel.chosen.size());
    d.nprow = sel.mapping.grid.rows;
    d.npcol = sel.mapping.grid.cols;
    d.ranks = sel.mapping.ids;  // ids: 0..P-1 current, P+k the k-th chosen = its new rank
    // The powers of the ranks the expansion creates (handed out with the app state).
    h_.powers.resize(static_cast<std::size_t>(g.size()));
    for (int c : sel.chosen) h_.powers.push_back(free_[static_cast<std::size_t>(c)]);
    d.reason = "TPP " + std::to_string(tpp_) + ": " + gridmap::to_string(sel.strategy) + " chose " +
               std::to_string(sel.chosen.size()) + " processors (power " + std::to_string(sel.tpp_used) + ")";
    std::printf("   budget policy: %s -> %dx%d\n", d.reason.c_str(), d.nprow, d.npcol);
    return d;
  }

 private:
  Hetero& h_;
  int at_;
  double tpp_;
  std::vector<double> free_;
  gridmap::SelectionStrategy how_;
};

// Emulated load: rank R is F times slower in iterations A..B (1-based).
struct LoadEvent {
  int rank = 0, from = 0, to = 0;
  double factor = 1;
};

std::vector<LoadEvent> parse_load(const std::string& text) {
  std::vector<LoadEvent> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    LoadEvent e;
    char x = 0;
    int used = 0;
    if (std::sscanf(item.c_str(), "%d@%d-%d:%c%lf%n", &e.rank, &e.from, &e.to, &x, &e.factor, &used) != 5 ||
        used != static_cast<int>(item.size()) || x != 'x' || e.rank < 0 || e.from < 1 || e.to < e.from ||
        !(e.factor >= 1.0) || !std::isfinite(e.factor))
      throw resize::Error("--load: expected RANK@FROM-TO:xFACTOR (rank >= 0, 1 <= FROM <= TO, FACTOR >= 1), got '" +
                          item + "'");
    out.push_back(e);
  }
  return out;
}

double load_factor(const std::vector<LoadEvent>& load, int rank, int iteration) {
  double f = 1;
  for (const auto& e : load)
    if (e.rank == rank && iteration >= e.from && iteration <= e.to) f *= e.factor;
  return f;
}

// Arefeen's loop (time adaptation) as a policy: measured speeds -> predicted adaptations -> act if it pays.
class AdaptivePolicy final : public resize::Policy {
 public:
  // clock: "wall", "compute" (the kernel meter's CPU time) or "reported" (the slowest
  // rank's report_compute seconds: with --speed-clock emulated, a clock the machine's
  // load cannot touch).
  AdaptivePolicy(const Hetero& h, std::string clock, resize::AdaptOptions o, int window)
      : h_(h), clock_(std::move(clock)), opt_(o), window_(window) {}
  std::string name() const override { return "adaptive"; }
  resize::Decision decide(const resize::PolicyInput& in) override {
    if (!in.speeds || !in.metrics) return resize::Decision::none();
    // The iteration time now: median of the latest iterations on the current layout
    // (the transient first one after a change left out).
    int since = 0;
    for (const auto& r : in.metrics->resizes())
      if (r.ok) since = std::max(since, r.after_iteration + 1);
    std::vector<double> t;
    if (clock_ == "reported") {
      for (const auto& rs : in.metrics->rank_samples())
        if (rs.iteration > since && !rs.compute.empty())
          t.push_back(*std::max_element(rs.compute.begin(), rs.compute.end()));
    } else {
      for (const auto& s : in.metrics->iterations())
        if (s.iteration > since) t.push_back(clock_ == "compute" && s.compute > 0 ? s.compute : s.wall);
    }
    if (static_cast<int>(t.size()) < 2) return resize::Decision::none("adaptive: measuring");
    if (static_cast<int>(t.size()) > window_) t.erase(t.begin(), t.end() - window_);
    std::sort(t.begin(), t.end());
    const double now = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
    resize::AdaptInput a;
    a.grid = resize::Grid{in.grid.nprow, in.grid.npcol, in.grid.rank_map()};
    a.world_size = in.world_size;
    if (in.powers) a.powers = *in.powers;
    if (!a.powers.empty() && static_cast<int>(a.powers.size()) != in.world_size) a.powers.clear();
    for (int r = 0; r < in.world_size; ++r) {
      a.speeds.push_back(in.speeds->speed(r).value_or(0.0));
      a.samples.push_back(in.speeds->samples(r));
    }
    a.t_iteration = now;
    a.remaining = in.remaining;
    a.m = a.n = h_.n;
    const auto sizes = [&](const resize::Grid& g, const std::vector<double>& p, std::vector<long long>& rows,
                           std::vector<long long>& cols) {
      h_.sizes_with(g, [&](int r) { return p[static_cast<std::size_t>(r)]; }, rows, cols);
    };
    const auto plan = resize::plan_adaptation(a, sizes, in.cost_model, in.history, opt_);
    if (std::getenv("ADAPT_DEBUG")) std::printf("   adaptive: %s\n", plan.why.c_str());
    if (!plan.chosen) return resize::Decision::none(plan.why);
    resize::Decision d;
    d.action = resize::Action::Regrid;
    d.nprow = plan.chosen->grid.nprow;
    d.npcol = plan.chosen->grid.npcol;
    d.ranks = plan.chosen->grid.rank_map();
    d.procs = static_cast<int>(d.ranks.size());
    d.powers = plan.chosen->powers;
    d.predicted_iteration = plan.chosen->prediction.t_iter_new;
    d.predicted_resize = plan.chosen->prediction.t_resize;
    d.measured_iteration = now;
    d.prediction_clock = clock_;
    d.prediction = plan.why;
    d.reason = plan.chosen->what;
    std::printf("   adaptive policy after iter %d: %s\n", in.iteration, plan.why.c_str());
    return d;
  }

 private:
  const Hetero& h_;
  std::string clock_;
  resize::AdaptOptions opt_;
  int window_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // whole lines, never cut by a warning on stderr
  apps::CommonOptions o;
  o.n = 240;
  o.iters = 8;
  std::string powers_text = "1,2,2,4,1,2,2,4,3", distribution = "proportional";
  int base_reps = 4, tpp_at = 3;
  double tpp = 0;
  std::string free_text = "3,1,2,4,2,1", selection = "local";
  double balance_tol = 0.10;
  std::string true_powers_text, load_text, speed_clock = "wall", adapt_clock = "wall";
  int probe_n = 48, adapt_window = 3;
  double emulated_cell_ns = 100;  // --speed-clock emulated: seconds = updates x this
  resize::AdaptOptions adapt;
  std::vector<double> true_powers;  // emulated speeds by world rank
  std::vector<LoadEvent> load;
  Hetero h;
  resize::Matrix<double> cells;  // the board (the session's, moved at every resize)
  apps::DriverHooks hooks;
  hooks.name = "life_hetero";
  hooks.problem = [&] { return "N=" + std::to_string(o.n) + " " + distribution + " powers " + powers_text; };
  hooks.policy = [&](const apps::CommonOptions& co) -> std::unique_ptr<resize::Policy> {
    if (co.policy == "adaptive") {
      if (powers_text != "measured") throw resize::Error("--policy adaptive needs --powers measured");
      if (adapt_clock != "wall" && adapt_clock != "compute" && adapt_clock != "reported")
        throw resize::Error("--adapt-clock: expected wall, compute or reported, got '" + adapt_clock + "'");
      return std::make_unique<AdaptivePolicy>(h, adapt_clock, adapt, adapt_window);
    }
    if (co.policy != "budget") return nullptr;
    if (tpp <= 0) throw resize::Error("--policy budget needs --tpp > 0");
    return std::make_unique<BudgetPolicy>(h, tpp_at, tpp, gridmap::parse_powers(free_text).values,
                                          gridmap::parse_selection_strategy(selection));
  };
  hooks.setup = [&](resize::Session& s) {
    h.measured = powers_text == "measured";
    h.session = &s;
    if (speed_clock != "wall" && speed_clock != "cpu" && speed_clock != "emulated")
      throw resize::Error("--speed-clock: expected wall, cpu or emulated, got '" + speed_clock + "'");
    if (!(emulated_cell_ns > 0)) throw resize::Error("--emulated-cell-ns must be > 0");
    load = parse_load(load_text);
    if (h.measured) {
      h.powers.clear();
      if (!true_powers_text.empty()) true_powers = gridmap::parse_powers(true_powers_text).values;
    } else {
      if (!true_powers_text.empty()) throw resize::Error("--true-powers goes with --powers measured");
      h.powers = gridmap::parse_powers(powers_text).values;
    }
    // The power table travels with every expansion (new ranks' powers are decided on
    // rank 0 by the budget policy).
    s.set_app_state(
        [&] {
          std::vector<char> b(h.powers.size() * sizeof(double));
          std::memcpy(b.data(), h.powers.data(), b.size());
          return b;
        },
        [&](const std::vector<char>& b) {
          h.powers.resize(b.size() / sizeof(double));
          std::memcpy(h.powers.data(), b.data(), b.size());
        });
    h.proportional = distribution == "proportional";
    if (!h.proportional && distribution != "uniform")
      throw resize::Error("--distribution: expected proportional or uniform, got '" + distribution + "'");
    h.n = o.n;
    cells = s.register_matrix<double>(
        "board", o.n, o.n,
        [&](const resize::Grid& g, std::vector<long long>& r, std::vector<long long>& c) { h.sizes(g, r, c); });
  };
  hooks.init = [&](resize::Session& s) {
    const auto b = h.blocks(s.grid(), s.world_rank());
    if (b.myrow < 0) return;
    for (int j = 0; j < b.cols(); ++j)
      for (int i = 0; i < b.rows(); ++i)
        cells.local(i, j) = apps::life_initial(b.row_start[b.myrow] + i, b.col_start[b.mycol] + j);
  };
  hooks.iterate = [&](resize::Session& s) {
    const auto b = h.blocks(s.grid(), s.world_rank());
    // Emulated speed: the given powers, or the true ones behind measured mapping powers.
    const std::vector<double>& speed = h.measured ? true_powers : h.powers;
    const int me = s.world_rank();
    double rel = 1;
    if (!speed.empty()) {
      const double pmax = *std::max_element(speed.begin(), speed.end());
      rel = pmax / (me < static_cast<int>(speed.size()) ? speed[static_cast<std::size_t>(me)] : pmax);
    }
    const double f = load_factor(load, me, s.iteration() + 1);
    const int reps = std::max(1, static_cast<int>(std::lround(base_reps * rel * f)));
    double wall = 0, cpu = 0;
    // The seconds a rank reports: its update's wall or CPU time, or the emulated time of
    // `reps` updates of `work` cells (what the emulated speed and load make it take,
    // whatever else the machine is doing: tests use it).
    const auto clock = [&](double work, double cpu_s, double wall_s, int r) {
      if (speed_clock == "emulated") return work * r * emulated_cell_ns * 1e-9;
      return speed_clock == "cpu" ? cpu_s : wall_s;
    };
    if (b.myrow < 0) {
      // Off the grid (dropped by the adaptive policy): keep the speed known with a probe.
      if (!h.measured) return;
      cpu = apps::life_probe(probe_n, reps, &wall);
      const double work = static_cast<double>(probe_n) * probe_n;
      s.report_compute(work, clock(work, cpu, wall, reps));
      return;
    }
    cpu = apps::life_step(s.world(), b, cells.data(), cells.lld(), reps, &wall);
    const double work = static_cast<double>(b.rows()) * b.cols();
    s.report_compute(work, clock(work, cpu, wall, reps));
  };
  hooks.check = [&](resize::Session& s) {
    const int n = o.n;
    std::vector<std::uint8_t> board(static_cast<std::size_t>(n) * n);
    if (s.world_rank() == 0) {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) board[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n] = apps::life_initial(i, j);
      apps::life_serial(board, n, s.iteration());
    }
    MPI_Bcast(board.data(), n * n, MPI_UINT8_T, 0, s.world());
    const auto b = h.blocks(s.grid(), s.world_rank());
    long long bad = 0;
    if (b.myrow >= 0)
      for (int j = 0; j < b.cols(); ++j)
        for (int i = 0; i < b.rows(); ++i)
          bad += cells.local(i, j) !=
                 board[static_cast<std::size_t>(b.row_start[b.myrow] + i) +
                       static_cast<std::size_t>(b.col_start[b.mycol] + j) * n];
    long long tot = 0;
    MPI_Allreduce(&bad, &tot, 1, MPI_LONG_LONG, MPI_SUM, s.world());
    // Work balance on the final grid (pure: every rank computes the same).
    const resize::Grid& g = s.grid();
    std::vector<long long> rows, cols;
    h.sizes(g, rows, cols);
    double total_power = 0, worst = 0;
    for (int k = 0; k < g.size(); ++k) total_power += h.power(g.rank_map()[static_cast<std::size_t>(k)]);
    const double ideal = static_cast<double>(n) * n / total_power;
    for (int i = 0; i < g.nprow; ++i)
      for (int j = 0; j < g.npcol; ++j) {
        const double w = static_cast<double>(rows[static_cast<std::size_t>(i)]) * cols[static_cast<std::size_t>(j)] /
                         h.power(g.rank_at(i, j));
        worst = std::max(worst, std::fabs(w / ideal - 1.0));
      }
    // Measured powers change with the load and a 2D grid cannot balance every set of them
    // (rows x columns): the balance is reported there, not checked.
    const bool balanced = !h.proportional || h.measured || worst <= balance_tol;
    char msg[240];
    std::snprintf(msg, sizeof msg,
                  "generation %d: %lld cells differ from the serial run; per-rank work on %s at most "
                  "%.1f%% off the ideal (allowed %.0f%%%s): %s",
                  s.iteration(), tot, g.shape().c_str(), 100 * worst, 100 * balance_tol,
                  h.measured ? ", not checked for measured powers" : h.proportional ? "" : ", not checked for uniform", tot == 0 && balanced ? "OK" : "FAILED");
    return apps::Check{tot == 0 && balanced, msg};
  };
  const int rc = apps::run_driver(argc, argv, o, [&](void* app) {
    auto* cli = static_cast<CLI::App*>(app);
    cli->add_option("--powers", powers_text,
                    "processing power of each world rank (also of spawned ones), or 'measured'");
    cli->add_option("--true-powers", true_powers_text, "with --powers measured: the emulated powers (default: equal)");
    cli->add_option("--load", load_text, "emulated load: RANK@FROM-TO:xFACTOR[,...] (iterations FROM..TO, 1-based)");
    cli->add_option("--speed-clock", speed_clock,
                    "measured speed from the update's wall or cpu time, or emulated (updates x --emulated-cell-ns)");
    cli->add_option("--emulated-cell-ns", emulated_cell_ns, "--speed-clock emulated: nanoseconds per cell update");
    cli->add_option("--probe", probe_n, "side of the probe board a process off the grid times")
        ->check(CLI::PositiveNumber);
    cli->add_option("--adapt-clock", adapt_clock,
                    "adaptive policy: iteration time from the wall, compute (kernel CPU) or reported (slowest "
                    "rank's report_compute) clock");
    cli->add_option("--adapt-window", adapt_window, "adaptive policy: latest iterations in the time now (median)")
        ->check(CLI::PositiveNumber);
    cli->add_option("--adapt-min-gain", adapt.min_gain, "adaptive policy: least predicted cut of the iteration time");
    cli->add_option("--adapt-margin", adapt.margin, "adaptive policy: gain must exceed margin x cost (default 1)");
    cli->add_flag("!--no-drop", adapt.drop, "adaptive policy: never take a process off the grid");
    cli->add_flag("!--no-reweight", adapt.reweight, "adaptive policy: never re-weight the blocks alone");
    cli->add_option("--distribution", distribution, "proportional (gridmap SVD sizes) or uniform");
    cli->add_option("--base-reps", base_reps, "updates per generation on the fastest processor");
    cli->add_option("--balance-tol", balance_tol, "allowed deviation from the ideal work per rank");
    cli->add_option("--tpp", tpp, "budget policy: total processing power offered");
    cli->add_option("--tpp-at", tpp_at, "budget policy: remap point of the offer");
    cli->add_option("--free-powers", free_text, "budget policy: powers of the free processors offered");
    cli->add_option("--selection", selection, "budget policy: local, global, mixed or adaptive");
  }, hooks);
  MPI_Finalize();
  return rc;
}
