// SPDX-License-Identifier: BSD-3-Clause
// Rendering a run's metrics (report.hpp): the summary table, the JSON record that
// malleable-plot reads and the per-iteration CSV. Data sizes in MiB (2^20 bytes), as the
// planner (malleable-gridmap) prints them.
#include "malleable/resize/report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "malleable/version.h"
#include "malleable/redist/bound.hpp"
#include "report/resize_plan.hpp"

namespace resize {

std::string count_or(const std::optional<std::int64_t>& v, const std::string& none) {
  return v ? std::to_string(*v) : none;
}

namespace {
std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string ms(double s) { return fmt("%.2f", s * 1e3); }
// A clock that was off in this run (the compute clock without kernel metering) is "n/a",
// not 0.00.
std::string ms_on(bool on, double s) { return on ? ms(s) : std::string("n/a"); }
std::string mib(std::int64_t bytes) { return fmt("%.2f", static_cast<double>(bytes) / 1048576.0); }

// Background resizes: "   background (wait, helper thread): begun after 2, stopped 310.2 ms (begin
// 290.1 + complete 20.1, waited 0.0), overlapped 1520.3 ms over 1 iteration(s), slowdown
// 1.31x, 12.21 MiB in the background" for a resize begun in the background; "" otherwise.
std::string background_line(const ResizeRecord& r) {
  if (!r.background) return "";
  std::ostringstream out;
  out << "          background (" << to_string(r.background->mode) << ", " << to_string(r.background->progress) << "): begun after "
      << r.background->began_after << ", stopped " << ms(r.t_total) << " ms (begin " << ms(r.background->t_begin)
      << (r.cancelled() ? " + cancellation " : " + complete ") << ms(r.background->t_complete) << ", waited "
      << ms(r.background->t_wait)
      << "), overlapped " << ms(r.background->t_overlapped) << " ms over " << r.background->iterations_overlapped << " iteration(s)";
  if (r.background->completion_deferred > 0) out << ", deferred " << r.background->completion_deferred << "x";
  if (r.background->iteration_slowdown >= 0) out << ", slowdown " << fmt("%.2f", r.background->iteration_slowdown) << "x";
  out << ", " << fmt("%.2f", static_cast<double>(r.background->bytes) / 1048576.0) << " MiB in the background\n";
  if (r.action == Action::Expand && r.background->progress == BackgroundProgress::HelperThread) {
    // What the application waited for at the switch (the join of a helper thread still
    // spawning, the background messages) is part of the stopped time: said, not hidden.
    out << "          * the spawn ran in the helper thread while the old grid computed: overlapped; ";
    if (r.background->t_wait > 0)
      out << ms(r.background->t_wait) << " ms waited at the " << (r.cancelled() ? "cancellation" : "switch")
          << " (for the spawn's end and the background moves)\n";
    else
      out << "nothing waited for it at the " << (r.cancelled() ? "cancellation" : "switch") << "\n";
  }
  return out.str();
}

// "   nodes: node1 0-3 | node2 4-8; moved 3.1 MiB within nodes, 9.4 MiB between nodes" when
// the processes sit on more than one node after the resize; "" otherwise.
std::string node_line(const ResizeRecord& r) {
  // Per node, its ranks as ranges (from the record's runs: O(runs), not O(P)).
  std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> by_node(r.rank_hosts.hosts.size());
  for (std::size_t i = 0; i < by_node.size(); ++i) by_node[i].first = r.rank_hosts.hosts[i];
  int first = 0;
  for (const auto& [node, count] : r.rank_hosts.runs) {
    by_node[static_cast<std::size_t>(node)].second.emplace_back(first, first + count - 1);
    first += count;
  }
  if (by_node.size() < 2 && r.move.bytes_inter_node == 0) return "";
  // Built with a stream: GCC 12 warns (-Wrestrict, a false positive) on chained
  // std::string concatenation.
  std::ostringstream out;
  out << "          nodes:";
  for (std::size_t i = 0; i < by_node.size(); ++i) {
    out << (i ? " | " : " ") << by_node[i].first;
    const auto& ranges = by_node[i].second;  // ranks as ranges: 0-3,5
    for (std::size_t a = 0; a < ranges.size(); ++a) {
      out << (a ? "," : " ") << ranges[a].first;
      if (ranges[a].second > ranges[a].first) out << '-' << ranges[a].second;
    }
  }
  out << "; moved " << mib(r.move.bytes_intra_node) << " MiB within nodes, " << mib(r.move.bytes_inter_node)
      << " MiB between nodes\n";
  return out.str();
}

}  // namespace

int host_cores() {
  const unsigned hc = std::thread::hardware_concurrency();
  if (hc > 0) return static_cast<int>(hc);
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

namespace {
// Predictions: what was predicted before each resize, beside what happened (none when
// nothing was predicted).
void predicted_rows(std::ostringstream& o, const std::vector<ResizeAnalysis>& an, bool metered) {
  bool any = false;
  for (const auto& a : an) {
    const auto& r = a.record;
    any = any || r.predicted.t_spawn >= 0 || r.predicted.t_redist >= 0 || r.predicted.t_other >= 0 ||
          r.predicted.t_iteration_after >= 0 || r.predicted.t_resize_policy >= 0;
  }
  if (any) {
    o << "\n   predicted before the resize / measured, ms ('-': no prediction: no history, no calibration)\n";
    o << "   change          spawn/exit        redist         other         total | iteration after (clock)\n";
    const auto pm = [](double p, double m) {
      return (p >= 0 ? ms(p) : std::string("-")) + "/" + ms(m);
    };
    for (const auto& a : an) {
      const auto& r = a.record;
      if (!r.ok) continue;
      const double total = r.predicted.t_total() >= 0 ? r.predicted.t_total() : r.predicted.t_resize_policy;
      const bool clock_on = metered || r.predicted.clock != Clock::Compute;
      const std::string after =
          a.after ? ms_on(clock_on, a.after->median_on(r.predicted.clock)) : std::string("-");
      char line[320];
      std::snprintf(line, sizeof line, "   %-14s %13s %13s %13s %13s | %s/%s (%s)\n",
                    (r.from_grid + "->" + r.to_grid).c_str(), pm(r.predicted.t_spawn, r.t_spawn).c_str(),
                    pm(r.predicted.t_redist, r.t_redist).c_str(), pm(r.predicted.t_other, r.t_other).c_str(),
                    pm(total, r.t_total).c_str(),
                    r.predicted.t_iteration_after >= 0 ? ms(r.predicted.t_iteration_after).c_str() : "-", after.c_str(),
                    to_string(r.predicted.clock).c_str());
      o << line;
    }
  }
}
}  // namespace

std::string checkpoint_purpose(const std::string& reason) {
  if (reason == "first" || reason == "interval" || reason == "rule" || reason == "request") return "scheduled";
  if (reason == "last") return "final";
  if (reason == "before spawn") return "before a spawn";
  if (reason == "before shrink") return "before a shrink";
  if (reason == "before restart") return "before a restart";
  if (reason == "before refresh") return "before a refresh";
  return reason;
}

namespace {
// ": 4 scheduled, 1 before a spawn": the checkpoints per purpose, in a fixed order (then
// any other), so that the count adds up to the files the directory received.
template <class Record>
std::string purpose_counts(const std::vector<Record>& written) {
  std::vector<std::pair<std::string, int>> by;
  for (const char* p : {"scheduled", "before a spawn", "before a shrink", "before a restart", "before a refresh", "final"}) by.push_back({p, 0});
  for (const auto& c : written) {
    const std::string p = checkpoint_purpose(c.reason);
    auto it = std::find_if(by.begin(), by.end(), [&](const auto& e) { return e.first == p; });
    if (it == by.end()) by.push_back({p, 1});
    else ++it->second;
  }
  std::string out;
  for (const auto& [p, n] : by)
    if (n > 0) out += (out.empty() ? ": " : ", ") + std::to_string(n) + " " + p;
  return out;
}
// The node-local level files count as the global ones do: every version with its purpose,
// and the files all nodes received (each process's local file, the partner copies kept).
std::string levels_line(const RunInfo& info) {
  if (info.levels.empty()) return {};
  std::int64_t files = 0, bytes = 0;
  int with_partner = 0;
  for (const auto& l : info.levels) {
    files += l.files;
    bytes += l.total_bytes;
    with_partner += l.partner ? 1 : 0;
  }
  char line[240];
  std::snprintf(line, sizeof line, "   checkpoint levels: %zu versions written (%zu local, %d local+partner), %lld files, %.1f MB on all nodes",
                info.levels.size(), info.levels.size() - static_cast<std::size_t>(with_partner), with_partner,
                static_cast<long long>(files), static_cast<double>(bytes) / 1e6);
  std::string out(info.checkpoints.empty() ? 1 : 0, '\n');
  out.append(line).append(purpose_counts(info.levels)).push_back('\n');
  return out;
}

// The title and what each clock measures; whether the compute clock was on.
bool summary_header(std::ostringstream& o, const Metrics& m, const RunInfo& info) {
  const int cores = info.cores > 0 ? info.cores : host_cores();
  o << "== summary: " << info.app << " " << info.problem << ", policy " << info.policy
    << ", redistribution " << info.redistributor << "\n";
  o << "   clocks: wall = elapsed, max over ranks. Dedicated-core estimates (one core per rank; this host has "
    << cores << " hardware threads):\n"
       "           cpu = max per-rank process CPU time (includes polling in MPI while waiting: upper estimate)\n"
       "           compute = max per-rank CPU time in the compute kernels only (no communication: lower estimate)\n";
  bool metered = false;
  for (const auto& s : m.iterations()) metered = metered || s.compute > 0;
  if (!metered)
    o << "           (the compute clock was off in this run: link malleable::resize_meter and set RESIZE_METER_KERNELS=1, or call kernel_meter_enable(true); the drivers: --meter-kernels)\n";
  return metered;
}

void segment_rows(std::ostringstream& o, const Metrics& m, bool metered) {
  o << "\n   iteration time per grid, ms (steady state: the first iteration after a change is left out)\n";
  o << "   grid   procs  iters    wall median     mean |  cpu median     mean | compute median     mean\n";
  for (const auto& s : m.segments()) {
    char line[200];
    std::snprintf(line, sizeof line, "   %-6s %5d  %3d-%-3d %11s %8s | %11s %8s | %14s %8s\n", s.grid.c_str(),
                  s.procs, s.first_iteration, s.last_iteration, ms(s.median_wall).c_str(),
                  ms(s.mean_wall).c_str(), ms(s.median_dedicated).c_str(), ms(s.mean_dedicated).c_str(),
                  ms_on(metered, s.median_compute).c_str(), ms_on(metered, s.mean_compute).c_str());
    o << line;
  }
}

void resize_rows(std::ostringstream& o, const std::vector<ResizeAnalysis>& an) {
  o << "\n   resizes (DRMS split of t_r, wall ms)\n";
  o << "   after  change          placement  by      spawn/exit    redist     other     total  moved MiB\n";
  for (const auto& a : an) {
    const auto& r = a.record;
    char line[256];
    const std::string change = r.from_grid + "->" + r.to_grid + (r.ok ? "" : r.cancelled() ? " CANCELLED" : " FAILED");
    // A spawn that ran in the helper thread overlapped the old grid's iterations: it is
    // not part of the time stopped (total); marked, and said on the background line.
    const bool spawn_overlapped = r.background && r.action == Action::Expand && r.background->progress == BackgroundProgress::HelperThread;
    std::snprintf(line, sizeof line, "   %5d  %-15s %-9s  %-6s %10s %9s %9s %9s %9s\n", r.after_iteration,
                  change.c_str(), to_string(r.placement).c_str(), (r.mechanism.empty() ? "-" : r.mechanism.c_str()),
                  (ms(r.t_spawn) + (spawn_overlapped ? "*" : "")).c_str(),
                  ms(r.t_redist).c_str(), ms(r.t_other).c_str(), ms(r.t_total).c_str(),
                  mib(r.bytes_moved).c_str());
    o << line;
    if (!r.ok) o << "          " << r.message << "\n";
    if (!r.reconfigure_why.empty()) o << "          reconfigured by " << r.reconfigure_why << "\n";
    o << node_line(r);
    o << background_line(r);
  }
}

void payoff_rows(std::ostringstream& o, const std::vector<ResizeAnalysis>& an, bool metered) {
  o << "\n   payoff point ceil(t_r/(t_p1-t_p2)) and resize cost ceil(t_r/t_p2)"
       " (t_p = median iteration time)\n";
  o << "   change          t_r ms | wall:  t_p1    t_p2  payoff  cost | cpu:  t_p1    t_p2  payoff  cost |"
       " compute:  t_p1    t_p2  payoff  cost\n";
  for (const auto& a : an) {
    const auto& r = a.record;
    if (!r.ok || !a.before || !a.after) continue;
    char line[400];
    std::snprintf(line, sizeof line,
                  "   %-14s %7s | %11s %7s %7s %5s | %10s %7s %7s %5s | %14s %7s %7s %5s\n",
                  (r.from_grid + "->" + r.to_grid).c_str(), ms(r.t_total).c_str(),
                  ms(a.before->median_wall).c_str(), ms(a.after->median_wall).c_str(),
                  count_or(a.payoff_wall, "never").c_str(), count_or(a.cost_wall, "-").c_str(),
                  ms(a.before->median_dedicated).c_str(), ms(a.after->median_dedicated).c_str(),
                  count_or(a.payoff_dedicated, "never").c_str(), count_or(a.cost_dedicated, "-").c_str(),
                  ms_on(metered, a.before->median_compute).c_str(), ms_on(metered, a.after->median_compute).c_str(),
                  metered ? count_or(a.payoff_compute, "never").c_str() : "n/a",
                  metered ? count_or(a.cost_compute, "-").c_str() : "n/a");
    o << line;
  }
  o << "   (\"never\": the new grid is not faster per iteration on that clock, so the resize"
       " does not pay off)\n";
}

std::string checkpoints_line(const RunInfo& info) {
  if (info.checkpoints.empty()) return {};
  double sum = 0, most = 0;
  for (const auto& c : info.checkpoints) {
    sum += c.seconds;
    most = std::max(most, c.seconds);
  }
  char line[200];
  std::snprintf(line, sizeof line, "\n   checkpoints: %zu written (every %s), %.1f ms each on average, at most %.1f ms",
                info.checkpoints.size(), info.checkpoint_every.empty() ? "end" : info.checkpoint_every.c_str(),
                sum / static_cast<double>(info.checkpoints.size()) * 1e3, most * 1e3);
  return line + purpose_counts(info.checkpoints) + "\n";
}
}  // namespace

std::string summary_table(const Metrics& m, const RunInfo& info) {
  std::ostringstream o;
  const bool metered = summary_header(o, m, info);
  segment_rows(o, m, metered);
  const auto an = m.analyse();
  if (!an.empty()) {
    resize_rows(o, an);
    payoff_rows(o, an, metered);
    predicted_rows(o, an, metered);
  }
  o << checkpoints_line(info);
  o << levels_line(info);
  if (!info.check_given)
    o << "\n   result check: not given (the program did not report one)\n";
  else
    o << "\n   result check: " << info.check << "\n";
  return o.str();
}

namespace {
using nlohmann::json;

// "RxC" -> {"rows": R, "cols": C}, as malleable-gridmap writes grids.
json grid(const std::string& g) {
  const auto x = g.find('x');
  if (x == std::string::npos) return json(g);
  try {
    return json{{"rows", std::stoi(g.substr(0, x))}, {"cols", std::stoi(g.substr(x + 1))}};
  } catch (const std::exception&) {
    return json(g);
  }
}

json count_or_null(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
json seconds_or_null(double v) { return v >= 0 ? json(v) : json(nullptr); }

// How the data moved: bytes within/between nodes, batches, phases; t_other by step; the
// decision's hosts and the ranks per node.
void move_json(json& e, const ResizeRecord& r) {
  e["bytes_intra_node"] = r.move.bytes_intra_node;
  e["bytes_inter_node"] = r.move.bytes_inter_node;
  e["move_batches"] = r.move.batches;  // SessionOptions::move_budget_bytes
  e["move_peak_bytes"] = r.move.peak_bytes;
  const MovePhases& ph = r.move.phases;  // the slowest process's seconds per phase
  e["move_phases"] = {{"stage_s", ph.stage_s},   {"plan_s", ph.plan_s},     {"exchange_s", ph.exchange_s},
                      {"pack_s", ph.pack_s},     {"unpack_s", ph.unpack_s}, {"local_copy_s", ph.local_copy_s},
                      {"commit_s", ph.commit_s}, {"prefault_s", ph.prefault_s}};
  const OtherPhases& ot = r.other;  // t_other by step (rank 0's seconds)
  e["other_phases"] = {{"decision_s", ot.decision_s}, {"handover_s", ot.handover_s}, {"hosts_s", ot.hosts_s},
                       {"grids_s", ot.grids_s},       {"release_s", ot.release_s},
                       {"heap_trim_s", seconds_or_null(ot.heap_trim_s)}};
  e["hosts"] = json::array();
  for (const auto& h : r.hosts) e["hosts"].push_back({{"host", h.host}, {"count", h.count}});
  // One name per rank (as before; O(P) while writing only) and the record's compact runs.
  e["rank_hosts"] = r.rank_hosts.expand();
  e["rank_host_runs"] = json::array();
  for (const auto& [node, count] : r.rank_hosts.runs)
    e["rank_host_runs"].push_back({{"host", r.rank_hosts.hosts[static_cast<std::size_t>(node)]}, {"ranks", count}});
}

// What was predicted before the resize, with the payoff point it implies.
json predicted_json(const ResizeRecord& r) {
  const ResizePrediction& pr = r.predicted;
  json p = {{"t_spawn_s", seconds_or_null(pr.t_spawn)},
            {"t_redist_s", seconds_or_null(pr.t_redist)},
            {"t_redist_by", to_string(pr.redist_by)},
            {"t_other_s", seconds_or_null(pr.t_other)},
            {"t_total_s", seconds_or_null(pr.t_total())},
            {"t_iteration_before_s", seconds_or_null(pr.t_iteration_before)},
            {"t_iteration_after_s", seconds_or_null(pr.t_iteration_after)},
            {"clock", to_string(pr.clock)},
            {"policy_t_resize_s", seconds_or_null(pr.t_resize_policy)},
            {"reasoning", pr.reasoning}};
  std::optional<std::int64_t> pp;
  const double t_pred = pr.t_total() >= 0 ? pr.t_total() : pr.t_resize_policy;
  if (t_pred >= 0 && pr.t_iteration_before > 0 && pr.t_iteration_after >= 0)
    pp = payoff_point(t_pred, pr.t_iteration_before, pr.t_iteration_after);
  p["payoff"] = count_or_null(pp);
  return p;
}

// What happened, on the clock the prediction used, beside "predicted".
json measured_json(const ResizeAnalysis& a) {
  const auto& r = a.record;
  return {{"t_spawn_s", r.t_spawn}, {"t_redist_s", r.t_redist}, {"t_other_s", r.t_other},
          {"t_total_s", r.t_total}, {"clock", to_string(r.predicted.clock)},
          {"t_iteration_before_s", a.before ? json(a.before->median_on(r.predicted.clock)) : json(nullptr)},
          {"t_iteration_after_s", a.after ? json(a.after->median_on(r.predicted.clock)) : json(nullptr)},
          {"payoff", count_or_null(r.predicted.clock == Clock::Compute     ? a.payoff_compute
                                   : r.predicted.clock == Clock::Dedicated ? a.payoff_dedicated
                                                                           : a.payoff_wall)}};
}

// Background resizes: the background phase (null for a blocking resize).
json background_json(const ResizeRecord& r) {
  if (!r.background) return json(nullptr);
  const auto& b = *r.background;
  return {{"mode", to_string(b.mode)}, {"progress", to_string(b.progress)},
          {"cancelled", r.cancelled()},
          {"began_after_iteration", b.began_after},
          {"t_stopped_s", r.t_total},
          {"t_stopped_begin_s", b.t_begin},
          {"t_stopped_complete_s", b.t_complete},
          {"t_waited_s", b.t_wait},
          {"t_overlapped_s", b.t_overlapped},
          {"iterations_overlapped", b.iterations_overlapped},
          {"completion_deferred", b.completion_deferred},
          {"iteration_slowdown", b.iteration_slowdown >= 0 ? json(b.iteration_slowdown) : json(nullptr)},
          {"bytes_background", b.bytes}};
}

// The resize's redistribution and process start beside their bounds: bytes kept
// (registered bytes that stayed on their rank) and moved, the redistribution's rate and the
// fraction of the copy/shared-memory bound from totals over the ranks (the mean rank's
// bound, at most the slowest's: malleable/redist/bound.hpp), the start beside a bare one.
json bound_json(const ResizeRecord& r, const ResizeBounds& b) {
  const double moved = static_cast<double>(std::max<std::int64_t>(0, r.bytes_moved));
  const double kept = static_cast<double>(std::max<std::int64_t>(0, r.move.bytes_total - r.bytes_moved));
  const int ranks = std::max({1, r.from_procs, r.to_procs});
  // Ranks beyond the nodes' cores take turns: at most cores x nodes copy at once.
  const int nodes = std::max<int>(1, static_cast<int>(r.rank_hosts.hosts.size()));
  const int at_work = detail::ranks_at_work(ranks, nodes, b.cores_per_node);
  const redist::BoundRates rates{b.copy_Bps, b.shm_Bps};
  json e = {{"bytes_kept", kept}, {"bytes_moved", moved}, {"t_redist_s", r.t_redist}, {"ranks", ranks},
            {"ranks_at_work", at_work},
            {"redist_GBps", redist::gb_per_s(kept + moved, r.t_redist)},
            {"copy_GBps", b.copy_Bps / 1e9}, {"shm_GBps", b.shm_Bps / 1e9}, {"rates_from", b.rates_from}};
  if (rates.valid()) {
    const double bound = redist::bound_seconds_from_totals(kept, moved, at_work, rates);
    e["bound_s"] = bound;
    e["fraction_of_bound"] = r.t_redist > 0 ? json(redist::fraction_of_bound(bound, r.t_redist)) : json(nullptr);
  } else {
    e["bound_s"] = nullptr;
    e["fraction_of_bound"] = nullptr;
  }
  const bool spawned = r.mechanism == "spawn" || r.mechanism == "respawn";
  const double bare = spawned ? b.bare_spawn_s : r.mechanism == "join" ? b.bare_join_s : -1;
  e["t_start_s"] = spawned || r.mechanism == "join" ? json(r.t_spawn) : json(nullptr);
  e["bare_start_s"] = bare > 0 ? json(bare) : json(nullptr);
  e["start_over_bare"] = bare > 0 && (spawned || r.mechanism == "join") ? json(r.t_spawn / bare) : json(nullptr);
  return e;
}

// One resize of the run's JSON: what happened, its nodes, payoff, prediction, background.
json resize_json(const ResizeAnalysis& a, const std::optional<ResizeBounds>& bounds) {
  const auto& r = a.record;
  json e = {{"after_iteration", r.after_iteration}, {"action", to_string(r.action)},
            {"from", grid(r.from_grid)}, {"to", grid(r.to_grid)}, {"placement", to_string(r.placement)},
            {"ok", r.ok}, {"message", r.message}, {"mechanism", r.mechanism}, {"t_spawn_s", r.t_spawn},
            {"t_redist_s", r.t_redist}, {"t_other_s", r.t_other}, {"t_total_s", r.t_total},
            {"bytes_moved", r.bytes_moved}, {"bytes_total", r.move.bytes_total}};
  if (!r.reconfigure.empty()) {
    e["reconfigure"] = r.reconfigure;
    e["reconfigure_why"] = r.reconfigure_why;
  }
  // The prediction from the calibrated cost model, beside the measured t_redist_s.
  e["t_redist_predicted_s"] = seconds_or_null(r.predicted.t_redist);
  move_json(e, r);
  e["payoff_wall"] = count_or_null(a.payoff_wall);
  e["payoff_dedicated"] = count_or_null(a.payoff_dedicated);
  e["resize_cost_wall"] = count_or_null(a.cost_wall);
  e["resize_cost_dedicated"] = count_or_null(a.cost_dedicated);
  e["payoff_compute"] = count_or_null(a.payoff_compute);
  e["resize_cost_compute"] = count_or_null(a.cost_compute);
  e["predicted"] = predicted_json(r);
  e["measured"] = measured_json(a);
  e["background"] = background_json(r);
  if (bounds) e["bound"] = bound_json(r, *bounds);
  return e;
}

std::string utc_timestamp() {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return stamp;
}

// The checkpoints written (global files) and the node-local levels, when the run had any.
void checkpoints_json(json& j, const RunInfo& info) {
  if (!info.checkpoints.empty() || !info.checkpoint_every.empty()) {
    json ck = {{"every", info.checkpoint_every}, {"mtbf_s", info.mtbf_s}, {"written", json::array()}};
    for (const auto& c : info.checkpoints) {
      json w = {{"after_iteration", c.after_iteration}, {"seconds", c.seconds}, {"reason", c.reason},
                {"purpose", checkpoint_purpose(c.reason)}, {"file", c.file}};
      w["interval_s"] = c.interval_s < 0 ? json(nullptr) : json(c.interval_s);
      ck["written"].push_back(w);
    }
    j["checkpoints"] = ck;
  }
  if (!info.levels.empty()) {
    json lv = json::array();
    for (const auto& l : info.levels)
      lv.push_back({{"after_iteration", l.after_iteration}, {"level", l.partner ? "local+partner" : "local"},
                    {"seconds", l.seconds}, {"reason", l.reason}, {"purpose", checkpoint_purpose(l.reason)},
                    {"files", l.files}, {"node_bytes", l.node_bytes}, {"total_bytes", l.total_bytes}});
    j["checkpoint_levels"] = lv;
  }
}

// Every iteration (with the ranks' measured powers) and every grid's steady-state segment.
void iterations_json(json& j, const Metrics& m) {
  for (const auto& s : m.iterations()) {
    json it = {{"iteration", s.iteration}, {"procs", s.procs}, {"grid", grid(s.grid)},
               {"wall_s", s.wall}, {"dedicated_s", s.dedicated}, {"compute_s", s.compute}};
    // Measured powers: what every rank reported and the smoothed powers after this iteration.
    for (const auto& rs : m.rank_samples())
      if (rs.iteration == s.iteration) {
        it["rank_work"] = rs.work;
        it["rank_compute_s"] = rs.compute;
        it["powers"] = rs.powers;
      }
    j["iterations"].push_back(it);
  }
  for (const auto& s : m.segments())
    j["segments"].push_back({{"grid", grid(s.grid)}, {"procs", s.procs}, {"first", s.first_iteration},
                             {"last", s.last_iteration}, {"mean_wall_s", s.mean_wall},
                             {"mean_dedicated_s", s.mean_dedicated}, {"median_wall_s", s.median_wall},
                             {"median_dedicated_s", s.median_dedicated}, {"median_compute_s", s.median_compute},
                             {"mean_compute_s", s.mean_compute}});
}
}  // namespace

std::string to_json(const Metrics& m, const RunInfo& info) {
  json j;
  // Schema 2: grids are {rows, cols} objects; metadata below (schema 1 had "RxC" strings).
  j["schema"] = "malleable.run/2";
  j["malleable"] = {{"version", MALLEABLE_VERSION}, {"commit", MALLEABLE_GIT_COMMIT}};
  j["command_line"] = info.command_line;
  j["timestamp"] = utc_timestamp();
  j["problem_size"] = {{"n", info.n}, {"nb", info.nb}, {"distribution", info.distribution}};
  j["app"] = info.app;
  j["problem"] = info.problem;
  j["policy"] = info.policy;
  j["redistributor"] = info.redistributor;
  j["check"] = info.check_given ? json{{"ok", info.check_ok}, {"message", info.check}}
                                 : json{{"ok", nullptr}, {"message", info.check}};
  j["host_cores"] = info.cores > 0 ? info.cores : host_cores();
  checkpoints_json(j, info);
  j["clocks"] = {{"wall", "elapsed seconds, max over ranks"},
                 {"dedicated", "max per-rank process CPU seconds (dedicated-core upper estimate, includes MPI polling)"},
                 {"compute", "max per-rank CPU seconds in compute kernels (dedicated-core lower estimate)"}};
  iterations_json(j, m);
  for (const auto& a : m.analyse()) j["resizes"].push_back(resize_json(a, info.bounds));
  return j.dump(2);
}

std::string iterations_csv(const Metrics& m) {
  std::ostringstream o;
  o << "iteration,procs,grid,wall_s,dedicated_s,compute_s\n";
  for (const auto& s : m.iterations())
    o << s.iteration << "," << s.procs << "," << s.grid << "," << s.wall << "," << s.dedicated << ","
      << s.compute << "\n";
  return o.str();
}

}  // namespace resize
