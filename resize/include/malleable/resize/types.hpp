// SPDX-License-Identifier: BSD-3-Clause
// Value types shared by the resize session's pure core (no MPI): grids, decisions,
// placements and the error type.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "malleable/error.hpp"
#include "malleable/redist/matrix.hpp"

namespace resize {

// The session's error is the one form (malleable/error.hpp): thrown by parsing, planning
// and the session with a message naming the argument and value at fault (a message alone:
// code malleable::Errc::InvalidArgument, part Resize). Every part's error is one, so
// catching resize::Error catches an error raised below the session too, as it was thrown
// (its errc() and part() say which part raised what).
using Error = malleable::Error;

// A process grid placed in the current world: ranks[pr * npcol + pc] is the world rank
// at grid coordinate (pr, pc) (the same convention as redist::Layout::ranks).
struct Grid {
  int nprow = 1, npcol = 1;
  std::vector<int> ranks;  // empty means row-major 0..nprow*npcol-1
  int size() const { return nprow * npcol; }
  int rank_at(int pr, int pc) const {
    return ranks.empty() ? pr * npcol + pc : ranks[static_cast<std::size_t>(pr) * npcol + pc];
  }
  std::vector<int> rank_map() const;  // ranks, filled in when empty
  std::string shape() const { return std::to_string(nprow) + "x" + std::to_string(npcol); }
  bool operator==(const Grid& o) const {
    return nprow == o.nprow && npcol == o.npcol && rank_map() == o.rank_map();
  }
};

// How a matrix is laid out on every grid it lives on: redist's one enum
// (malleable/redist/matrix.hpp). BlockCyclic keeps the descriptor's MB x NB on every
// grid; Block is one block per process row/column (MB = ceil(M/nprow), NB = ceil(N/npcol));
// Extended is a matrix registered with its block sizes (register_matrix_blocks), which
// register_matrix and make_desc refuse.
using Distribution = redist::Distribution;

// Where the new processes go on an expansion.
enum class Placement {
  Global,   // new grid built from scratch, row-major over world ranks
  Local1,   // new rows/columns appended at the ends of the grid
  Local2,   // new rows/columns interspersed at the centre of p/r divisions (§4.5)
  Optimal,  // the rank relabelling that moves least data (gridmap)
  Given,    // the policy supplied the rank map itself (Decision::ranks)
};
std::string to_string(Placement p);
Placement parse_placement(const std::string& s);  // throws Error

// Regrid: the same world, a new grid over some of its processes and/or new block sizes
// (re-weighting blocks to measured speeds, taking a slowed process off the
// grid and back). No process is spawned or ends.
enum class Action { None, Expand, Shrink, Regrid };

// A node named by a decision, with how many new processes go there (expand; 0 = an even
// share of the new processes no host claims).
struct HostShare {
  std::string host;
  int count = 0;
  bool operator==(const HostShare&) const = default;
};
std::string to_string(Action a);

// How an expansion brings its new processes (Decision::by; docs/guide/joining.md).
enum class ExpandBy {
  Auto = 0,     // the session chooses: Join in a job whose launcher starts the launches it
                // orders (malleable-run --job-dir), else Spawn (RESIZE_EXPAND overrides)
  Spawn = 1,    // MPI_Comm_spawn (blacs-dyn)
  Join = 2,     // launches ordered from the job's launcher join it, one per host
  Waiting = 3,  // the launches waiting to join now (Decision::launches; malleable-run --join)
};
std::string to_string(ExpandBy b);  // "auto", "spawn", "join", "join"

// What a policy decides at a remap point. `procs` is the target world size; `nprow`
// and `npcol` may be 0 (the session picks the topology). `schema` (expand only) names a
// blacs_setup schema file to expand with instead of spawning `procs - current` copies.
struct Decision {
  Action action = Action::None;
  int procs = 0;
  int nprow = 0, npcol = 0;
  Placement placement = Placement::Local2;
  std::string schema;
  // Expand only, optional: the new grid's rank map (row-major, nprow*npcol world ranks,
  // a permutation of 0..procs-1), when the policy placed the processes itself (e.g.
  // heterogeneous selection under a power budget). Overrides placement.
  std::vector<int> ranks;
  // Nodes. Expand: where the new processes run, one spawn group per host,
  // spawned at the same time, so each node's processes can later leave together. Shrink:
  // the nodes to give back whole: every process of the job there ends, the rest stay and
  // must fill the target grid exactly.
  std::vector<HostShare> hosts;
  // Regrid (and optionally expand): the mapping powers of every world rank after the
  // resize (relative speeds, > 0; empty: unchanged). The session hands them to every
  // process (Session::powers()) before the new layouts are computed, so block sizes that
  // follow powers (register_matrix_blocks) are re-weighted by the same redistribution.
  std::vector<double> powers;
  // The policy's prediction: iteration time on the new grid/layout and the
  // resize time, seconds (< 0: none), on `prediction_clock` ("wall", "dedicated" or
  // "compute": the clock of Metrics' iteration samples it predicted), and the reasoning; the
  // session records them beside the outcome.
  double predicted_iteration = -1, predicted_resize = -1;
  // The iteration time now that the prediction started from, as the policy measured it
  // (e.g. the median of its latest iterations; < 0: the latest segment's median).
  double measured_iteration = -1;
  std::string prediction_clock = "wall";
  std::string prediction;
  std::string reason;  // for the progress line
  // Expand only: the hosts are not the job's yet (a resource manager without job
  // expansion): the resize is carried out by restart only, and the launcher asks for a
  // new, larger allocation holding them (malleable-run --hosts slurm).
  bool new_allocation = false;
  // Expand only: the hosts are the job's, but its launcher cannot start processes there
  // (Open MPI 4.1 adds no daemon on a node granted after launch once it runs daemons on
  // other nodes): the resize is carried out by restart only, the launcher relaunching the
  // job on its allocation (malleable-run --hosts slurm).
  bool by_restart = false;
  // Expand only: how the new processes come (the session fills in Auto before carrying the
  // expansion out), and with Waiting the launches to take, by their ids.
  ExpandBy by = ExpandBy::Auto;
  std::vector<std::string> launches;
  static Decision none(std::string why = {}) {
    Decision d;
    d.reason = std::move(why);
    return d;
  }
};

}  // namespace resize
