// SPDX-License-Identifier: BSD-3-Clause
// Data-movement accounting for a resize: exact element counts per process from redist's
// pure plan (redist::plan_stats), not from a formula; plus the thesis's closed forms
// that the exact counts are checked against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "malleable/gridmap/placement.hpp"
#include "malleable/gridmap/topology.hpp"

namespace redist {
struct Layout;
}

namespace gridmap {

struct Movement {
  std::int64_t elements_total = 0;
  std::int64_t elements_kept = 0;   // stay on the same process
  std::int64_t elements_moved = 0;  // cross processes
  std::int64_t messages = 0;        // (src, dst) pairs with data, src != dst
  std::int64_t max_sent_by_one = 0, max_recv_by_one = 0;
  std::vector<std::int64_t> sent_by_rank, recv_by_rank;  // elements, indexed by process id
  int element_bytes = 8;
  std::int64_t bytes_moved() const { return elements_moved * element_bytes; }
};

// Exact accounting of B := A between two layouts of one communicator of comm_size ranks.
Movement account(const redist::Layout& before, const redist::Layout& after, int comm_size,
                 int element_bytes = 8);
// Same for two placements of one matrix shape; comm_size = 1 + largest id of either.
Movement account(const Placement& before, const Placement& after, const redist::MatrixSpec& shape,
                 int element_bytes = 8);

// Closed forms of §4.5 for an n x n matrix in block distribution on a p x p grid when r
// process columns are added (elements moved, whole grid):
//   Local1: n (2nr - n) / 2r          Local2: n^2/4 (p + 2r)/(p + r)
// and their ratio, the entries of Table 4.1 (2.6, 3, 3.3, 2 for r = p, p/2, p/4, 1 as p
// grows). The Local2 form sums (1 + 2 + ... + p/2r) and is exact only when p/2r is an
// integer; for r = p it counts half a processor and undercuts the thesis's own lower bound
// p(x - x') = nr/(p+r) per grid row (docs/reference/gridmap.md).
double thesis_local1_moved(double n, double p, double r);
double thesis_local2_moved(double n, double p, double r);
double thesis_table41_ratio(double p, double r);
// Lower bound stated in §4.5: every old processor sheds at least x - x' = n/p - n/(p+r)
// columns, so the grid moves at least n * n r / (p + r) elements.
double thesis_lower_bound_moved(double n, double p, double r);

// An expansion decided end to end: grid (topology choice or local optimiser), placement
// and the exact data it moves.
struct ExpansionPlan {
  PlacementStrategy strategy = PlacementStrategy::Local2;
  Placement from, to;
  LocalExpansion local;  // the optimiser's answer (also filled for Global, for reference)
  Movement movement;
  int used = 0;          // new processes taken from the offer
};

// Grows `from` by up to `offered` processes. Local1/Local2/Optimal use the local optimiser
// (§5.2.1.2) and throw gridmap::Error with its explanation if no local step fits; Global
// takes choose_topology(P + offered, aspect) (§5.2.1.1).
ExpansionPlan plan_expansion(const Placement& from, int offered, PlacementStrategy strategy,
                             const redist::MatrixSpec& shape, AspectRatio aspect = AspectRatio::square(),
                             AspectScope scope = AspectScope::Increment, int element_bytes = 8);

}  // namespace gridmap
