// SPDX-License-Identifier: BSD-3-Clause
// Background resizes (issue 21 §1), the MPI shell: a remap point begins an expansion or a
// shrink (the spawn and the hand-over are blocking there), posts the non-blocking moves
// of the constant matrices on a duplicate of the new world and returns; the old grid
// keeps iterating while a helper thread (MPI_THREAD_MULTIPLE) or progress calls in
// begin/end_iteration test the messages; a later remap point completes it (variable
// matrices blocking, grids switch). The decisions and plans are background_plan.cpp's.
#include "session_impl.hpp"

#include <atomic>
#include <climits>
#include <csignal>

#include "malleable/redist/traffic.hpp"
#include "world.hpp"

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
  std::int64_t bytes = 0;                     // moved between ranks, all ranks (rank 0)
  BackgroundClock clock;                      // rank 0
  int overlapped = 0;                         // iterations since the begin
  std::mutex m;
  bool done = false;
  bool posted = false;  // under m: every message of this rank is posted
  std::thread helper;
  std::atomic<bool> stop{false};
  bool threaded = false;

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
  // The helper thread: tests with a sleep that backs off (1 -> 16 ms) between tests, so it
  // never takes a compute core for long (issue 21: no busy waiting).
  // `post` (packing and posting the sends) runs first, in the thread when there is one,
  // so that the begin point does not stop the application for the packing either.
  void start_helper(const std::function<void()>& post) {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    threaded = level == MPI_THREAD_MULTIPLE;
    if (!threaded) {
      post();
      posted = true;
      return;
    }
    helper = std::thread([this, post] {
      {
        std::lock_guard<std::mutex> lk(m);
        try {
          post();
          posted = true;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "resize: FAILED - posting the background moves: %s\n", e.what());
          std::fflush(stderr);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
      }
      double nap = 1e-3;
      while (!stop.load() && !test()) {
        std::this_thread::sleep_for(std::chrono::duration<double>(nap));
        nap = std::min(16e-3, nap * 2);
      }
    });
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

// Waits for a request with sleeps that back off (0.5 -> 20 ms); returns the seconds waited.
double sleep_wait(MPI_Request& req) {
  const double t0 = MPI_Wtime();
  double nap = 5e-4;
  for (;;) {
    int flag = 0;
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(nap));
    nap = std::min(20e-3, nap * 2);
  }
  return MPI_Wtime() - t0;
}

template <class B>
double sleep_until_done(B& b) {
  const double t0 = MPI_Wtime();
  double nap = 5e-4;
  while (!b.test()) {
    std::this_thread::sleep_for(std::chrono::duration<double>(nap));
    nap = std::min(20e-3, nap * 2);
  }
  return MPI_Wtime() - t0;
}

bool check_constant() {
  const char* v = std::getenv("RESIZE_CHECK_CONSTANT");
  return v && *v && std::string(v) != "0";
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
template <class B>
void post_moves(std::vector<Registered>& mats, B& b, int rank, int world_size, bool have_old) {
  b.target_layout.resize(mats.size());
  b.target_ld.assign(mats.size(), 1);
  b.staged.assign(mats.size(), nullptr);
  for (std::size_t k = 0; k < mats.size(); ++k) {
    auto& r = mats[k];
    if (!r.constant || r.sizes) continue;
    const redist::Layout la = layout_on(r, b.from), lb = layout_on(r, b.target);
    const std::size_t eb = scalar_bytes(r.type);
    const MessagePlan mp = plan_messages(la, lb, world_size, rank, eb);
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
// {status: 0 or 1 + the index of a matrix that changed, iteration, app-state bytes}.
constexpr int kHeader = 3;

}  // namespace

std::optional<std::string> Session::Impl::background_blocked(const Decision& d) const {
  if (bg_mode == Background::Off) return std::string("background off");
  bool any = false;
  for (const auto& r : mats) any = any || (r.constant && !r.sizes);
  const int remaining = opt.total_iterations >= 0 ? std::max(0, opt.total_iterations - iteration) : -1;
  return blocking_reason(d.action == Action::Expand || d.action == Action::Shrink, any, remaining,
                         bg_min_iterations, !d.powers.empty());
}

}  // namespace resize

namespace resize {

using namespace detail;

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
  if (d.action == Action::Expand) {
    const int nnew = std::max(0, target.size() - size());
    const double t0 = MPI_Wtime();
    int rc = 0;
    std::string err;
    if (!d.schema.empty()) {
      dog.phase("spawn (schema " + d.schema + ")");
      rc = detail::World::expand_schema(d.schema, err);
    } else if (!np.spawn.empty()) {
      dog.phase("spawn of " + std::to_string(nnew) + " processes on " + std::to_string(np.spawn.size()) + " host(s)");
      rc = detail::World::expand_hosts(np.spawn, exe, args, err);
    } else if (nnew > 0) {
      dog.phase("spawn of " + std::to_string(nnew) + " processes");
      rc = detail::World::expand(nnew, exe, args, err);
    }
    b->rec.t_spawn = MPI_Wtime() - t0;
    if (rc != 0) {
      dog.disarm();
      b->rec.ok = false;
      b->rec.message = "expansion failed: " + err;
      powers = powers_before;
      b->rec.t_total = MPI_Wtime() - t_start;
      if (root()) {
        metrics.add_resize(b->rec);
        opt.policy->completed(d, shape.size(), false);
      }
      progress("   remap after iter " + std::to_string(iteration) + ": expand " + shape.shape() + " -> " +
               target.shape() + " FAILED (" + err + "); continuing on " + shape.shape() + " with its data");
      return {Action::Expand, false, err};
    }
    b->new_world = detail::World::comm();
    world = b->new_world;  // until the moves are posted: the hand-over is on the new world
    if (size() < target.size()) {
      dog.disarm();
      throw Error("expansion: the world has " + std::to_string(size()) + " processes after spawning, " +
                  target.shape() + " needs " + std::to_string(target.size()));
    }
    dog.phase("state hand-over");
    bg_beginning = true;
    std::vector<char> bytes = pack_expansion(d, shape, target);
    bg_beginning = false;
    if (detail::World::share_state(bytes, err) != 0) throw Error("expansion: " + err);
    b->rec.rank_hosts = detail::World::hosts();
  }
  MPI_Comm_dup(world, &b->comm);
  dog.phase("posting the background moves");
  if (check_constant())
    for (const auto& r : mats) {
      const std::size_t n = r.constant && r.desc && r.desc[1] >= 0 ? Session::local_size(r.desc) : 0;
      b->digest.push_back(checksum(r.data(), n * scalar_bytes(r.type)));
    }
  for (const auto& r : mats)  // every rank's bytes, from the plans (pure, no collective)
    if (r.constant && !r.sizes)
      b->bytes += redist::plan_stats(layout_on(r, b->from), layout_on(r, b->target), size()).elements_moved *
                  static_cast<std::int64_t>(scalar_bytes(r.type));
  const int me = rank(), np_new = size();
  world = b->old_world;
  BackgroundResize* raw = b.get();
  b->start_helper([this, raw, me, np_new] { post_moves(mats, *raw, me, np_new, true); });
  dog.disarm();
  const double t_end = MPI_Wtime();
  if (root()) b->clock.begun(t_start, t_end, before);
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: %s %s -> %s BEGUN in the background (%s%.1f ms, stopped %.1f ms; "
                "%.2f MB of constant matrices moving; progress by %s; mode %s)",
                iteration, to_string(d.action).c_str(), shape.shape().c_str(), target.shape().c_str(),
                d.action == Action::Expand ? "spawn " : "no spawn: posting ",
                d.action == Action::Expand ? b->rec.t_spawn * 1e3 : (t_end - t_start) * 1e3, (t_end - t_start) * 1e3, static_cast<double>(b->bytes) / 1e6,
                b->threaded ? "a helper thread" : "progress calls", to_string(bg_mode).c_str());
  progress(line);
  bg = b;
  return {d.action, true, "begun in the background"};
}

void Session::Impl::progress_background() {
  if (bg && !bg->threaded) bg->test();
}

void Session::Impl::background_iteration(double wall) {
  if (!bg) return;
  ++bg->overlapped;
  if (root()) bg->clock.iteration(wall);
}

RemapResult Session::Impl::refuse_during_background(const Decision& dd) {
  Decision d = dd;
  std::string msg;
  int action = static_cast<int>(d.action);
  if (root() && d.action != Action::None) {
    const std::string requested = to_string(d.action) + " to " +
                                  (d.nprow ? std::to_string(d.nprow) + "x" + std::to_string(d.npcol)
                                           : std::to_string(d.procs) + " processes");
    msg = second_request_refusal(requested, to_string(bg->d.action) + " " + bg->from.shape() + " -> " +
                                                bg->target.shape(), bg->rec.after_iteration);
  }
  MPI_Bcast(&action, 1, MPI_INT, 0, world);
  if (static_cast<Action>(action) == Action::None) return {};
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, world);
  msg.resize(static_cast<std::size_t>(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, 0, world);
  d.action = static_cast<Action>(action);
  return refuse(d, msg);
}

std::optional<RemapResult> Session::Impl::step_background(bool last_chance) {
  auto b = bg;
  int all_done = b->test() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_done, 1, MPI_INT, MPI_MIN, world);
  const Completion c = decide_completion(b->overlapped, bg_min_iterations, all_done != 0, bg_mode, last_chance);
  if (c == Completion::NotYet) return std::nullopt;
  if (c == Completion::Defer) {
    if (root()) b->clock.deferred();
    progress("   remap after iter " + std::to_string(iteration) + ": background " + to_string(b->d.action) + " " +
             b->from.shape() + " -> " + b->target.shape() + " not done yet: keep iterating on " + b->from.shape() +
             " (mode continue)");
    return std::nullopt;
  }
  const double t0 = MPI_Wtime();
  dog.arm("completing the background " + to_string(b->d.action) + " " + b->from.shape() + " -> " + b->target.shape() +
          " after iteration " + std::to_string(iteration));
  dog.phase("waiting for the background moves");
  b->stop_helper();
  double waited = sleep_until_done(*b);
  MPI_Allreduce(MPI_IN_PLACE, &waited, 1, MPI_DOUBLE, MPI_MAX, world);
  int bad = 0;
  for (std::size_t k = 0; k < b->digest.size() && !bad; ++k) {
    const auto& r = mats[k];
    const std::size_t n = r.constant && r.desc && r.desc[1] >= 0 ? Session::local_size(r.desc) : 0;
    if (checksum(r.data(), n * scalar_bytes(r.type)) != b->digest[k]) bad = static_cast<int>(k) + 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world);
  if (b->d.action == Action::Expand) {
    dog.phase("telling the newcomers");
    std::vector<char> state = root() && pack ? pack() : std::vector<char>{};
    long long hdr[kHeader] = {bad, iteration, static_cast<long long>(state.size())};
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
    rank_hosts = rec.rank_hosts;
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
  const auto& b = *bg;
  const BackgroundSummary s = b.clock.complete(bg_complete_start, bg_complete_waited, MPI_Wtime());
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
  char line[200];
  std::snprintf(line, sizeof line, "; stopped %.1f ms (begin %.1f + complete %.1f), overlapped %.1f ms",
                s.t_stopped() * 1e3, s.t_begin_stopped * 1e3, s.t_complete_stopped * 1e3, s.t_overlapped * 1e3);
  rec.message += line + 2;
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
  // The old grid iterates for as long as it likes: no watchdog while waiting for it.
  dog.disarm();
  long long hdr[kHeader] = {0, 0, 0};
  MPI_Request rq;
  MPI_Ibcast(hdr, kHeader, MPI_LONG_LONG, 0, b->comm, &rq);
  sleep_wait(rq);
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
