// SPDX-License-Identifier: BSD-3-Clause
// Background resizes, the MPI shell: a remap point begins an expansion or a
// shrink and returns; a helper thread (MPI_THREAD_MULTIPLE) spawns, hands the state over
// (blacs-dyn keeps the grown world pending for it) and posts the non-blocking moves of the
// constant matrices on a duplicate of the new world, while the old grid keeps iterating
// (without MULTIPLE the spawn blocks at the begin point and progress calls in
// begin/end_iteration test the messages); a later remap point completes it (variable
// matrices blocking, world published, grids switch), or it is cancelled
// (background_cancel.cpp). What each step does next is the state machine's
// (background_machine.hpp: this file feeds it the events and performs its actions); the
// decisions and plans are background_plan.cpp's, the exchange of the constant matrices
// (redist::Exchange) and the newcomers' wait background_messages.cpp's.
#include "background/background_notice.hpp"
#include "background/background_resize.hpp"
#include "common/fault.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <csignal>

#include "malleable/redist/traffic.hpp"
#include "common/sleep_wait.hpp"
#include "exec/executor.hpp"
#include "parts/blacs_dyn_error.hpp"

namespace resize {

using namespace detail;
using BgAction = background::Action;
using BgEvent = background::EventKind;

// The spawn of a background expansion, the state hand-over and the hosts
// (background_resize.hpp).
std::string detail::BackgroundResize::spawn(std::vector<char> state, int nnew, const LaunchCommand& cmd,
                                                   Watchdog& watchdog) {
  // The watchdog's phases belong to the main thread: not set from the helper thread.
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool main_thread = !(provided == MPI_THREAD_MULTIPLE);
  std::string err = spawn_processes(d, node_plan, nnew, cmd, main_thread ? &watchdog : nullptr, rec.t_spawn);
  if (!err.empty()) return err;
  new_world = blacs_dyn::World::comm();
  int n = 0;
  MPI_Comm_size(new_world, &n);
  if (n < target.size())
    throw Error("expansion: the world has " + std::to_string(n) + " processes after spawning, " + target.shape() +
                " needs " + std::to_string(target.size()));
  or_session_error("expansion: ", [&] { blacs_dyn::World::share(state); });
  rec.rank_hosts = RankHosts::of(survey_world());
  return {};
}

// The posting a begin point leaves to the helper thread (background_resize.hpp).
void detail::BackgroundResize::post_all(std::vector<Registered>& mats) {
  // The duplicate of a world the main thread also uses (a shrink's, or an expansion's
  // spawned at the begin point) is made by begin_background on the main thread, before
  // the helper starts: a duplicate is a collective on its parent, and collectives on one
  // communicator from two threads can be ordered differently on different ranks (a
  // helper's MPI_Comm_dup beside the main thread's MPI_Comm_split of the checkpoint
  // levels hung that way). Only the grown world that a helper thread spawned, seen by
  // that thread alone, is duplicated here.
  if (comm == MPI_COMM_NULL) MPI_Comm_dup(new_world, &comm);
  if (helper.threaded && helper.hold) {
    double nap = 1e-3;
    while (!helper.stop.load()) {
      std::this_thread::sleep_for(std::chrono::duration<double>(nap));
      nap = std::min(16e-3, nap * 2);
    }
  }
  // Cancelled meanwhile (the job's end, a shrink): the machine says SkipPost, nothing is
  // posted, so nothing moves to the newcomers; the cancelling point agrees with the other
  // ranks on it.
  const std::vector<background::Action> next = feed({.kind = background::EventKind::PostBegin});
  if (next.front() != background::Action::Post) return;
  int me = 0, n = 0;
  MPI_Comm_rank(new_world, &me);
  MPI_Comm_size(new_world, &n);
  // This rank's bytes from its own plans; summed over the world at the completing point.
  moves.bytes = post_moves(mats, me, n, true);
  feed({.kind = background::EventKind::Posted});
}

namespace {
// RESIZE_CHECK_CONSTANT=1: the checksum of a matrix's local elements (of none unless it is
// constant and this process, world rank `rank`, holds part of it).
std::uint64_t constant_checksum(const Registered& r, int rank) {
  const std::size_t n = r.constant && !r.mat().extended() && r.context() >= 0 && r.layout()
                            ? detail::descriptor_elements(*r.layout(), rank) : 0;
  return checksum(r.data(), n * scalar_bytes(r.mat().type));
}

// The resize under way: decision `d` from the job's grid to `target`, its record begun.
std::shared_ptr<BackgroundResize> new_resize(const Decision& d, const Grid& target, const NodePlan& node_plan,
                                             const SessionWorld& job, ResizeRecording& rs) {
  auto b = std::make_shared<BackgroundResize>();
  b->d = d;
  b->from = job.shape;
  b->target = target;
  b->node_plan = node_plan;
  b->rec = rs.begin_resize(d, target);
  b->old_world = b->new_world = job.world;
  return b;
}

// The median iteration time of the last segment before the resize (world rank 0), or -1.
double last_segment_wall(const ResizeRecording& rs) {
  const auto segs = rs.recorder.metrics.segments();
  return segs.empty() ? -1 : segs.back().median_wall;
}

// What the begin point leaves to the helper thread: under MULTIPLE the spawn (blacs-dyn
// keeps the grown world pending, seen by that thread alone, until the completing point
// publishes it), the hand-over of `state` and the posting (`spawn_in_helper`); else only
// the posting. What it uses lives as long as the session (its parts), not the begin point.
std::function<std::string()> helper_work(BackgroundResize* raw, MatrixRegistry* registry, const LaunchCommand* cmd,
                                         Watchdog* dog, std::vector<char> state, int nnew, bool spawn_in_helper) {
  const auto post = [registry, raw] { raw->post_all(registry->mats); };
  if (!spawn_in_helper)
    return [post] {
      post();
      return std::string();
    };
  return [cmd, dog, raw, post, state = std::move(state), nnew] {
    or_session_error("background expansion: ", [] { blacs_dyn::World::background_thread(true); });
    std::string err;
    try {
      err = raw->spawn(state, nnew, *cmd, *dog);
      {
        std::lock_guard<std::mutex> lk(raw->helper.m);
        raw->helper.spawn_error = err;
        raw->feed_locked({.kind = err.empty() ? background::EventKind::SpawnDone : background::EventKind::SpawnFailed});
      }
      if (err.empty()) post();
    } catch (...) {
      or_session_error("background expansion: ", [] { blacs_dyn::World::background_thread(false); });
      throw;
    }
    or_session_error("background expansion: ", [] { blacs_dyn::World::background_thread(false); });
    return err;
  };
}

// The begin point's progress line: what began, how long the application stopped
// (`stopped_s`), how the resize progresses.
std::string begun_line(int iteration, const Decision& d, const Grid& from, const Grid& target, double stopped_s,
                       bool expanding, const BackgroundResize& b, Background mode) {
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: %s %s -> %s BEGUN in the background (stopped %.1f ms%s; constant matrices "
                "moving; progress by %s; mode %s)",
                iteration, to_string(d.action).c_str(), from.shape().c_str(), target.shape().c_str(), stopped_s * 1e3,
                !expanding ? "" : b.helper.spawn_threaded ? ", spawning in the helper thread" : ", spawn included",
                b.helper.threaded ? "a helper thread" : "progress calls", to_string(mode).c_str());
  return line;
}
}  // namespace

RemapResult BackgroundPart::begin_background(const Decision& d, const Grid& target, const NodePlan& node_plan,
                                             double t_start, GridSwitch gs, ResizeRecording rs,
                                             const LaunchCommand& launch,
                                             const std::function<std::vector<char>()>& pack_state) {
  const SessionWorld& job = gs.job;
  Watchdog& watchdog = gs.watchdog;
  auto b = new_resize(d, target, node_plan, job, rs);
  const double before = job.root() ? last_segment_wall(rs) : -1;
  const bool expanding = d.action == Action::Expand;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool in_thread = provided == MPI_THREAD_MULTIPLE;
  std::vector<char> state;
  if (expanding) state = pack_state();  // the application's state at the begin point
  b->helper.hold = fault::armed(gs.cfg.session.fault, fault::Point::HoldBackground).has_value();
  if (gs.cfg.session.check_constant)
    for (const auto& r : gs.registry.mats) b->digest.push_back(constant_checksum(r, job.rank()));
  const int nnew = expanding ? std::max(0, target.size() - job.size()) : 0;
  const bool spawn_in_helper = expanding && in_thread;
  if (expanding && !in_thread) {
    // No MPI_THREAD_MULTIPLE: the spawn blocks at the begin point (documented).
    watchdog.phase("spawn of " + std::to_string(nnew) + " processes and the state hand-over");
    const std::string err = b->spawn(state, nnew, launch, watchdog);
    if (!err.empty()) {
      watchdog.disarm();
      return rs.fail_expansion(b->d, b->from, b->target, b->rec, err, t_start);
    }
  }
  const std::function<std::string()> work =
      helper_work(b.get(), &gs.registry, &launch, &gs.watchdog,
                  spawn_in_helper ? std::move(state) : std::vector<char>{}, nnew, spawn_in_helper);
  watchdog.disarm();
  if (!spawn_in_helper) MPI_Comm_dup(b->new_world, &b->comm);
  // Without MULTIPLE an expansion spawned above, before the machine began: a spawn that
  // fails there is a blocking expansion's failure, never in flight.
  b->feed({.kind = background::EventKind::Begin, .spawn_in_helper = spawn_in_helper, .expand = expanding});
  b->start_helper(work, expanding);  // the machine's one action: StartHelper
  const double t_end = MPI_Wtime();
  if (job.root()) b->clock.begun(t_start, t_end, before);
  rs.progress(begun_line(rs.iteration, d, job.shape, target, t_end - t_start, expanding, *b, mode));
  in_flight = b;
  return {d.action, true, "begun in the background"};
}

void BackgroundPart::progress() {
  if (in_flight && !in_flight->helper.threaded) in_flight->test();
}

void BackgroundPart::iteration(double wall, bool root) {
  if (!in_flight) return;
  ++in_flight->overlapped;
  if (root) in_flight->clock.iteration(wall);
}

// A decision while a resize is under way in the background (not switched yet). A shrink
// while an expansion is pending supersedes it: the policy now wants fewer processes than
// the grid the expansion was making, so spawning and filling processes only to let them go
// again is waste; the expansion is cancelled (its newcomers leave, what was not posted
// does not move) and the shrink is carried out from the current grid as any decision (or,
// when the current grid already has that size, nothing more happens). Queueing it instead
// would complete the expansion first. Any other request is refused (not queued).
std::optional<RemapResult> BackgroundPart::decide_during_background(const Decision& d, GridSwitch gs,
                                                                    ResizeRecording rs) {
  const SessionWorld& job = gs.job;
  const int iteration = rs.iteration;
  const std::string asked = to_string(d.action) + " to " +
                            (d.nprow ? std::to_string(d.nprow) + "x" + std::to_string(d.npcol)
                                     : std::to_string(d.procs) + " processes");
  if (in_flight->d.action == Action::Expand && d.action == Action::Shrink) {
    cancel_background("superseded by the " + asked + " decided after iteration " + std::to_string(iteration),
                      CancelCause::Superseded, gs, rs);
    if ((d.nprow ? d.nprow * d.npcol : d.procs) != job.shape.size()) return std::nullopt;  // carried out
    // The grid the expansion started from already has the size the shrink asks for.
    if (job.root()) tell_policy(*rs.opt.policy, d, job.shape.size(), true);
    const std::string msg = "the " + asked + " is met by cancelling the pending expansion; the job stays on " +
                            job.shape.shape();
    rs.progress("   remap after iter " + std::to_string(iteration) + ": " + msg);
    return RemapResult{Action::None, true, msg};
  }
  return rs.refuse(d, second_request_refusal(asked, to_string(in_flight->d.action) + " " + in_flight->from.shape() +
                                                        " -> " + in_flight->target.shape(),
                                             in_flight->rec.after_iteration),
                   malleable::Errc::State);  // out of order: one resize at a time
}

namespace {
// RESIZE_CHECK_CONSTANT=1: 1 + the index of the first constant matrix whose checksum
// differs from the begin point's (`digest`), or 0.
int changed_constant(const std::vector<Registered>& mats, const std::vector<std::uint64_t>& digest, int rank) {
  for (std::size_t k = 0; k < digest.size(); ++k)
    if (constant_checksum(mats[k], rank) != digest[k]) return static_cast<int>(k) + 1;
  return 0;
}

// TellNewcomers: world rank 0's completion notice to an expansion's newcomers (the
// constant matrix that changed, if any), then the application's state unless one did.
void tell_newcomers_completed(BackgroundResize& b, GridSwitch gs, int iteration, int bad, bool last_chance) {
  const SessionWorld& job = gs.job;
  MatrixRegistry& registry = gs.registry;
  gs.watchdog.phase("telling the newcomers");
  std::vector<char> state = job.root() && registry.pack ? registry.pack() : std::vector<char>{};
  detail::BackgroundNotice done;
  done.kind = detail::BackgroundNotice::Kind::Completed;
  done.iteration = iteration;
  done.changed_matrix = bad;
  done.state_bytes = static_cast<std::int64_t>(state.size());
  done.in_remap_point = !last_chance;
  std::vector<char> words = detail::encode(done);
  MPI_Request rq;
  MPI_Ibcast(words.data(), static_cast<int>(words.size()), MPI_BYTE, 0, b.comm, &rq);
  sleep_wait(rq);
  if (bad) return;
  const std::int64_t bytes = detail::decode(words).state_bytes;  // root's (the bytes it packed)
  state.resize(static_cast<std::size_t>(bytes));
  MPI_Bcast(state.data(), static_cast<int>(bytes), MPI_BYTE, 0, b.comm);
  if (!job.root() && registry.unpack) registry.unpack(state);
}

// Switch, for a shrink: the variable matrices move blocking, as any shrink's.
RemapResult carry_out_shrink(BackgroundPart& part, BackgroundResize& b, GridSwitch gs, ResizeRecording rs, double t0) {
  gs.watchdog.disarm();  // shrink() arms its own
  const auto carry_out = [&](ResizeRecord& rec) {
    const Outcome o = shrink(gs, rs.recorder, rs.iteration, b.target, b.node_plan, rec, t0);
    if (o.result.ok) part.amend(rec, gs.job.root());  // the record's background fields
    return o;
  };
  return rs.recorded(b.d, b.target, t0, carry_out, false);
}
}  // namespace

namespace {
// At a remap point the ranks agree on {not done, spawn failed} (the helper threads of
// different ranks may be at different points; the MAX makes every rank take the same
// branch); the machine says what follows.
std::vector<BgAction> at_remap_point(BackgroundResize& b, MPI_Comm world, int min_iterations, Background mode,
                                     bool last_chance) {
  int st[2] = {b.test() ? 0 : 1, b.failed() ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_MAX, world);
  const Completion c = decide_completion(b.overlapped, min_iterations, st[0] == 0, mode, last_chance);
  return b.feed({.kind = BgEvent::RemapPoint, .completion = c, .any_failed = st[1] != 0});
}

// WaitMoves, then CheckConstants: the background moves complete on every rank, the grown
// world is published, the constant matrices checked (`bad`: 1 + the index of the first
// that changed on any rank, or 0) and the background's bytes summed. Returns the slowest
// rank's wait (the join of a helper still spawning included).
double wait_and_check(BackgroundResize& b, GridSwitch gs, int iteration, double t0, int& bad) {
  const SessionWorld& job = gs.job;
  gs.watchdog.arm("completing the background " + to_string(b.d.action) + " " + b.from.shape() + " -> " +
                  b.target.shape() + " after iteration " + std::to_string(iteration));
  gs.watchdog.phase("waiting for the background moves");
  b.wait_moves();
  double waited = MPI_Wtime() - t0;  // the join of a helper still spawning included
  MPI_Allreduce(MPI_IN_PLACE, &waited, 1, MPI_DOUBLE, MPI_MAX, job.world);
  blacs_dyn::World::set_finalize_hook(nullptr, nullptr);
  // The grown world, pending in blacs-dyn since the helper thread spawned, becomes the
  // world: BLACS's globals change here, on the main thread, between iterations.
  if (b.helper.spawn_threaded)
    or_session_error("background expansion: ", [] { return blacs_dyn::World::publish_background(); });
  bad = changed_constant(gs.registry.mats, b.digest, gs.job.rank());
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, job.world);
  // The background's bytes: the senders are the old world's ranks (newcomers only receive).
  MPI_Allreduce(MPI_IN_PLACE, &b.moves.bytes, 1, MPI_INT64_T, MPI_SUM, job.world);
  return waited;
}
}  // namespace

std::optional<RemapResult> BackgroundPart::step_background(bool last_chance, GridSwitch gs, ResizeRecording rs) {
  const SessionWorld& job = gs.job;
  const int iteration = rs.iteration;
  auto b = in_flight;
  const auto at_point = at_remap_point(*b, job.world, min_iterations, mode, last_chance);
  const auto has = [&](BgAction a) { return std::find(at_point.begin(), at_point.end(), a) != at_point.end(); };
  if (has(BgAction::RecordDeferral)) {
    if (job.root()) b->clock.deferred();
    rs.progress("   remap after iter " + std::to_string(iteration) + ": background " + to_string(b->d.action) + " " +
             b->from.shape() + " -> " + b->target.shape() + " not done yet: keep iterating on " + b->from.shape() +
             " (mode continue)");
  }
  if (!has(BgAction::JoinAndAgree)) return std::nullopt;  // not yet, or deferred: it goes on
  // Completing, or the spawn failed (blacs-dyn failed it on every rank alike, nothing
  // changed): reported as a blocking expansion's failure.
  const double t0 = MPI_Wtime();
  const BackgroundResize::Agreement j = b->join_and_agree(job.world);
  if (j.has(BgAction::ReportFailure)) {
    const std::string err = b->helper.spawn_error;
    blacs_dyn::World::set_finalize_hook(nullptr, nullptr);
    in_flight.reset();
    return rs.fail_expansion(b->d, b->from, b->target, b->rec, err, t0);
  }
  int bad = 0;
  const double waited = wait_and_check(*b, gs, iteration, t0, bad);
  RemapResult out;
  for (const BgAction a : b->feed({.kind = BgEvent::Checked, .changed = bad != 0})) {
    switch (a) {
      case BgAction::TellNewcomers:
        tell_newcomers_completed(*b, gs, iteration, bad, last_chance);
        break;
      case BgAction::ReportChanged:
        gs.watchdog.disarm();
        for (auto& r : gs.registry.mats) r.moved_in_background = false;
        in_flight.reset();  // ended (failed): nothing left to cancel
        throw Error(changed_message(gs.registry.mats[static_cast<std::size_t>(bad - 1)].mat().name, b->rec.after_iteration));
      case BgAction::FinishMoves:
        b->finish_moves();
        complete_start = t0;
        complete_waited = waited;
        break;
      case BgAction::Switch:
        out = b->d.action == Action::Shrink ? carry_out_shrink(*this, *b, gs, rs, t0) : switch_background_expansion(*b, gs, rs);
        break;
      default:
        throw Error(std::string("background resize: a completion does not ") + background::to_string(a));
    }
  }
  for (auto& r : gs.registry.mats) r.moved_in_background = false;
  in_flight.reset();
  return out;
}

RemapResult BackgroundPart::switch_background_expansion(BackgroundResize& b, GridSwitch gs, ResizeRecording rs) {
  SessionWorld& job = gs.job;
  const int iteration = rs.iteration;
  ResizeRecord rec = b.rec;
  rec.after_iteration = iteration;  // where the grid switches (segments, payoff)
  job.world = b.new_world;
  job.rank_hosts = rec.rank_hosts.expand();
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  gs.switch_grid(b.from, b.target, &rec, "redistribution of the variable matrices");
  rec.bytes_moved += b.moves.bytes;  // the constant matrices, moved in the background
  gs.watchdog.disarm();
  amend(rec, job.root());  // the record's background fields
  rs.conclude(b.d, b.from.size(), rec,
           "   remap after iter " + std::to_string(iteration) + ": expand " + rec.from_grid + " -> " + rec.to_grid +
               " COMPLETED (begun in the background after iter " + std::to_string(b.rec.after_iteration) + ")");
  return {Action::Expand, true, {}};
}

void BackgroundPart::amend(ResizeRecord& rec, bool root) const {
  if (!in_flight || !root) return;
  fill(*in_flight, rec, complete_start, complete_waited);
  char line[200];
  std::snprintf(line, sizeof line, "; stopped %.1f ms (begin %.1f + complete %.1f), overlapped %.1f ms",
                rec.t_total * 1e3, rec.background->t_begin * 1e3, rec.background->t_complete * 1e3,
                rec.background->t_overlapped * 1e3);
  rec.message += line + 2;
}

void BackgroundPart::fill(const BackgroundResize& b, ResizeRecord& rec, double start,
                                         double waited) const {
  const BackgroundSummary s = b.clock.complete(start, waited, MPI_Wtime());
  BackgroundPhase& p = rec.background.emplace();
  p.mode = mode;
  p.progress = b.helper.threaded ? BackgroundProgress::HelperThread : BackgroundProgress::ProgressCalls;
  p.began_after = b.rec.after_iteration;
  if (rec.action == Action::Expand) rec.t_spawn = b.rec.t_spawn;
  p.t_begin = s.t_begin_stopped;
  p.t_complete = s.t_complete_stopped;
  p.t_wait = s.t_waited;
  p.t_overlapped = s.t_overlapped;
  p.iterations_overlapped = s.iterations;
  p.completion_deferred = s.deferred;
  p.iteration_slowdown = s.slowdown();
  p.bytes = b.moves.bytes;
  if (rec.action == Action::Shrink) rec.bytes_moved += b.moves.bytes;
  rec.t_total = s.t_stopped();
  rec.t_other = std::max(0.0, rec.t_total - rec.t_spawn - rec.t_redist);
}

namespace {
// A newcomer's wait for world rank 0's notice (completed or cancelled). The old grid
// iterates for as long as it likes: no deadline while waiting for it, but the processes it
// runs on are watched (newcomer_wait).
detail::BackgroundNotice wait_for_notice(BackgroundResize& b, const SessionWorld& job, const config::Session& cfg) {
  std::vector<char> words(detail::notice_bytes());
  MPI_Request rq;
  MPI_Ibcast(words.data(), static_cast<int>(words.size()), MPI_BYTE, 0, b.comm, &rq);
  newcomer_wait(rq, job.rank(), job.size(), cfg.background_timeout);
  return detail::decode(words);
}

// The last newcomer says why the expansion from -> to was cancelled and that they leave.
void say_cancelled(const detail::BackgroundNotice& notice, const Grid& from, const Grid& to) {
  using Cause = detail::BackgroundNotice::Cause;
  const char* cause = notice.cause == Cause::End
                          ? "at the job's end (cancel_resize/resize_cancel): no remap point was left to switch"
                      : notice.cause == Cause::Superseded
                          ? "superseded by a shrink the policy decided meanwhile"
                          : "its session ended before a remap point completed it";
  std::fprintf(stderr,
               "resize: the expansion %s -> %s begun in the background was cancelled by the job (%s); the "
               "newcomers leave%s\n",
               from.shape().c_str(), to.shape().c_str(), cause, notice.any_posted ? "" : " (no data had moved to them)");
  std::fflush(stderr);
}

// The job cancelled the expansion before completing it: this process leaves again
// through blacs-dyn's stack, as after a shrink, and ends. Messages the old processes
// posted complete; if none did, this process withdraws its receives (nothing moved).
void leave_cancelled(BackgroundResize& b, const detail::BackgroundNotice& notice, const Grid& from, const Grid& to,
                     const SessionWorld& job, MatrixRegistry& registry) {
  if (notice.any_posted) {
    b.sleep_until_done();
  } else {
    b.cancel_moves();
  }
  b.moves.ex.reset();
  for (auto& m : registry.mats) {
    m.unstage();
    m.moved_in_background = false;
  }
  if (job.rank() == job.size() - 1) say_cancelled(notice, from, to);
  std::vector<int> keep(static_cast<std::size_t>(notice.old_size));
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int>(i);
  bool leaving = false;
  const auto err = shrink_as_planned(keep, {}, [] { return true; }, leaving);
  if (err || !leaving)
    throw Error("background expansion cancelled, but the newcomers could not leave: " + err.value_or(""));
  blacs_dyn::World::leave();
}
}  // namespace

int BackgroundPart::join(const Grid& from, const Grid& to, const SessionWorld& job,
                                        MatrixRegistry& registry, Watchdog& watchdog, int iteration,
                                        const config::Session& cfg) {
  auto b = std::make_shared<BackgroundResize>();
  b->from = from;
  b->target = to;
  b->old_world = b->new_world = job.world;
  MPI_Comm_dup(job.world, &b->comm);
  watchdog.phase("posting the background receives");
  b->post_moves(registry.mats, job.rank(), job.size(), false);
  b->feed({.kind = BgEvent::NewcomerPosted});  // its test() completes the receives
  // Test-only fault (common/fault.hpp): the last newcomer dies during the background phase.
  fault::inject(cfg.fault, fault::Point::KillNewcomerBackground, job.rank() == job.size() - 1, job.rank(), "during the background phase");
  watchdog.disarm();  // no deadline while the old grid iterates (wait_for_notice)
  const detail::BackgroundNotice notice = wait_for_notice(*b, job, cfg);
  joined_in_remap_point = notice.in_remap_point;
  if (notice.kind == detail::BackgroundNotice::Kind::Cancelled) leave_cancelled(*b, notice, from, to, job, registry);
  watchdog.arm("joining an expansion begun in the background");
  if (notice.changed_matrix)
    throw Error(changed_message(registry.mats[static_cast<std::size_t>(notice.changed_matrix - 1)].mat().name, iteration));
  std::vector<char> state(static_cast<std::size_t>(notice.state_bytes));
  MPI_Bcast(state.data(), static_cast<int>(notice.state_bytes), MPI_BYTE, 0, b->comm);
  if (registry.unpack) registry.unpack(state);
  b->sleep_until_done();
  b->finish_moves();
  return notice.iteration;
}

// Why a decision is carried out blocking (background off, nothing constant to move, too few
// iterations left, ...: background_plan.hpp's blocking_reason), or nothing: begin it in
// the background. `remaining`: iterations left (-1: not known).
std::optional<std::string> BackgroundPart::blocked(const Decision& d, const MatrixRegistry& registry,
                                                  int remaining) const {
  if (mode == Background::Off) return std::string("background off");
  bool any = false;
  for (const auto& r : registry.mats) any = any || (r.constant && !r.mat().extended());
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool spawn_hidden = d.action == Action::Expand && provided == MPI_THREAD_MULTIPLE;
  return blocking_reason(d.action == Action::Expand || d.action == Action::Shrink, any, remaining, min_iterations,
                         !d.powers.empty(), spawn_hidden);
}

}  // namespace resize
