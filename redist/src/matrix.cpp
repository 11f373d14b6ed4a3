// SPDX-License-Identifier: BSD-3-Clause
// A matrix's layout on a grid from its record (matrix.hpp). Pure: no MPI.
#include "malleable/redist/matrix.hpp"

#include <string>

namespace redist {

Layout MatrixSpec::layout_on(int nprow, int npcol, const std::vector<int>& ranks) const {
  if (!extended())
    return Layout::block_cyclic(m, n, row_block_on(nprow), col_block_on(npcol), nprow, npcol, 0, 0, RankMap(ranks));
  if (!sizes)
    throw Error(ErrorCode::InvalidLayout, "matrix '" + name + "': an extended-descriptor matrix without its block sizes");
  std::vector<long long> rows, cols;
  sizes(nprow, npcol, ranks, rows, cols);
  Layout l = Layout::from_blocks(std::vector<std::int64_t>(rows.begin(), rows.end()),
                                 std::vector<std::int64_t>(cols.begin(), cols.end()), nprow, npcol, 0, 0, RankMap(ranks));
  if (l.m != m || l.n != n)
    throw Error(ErrorCode::InvalidLayout, "matrix '" + name + "' (" + std::to_string(m) + " x " + std::to_string(n) +
                                              "): its block sizes on a " + std::to_string(nprow) + "x" +
                                              std::to_string(npcol) + " grid add up to " + std::to_string(l.m) + " x " +
                                              std::to_string(l.n));
  return l;
}

}  // namespace redist
