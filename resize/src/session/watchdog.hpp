// SPDX-License-Identifier: BSD-3-Clause
// Internal: the resize watchdog (a thread that ends the job when a resize hangs) and its
// scope guard; the world it watches is filled in by watchdog.cpp.
#pragma once

#include <string>
#include <vector>

#include "malleable_internal/watchdog.hpp"

namespace resize {
namespace detail {

// Which processes of a world (hosts[r], pids[r] by rank) are gone or stopped, as far as
// can be seen from `host` (/proc of this node): a sentence for the watchdog's message.
// `world_size` may exceed hosts.size(): newcomers not yet known (no pid).
std::string lost_processes(const std::vector<std::string>& hosts, const std::vector<int>& pids,
                           const std::string& host, int my_rank, int world_size);

// A watchdog for resizes (the phase watchdog blacs-dyn uses too,
// malleable_internal/watchdog.hpp): a process that dies during a spawn or a
// redistribution would otherwise leave the others blocked for ever in a collective.
// Armed per resize, one deadline for the whole resize; if it has not finished within the
// timeout it reports this process (world rank, pid, host), the phase, and which processes
// of the world it finds gone or stopped (those on its own node, by pid), then ends the
// job (MPI_Abort, so the launcher ends every process whatever its abort policy; _exit if
// that does not end this one).
class Watchdog {
 public:
  explicit Watchdog(double seconds) : seconds_(seconds) {}
  void set_timeout(double seconds) { seconds_ = seconds; }
  void arm(const std::string& what) {
    dog_.set_report(report());
    dog_.arm(what, "start", seconds_);
  }
  // The next phase of the resize, under the same deadline.
  void phase(const std::string& p) {
    dog_.set_report(report());
    dog_.rename(p);
  }
  void disarm() { dog_.disarm(); }

 private:
  // The report of a deadline passed, over the world as the main thread knows it now.
  malleable::watchdog::PhaseWatchdog::Report report();
  double seconds_;
  malleable::watchdog::PhaseWatchdog dog_{nullptr};
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
