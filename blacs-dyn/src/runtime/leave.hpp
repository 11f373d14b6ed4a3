// SPDX-License-Identifier: BSD-3-Clause
// A process's departure (blacs_dyn_leave, and MPI_Finalize in a process that left): one
// that a shrink or a respawn dropped ends now (Departure::Exit) or waits parked for rank
// 0's release (Departure::Park), then ends: its communicators freed, MPI finalized, the
// launcher's PMIx server given time to see it go (docs/reference/blacs-dyn.md).
#ifndef BLACS_DYN_RUNTIME_LEAVE_HPP
#define BLACS_DYN_RUNTIME_LEAVE_HPP

namespace blacs_dyn {
class Runtime;

class Leave {
 public:
  explicit Leave(Runtime& rt) : rt_(rt) {}
  // As the last change decided for this process; throws if it stays in the world.
  [[noreturn]] void run();
  [[noreturn]] void exit_process();
  [[noreturn]] void park();

 private:
  Runtime& rt_;
};

}  // namespace blacs_dyn
#endif
