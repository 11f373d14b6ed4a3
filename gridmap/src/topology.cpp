// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/gridmap/topology.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/limits.hpp"

namespace gridmap {

namespace {

constexpr double kSlack = 1e-9;  // ratios such as 1/3 must admit 3:1 grids exactly

// Lower is better: |log(r/c)|, so 2x6 and 6x2 tie before the horizontal preference.
double aspect_penalty(Topology t) {
  return std::fabs(std::log(static_cast<double>(t.rows) / t.cols));
}

// Orders candidates of equal size: squarer first, then more columns (§5.1.2).
bool better_shape(Topology a, Topology b) {
  const double pa = aspect_penalty(a), pb = aspect_penalty(b);
  if (std::fabs(pa - pb) > 1e-12) return pa < pb;
  return a.cols > b.cols;
}

void check_grid(const char* name, Topology t) { check_grid_size(name, t.rows, t.cols); }

}  // namespace

void check_grid_size(const char* what, std::int64_t rows, std::int64_t cols) {
  if (rows < 1 || cols < 1) fail(what, ": grid must be at least 1x1, got ", rows, "x", cols);
  if (rows > kMaxProcesses || cols > kMaxProcesses || rows * cols > kMaxProcesses)
    fail(what, ": a ", rows, "x", cols, " grid has ", rows * cols, " processes, more than the limit of ",
         kMaxProcesses);
}

std::string to_string(Topology t) {
  return std::to_string(t.rows) + "x" + std::to_string(t.cols);
}

Topology parse_topology(const std::string& text) {
  const auto sep = text.find_first_of("xX,");
  if (sep == std::string::npos) fail("grid: expected ROWSxCOLS, got \"", text, "\"");
  const std::string r = text.substr(0, sep), c = text.substr(sep + 1);
  char* end = nullptr;
  const long rows = std::strtol(r.c_str(), &end, 10);
  if (r.empty() || *end != '\0') fail("grid: rows are not an integer in \"", text, "\"");
  const long cols = std::strtol(c.c_str(), &end, 10);
  if (c.empty() || *end != '\0') fail("grid: columns are not an integer in \"", text, "\"");
  // strtol saturates at LONG_MAX, which the size check below refuses by name.
  if (rows < 1 || cols < 1) fail("grid: rows and columns must be >= 1, got \"", text, "\"");
  check_grid_size("grid", rows, cols);
  return {static_cast<int>(rows), static_cast<int>(cols)};
}

void AspectRatio::validate() const {
  if (!(p > 0)) fail("aspect ratio: p must be > 0, got p = ", p);
  if (!(q > 0)) fail("aspect ratio: q must be > 0, got q = ", q);
  // c <= p r <= p q c needs p*q >= 1 for any grid to exist.
  if (p * q < 1.0 - kSlack)
    fail("aspect ratio: p*q must be >= 1 (c <= p*r and r <= q*c), got p = ", p, ", q = ", q);
}

bool AspectRatio::admits(Topology t) const {
  return t.cols <= p * t.rows + kSlack && t.rows <= q * t.cols + kSlack;
}

bool AspectRatio::admits_increment(int x, int y) const {
  // inf * 0 is NaN: an unbounded ratio admits adding only rows or only columns.
  return (std::isinf(p) || y <= p * x + kSlack) && (std::isinf(q) || x <= q * y + kSlack);
}

TopologyChoice choose_topology(int processes, AspectRatio aspect, const TopologyHistory* history) {
  if (processes < 1) fail("topology: number of processes P must be >= 1, got P = ", processes);
  if (processes > kMaxProcesses)
    fail("topology: number of processes P = ", processes, " is more than the limit of ", kMaxProcesses);
  aspect.validate();
  // Every entry is checked, not only those of admissible grids: a bad measurement is a
  // bad input whichever grid it is for.
  if (history)
    for (const auto& [grid, seconds] : *history) {
      check_grid("topology history", grid);
      if (!(seconds > 0) || !std::isfinite(seconds))
        fail("topology history: seconds per iteration for ", to_string(grid),
             " must be positive and finite, got ", seconds);
    }

  std::optional<Topology> best_size, best_measured;
  double best_time = 0;
  for (int r = 1; r <= processes; ++r) {
    for (int c = 1; r * c <= processes; ++c) {
      const Topology t{r, c};
      if (!aspect.admits(t)) continue;
      if (!best_size || t.size() > best_size->size() ||
          (t.size() == best_size->size() && better_shape(t, *best_size)))
        best_size = t;
      if (history) {
        const auto it = history->find(t);
        if (it == history->end()) continue;
        if (!(it->second > 0))
          fail("topology history: time for ", to_string(t), " must be > 0, got ", it->second);
        if (!best_measured || it->second < best_time) {
          best_measured = t;
          best_time = it->second;
        }
      }
    }
  }
  if (!best_size)
    fail("topology: no grid with at most P = ", processes,
         " processes satisfies c <= p*r and r <= q*c with p = ", aspect.p, ", q = ", aspect.q);

  TopologyChoice choice;
  if (best_measured) {
    choice.grid = *best_measured;
    choice.from_history = true;
    std::ostringstream why;
    why << "measured " << best_time << " s/iteration, the fastest admissible grid in the history";
    choice.reason = why.str();
  } else {
    choice.grid = *best_size;
    choice.reason = "admissible grid using the most processes, squarest, more columns on ties";
  }
  return choice;
}

namespace {

// The local steps from a grid r x c: add x rows and y columns, admissible under the
// aspect constraints (on the increment or on the new grid, `scope`), for `cost` new
// processes.
struct LocalSteps {
  int r, c;
  AspectRatio aspect;
  AspectScope scope;
  bool admissible(int x, int y) const {
    if (x == 0 && y == 0) return false;
    return scope == AspectScope::Increment ? aspect.admits_increment(x, y) : aspect.admits(Topology{r + x, c + y});
  }
  // New processes: (r+x)(c+y) - rc = c*x + r*y + x*y. §5.2.1.2 writes rx + cy + xy, which
  // agrees only for square grids (the only ones its experiments used).
  long cost(long x, long y) const { return c * x + r * y + x * y; }
};

// The admissible step that uses the most of the offer (squarest, more columns on ties)
// into `out`; out.possible stays false when none fits.
void largest_step(const LocalSteps& st, int offered, LocalExpansion& out) {
  // The cost grows with x and y, so both loops stop as soon as it exceeds the offer.
  for (int x = 0; x == 0 || st.cost(x, 0) <= offered; ++x) {
    for (int y = 0; st.cost(x, y) <= offered; ++y) {
      if (!st.admissible(x, y)) continue;
      const int used = static_cast<int>(st.cost(x, y));
      const Topology g{st.r + x, st.c + y};
      if (used > out.used || (used == out.used && out.possible && better_shape(g, out.grid))) {
        out.possible = true;
        out.add_rows = x;
        out.add_cols = y;
        out.used = used;
        out.grid = g;
      }
    }
  }
}

// The cheapest admissible step, to say how many processes a local step would need (-1:
// none). The cost grows with x and y, so a pair costing no less than the best found so far
// ends its row of the search: O(r + c) pairs for the usual square steps.
long smallest_step(const LocalSteps& st) {
  const int r = st.r, c = st.c;
  long smallest = -1;
  for (int x = 0; x <= r + c + 2 && (smallest < 0 || st.cost(x, 0) < smallest); ++x)
    for (int y = 0; y <= r + c + 2 && (smallest < 0 || st.cost(x, y) < smallest); ++y)
      if (st.admissible(x, y)) smallest = st.cost(x, y);
  return smallest;
}

// The step taken, or why none fits and what Global remapping of all `all` processes would do.
std::string expansion_reason(const LocalExpansion& out, Topology cur, int offered, long smallest, int all) {
  std::ostringstream why;
  if (out.possible) {
    why << "add " << out.add_rows << " row(s) and " << out.add_cols << " column(s): "
        << to_string(cur) << " -> " << to_string(out.grid) << " uses " << out.used << " of "
        << offered << " offered processes";
  } else {
    why << "no local expansion of " << to_string(cur) << " fits " << offered
        << " offered processes";
    if (smallest > 0) why << " (the smallest admissible step needs " << smallest << ")";
    why << "; Global remapping would use all " << all << " processes as "
        << to_string(out.global_grid);
    if (out.global_constrained != out.global_grid)
      why << " (" << to_string(out.global_constrained) << " under the aspect constraints)";
  }
  return why.str();
}

}  // namespace

LocalExpansion plan_local_expansion(Topology cur, int offered, AspectRatio aspect,
                                    AspectScope scope) {
  check_grid("local expansion", cur);
  if (offered < 0) fail("local expansion: offered processes must be >= 0, got ", offered);
  if (offered > kMaxProcesses - cur.size())
    fail("local expansion: ", offered, " offered processes on top of the current ", cur.size(),
         " are more than the limit of ", kMaxProcesses, " processes");
  aspect.validate();

  const LocalSteps st{cur.rows, cur.cols, aspect, scope};
  LocalExpansion out;
  out.grid = cur;
  largest_step(st, offered, out);
  const long smallest = smallest_step(st);
  out.smallest_step = static_cast<int>(smallest);

  const int all = cur.size() + offered;
  out.global_grid = choose_topology(all).grid;
  out.global_constrained = choose_topology(all, aspect).grid;
  out.reason = expansion_reason(out, cur, offered, smallest, all);
  return out;
}

}  // namespace gridmap
