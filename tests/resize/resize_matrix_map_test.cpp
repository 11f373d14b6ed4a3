// SPDX-License-Identifier: BSD-3-Clause
// resize::IndexMap (the index maps behind Matrix<T>) against brute force: on every
// process of a grid, the global rows it owns, in increasing order, are its local rows
// 0, 1, 2, ... (ScaLAPACK's local order), for block-cyclic and extended descriptors.
#include <gtest/gtest.h>

#include <vector>

#include "malleable/resize/matrix.hpp"

using resize::IndexMap;

namespace {

// Checks rows (dim 0) or columns (dim 1) of `base` on every process row/column.
void check_dimension(IndexMap base, int dim) {
  const int total = dim == 0 ? base.m : base.n;
  const int procs = dim == 0 ? base.nprow : base.npcol;
  long long held = 0;
  for (int p = 0; p < procs; ++p) {
    IndexMap mp = base;
    mp.myrow = dim == 0 ? p : 0;
    mp.mycol = dim == 0 ? 0 : p;
    int next_local = 0;
    for (int g = 0; g < total; ++g) {
      const int owner = dim == 0 ? mp.row_owner(g) : mp.col_owner(g);
      ASSERT_GE(owner, 0);
      ASSERT_LT(owner, procs);
      if (owner != p) continue;
      const int l = dim == 0 ? mp.local_row(g) : mp.local_col(g);
      EXPECT_EQ(l, next_local) << "dimension " << dim << " process " << p << " global " << g;
      EXPECT_EQ(dim == 0 ? mp.global_row(l) : mp.global_col(l), g);
      ++next_local;
    }
    EXPECT_EQ(dim == 0 ? mp.local_rows() : mp.local_cols(), next_local) << "process " << p;
    held += next_local;
  }
  EXPECT_EQ(held, total);
}

IndexMap cyclic(int m, int n, int mb, int nb, int nprow, int npcol) {
  IndexMap mp;
  mp.m = m;
  mp.n = n;
  mp.mb = mb;
  mp.nb = nb;
  mp.nprow = nprow;
  mp.npcol = npcol;
  return mp;
}

}  // namespace

TEST(IndexMap, BlockCyclicMatchesScalapackOrderForShapesAndGrids) {
  for (int m : {0, 1, 7, 37, 64, 100})
    for (int mb : {1, 3, 16, 200})
      for (int p : {1, 2, 3, 5}) {
        SCOPED_TRACE("m " + std::to_string(m) + " mb " + std::to_string(mb) + " p " + std::to_string(p));
        check_dimension(cyclic(m, m + 3, mb, mb + 1, p, p + 1), 0);
        check_dimension(cyclic(m, m + 3, mb, mb + 1, p, p + 1), 1);
      }
}

TEST(IndexMap, ExtendedDescriptorUnevenAndEmptyBlocks) {
  IndexMap mp;
  mp.m = 10;
  mp.n = 9;
  mp.nprow = 3;
  mp.npcol = 4;
  mp.rows_start = {0, 2, 2, 10};       // blocks 2, 0, 8: an empty process row
  mp.cols_start = {0, 1, 3, 6, 9};     // blocks 1, 2, 3, 3
  check_dimension(mp, 0);
  check_dimension(mp, 1);
  mp.myrow = 2;
  mp.mycol = 1;
  EXPECT_EQ(mp.local_rows(), 8);
  EXPECT_EQ(mp.local_cols(), 2);
  EXPECT_TRUE(mp.owns(2, 1));
  EXPECT_FALSE(mp.owns(1, 1));
  EXPECT_EQ(mp.row_owner(2), 2);  // not the empty row 1
}

TEST(IndexMap, OffTheGridOwnsNothing) {
  IndexMap mp = cyclic(10, 10, 2, 2, 2, 2);
  EXPECT_EQ(mp.local_rows(), 0);
  EXPECT_EQ(mp.local_cols(), 0);
  EXPECT_FALSE(mp.owns(0, 0));
  mp.myrow = mp.mycol = 0;
  EXPECT_TRUE(mp.owns(0, 0));
  EXPECT_FALSE(mp.owns(-1, 0));
  EXPECT_FALSE(mp.owns(0, 10));
}
