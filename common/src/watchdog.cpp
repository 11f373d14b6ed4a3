// SPDX-License-Identifier: BSD-3-Clause
// The phase watchdog (malleable_internal/watchdog.hpp): one thread per armed period, a
// deadline per phase, and the end of the job when one passes.
#include "malleable_internal/watchdog.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "malleable_internal/thread_name.hpp"

namespace malleable::watchdog {

namespace {
std::chrono::steady_clock::time_point from_now(double seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}
}  // namespace

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
      name_this_thread("mall-end-job");
      timespec ts{10, 0};
      while (nanosleep(&ts, &ts) != 0) {
      }
      ::_exit(code);
    }).detach();
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  ::_exit(code);
}

void PhaseWatchdog::arm(const std::string& who, const std::string& phase, double seconds, const std::string& hint) {
  disarm();
  std::lock_guard<std::mutex> lk(m_);
  status_ = Status{who, phase, hint, seconds};
  deadline_ = from_now(seconds);
  armed_ = true;
  thread_ = std::thread([this] {
    name_this_thread("mall-watchdog");
    run();
  });
}

void PhaseWatchdog::phase(const std::string& phase, double seconds, const std::string& hint) {
  std::string who;
  {
    std::lock_guard<std::mutex> lk(m_);
    if (armed_) {
      status_.phase = phase;
      status_.hint = hint;
      status_.seconds = seconds;
      deadline_ = from_now(seconds);
    }
    who = status_.who;
  }
  if (!armed()) {
    arm(who, phase, seconds, hint);
    return;
  }
  cv_.notify_all();
}

void PhaseWatchdog::rename(const std::string& phase) {
  std::lock_guard<std::mutex> lk(m_);
  status_.phase = phase;
}

void PhaseWatchdog::set_who(const std::string& who) {
  std::lock_guard<std::mutex> lk(m_);
  status_.who = who;
}

void PhaseWatchdog::set_report(Report report) {
  std::lock_guard<std::mutex> lk(m_);
  report_ = std::move(report);
}

std::string PhaseWatchdog::current_phase() const {
  std::lock_guard<std::mutex> lk(m_);
  return armed_ ? status_.phase : std::string();
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
    const std::string line = report_ ? report_(status_) : "FAILED - " + status_.who + ": phase '" + status_.phase + "'";
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    lk.unlock();
    end_job(kExit);
  }
}

}  // namespace malleable::watchdog
