// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the job's side (docs/reference/blacs-dyn.md, "Growing by joining"):
// its directory and heartbeat at start, the expansions by launches that join, the
// launches waiting, whether the job can join. One Join per call; what an expansion's
// steps hand each other is its JoinGrowing, the job's join state is the Runtime's
// (JoinSide). A joining launch's side is JoiningLaunch (joiner.hpp).
#ifndef BLACS_DYN_RUNTIME_JOIN_HPP
#define BLACS_DYN_RUNTIME_JOIN_HPP

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "protocol/join_protocol.hpp"
#include "protocol/level_stack.hpp"

namespace blacs_dyn {
namespace detail {
class PhaseTrace;
}
class Runtime;
struct JoinGrowing;
struct JoinOrder;

class Join {
 public:
  explicit Join(Runtime& rt) : rt_(rt) {}
  // The job's side at start (its directory, record, heartbeat, the launches of its start).
  void start_joinable();
  // Collective: expands by launches that join (one group each, one level), as `want`
  // says, waiting for them at most `wait_s` seconds; with `orders`, rank 0 first asks the job's launcher
  // for one launch per order and the want is those. All or nothing: a launch refused,
  // dead or missing fails the call (BLACS_DYN_ERR_JOIN) on every rank, the others are
  // sent away and the world is unchanged.
  void expand_join(join::JoinWant want, const std::vector<JoinOrder>& orders, double wait_s);
  // World rank 0 (0, 0 elsewhere): the launches waiting to join now that pass the checks
  // made without connecting (those that do not are refused, told and logged), and their
  // processes. Not collective: it reads the job's directory.
  std::pair<int, int> join_waiting();
  // Collective: whether this job can grow by joining; rank 0's answer, the same everywhere.
  bool join_supported();
  // Whether the job's launcher starts the launches it orders (BLACS_DYN_JOIN_AGENT).
  bool join_can_order() const;
  // `cur`, `lobby`: rank 0's (null elsewhere). `patience`: how long a follower waits for a
  // step. Public: a joining launch's processes take the steps after their merge too.
  void join_steps(JoinGrowing& g, const LevelStack* cur, join::JoinLobby* lobby, double deadline, bool wait,
                  double patience, detail::PhaseTrace& trace);

 private:
  // One expansion by joining, step by step (runtime_join.cpp): world rank 0 leads (which
  // launch to connect to next, its verdict, the end), every process of the world grown so
  // far follows, the processes of each launch merged in this expansion included.
  join::JoinStep lead_step(join::JoinLobby& lobby, const JoinGrowing& g, const LevelStack& cur, double deadline, bool wait);
  void read_requests(join::JoinLobby& lobby, std::vector<std::string>& bad);
  void install_joined(JoinGrowing& g, const join::JoinStep& done, detail::PhaseTrace& trace);
  bool connect_step(JoinGrowing& g, const join::JoinStep& step, join::JoinLobby* lobby, detail::PhaseTrace& trace);
  join::JoinStep judge_launch(const JoinGrowing& g, const join::JoinStep& step, join::JoinLobby& lobby, MPI_Comm inter,
                              int rc);
  void merge_launch(JoinGrowing& g, const join::JoinStep& step, join::JoinLobby* lobby, MPI_Comm& inter);
  void check_join(const join::JoinWant& want, const std::vector<JoinOrder>& orders) const;
  std::string verdict(join::JoinLobby& lobby, const join::JoinStep& step, MPI_Comm inter, int groups, double until);
  void refuse_file(const std::string& launch, const std::string& why);

  Runtime& rt_;
};

}  // namespace blacs_dyn
#endif
