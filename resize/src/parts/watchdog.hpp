// SPDX-License-Identifier: BSD-3-Clause
// Internal: the session's deadlines, each of which ends a job that hangs with a message
// naming who did not answer (watchdog.cpp). The arrival check at the start of every remap
// point, before any resize is under way; the resize watchdog (a thread that ends the job
// when a resize hangs) and its scope guard, the world it watches filled in by
// watchdog.cpp; and the spawn's deadline of the expansion fallback
// (fallback/carry_out.hpp), a thread that ends this process with the restart status
// when a spawn does not return.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "malleable_internal/watchdog.hpp"
#include "parts/handover.hpp"

namespace resize {
namespace detail {

// The arrival check at the start of every remap point. A process that skips a remap point
// (or is stuck or gone before it) would leave the others blocked for ever in the remap
// point's first collective, with no message: no resize has begun, so the resize watchdog
// is not armed. Instead every process first reports its arrival to world rank 0 with
// non-blocking messages, polled against a deadline; rank 0 names the ranks that did not
// arrive in time (or came to the remap point after another iteration) and ends the job
// with status 75, as the resize watchdog does. The deadline, the verdicts and the
// messages' codec are pure (handover.hpp, beside the session's other messages;
// unit-tested); the messages travel on a private duplicate of the world, so an
// application's wildcard receive on the world never takes them.
//
// Every process of a new world, at the same collective call (detail::blacs_grid): keeps a
// private duplicate of `world` for the check (one per world; freed when replaced, never
// after MPI_Finalize).
void arrival_on_world(MPI_Comm world);

// Collective over `world` at a remap point after `iteration`: returns once every process
// of the world arrived at a remap point after the same iteration; otherwise prints
// "resize: FAILED - <verdict>. Ending the job." and ends the job (MPI_Abort, status 75).
void arrival_check(MPI_Comm world, int iteration, double seconds);

// The watchdog's view of the world. Collective over blacs-dyn's current world (the
// calling thread's): every rank's node (blacs_dyn::World::hosts) and, gathered with them,
// every rank's pid; both kept for the watchdogs' messages (surveyed_hosts, surveyed_pids:
// the last survey's, empty before the first). Returns the nodes; throws Error("hosts: ...").
std::vector<std::string> survey_world();
const std::vector<std::string>& surveyed_hosts();
const std::vector<int>& surveyed_pids();

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

// The spawn's deadline: one at a time on this process (one expansion at a time). The thread
// is the only way out of a spawn that never returns: MPI_Comm_spawn cannot be cancelled,
// so when the deadline passes the process ends itself with the restart status
// (kExitResizeByRestart; std::_Exit: no MPI call can be made while the main thread is
// inside MPI), printing `message` first if it is not empty (world rank 0), the others a
// moment after it. `deferred` (a background spawn: the main thread goes on computing):
// when the deadline passes it is only marked expired for the next remap point to end the
// resize (spawn_deadline_expired), and the process ends itself if that has not happened
// after as long again (at least 10 s), or once spawn_deadline_deferred(false) says the
// main thread waits for the spawn.
void arm_spawn_deadline(double seconds, std::string message, bool deferred);
void spawn_deadline_deferred(bool on);
bool spawn_deadline_expired();  // armed and passed
// The spawn returned (whatever its outcome), or the fallback ended: no deadline any more.
void disarm_spawn_deadline();

}  // namespace detail
}  // namespace resize
