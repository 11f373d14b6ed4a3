// SPDX-License-Identifier: BSD-3-Clause
// Where each process sits in the new grid after a resize, the optimal
// placement by linear assignment (beyond the thesis), and shrink planning. Pure, no MPI.
//
// Process ids are ranks of the communicator the redistribution runs on: after an
// expansion the old processes keep ids 0..P-1 and the spawned ones are P, P+1, ...
// (the merged communicator of blacs-dyn), so Placement::ranks() is directly a
// redist::Layout `ranks` vector.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "malleable/gridmap/topology.hpp"
#include "malleable/redist/matrix.hpp"

namespace gridmap {

struct Placement {
  Topology grid;
  std::vector<int> slots;  // row-major: slots[i * grid.cols + j] = process id at (i, j)

  // BLACS "Row" order: ids first, first+1, ... across each row in turn.
  static Placement row_major(Topology grid, int first_id = 0);

  int at(int row, int col) const { return slots[static_cast<std::size_t>(row) * grid.cols + col]; }
  const std::vector<int>& ranks() const { return slots; }  // for redist::Layout::ranks
  int max_id() const;
  // Throws gridmap::Error unless slots has rows*cols distinct ids >= 0.
  void validate() const;
};

std::string to_string(const Placement& p);  // one grid row per line

enum class PlacementStrategy {
  Global,  // all processes ordered by id into the new grid (§4.2)
  Local1,  // old grid kept, new rows/columns appended at the end (§4.5)
  Local2,  // new rows/columns interspersed at (n-1)p/r + p/2r (§4.5)
  Optimal  // linear assignment maximising data that stays in place (beyond the thesis)
};
std::string to_string(PlacementStrategy s);
PlacementStrategy parse_placement_strategy(const std::string& text);

// Final indices (0-based, in the grown dimension of old+added lines) of the `added` new
// lines among `old_count` old ones. Local1: at the end. Local2: the k-th new
// line (k = 1..r) goes after floor((k-1)p/r + p/2r) old lines, i.e. at the centre of the
// k-th of r divisions of p/r old lines. Throws if added < 0 or old_count < 1.
std::vector<int> local1_positions(int old_count, int added);
std::vector<int> local2_positions(int old_count, int added);

// Global remapping (§4.2): ids 0..rows*cols-1 row-major; the old arrangement is ignored.
Placement place_global(Topology new_grid);

// Local remapping (§4.3, §4.5): the old grid's relative arrangement is kept and
// add_rows/add_cols new lines are inserted by the Local1 or Local2 rule. New processes get
// ids first_new_id, first_new_id+1, ... in row-major order of their slots. first_new_id
// < 0 means old.max_id()+1.
Placement place_local(const Placement& old, int add_rows, int add_cols,
                      PlacementStrategy rule = PlacementStrategy::Local2, int first_new_id = -1);

// The matrices gridmap plans for are redist's records (redist/matrix.hpp): its shape and
// its distribution, ScaLAPACK block-cyclic (mb x nb) or the block distribution of §4.5
// (Distribution::Block: one balanced block per process row/column, sizes differing by at
// most one, as the thesis models it); its name and element type are not read here.
// Throws gridmap::Error naming the field unless the matrix can be planned: m, n >= 1,
// blocks >= 1 (block-cyclic), m x n within a 64-bit count, at most 2^26 blocks a dimension
// and not an extended-descriptor matrix (its block sizes are the application's).
void check_matrix(const redist::MatrixSpec& shape);

// The redist layout of `shape` on placement.grid with ranks = placement.slots.
redist::Layout layout_for(const Placement& placement, const redist::MatrixSpec& shape);

// Overlap of two layouts: w[s][k] = elements of the matrix that `before`'s process
// candidates[k] holds and that `after`'s grid slot s (row-major) owns. Uses the product
// structure of 2-D layouts: overlap = (rows in common) x (columns in common).
std::vector<std::vector<std::int64_t>> overlap_matrix(const redist::Layout& before,
                                                      const redist::Layout& after,
                                                      const std::vector<int>& candidates);

// Optimal placement (beyond the thesis): assign `candidates` (old and new ids; at least as
// many as slots) to the slots of `after`'s grid so that the data staying in place is
// maximal - a linear assignment on overlap_matrix solved by the Hungarian algorithm.
// Never keeps less than Local2 or Global, since both are feasible assignments.
// Candidates left over (shrink) are the processes that leave.
Placement place_optimal(const redist::Layout& before, const redist::Layout& after,
                        const std::vector<int>& candidates);

// Convenience over the above for an expansion: old placement + `added` new processes
// (ids old.max_id()+1...), new grid, and the matrix shape.
Placement place_optimal(const Placement& old, Topology new_grid, int added,
                        const redist::MatrixSpec& shape);

// ---- shrinking (§3.3.5, §5 introduction) ----

struct ShrinkPlan {
  Placement from, to;
  std::vector<int> leaving;     // ids that leave (sorted)
  int remove_rows = 0, remove_cols = 0;
  std::string reason;
};

enum class ShrinkRule {
  InverseLocal2,  // remove the lines Local2 would have inserted growing back (default)
  InverseLocal1,  // remove the last lines
  Optimal         // keep the processes and slots that maximise data in place
};
std::string to_string(ShrinkRule r);
ShrinkRule parse_shrink_rule(const std::string& text);

// "Give back k processes": remove x rows and y columns with rc - (r-x)(c-y) >= k and as
// few extra as possible (the application may release more than asked, §5), under the
// aspect constraints. The shape is needed only by ShrinkRule::Optimal.
// Throws gridmap::Error if k < 1, k >= current size, or no admissible shrink exists.
ShrinkPlan plan_shrink(const Placement& current, int give_back,
                       AspectRatio aspect = AspectRatio::any(),
                       AspectScope scope = AspectScope::FinalGrid,
                       ShrinkRule rule = ShrinkRule::InverseLocal2,
                       const redist::MatrixSpec* shape = nullptr);

// "Go back to stack level L" (blacs-dyn's communicator stack, §3.3.5): levels[0] is the
// initial placement, levels.back() the current one; the processes not present at level L
// leave and the survivors return to their level-L slots.
ShrinkPlan plan_shrink_to_level(const std::vector<Placement>& levels, std::size_t level);

// Successive expansions from `initial` to each grid in `grids` with the given strategy;
// the stack plan_shrink_to_level works on. Throws if a step is not a local expansion
// (fewer rows/columns) for Local1/Local2.
std::vector<Placement> expansion_stack(const Placement& initial, const std::vector<Topology>& grids,
                                       PlacementStrategy strategy, const redist::MatrixSpec* shape = nullptr);

}  // namespace gridmap
