// SPDX-License-Identifier: BSD-3-Clause
// Background resizes, the MPI shell's cancellation (cancel_background): the job's end,
// a shrink that supersedes a pending expansion, or the session going with one under way.
// The state machine (background_machine.hpp) says what each rank does once the helpers
// are joined; this file performs it. Begin, completion and the newcomers' join are
// session_background.cpp's.
#include "background/background_notice.hpp"
#include "background/background_resize.hpp"

#include <cstdio>

#include "common/sleep_wait.hpp"
#include "parts/blacs_dyn_error.hpp"

namespace resize {

using namespace detail;
using BgAction = background::Action;
using BgEvent = background::EventKind;

namespace {
// A cancellation's cause as the notice carries it.
detail::BackgroundNotice::Cause notice_cause(BackgroundPart::CancelCause c) {
  using Cause = detail::BackgroundNotice::Cause;
  using CancelCause = BackgroundPart::CancelCause;
  return c == CancelCause::End ? Cause::End : c == CancelCause::Superseded ? Cause::Superseded : Cause::Destroyed;
}

// NewcomersLeave: world rank 0 tells an expansion's newcomers it was cancelled (whether
// any old process posted: then their receives complete, else they withdraw them) and
// they leave through blacs-dyn's stack, as after a shrink.
void newcomers_leave(BackgroundResize& b, GridSwitch gs, int iteration, bool any_posted,
                     BackgroundPart::CancelCause cause) {
  SessionWorld& job = gs.job;
  if (b.helper.spawn_threaded)
    or_session_error("background expansion: ", [] { return blacs_dyn::World::publish_background(); });
  int old_size = 0;
  MPI_Comm_size(b.old_world, &old_size);
  detail::BackgroundNotice cancelled{.kind = detail::BackgroundNotice::Kind::Cancelled, .iteration = iteration};
  cancelled.old_size = old_size;
  cancelled.any_posted = any_posted;
  cancelled.cause = notice_cause(cause);
  std::vector<char> words = detail::encode(cancelled);
  MPI_Request rq;
  MPI_Ibcast(words.data(), static_cast<int>(words.size()), MPI_BYTE, 0, b.comm, &rq);
  sleep_wait(rq);
  std::vector<int> keep(static_cast<std::size_t>(old_size));
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int>(i);
  bool leaving = false;
  if (const auto err = shrink_as_planned(keep, {}, [] { return true; }, leaving))
    throw Error("cancelling the background expansion: the newcomers could not leave: " + *err);
  job.world = blacs_dyn::World::comm();
  if (cause != BackgroundPart::CancelCause::Destroyed && job.world != b.old_world) {
    // The job goes on: its grid on the world it is left with.
    gs.settle_grid(job.shape);
  }
}

// RecordCancel: the cancellation's record (unless the session goes) and its line.
RemapResult record_cancel(const BackgroundPart& part, BackgroundResize& b, const std::string& why,
                          BackgroundPart::CancelCause cause, bool root, bool any_posted, double t0, double waited,
                          ResizeRecording rs) {
  const int iteration = rs.iteration;
  const bool failed = b.state().progress == background::Progress::SpawnFailed;
  rs.recorder.powers = rs.recorder.powers_before;
  const std::string resize = to_string(b.d.action) + " " + b.from.shape() + " -> " + b.target.shape();
  if (cause == BackgroundPart::CancelCause::Destroyed) {
    rs.progress("   background " + resize + " begun after iter " + std::to_string(b.rec.after_iteration) +
             " CANCELLED (" + why + " before a remap point completed it); the job stays on " + b.from.shape());
    return {b.d.action, false, why};
  }
  std::string message;
  if (root) {
    ResizeRecord rec = b.rec;
    rec.after_iteration = iteration;  // where it was cancelled; began_after says where it began
    rec.ok = false;
    rec.t_redist = 0;
    rec.bytes_moved = rec.action == Action::Shrink ? 0 : b.moves.bytes;  // BackgroundPart::fill adds a shrink's
    part.fill(b, rec, t0, waited);
    rec.background->cancelled = true;
    const int k = rec.background->completion_deferred;
    const std::string deferrals = k == 0 ? std::string("no remap point could complete it")
                                         : "not finished after " + std::to_string(k) + " deferral" + (k == 1 ? "" : "s");
    message = cause == BackgroundPart::CancelCause::End ? "cancelled at the end (" + deferrals + ")"
                                        : "cancelled after iteration " + std::to_string(iteration) + ", " + why +
                                              " (" + deferrals + ")";
    if (failed) message += "; its spawn had failed: " + b.helper.spawn_error;
    char line[320];
    std::snprintf(line, sizeof line,
                  "; %.1f ms spent on it: stopped %.1f ms (begin %.1f + cancellation %.1f, of which %.1f waited for "
                  "the spawn and the posted messages), overlapped %.1f ms over %d iteration(s); %.2f MiB had moved in "
                  "the background%s",
                  (rec.t_total + rec.background->t_overlapped) * 1e3, rec.t_total * 1e3, rec.background->t_begin * 1e3,
                  rec.background->t_complete * 1e3, rec.background->t_wait * 1e3, rec.background->t_overlapped * 1e3,
                  rec.background->iterations_overlapped, static_cast<double>(b.moves.bytes) / 1048576.0,
                  b.d.action == Action::Expand && !any_posted ? " (none to the newcomers)" : "");
    message += line;
    rec.message = message;
    rs.recorder.metrics.add_resize(rec);
    tell_policy(*rs.opt.policy, b.d, b.from.size(), false);
  }
  rs.progress("   remap after iter " + std::to_string(iteration) + ": background " + resize + " begun after iter " +
           std::to_string(b.rec.after_iteration) + " CANCELLED (" + message + "); the job stays on " +
           b.from.shape());
  return {b.d.action, false, message};
}
}  // namespace

// A background resize cancelled before it switched: at the job's end (cancel_resize), when
// a shrink supersedes a pending expansion, or when its session is destroyed (or
// MPI_Finalize called) with one under way. The machine (background_machine.hpp) says what
// to do: the helper thread is joined (a spawn under way finishes: blacs-dyn's spawn is
// collective and cannot stop halfway; a helper that had not posted its messages posts
// none); the ranks agree whether any posted: if some did, every rank posts and the
// messages complete (a posted MPI message is not taken back); if none did, nothing moves
// and the newcomers withdraw their receives. Then an expansion's newcomers are told and
// leave (as after a shrink), so nobody waits in join() for ever and the world and grid
// are as before.
RemapResult BackgroundPart::cancel_background(const std::string& why, CancelCause cause, GridSwitch gs,
                                              ResizeRecording rs) {
  auto b = in_flight;
  if (!b) return {};
  const double t0 = MPI_Wtime();
  blacs_dyn::World::set_finalize_hook(nullptr, nullptr);
  in_flight.reset();
  b->feed({.kind = BgEvent::Cancel});  // JoinAndAgree
  const BackgroundResize::Agreement j = b->join_and_agree(gs.job.world);
  double waited = 0;
  for (const BgAction a : j.actions) {
    switch (a) {
      case BgAction::PostNow: {
        int me = 0, n = 0;
        MPI_Comm_rank(b->new_world, &me);
        MPI_Comm_size(b->new_world, &n);
        b->moves.bytes = b->post_moves(gs.registry.mats, me, n, true);
        break;
      }
      case BgAction::WaitMoves:
        b->wait_moves();  // every rank posted the matching messages
        break;
      case BgAction::Unstage:
        for (auto& r : gs.registry.mats) {
          if (r.moved_in_background) r.unstage();
          r.moved_in_background = false;
        }
        b->moves.ex.reset();  // complete (or never started here)
        waited = MPI_Wtime() - t0;  // the join of a helper still spawning included
        if (cause != CancelCause::Destroyed) {
          MPI_Allreduce(MPI_IN_PLACE, &waited, 1, MPI_DOUBLE, MPI_MAX, gs.job.world);
          MPI_Allreduce(MPI_IN_PLACE, &b->moves.bytes, 1, MPI_INT64_T, MPI_SUM, gs.job.world);
        }
        break;
      case BgAction::NewcomersLeave:
        newcomers_leave(*b, gs, rs.iteration, j.any_posted, cause);
        break;
      case BgAction::RecordCancel:
        return record_cancel(*this, *b, why, cause, gs.job.root(), j.any_posted, t0, waited, rs);
      default:
        throw Error(std::string("background resize: a cancellation does not ") + background::to_string(a));
    }
  }
  throw Error("background resize: the cancellation was not recorded");
}

}  // namespace resize
