// SPDX-License-Identifier: BSD-3-Clause
// A per-process watchdog over blocking phases (a spawn, a newcomer's join, a merge, a
// redistribution, a disconnect): a process that dies in one of them leaves the others
// blocked in MPI for ever (Open MPI has no failure notification without ULFM, and with
// orte_abort_on_non_zero_status=0 its launcher does not end the job either), so every
// armed period has a deadline; when it passes, the watchdog prints its owner's report
// (which process, which phase, why that phase can hang) and ends the job. blacs-dyn
// and the resize session each keep one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace malleable::watchdog {

// The exit status of a job ended by a watchdog.
inline constexpr int kExit = 75;

// This node's name (gethostname; usable before MPI_Init).
std::string host_name();
// Ends the job: MPI_Abort when MPI is up (Open MPI then kills every process of the job,
// whatever orte_abort_on_non_zero_status says), _exit otherwise or if the abort has not
// ended this process within 10 s.
[[noreturn]] void end_job(int code);

class PhaseWatchdog {
 public:
  // What the watchdog knows when a deadline passes.
  struct Status {
    std::string who, phase, hint;
    double seconds = 0;  // the deadline's length
  };
  // The line printed when a deadline passes (called on the watchdog's thread, after
  // which the job ends).
  using Report = std::function<std::string(const Status&)>;

  explicit PhaseWatchdog(Report report) : report_(std::move(report)) {}
  PhaseWatchdog(const PhaseWatchdog&) = delete;
  PhaseWatchdog& operator=(const PhaseWatchdog&) = delete;
  ~PhaseWatchdog() { disarm(); }

  // Starts watching for `who` (e.g. "world rank 0"): `phase` must end within `seconds`.
  void arm(const std::string& who, const std::string& phase, double seconds, const std::string& hint = {});
  // The next phase, with its own deadline from now (arms with the last `who` if needed).
  void phase(const std::string& phase, double seconds, const std::string& hint = {});
  // The next phase under the deadline already running (nothing if disarmed).
  void rename(const std::string& phase);
  void set_who(const std::string& who);
  void set_report(Report report);
  void disarm();
  bool armed() const;
  // The phase under way ("" when disarmed), for error messages.
  std::string current_phase() const;

 private:
  void run();
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false;
  std::chrono::steady_clock::time_point deadline_{};
  Status status_;
  Report report_;
};

// Disarms on scope exit (a failed call returns with the watchdog off).
class WatchdogScope {
 public:
  explicit WatchdogScope(PhaseWatchdog& dog) : dog_(dog) {}
  ~WatchdogScope() { dog_.disarm(); }
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;

 private:
  PhaseWatchdog& dog_;
};

}  // namespace malleable::watchdog
