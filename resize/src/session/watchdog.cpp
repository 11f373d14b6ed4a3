// SPDX-License-Identifier: BSD-3-Clause
// A resize's deadlines (watchdog.hpp): the resize watchdog's report (Watchdog: this
// process's rank and node, every rank's node and pid, and which of them are gone or
// stopped), and the spawn's deadline of the expansion fallback, a thread that ends this
// process with the restart status.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "session/watchdog.hpp"
#include "session/world.hpp"

#include "malleable/resize/session.hpp"

namespace resize {
namespace detail {

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
  const MPI_Comm w = World::comm();
  if (w != MPI_COMM_NULL) {
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &size);
  }
  return [rank, size, hosts = World::known_hosts(), pids = World::known_pids()](
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
    thread_ = std::thread([this, seconds] { run(seconds); });
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
