// SPDX-License-Identifier: BSD-3-Clause
// Internal: the state of a background resize (detail::BackgroundResize: the
// helper thread, its state machine's state, the constant matrices' exchange, the staged
// buffers) and the message helpers that session_background.cpp (begin, progress,
// complete, join), background_cancel.cpp (cancel) and background_messages.cpp (starting
// and finishing the exchange, the newcomers' wait) share.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "malleable/redist/redistribute.hpp"
#include "background/background_machine.hpp"
#include "common/sleep_wait.hpp"
#include "move/move_items.hpp"
#include "background/background_part.hpp"
#include "parts/grid_switch.hpp"
#include "parts/registry.hpp"
#include "parts/resize_phases.hpp"
#include "malleable_internal/thread_name.hpp"

namespace resize {
namespace detail {

struct BackgroundResize {
  // The constant matrices' move: one exchange of all of them built by the move's builder
  // (every matrix's pieces for a peer in one message; the plans it reads live in it),
  // started by post_moves, moved on by test(), finished by finish_moves.
  struct Moves {
    std::optional<MoveItems> ex;
    // Moved between ranks: this rank's sent bytes from its own plans when posted; the whole
    // job's (a sum over the old world) once the completing point has reduced it.
    std::int64_t bytes = 0;
  };
  // Who makes the progress and how far the resize got: the helper thread and the state
  // machine (background_machine.hpp), whose state is read and changed under `m` only.
  struct Helper {
    std::mutex m;
    background::State state;  // under m
    std::string spawn_error;  // the spawn's error (written by the spawning thread before SpawnFailed)
    std::thread thread;
    std::atomic<bool> stop{false};  // the thread's lifetime: the main thread joins it
    bool threaded = false;        // a helper thread makes the progress
    bool spawn_threaded = false;  // ... and made the spawn and the hand-over
    bool hold = false;            // test-only fault hold-background (common/fault.hpp): wait for `stop`
  };

  // What is resized, from where to where, and its record from the begin point.
  Decision d;
  Grid from, target;
  NodePlan node_plan;
  ResizeRecord rec;
  MPI_Comm old_world = MPI_COMM_NULL;  // expansions: the world the old grid computes in
  MPI_Comm new_world = MPI_COMM_NULL;  // the world after the resize (expansions)
  MPI_Comm comm = MPI_COMM_NULL;       // a duplicate of the world the messages use
  std::vector<std::uint64_t> digest;   // RESIZE_CHECK_CONSTANT=1, old grid members
  BackgroundClock clock;               // rank 0
  int overlapped = 0;                  // iterations since the begin
  Moves moves;
  Helper helper;

  // Feeds one event to the state machine (any thread); returns the actions to perform.
  // An event the state does not allow throws resize::Error naming both.
  std::vector<background::Action> feed(const background::Event& e) {
    std::lock_guard<std::mutex> lk(helper.m);
    return feed_locked(e);
  }
  std::vector<background::Action> feed_locked(const background::Event& e) {
    background::Transition t = background::apply(helper.state, e);
    helper.state = t.next;
    return std::move(t.actions);
  }
  background::State state() {
    std::lock_guard<std::mutex> lk(helper.m);
    return helper.state;
  }
  // Non-blocking: true once every message of this rank completed.
  bool test() {
    std::lock_guard<std::mutex> lk(helper.m);
    const background::Progress p = helper.state.progress;
    if (p == background::Progress::Done) return true;
    if (p != background::Progress::Moving) return false;  // not posted (yet)
    if (moves.ex && !moves.ex->test()) return false;  // unpacks what arrived: the staged buffers fill meanwhile
    feed_locked({.kind = background::EventKind::MovesComplete});
    return true;
  }
  bool failed() { return state().progress == background::Progress::SpawnFailed; }
  bool has_posted() { return background::posted(state().progress); }
  // The helper thread: `work` (under MULTIPLE the spawn, the hand-over and the posting;
  // else the posting alone, made here at once) runs first, so the begin point does not
  // stop the application for it; `work` returns the spawn's error ("" if none). It feeds
  // the machine its own events (SpawnDone/SpawnFailed, PostBegin, Posted). Then it tests
  // with a sleep that backs off (1 -> 16 ms) between tests, so it never takes a compute
  // core for long (no busy waiting).
  void start_helper(const std::function<std::string()>& work, bool spawn_in_thread) {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    helper.threaded = level == MPI_THREAD_MULTIPLE;
    helper.spawn_threaded = helper.threaded && spawn_in_thread;
    if (!helper.threaded) {
      work();
      return;
    }
    helper.thread = std::thread([this, work] {
      malleable::name_this_thread("mall-bg-resize");
      std::string err;
      try {
        err = work();
      } catch (const std::exception& e) {
        // The world already changed (a failed hand-over, an impossible message): the
        // processes cannot agree on a way back, so the job ends with the reason.
        std::fprintf(stderr, "resize: FAILED - the background part of a resize: %s. Ending the job.\n", e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      if (!err.empty()) return;
      double nap = 1e-3;
      while (!helper.stop.load() && !test()) {
        std::this_thread::sleep_for(std::chrono::duration<double>(nap));
        nap = std::min(16e-3, nap * 2);
      }
    });
  }
  void stop_helper() {
    helper.stop = true;
    if (helper.thread.joinable()) helper.thread.join();
  }
  // The machine's JoinAndAgree: joins the helper (a join, no spin: a helper still spawning
  // or posting is waited for; blacs-dyn's own watchdog covers a spawn that hangs), then
  // the ranks agree on {some rank's spawn failed, some rank posted} (the helper threads
  // may have stopped at different points: the MAX makes every rank take the same branch)
  // and the machine is fed Joined. Collective over `world`.
  struct Agreement {
    bool any_failed = false, any_posted = false;
    std::vector<background::Action> actions;
    bool has(background::Action a) const { return std::find(actions.begin(), actions.end(), a) != actions.end(); }
  };
  Agreement join_and_agree(MPI_Comm world) {
    stop_helper();
    int st[2] = {failed() ? 1 : 0, has_posted() ? 1 : 0};
    MPI_Allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_MAX, world);
    Agreement out{st[0] != 0, st[1] != 0, {}};
    out.actions = feed({.kind = background::EventKind::Joined, .any_failed = out.any_failed, .any_posted = out.any_posted});
    return out;
  }
  // Waits (sleeps 0.5 -> 20 ms) for the exchange itself, once the helper is joined and the
  // machine counts this rank's moves as done (its WaitMoves action).
  void wait_moves() {
    sleep_until([&] { return !moves.ex || moves.ex->test(); });
  }
  // Sleeps (0.5 -> 20 ms, sleep_wait.hpp) until this rank's requests are done; the seconds.
  double sleep_until_done();
  // The spawn (`cmd`), the state hand-over and the hosts, on the thread that calls it
  // (the helper thread under MPI_THREAD_MULTIPLE, else the main thread at the begin
  // point, which alone sets `watchdog`'s phases). Returns the spawn's error ("" if it
  // worked: the world is new_world); throws once the world changed. Touches nothing the
  // main thread uses while it computes.
  std::string spawn(std::vector<char> state, int nnew, const detail::LaunchCommand& cmd, detail::Watchdog& watchdog);
  // What a begin point leaves to the helper thread after the spawn: `comm` (when the
  // main thread did not make it), then, unless the resize was cancelled meanwhile, every
  // constant matrix of `mats` posted (post_moves); this rank's bytes into moves.bytes.
  void post_all(std::vector<Registered>& mats);
  // Starts one exchange of every constant matrix from the old grid's buffer into a staged
  // buffer on the target grid (redist::Exchange, Agreement::Local on `comm`: no collective,
  // so a helper thread may start it, and newcomers may start theirs before the old
  // processes do). Returns the bytes this rank sends to others (its rank-local plans' share).
  std::int64_t post_moves(std::vector<Registered>& mats, int rank, int world_size, bool have_old);
  // Waits for the rest of the exchange (the staged buffers complete) and frees `comm`.
  void finish_moves();
  // Withdraws this rank's part (a newcomer whose old processes never posted theirs).
  void cancel_moves() {
    if (moves.ex) moves.ex->cancel();
    moves.ex.reset();
  }
  ~BackgroundResize() {
    stop_helper();
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) moves.ex.reset();  // completes an unfinished exchange before its communicator goes
    if (!fin && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

// Matrix `r`'s layout on grid `g` (block distributions: one block per process row/column).
redist::Layout layout_on(const Registered& r, const Grid& g);
// The error when a constant matrix changed after the resize began.
std::string changed_message(const std::string& name, int began_after);
// A newcomer's wait for the completing point (`req`), watching the processes of its node;
// `timeout`: RESIZE_BACKGROUND_TIMEOUT as the session read it (seconds, at most).
void newcomer_wait(MPI_Request& req, int my_rank, int world_size, const config::Text& timeout);

}  // namespace detail
}  // namespace resize
