// SPDX-License-Identifier: BSD-3-Clause
// The communicator stack (one level per world size reached), as pure bookkeeping: which processes form
// the world at each level, which spawn group each process belongs to and on which node it
// runs, and who leaves, parks or exits when the world shrinks. No MPI here: the MPI layer
// (runtime.cpp) holds one communicator per level and executes the plans this class
// computes, identically on every member of the world.
#ifndef BLACS_DYN_LEVEL_STACK_HPP
#define BLACS_DYN_LEVEL_STACK_HPP

#include <span>
#include <string>
#include <vector>

namespace blacs_dyn {

// A process's identity for the whole job: 0..n0-1 are the original MPI_COMM_WORLD
// ranks, then spawned processes are numbered in spawn order. Unlike a rank it never
// changes.
using ProcId = int;

enum class ProcState { Active, Parked, Exited };
enum class LevelKind { Initial = 0, Expansion = 1, Subset = 2 };

struct Level {
  LevelKind kind = LevelKind::Initial;
  std::vector<ProcId> members;  // in rank order: members[r] has rank r at this level
  int nprow = 0, npcol = 0;     // last grid made on this level's world (0: none yet)
};

// The processes one MPI_Comm_spawn started: they share an MPI_COMM_WORLD, so they can
// leave MPI early only all together. Group 0 is the job's original processes. Ids are
// never reused, also after the level that pushed a group is popped.
struct SpawnGroup {
  int level = 0;      // the level whose expansion started it (0 for the originals)
  ProcId first = 0;   // its processes are first, first+1, ..., first+size-1
  int size = 0;
  std::string host;   // the node it was spawned on ("" when not pinned to one node)
  // A launch that joined (blacs_dyn_expand_join) rather than a spawn: its id. Like a
  // spawned group it has its own MPI_COMM_WORLD (and its own mpiexec), so it leaves whole.
  std::string launch;
};

// A respawn (Retire, docs/reference/blacs-dyn.md "The respawn"): the processes
// the last expansion started replace the world, every other process of the job ends.
struct RetirePlan {
  std::vector<ProcId> stay;          // the last expansion's processes, in rank order (new rank = index)
  std::vector<ProcId> exit_now;      // every other process of the world: leaves and exits
  std::vector<ProcId> wake_to_exit;  // parked earlier: woken to exit
  std::vector<int> new_groups;       // the groups of the processes that stay, in rank order
};

// What leaving processes do (docs/reference/blacs-dyn.md, "Who exits and who parks").
enum class Departure { Stay = 0, Exit = 1, Park = 2 };

struct ShrinkPlan {
  int pop_to = -1;                   // >= 0: pop to this level; -1: push a Subset level
  std::vector<ProcId> new_members;   // the new world in rank order
  std::vector<ProcId> exit_now;      // leave now and exit (whole spawn group leaves)
  std::vector<ProcId> park_now;      // leave now and park until the job ends
  std::vector<ProcId> wake_to_exit;  // parked earlier; their group now exits
  std::vector<int> groups_exiting;   // spawn groups (by id) that disconnect and exit
};

class LevelStack {
 public:
  // Level 0: the n0 original processes.
  explicit LevelStack(int n0);

  int depth() const { return static_cast<int>(levels_.size()); }
  const Level& level(int l) const;
  const Level& top() const { return levels_.back(); }
  int world_size() const { return static_cast<int>(top().members.size()); }
  int nprocs_started() const { return static_cast<int>(group_.size()); }

  // Spawn group of a process (its id; 0 for the originals) and the groups themselves.
  int group_of(ProcId p) const;
  int ngroups() const { return static_cast<int>(groups_.size()); }
  const SpawnGroup& group(int id) const;
  std::vector<ProcId> group_members(int group) const;
  ProcState state(ProcId p) const;
  int joined_level(ProcId p) const { return group(group_of(p)).level; }
  // Rank of p at level l, or -1 if p is not a member.
  int rank_at(ProcId p, int l) const;
  // Processes holding a slot: active or parked.
  int alive() const;
  int parked() const;
  int exited() const;

  // The node a process runs on ("" unknown). Spawned groups pinned to a host know it;
  // the MPI layer records the rest (MPI_Get_processor_name) with set_host.
  const std::string& host_of(ProcId p) const;
  void set_host(ProcId p, const std::string& host);

  // Expansion by one spawn group of nnew processes: returns their ids; pushes the level.
  std::vector<ProcId> push_expansion(int nnew);
  // Expansion by several spawn groups in one level (e.g. one per node, spawned at the
  // same time): counts[i] processes on hosts[i] (hosts may be empty: not pinned).
  // Newcomers get ranks in group order. Returns the new groups' ids.
  std::vector<int> push_expansion(std::span<const int> counts, std::span<const std::string> hosts);
  // Expansion by joined launches: one group per launch (launches[i], counts[i] processes on
  // hosts[i]), in this order. Returns the new groups' ids.
  std::vector<int> push_joined(std::span<const int> counts, std::span<const std::string> hosts,
                               std::span<const std::string> launches);
  // Levels one of whose members has exited: their communicators span processes that are
  // gone and must be freed everywhere (a joined launch that left would otherwise still be
  // connected, and MPI_Finalize waits for every process connected to it).
  std::vector<int> dead_levels() const;
  // Records the grid shape last made on level l.
  void set_grid(int l, int nprow, int npcol);

  // Plans (throw blacs_dyn::Error(BLACS_DYN_ERR_ARG / BLACS_DYN_ERR_STATE) on an
  // impossible request; the stack is unchanged then).
  ShrinkPlan plan_shrink_to_level(int l) const;
  // Any set of active processes (keep[0] = 0): a new Subset level, or a pop when the
  // kept processes are exactly a lower level's members in its order.
  ShrinkPlan plan_shrink_to_ranks(std::span<const int> keep) const;
  // Gives whole nodes back: every process on `hosts` leaves and must exit, which needs each
  // of them to be in a spawn group with no member staying elsewhere; refused (the reason
  // names the processes and groups) otherwise. The others keep their order.
  ShrinkPlan plan_release_hosts(std::span<const std::string> hosts) const;
  void apply(const ShrinkPlan& plan);
  // A respawn: the last expansion's groups (every process of them active and in the top
  // level, its last ranks) stay, every other process ends (throws BLACS_DYN_ERR_STATE when
  // the top level is no expansion). The stack they go on with, as if the job had started
  // so: level 0 the first new group (its MPI_COMM_WORLD), with more groups one expansion by
  // the others (their hosts and launches kept); process ids are the ranks in the new world.
  RetirePlan plan_retire() const;
  LevelStack after_retire(const RetirePlan& plan) const;

  // What process p does under a plan.
  static Departure departure(const ShrinkPlan& plan, ProcId p);

  // Flat encoding handed to newcomers at the join (all ints).
  std::vector<int> encode() const;
  static LevelStack decode(std::span<const int> data);

 private:
  LevelStack() = default;
  void plan_departures(ShrinkPlan& plan) const;

  std::vector<Level> levels_;
  std::vector<SpawnGroup> groups_;  // groups_[id]
  std::vector<int> group_;          // group_[p]
  std::vector<ProcState> state_;    // state_[p]
  std::vector<std::string> host_;   // host_[p]
};

}  // namespace blacs_dyn
#endif
