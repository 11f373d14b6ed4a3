// SPDX-License-Identifier: BSD-3-Clause
// Background resizes (issue 21 §1), the MPI shell: a remap point begins an expansion or a
// shrink and returns; a helper thread (MPI_THREAD_MULTIPLE) spawns, hands the state over
// (blacs-dyn keeps the grown world pending for it) and posts the non-blocking moves of the
// constant matrices on a duplicate of the new world, while the old grid keeps iterating
// (without MULTIPLE the spawn blocks at the begin point and progress calls in
// begin/end_iteration test the messages); a later remap point completes it (variable
// matrices blocking, world published, grids switch), or the session's end cancels it. The
// decisions and plans are background_plan.cpp's.
#include "session/session_impl.hpp"

#include <atomic>
#include <climits>
#include <csignal>

#include "malleable/redist/traffic.hpp"
#include "common/sleep_wait.hpp"
#include "session/world.hpp"

namespace resize {

using namespace detail;

struct Session::Impl::BackgroundResize {
  Decision d;
  Grid from, target;
  NodePlan np;
  ResizeRecord rec;                  // from the begin point
  MPI_Comm old_world = MPI_COMM_NULL;  // expansions: the world the old grid computes in
  MPI_Comm new_world = MPI_COMM_NULL;  // the world after the resize (expansions)
  MPI_Comm comm = MPI_COMM_NULL;       // a duplicate of the world the messages use
  struct Recv {
    std::size_t mat = 0;
    redist::Transfer transfer;
    std::vector<char> buf;
  };
  std::vector<std::vector<char>> sends;
  std::vector<Recv> recvs;
  std::vector<MPI_Request> reqs;
  std::vector<redist::Layout> target_layout;  // per registered matrix (constant ones)
  std::vector<std::int64_t> target_ld;
  std::vector<void*> staged;                  // the staged buffer of each constant matrix
  std::vector<std::uint64_t> digest;          // RESIZE_CHECK_CONSTANT=1, old grid members
  // Moved between ranks: this rank's sent bytes from its own plans when posted; the whole
  // job's (a sum over the old world) once the completing point has reduced it.
  std::int64_t bytes = 0;
  BackgroundClock clock;                      // rank 0
  int overlapped = 0;                         // iterations since the begin
  std::mutex m;
  bool done = false;
  bool posted = false;        // under m: every message of this rank is posted
  bool spawn_failed = false;  // under m: the spawn failed (on every rank alike), world unchanged
  std::string spawn_error;
  std::thread helper;
  std::atomic<bool> stop{false};
  // The main thread cancels the resize: a helper that has not posted its messages yet
  // posts none (`skipped`, read after the join).
  std::atomic<bool> cancelling{false};
  bool skipped = false;
  bool threaded = false;        // a helper thread makes the progress
  bool spawn_threaded = false;  // ... and made the spawn and the hand-over (issue 21 §1)

  // Non-blocking: true once every message of this rank completed.
  bool test() {
    std::lock_guard<std::mutex> lk(m);
    if (!posted) return false;  // the helper thread has not posted yet
    if (done) return true;
    int flag = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE);
    done = flag != 0;
    return done;
  }
  bool failed() {
    std::lock_guard<std::mutex> lk(m);
    return spawn_failed;
  }
  bool has_posted() {
    std::lock_guard<std::mutex> lk(m);
    return posted;
  }
  // The helper thread: `work` (under MULTIPLE the spawn, the hand-over and the posting;
  // else the posting alone, made here at once) runs first, so the begin point does not
  // stop the application for it; `work` returns the spawn's error ("" if none: posted).
  // Then it tests with a sleep that backs off (1 -> 16 ms) between tests, so it never
  // takes a compute core for long (issue 21: no busy waiting).
  void start_helper(const std::function<std::string()>& work, bool spawn_in_thread) {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    threaded = level == MPI_THREAD_MULTIPLE;
    spawn_threaded = threaded && spawn_in_thread;
    if (!threaded) {
      finish_work(work());
      return;
    }
    helper = std::thread([this, work] {
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
      while (!stop.load() && !test()) {
        std::this_thread::sleep_for(std::chrono::duration<double>(nap));
        nap = std::min(16e-3, nap * 2);
      }
    });
  }
  void finish_work(const std::string& err) {
    std::lock_guard<std::mutex> lk(m);
    spawn_failed = !err.empty();
    spawn_error = err;
    posted = err.empty() && !skipped;
  }
  void stop_helper() {
    stop = true;
    if (helper.joinable()) helper.join();
  }
  ~BackgroundResize() {
    stop_helper();
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

namespace {

// Sleeps (0.5 -> 20 ms, sleep_wait.hpp) until the background move's requests are done.
template <class B>
double sleep_until_done(B& b) {
  return sleep_until([&] { return b.test(); });
}

bool check_constant() {
  const char* v = std::getenv("RESIZE_CHECK_CONSTANT");
  return v && *v && std::string(v) != "0";
}

// Test hook: RESIZE_FAULT=hold-background keeps a helper thread, once it has spawned (an
// expansion) and before it posts the messages, sleeping until the main thread completes
// or cancels the resize. Every completing point of mode continue then finds it not done
// and defers: the tests of a resize deferred to the job's end need no timing.
bool hold_background_fault() {
  const char* f = std::getenv("RESIZE_FAULT");
  return f && std::string(f) == "hold-background";
}

int mb_on(const Registered& r, const Grid& g) {
  return r.dist == Distribution::Block ? std::max(1, (r.m + g.nprow - 1) / g.nprow) : r.mb;
}
int nb_on(const Registered& r, const Grid& g) {
  return r.dist == Distribution::Block ? std::max(1, (r.n + g.npcol - 1) / g.npcol) : r.nb;
}
redist::Layout layout_on(const Registered& r, const Grid& g) {
  return redist::Layout::block_cyclic(r.m, r.n, mb_on(r, g), nb_on(r, g), g.nprow, g.npcol, 0, 0, g.rank_map());
}

// The buffer move_all would stage on grid `l` for this rank (Session::local_size of
// desc_for's descriptor): lld * max(1, local columns), or 0 off the grid.
std::size_t staged_elements(const redist::Layout& l, int rank, std::int64_t& ld) {
  int pr = -1, pc = -1;
  ld = 1;
  if (!l.coords_of(rank, pr, pc)) return 0;
  ld = std::max<std::int64_t>(1, l.local_rows(pr));
  return static_cast<std::size_t>(ld * std::max<std::int64_t>(1, l.local_cols(pc)));
}

constexpr int kTagBase = 7100;  // + matrix index, on the background's own communicator

// Posts this rank's messages of every constant matrix: sends packed from the old buffer,
// receives into buffers unpacked at completion, local pieces copied into the staged buffer.
// Returns the bytes this rank sends to others (its rank-local plans' share).
template <class B>
std::int64_t post_moves(std::vector<Registered>& mats, B& b, int rank, int world_size, bool have_old) {
  std::int64_t sent = 0;
  b.target_layout.resize(mats.size());
  b.target_ld.assign(mats.size(), 1);
  b.staged.assign(mats.size(), nullptr);
  for (std::size_t k = 0; k < mats.size(); ++k) {
    auto& r = mats[k];
    if (!r.constant || r.sizes) continue;
    const redist::Layout la = layout_on(r, b.from), lb = layout_on(r, b.target);
    const std::size_t eb = scalar_bytes(r.type);
    const MessagePlan mp = plan_messages(la, lb, world_size, rank, eb);
    sent += mp.sent_bytes();
    std::int64_t ldb = 1;
    void* staged = r.stage(staged_elements(lb, rank, ldb));
    b.target_layout[k] = lb;
    b.target_ld[k] = ldb;
    b.staged[k] = staged;
    const std::int64_t lda = have_old && r.desc[1] >= 0 ? r.desc[8] : 1;
    for (const auto& t : mp.plan.transfers)
      if (t.src == rank && t.dst == rank) {
        std::vector<char> tmp;
        pack_transfer(la, t, r.data(), lda, eb, tmp);
        unpack_transfer(lb, t, tmp.data(), staged, ldb, eb);
      }
    for (const auto& s : mp.sends) {
      if (s.bytes > INT_MAX) throw Error("background resize: matrix " + r.name + " sends a message over 2 GiB");
      b.sends.emplace_back();
      pack_transfer(la, mp.plan.transfers[s.transfer], r.data(), lda, eb, b.sends.back());
      b.reqs.emplace_back();
      MPI_Isend(b.sends.back().data(), static_cast<int>(s.bytes), MPI_BYTE, s.rank, kTagBase + static_cast<int>(k),
                b.comm, &b.reqs.back());
    }
    for (const auto& rv : mp.recvs) {
      if (rv.bytes > INT_MAX) throw Error("background resize: matrix " + r.name + " receives a message over 2 GiB");
      b.recvs.push_back({k, mp.plan.transfers[rv.transfer], std::vector<char>(static_cast<std::size_t>(rv.bytes))});
      b.reqs.emplace_back();
      MPI_Irecv(b.recvs.back().buf.data(), static_cast<int>(rv.bytes), MPI_BYTE, rv.rank,
                kTagBase + static_cast<int>(k), b.comm, &b.reqs.back());
    }
    r.moved_in_background = true;
  }
  return sent;
}

// Every message completed: the received pieces into the staged buffers.
template <class B>
void unpack_received(std::vector<Registered>& mats, B& b) {
  for (auto& rv : b.recvs) {
    const auto& r = mats[rv.mat];
    unpack_transfer(b.target_layout[rv.mat], rv.transfer, rv.buf.data(), b.staged[rv.mat], b.target_ld[rv.mat],
                    scalar_bytes(r.type));
  }
  b.recvs.clear();
  b.sends.clear();
  b.reqs.clear();
  if (b.comm != MPI_COMM_NULL) MPI_Comm_free(&b.comm);
}

std::string changed_message(const std::string& name, int began_after) {
  return "background resize: constant matrix '" + name + "' was changed by the application after the resize began "
         "(after iteration " + std::to_string(began_after) + "; RESIZE_CHECK_CONSTANT=1: its checksum differs). "
         "Mark constant only matrices the application does not write between remap points";
}

// The completing point's message to the newcomers (on the background's communicator):
// {status: 0 or 1 + the index of a matrix that changed, iteration, app-state bytes,
// 1 if inside a remap point (the newcomers take part in the rest of it) or 0 if in
// complete_resize}.
// A cancellation says {kCancelled, iteration, old world size, 1 if some old process posted
// its messages (then they complete) or 0 (none did: the newcomers withdraw their
// receives), the CancelCause}.
constexpr int kHeader = 5;
constexpr long long kCancelled = -1;

// A newcomer waits for the completing point (the Ibcast `req`) as long as the old grid
// iterates, but not for processes that are gone: every 2 s it looks up the processes of
// the world on its node by pid (issue 20 §5's check, lost_processes); one gone or stopped
// ends the job with the reason. RESIZE_BACKGROUND_TIMEOUT=S bounds the whole wait.
void newcomer_wait(MPI_Request& req, int my_rank, int world_size) {
  double limit = -1;
  if (const char* t = std::getenv("RESIZE_BACKGROUND_TIMEOUT"); t && *t) limit = std::atof(t);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const double t0 = MPI_Wtime();
  double nap = 5e-4, next_look = t0 + 2;
  for (;;) {
    int flag = 0;
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    const double now = MPI_Wtime();
    std::string why;
    if (limit > 0 && now - t0 > limit) {
      why = "no completing point within RESIZE_BACKGROUND_TIMEOUT=" + std::string(std::getenv("RESIZE_BACKGROUND_TIMEOUT")) + " s";
    } else if (now >= next_look) {
      next_look = now + 2;
      const std::string seen = lost_processes(World::known_hosts(), World::known_pids(), host, my_rank, world_size);
      if (seen.rfind("lost:", 0) == 0) why = seen;
    }
    if (!why.empty()) {
      std::fprintf(stderr,
                   "resize: FAILED - newcomer (world rank %d, pid %d, host %s) waiting for the completion of an "
                   "expansion begun in the background: %s. Ending the job.\n",
                   my_rank, static_cast<int>(getpid()), host, why.c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 75);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(nap));
    nap = std::min(20e-3, nap * 2);
  }
}

}  // namespace

std::optional<std::string> Session::Impl::background_blocked(const Decision& d) const {
  if (bg_mode == Background::Off) return std::string("background off");
  bool any = false;
  for (const auto& r : mats) any = any || (r.constant && !r.sizes);
  const int remaining = opt.total_iterations >= 0 ? std::max(0, opt.total_iterations - iteration) : -1;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool spawn_hidden = d.action == Action::Expand && provided == MPI_THREAD_MULTIPLE;
  return blocking_reason(d.action == Action::Expand || d.action == Action::Shrink, any, remaining,
                         bg_min_iterations, !d.powers.empty(), spawn_hidden);
}

}  // namespace resize

namespace resize {

using namespace detail;

// The spawn of a background expansion, the state hand-over and the hosts, on the thread
// that calls it (the helper thread under MPI_THREAD_MULTIPLE, else the main thread at the
// begin point). Returns the spawn's error ("" if it worked: the world is b.new_world);
// throws once the world changed. Touches no member the main thread uses while it computes.
std::string Session::Impl::background_spawn(BackgroundResize& b, std::vector<char> state, int nnew) {
  // The watchdog's phases belong to the main thread: not set from the helper thread.
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool main_thread = !(provided == MPI_THREAD_MULTIPLE);
  std::string err = spawn(b.d, b.np, nnew, b.rec.t_spawn, main_thread);
  if (!err.empty()) return err;
  b.new_world = detail::World::comm();
  int n = 0;
  MPI_Comm_size(b.new_world, &n);
  if (n < b.target.size())
    throw Error("expansion: the world has " + std::to_string(n) + " processes after spawning, " + b.target.shape() +
                " needs " + std::to_string(b.target.size()));
  if (detail::World::share_state(state, err) != 0) throw Error("expansion: " + err);
  b.rec.rank_hosts = RankHosts::of(detail::World::hosts());
  return {};
}

RemapResult Session::Impl::begin_background(const Decision& d, const Grid& target, const NodePlan& np, double t_start) {
  auto b = std::make_shared<BackgroundResize>();
  b->d = d;
  b->from = shape;
  b->target = target;
  b->np = np;
  b->rec = begin_resize(d, target);
  b->old_world = b->new_world = world;
  double before = -1;
  if (root()) {
    const auto segs = metrics.segments();
    if (!segs.empty()) before = segs.back().median_wall;
  }
  const bool expanding = d.action == Action::Expand;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool in_thread = provided == MPI_THREAD_MULTIPLE;
  std::vector<char> state;
  if (expanding) {
    bg_beginning = true;
    state = pack_expansion(shape, target);  // the application's state at the begin point
    bg_beginning = false;
  }
  if (check_constant())
    for (const auto& r : mats) {
      const std::size_t n = r.constant && r.desc && r.desc[1] >= 0 ? Session::local_size(r.desc) : 0;
      b->digest.push_back(checksum(r.data(), n * scalar_bytes(r.type)));
    }
  const int nnew = expanding ? std::max(0, target.size() - size()) : 0;
  BackgroundResize* raw = b.get();
  // What the begin point leaves to the helper thread: under MULTIPLE the spawn (blacs-dyn
  // keeps the grown world pending, seen by that thread alone, until the completing point
  // publishes it), the hand-over and the posting; else only the posting.
  const auto post = [this, raw] {
    MPI_Comm_dup(raw->new_world, &raw->comm);
    if (raw->threaded && hold_background_fault()) {
      double nap = 1e-3;
      while (!raw->stop.load()) {
        std::this_thread::sleep_for(std::chrono::duration<double>(nap));
        nap = std::min(16e-3, nap * 2);
      }
    }
    // Cancelled meanwhile (the job's end, a shrink): nothing is posted, so nothing moves
    // to the newcomers; the cancelling point agrees with the other ranks on it.
    if (raw->cancelling.load()) {
      raw->skipped = true;
      return;
    }
    int me = 0, n = 0;
    MPI_Comm_rank(raw->new_world, &me);
    MPI_Comm_size(raw->new_world, &n);
    // This rank's bytes from its own plans; summed over the world at the completing point.
    raw->bytes = post_moves(mats, *raw, me, n, true);
  };
  std::function<std::string()> work = [post] {
    post();
    return std::string();
  };
  if (expanding && in_thread) {
    work = [this, raw, post, state, nnew] {
      detail::World::background_thread(true);
      std::string err;
      try {
        err = background_spawn(*raw, state, nnew);
        if (err.empty()) post();
      } catch (...) {
        detail::World::background_thread(false);
        throw;
      }
      detail::World::background_thread(false);
      return err;
    };
  } else if (expanding) {
    // No MPI_THREAD_MULTIPLE: the spawn blocks at the begin point (documented).
    dog.phase("spawn of " + std::to_string(nnew) + " processes and the state hand-over");
    const std::string err = background_spawn(*b, state, nnew);
    if (!err.empty()) {
      dog.disarm();
      return fail_background_expansion(*b, err, t_start);
    }
  }
  dog.disarm();
  b->start_helper(work, expanding);
  detail::World::at_finalize(&Session::Impl::finalize_hook, this);
  const double t_end = MPI_Wtime();
  if (root()) b->clock.begun(t_start, t_end, before);
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: %s %s -> %s BEGUN in the background (stopped %.1f ms%s; constant matrices "
                "moving; progress by %s; mode %s)",
                iteration, to_string(d.action).c_str(), shape.shape().c_str(), target.shape().c_str(),
                (t_end - t_start) * 1e3,
                !expanding ? "" : b->spawn_threaded ? ", spawning in the helper thread" : ", spawn included",
                b->threaded ? "a helper thread" : "progress calls", to_string(bg_mode).c_str());
  progress(line);
  bg = b;
  return {d.action, true, "begun in the background"};
}

RemapResult Session::Impl::fail_background_expansion(BackgroundResize& b, const std::string& err, double t_start) {
  return fail_expansion(b.d, b.from, b.target, b.rec, err, t_start);
}

void Session::Impl::progress_background() {
  if (bg && !bg->threaded) bg->test();
}

void Session::Impl::background_iteration(double wall) {
  if (!bg) return;
  ++bg->overlapped;
  if (root()) bg->clock.iteration(wall);
}

// A decision while a resize is under way in the background (not switched yet). A shrink
// while an expansion is pending supersedes it: the policy now wants fewer processes than
// the grid the expansion was making, so spawning and filling processes only to let them go
// again is waste; the expansion is cancelled (its newcomers leave, what was not posted
// does not move) and the shrink is carried out from the current grid as any decision (or,
// when the current grid already has that size, nothing more happens). Queueing it instead
// would complete the expansion first. Any other request is refused (not queued).
RemapResult Session::Impl::decide_during_background(const Decision& dd) {
  const Decision d = broadcast_decision(dd);
  if (d.action == Action::None) return {};
  const std::string asked = to_string(d.action) + " to " +
                            (d.nprow ? std::to_string(d.nprow) + "x" + std::to_string(d.npcol)
                                     : std::to_string(d.procs) + " processes");
  if (bg->d.action == Action::Expand && d.action == Action::Shrink) {
    cancel_background("superseded by the " + asked + " decided after iteration " + std::to_string(iteration),
                      CancelCause::Superseded);
    if ((d.nprow ? d.nprow * d.npcol : d.procs) != shape.size()) return act(d);
    // The grid the expansion started from already has the size the shrink asks for.
    if (root()) opt.policy->completed(d, shape.size(), true);
    const std::string msg = "the " + asked + " is met by cancelling the pending expansion; the job stays on " +
                            shape.shape();
    progress("   remap after iter " + std::to_string(iteration) + ": " + msg);
    return {Action::None, true, msg};
  }
  return refuse(d, second_request_refusal(asked, to_string(bg->d.action) + " " + bg->from.shape() + " -> " +
                                                     bg->target.shape(),
                                          bg->rec.after_iteration));
}

std::optional<RemapResult> Session::Impl::step_background(bool last_chance) {
  auto b = bg;
  // {not done, spawn failed}: the helper threads of different ranks may be at different
  // points; the MAX makes every rank take the same branch.
  int st[2] = {b->test() ? 0 : 1, b->failed() ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_MAX, world);
  if (st[1]) {
    // blacs-dyn failed the spawn on every rank alike (nothing changed): as a blocking one.
    b->stop_helper();
    const std::string err = b->spawn_error;
    World::at_finalize(nullptr, nullptr);
    bg.reset();
    return fail_background_expansion(*b, err, MPI_Wtime());
  }
  const Completion c = decide_completion(b->overlapped, bg_min_iterations, st[0] == 0, bg_mode, last_chance);
  if (c == Completion::NotYet) return std::nullopt;
  if (c == Completion::Defer) {
    if (root()) b->clock.deferred();
    progress("   remap after iter " + std::to_string(iteration) + ": background " + to_string(b->d.action) + " " +
             b->from.shape() + " -> " + b->target.shape() + " not done yet: keep iterating on " + b->from.shape() +
             " (mode continue)");
    return std::nullopt;
  }
  const double t0 = MPI_Wtime();
  // Waits (a join, no spin) for a helper thread still spawning or posting; blacs-dyn's
  // own watchdog covers a spawn that hangs.
  b->stop_helper();
  int failed = b->failed() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, world);
  if (failed) {
    const std::string err = b->spawn_error;
    World::at_finalize(nullptr, nullptr);
    bg.reset();
    return fail_background_expansion(*b, err, t0);
  }
  dog.arm("completing the background " + to_string(b->d.action) + " " + b->from.shape() + " -> " + b->target.shape() +
          " after iteration " + std::to_string(iteration));
  dog.phase("waiting for the background moves");
  sleep_until_done(*b);
  double waited = MPI_Wtime() - t0;  // the join of a helper still spawning included
  MPI_Allreduce(MPI_IN_PLACE, &waited, 1, MPI_DOUBLE, MPI_MAX, world);
  World::at_finalize(nullptr, nullptr);
  // The grown world, pending in blacs-dyn since the helper thread spawned, becomes the
  // world: BLACS's globals change here, on the main thread, between iterations.
  if (b->spawn_threaded) World::publish_background();
  int bad = 0;
  for (std::size_t k = 0; k < b->digest.size() && !bad; ++k) {
    const auto& r = mats[k];
    const std::size_t n = r.constant && r.desc && r.desc[1] >= 0 ? Session::local_size(r.desc) : 0;
    if (checksum(r.data(), n * scalar_bytes(r.type)) != b->digest[k]) bad = static_cast<int>(k) + 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world);
  // The background's bytes: the senders are the old world's ranks (newcomers only receive).
  MPI_Allreduce(MPI_IN_PLACE, &b->bytes, 1, MPI_INT64_T, MPI_SUM, world);
  if (b->d.action == Action::Expand) {
    dog.phase("telling the newcomers");
    std::vector<char> state = root() && pack ? pack() : std::vector<char>{};
    long long hdr[kHeader] = {bad, iteration, static_cast<long long>(state.size()), last_chance ? 0 : 1, 0};
    MPI_Request rq;
    MPI_Ibcast(hdr, kHeader, MPI_LONG_LONG, 0, b->comm, &rq);
    sleep_wait(rq);
    if (!bad) {
      state.resize(static_cast<std::size_t>(hdr[2]));
      MPI_Bcast(state.data(), static_cast<int>(hdr[2]), MPI_BYTE, 0, b->comm);
      if (!root() && unpack) unpack(state);
    }
  }
  if (bad) {
    dog.disarm();
    for (auto& r : mats) r.moved_in_background = false;
    throw Error(changed_message(mats[static_cast<std::size_t>(bad - 1)].name, b->rec.after_iteration));
  }
  unpack_received(mats, *b);
  bg_complete_start = t0;
  bg_complete_waited = waited;
  RemapResult out;
  if (b->d.action == Action::Shrink) {
    dog.disarm();  // shrink() arms its own
    out = shrink(b->d, b->target, b->np, t0);
  } else {
    ResizeRecord rec = b->rec;
    rec.after_iteration = iteration;  // where the grid switches (segments, payoff)
    world = b->new_world;
    rank_hosts = rec.rank_hosts.expand();
    node_of_rank = redist::node_ids(rank_hosts);
    dog.phase("BLACS grids");
    detail::BlacsGrid old_grid(world, b->from);
    detail::BlacsGrid new_grid(world, b->target);
    dog.phase("redistribution of the variable matrices");
    const double t1 = MPI_Wtime();
    rec.bytes_moved = move_all(old_grid, new_grid, &rec) + b->bytes;
    rec.t_redist = MPI_Wtime() - t1;
    grid = std::move(new_grid);
    old_grid.release();
    shape = b->target;
    rec.bytes_total = total_bytes();
    dog.disarm();
    conclude(b->d, b->from.size(), rec,
             "   remap after iter " + std::to_string(iteration) + ": expand " + rec.from_grid + " -> " + rec.to_grid +
                 " COMPLETED (begun in the background after iter " + std::to_string(b->rec.after_iteration) + ")");
    out = {Action::Expand, true, {}};
  }
  for (auto& r : mats) r.moved_in_background = false;
  bg.reset();
  return out;
}

void Session::Impl::amend_background(ResizeRecord& rec) {
  if (!bg || !root()) return;
  fill_background(*bg, rec, bg_complete_start, bg_complete_waited);
  char line[200];
  std::snprintf(line, sizeof line, "; stopped %.1f ms (begin %.1f + complete %.1f), overlapped %.1f ms",
                rec.t_total * 1e3, rec.t_background_begin * 1e3, rec.t_background_complete * 1e3,
                rec.t_overlapped * 1e3);
  rec.message += line + 2;
}

void Session::Impl::fill_background(const BackgroundResize& b, ResizeRecord& rec, double start, double waited) {
  const BackgroundSummary s = b.clock.complete(start, waited, MPI_Wtime());
  rec.background = true;
  rec.background_mode = to_string(bg_mode);
  rec.background_progress = b.threaded ? "helper thread" : "progress calls";
  rec.background_began_after = b.rec.after_iteration;
  if (rec.action == Action::Expand) rec.t_spawn = b.rec.t_spawn;
  rec.t_background_begin = s.t_begin_stopped;
  rec.t_background_complete = s.t_complete_stopped;
  rec.t_background_wait = s.t_waited;
  rec.t_overlapped = s.t_overlapped;
  rec.iterations_overlapped = s.iterations;
  rec.completion_deferred = s.deferred;
  rec.iteration_slowdown = s.slowdown();
  rec.bytes_background = b.bytes;
  if (rec.action == Action::Shrink) rec.bytes_moved += b.bytes;
  rec.t_total = s.t_stopped();
  rec.t_other = std::max(0.0, rec.t_total - rec.t_spawn - rec.t_redist);
}

void Session::Impl::finalize_hook(void* self) {
  auto* I = static_cast<Session::Impl*>(self);
  try {
    I->cancel_background("MPI_Finalize was called", CancelCause::Destroyed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resize: cancelling the background resize at MPI_Finalize: %s\n", e.what());
  }
}

// A background resize cancelled before it switched: at the job's end (cancel_resize), when
// a shrink supersedes a pending expansion, or when its session is destroyed (or
// MPI_Finalize called) with one under way. The helper thread is joined (a spawn under way
// finishes: blacs-dyn's spawn is collective and cannot stop halfway); a helper that had not
// posted its messages posts none. The ranks agree whether any posted: if some did, every
// rank posts and the messages complete (a posted MPI message is not taken back); if none
// did, nothing moves and the newcomers withdraw their receives. Then an expansion's
// newcomers are told and leave through blacs-dyn's stack (as after a shrink), so nobody
// waits in join() for ever and the world and grid are as before.
RemapResult Session::Impl::cancel_background(const std::string& why, CancelCause cause) {
  auto b = bg;
  if (!b) return {};
  const double t0 = MPI_Wtime();
  World::at_finalize(nullptr, nullptr);
  bg.reset();
  b->cancelling = true;
  b->stop_helper();
  // {the spawn failed, some rank posted, this rank's bytes}: the helper threads of the
  // ranks may have stopped at different points; every rank takes the same branch.
  int st[2] = {b->failed() ? 1 : 0, b->has_posted() ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_MAX, world);
  const bool failed = st[0] != 0, any_posted = st[1] != 0;
  if (!failed && any_posted && !b->has_posted()) {
    int me = 0, n = 0;
    MPI_Comm_rank(b->new_world, &me);
    MPI_Comm_size(b->new_world, &n);
    b->bytes = post_moves(mats, *b, me, n, true);
    std::lock_guard<std::mutex> lk(b->m);
    b->posted = true;
  }
  if (any_posted) sleep_until_done(*b);  // every rank posted the matching messages
  for (auto& r : mats) {
    if (r.moved_in_background) r.unstage();
    r.moved_in_background = false;
  }
  b->recvs.clear();
  b->sends.clear();
  double waited = MPI_Wtime() - t0;  // the join of a helper still spawning included
  if (cause != CancelCause::Destroyed) {
    MPI_Allreduce(MPI_IN_PLACE, &waited, 1, MPI_DOUBLE, MPI_MAX, world);
    MPI_Allreduce(MPI_IN_PLACE, &b->bytes, 1, MPI_INT64_T, MPI_SUM, world);
  }
  if (!failed && b->d.action == Action::Expand) {
    if (b->spawn_threaded) World::publish_background();
    int old_size = 0;
    MPI_Comm_size(b->old_world, &old_size);
    long long hdr[kHeader] = {kCancelled, iteration, old_size, any_posted ? 1 : 0, static_cast<long long>(cause)};
    MPI_Request rq;
    MPI_Ibcast(hdr, kHeader, MPI_LONG_LONG, 0, b->comm, &rq);
    sleep_wait(rq);
    std::vector<int> keep(static_cast<std::size_t>(old_size));
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int>(i);
    bool leaving = false;
    std::string err;
    if (World::shrink(keep, {}, [] { return true; }, leaving, err) != 0)
      throw Error("cancelling the background expansion: the newcomers could not leave: " + err);
    world = World::comm();
    if (cause != CancelCause::Destroyed && world != b->old_world) {
      // The job goes on: its grid on the world it is left with.
      grid = detail::BlacsGrid(world, shape);
      relabel_descs();
    }
  }
  powers = powers_before;
  const std::string resize = to_string(b->d.action) + " " + b->from.shape() + " -> " + b->target.shape();
  if (cause == CancelCause::Destroyed) {
    progress("   background " + resize + " begun after iter " + std::to_string(b->rec.after_iteration) +
             " CANCELLED (" + why + " before a remap point completed it); the job stays on " + b->from.shape());
    return {b->d.action, false, why};
  }
  std::string message;
  if (root()) {
    ResizeRecord rec = b->rec;
    rec.after_iteration = iteration;  // where it was cancelled; began_after says where it began
    rec.ok = false;
    rec.cancelled = true;
    rec.t_redist = 0;
    rec.bytes_moved = rec.action == Action::Shrink ? 0 : b->bytes;  // fill_background adds a shrink's
    fill_background(*b, rec, t0, waited);
    const int k = rec.completion_deferred;
    const std::string deferrals = k == 0 ? std::string("no remap point could complete it")
                                         : "not finished after " + std::to_string(k) + " deferral" + (k == 1 ? "" : "s");
    message = cause == CancelCause::End ? "cancelled at the end (" + deferrals + ")"
                                        : "cancelled after iteration " + std::to_string(iteration) + ", " + why +
                                              " (" + deferrals + ")";
    if (failed) message += "; its spawn had failed: " + b->spawn_error;
    char line[320];
    std::snprintf(line, sizeof line,
                  "; %.1f ms spent on it: stopped %.1f ms (begin %.1f + cancellation %.1f, of which %.1f waited for "
                  "the spawn and the posted messages), overlapped %.1f ms over %d iteration(s); %.2f MiB had moved in "
                  "the background%s",
                  (rec.t_total + rec.t_overlapped) * 1e3, rec.t_total * 1e3, rec.t_background_begin * 1e3,
                  rec.t_background_complete * 1e3, rec.t_background_wait * 1e3, rec.t_overlapped * 1e3,
                  rec.iterations_overlapped, static_cast<double>(b->bytes) / 1048576.0,
                  b->d.action == Action::Expand && !any_posted ? " (none to the newcomers)" : "");
    message += line;
    rec.message = message;
    metrics.add_resize(rec);
    opt.policy->completed(b->d, b->from.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": background " + resize + " begun after iter " +
           std::to_string(b->rec.after_iteration) + " CANCELLED (" + message + "); the job stays on " +
           b->from.shape());
  return {b->d.action, false, message};
}

int Session::Impl::join_background(const Grid& from, const Grid& to) {
  auto b = std::make_shared<BackgroundResize>();
  b->from = from;
  b->target = to;
  b->old_world = b->new_world = world;
  MPI_Comm_dup(world, &b->comm);
  dog.phase("posting the background receives");
  post_moves(mats, *b, rank(), size(), false);
  b->posted = true;
  if (const char* f = std::getenv("RESIZE_FAULT");
      f && std::string(f) == "kill-newcomer-background" && rank() == size() - 1) {
    // Fault injection for the tests: the last newcomer dies during the background phase.
    std::fprintf(stderr, "resize: fault injection - newcomer (pid %d) kills itself during the background phase\n",
                 getpid());
    std::fflush(stderr);
    raise(SIGKILL);
  }
  // The old grid iterates for as long as it likes: no deadline while waiting for it, but
  // the processes it runs on are watched (newcomer_wait).
  dog.disarm();
  long long hdr[kHeader] = {0, 0, 0, 0, 0};
  MPI_Request rq;
  MPI_Ibcast(hdr, kHeader, MPI_LONG_LONG, 0, b->comm, &rq);
  newcomer_wait(rq, rank(), size());
  bg_joined_in_remap_point = hdr[3] != 0;
  if (hdr[0] == kCancelled) {
    // The job cancelled the expansion before completing it: this process leaves again
    // through blacs-dyn's stack, as after a shrink, and ends. Messages the old processes
    // posted complete; if none did, this process withdraws its receives (nothing moved).
    if (hdr[3]) {
      sleep_until_done(*b);
    } else {
      for (auto& q : b->reqs) {
        MPI_Cancel(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }
    }
    b->recvs.clear();
    b->reqs.clear();
    for (auto& m : mats) {
      m.unstage();
      m.moved_in_background = false;
    }
    if (rank() == size() - 1) {
      const char* cause = hdr[4] == static_cast<long long>(CancelCause::End)
                              ? "at the job's end (cancel_resize/resize_cancel): no remap point was left to switch"
                          : hdr[4] == static_cast<long long>(CancelCause::Superseded)
                              ? "superseded by a shrink the policy decided meanwhile"
                              : "its session ended before a remap point completed it";
      std::fprintf(stderr,
                   "resize: the expansion %s -> %s begun in the background was cancelled by the job (%s); the "
                   "newcomers leave%s\n",
                   from.shape().c_str(), to.shape().c_str(), cause,
                   hdr[3] ? "" : " (no data had moved to them)");
      std::fflush(stderr);
    }
    std::vector<int> keep(static_cast<std::size_t>(hdr[2]));
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int>(i);
    bool leaving = false;
    std::string err;
    if (World::shrink(keep, {}, [] { return true; }, leaving, err) != 0 || !leaving)
      throw Error("background expansion cancelled, but the newcomers could not leave: " + err);
    World::leave();
  }
  dog.arm("joining an expansion begun in the background");
  if (hdr[0]) throw Error(changed_message(mats[static_cast<std::size_t>(hdr[0] - 1)].name, iteration));
  std::vector<char> state(static_cast<std::size_t>(hdr[2]));
  MPI_Bcast(state.data(), static_cast<int>(hdr[2]), MPI_BYTE, 0, b->comm);
  if (unpack) unpack(state);
  sleep_until_done(*b);
  unpack_received(mats, *b);
  return static_cast<int>(hdr[1]);
}

}  // namespace resize
