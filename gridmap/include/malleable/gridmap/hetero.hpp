// SPDX-License-Identifier: BSD-3-Clause
// Heterogeneous mapping: arrange processors of unequal power on a
// p x q grid and size the data rows r_i and columns c_j so that r_i * t_ij * c_j <= 1
// keeps every processor busy; the objective (Beaumont et al., Obj2) is the throughput
// (sum_i r_i)(sum_j c_j). Pure, no MPI; LAPACKE's dgesvd gives the rank-1 approximation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "malleable/gridmap/topology.hpp"

namespace redist {
struct Layout;
}

namespace gridmap {

// Processing powers (work per unit time; the cycle time is 1/power), indexed by process
// id. validate() rejects empty lists, zero, negative and non-finite powers by index/value.
struct ProcessorPowers {
  std::vector<double> values;
  void validate(const char* what = "powers") const;
  std::size_t size() const { return values.size(); }
};

ProcessorPowers parse_powers(const std::string& text);  // "313,279,34,25"

enum class HeteroMethod {
  Svd,          // Beaumont et al. rank-1 SVD heuristic (§3.5.1, §6.2.1)
  NaturalBlock  // natural block decomposition, sizes from row/column sums (§3.5.2)
};
std::string to_string(HeteroMethod m);

// How the SVD method turns the rank-1 approximation s a b^T into column sizes (§6.2.1.2).
enum class SvdColumns {
  RankOne,  // c_j = b_j, the right singular vector, as §6.2.1.2 writes it
  // c_j = min_i PP_ij / r_i with r_i = s a_i: the widest columns that keep every
  // r_i t_ij c_j <= 1 (each column then has a processor with U = 1). The thesis's published
  // sizes are these, not b (Tables 6.4, 6.8 and 6.15 within 2 rows/columns; b gives 1058/942
  // columns for Table 6.4, the thesis 1115/885), and its T_opt refinement follows them
  // (they turn Table 6.8's sorted start into the published arrangement).
  Feasible
};

struct HeteroOptions {
  HeteroMethod method = HeteroMethod::Svd;
  SvdColumns svd_columns = SvdColumns::RankOne;
  // §6.2.1.3: rearrange processors by T_opt and recompute until the arrangement repeats.
  bool refine_arrangement = true;
  // Beyond the thesis: exact coordinate ascent on Obj2 from the method's r, c (never
  // lowers the throughput; see docs/reference/gridmap.md).
  bool coordinate_ascent = true;
  // Beyond the thesis: after the refinement, swap pairs of processors while that shortens
  // the iteration (passes over all O(P^2) pairs, at most min(max_iterations, 8) passes).
  bool swap_search = true;
  int max_iterations = 64;
  // Slots (row-major) whose processor may not move during refinement (Local remapping,
  // §6.3.1.2: "only the new processors are interchanged"). Empty: all may move.
  std::vector<char> fixed;

  // The heuristic as the thesis ran it (§6.2.1, reconstructed from Tables 6.4, 6.8, 6.15):
  // rank-1 rows, feasible columns, the T_opt refinement; no ascent, no swap search.
  static HeteroOptions thesis();
};

struct HeteroMapping {
  Topology grid;
  std::vector<int> ids;         // slot (row-major) -> process id (index into the powers)
  std::vector<double> power;    // slot -> that processor's power
  std::vector<double> r, c;     // real data rows/columns per grid row/column, sums m and n
  std::vector<std::int64_t> rows, cols;  // integer sizes, sums exactly m and n
  std::int64_t m = 0, n = 0;
  int iterations = 0;           // refinement rounds run

  double power_at(int i, int j) const { return power[static_cast<std::size_t>(i) * grid.cols + j]; }
  // The thesis's T_Th without its machine factor: max_ij rows_i * cols_j / power_ij, the
  // time of one O(n) sweep (§6.4.2). Table values are 0.096 * this, in ms.
  double iteration_time() const;
  // Obj2 for the real sizes: (sum r)(sum c) / max_ij(r_i c_j / power_ij) = m n / time.
  double throughput() const;
  // U_ij = (rows_i cols_j / power_ij) / iteration_time(): 1 for the bottleneck processors.
  std::vector<double> utilisation() const;
  // T_opt_ij: the power that would process rows_i x cols_j in iteration_time(), in the
  // thesis's units (Tables 6.5, 6.9, 6.12).
  std::vector<double> t_opt() const;
  double total_power() const;
};

// Maps the given processors onto `grid` (p*q must equal powers.size()). Throws
// gridmap::Error on bad powers, a size mismatch, or m, n < 1.
HeteroMapping map_heterogeneous(const ProcessorPowers& powers, Topology grid, std::int64_t m,
                                std::int64_t n, const HeteroOptions& options = {});

// Sizes only, for a fixed arrangement: ids[slot] is the process placed there.
HeteroMapping map_arranged(const ProcessorPowers& powers, Topology grid, const std::vector<int>& ids,
                           std::int64_t m, std::int64_t n, const HeteroOptions& options = {});

// Topology search (§6): every p x q with p*q = P admitted by `aspect`, best throughput;
// ties go to the squarer grid. Throws if no factorisation is admitted.
HeteroMapping search_topology(const ProcessorPowers& powers, std::int64_t m, std::int64_t n,
                              AspectRatio aspect = AspectRatio::any(), const HeteroOptions& options = {});

// The squarest p x q with p*q = P admitted by `aspect` (ties: more columns); 1 x P for a
// prime P. Throws if none is admitted.
Topology squarest_factorization(int processes, AspectRatio aspect = AspectRatio::any());

// Exact coordinate ascent on Obj2 for a fixed arrangement (beyond the thesis): with c fixed
// the best r is r_i = min_j s_ij / c_j, and along one c_j the objective is piecewise convex,
// so its maximum lies on a breakpoint; sweeping the columns never lowers (sum r)(sum c).
// s is the p x q power matrix row-major; c is updated, r returned.
std::vector<double> ascend_obj2(const std::vector<double>& s, Topology grid, std::vector<double>& c);

// Integer sizes summing exactly to `total`, proportional to `weights` (largest remainder),
// each >= 1 because redist rejects empty blocks; throws if total < weights.size(). The
// mapping then moves single rows/columns off the bottleneck while the time drops (with
// coordinate_ascent on), the rounding step the thesis leaves implicit.
std::vector<std::int64_t> proportional_sizes(const std::vector<double>& weights, std::int64_t total);

// Converts a mapping into redist's extended descriptor. Block: one block per process
// row/column with the mapping's sizes (§3.4.4). Block-cyclic: the matrix is cut into cycles
// of `cycle` rows (columns); each cycle is split among the process rows (columns) in
// proportion to the mapping's sizes, so the local shares match and the blocks are unequal.
redist::Layout to_layout(const HeteroMapping& mapping, const std::vector<int>& ranks = {});
redist::Layout to_layout_cyclic(const HeteroMapping& mapping, std::int64_t row_cycle,
                                std::int64_t col_cycle, const std::vector<int>& ranks = {});

}  // namespace gridmap
