// SPDX-License-Identifier: BSD-3-Clause
// The arrival check's MPI shell (arrival.hpp): a private duplicate of the world, and the
// messages of one remap point's check (ArrivalMessage, encoded by handover.cpp),
// polled against its deadline.
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "session/arrival.hpp"
#include "session/session_parts.hpp"

#include "common/tags.hpp"

namespace resize::detail {

namespace {

// The duplicate of the current world (one world per process, so one duplicate).
MPI_Comm g_dup = MPI_COMM_NULL;

bool finalized() {
  int fin = 0;
  MPI_Finalized(&fin);
  return fin != 0;
}

void release() {
  if (g_dup != MPI_COMM_NULL && !finalized()) MPI_Comm_free(&g_dup);
  g_dup = MPI_COMM_NULL;
}

// The duplicate is freed at the start of MPI_Finalize (the delete callback of an attribute
// of MPI_COMM_SELF, which MPI_Finalize frees first): a communicator over processes of
// several jobs left to MPI_Finalize makes Open MPI's disconnect of the jobs write to
// sockets the other side has closed (SIGPIPE). At exit without MPI_Finalize: then.
int at_finalize(MPI_Comm, int, void*, void*) {
  if (g_dup != MPI_COMM_NULL) MPI_Comm_free(&g_dup);
  g_dup = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
void free_at_finalize() {
  static const bool once = [] {
    int key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
    return true;
  }();
  (void)once;
}
struct Releaser {
  ~Releaser() { release(); }
} g_releaser;

bool covers(MPI_Comm world) {
  if (g_dup == MPI_COMM_NULL) return false;
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(world, g_dup, &result);
  return result == MPI_CONGRUENT || result == MPI_IDENT;
}

constexpr int kHere = tags::kArrivalHere, kArrive = tags::kArrivalArrive, kGo = tags::kArrivalGo;

// Polls `reqs` until every one completed or `deadline` (MPI_Wtime) passed: spinning the
// first 50 ms (a remap point's usual wait), then sleeping from 1 ms up to 50 ms between
// tests, so a long wait costs no core. True if all completed.
bool wait_until(std::vector<MPI_Request>& reqs, double deadline) {
  const double t0 = MPI_Wtime();
  double nap = 1e-3;
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return true;
    const double now = MPI_Wtime();
    if (now >= deadline) return false;
    if (now - t0 < 0.05) {
      sched_yield();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(nap, deadline - now)));
    nap = std::min(0.05, nap * 2);
  }
}

[[noreturn]] void end_job(const std::string& why) {
  std::fprintf(stderr, "resize: FAILED - %s. Ending the job.\n", why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 75);
  std::_Exit(75);
}

using Kind = ArrivalMessage::Kind;
const int kBytes = static_cast<int>(arrival_message_bytes());

// The iteration a received message of kind `k` carries; one this build cannot read ends the job.
int iteration_of(const std::vector<char>& bytes, Kind k, int iteration) {
  try {
    return decode_arrival(bytes, k).iteration;
  } catch (const std::exception& e) {
    end_job("remap point after iteration " + std::to_string(iteration) + ": " + e.what());
  }
}

void root_side(MPI_Comm comm, int size, int iteration, double seconds) {
  const double deadline = MPI_Wtime() + seconds;
  const std::vector<char> here_msg = encode(ArrivalMessage{Kind::Here, iteration});
  std::vector<int> its(static_cast<std::size_t>(size), iteration);
  std::vector<std::vector<char>> got(static_cast<std::size_t>(size), std::vector<char>(static_cast<std::size_t>(kBytes)));
  std::vector<MPI_Request> here(static_cast<std::size_t>(size - 1)), arrive(here.size());
  for (int r = 1; r < size; ++r) {
    MPI_Isend(here_msg.data(), kBytes, MPI_BYTE, r, kHere, comm, &here[static_cast<std::size_t>(r - 1)]);
    MPI_Irecv(got[static_cast<std::size_t>(r)].data(), kBytes, MPI_BYTE, r, kArrive, comm,
              &arrive[static_cast<std::size_t>(r - 1)]);
  }
  // Until every process arrived, one arrived after another iteration, or the deadline.
  std::vector<int> missing;
  std::vector<std::pair<int, int>> elsewhere;
  std::vector<char> seen(static_cast<std::size_t>(size), 0);
  const double t0 = MPI_Wtime();
  double nap = 1e-3;
  for (;;) {
    bool all = true;
    for (int r = 1; r < size; ++r) {
      auto k = static_cast<std::size_t>(r);
      if (!seen[k]) {
        int flag = 0;
        MPI_Test(&arrive[k - 1], &flag, MPI_STATUS_IGNORE);
        seen[k] = static_cast<char>(flag);
        if (flag) its[k] = iteration_of(got[k], Kind::Arrive, iteration);
        if (flag && its[k] != iteration) elsewhere.emplace_back(r, its[k]);
      }
      all = all && seen[k];
    }
    const double now = MPI_Wtime();
    if (all || !elsewhere.empty() || now >= deadline) break;
    if (now - t0 < 0.05) {
      sched_yield();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(nap, deadline - now)));
    nap = std::min(0.05, nap * 2);
  }
  if (!elsewhere.empty() || MPI_Wtime() >= deadline)
    for (int r = 1; r < size; ++r)
      if (!seen[static_cast<std::size_t>(r)]) missing.push_back(r);
  if (!elsewhere.empty()) missing.clear();  // the ones not yet there may be on their way
  const std::string verdict = arrival_verdict(iteration, seconds, missing, elsewhere);
  if (!verdict.empty()) end_job(verdict);
  const std::vector<char> go_msg = encode(ArrivalMessage{Kind::Go, iteration});
  std::vector<MPI_Request> go(static_cast<std::size_t>(size - 1));
  for (int r = 1; r < size; ++r)
    MPI_Isend(go_msg.data(), kBytes, MPI_BYTE, r, kGo, comm, &go[static_cast<std::size_t>(r - 1)]);
  MPI_Waitall(static_cast<int>(here.size()), here.data(), MPI_STATUSES_IGNORE);
  MPI_Waitall(static_cast<int>(go.size()), go.data(), MPI_STATUSES_IGNORE);
}

void other_side(MPI_Comm comm, int iteration, double seconds) {
  const double t0 = MPI_Wtime();
  const std::vector<char> arrive_msg = encode(ArrivalMessage{Kind::Arrive, iteration});
  std::vector<char> root_msg(static_cast<std::size_t>(kBytes)), go_msg(root_msg.size());
  std::vector<MPI_Request> send(1), here(1), go(1);
  MPI_Isend(arrive_msg.data(), kBytes, MPI_BYTE, 0, kArrive, comm, &send[0]);
  MPI_Irecv(root_msg.data(), kBytes, MPI_BYTE, 0, kHere, comm, &here[0]);
  MPI_Irecv(go_msg.data(), kBytes, MPI_BYTE, 0, kGo, comm, &go[0]);
  if (!wait_until(here, t0 + seconds)) end_job(root_missing(iteration, seconds));
  iteration_of(root_msg, Kind::Here, iteration);
  // Rank 0 is there: it answers within its own deadline (or ends the job). 30 s beyond
  // it, rank 0 itself is gone.
  if (!wait_until(go, MPI_Wtime() + seconds + 30.0))
    end_job("remap point after iteration " + std::to_string(iteration) +
            ": world rank 0 arrived but did not answer (it is stuck or gone)");
  iteration_of(go_msg, Kind::Go, iteration);
  MPI_Wait(&send[0], MPI_STATUS_IGNORE);
}

}  // namespace

void arrival_on_world(MPI_Comm world) {
  if (world == MPI_COMM_NULL || covers(world)) return;
  release();
  free_at_finalize();
  MPI_Comm_dup(world, &g_dup);
}

void arrival_check(MPI_Comm world, int iteration, double seconds) {
  int size = 1, rank = 0;
  MPI_Comm_size(world, &size);
  if (size < 2 || seconds <= 0) return;
  MPI_Comm_rank(world, &rank);
  // A world no grid was made on yet (no start()): its duplicate now.
  if (!covers(world)) arrival_on_world(world);
  if (rank == 0)
    root_side(g_dup, size, iteration, seconds);
  else
    other_side(g_dup, iteration, seconds);
}

// The arrival check at iteration `iteration` on `world` (collective; timeout 0: none).
void ArrivalCheck::arrive(MPI_Comm world, int iteration) {
  if (timeout <= 0) return;  // RESIZE_REMAP_TIMEOUT=0: no check
  arrival_check(world, iteration, arrival_deadline(timeout, longest_gap));
  const double now = MPI_Wtime();
  longest_gap = std::max(longest_gap, now - last);
  last = now;
}

}  // namespace resize::detail
