// SPDX-License-Identifier: BSD-3-Clause
// The session's deadlines (watchdog.hpp), each of which ends a job that hangs with a
// message naming who did not answer: the remap point's arrival check (a private duplicate
// of the world and the messages of one remap point's check, ArrivalMessage, encoded by
// handover.cpp, polled against its deadline), the resize watchdog's report (Watchdog:
// this process's rank and node, every rank's node and pid, and which of them are gone or
// stopped), and the spawn's deadline of the expansion fallback, a thread that ends this
// process with the restart status.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "parts/session_parts.hpp"
#include "parts/blacs_dyn_error.hpp"
#include "parts/watchdog.hpp"

#include "common/tags.hpp"
#include "malleable/resize/session_options.hpp"
#include "malleable_internal/thread_name.hpp"

namespace resize {
namespace detail {

namespace {
// The last survey_world() answer and every rank's pid with it (for the watchdogs'
// messages).
std::vector<std::string> g_hosts;
std::vector<int> g_pids;
}  // namespace

std::vector<std::string> survey_world() {
  std::vector<std::string> out = or_session_error("hosts: ", [] { return blacs_dyn::World::hosts(); });
  const int pid = static_cast<int>(getpid());
  std::vector<int> pids(out.size(), -1);
  if (MPI_Allgather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, blacs_dyn::World::comm()) != MPI_SUCCESS)
    throw Error("hosts: MPI_Allgather of the pids failed");
  g_hosts = out;
  g_pids = std::move(pids);
  return out;
}

const std::vector<std::string>& surveyed_hosts() { return g_hosts; }
const std::vector<int>& surveyed_pids() { return g_pids; }

namespace {
// 'R', 'S', 'T' (stopped), 'Z' (zombie: it died) ... from /proc/PID/stat; 0 if no such process.
char proc_state(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return 0;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '?';
}
}  // namespace

malleable::watchdog::PhaseWatchdog::Report Watchdog::report() {
  int rank = -1, size = 0;
  const MPI_Comm w = blacs_dyn::World::comm();
  if (w != MPI_COMM_NULL) {
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &size);
  }
  return [rank, size, hosts = surveyed_hosts(), pids = surveyed_pids()](
             const malleable::watchdog::PhaseWatchdog::Status& s) {
    const std::string host = malleable::watchdog::host_name();
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", s.seconds);
    return "resize: FAILED - " + s.who + " did not finish within " + seconds + " s on world rank " +
           std::to_string(rank) + " (pid " + std::to_string(::getpid()) + ", host " + host + "), stuck in phase '" +
           s.phase + "'; " + lost_processes(hosts, pids, host, rank, size) + ". Ending the job.";
  };
}

std::string lost_processes(const std::vector<std::string>& hosts, const std::vector<int>& pids,
                           const std::string& host, int my_rank, int world_size) {
  if (hosts.empty() || hosts.size() != pids.size()) return "the processes of the world are not known here";
  std::ostringstream lost, elsewhere;
  int nlocal = 0, nlost = 0, nelse = 0;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] != host) {
      elsewhere << (nelse++ ? "," : "") << r;
      continue;
    }
    ++nlocal;
    if (static_cast<int>(r) == my_rank) continue;
    const char st = proc_state(pids[r]);
    if (st == 0 || st == 'Z' || st == 'X' || st == 'T' || st == 't')
      lost << (nlost++ ? "; " : "") << "world rank " << r << " (pid " << pids[r] << ") on host " << host << " is "
           << (st == 'T' || st == 't' ? "stopped" : "gone");
  }
  std::string out;
  if (nlost) out = "lost: " + lost.str();
  else
    out = "the " + std::to_string(nlocal) + " processes of the world on host " + host +
          " are all running (one of them or a newcomer stopped answering)";
  if (nelse) out += "; world ranks " + elsewhere.str() + " on other hosts are not checked from here";
  if (world_size > static_cast<int>(hosts.size()))
    out += "; world ranks " + std::to_string(hosts.size()) + "-" + std::to_string(world_size - 1) +
           " (newcomers of this resize, not yet known) are not checked";
  return out;
}

// The arrival check at every remap point (watchdog.hpp).

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
  if (!(timeout.cap > 0)) return;  // RESIZE_REMAP_TIMEOUT=0: no check
  arrival_check(world, iteration, arrival_deadline(timeout, gaps, longest_gap));
  const double now = MPI_Wtime();
  longest_gap = std::max(longest_gap, now - last);
  ++gaps;
  last = now;
}

// The spawn's deadline of the expansion fallback.

namespace {
// This process's deadline: one at a time (one expansion at a time per process).
class Deadline {
 public:
  static Deadline& get() {
    static Deadline d;
    return d;
  }
  // `deferred` (a background spawn: the main thread goes on computing): when the deadline
  // passes, the thread only marks it expired for the next remap point to end the resize
  // (background_fallback_expired), and exits itself if that has not happened after as
  // long again (at least 10 s) or once set_deferred(false) says the main thread waits.
  void arm(double seconds, std::string message, bool deferred) {
    disarm();
    std::lock_guard<std::mutex> lk(m_);
    armed_ = true;
    expired_ = false;
    deferred_ = deferred;
    message_ = std::move(message);
    thread_ = std::thread([this, seconds] {
      malleable::name_this_thread("mall-spawn-dl");
      run(seconds);
    });
  }
  void set_deferred(bool on) {
    {
      std::lock_guard<std::mutex> lk(m_);
      deferred_ = on;
    }
    cv_.notify_all();
  }
  bool expired() {
    std::lock_guard<std::mutex> lk(m_);
    return armed_ && expired_;
  }
  void disarm() {
    {
      std::lock_guard<std::mutex> lk(m_);
      armed_ = false;
    }
    cv_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }
  ~Deadline() { disarm(); }

 private:
  void run(double seconds) {
    std::unique_lock<std::mutex> lk(m_);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    if (cv_.wait_until(lk, until, [this] { return !armed_; })) return;
    expired_ = true;
    const auto last = until + std::chrono::duration<double>(std::max(seconds, 10.0));
    if (deferred_ && cv_.wait_until(lk, last, [this] { return !armed_ || !deferred_; }) && !armed_) return;
    // The others leave a moment after world rank 0 (the one with the message), so that
    // mpiexec, which ends the job at the first exit, does not end it before it has said why.
    if (message_.empty() && cv_.wait_for(lk, std::chrono::seconds(2), [this] { return !armed_; })) return;
    std::fflush(stdout);
    if (!message_.empty()) std::fputs(message_.c_str(), stderr);
    std::fflush(stderr);
    std::_Exit(kExitResizeByRestart);
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false, expired_ = false, deferred_ = false;
  std::string message_;
};

}  // namespace

void arm_spawn_deadline(double seconds, std::string message, bool deferred) {
  Deadline::get().arm(seconds, std::move(message), deferred);
}
void spawn_deadline_deferred(bool on) { Deadline::get().set_deferred(on); }
bool spawn_deadline_expired() { return Deadline::get().expired(); }
void disarm_spawn_deadline() { Deadline::get().disarm(); }

}  // namespace detail
}  // namespace resize
