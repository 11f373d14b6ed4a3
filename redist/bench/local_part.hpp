// SPDX-License-Identifier: BSD-3-Clause
// A process's part of a double matrix laid out by a redist::Layout, column-major with
// leading dimension max(1, local rows), for the benchmarks: filled from a function of the
// global indices, or -1 (a target), and checked against that function afterwards.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "malleable/redist/layout.hpp"

namespace redist::bench {

struct LocalPart {
  std::vector<double> data;
  std::int64_t ld = 1, rows = 0, cols = 0;
  bool in = false;  // this process holds a part
  double* ptr() { return in ? data.data() : nullptr; }
  const double* ptr() const { return in ? data.data() : nullptr; }
};

// This process's part sized (at least one element), every element `init`; empty off the grid.
inline LocalPart sized_part(const redist::Layout& l, int rank, double init) {
  LocalPart x;
  int pr = 0, pc = 0;
  if (!l.coords_of(rank, pr, pc)) return x;
  x.in = true;
  x.rows = l.local_rows(pr);
  x.cols = l.local_cols(pc);
  x.ld = std::max<std::int64_t>(1, x.rows);
  x.data.assign(static_cast<std::size_t>(x.ld * std::max<std::int64_t>(1, x.cols)), init);
  return x;
}

// `value(i, j)` of global element (i, j) in every local element, or -1 everywhere when
// `fill` is false.
template <class F>
LocalPart local_part(const redist::Layout& l, int rank, bool fill, F&& value) {
  LocalPart x = sized_part(l, rank, -1.0);
  if (!fill || !x.in) return x;
  int pr = 0, pc = 0;
  l.coords_of(rank, pr, pc);
  const auto ra = l.row_axis(), ca = l.col_axis();
  for (std::int64_t j = 0; j < x.cols; ++j)
    for (std::int64_t i = 0; i < x.rows; ++i) x.data[static_cast<std::size_t>(j * x.ld + i)] = value(ra.to_global(pr, i), ca.to_global(pc, j));
  return x;
}

// How many local elements differ from `value` of their global indices.
template <class F>
std::int64_t wrong_elements(const redist::Layout& l, int rank, const LocalPart& x, F&& value) {
  if (!x.in) return 0;
  int pr = 0, pc = 0;
  l.coords_of(rank, pr, pc);
  const auto ra = l.row_axis(), ca = l.col_axis();
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < x.cols; ++j)
    for (std::int64_t i = 0; i < x.rows; ++i)
      bad += x.data[static_cast<std::size_t>(j * x.ld + i)] != value(ra.to_global(pr, i), ca.to_global(pc, j));
  return bad;
}

}  // namespace redist::bench
