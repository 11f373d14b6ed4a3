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

  // The target grid (a pure decision, the same on every rank).
  Grid target;
  std::string why;
  try {
    if (!d.powers.empty()) {
      // Powers by world rank after the resize: the grown world for an expansion.
      const int n = d.action == Action::Expand ? std::max(d.procs, size()) : size();
      if (static_cast<int>(d.powers.size()) != n)
        throw Error(to_string(d.action) + ": the decision gives " + std::to_string(d.powers.size()) +
                    " powers, the world " + (d.action == Action::Expand ? "will have " : "has ") + std::to_string(n) +
                    " processes");
      for (std::size_t k = 0; k < d.powers.size(); ++k)
        if (!std::isfinite(d.powers[k]) || d.powers[k] <= 0)
          throw Error(to_string(d.action) + ": power of world rank " + std::to_string(k) + " is " +
                      std::to_string(d.powers[k]) + ", must be finite and > 0");
      if (d.action == Action::Shrink) throw Error("shrink: a decision cannot set powers (the world is renumbered)");
    }
    if (d.action != Action::Regrid) {
      // Expansions and shrinks count on the grid holding world ranks 0..P-1 (the new
      // ranks follow them; a shrink keeps the first ones); a regrid may have left another
      // set, e.g. {0, 2, 3} after dropping rank 1.
      std::vector<int> held = shape.rank_map();
      std::sort(held.begin(), held.end());
      for (std::size_t k = 0; k < held.size(); ++k)
        if (held[k] != static_cast<int>(k))
          throw Error(to_string(d.action) + ": the grid holds world ranks other than 0.." +
                      std::to_string(held.size() - 1) + " after a regrid; regrid onto those first");
    }
    if (d.action == Action::Regrid) {
      // The same world, any subset of its ranks on any grid shape.
      if (d.nprow < 1 || d.npcol < 1) throw Error("regrid: the grid must be at least 1x1");
      std::vector<int> rk = d.ranks;
      if (rk.empty())
        for (int k = 0; k < d.nprow * d.npcol; ++k) rk.push_back(k);
      if (static_cast<int>(rk.size()) != d.nprow * d.npcol)
        throw Error("regrid: " + std::to_string(rk.size()) + " ranks for a " + std::to_string(d.nprow) + "x" +
                    std::to_string(d.npcol) + " grid");
      std::vector<int> sorted = rk;
      std::sort(sorted.begin(), sorted.end());
      if (sorted.front() < 0 || sorted.back() >= size() ||
          std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw Error("regrid: the ranks must be distinct world ranks 0.." + std::to_string(size() - 1));
      target = Grid{d.nprow, d.npcol, rk};
      d.placement = Placement::Given;
    } else if (d.action == Action::Expand) {
      if (d.procs <= shape.size() && d.schema.empty())
        throw Error("expand to " + std::to_string(d.procs) + " processes: the grid already has " +
                    std::to_string(shape.size()));
      // An MPI that cannot spawn (MPICH here, docs/mpi-flavours.md): refused up front.
      if (std::string no_spawn; (d.procs > size() || !d.schema.empty()) && !detail::World::spawn_supported(no_spawn))
        throw Error(no_spawn);
      Grid t = d.nprow ? Grid{d.nprow, d.npcol, {}}
                       : (d.placement == Placement::Global ? choose_topology(d.procs)
                                                           : choose_local_topology(shape, d.procs));
      // The grid holds world ranks 0..size-1 (shrinks keep the first ranks); the
      // processes added to it are the next ones, spawned or already idle in the world.
      MatrixInfo info;
      if (!mats.empty()) {
        const auto& m0 = mats.front();  // the first registered matrix steers Optimal
        info = MatrixInfo{m0.m, m0.n, m0.mb, m0.nb, m0.dist == Distribution::Block};
      }
      std::vector<std::string> hosts_after = np.hosts_before;
      if (!d.hosts.empty()) {
        if (!d.schema.empty()) throw Error("expand: a schema file and hosts cannot both say where processes go");
        np.spawn = resolve_host_counts(d.hosts, std::max(0, t.size() - size()));
        for (const auto& [h, c] : np.spawn) hosts_after.insert(hosts_after.end(), static_cast<std::size_t>(c), h);
      }
      if (!d.ranks.empty()) {
        // The policy placed the processes itself: check it is a grid of 0..procs-1.
        std::vector<int> sorted = d.ranks;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t k = 0; k < sorted.size(); ++k)
          if (sorted[k] != static_cast<int>(k) || d.nprow * d.npcol != static_cast<int>(sorted.size()))
            throw Error("expand: the policy's rank map is not a " + std::to_string(d.nprow) + "x" +
                        std::to_string(d.npcol) + " grid of ranks 0.." + std::to_string(sorted.size() - 1));
        target = Grid{d.nprow, d.npcol, d.ranks};
        d.placement = Placement::Given;
      } else {
        target = plan_expansion(shape, shape.size(), t.nprow, t.npcol, d.placement,
                                mats.empty() ? nullptr : &info);
        // Nodes known for every rank of the grown world: put the newcomers near their data.
        if (static_cast<int>(hosts_after.size()) >= target.size())
          target = place_on_nodes(target, shape, size(), d.placement, mats.empty() ? nullptr : &info,
                                  hosts_after);
      }
    } else {
      if (d.procs >= shape.size())
        throw Error("shrink to " + std::to_string(d.procs) + " processes: the grid has only " +
                    std::to_string(shape.size()));
      if (d.hosts.empty()) {
        for (int k = 0; k < d.procs; ++k) np.keep.push_back(k);
      } else {
        // Giving nodes back: every process elsewhere stays, and the grid must hold them all.
        for (const auto& h : d.hosts) {
          if (std::find(np.hosts_before.begin(), np.hosts_before.end(), h.host) == np.hosts_before.end())
            throw Error("shrink: no process runs on host " + h.host);
          np.release.push_back(h.host);
        }
        for (int k = 0; k < size(); ++k)
          if (std::find(np.release.begin(), np.release.end(), np.hosts_before[static_cast<std::size_t>(k)]) ==
              np.release.end())
            np.keep.push_back(k);
        if (static_cast<int>(np.keep.size()) != d.procs)
          throw Error("shrink: giving back the node(s) leaves " + std::to_string(np.keep.size()) +
                      " processes, but the target grid holds " + std::to_string(d.procs));
      }
      Grid t = d.nprow ? Grid{d.nprow, d.npcol, {}} : choose_topology(d.procs);
      target = plan_shrink(shape, np.keep, t.nprow, t.npcol);
    }
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
