// SPDX-License-Identifier: BSD-3-Clause
// Internal: the resize watchdog (a thread that ends the job when a resize hangs) and its
// scope guard; the world it watches is filled in by watchdog.cpp.
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace resize {
namespace detail {

// Which processes of a world (hosts[r], pids[r] by rank) are gone or stopped, as far as
// can be seen from `host` (/proc of this node): a sentence for the watchdog's message.
// `world_size` may exceed hosts.size(): newcomers not yet known (no pid).
std::string lost_processes(const std::vector<std::string>& hosts, const std::vector<int>& pids,
                           const std::string& host, int my_rank, int world_size);

// A watchdog for resizes: a process that dies during a spawn or a redistribution would
// otherwise leave the others blocked for ever in a collective. Armed per resize; if the
// resize has not finished within the timeout it reports this process (world rank, pid,
// host), the phase, and which processes of the world it finds gone or stopped (those on
// its own node, by pid), then ends the job (MPI_Abort, so the launcher ends
// every process whatever its abort policy; _exit if that does not end this one).
class Watchdog {
 public:
  explicit Watchdog(double seconds) : seconds_(seconds) {}
  void set_timeout(double seconds) { seconds_ = seconds; }
  ~Watchdog() { disarm(); }
  void arm(const std::string& what) {
    disarm();
    std::lock_guard<std::mutex> lk(m_);
    what_ = what;
    phase_ = "start";
    snapshot();
    armed_ = true;
    thread_ = std::thread([this] { run(); });
  }
  void phase(const std::string& p) {
    std::lock_guard<std::mutex> lk(m_);
    phase_ = p;
    snapshot();
  }
  void disarm() {
    {
      std::lock_guard<std::mutex> lk(m_);
      armed_ = false;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  // The world as the main thread knows it now (called with m_ held, on the main thread).
  void snapshot();
  void run() {
    std::unique_lock<std::mutex> lk(m_);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(seconds_);
    if (cv_.wait_until(lk, deadline, [this] { return !armed_; })) return;
    std::fprintf(stderr,
                 "resize: FAILED - %s did not finish within %.0f s on world rank %d (pid %d, host %s), stuck in "
                 "phase '%s'; %s. Ending the job.\n",
                 what_.c_str(), seconds_, rank_, static_cast<int>(getpid()), host_.c_str(), phase_.c_str(),
                 lost_processes(hosts_, pids_, host_, rank_, size_).c_str());
    std::fflush(stderr);
    lk.unlock();
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::seconds(10));
      std::_Exit(75);
    }).detach();
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Abort(MPI_COMM_WORLD, 75);
    std::_Exit(75);
  }
  double seconds_;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false;
  std::string what_, phase_;
  int rank_ = -1, size_ = 0;
  std::string host_;
  std::vector<std::string> hosts_;
  std::vector<int> pids_;
};

// The watchdog armed for one resize (begin_resize arms it), disarmed when the phase that
// holds the guard leaves its scope (a return or a throw) or by release() (before a process
// leaves the job, or a phase that arms its own).
class WatchdogGuard {
 public:
  explicit WatchdogGuard(Watchdog& d) : d_(&d) {}
  ~WatchdogGuard() { release(); }
  WatchdogGuard(const WatchdogGuard&) = delete;
  WatchdogGuard& operator=(const WatchdogGuard&) = delete;
  void release() {
    if (d_) d_->disarm();
    d_ = nullptr;
  }

 private:
  Watchdog* d_;
};

}  // namespace detail
}  // namespace resize
