// SPDX-License-Identifier: BSD-3-Clause
// An expansion by spawning, collective (docs/reference/blacs-dyn.md, "How it works"): the
// counts agreed and rank 0's checks, rank 0's request shared, each group spawned (group i
// by world rank i % n) and checked in, the go message with the grown stack, the merges,
// and the grown world committed, or left pending in the background expansion the caller
// runs. One Expand per call, on the world its caller sees (`bg`).
#ifndef BLACS_DYN_RUNTIME_EXPAND_HPP
#define BLACS_DYN_RUNTIME_EXPAND_HPP

#include <mpi.h>

#include <optional>
#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/level_stack.hpp"

namespace blacs_dyn {
namespace detail {
class PhaseTrace;
}
class BackgroundExpansion;
class Runtime;
struct SpawnRequest;

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
  int agree_counts(const SpawnRequest& request, const LevelStack& cur, MPI_Comm w);
  void check_request(const SpawnRequest& request, const LevelStack& cur, int total);
  void share_request(SpawnRequest& req, MPI_Comm w) const;
  std::optional<Error> spawn_groups(const SpawnRequest& req, bool per_host, int level, std::vector<MPI_Comm>& links);
  void agree_spawned(MPI_Comm w, const std::optional<Error>& err, const SpawnRequest& req,
                     std::vector<MPI_Comm>& links, int level);
  MPI_Comm spawn_group(const SpawnRequest& req, int level);
  MPI_Comm spawn_and_handshake(const SpawnRequest& req, int level);
  void finish(MPI_Comm w, const LevelStack& cur, const SpawnRequest& req, const std::vector<int>& spawner,
              std::vector<MPI_Comm>& links, detail::PhaseTrace& trace);

  Runtime& rt_;
  BackgroundExpansion* bg_;
};

}  // namespace blacs_dyn
#endif
