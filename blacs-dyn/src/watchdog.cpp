// SPDX-License-Identifier: BSD-3-Clause
// The watchdog over blacs-dyn's blocking phases (watchdog.hpp): one thread per armed
// period, a deadline per phase, and the end of the job when one passes.
#include "watchdog.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace blacs_dyn {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

void end_job(int code) {
  std::fflush(nullptr);
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) {
    // MPI_Abort from this thread while the main one is blocked in MPI: Open MPI hands
    // the abort to its launcher through PMIx, which has its own progress thread. Should
    // that not end the process, the second thread does.
    std::thread([code] {
      timespec ts{10, 0};
      while (nanosleep(&ts, &ts) != 0) {
      }
      ::_exit(code);
    }).detach();
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  ::_exit(code);
}

void PhaseWatchdog::arm(const std::string& who, const std::string& phase, double seconds,
                        const std::string& hint) {
  disarm();
  std::lock_guard<std::mutex> lk(m_);
  who_ = who;
  phase_ = phase;
  hint_ = hint;
  seconds_ = seconds;
  deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                     std::chrono::duration<double>(seconds));
  armed_ = true;
  thread_ = std::thread([this] { run(); });
}

void PhaseWatchdog::phase(const std::string& phase, double seconds, const std::string& hint) {
  {
    std::lock_guard<std::mutex> lk(m_);
    if (armed_) {
      phase_ = phase;
      hint_ = hint;
      seconds_ = seconds;
      deadline_ = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    }
  }
  if (!armed()) {
    arm(who_, phase, seconds, hint);
    return;
  }
  cv_.notify_all();
}

void PhaseWatchdog::set_who(const std::string& who) {
  std::lock_guard<std::mutex> lk(m_);
  who_ = who;
}

std::string PhaseWatchdog::current_phase() const {
  std::lock_guard<std::mutex> lk(m_);
  return armed_ ? phase_ : std::string();
}

bool PhaseWatchdog::armed() const {
  std::lock_guard<std::mutex> lk(m_);
  return armed_;
}

void PhaseWatchdog::disarm() {
  {
    std::lock_guard<std::mutex> lk(m_);
    armed_ = false;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void PhaseWatchdog::run() {
  std::unique_lock<std::mutex> lk(m_);
  while (armed_) {
    const auto until = deadline_;
    if (cv_.wait_until(lk, until, [&] { return !armed_ || deadline_ != until; })) continue;
    // The deadline passed with the same phase still under way.
    std::fprintf(stderr,
                 "blacs-dyn: FAILED - %s (pid %d on host %s): phase '%s' did not finish within %g s "
                 "(BLACS_DYN_JOIN_TIMEOUT)%s%s. Ending the job.\n",
                 who_.c_str(), static_cast<int>(::getpid()), host_name().c_str(), phase_.c_str(), seconds_,
                 hint_.empty() ? "" : ": ", hint_.c_str());
    std::fflush(stderr);
    lk.unlock();
    end_job(kWatchdogExit);
  }
}

}  // namespace blacs_dyn
