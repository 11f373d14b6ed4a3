// SPDX-License-Identifier: BSD-3-Clause
// How a resize reconfigures the job (docs/reference/apps.md, "Merge or respawn"): by
// merge (the processes that stay keep their places; an expansion spawns only the
// difference) or by respawn (every process of the new grid started in one spawn, or one
// per node; the data and the state moved to them; every old process ends). Open MPI's
// shared memory connects only processes of one launch, so after a merge the pairs of one
// node that came from different launches talk over TCP; a respawn leaves one launch per
// node, at the price of spawning the whole grid and moving what a merge would have left
// in place. The choice weighs the two over the remaining iterations. Pure: no MPI.
#pragma once

#include <string>
#include <vector>

#include "common/config.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/types.hpp"

namespace resize::detail {

// RESIZE_RECONFIGURE: merge, respawn or auto (the default: the model's choice).
enum class Reconfigure { Auto, Merge, Respawn };
// Unset or empty: Auto; anything but the three words: Error "RESIZE_RECONFIGURE must be
// auto, merge or respawn, got '<text>'".
Reconfigure parse_reconfigure(const config::Text& text);

// The model's constants, from docs/data/spawn_shm/run.txt (2 cores, Open MPI 4.1.4, ob1):
// a message between two processes of one node and of different launches takes the time
// of one between two of one launch times 8.96 / 4.62 GB/s (8 MiB, medians), and the
// respawn's spawn and move are priced from the run's resize history where it has them.
inline constexpr double kMixedPairFactor = 8.96 / 4.62;
// The share of an iteration spent communicating when the kernel meter does not measure it
// (RESIZE_METER_KERNELS=1 does): not measured; between what PDGEMM's and PDGETRF's
// slowdowns on 16 cores imply (docs/reference/apps.md, "Merge or respawn").
inline constexpr double kDefaultCommShare = 0.25;
// A spawn's seconds per process and a move's bytes per second when the history has no
// spawn and no move yet (docs/data/join/summary.txt: 1.15 s for 5 processes on one node).
inline constexpr double kDefaultSpawnPerProcess = 0.23;
inline constexpr double kDefaultMoveBytesPerSecond = 5e8;

// The fraction of the pairs of ranks on one node that are of different launches (0 when
// no node holds two ranks). launch_of_rank and host_of_rank: one entry per rank ("" hosts
// are one unknown node).
double mixed_pair_fraction(const std::vector<int>& launch_of_rank, const std::vector<std::string>& host_of_rank);
// The share of a block-cyclic matrix's elements that stay on their process when it goes
// from grid `from` to grid `to` (a merge's best placement keeps a process where its blocks
// and the new grid's agree): min(P, Q) / (lcm(pr, qr) * lcm(pc, qc)), at most 1.
double kept_share(const Grid& from, const Grid& to);
// Spawning `procs` processes, in seconds: the history's expansions' seconds per process
// spawned (median), else kDefaultSpawnPerProcess per process.
double spawn_seconds(const std::vector<ResizeEvent>& history, int procs);
// Moving `bytes` between processes, in seconds: the history's resizes' bytes per second
// (median), else kDefaultMoveBytesPerSecond.
double move_seconds(const std::vector<ResizeEvent>& history, double bytes);

struct ReconfigureInput {
  Reconfigure setting = Reconfigure::Auto;
  std::string blocked;         // why no respawn can be made here ("": one can)
  int remaining = -1;          // iterations after this remap point (< 0: not known)
  double iteration_s = 0;      // the expected iteration time on the new grid
  double comm_share = -1;      // of it, communication (< 0: not measured)
  double mixed_merge = 0;      // mixed_pair_fraction after a merge
  double mixed_respawn = 0;    // ... after a respawn
  double extra_spawn_s = 0;    // the respawn's spawn over the merge's (spawn or exit)
  double extra_move_s = 0;     // the respawn's move over the merge's
  // A mixed pair's message time over a same-launch pair's: kMixedPairFactor (ob1's), or
  // what the generation check measured (policy/generation_reach.hpp; 1: shared memory).
  double pair_factor = kMixedPairFactor;
  bool pair_factor_measured = false;
};

struct ReconfigureChoice {
  bool respawn = false;
  double gain_s = 0, cost_s = 0;  // the model's numbers (0 when not weighed)
  std::string why;                // one clause for the progress line and the record
};

// The setting decides where it is merge or respawn (a respawn that cannot be made is a
// merge, `blocked` said); auto weighs gain = remaining * iteration_s * comm share *
// (mixed_merge - mixed_respawn) * (pair_factor - 1) against cost = extra_spawn_s +
// extra_move_s, and respawns only when the gain is larger (not when the remaining
// iterations are unknown). Inputs must be finite (throws Error naming the one at fault).
ReconfigureChoice choose_reconfiguration(const ReconfigureInput& in);

std::string to_string(Reconfigure r);

// Where a respawn puts the new grid: one spawn group per node (a node's processes one
// launch), or one group the launcher places (every position's node the same or not
// known, ""); and the grid on the new world's ranks (group after group, in the order of
// the nodes' first positions; one group: row-major, rank = position).
struct RespawnLayout {
  std::vector<std::pair<std::string, int>> groups;  // empty: one spawn of grid.size()
  Grid grid;
};
// host_of_position[p]: the node of position p of `target` (row-major), as a merge would
// place it.
RespawnLayout respawn_layout(const Grid& target, const std::vector<std::string>& host_of_position);
// The "env" a respawn's spawn passes its processes: Open MPI turns mpi_yield_when_idle on
// for a job it sees oversubscribed, and at a respawn's spawn the old processes still hold
// the cores, so the new ones would yield while they poll for good (docs/measurements/
// respawn.md: 25x the fresh pair's latency on 2 cores). "OMPI_MCA_mpi_yield_when_idle=0"
// when the new grid is one group (one node) of at most `cores` processes and the user set
// no value of their own; "" otherwise (more processes than cores: yielding is right).
std::string respawn_spawn_env(const RespawnLayout& layout, unsigned cores, bool user_set);
// The "env" a merge's spawn passes its newcomers, by the respawn's rule over the grid the
// merge makes (host_of_position[p]: the node of position p of `target`, as respawn_layout
// takes it): Open MPI turns yielding on for newcomers whose spawn exceeds the slots it
// counts, though the grown grid may fit the node's cores (a launch given fewer slots than
// cores: docs/measurements/respawn.md "Yield after a merge"). "" where the grown grid spans
// nodes, outnumbers `cores` or the user set a value.
std::string merge_spawn_env(const Grid& target, const std::vector<std::string>& host_of_position, unsigned cores,
                            bool user_set);
// `g` with every rank moved up by `offset` (the new grid on the grown world, before the
// old processes go).
Grid shifted(const Grid& g, int offset);

}  // namespace resize::detail
