// SPDX-License-Identifier: BSD-3-Clause
// A per-process watchdog over blacs-dyn's blocking phases: the spawn, a
// newcomer's MPI_Init and join, the merges, the disconnects of a shrink and of the job's
// end. A process that dies in one of them leaves the others blocked in MPI for ever
// (Open MPI has no failure notification without ULFM, and with
// orte_abort_on_non_zero_status=0 its launcher does not end the job either), so every
// phase gets a deadline; when one passes the process prints which process it is (rank,
// host, pid), in which phase, and why that phase can hang, then ends the job.
#ifndef BLACS_DYN_WATCHDOG_HPP
#define BLACS_DYN_WATCHDOG_HPP

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace blacs_dyn {

// The exit status of a job ended by a watchdog (the session's watchdog uses it too).
constexpr int kWatchdogExit = 75;

class PhaseWatchdog {
 public:
  PhaseWatchdog() = default;
  PhaseWatchdog(const PhaseWatchdog&) = delete;
  PhaseWatchdog& operator=(const PhaseWatchdog&) = delete;
  ~PhaseWatchdog() { disarm(); }

  // Starts watching for `who` (e.g. "world rank 0"): `phase` must end within `seconds`.
  void arm(const std::string& who, const std::string& phase, double seconds, const std::string& hint = {});
  // The next phase, with its own deadline from now (arms with the last `who` if needed).
  void phase(const std::string& phase, double seconds, const std::string& hint = {});
  void set_who(const std::string& who);
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
  double seconds_ = 0;
  std::string who_, phase_, hint_;
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

// This node's name (gethostname; usable before MPI_Init).
std::string host_name();
// Ends the job from a watchdog: MPI_Abort when MPI is up (Open MPI then kills every
// process of the job, whatever orte_abort_on_non_zero_status says), _exit otherwise or
// if the abort has not ended this process within 10 s.
[[noreturn]] void end_job(int code);

}  // namespace blacs_dyn
#endif
