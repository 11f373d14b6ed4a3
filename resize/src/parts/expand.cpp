// SPDX-License-Identifier: BSD-3-Clause
// An expansion, the old processes' side (expand): they spawn through blacs-dyn, hand the
// state to the newcomers and switch to the grown grid. The newcomers' side, the same
// hand-over and the same switch in the same order, is the facade's Session::join
// (session/session_expand.cpp); the spawn is also the background expansion's.
#include "parts/resize_phases.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "malleable/redist/traffic.hpp"
#include "parts/generation_check.hpp"
#include "parts/blacs_dyn_error.hpp"
#include "parts/handover.hpp"

namespace resize {

using namespace detail;

namespace {
std::atomic<int> spawned_here{0};  // processes_spawned()
std::string spawn_env;             // set_spawn_env: Open MPI's "env" key of the next spawns

// The MPI_Info of a spawn: the "env" key when set_spawn_env gave one (freed by the caller).
MPI_Info spawn_info() {
  if (spawn_env.empty()) return MPI_INFO_NULL;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "env", spawn_env.c_str());
  return info;
}

// The calling thread's world's size (a background expansion's pending world on its thread).
int world_size() {
  const MPI_Comm c = blacs_dyn::World::comm();
  int n = 0;
  if (c != MPI_COMM_NULL) MPI_Comm_size(c, &n);
  return n;
}

// The switch onto the grown grid (BLACS grids, every matrix moved, the record's times);
// returns the progress line.
std::string finish_expansion(GridSwitch& gs, int iteration, const Grid& from, const Grid& to, ResizeRecord& rec,
                             double t_start) {
  gs.switch_grid(from, to, &rec);
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_spawn - rec.t_redist;
  char line[256];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: expand %s -> %s (%s, %d procs): %s %.1f ms, "
                "redistribution %.1f ms, other %.1f ms, total %.1f ms",
                iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), to_string(rec.placement).c_str(), to.size(),
                rec.mechanism.c_str(), rec.t_spawn * 1e3, rec.t_redist * 1e3, rec.t_other * 1e3, rec.t_total * 1e3);
  return line;
}
}  // namespace

Outcome detail::expand(GridSwitch gs, const LaunchCommand& launch, int iteration, const Decision& d, const Grid& target,
                       const NodePlan& node_plan, ResizeRecord& rec, double t_start,
                       const std::function<std::vector<char>()>& pack_state) {
  SessionWorld& job = gs.job;
  Watchdog& watchdog = gs.watchdog;
  const Grid from = job.shape;
  WatchdogGuard armed(watchdog);
  // Spawn only what the world lacks (a world may already hold idle processes).
  const int nnew = std::max(0, target.size() - job.size());
  // The new local arrays staged and populated while the spawn runs (move/pages.hpp), or,
  // where the world already holds the processes (no spawn), while the hand-over and the
  // host list below run; whatever the move does not take (a failed expansion) is freed on
  // the way out.
  struct DropPrestaged {
    GridSwitch& s;
    ~DropPrestaged() { s.drop_prestaged(); }
  } drop{gs};
  {
    // The window only where newcomers may land on this node (no host list: anywhere). No
    // spawn: none (the move sends to processes of its own MPI job by MPI's transport,
    // WindowPairs::OtherJobs; a world that holds another job's processes from an earlier
    // spawn makes its segment in the move, as without the prefault).
    const std::string here = job.rank() < static_cast<int>(job.rank_hosts.size()) ? job.rank_hosts[static_cast<std::size_t>(job.rank())] : "";
    bool beside = nnew > 0 && (node_plan.spawn.empty() || here.empty());
    for (const auto& [host, count] : node_plan.spawn) beside = beside || (host == here && count > 0);
    gs.prefault_for(target, beside, false);
  }
  rec.other.decision_s = MPI_Wtime() - t_start;
  rec.mechanism = d.schema.empty() && (d.by == ExpandBy::Join || d.by == ExpandBy::Waiting) ? "join" : "spawn";
  const std::string err = spawn_processes(d, node_plan, nnew, launch, &watchdog, rec.t_spawn);
  if (!err.empty()) return {{Action::Expand, false, err}, {}, false};
  job.world = blacs_dyn::World::comm();
  if (job.size() < target.size())
    throw Error("expansion: the world has " + std::to_string(job.size()) + " processes after spawning, " +
                target.shape() + " needs " + std::to_string(target.size()));
  watchdog.phase("state hand-over");
  const double t_handover = MPI_Wtime();
  std::vector<char> bytes = pack_state();
  or_session_error("expansion: ", [&] { blacs_dyn::World::share(bytes); });
  // Everyone, not only the newcomers, takes rank 0's application state: a policy that
  // runs on rank 0 may have changed it (e.g. the powers of the processes it added).
  const ExpansionState st = unpack_expansion(bytes);
  if (!job.root() && gs.registry.unpack) gs.registry.unpack(st.app);
  if (st.check_reach) {  // the generation check, with the newcomers (Session::join)
    watchdog.phase("generation check");
    check_generations(job, gs.opt, gs.cfg.session.fault, kReachDeadline);
  }
  const double t_hosts = MPI_Wtime();
  rec.other.handover_s = t_hosts - t_handover;
  job.rank_hosts = survey_world();
  rec.rank_hosts = RankHosts::of(job.rank_hosts);
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  rec.other.hosts_s = MPI_Wtime() - t_hosts;
  return {{Action::Expand, true, {}}, finish_expansion(gs, iteration, from, target, rec, t_start), false};
}

void detail::set_spawn_env(const std::string& env) { spawn_env = env; }

int detail::processes_spawned() { return spawned_here.load(); }

std::string detail::spawn_processes(const Decision& d, const NodePlan& node_plan, int nnew, const LaunchCommand& cmd,
                                    Watchdog* watchdog, double& seconds) {
  using blacs_dyn::World;
  const double t0 = MPI_Wtime();
  const int before = world_size();
  MPI_Info info = MPI_INFO_NULL;  // a spawn's "env" (set_spawn_env)
  const std::optional<std::string> err = blacs_dyn_failure([&] {
    if (!d.schema.empty()) {
      if (watchdog) watchdog->phase("spawn (schema " + d.schema + ")");
      World::expand_schema(d.schema);
    } else if (d.by == ExpandBy::Waiting) {
      // Launches already waiting (malleable-run --join from another shell), by their ids.
      if (watchdog) watchdog->phase("join of " + std::to_string(d.launches.size()) + " waiting launch(es)");
      World::expand_join(d.launches);
    } else if (d.by == ExpandBy::Join && nnew > 0) {
      // One launch per host ordered from the job's launcher (malleable-run --job-dir), joined.
      std::vector<std::pair<std::string, int>> hosts = node_plan.spawn;
      if (hosts.empty()) hosts.emplace_back("", nnew);
      if (watchdog)
        watchdog->phase("join of " + std::to_string(nnew) + " processes in " + std::to_string(hosts.size()) +
                        " launch(es)");
      World::expand_join_hosts(hosts);
    } else if (!node_plan.spawn.empty()) {
      if (watchdog)
        watchdog->phase("spawn of " + std::to_string(nnew) + " processes on " + std::to_string(node_plan.spawn.size()) +
                        " host(s)");
      World::expand_hosts(node_plan.spawn, cmd.exe, cmd.args, info = spawn_info());
    } else if (nnew > 0) {
      if (watchdog) watchdog->phase("spawn of " + std::to_string(nnew) + " processes");
      World::expand(nnew, cmd.exe, cmd.args, {}, info = spawn_info());
    }
  });
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (!err) spawned_here += std::max(0, world_size() - before);
  seconds = MPI_Wtime() - t0;
  set_spawn_env("");  // a merge's or a respawn's "env", for this spawn only
  detail::disarm_spawn_deadline();  // the spawn returned: its deadline (watchdog.hpp) no longer applies
  if (err) return err->empty() ? std::string("the spawn failed") : *err;
  return {};
}

}  // namespace resize
