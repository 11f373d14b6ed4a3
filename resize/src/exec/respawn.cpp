// SPDX-License-Identifier: BSD-3-Clause
// A respawn, the old processes' side (docs/reference/apps.md, "Merge or respawn"), the
// executor's (executor.hpp): every process of the new grid is spawned at once (one spawn,
// or one per node), the state is handed over, every registered matrix moves onto the new
// processes (within a node through the node window, as any resize's move), world rank 0
// hands what it accumulated to the new rank 0 (the carry the session read before the
// spawn, completed here) and removes the spawn fallbacks' markers, and every old process
// ends. A shrink whose respawn could not spawn goes on as a merge's. The newcomers' side,
// the same collectives in the same order, is the facade's (session/session_expand.cpp,
// from Session::join).
#include "exec/executor.hpp"

#include <cstdio>
#include <thread>

#include "common/broadcast.hpp"
#include "malleable/redist/traffic.hpp"
#include "parts/blacs_dyn_error.hpp"

namespace resize {

using namespace detail;

namespace {
// World rank 0 (`root`): the spawn fallbacks' markers removed, as their succeeded() does
// (the spawn's deadline is disarmed since the spawn returned).
void remove_markers(bool root, const std::vector<std::string>& markers) {
  disarm_spawn_deadline();
  if (!root) return;
  for (const auto& m : markers)
    if (!m.empty()) std::remove(m.c_str());
}
}  // namespace

Outcome detail::Executor::respawn(const ResizePlan& plan, const ExpansionState& share, RespawnShare& values,
                                  ResizeRecord& rec, double t_start) {
  const Decision& d = plan.decision;
  rec.reconfigure = "respawn";
  rec.reconfigure_why = plan.reconfigure.why;
  const RespawnLayout layout = respawn_layout(plan.to, merge_hosts(plan.to, gs.job.size(), plan.nodes));
  if (gs.job.root()) {  // the spawn of the whole grid, as the history predicts it
    const auto t = record.recorder.history.predict_spawn(Action::Expand, 0, plan.to.size());
    rec.predicted.t_spawn = t ? *t : -1;
  }
  // This spawn's processes poll without yielding where they fit the node's cores.
  set_spawn_env(respawn_spawn_env(layout, std::thread::hardware_concurrency(), gs.cfg.session.mpi_yield_set));
  Outcome o = respawn_move(d, layout, share, values, rec, t_start);  // returns only when its spawn failed
  if (d.action != Action::Shrink) return o;
  // A shrink whose respawn could not spawn is a merge's (nothing changed yet); its
  // fallback's marker goes as on success.
  remove_markers(gs.job.root(), {values.shrink_marker});
  rec = record.begin_resize(d, plan.to);
  rec.reconfigure = "merge";
  rec.reconfigure_why = "merge (the respawn's spawn failed: " + o.result.message + ")";
  o = shrink(gs, record.recorder, record.iteration, plan.to, plan.nodes, rec, t_start);
  if (o.result.ok) o.line += "; reconfigured by " + rec.reconfigure_why;
  return o;
}

Outcome detail::Executor::respawn_move(const Decision& d, const RespawnLayout& layout, ExpansionState state,
                                       RespawnShare& values, ResizeRecord& rec, double t_start) {
  SessionWorld& job = gs.job;
  WatchdogGuard armed(gs.watchdog);
  const Grid from = job.shape;
  const int n = job.size(), total = layout.grid.size();
  rec.other.decision_s = MPI_Wtime() - t_start;
  rec.mechanism = "respawn";
  // The spawn: the whole new grid, by spawn (a respawn is never a join: parts of the job
  // would stay behind in the first launch).
  Decision spawn = d;
  spawn.by = ExpandBy::Spawn;
  spawn.schema.clear();
  NodePlan groups;
  groups.spawn = layout.groups;
  const std::string err = spawn_processes(spawn, groups, total, launch, &gs.watchdog, rec.t_spawn);
  if (!err.empty()) return {{d.action, false, err}, {}, false};
  job.world = blacs_dyn::World::comm();
  if (job.size() != n + total)
    throw Error("respawn: the world has " + std::to_string(job.size()) + " processes after spawning " +
                std::to_string(total) + " beside " + std::to_string(n));
  gs.watchdog.phase("state hand-over");
  const double t_handover = MPI_Wtime();
  const Grid to = shifted(layout.grid, n);
  fill_handover(state, from, to, gs.registry, record.recorder, gs.opt, record.iteration);
  state.app = gs.registry.pack ? gs.registry.pack() : std::vector<char>{};
  std::vector<char> bytes = pack(state);
  or_session_error("respawn: ", [&] { blacs_dyn::World::share(bytes); });
  const double t_hosts = MPI_Wtime();
  rec.other.handover_s = t_hosts - t_handover;
  job.rank_hosts = survey_world();
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  rec.other.hosts_s = MPI_Wtime() - t_hosts;
  // Every matrix onto the new processes; the old grids go with the old processes.
  gs.switch_grid(from, to, &rec, "redistribution", GridSwitch::Adopt::No);
  hand_carry(d, values, rec, t_start);
  gs.watchdog.phase("the old processes end");
  // (The data moved: no way back.)
  const bool leaving = or_session_error("respawn: ", [] { return blacs_dyn::World::retire(); });
  armed.release();
  if (!leaving) throw Error("respawn: an old process was kept");
  blacs_dyn::World::leave();
}

// World rank 0's carry, with the resize's decision, its record so far and its seconds, its
// clocks aged by the seconds since the session read them, to the new rank 0 (and, by the
// broadcast, to every process: the others drop it); first world rank 0 removes the spawn
// fallbacks' markers (the matrices moved).
void detail::Executor::hand_carry(const Decision& d, RespawnShare& values, const ResizeRecord& rec, double t_start) {
  gs.watchdog.phase("rank 0's carry to the new rank 0");
  std::fflush(stdout);  // this process's lines before the new rank 0's
  std::vector<char> carry;
  if (gs.job.root()) {
    std::vector<std::string> markers = values.markers;
    markers.push_back(values.shrink_marker);
    remove_markers(true, markers);
    RankZeroCarry& c = values.carry;
    const double now = MPI_Wtime();
    c.clocks = aged(c.clocks, now - values.read_at);
    c.decision = pack(d);
    c.record = rec;
    c.elapsed_s = now - t_start;
    carry = pack(c);
  }
  carry = broadcast_bytes(std::move(carry), 0, gs.job.world);
}

}  // namespace resize
