// SPDX-License-Identifier: BSD-3-Clause
// A shrink, collective (§3.3.5; docs/reference/blacs-dyn.md): every rank's plan agreed (the
// stack's decision: to a level, to some ranks, off some nodes), the application's shrink
// hook, the new world, the spawn groups that exit released, the stayers settled. One
// Shrink per call; it owns what its steps hand each other (the plan, every old rank's new
// rank, this process's departure) and changes the Runtime's world at the end.
#ifndef BLACS_DYN_RUNTIME_SHRINK_HPP
#define BLACS_DYN_RUNTIME_SHRINK_HPP

#include <mpi.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/level_stack.hpp"

namespace blacs_dyn {
class Runtime;

class Shrink {
 public:
  explicit Shrink(Runtime& rt) : rt_(rt) {}
  // Each returns true on the processes that leave (they must call blacs_dyn_leave()).
  bool to_level(int level);
  bool to_ranks(std::span<const int> keep);
  // `invalid`: an argument error found on this rank, reported on every rank.
  bool release_hosts(const std::vector<std::string>& hosts, const std::string& invalid);

 private:
  // The plan agreed on every rank (or every rank throws), then carried out.
  bool carry_out(std::optional<Error>& err);
  void run();
  void run_hook(MPI_Comm w);
  void release_exiting();
  void settle();

  Runtime& rt_;
  ShrinkPlan plan_;
  std::vector<int> new_rank_;  // by old world rank: its rank in the new world (-1: it leaves)
  Departure departure_ = Departure::Stay;  // this process's
};

}  // namespace blacs_dyn
#endif
