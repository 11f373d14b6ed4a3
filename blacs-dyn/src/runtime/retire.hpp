// SPDX-License-Identifier: BSD-3-Clause
// A respawn's last step, collective (docs/reference/blacs-dyn.md, "The respawn"): the
// processes the last expansion started replace the world, every other process of the job
// ends, and the ones that stay go on as a job started with them. One Retire per call; it
// owns what the steps hand each other (the plan, the new world, this process's place in
// it) and changes the Runtime's world at the end.
#ifndef BLACS_DYN_RUNTIME_RETIRE_HPP
#define BLACS_DYN_RUNTIME_RETIRE_HPP

#include <mpi.h>

#include "protocol/level_stack.hpp"

namespace blacs_dyn {
class Runtime;

class Retire {
 public:
  explicit Retire(Runtime& rt) : rt_(rt) {}
  // True on the processes that end (they must call leave()).
  bool run();

 private:
  void agree_plan(MPI_Comm w);
  void end_spawn_links();
  void install_respawned(int my_new);
  void link_new_groups(const LevelStack& next, int my_group);

  Runtime& rt_;
  RetirePlan plan_;
  MPI_Comm new_world_ = MPI_COMM_NULL;  // the processes that stay (null on the others)
};

}  // namespace blacs_dyn
#endif
