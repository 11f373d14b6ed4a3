// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/gridmap/assignment.hpp"

#include <limits>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/limits.hpp"

namespace gridmap {

namespace {

using I = std::int64_t;
using Weights = std::vector<std::vector<I>>;
constexpr I kInf = std::numeric_limits<I>::max() / 4;

// The columns of every row, checked: rows of one length, at least as many columns as rows,
// and not so much work that it would run for minutes (O(n^2 m)).
std::size_t checked_columns(const Weights& weight) {
  const std::size_t n = weight.size(), m = weight[0].size();
  for (std::size_t i = 0; i < n; ++i)
    if (weight[i].size() != m)
      fail("assignment: row ", i, " has ", weight[i].size(), " columns, expected ", m);
  if (m < n) fail("assignment: needs rows <= columns, got ", n, " rows and ", m, " columns");
  const double work = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(m);
  if (work > kMaxAssignmentWork)
    fail("assignment: ", n, " x ", m, " needs about ", work, " steps, more than the limit of ",
         kMaxAssignmentWork);
  return m;
}

// Minimise cost = -weight. Potentials u (rows) and v (columns) keep reduced costs >= 0;
// each row is added by a shortest augmenting path (Dijkstra-like over columns).
// 1-based arrays with column 0 as the virtual start, the classic formulation.
struct Hungarian {
  const Weights& weight;
  std::size_t m;
  std::vector<I> u, v;
  std::vector<std::size_t> owner, way;  // owner[j]: row on column j; way[j]: the column before j on the path

  Hungarian(const Weights& w, std::size_t n, std::size_t cols)
      : weight(w), m(cols), u(n + 1, 0), v(m + 1, 0), owner(m + 1, 0), way(m + 1, 0) {}

  // Row i's shortest augmenting path from the virtual column 0 to a free column, the
  // potentials updated on the way; returns that free column (way[] leads back).
  std::size_t shortest_path(std::size_t i) {
    owner[0] = i;
    std::size_t j0 = 0;
    std::vector<I> minv(m + 1, kInf);
    std::vector<char> used(m + 1, 0);
    do {
      used[j0] = 1;
      const std::size_t i0 = owner[j0];
      I delta = kInf;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const I cur = -weight[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= m; ++j) {
        if (used[j]) {
          u[owner[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (owner[j0] != 0);
    return j0;
  }

  // Flips the augmenting path ending at column j0: each column on it takes the row of the
  // column before it.
  void flip(std::size_t j0) {
    do {
      const std::size_t j1 = way[j0];
      owner[j0] = owner[j1];
      j0 = j1;
    } while (j0 != 0);
  }
};

}  // namespace

std::vector<int> max_weight_assignment(const Weights& weight) {
  const std::size_t n = weight.size();
  if (n == 0) return {};
  const std::size_t m = checked_columns(weight);
  Hungarian h(weight, n, m);
  for (std::size_t i = 1; i <= n; ++i) h.flip(h.shortest_path(i));
  std::vector<int> col_of_row(n, -1);
  for (std::size_t j = 1; j <= m; ++j)
    if (h.owner[j] != 0) col_of_row[h.owner[j] - 1] = static_cast<int>(j - 1);
  return col_of_row;
}

}  // namespace gridmap
