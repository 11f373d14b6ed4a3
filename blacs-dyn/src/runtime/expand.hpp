// SPDX-License-Identifier: BSD-3-Clause
// An expansion by spawning, collective (docs/reference/blacs-dyn.md, "How it works"): the
// counts agreed and rank 0's checks, rank 0's request shared, each group spawned (group i
// by world rank i % n) and checked in, the go message with the grown stack, the merges,
// and the grown world committed, or left pending in the background expansion the caller
// runs. One Expand per call, on the world its caller sees (`bg`); it owns what its steps
// hand each other.
#ifndef BLACS_DYN_RUNTIME_EXPAND_HPP
#define BLACS_DYN_RUNTIME_EXPAND_HPP

#include <mpi.h>

#include <optional>
#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/level_stack.hpp"
#include "runtime/runtime.hpp"

namespace blacs_dyn {
namespace detail {
class PhaseTrace;
}
class Expand {
 public:
  // `bg`: the background expansion the caller runs (null: the published world).
  Expand(Runtime& rt, BackgroundExpansion* bg) : rt_(rt), bg_(bg) {}
  // Root-significant arguments as MPI_Comm_spawn.
  void run(const SpawnRequest& request);
  // As the schema file says (protocol/schema.hpp); false if `missing_ok` and it does not
  // exist (nothing done).
  bool from_schema(const char* path, bool missing_ok);

 private:
  int agree_counts(const SpawnRequest& request);
  void check_request(const SpawnRequest& request, int total) const;
  void share_request();
  std::optional<Error> spawn_groups(bool per_host);
  void agree_spawned(const std::optional<Error>& err);
  MPI_Comm spawn_group(const SpawnRequest& one);
  MPI_Comm spawn_and_handshake(const SpawnRequest& one);
  void finish(detail::PhaseTrace& trace);

  Runtime& rt_;
  BackgroundExpansion* bg_;
  // What the steps hand each other: the world it grows (the library's private dup of it),
  // this rank and its size, a copy of the stack, rank 0's request (shared), the level it
  // makes, the spawning rank of each group and each group's spawn link.
  MPI_Comm world_ = MPI_COMM_NULL;
  int rank_ = -1;
  int size_ = 0;
  std::optional<LevelStack> cur_;
  SpawnRequest req_;
  int level_ = 0;
  std::vector<int> spawner_;
  std::vector<MPI_Comm> links_;
};

}  // namespace blacs_dyn
#endif
