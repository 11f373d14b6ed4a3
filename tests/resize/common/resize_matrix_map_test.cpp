// SPDX-License-Identifier: BSD-3-Clause
// resize::IndexMap (the index maps behind Matrix<T>, over a redist::Layout) against brute
// force and against redist::Layout's own scalar maps: on every process of a grid, the
// global rows it owns, in increasing order, are its local rows 0, 1, 2, ... (ScaLAPACK's
// local order), for block-cyclic layouts and per-block sizes (extended descriptors, one
// or several blocks per process); for_each_local visits exactly those elements in the
// buffer's order; and detail::CachedMap (the handle's cache) rebuilds the map exactly
// when its key changes and then answers like a map built afresh.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "malleable/resize/matrix.hpp"
#include "session/cached_map.hpp"

using resize::IndexMap;

namespace {

// Rows (dim 0) or columns (dim 1) of `layout`, on every process row/column.
void check_dimension(const redist::Layout& layout, int dim) {
  const int total = static_cast<int>(dim == 0 ? layout.m : layout.n);
  const int procs = dim == 0 ? layout.nprow : layout.npcol;
  long long held = 0;
  for (int p = 0; p < procs; ++p) {
    const IndexMap mp(layout, dim == 0 ? p : 0, dim == 0 ? 0 : p);
    int next_local = 0;
    for (int g = 0; g < total; ++g) {
      const int owner = dim == 0 ? mp.row_owner(g) : mp.col_owner(g);
      ASSERT_GE(owner, 0);
      ASSERT_LT(owner, procs);
      ASSERT_EQ(owner, dim == 0 ? layout.row_owner(g) : layout.col_owner(g)) << "global " << g;
      if (owner != p) continue;
      const int l = dim == 0 ? mp.local_row(g) : mp.local_col(g);
      EXPECT_EQ(l, next_local) << "dimension " << dim << " process " << p << " global " << g;
      EXPECT_EQ(l, dim == 0 ? layout.row_to_local(g) : layout.col_to_local(g));
      EXPECT_EQ(dim == 0 ? mp.global_row(l) : mp.global_col(l), g);
      EXPECT_EQ(dim == 0 ? layout.local_to_row(p, l) : layout.local_to_col(p, l), g);
      ++next_local;
    }
    EXPECT_EQ(dim == 0 ? mp.local_rows() : mp.local_cols(), next_local) << "process " << p;
    EXPECT_EQ(dim == 0 ? layout.local_rows(p) : layout.local_cols(p), next_local) << "process " << p;
    held += next_local;
  }
  EXPECT_EQ(held, total);
}

// for_each_local on every process: each local element once, column by column, with the
// global indices the scalar maps give; all processes together cover the matrix once.
void check_walk(const redist::Layout& layout) {
  std::vector<int> seen(static_cast<std::size_t>(layout.m * layout.n), 0);
  for (int pr = 0; pr < layout.nprow; ++pr)
    for (int pc = 0; pc < layout.npcol; ++pc) {
      const IndexMap mp(layout, pr, pc);
      long long next = 0;
      mp.for_each_local([&](int il, int jl, int i, int j) {
        EXPECT_EQ(il + static_cast<long long>(jl) * mp.local_rows(), next) << "buffer order";
        ++next;
        EXPECT_EQ(mp.global_row(il), i);
        EXPECT_EQ(mp.global_col(jl), j);
        EXPECT_TRUE(mp.owns(i, j));
        ++seen[static_cast<std::size_t>(i + static_cast<long long>(j) * layout.m)];
      });
      EXPECT_EQ(next, static_cast<long long>(mp.local_rows()) * mp.local_cols());
      // find(): owns(i, j) and the local indices in one look-up, as Layout says (every
      // element on every process: the smaller shapes only, to keep the test quick).
      if (layout.m * layout.n * layout.nprow * layout.npcol > 100000) continue;
      for (int j = 0; j < layout.n; ++j)
        for (int i = 0; i < layout.m; ++i) {
          int il = -1, jl = -1;
          const bool held = mp.find(i, j, il, jl);
          ASSERT_EQ(held, mp.owns(i, j)) << i << ", " << j;
          ASSERT_EQ(held, layout.row_owner(i) == pr && layout.col_owner(j) == pc);
          if (!held) continue;
          ASSERT_EQ(il, layout.row_to_local(i));
          ASSERT_EQ(jl, layout.col_to_local(j));
        }
    }
  for (int c : seen) ASSERT_EQ(c, 1);
}

}  // namespace

TEST(IndexMap, BlockCyclicMatchesLayoutAndScalapackOrder) {
  for (int m : {0, 1, 7, 37, 64, 100})
    for (int mb : {1, 3, 16, 200})
      for (int p : {1, 2, 3, 5}) {
        SCOPED_TRACE("m " + std::to_string(m) + " mb " + std::to_string(mb) + " p " + std::to_string(p));
        const auto l = redist::Layout::block_cyclic(m, m + 3, mb, mb + 1, p, p + 1);
        check_dimension(l, 0);
        check_dimension(l, 1);
        check_walk(l);
      }
}

TEST(IndexMap, FirstBlockElsewhere) {  // rsrc, csrc != 0 (a layout redist accepts)
  const auto l = redist::Layout::block_cyclic(23, 19, 4, 3, 3, 2, 2, 1);
  check_dimension(l, 0);
  check_dimension(l, 1);
  check_walk(l);
  EXPECT_EQ(IndexMap(l, 2, 1).global_row(0), 0);
  EXPECT_EQ(IndexMap(l, 2, 1).global_col(0), 0);
}

TEST(IndexMap, ExtendedOneBlockPerProcessUneven) {
  const auto l = redist::Layout::from_blocks({2, 1, 7}, {1, 2, 3, 3}, 3, 4);
  check_dimension(l, 0);
  check_dimension(l, 1);
  check_walk(l);
  const IndexMap mp(l, 2, 1);
  EXPECT_EQ(mp.rows(), 10);
  EXPECT_EQ(mp.cols(), 9);
  EXPECT_EQ(mp.local_rows(), 7);
  EXPECT_EQ(mp.local_cols(), 2);
  EXPECT_TRUE(mp.owns(3, 1));
  EXPECT_FALSE(mp.owns(2, 1));
  EXPECT_EQ(mp.row_owner(2), 1);
  EXPECT_EQ(mp.global_row(0), 3);
  EXPECT_EQ(mp.global_col(1), 2);
}

TEST(IndexMap, ExtendedSeveralUnevenBlocksPerProcess) {  // heterogeneous block-cyclic
  const auto l = redist::Layout::from_blocks({3, 1, 4, 1, 5, 9, 2, 6}, {5, 3, 5, 8, 9}, 3, 2, 1, 0);
  check_dimension(l, 0);
  check_dimension(l, 1);
  check_walk(l);
}

TEST(IndexMap, OffTheGridOwnsNothing) {
  const auto l = redist::Layout::block_cyclic(10, 10, 2, 2, 2, 2);
  const IndexMap off(l, -1, -1);
  EXPECT_FALSE(off.in_grid());
  EXPECT_EQ(off.local_rows(), 0);
  EXPECT_EQ(off.local_cols(), 0);
  EXPECT_FALSE(off.owns(0, 0));
  int visited = 0;
  off.for_each_local([&](int, int, int, int) { ++visited; });
  EXPECT_EQ(visited, 0);
  EXPECT_FALSE(IndexMap(l, 2, 0).in_grid());  // a coordinate outside the grid
  const IndexMap on(l, 0, 0);
  EXPECT_TRUE(on.owns(0, 0));
  EXPECT_FALSE(on.owns(-1, 0));
  EXPECT_FALSE(on.owns(0, 10));
  EXPECT_FALSE(on.owns(10, 0));
  int il = -1, jl = -1;
  EXPECT_FALSE(on.find(10, 0, il, jl));
  const IndexMap row1(l, 1, 0);  // block 5 (rows 10, 11: outside) would be process row 1's
  EXPECT_FALSE(row1.owns(10, 0));
  EXPECT_FALSE(row1.find(10, 0, il, jl));
  EXPECT_FALSE(row1.owns(-1, 0));
  EXPECT_FALSE(off.find(0, 0, il, jl));
  EXPECT_THROW((void)on.local_row(10), redist::Error);  // outside the matrix: named, not UB
  const IndexMap none;  // no layout yet (before start)
  EXPECT_FALSE(none.owns(0, 0));
  EXPECT_EQ(none.rows(), 0);
}

// The handle's cache: rebuilt exactly when the key changes (grid, place, layout version),
// and what it returns is the map of the current key.
TEST(CachedMap, RebuildsOnlyWhenTheKeyChanges) {
  resize::detail::CachedMap cache;
  std::vector<std::int64_t> rows = {4, 6}, cols = {5, 5};
  const auto build_for = [&](const resize::detail::MapKey& k) {
    return [&, k] {
      if (k.blocks > 0)
        return IndexMap(redist::Layout::from_blocks(rows, cols, k.nprow, k.npcol), k.myrow, k.mycol);
      return IndexMap(redist::Layout::block_cyclic(10, 10, 3, 3, k.nprow, k.npcol), k.myrow, k.mycol);
    };
  };
  const auto expect_same = [](const IndexMap& got, const IndexMap& want) {
    ASSERT_EQ(got.layout(), want.layout());
    ASSERT_EQ(got.myrow(), want.myrow());
    ASSERT_EQ(got.mycol(), want.mycol());
    ASSERT_EQ(got.local_rows(), want.local_rows());
    ASSERT_EQ(got.local_cols(), want.local_cols());
    for (int i = 0; i < got.rows(); ++i) ASSERT_EQ(got.row_owner(i), want.row_owner(i));
  };
  resize::detail::MapKey k{2, 2, 1, 0, 0};
  expect_same(cache.get(k, build_for(k)), build_for(k)());
  EXPECT_EQ(cache.builds(), 1u);
  for (int rep = 0; rep < 5; ++rep) (void)cache.get(k, build_for(k));
  EXPECT_EQ(cache.builds(), 1u) << "the same key must not rebuild";
  resize::detail::MapKey grown{2, 3, 1, 2, 0};  // an expansion: 2x2 -> 2x3
  expect_same(cache.get(grown, build_for(grown)), build_for(grown)());
  EXPECT_EQ(cache.builds(), 2u);
  resize::detail::MapKey moved = grown;  // same grid, this process elsewhere
  moved.myrow = 0;
  expect_same(cache.get(moved, build_for(moved)), build_for(moved)());
  EXPECT_EQ(cache.builds(), 3u);
  resize::detail::MapKey ext{2, 2, 0, 1, 7};  // extended, blocks version 7
  expect_same(cache.get(ext, build_for(ext)), build_for(ext)());
  rows = {7, 3};  // the session rewrote the blocks and bumped the version
  ext.blocks = 8;
  const IndexMap& after = cache.get(ext, build_for(ext));
  EXPECT_EQ(cache.builds(), 5u);
  EXPECT_EQ(after.local_rows(), 7);
  expect_same(after, build_for(ext)());
}
