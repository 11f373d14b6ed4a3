// SPDX-License-Identifier: BSD-3-Clause
// Acting on a decision: rank 0's decision broadcast and validated into a target grid (a
// pure choice, the same on every rank), refusals, the record and predictions of a resize,
// and its conclusion (history, policy, progress line).
#include "session/session_impl.hpp"

#include <algorithm>
#include <cmath>

#include "malleable/resize/grid_choice.hpp"
#include "session/world.hpp"

namespace resize {

using namespace detail;

// "; predicted: spawn 812.0 ms (history), redistribution 12.3 ms (cost model), other
// 4.1 ms (history); measured/predicted 1.10x" for the parts that were predicted.
std::string predicted_note(const ResizeRecord& r) {
  std::string out;
  char part[96];
  const auto add = [&](const char* what, double v, const char* source) {
    if (v < 0) return;
    std::snprintf(part, sizeof part, "%s%s %.1f ms (%s)", out.empty() ? "; predicted: " : ", ", what, v * 1e3, source);
    out += part;
  };
  if (r.action != Action::Regrid) add(r.action == Action::Shrink ? "exit" : "spawn", r.t_spawn_predicted, "history");
  add("redistribution", r.t_redist_predicted, r.redist_predicted_by.c_str());
  add("other", r.t_other_predicted, "history");
  if (r.t_total_predicted() > 0) {
    std::snprintf(part, sizeof part, "; measured/predicted %.2fx", r.t_total / r.t_total_predicted());
    out += part;
  } else if (r.t_redist_predicted > 0) {
    std::snprintf(part, sizeof part, "; redistribution measured/predicted %.2fx", r.t_redist / r.t_redist_predicted);
    out += part;
  }
  return out;
}


Decision Session::Impl::broadcast_decision(const Decision& d) const {
  std::vector<char> bytes = root() ? detail::pack(d) : std::vector<char>{};
  std::uint64_t n = bytes.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, world);
  bytes.resize(n);
  MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, world);
  return detail::unpack_decision(bytes);
}

// Broadcasts rank 0's decision, validates it into a target grid and acts.
RemapResult Session::Impl::act(Decision d) {
  const double t_start = MPI_Wtime();
  d = broadcast_decision(d);
  if (d.action == Action::None) return {};
  // Every rank's node (one allgather): placement and the shrink's kept ranks depend on it,
  // and the record counts bytes within and between nodes.
  NodePlan np;
  np.hosts_before = detail::World::hosts();

  // The target grid (a pure decision, the same on every rank: target_grid.cpp).
  MatrixInfo info;
  if (!mats.empty()) {
    const auto& m0 = mats.front();  // the first registered matrix steers Optimal
    info = MatrixInfo{m0.m, m0.n, m0.mb, m0.nb, m0.dist == Distribution::Block};
  }
  const TargetInput in{shape, size(), mats.empty() ? nullptr : &info, &detail::World::spawn_supported};
  Grid target;
  std::string why;
  try {
    target = target_grid(d, in, np);
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) return refuse(d, why);
  if (root()) predict_before(d, target);
  if (!background_blocked(d)) return begin_background(d, target, np, t_start);  // issue 21
  if (d.action == Action::Regrid) return regrid(d, target, t_start);
  return d.action == Action::Expand ? expand(d, target, np, t_start) : shrink(d, target, np, t_start);
}

// A resize that did not happen: recorded, reported to the policy; the job stays as it was.
RemapResult Session::Impl::refuse(const Decision& d, const std::string& why) {
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = rec.to_grid = shape.shape();
  rec.ok = false;
  rec.message = why;
  rec.hosts = d.hosts;
  if (root()) {
    metrics.add_resize(rec);
    opt.policy->completed(d, shape.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": " + to_string(d.action) +
           " REFUSED (" + why + "); staying on " + shape.shape());
  return {d.action, false, why};
}

// The record of one resize, and the watchdog armed for it (both directions alike).
ResizeRecord Session::Impl::begin_resize(const Decision& d, const Grid& target) {
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = shape.shape();
  rec.to_grid = target.shape();
  rec.from_procs = shape.size();
  rec.to_procs = target.size();
  rec.placement = d.placement;
  rec.hosts = d.hosts;
  rec.t_spawn_predicted = pred_spawn;
  rec.t_other_predicted = pred_other;
  rec.t_iteration_predicted = pred_iteration;
  rec.t_iteration_before = iteration_before;
  rec.t_resize_policy = d.predicted_resize;
  rec.prediction_clock = d.prediction_clock == "compute" || d.prediction_clock == "dedicated" ? d.prediction_clock : "wall";
  rec.prediction = pred_text;
  powers_before = powers;
  if (!d.powers.empty()) powers = d.powers;
  dog.arm(std::string(d.action == Action::Expand ? "expansion " : d.action == Action::Regrid ? "regrid " : "shrink ") + shape.shape() +
          " -> " + target.shape() + " after iteration " + std::to_string(iteration));
  return rec;
}

// Rank 0, before acting: spawn/exit and other time from the history, the iteration time
// now (measured) and after (the policy's), for the record (issue 13 §2).
void Session::Impl::predict_before(const Decision& d, const Grid& target) {
  pred_spawn = pred_other = -1;
  if (d.action == Action::Regrid) {
    pred_spawn = 0;  // nobody is spawned or ends
  } else if (const auto t = history.predict_spawn(d.action, shape.size(), target.size())) {
    pred_spawn = *t;
  }
  if (const auto t = history.predict_other(d.action, shape.size(), target.size())) pred_other = *t;
  pred_iteration = d.predicted_iteration;
  pred_text = d.prediction;
  // The iteration time before, on the clock the policy predicted (the latest segment's
  // median, the transient first iteration left out).
  iteration_before = d.measured_iteration;
  const auto segs = metrics.segments();
  if (iteration_before < 0 && !segs.empty()) iteration_before = segs.back().median_on(d.prediction_clock);
}

// Rank 0, a resize that succeeded: its record, the history, the policy told, the line.
void Session::Impl::conclude(const Decision& d, int from_procs, const ResizeRecord& done, const std::string& line) {
  if (!root()) return;
  ResizeRecord rec = done;
  amend_background(rec);  // issue 21: a resize completed after a background phase
  metrics.add_resize(rec);
  record_outcome(rec);
  opt.policy->completed(d, from_procs, true);
  progress(line + predicted_note(rec) + (rec.background ? "; " + rec.message : std::string()));
}

// Rank 0, after a resize that succeeded: into the history (and its file).
void Session::Impl::record_outcome(const ResizeRecord& rec) {
  if (rec.action != Action::Expand && rec.action != Action::Shrink && rec.action != Action::Regrid) return;
  ResizeEvent e;
  e.action = rec.action;
  e.from_procs = rec.from_procs;
  e.to_procs = rec.to_procs;
  e.hosts = static_cast<int>(rec.hosts.size());
  e.t_spawn = std::max(0.0, rec.t_spawn);
  e.t_redist = std::max(0.0, rec.t_redist);
  e.t_other = std::max(0.0, rec.t_other);
  e.bytes_moved = static_cast<double>(rec.bytes_moved);
  history.add(e);
  if (history_path.empty()) return;
  try {
    history.save(history_path);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "[%s] the resize history is not saved: %s\n", opt.app.c_str(), ex.what());
    history_path.clear();  // say it once
  }
}

}  // namespace resize
