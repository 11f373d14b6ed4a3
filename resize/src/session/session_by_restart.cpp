// SPDX-License-Identifier: BSD-3-Clause
// A resize decided by the policy but carried out by checkpoint, exit and restart with
// the new process count: the decision without the act (ByRestart, session_impl.hpp:
// Session::next_decision and remap_or_restart, over the facade's state; the remap point's
// and the checkpoint calls' operations where it carries a resize out in place or secures
// the state).
#include "session/session_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>

#include "checkpoint/by_restart.hpp"
#include "background/background_resize.hpp"
#include "common/broadcast.hpp"
#include "checkpoint/fallback/fallback.hpp"
#include "checkpoint/fallback/carry_out.hpp"
#include "checkpoint/refresh.hpp"
#include "exec/executor.hpp"

namespace resize {

namespace {
// A decision to resize without a grid: the squarest grid of its process count (`procs`
// when it names none), and its process count the grid's.
void fill_grid(Decision& d, int procs) {
  if (d.action == Action::None) return;
  if (d.nprow < 1 || d.npcol < 1) {
    const int p = d.procs > 0 ? d.procs : procs;
    int r = static_cast<int>(std::sqrt(static_cast<double>(p)));
    while (r > 1 && p % r != 0) --r;
    d.nprow = std::max(1, r);
    d.npcol = p / d.nprow;
  }
  d.procs = d.nprow * d.npcol;
}
}  // namespace

Decision detail::ByRestart::next_decision() {
  RemapPoint point{s};
  point.arrive();  // a remap point: every process arrived, or the job ends naming who did not
  Decision d{};
  if (s.job.root()) {
    d = point.ask_policy();
    fill_grid(d, s.job.shape.size());
  }
  // The whole decision on every process (it can still be carried out in place:
  // resize_now, which broadcasts world rank 0's again).
  return point.broadcast_decision(d);
}

Mechanism parse_mechanism(const std::string& s) {
  if (s == "spawn") return Mechanism::Spawn;
  if (s == "restart") return Mechanism::Restart;
  throw Error("mechanism '" + s + "': expected spawn or restart");
}

namespace {
// A remap point of remap_or_restart with a resize under way in the background (`d` its
// decision): this remap point completes it or lets it go on (remap_point; `step` says
// what it did, and false is returned), or, for an expansion whose spawn passed its
// deadline (`expired`) or failed, true: a resize by restart from the state now follows
// (fallback/carry_out.hpp).
// `in_flight`: the resize under way (null: none).
bool background_step(detail::SessionState& s, const std::string& app, const Decision& d,
                     const std::function<std::shared_ptr<void>()>& in_flight, bool& expired, ResizeStep& step) {
  const bool root = s.job.rank() == 0;
  expired = detail::background_fallback_expired(s.job.world);
  if (expired) {
    if (root)
      std::printf("[%s] the expansion %s -> %dx%d begun in the background did not complete within its spawn deadline: "
                  "resizing by restart from iteration %d instead\n",
                  app.c_str(), s.job.shape.shape().c_str(), d.nprow, d.npcol, s.iteration);
    std::fflush(stdout);
    return true;
  }
  const std::weak_ptr<void> began_with = in_flight();  // the one a deadline may be armed for (weak: never kept alive)
  detail::background_fallback_waiting(true);  // a wait for the spawn here is a blocking one
  const RemapResult r = detail::RemapPoint{s}.remap_point();
  detail::background_fallback_waiting(false);
  // The expansion the deadline was armed for completed (or was cancelled by a shrink) even
  // when the same point began another resize: its deadline ends here, on the processes that
  // armed it, before the next remap point's check runs a collective on the grown world.
  if (began_with.expired() || began_with.lock() != in_flight()) detail::background_fallback_end(true);
  step = {r.ok && r.action != Action::None ? ResizeStep::Kind::Resized : ResizeStep::Kind::Continue, r.action, r.ok,
          r.message, {}};
  if (in_flight() != nullptr || r.ok || r.action != Action::Expand || d.action != Action::Expand) return false;
  if (root)
    std::printf("[%s] the expansion begun in the background failed (%s): resizing by restart instead\n", app.c_str(),
                r.message.c_str());
  std::fflush(stdout);
  return true;
}
}  // namespace

namespace {
// A checkpoint the cadence did not ask for (`file`, written in *seconds), in the run's
// record (world rank 0), so that every file in the directory is counted with its purpose
// (report.hpp). Returns `file`.
std::string record_unscheduled(detail::SessionCheckpoints& ckpts, bool root, int iteration, const char* reason,
                               const std::string& file, const double* seconds) {
  if (root) ckpts.checkpoints.push_back({iteration, *seconds, reason, -1, file});
  return file;
}

// The same for the local level securing the state: a version of this iteration reused
// (returns -1), else one written whose record says `reason` (returns its cost).
double levels_unscheduled(detail::SessionState& s, detail::SessionCheckpoints& ckpts, const detail::SessionWorld& job,
                          int iteration, const char* reason) {
  if (detail::level_of_iteration(ckpts.level_records, iteration, job.root(), job.world)) return -1;
  const double t = detail::CheckpointCalls{s}.checkpoint_levels(false);
  if (job.root()) ckpts.level_records.back().reason = reason;
  return t;
}

// The refresh (checkpoint/refresh.hpp), collective over the world: whether the expansion
// `d` is carried out by restart because this launch's processes met RESIZE_REFRESH_AFTER
// spawned ones (world rank 0's rule, `own` there; the most any process counted). World
// rank 0 says why.
bool refresh_expansion(const detail::SessionWorld& job, const detail::RefreshRule& own, const Decision& d,
                       const std::string& app, int iteration) {
  int seen[2] = {detail::processes_spawned(), job.root() ? own.after : 0};
  MPI_Allreduce(MPI_IN_PLACE, seen, 2, MPI_INT, MPI_MAX, job.world);
  const detail::RefreshRule rule{seen[1]};
  const int nnew = std::max(0, d.nprow * d.npcol - job.size());
  const bool due = detail::refresh_due(rule, seen[0], nnew);
  if (due && job.root()) {
    std::printf("[%s] refresh after iteration %d: %s\n", app.c_str(), iteration,
                detail::describe_refresh(rule, seen[0], nnew).c_str());
    std::fflush(stdout);
  }
  return due;
}

// A background expansion's spawn passed its deadline: the helper thread is still inside
// MPI_Comm_spawn, which cannot be interrupted, so no MPI call can end this job cleanly and
// every process leaves now (mpiexec ends the rest, the newcomers stuck in MPI_Init
// included), as a deadline passing in a blocking spawn.
[[noreturn]] void leave_after_expired_spawn(MPI_Comm world) {
  MPI_Barrier(world);
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(kExitResizeByRestart);
}

// The respawn's fallback hooks (session_impl.hpp's RespawnFallback) while the resize of a
// remap point runs, emptied when it returns: a shrink by respawn guarded as an expansion
// (`in` with the respawn's spawn, the state secured by `secure`), and the markers of `own`
// (the expansion's blocking fallback) and of the background one, which world rank 0
// removes when a respawn completes (exec/respawn.cpp).
struct RespawnHooks {
  detail::RespawnFallback& slot;
  ~RespawnHooks() { slot = {}; }
};

RespawnHooks respawn_hooks(detail::RespawnFallback& slot, const detail::FallbackInputs& in,
                           const std::function<std::string(double*)>& secure,
                           std::optional<detail::ExpansionFallback>& own) {
  slot.arm = [in, secure](int spawned) {
    detail::FallbackInputs f = in;
    f.nnew = spawned;
    f.what = "shrink by respawn";
    return std::make_unique<detail::ExpansionFallback>(f, secure);
  };
  slot.markers = [&own] {
    std::vector<std::string> out;
    if (own && own->active()) out.push_back(own->marker());
    out.push_back(detail::background_fallback_marker());
    return out;
  };
  return RespawnHooks{slot};
}

// The step of a remap point carried out in place.
ResizeStep step_of(const RemapResult& r) {
  ResizeStep step{};
  step.action = r.action;
  step.ok = r.ok;
  step.message = r.message;
  step.kind = r.ok && r.action != Action::None ? ResizeStep::Kind::Resized : ResizeStep::Kind::Continue;
  return step;
}

// One remap_or_restart over the facade's state, with what its steps thread through: the
// decision, the step so far, the expansion's fallback armed before its spawn, whether a
// background expansion's spawn passed its deadline, and whether the resize is a refresh.
// run(): the decision (a background resize's, or the policy's), then in place when it
// can be (in_place), else by restart (restart), in the order the guide documents.
struct RemapOrRestart {
  detail::SessionState& s;
  Mechanism m;
  ResizeStep step{};
  Decision d{};
  bool from_background = false;  // a resize under way in the background: only a restart follows here
  bool expired = false;          // a background expansion's spawn passed its deadline
  bool refresh = false;          // an expansion past RESIZE_REFRESH_AFTER spawned processes
  std::optional<detail::ExpansionFallback> fallback{};

  ResizeStep run();
  bool decide();
  bool in_place();
  ResizeStep restart();
  detail::FallbackInputs fallback_inputs(const Decision& dd) const;
  std::string secure(const Decision& dd, double* t, const char* reason);
};

ResizeStep RemapOrRestart::run() {
  if (!s.ckpts.checkpointing) {
    if (m == Mechanism::Restart)
      throw Error("remap_or_restart: a resize by restart needs a checkpoint directory (call set_checkpointing first)");
    return step_of(detail::RemapPoint{s}.remap_point());
  }
  if (!decide()) return step;
  // An expansion past RESIZE_REFRESH_AFTER spawned processes: by restart (the refresh).
  refresh = !from_background && m == Mechanism::Spawn && d.action == Action::Expand && !d.new_allocation &&
            !d.by_restart && refresh_expansion(s.job, s.refresh, d, s.opt.app, s.iteration);
  if (!refresh && !from_background && m == Mechanism::Spawn && !d.new_allocation && !d.by_restart && in_place())
    return step;
  return restart();
}

// The decision: a background resize's (its remap point completes it or lets it go on:
// false, `step` says what it did), or the policy's (false when it decided nothing).
bool RemapOrRestart::decide() {
  from_background = s.bg.in_flight != nullptr;
  if (from_background) {
    d = s.bg.in_flight->d;
    const auto in_flight = [this] { return std::shared_ptr<void>(s.bg.in_flight); };
    return background_step(s, s.opt.app, d, in_flight, expired, step);
  }
  d = detail::ByRestart{s}.next_decision();
  step.action = d.action;
  return d.action != Action::None;
}

// The decision carried out in place: true when that is the step (resized, or failed and
// not to be carried out by restart), false when a resize by restart follows.
bool RemapOrRestart::in_place() {
  // An expansion's spawn may never return: the state before it is secured first and a
  // deadline armed, so that it becomes a resize by restart (fallback/fallback.hpp).
  // A join is bounded and a failed one changes nothing: no state secured before it.
  const bool joining = d.action == Action::Expand && (d.by == ExpandBy::Join || d.by == ExpandBy::Waiting);
  const bool blocking = joining || s.bg.mode == Background::Off || s.bg.blocked(d, s.registry, s.remaining());
  const auto secure_now = [this](double* t) { return secure(d, t, "before spawn"); };
  if (d.action == Action::Expand && blocking && !joining) fallback.emplace(fallback_inputs(d), secure_now);
  if (d.action == Action::Expand && !blocking) detail::arm_background_fallback(fallback_inputs(d), secure_now);
  const RespawnHooks hooks = respawn_hooks(s.respawn_fallback, fallback_inputs(d), secure_now, fallback);
  const RemapResult r = detail::RemapPoint{s}.resize_now(d);
  step.ok = r.ok;
  step.message = r.message;
  if (r.ok) {
    if (fallback) fallback->succeeded();
    step.kind = ResizeStep::Kind::Resized;
    return true;
  }
  if (!blocking) detail::background_fallback_end(false);
  // A failed expansion, or a refused shrink that was to give nodes back whole (e.g.
  // nodes of the job's first launch, which share MPI_COMM_WORLD with rank 0): by
  // restart on the nodes the decision names. World rank 0 holds the nodes.
  int by_restart = (d.action == Action::Expand && !joining) || (d.action == Action::Shrink && !d.hosts.empty());
  MPI_Bcast(&by_restart, 1, MPI_INT, 0, s.job.world);
  if (!by_restart) return true;  // Continue, ok == false
  if (s.job.root()) {
    std::printf("[%s] the %s failed (%s): resizing by restart instead\n", s.opt.app.c_str(),
                d.action == Action::Expand ? "expansion by spawn" : "shrink in place", r.message.c_str());
    std::fflush(stdout);
  }
  return false;
}

// The resize by restart: the state secured, the next launch written, this one to leave.
ResizeStep RemapOrRestart::restart() {
  const detail::SessionWorld& job = s.job;
  const auto& c = s.ckpts.checkpointing->cadence;
  double t = 0;  // (the state before a failed blocking expansion was secured before its spawn)
  const char* why = d.action == Action::Shrink ? "before shrink" : refresh ? "before refresh" : "before restart";
  // (A refresh, as a spawn past its deadline, secures the state the cheapest way the
  // relaunch finds it: a checkpoint of this iteration reused, or the local level.)
  const std::string file =
      fallback && fallback->active() ? fallback->file()
      : expired || refresh           ? secure(d, &t, why)
                                     : record_unscheduled(s.ckpts, job.root(), s.iteration, why,
                                                          detail::CheckpointCalls{s}.checkpoint_in(c.dir, c.keep, &t), &t);
  // With the nodes the decision names (a shrink's given back, an expansion's added, e.g. by
  // the Slurm policy), the launcher runs the next job on exactly those.
  detail::write_next_launch(s.opt.app, c.dir, s.iteration, job.shape.shape(), d, file,
                            hosts_after_restart(job.rank_hosts, d), job.root(), job.world);
  if (expired) leave_after_expired_spawn(job.world);
  step.kind = ResizeStep::Kind::ExitForRestart;
  s.life.leaves_for_restart = true;
  step.ok = true;
  step.checkpoint = file;
  step.message = "restart on " + std::to_string(d.nprow) + "x" + std::to_string(d.npcol) + " from " + file;
  return step;
}

// The expansion fallback's inputs for a resize by restart at `dd`'s size (in
// FallbackInputs' order).
detail::FallbackInputs RemapOrRestart::fallback_inputs(const Decision& dd) const {
  const detail::SessionWorld& job = s.job;
  return detail::FallbackInputs{s.opt.app, s.iteration, job.shape.shape(), dd.nprow, dd.npcol,
                                std::max(0, dd.nprow * dd.npcol - job.size()), s.ckpts.checkpointing->cadence.dir,
                                hosts_after_restart(job.rank_hosts, dd), &s.recorder.history.events(), job.world,
                                job.root(), s.opt.progress, s.cfg.session.spawn_fallback, s.cfg.session.spawn_deadline};
}

// The state secured for a restart at `dd`'s size: the cheapest level the relaunch finds
// again (fallback/fallback.hpp; the local one where levels are kept and the relaunch
// runs on this job's nodes again), one of this iteration reused. `t` < 0: reused.
std::string RemapOrRestart::secure(const Decision& dd, double* t, const char* reason) {
  const detail::SessionWorld& job = s.job;
  if (detail::fallback_level(s.ckpts.levels != nullptr, job.rank_hosts, hosts_after_restart(job.rank_hosts, dd)) ==
      detail::FallbackLevel::Local) {
    *t = levels_unscheduled(s, s.ckpts, job, s.iteration, reason);
    return std::string(detail::kLevelsCheckpoint);
  }
  const std::string have = detail::checkpoint_of_iteration(s.ckpts.checkpoints, s.iteration, job.root(), job.world);
  const auto& c = s.ckpts.checkpointing->cadence;
  if (have.empty())
    return record_unscheduled(s.ckpts, job.root(), s.iteration, reason,
                              detail::CheckpointCalls{s}.checkpoint_in(c.dir, c.keep, t), t);
  *t = -1;
  return have;
}
}  // namespace

ResizeStep detail::ByRestart::remap_or_restart(Mechanism m) { return RemapOrRestart{s, m}.run(); }

}  // namespace resize
