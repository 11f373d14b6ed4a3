// SPDX-License-Identifier: BSD-3-Clause
// Background resizes, the messages (background_resize.hpp): the constant matrices' move as
// one non-blocking exchange of the move's builder (move/move_items.hpp; started, finished), and a newcomer's wait for the
// completing point. The session's side (begin, progress, complete, cancel, join) is
// session_background.cpp; the plans are background_plan.cpp's.
#include "background/background_resize.hpp"
#include "common/config.hpp"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "common/sleep_wait.hpp"
#include "malleable/redist/traffic.hpp"

namespace resize {
namespace detail {

redist::Layout layout_on(const Registered& r, const Grid& g) {
  return r.mat().layout_on(g.nprow, g.npcol, g.ranks);
}

namespace {
// The buffer move_all would stage on grid `l` for this rank (local_elements of
// desc_for's descriptor): lld * max(1, local columns), or 0 off the grid.
std::size_t staged_elements(const redist::Layout& l, int rank, std::int64_t& ld) {
  int pr = -1, pc = -1;
  ld = 1;
  if (!l.coords_of(rank, pr, pc)) return 0;
  ld = std::max<std::int64_t>(1, l.local_rows(pr));
  return static_cast<std::size_t>(ld * std::max<std::int64_t>(1, l.local_cols(pc)));
}

}  // namespace

std::string changed_message(const std::string& name, int began_after) {
  return "background resize: constant matrix '" + name + "' was changed by the application after the resize began "
         "(after iteration " + std::to_string(began_after) + "; RESIZE_CHECK_CONSTANT=1: its checksum differs). "
         "Mark constant only matrices the application does not write between remap points";
}

// A newcomer waits for the completing point (the Ibcast `req`) as long as the old grid
// iterates, but not for processes that are gone: every 2 s it looks up the processes of
// the world on its node by pid (lost_processes); one gone or stopped
// ends the job with the reason. RESIZE_BACKGROUND_TIMEOUT=S bounds the whole wait.
void newcomer_wait(MPI_Request& req, int my_rank, int world_size, const config::Text& timeout) {
  double limit = -1;
  if (timeout && !timeout->empty()) limit = std::atof(timeout->c_str());
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
      why = "no completing point within RESIZE_BACKGROUND_TIMEOUT=" + *timeout + " s";
    } else if (now >= next_look) {
      next_look = now + 2;
      const std::string seen = lost_processes(surveyed_hosts(), surveyed_pids(), host, my_rank, world_size);
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

}  // namespace detail

using namespace detail;

double BackgroundResize::sleep_until_done() {
  return sleep_until([&] { return test(); });
}

std::int64_t BackgroundResize::post_moves(std::vector<Registered>& mats, int rank, int world_size,
                                                          bool have_old) {
  auto& b = *this;
  std::int64_t sent = 0;
  b.moves.ex.emplace();  // the move's builder: the plans and the exchange that reads them
  for (auto& r : mats) {
    if (!r.constant || r.mat().extended()) continue;
    const redist::Layout la = layout_on(r, b.from), lb = layout_on(r, b.target);
    MessagePlan mp = plan_messages(la, lb, world_size, rank, scalar_bytes(r.mat().type));
    sent += mp.sent_bytes();
    std::int64_t ldb = 1;
    void* staged = r.stage(staged_elements(lb, rank, ldb));
    const bool in_old = have_old && r.context() >= 0;  // its buffer holds its part on the old grid
    b.moves.ex->add(std::move(mp.plan), in_old ? r.data() : nullptr, in_old ? r.lld() : 1, staged, ldb, r.mat().type);
    r.moved_in_background = true;
  }
  // Everything posted at once (no budget, no window): what overlapping wants; the helper
  // thread or the progress calls test, the completing point finishes. Packed: a contiguous
  // message needs few progress calls, a datatype's pipelined fragments one per test of a
  // helper thread that sleeps up to 16 ms between tests (measured: the completing point
  // waited 424/1/526 ms in place against 127/167/6 ms packed, docs/reference/redist.md).
  // By message only: the engine's on-node steps (node window, single copy) would block. Their
  // sender waits for each receiver's word that it has read, and a newcomer reads only when
  // it finishes at the completing point, so an old process's test() between remap points
  // would wait for it; Agreement::Local also asks no node map (docs/reference/redist.md,
  // "The background resize's transports").
  redist::ExecOptions opt;
  opt.transport = redist::Transport::Packed;
  opt.memory_budget_bytes = 0;
  opt.max_outstanding = 1 << 20;
  opt.wait = redist::WaitMode::Sleep;
  b.moves.ex->start(b.comm, opt, redist::Agreement::Local);
  return sent;
}

void BackgroundResize::finish_moves() {
  if (moves.ex) moves.ex->finish();
  moves.ex.reset();
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

}  // namespace resize
