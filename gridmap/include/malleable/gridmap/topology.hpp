// SPDX-License-Identifier: BSD-3-Clause
// Process-grid shapes: topology selection for P processes and the local
// expansion optimiser (§5.2.1.2). Pure functions, no MPI.
#pragma once

#include <compare>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace gridmap {

// A process grid of `rows` x `cols` (BLACS nprow x npcol). The thesis writes p x q.
struct Topology {
  int rows = 1, cols = 1;
  int size() const { return rows * cols; }
  auto operator<=>(const Topology&) const = default;
};

std::string to_string(Topology t);          // "4x7"
Topology parse_topology(const std::string& text);  // "4x7" or "4,7"; throws gridmap::Error

// The aspect-ratio constraints of §5.1.1 on a grid of r rows and c columns:
//   c <= p * r   and   r <= q * c.
// Square: p = q = 1. Near square with threshold t: p = q = t. The thesis's "1:t" grid:
// p = 1/t, q = t (so r = t*c). p*q must be >= 1, otherwise no grid satisfies both.
struct AspectRatio {
  double p = std::numeric_limits<double>::infinity();
  double q = std::numeric_limits<double>::infinity();

  static AspectRatio any() { return {}; }
  static AspectRatio square() { return {1.0, 1.0}; }
  static AspectRatio near_square(double t) { return {t, t}; }
  static AspectRatio one_to(double t) { return {1.0 / t, t}; }

  void validate() const;  // p, q > 0 and p*q >= 1; throws gridmap::Error naming the value
  bool admits(Topology t) const;
  bool admits_increment(int add_rows, int add_cols) const;  // y <= p*x, x <= q*y
};

// Measured seconds per iteration for topologies the application ran on before (the
// scheduler's history, §5.1.1: "they can be determined from the history of the application
// maintained by the scheduler").
using TopologyHistory = std::map<Topology, double>;

struct TopologyChoice {
  Topology grid;
  bool from_history = false;  // chosen by measured time rather than by size
  std::string reason;
};

// Topology selection for P processes (§5.1.1). Without history: the admissible grid
// using the most processes (r*c <= P); ties go to the lower aspect ratio, then to the
// horizontally dominant grid (more columns), which PDGETRF and PDGEMM preferred in
// Tables 5.1 and 5.2. With history: the admissible measured grid with the shortest
// iteration time; unmeasured grids are only used when no measured grid is admissible.
// Throws gridmap::Error if P < 1, the constraints are invalid, or no grid is admissible.
TopologyChoice choose_topology(int processes, AspectRatio aspect = AspectRatio::any(),
                               const TopologyHistory* history = nullptr);

// How the aspect constraints of the local optimiser apply. The thesis writes them on the
// increment (y <= p*x, x <= q*y, §5.2.1.2); applying them to the final grid instead
// (c+y <= p*(r+x), r+x <= q*(c+y)) allows adding a single row or column.
enum class AspectScope { Increment, FinalGrid };

struct LocalExpansion {
  bool possible = false;
  int add_rows = 0, add_cols = 0;  // x, y
  int used = 0;                    // c*x + r*y + x*y processes taken from the offer
  Topology grid;                   // (r+x) x (c+y), or the current grid if impossible
  int smallest_step = 0;           // processes the cheapest admissible local step needs
  Topology global_grid;            // Global remapping using every process (§5.4 end)
  Topology global_constrained;     // Global remapping under the same aspect constraints
  std::string reason;
};

// Local expansion optimiser (§5.2.1.2): maximise the new processes (r+x)(c+y) - rc =
// c*x + r*y + x*y <= offered under the aspect constraints (the thesis's rx + cy + xy is the
// same for its square grids). When no local step fits (5x5 + 3) it says so and what Global would
// do (4x7 for 5x5 + 3). Throws gridmap::Error for a bad grid, offered < 0 or bad aspect.
LocalExpansion plan_local_expansion(Topology current, int offered,
                                    AspectRatio aspect = AspectRatio::square(),
                                    AspectScope scope = AspectScope::Increment);

}  // namespace gridmap
