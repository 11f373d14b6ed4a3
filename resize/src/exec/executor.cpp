// SPDX-License-Identifier: BSD-3-Clause
// The executor (executor.hpp): one resize carried out from its plan in a straight line,
// inside its record. A merge's expansion: the new arrays staged while the processes start
// (spawn or join through blacs-dyn), the state handed to the newcomers, the hosts, then
// commit, the one exchange of every matrix and the switch onto the grown grid
// (parts/grid_switch.cpp: the BLACS grid, the descriptors) and the record concluded
// (parts/recording.cpp). A respawn (respawn.cpp) and a merge's shrink or regrid
// (parts/shrink.cpp) inside the same record. The newcomers' side, the same hand-over and
// the same switch in the same order, is the facade's Session::join
// (session/session_expand.cpp); the spawn is also the background expansion's.
#include "exec/executor.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "malleable/redist/traffic.hpp"
#include "parts/generation_check.hpp"
#include "parts/blacs_dyn_error.hpp"

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

}  // namespace

RemapResult detail::Executor::run(const ResizePlan& plan, const ExpansionState& share, double t_start,
                                  RespawnShare respawn) {
  const Grid from = gs.job.shape;
  ResizeRecord rec = record.begin_resize(plan.decision, plan.to);
  const Outcome out = carry_out(plan, share, respawn, rec, t_start);
  return record.finish(plan.decision, from, plan.to, rec, out, t_start);
}

Outcome detail::Executor::carry_out(const ResizePlan& plan, const ExpansionState& share, RespawnShare& respawn,
                                    ResizeRecord& rec, double t_start) {
  const Decision& d = plan.decision;
  if (d.action == Action::Regrid) return regrid(gs, record.iteration, d, plan.to, rec, t_start);
  if (plan.how == "respawn") return this->respawn(plan, share, respawn, rec, t_start);
  rec.reconfigure = "merge";
  rec.reconfigure_why = plan.reconfigure.why;
  Outcome o = d.action == Action::Expand
                  ? expand(plan, share, rec, t_start)
                  : shrink(gs, record.recorder, record.iteration, plan.to, plan.nodes, rec, t_start);
  if (o.result.ok) o.line += "; reconfigured by " + rec.reconfigure_why;
  return o;
}

Outcome detail::Executor::expand(const ResizePlan& plan, ExpansionState state, ResizeRecord& rec, double t_start) {
  const Grid from = gs.job.shape;
  WatchdogGuard armed(gs.watchdog);
  // Spawn only what the world lacks (a world may already hold idle processes).
  const int nnew = std::max(0, plan.to.size() - gs.job.size());
  // Whatever the move does not take of the arrays staged (a failed expansion) is freed on
  // the way out.
  struct DropPrestaged {
    GridSwitch& s;
    ~DropPrestaged() { s.drop_prestaged(); }
  } drop{gs};
  stage_arrays(plan, nnew);
  rec.other.decision_s = MPI_Wtime() - t_start;
  const std::string err = start_processes(plan, nnew, rec);
  if (!err.empty()) return {{Action::Expand, false, err}, {}, false};
  fill_handover(state, from, plan.to, gs.registry, record.recorder, gs.opt, record.iteration);
  hand_over(state, rec);
  return {{Action::Expand, true, {}}, commit(from, plan.to, rec, t_start), false};
}

// The new local arrays staged and populated while the spawn runs (move/pages.hpp), or,
// where the world already holds the processes (no spawn), while the hand-over and the host
// list run. The window only where newcomers may land on this node (no host list:
// anywhere). No spawn: none (the move sends to processes of its own MPI job by MPI's
// transport, WindowPairs::OtherJobs; a world that holds another job's processes from an
// earlier spawn makes its segment in the move, as without the prefault).
void detail::Executor::stage_arrays(const ResizePlan& plan, int nnew) {
  const SessionWorld& job = gs.job;
  const std::string here =
      job.rank() < static_cast<int>(job.rank_hosts.size()) ? job.rank_hosts[static_cast<std::size_t>(job.rank())] : "";
  bool beside = nnew > 0 && (plan.nodes.spawn.empty() || here.empty());
  for (const auto& [host, count] : plan.nodes.spawn) beside = beside || (host == here && count > 0);
  gs.prefault_for(plan.to, beside, false);
}

// The processes started (spawned, or joined from the launcher's launches), the spawn's
// "env" set for a merge; the world read once they are in.
std::string detail::Executor::start_processes(const ResizePlan& plan, int nnew, ResizeRecord& rec) {
  const Decision& d = plan.decision;
  rec.mechanism = d.schema.empty() && (d.by == ExpandBy::Join || d.by == ExpandBy::Waiting) ? "join" : "spawn";
  set_merge_spawn_env(plan, gs.job.size(), gs.cfg.session.mpi_yield_set);  // yield off where it fits
  std::string err = spawn_processes(d, plan.nodes, nnew, launch, &gs.watchdog, rec.t_spawn);
  if (!err.empty()) return err;
  gs.job.world = blacs_dyn::World::comm();
  if (gs.job.size() < plan.to.size())
    throw Error("expansion: the world has " + std::to_string(gs.job.size()) + " processes after spawning, " +
                plan.to.shape() + " needs " + std::to_string(plan.to.size()));
  return {};
}

// The state handed to the newcomers (blacs_dyn::World::share), the generation check when
// the state asks for it, and every rank's host.
void detail::Executor::hand_over(ExpansionState& state, ResizeRecord& rec) {
  SessionWorld& job = gs.job;
  gs.watchdog.phase("state hand-over");
  const double t_handover = MPI_Wtime();
  state.app = gs.registry.pack ? gs.registry.pack() : std::vector<char>{};
  std::vector<char> bytes = pack(state);
  or_session_error("expansion: ", [&] { blacs_dyn::World::share(bytes); });
  // Everyone, not only the newcomers, takes rank 0's application state: a policy that
  // runs on rank 0 may have changed it (e.g. the powers of the processes it added).
  const ExpansionState st = unpack_expansion(bytes);
  if (!job.root() && gs.registry.unpack) gs.registry.unpack(st.app);
  if (st.check_reach) {  // the generation check, with the newcomers (Session::join)
    gs.watchdog.phase("generation check");
    check_generations(job, gs.opt, gs.cfg.session.fault, kReachDeadline);
  }
  const double t_hosts = MPI_Wtime();
  rec.other.handover_s = t_hosts - t_handover;
  job.rank_hosts = survey_world();
  rec.rank_hosts = RankHosts::of(job.rank_hosts);
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  rec.other.hosts_s = MPI_Wtime() - t_hosts;
}

std::string detail::Executor::commit(const Grid& from, const Grid& to, ResizeRecord& rec, double t_start) {
  gs.switch_grid(from, to, &rec);
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_spawn - rec.t_redist;
  char line[256];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: expand %s -> %s (%s, %d procs): %s %.1f ms, "
                "redistribution %.1f ms, other %.1f ms, total %.1f ms",
                record.iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), to_string(rec.placement).c_str(),
                to.size(), rec.mechanism.c_str(), rec.t_spawn * 1e3, rec.t_redist * 1e3, rec.t_other * 1e3,
                rec.t_total * 1e3);
  return line;
}

void detail::fill_handover(ExpansionState& st, const Grid& from, const Grid& to, const MatrixRegistry& registry,
                           const ResizeRecorder& recorder, const SessionOptions& opt, int iteration) {
  st.iteration = iteration;
  // The job's mover: a newcomer must run the same collective code (RESIZE_MOVER from
  // the environment need not reach spawned processes).
  st.mover = opt.mover;
  st.move_budget = opt.move_budget_bytes;  // the batches are collective too
  st.from = from;
  st.to = to;
  st.mats.clear();
  for (const auto& r : registry.mats)
    st.mats.push_back({r.mat().m, r.mat().n, r.mat().mb, r.mat().nb, r.mat().type, r.constant});
  st.powers_before = recorder.powers_before;  // what the old layouts were computed with
  st.powers = recorder.powers;
}

void detail::set_merge_spawn_env(const ResizePlan& plan, int world_size, bool yield_set) {
  set_spawn_env(merge_spawn_env(plan.to, merge_hosts(plan.to, world_size, plan.nodes),
                                std::thread::hardware_concurrency(), yield_set));
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
