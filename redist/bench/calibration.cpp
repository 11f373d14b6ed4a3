// SPDX-License-Identifier: BSD-3-Clause
// Calibration of the redistribution cost model: measure, then weighted least squares
// (LAPACKE_dgels) on relative errors, re-linearising at the busiest rank/node until the
// choice settles, with negative costs pinned to zero (a small active-set loop).
#include "calibration.hpp"

#include <lapacke.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace redist::calib {

namespace {

// Old grid position of each new row/column (-1: new); Local2 inserts the n-th of r new
// lines after floor((n-1)p/r + p/(2r)) old ones (thesis §4.5), as the redist case does.
std::vector<int> line_order(int p_old, int p_new, bool interspersed) {
  std::vector<int> order;
  const int r = p_new - p_old;
  if (!interspersed || r <= 0) {
    for (int k = 0; k < p_new; ++k) order.push_back(k < p_old ? k : -1);
    return order;
  }
  std::vector<int> after(static_cast<std::size_t>(r));
  for (int n = 1; n <= r; ++n)
    after[static_cast<std::size_t>(n - 1)] =
        static_cast<int>((n - 1) * static_cast<double>(p_old) / r + static_cast<double>(p_old) / (2.0 * r));
  int next_new = 0;
  for (int k = 0; k <= p_old; ++k) {
    while (next_new < r && after[static_cast<std::size_t>(next_new)] == k) {
      order.push_back(-1);
      ++next_new;
    }
    if (k < p_old) order.push_back(k);
  }
  return order;
}




using Coeffs = std::array<double, kCostParamCount>;

// One measured quantity: time = coefficients . parameters (for redistributions the
// coefficients depend on the parameters through the busiest rank/node, so `features` is
// kept and the row re-linearised each round).
struct Row {
  std::string what;
  Coeffs coeffs{};
  bool redistribution = false;
  CostFeatures features;
  double measured = 0, spread = 0;
  std::vector<double> runs;
};

}  // namespace

void sleepy_barrier(MPI_Comm comm, int poll_us) {
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  int done = 0;
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) usleep(static_cast<useconds_t>(poll_us));
  }
}

std::vector<int> placement(const std::string& kind, Grid o, Grid n) {
  std::vector<int> ranks(static_cast<std::size_t>(n.size()));
  if (kind == "global") {
    std::iota(ranks.begin(), ranks.end(), 0);
    return ranks;
  }
  const bool inter = kind == "local2";
  if (!inter && kind != "local1")
    throw std::runtime_error("placement \"" + kind + "\" is not global, local1 or local2");
  const auto rows = line_order(o.r, n.r, inter), cols = line_order(o.c, n.c, inter);
  int next = o.size();
  for (int i = 0; i < n.r; ++i)
    for (int j = 0; j < n.c; ++j) {
      const int oi = rows[static_cast<std::size_t>(i)], oj = cols[static_cast<std::size_t>(j)];
      ranks[static_cast<std::size_t>(i * n.c + j)] = (oi >= 0 && oj >= 0) ? oi * o.c + oj : next++;
    }
  return ranks;
}

MPI_Comm case_comm(int P, int wrank) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, wrank < P ? 0 : MPI_UNDEFINED, wrank, &comm);
  if (comm == MPI_COMM_NULL) sleepy_barrier(MPI_COMM_WORLD, 500);
  return comm;
}

double max_over(MPI_Comm comm, double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

Local allocate(const Layout& l, int rank, bool fill) {
  Local x = bench::sized_part(l, rank, 0.0);
  if (fill)
    for (std::size_t k = 0; k < x.data.size(); ++k) x.data[k] = static_cast<double>(k % 1000) + rank;
  return x;
}

Grid parse_grid(const std::string& s) {
  Grid g;
  if (std::sscanf(s.c_str(), "%dx%d", &g.r, &g.c) != 2 || g.r <= 0 || g.c <= 0)
    throw std::runtime_error("grid \"" + s + "\" is not RxC");
  return g;
}

std::string Case::label() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%dx%d->%dx%d N=%lld %s %s", from.r, from.c, to.r, to.c, static_cast<long long>(n),
                placement.c_str(), to_string(schedule));
  return buf;
}

Layout source_layout(const Case& c) {
  std::vector<int> ranks(static_cast<std::size_t>(c.from.size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return Layout::block_cyclic(c.n, c.n, (c.n + c.from.r - 1) / c.from.r, (c.n + c.from.c - 1) / c.from.c, c.from.r,
                              c.from.c, 0, 0, ranks);
}

Layout target_layout(const Case& c) {
  return Layout::block_cyclic(c.n, c.n, (c.n + c.to.r - 1) / c.to.r, (c.n + c.to.c - 1) / c.to.c, c.to.r, c.to.c, 0, 0,
                              placement(c.placement, c.from, c.to));
}

RedistPlan plan_of(const Case& c) {
  const Layout a = source_layout(c);
  return make_plan(a, target_layout(c), Region::whole(a), c.ranks(), c.schedule);
}

std::vector<double> time_case(MPI_Comm world, const Case& c, int reps, int warmups) {
  int wrank = 0;
  MPI_Comm_rank(world, &wrank);
  std::vector<double> times(static_cast<std::size_t>(reps), 0.0);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(world, wrank < c.ranks() ? 0 : MPI_UNDEFINED, wrank, &comm);
  if (comm != MPI_COMM_NULL) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const Layout a = source_layout(c), b = target_layout(c);
    const auto plan = make_plan(a, b, Region::whole(a), c.ranks(), c.schedule, me);
    const auto A = allocate(a, me, true);
    auto B = allocate(b, me, false);
    // Untimed runs first: page faults on B and MPI's lazy connection set-up.
    for (int rep = -warmups; rep < reps; ++rep) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      redistribute<double>(comm, plan, A.in ? A.data.data() : nullptr, A.ld, B.in ? B.data.data() : nullptr, B.ld);
      const double t = max_over(comm, MPI_Wtime() - t0);
      if (rep >= 0) times[static_cast<std::size_t>(rep)] = t;
    }
    MPI_Comm_free(&comm);
  }
  sleepy_barrier(world);
  MPI_Bcast(times.data(), reps, MPI_DOUBLE, 0, world);
  return times;
}

std::vector<std::vector<double>> time_cases(MPI_Comm world, const std::vector<Case>& cases, int reps) {
  std::vector<std::vector<double>> runs(cases.size());
  // The untimed run (MPI's lazy connection set-up between the case's pairs) only in the
  // first round: later rounds find the connections made, and skipping it halves the time.
  for (int round = 0; round < reps; ++round)
    for (std::size_t i = 0; i < cases.size(); ++i)
      runs[i].push_back(time_case(world, cases[i], 1, round == 0 ? 1 : 0).front());
  return runs;
}

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double x = std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(x);
  const double f = x - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double statistic(const std::string& name, const std::vector<double>& runs) {
  if (name == "median") return median(runs);
  if (name == "min") return runs.empty() ? 0.0 : *std::min_element(runs.begin(), runs.end());
  throw std::runtime_error("statistic \"" + name + "\" is not median or min");
}

double relative_iqr(std::vector<double> v) {
  if (v.size() < 2) return 0;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double x = p * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    const double f = x - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
  };
  const double med = median(v);
  return med > 0 ? (q(0.75) - q(0.25)) / med : 0;
}

std::vector<Case> default_cases(int world) {
  std::vector<Case> cases;
  const std::vector<std::pair<Grid, Grid>> changes{{{1, 2}, {2, 2}}, {{2, 2}, {3, 3}}, {{3, 3}, {4, 4}}, {{4, 4}, {5, 5}}};
  using S = ScheduleKind;
  // Per change: every placement and every schedule at least once, both sizes, all-at-once
  // and caterpillar at both (the one-step / many-step contrast separates the per-step cost).
  const std::vector<std::tuple<std::int64_t, const char*, S>> mix{
      {3000, "global", S::AllAtOnce}, {3000, "local1", S::Matching},    {3000, "local2", S::Caterpillar},
      {6000, "global", S::Caterpillar}, {6000, "local1", S::Circulant}, {6000, "local2", S::AllAtOnce}};
  for (const auto& [from, to] : changes) {
    if (std::max(from.size(), to.size()) > world) continue;
    for (const auto& [n, place, s] : mix) cases.push_back({from, to, n, place, s});
  }
  return cases;
}

Calibration calibrate(MPI_Comm world, const Options& opt) { return calibrate(world, opt, {}, nullptr); }

Calibration calibrate(MPI_Comm world, const Options& opt, const std::vector<Case>& held_out,
                      std::vector<std::vector<double>>* held_out_runs) {
  return calibrate_each(world, opt, {opt.statistic}, held_out, held_out_runs).front();
}

namespace {

// Which rank shares rank 0's node (same) and which does not (other), -1 if none; every
// rank's node id (node_of_world).
struct Hosts {
  std::string host0;
  int same = -1, other = -1;
  std::vector<int> node_of_world;
};

Hosts find_hosts(MPI_Comm world, int wsize) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> names(static_cast<std::size_t>(wsize) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, world);
  auto host = [&](int r) { return std::string(&names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]); };
  Hosts h;
  h.host0 = host(0);
  for (int r = 1; r < wsize; ++r) {
    if (host(r) == host(0) && h.same < 0) h.same = r;
    if (host(r) != host(0) && h.other < 0) h.other = r;
  }
  std::vector<std::string> hosts;
  for (int r = 0; r < wsize; ++r) hosts.push_back(host(r));
  h.node_of_world.resize(static_cast<std::size_t>(wsize));
  for (int r = 0; r < wsize; ++r)
    h.node_of_world[static_cast<std::size_t>(r)] =
        static_cast<int>(std::find(hosts.begin(), hosts.end(), hosts[static_cast<std::size_t>(r)]) - hosts.begin());
  return h;
}

// Ping-pong between rank 0 and `peer`: one-way time = message + bytes * byte (both
// endpoints copy concurrently). One row per size.
nlohmann::json measure_pingpong(MPI_Comm world, const Options& opt, int peer, bool inter, std::vector<Row>& rows) {
  int wrank = 0;
  MPI_Comm_rank(world, &wrank);
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t bytes : opt.pingpong_bytes) {
    std::vector<char> buf(static_cast<std::size_t>(bytes), 1);
    std::vector<double> t;
    const int n = static_cast<int>(bytes);
    for (int rep = -1; rep < opt.reps; ++rep) {
      sleepy_barrier(world);
      const int iters = bytes <= 65536 ? 50 : bytes <= (4 << 20) ? 5 : 1;
      const double t0 = MPI_Wtime();
      for (int k = 0; k < iters; ++k) {
        if (wrank == 0) {
          MPI_Send(buf.data(), n, MPI_CHAR, peer, 7, world);
          MPI_Recv(buf.data(), n, MPI_CHAR, peer, 7, world, MPI_STATUS_IGNORE);
        } else if (wrank == peer) {
          MPI_Recv(buf.data(), n, MPI_CHAR, 0, 7, world, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), n, MPI_CHAR, 0, 7, world);
        }
      }
      const double one_way = (MPI_Wtime() - t0) / (2.0 * iters);
      if (rep >= 0) t.push_back(one_way);
    }
    MPI_Bcast(t.data(), static_cast<int>(t.size()), MPI_DOUBLE, 0, world);
    Row r;
    r.what = std::string(inter ? "ping-pong between nodes " : "ping-pong within node ") + std::to_string(bytes) + " B";
    r.coeffs[inter ? 2 : 0] = 1;
    r.coeffs[inter ? 3 : 1] = static_cast<double>(bytes);
    r.measured = statistic(opt.statistic, t);
    r.spread = relative_iqr(t);
    r.runs = t;
    rows.push_back(r);
    out.push_back({{"bytes", bytes}, {"one_way_s", r.measured}, {"relative_iqr", r.spread}});
  }
  return out;
}

// memcpy on rank 0 while the others sleep: the local-copy cost per byte. One row per size.
nlohmann::json measure_memcpy(MPI_Comm world, const Options& opt, std::vector<Row>& rows) {
  int wrank = 0;
  MPI_Comm_rank(world, &wrank);
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t bytes : opt.copy_bytes) {
    std::vector<double> t(static_cast<std::size_t>(opt.reps));
    if (wrank == 0) {
      std::vector<char> src(static_cast<std::size_t>(bytes), 1), dst(static_cast<std::size_t>(bytes), 0);
      for (int rep = -1; rep < opt.reps; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        std::memcpy(dst.data(), src.data(), dst.size());
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        src[static_cast<std::size_t>(rep + 1) % src.size()] = dst[dst.size() - 1];  // keep the copy live
        if (rep >= 0) t[static_cast<std::size_t>(rep)] = s;
      }
    }
    sleepy_barrier(world);
    MPI_Bcast(t.data(), opt.reps, MPI_DOUBLE, 0, world);
    Row r;
    r.what = "memcpy " + std::to_string(bytes) + " B";
    r.coeffs[6] = static_cast<double>(bytes);
    r.measured = statistic(opt.statistic, t);
    r.spread = relative_iqr(t);
    r.runs = t;
    rows.push_back(r);
    out.push_back({{"bytes", bytes}, {"s", r.measured}, {"relative_iqr", r.spread}});
  }
  return out;
}

// Small redistributions, what the per-event costs must add up to (one row each), timed in
// interleaved rounds with the held-out cases (their runs go to held_out_runs).
void measure_cases(MPI_Comm world, int wsize, const Options& opt, const std::vector<Case>& held_out,
                   std::vector<std::vector<double>>* held_out_runs, const std::vector<int>& node_of_world,
                   std::vector<Row>& rows) {
  std::vector<Case> cases;
  for (const auto& c : opt.cases.empty() ? default_cases(wsize) : opt.cases)
    if (c.ranks() <= wsize) cases.push_back(c);
  for (const auto& c : held_out)
    if (c.ranks() > wsize)
      throw std::runtime_error("held-out case " + c.label() + " needs " + std::to_string(c.ranks()) + " ranks");
  std::vector<Case> timed = cases;
  timed.insert(timed.end(), held_out.begin(), held_out.end());
  auto runs = time_cases(world, timed, opt.reps);
  if (held_out_runs) held_out_runs->assign(runs.begin() + static_cast<std::ptrdiff_t>(cases.size()), runs.end());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto& t = runs[i];
    Row r;
    r.what = c.label();
    r.redistribution = true;
    const std::vector<int> nodes(node_of_world.begin(), node_of_world.begin() + c.ranks());
    r.features = cost_features(plan_of(c), sizeof(double), nodes);
    r.measured = statistic(opt.statistic, t);
    r.spread = relative_iqr(t);
    r.runs = t;
    rows.push_back(std::move(r));
  }
}

// Weighted least squares on relative errors for the parameters not pinned (at zero).
Coeffs solve(const std::vector<Row>& rows, const std::array<bool, kCostParamCount>& pinned, double micro_weight) {
  std::vector<std::size_t> cols;
  for (std::size_t k = 0; k < kCostParamCount; ++k) {
    if (pinned[k]) continue;
    const bool used = std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.coeffs[k] != 0; });
    if (used) cols.push_back(k);
  }
  const auto m = static_cast<lapack_int>(rows.size()), n = static_cast<lapack_int>(cols.size());
  if (m < n || n == 0) throw std::runtime_error("calibration: too few measurements to fit the parameters");
  // Rows divided by their measured time (relative errors); columns scaled to unit norm
  // (bytes ~1e8 beside counts ~1) so that dgels works on a well-scaled matrix.
  std::vector<double> A(static_cast<std::size_t>(m) * cols.size()), b(static_cast<std::size_t>(m));
  std::vector<double> scale(cols.size(), 0.0);
  auto weight = [&](const Row& r) { return (r.redistribution ? 1.0 : micro_weight) / r.measured; };
  for (std::size_t j = 0; j < cols.size(); ++j) {
    for (const auto& r : rows) scale[j] += std::pow(r.coeffs[cols[j]] * weight(r), 2);
    scale[j] = std::sqrt(scale[j]);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < cols.size(); ++j)
      A[i * cols.size() + j] = rows[i].coeffs[cols[j]] * weight(rows[i]) / scale[j];
    b[i] = rows[i].measured * weight(rows[i]);
  }
  const lapack_int info = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', m, n, 1, A.data(), n, b.data(), 1);
  if (info != 0) throw std::runtime_error("calibration: LAPACKE_dgels failed, info = " + std::to_string(info));
  Coeffs v{};
  for (std::size_t j = 0; j < cols.size(); ++j) v[cols[j]] = b[j] / scale[j];
  return v;
}

// The cost parameters fitted to `rows` (their `measured` set for one statistic).
CostParams fit_params(std::vector<Row>& rows, double micro_weight, int cores, bool inter_node) {
  // Start from plausible costs so the first busiest-rank choice is sensible.
  CostParams p;
  p.cores_per_node = cores;
  p.inter_node_measured = inter_node;
  assign(p, {1e-6, 2e-10, 1e-6, 2e-10, 1e-5, 1e-5, 1e-10});
  for (int round = 0; round < 20; ++round) {
    // Linearise at the current busiest rank/node, then fit with costs >= 0: pin the most
    // negative cost at zero and refit until none is negative (a small active set).
    for (auto& r : rows)
      if (r.redistribution) r.coeffs = predict(p, r.features).coefficients;
    std::array<bool, kCostParamCount> pinned{};
    auto v = solve(rows, pinned, micro_weight);
    for (std::size_t guard = 0; guard < kCostParamCount; ++guard) {
      const auto worst = std::min_element(v.begin(), v.end());
      if (*worst >= 0) break;
      pinned[static_cast<std::size_t>(worst - v.begin())] = true;
      v = solve(rows, pinned, micro_weight);
    }
    for (auto& x : v) x = std::max(x, 0.0);
    const auto before = to_array(p);
    assign(p, v);
    bool settled = true;
    for (std::size_t k = 0; k < kCostParamCount && settled; ++k)
      if (std::abs(v[k] - before[k]) > 1e-6 * std::max(std::abs(v[k]), 1e-30)) settled = false;
    if (settled) break;
  }
  if (!inter_node) {
    p.message_inter_s = p.message_intra_s;
    p.byte_inter_s = p.byte_intra_s;
  }
  return p;
}

// The fit's residuals row by row (printed when `talk`) and its record.
Calibration residuals(const std::vector<Row>& rows, const CostParams& p, nlohmann::json record, bool talk) {
  Calibration out;
  double ss = 0, ss_redist = 0;
  std::size_t n_redist = 0;
  nlohmann::json fit = nlohmann::json::array();
  if (talk) std::printf("%-44s %12s %12s %8s %8s\n", "measurement", "measured_s", "fitted_s", "error", "iqr");
  for (const auto& r : rows) {
    const double model = r.redistribution ? predict(p, r.features).total_s : [&] {
      double s = 0;
      const auto v = to_array(p);
      for (std::size_t k = 0; k < kCostParamCount; ++k) s += r.coeffs[k] * v[k];
      return s;
    }();
    const double err = (model - r.measured) / r.measured;
    ss += err * err;
    if (r.redistribution) {
      ss_redist += err * err;
      ++n_redist;
      out.redistribution_errors.push_back(std::abs(err));
    }
    fit.push_back({{"what", r.what}, {"measured_s", r.measured}, {"fitted_s", model}, {"relative_iqr", r.spread}});
    if (talk)
      std::printf("%-44s %12.3e %12.3e %+7.1f%% %7.1f%%\n", r.what.c_str(), r.measured, model, 100 * err, 100 * r.spread);
  }
  out.rms_relative_residual = std::sqrt(ss / static_cast<double>(rows.size()));
  out.rms_redistribution_residual = n_redist ? std::sqrt(ss_redist / static_cast<double>(n_redist)) : 0.0;
  record["fit"] = fit;
  record["rms_relative_residual"] = out.rms_relative_residual;
  record["rms_redistribution_residual"] = out.rms_redistribution_residual;
  if (!p.inter_node_measured) record["note"] = "all ranks on one host: between-node costs copied from the within-node ones";
  out.params = p;
  out.record_json = record.dump();
  if (talk) {
    const auto v = to_array(p);
    std::printf("fitted (rms relative residual %.1f%%, redistributions only %.1f%%):\n", 100 * out.rms_relative_residual,
                100 * out.rms_redistribution_residual);
    for (std::size_t k = 0; k < kCostParamCount; ++k) std::printf("  %-22s %.4e\n", kCostParamNames[k], v[k]);
    std::printf("  %-22s %d\n", "cores_per_node", p.cores_per_node);
    std::fflush(stdout);
  }
  return out;
}

}  // namespace

std::vector<Calibration> calibrate_each(MPI_Comm world, const Options& opt, const std::vector<std::string>& statistics,
                                        const std::vector<Case>& held_out,
                                        std::vector<std::vector<double>>* held_out_runs) {
  if (statistics.empty()) throw std::runtime_error("calibrate_each: no statistic");
  int wsize = 0, wrank = 0;
  MPI_Comm_size(world, &wsize);
  MPI_Comm_rank(world, &wrank);
  if (wsize < 2) throw std::runtime_error("calibration needs at least 2 MPI ranks");
  const bool talk = opt.verbose && wrank == 0;
  const Hosts hosts = find_hosts(world, wsize);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::vector<Row> rows;
  nlohmann::json record;
  record["host"] = hosts.host0;
  record["ranks"] = wsize;
  record["cores_per_node"] = cores;
  {
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    record["date"] = date;
  }
  record["statistic"] = opt.statistic + " of " + std::to_string(opt.reps) + " runs (redistributions: interleaved rounds)";
  record["micro_weight"] = opt.micro_weight;
  if (hosts.same > 0) record["pingpong_intra_node"] = measure_pingpong(world, opt, hosts.same, false, rows);
  if (hosts.other > 0) record["pingpong_inter_node"] = measure_pingpong(world, opt, hosts.other, true, rows);
  record["memcpy"] = measure_memcpy(world, opt, rows);
  measure_cases(world, wsize, opt, held_out, held_out_runs, hosts.node_of_world, rows);

  std::vector<Calibration> fits;
  for (const auto& stat : statistics) {
    nlohmann::json rec = record;
    rec["statistic"] = stat + " of " + std::to_string(opt.reps) + " runs (redistributions: interleaved rounds)";
    for (auto& r : rows) r.measured = statistic(stat, r.runs);
    if (talk && statistics.size() > 1) std::printf("fit on the %s of the runs:\n", stat.c_str());
    const CostParams p = fit_params(rows, opt.micro_weight, cores, hosts.other > 0);
    fits.push_back(residuals(rows, p, std::move(rec), talk));
  }
  return fits;
}

}  // namespace redist::calib
