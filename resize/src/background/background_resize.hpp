// SPDX-License-Identifier: BSD-3-Clause
// Internal: the state of a background resize (detail::BackgroundResize: the
// helper thread, the constant matrices' exchange, the staged buffers) and the message
// helpers that session_background.cpp (begin, progress, complete, cancel, join) and
// background_messages.cpp (starting and finishing the exchange, the newcomers' wait) share.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "malleable/redist/redistribute.hpp"
#include "move/move_items.hpp"
#include "session/session_impl.hpp"

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
  // Who makes the progress and how far it got: the helper thread, its flags and the
  // spawn's outcome. The fields marked "under m" are read and written under `m`.
  struct Helper {
    std::mutex m;
    bool done = false;          // under m: every message of this rank completed
    bool posted = false;        // under m: every message of this rank is posted
    bool spawn_failed = false;  // under m: the spawn failed (on every rank alike), world unchanged
    std::string spawn_error;
    std::thread thread;
    std::atomic<bool> stop{false};
    // The main thread cancels the resize: a helper that has not posted its messages yet
    // posts none (`skipped`, read after the join).
    std::atomic<bool> cancelling{false};
    bool skipped = false;
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

  // Non-blocking: true once every message of this rank completed.
  bool test() {
    std::lock_guard<std::mutex> lk(helper.m);
    if (!helper.posted) return false;  // the helper thread has not posted yet
    if (helper.done) return true;
    helper.done = !moves.ex || moves.ex->test();  // unpacks what arrived: the staged buffers fill meanwhile
    return helper.done;
  }
  bool failed() {
    std::lock_guard<std::mutex> lk(helper.m);
    return helper.spawn_failed;
  }
  bool has_posted() {
    std::lock_guard<std::mutex> lk(helper.m);
    return helper.posted;
  }
  // The helper thread: `work` (under MULTIPLE the spawn, the hand-over and the posting;
  // else the posting alone, made here at once) runs first, so the begin point does not
  // stop the application for it; `work` returns the spawn's error ("" if none: posted).
  // Then it tests with a sleep that backs off (1 -> 16 ms) between tests, so it never
  // takes a compute core for long (no busy waiting).
  void start_helper(const std::function<std::string()>& work, bool spawn_in_thread) {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    helper.threaded = level == MPI_THREAD_MULTIPLE;
    helper.spawn_threaded = helper.threaded && spawn_in_thread;
    if (!helper.threaded) {
      finish_work(work());
      return;
    }
    helper.thread = std::thread([this, work] {
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
      finish_work(err);
      if (!err.empty()) return;
      double nap = 1e-3;
      while (!helper.stop.load() && !test()) {
        std::this_thread::sleep_for(std::chrono::duration<double>(nap));
        nap = std::min(16e-3, nap * 2);
      }
    });
  }
  void finish_work(const std::string& err) {
    std::lock_guard<std::mutex> lk(helper.m);
    helper.spawn_failed = !err.empty();
    helper.spawn_error = err;
    helper.posted = err.empty() && !helper.skipped;
  }
  void stop_helper() {
    helper.stop = true;
    if (helper.thread.joinable()) helper.thread.join();
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
