// SPDX-License-Identifier: BSD-3-Clause
// A respawn, the old processes' side (docs/reference/apps.md, "Merge or respawn"): every
// process of the new grid is spawned at once (one spawn, or one per node), the state is
// handed over, every registered matrix moves onto the new processes (within a node through
// the node window, as any resize's move), world rank 0 hands what it accumulated to the
// new rank 0, and every old process ends. The newcomers' side, the same collectives in the
// same order, is the facade's (session/session_expand.cpp, from Session::join).
#include "exec/executor.hpp"

#include <cstdio>

#include "common/broadcast.hpp"
#include "malleable/redist/traffic.hpp"
#include "parts/blacs_dyn_error.hpp"

namespace resize {

using namespace detail;

Outcome detail::respawn(GridSwitch gs, const LaunchCommand& launch, const Decision& d, const RespawnLayout& layout,
                        ResizeRecord& rec, double t_start, const std::function<std::vector<char>()>& pack_state,
                        const std::function<std::vector<char>(const ResizeRecord&, double)>& pack_carry) {
  SessionWorld& job = gs.job;
  Watchdog& watchdog = gs.watchdog;
  WatchdogGuard armed(watchdog);
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
  const std::string err = spawn_processes(spawn, groups, total, launch, &watchdog, rec.t_spawn);
  set_spawn_env("");  // set by the caller (respawn_spawn_env) for this spawn only
  if (!err.empty()) return {{d.action, false, err}, {}, false};
  job.world = blacs_dyn::World::comm();
  if (job.size() != n + total)
    throw Error("respawn: the world has " + std::to_string(job.size()) + " processes after spawning " +
                std::to_string(total) + " beside " + std::to_string(n));
  watchdog.phase("state hand-over");
  const double t_handover = MPI_Wtime();
  std::vector<char> bytes = pack_state();
  or_session_error("respawn: ", [&] { blacs_dyn::World::share(bytes); });
  const double t_hosts = MPI_Wtime();
  rec.other.handover_s = t_hosts - t_handover;
  job.rank_hosts = survey_world();
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  rec.other.hosts_s = MPI_Wtime() - t_hosts;
  // Every matrix onto the new processes; the old grids go with the old processes.
  gs.switch_grid(from, shifted(layout.grid, n), &rec, "redistribution", GridSwitch::Adopt::No);
  // World rank 0's carry, with the record so far, to the new rank 0 (and, by the
  // broadcast, to every process: the others drop it).
  watchdog.phase("rank 0's carry to the new rank 0");
  std::fflush(stdout);  // this process's lines before the new rank 0's
  std::vector<char> carry = job.root() ? pack_carry(rec, MPI_Wtime() - t_start) : std::vector<char>{};
  carry = broadcast_bytes(std::move(carry), 0, job.world);
  watchdog.phase("the old processes end");
  // (The data moved: no way back.)
  const bool leaving = or_session_error("respawn: ", [] { return blacs_dyn::World::retire(); });
  armed.release();
  if (!leaving) throw Error("respawn: an old process was kept");
  blacs_dyn::World::leave();
}

}  // namespace resize
