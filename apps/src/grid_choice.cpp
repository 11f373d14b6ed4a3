// Placement of processes in a resized grid, seed 002 §4.2-4.5 and §5.2.
#include "apps/grid_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace resize {

Grid choose_topology(int procs) {
  if (procs < 1) throw Error("choose_topology: procs must be >= 1, got " + std::to_string(procs));
  int p = static_cast<int>(std::sqrt(static_cast<double>(procs)));
  while (p > 1 && procs % p != 0) --p;
  return Grid{p, procs / p, {}};
}

Grid choose_local_topology(const Grid& old, int procs) {
  Grid best{old.nprow, old.npcol, {}};
  for (int r = old.nprow; r <= procs; ++r)
    for (int c = old.npcol; r * c <= procs; ++c) {
      const int area = r * c, best_area = best.size();
      const bool squarer = std::abs(r - c) < std::abs(best.nprow - best.npcol);
      if (area > best_area || (area == best_area && squarer)) best = Grid{r, c, {}};
    }
  return best;
}

std::vector<int> inserted_positions(int p, int r, Placement pl) {
  std::vector<int> pos;
  if (r <= 0) return pos;
  if (pl == Placement::Local1 || pl == Placement::Global) {
    for (int k = 0; k < r; ++k) pos.push_back(p + k);
    return pos;
  }
  // Local2 (§4.5): the k-th new line goes after old line floor(k*p/r + p/(2r)) in its
  // division; once k new lines precede it, its index in the new order grows by k.
  // With r > p (more new than old lines) the divisions are empty and the excess goes
  // to the end.
  const int spread = std::min(r, p);
  for (int k = 0; k < spread; ++k) {
    const double before = k * static_cast<double>(p) / spread + p / (2.0 * spread);
    pos.push_back(static_cast<int>(std::floor(before + 1e-9)) + k);
  }
  for (int k = spread; k < r; ++k) pos.push_back(p + k);
  return pos;
}

namespace {
// Order of the lines of one dimension: old index, or -1 for a new line.
std::vector<int> line_order(int p, int r, Placement pl) {
  const std::vector<int> pos = inserted_positions(p, r, pl);
  std::vector<int> order(static_cast<std::size_t>(p + r), -2);
  for (int x : pos) order[static_cast<std::size_t>(x)] = -1;
  int next_old = 0;
  for (auto& o : order)
    if (o == -2) o = next_old++;
  return order;
}
}  // namespace

Grid plan_expansion(const Grid& old, int old_world, int nprow, int npcol, Placement p) {
  if (nprow < 1 || npcol < 1)
    throw Error("plan_expansion: grid " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                " is empty");
  Grid g{nprow, npcol, std::vector<int>(static_cast<std::size_t>(nprow) * npcol, -1)};
  if (p == Placement::Global) {
    for (int i = 0; i < g.size(); ++i) g.ranks[static_cast<std::size_t>(i)] = i;
    return g;
  }
  if (nprow < old.nprow || npcol < old.npcol)
    throw Error("plan_expansion: " + to_string(p) + " keeps the old " + old.shape() +
                " grid, so the new grid " + g.shape() + " cannot be smaller in a dimension");
  const Placement order_kind = (p == Placement::Optimal) ? Placement::Local2 : p;
  const auto rows = line_order(old.nprow, nprow - old.nprow, order_kind);
  const auto cols = line_order(old.npcol, npcol - old.npcol, order_kind);
  int next_new = old_world;
  for (int i = 0; i < nprow; ++i)
    for (int j = 0; j < npcol; ++j) {
      const int oi = rows[static_cast<std::size_t>(i)], oj = cols[static_cast<std::size_t>(j)];
      g.ranks[static_cast<std::size_t>(i) * npcol + j] =
          (oi >= 0 && oj >= 0) ? old.rank_at(oi, oj) : next_new++;
    }
  return g;
}

Grid plan_shrink(const Grid& old, int keep, int nprow, int npcol) {
  if (nprow * npcol != keep)
    throw Error("plan_shrink: grid " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                " does not hold the " + std::to_string(keep) + " remaining processes");
  // Rows and columns of the old grid made only of kept ranks.
  std::vector<int> keep_rows, keep_cols;
  for (int i = 0; i < old.nprow; ++i) {
    bool all = true;
    for (int j = 0; j < old.npcol; ++j) all = all && old.rank_at(i, j) < keep;
    if (all) keep_rows.push_back(i);
  }
  for (int j = 0; j < old.npcol; ++j) {
    bool all = true;
    for (int i = 0; i < old.nprow; ++i) all = all && old.rank_at(i, j) < keep;
    if (all) keep_cols.push_back(j);
  }
  Grid g{nprow, npcol, {}};
  if (static_cast<int>(keep_rows.size()) == nprow && static_cast<int>(keep_cols.size()) == npcol) {
    // Only the intersection counts: a kept rank in a dropped line would be lost.
    bool exact = true;
    for (int i = 0; i < old.nprow; ++i)
      for (int j = 0; j < old.npcol; ++j) {
        const bool in = std::count(keep_rows.begin(), keep_rows.end(), i) &&
                        std::count(keep_cols.begin(), keep_cols.end(), j);
        if (!in && old.rank_at(i, j) < keep) exact = false;
      }
    if (exact) {
      for (int i : keep_rows)
        for (int j : keep_cols) g.ranks.push_back(old.rank_at(i, j));
      return g;
    }
  }
  for (int i = 0; i < keep; ++i) g.ranks.push_back(i);
  return g;
}

}  // namespace resize
