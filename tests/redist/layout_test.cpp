// SPDX-License-Identifier: BSD-3-Clause
// Layout: generalised numroc and index maps against ScaLAPACK's own TOOLS (uniform case)
// and against an element-by-element oracle (heterogeneous case); validation messages.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <random>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/scalapack_api.h"

using redist::Layout;

namespace {

// Oracle: deal the blocks out one element at a time.
struct Dealt {
  std::vector<int> owner;
  std::vector<std::int64_t> local;
  std::vector<std::int64_t> count;
};
Dealt deal(const std::vector<std::int64_t>& blocks, int np, int src) {
  Dealt d;
  d.count.assign(static_cast<std::size_t>(np), 0);
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const int p = static_cast<int>((src + k) % static_cast<std::size_t>(np));
    for (std::int64_t t = 0; t < blocks[k]; ++t) {
      d.owner.push_back(p);
      d.local.push_back(d.count[static_cast<std::size_t>(p)]++);
    }
  }
  return d;
}

std::vector<std::int64_t> random_blocks(std::mt19937& rng, int nblocks, int maxsize) {
  std::uniform_int_distribution<int> size(1, maxsize);
  std::vector<std::int64_t> b(static_cast<std::size_t>(nblocks));
  for (auto& x : b) x = size(rng);
  return b;
}

void expect_maps_match_oracle(const Layout& l) {
  const Dealt r = deal(l.row_blocks.to_vector(), l.nprow, l.rsrc), c = deal(l.col_blocks.to_vector(), l.npcol, l.csrc);
  for (int p = 0; p < l.nprow; ++p) EXPECT_EQ(l.local_rows(p), r.count[static_cast<std::size_t>(p)]) << "pr=" << p;
  for (int p = 0; p < l.npcol; ++p) EXPECT_EQ(l.local_cols(p), c.count[static_cast<std::size_t>(p)]) << "pc=" << p;
  for (std::int64_t i = 0; i < l.m; ++i) {
    ASSERT_EQ(l.row_owner(i), r.owner[static_cast<std::size_t>(i)]) << "row " << i;
    ASSERT_EQ(l.row_to_local(i), r.local[static_cast<std::size_t>(i)]) << "row " << i;
    ASSERT_EQ(l.local_to_row(l.row_owner(i), l.row_to_local(i)), i);
  }
  for (std::int64_t j = 0; j < l.n; ++j) {
    ASSERT_EQ(l.col_owner(j), c.owner[static_cast<std::size_t>(j)]) << "col " << j;
    ASSERT_EQ(l.col_to_local(j), c.local[static_cast<std::size_t>(j)]) << "col " << j;
    ASSERT_EQ(l.local_to_col(l.col_owner(j), l.col_to_local(j)), j);
  }
}

}  // namespace

TEST(Layout, BlockCyclicMatchesScaLAPACKTools) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int m = std::uniform_int_distribution<int>(0, 300)(rng);
    const int mb = std::uniform_int_distribution<int>(1, 40)(rng);
    const int np = std::uniform_int_distribution<int>(1, 7)(rng);
    const int src = std::uniform_int_distribution<int>(0, np - 1)(rng);
    const Layout l = Layout::block_cyclic(m, 5, mb, 5, np, 1, src, 0);
    for (int p = 0; p < np; ++p) ASSERT_EQ(l.local_rows(p), numroc_(&m, &mb, &p, &src, &np));
    for (int i = 0; i < m; ++i) {
      const int ig = i + 1;  // ScaLAPACK indices are 1-based
      ASSERT_EQ(l.row_owner(i), indxg2p_(&ig, &mb, &np, &src, &np));
      ASSERT_EQ(l.row_to_local(i) + 1, indxg2l_(&ig, &mb, &np, &src, &np));
      const int il = static_cast<int>(l.row_to_local(i)) + 1;
      const int p = l.row_owner(i);
      ASSERT_EQ(l.local_to_row(p, il - 1) + 1, indxl2g_(&il, &mb, &p, &src, &np));
    }
  }
}

TEST(Layout, HeterogeneousMapsMatchElementOracle) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    const int pr = std::uniform_int_distribution<int>(1, 5)(rng);
    const int pc = std::uniform_int_distribution<int>(1, 5)(rng);
    auto rb = random_blocks(rng, std::uniform_int_distribution<int>(0, 12)(rng), 17);
    auto cb = random_blocks(rng, std::uniform_int_distribution<int>(0, 12)(rng), 17);
    const Layout l = Layout::from_blocks(rb, cb, pr, pc, std::uniform_int_distribution<int>(0, pr - 1)(rng),
                                         std::uniform_int_distribution<int>(0, pc - 1)(rng));
    expect_maps_match_oracle(l);
    // The Axis form gives the same answers as the scalar members.
    const auto ax = l.row_axis();
    for (std::int64_t i = 0; i < l.m; ++i) ASSERT_EQ(ax.to_local(i), l.row_to_local(i));
  }
}

TEST(Layout, UniformClosedFormMatchesOracleWithShortLastBlock) {
  expect_maps_match_oracle(Layout::block_cyclic(103, 61, 8, 5, 3, 4, 2, 3));
  expect_maps_match_oracle(Layout::block_cyclic(7, 9, 10, 10, 4, 2, 3, 1));  // fewer blocks than procs
}

TEST(Layout, DescRoundTripForUniformLayouts) {
  const int desc[9] = {1, 42, 100, 90, 16, 8, 1, 2, 40};
  const Layout l = Layout::from_desc(desc, 2, 3);
  EXPECT_EQ(l.m, 100);
  EXPECT_EQ(l.row_blocks.size(), 7u);
  EXPECT_EQ(l.row_blocks.back(), 4);
  EXPECT_TRUE(l.uniform());
  const auto back = l.to_desc(42, 40);
  for (int k = 0; k < 9; ++k) EXPECT_EQ(back[static_cast<std::size_t>(k)], desc[k]) << k;
}

TEST(Layout, NonUniformLayoutRefusesToBecomeDesc) {
  const Layout l = Layout::from_blocks({3, 5, 2}, {4}, 2, 1);
  EXPECT_FALSE(l.uniform());
  EXPECT_THROW((void)l.to_desc(0, 10), redist::Error);
}

TEST(Layout, ShortLastBlockIsStillUniformButLongerIsNot) {
  EXPECT_TRUE(Layout::from_blocks({4, 4, 3}, {2}, 2, 1).uniform());
  EXPECT_FALSE(Layout::from_blocks({4, 4, 5}, {2}, 2, 1).uniform());
}

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const redist::Error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(Layout, ValidationNamesFieldAndValue) {
  EXPECT_NE(error_of([] { Layout::from_blocks({3, 0, 2}, {1}, 1, 1); }).find("row_blocks[1] = 0"), std::string::npos);
  EXPECT_NE(error_of([] { Layout::from_blocks({3}, {-2, 4}, 1, 1); }).find("col_blocks[0] = -2"), std::string::npos);
  EXPECT_NE(error_of([] { Layout::block_cyclic(10, 10, 0, 2, 1, 1); }).find("mb = 0"), std::string::npos);
  EXPECT_NE(error_of([] { Layout::block_cyclic(10, 10, 2, 2, 2, 2, 2, 0); }).find("rsrc = 2"), std::string::npos);
  EXPECT_NE(error_of([] { Layout::block_cyclic(10, 10, 2, 2, 0, 2); }).find("nprow = 0"), std::string::npos);
  EXPECT_NE(error_of([] { Layout::block_cyclic(10, 10, 2, 2, 1, 2, 0, 0, {3, 3}); }).find("rank 3 twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { Layout::block_cyclic(10, 10, 2, 2, 1, 2, 0, 0, {3}); }).find("ranks has 1"),
            std::string::npos);
  Layout l = Layout::block_cyclic(10, 10, 2, 2, 1, 1);
  l.m = 11;  // sizes no longer sum to m
  EXPECT_NE(error_of([&] { l.validate(); }).find("row_blocks sum to 10 but m = 11"), std::string::npos);
  EXPECT_NE(error_of([] { Layout::block_cyclic(10, 10, 2, 2, 1, 1).row_owner(10); }).find("row = 10"),
            std::string::npos);
}

TEST(Layout, ProportionalBlocksSumAndFollowWeights) {
  const auto b = redist::proportional_blocks(1000, {1.0, 2.0, 1.0});
  EXPECT_EQ(std::accumulate(b.begin(), b.end(), std::int64_t{0}), 1000);
  EXPECT_NEAR(static_cast<double>(b[1]), 500.0, 1.0);
  const auto tiny = redist::proportional_blocks(3, {100.0, 1.0, 1.0});
  EXPECT_EQ(tiny, (std::vector<std::int64_t>{1, 1, 1}));  // no empty block
  EXPECT_THROW(redist::proportional_blocks(2, {1.0, 1.0, 1.0}), redist::Error);
  EXPECT_THROW(redist::proportional_blocks(10, {1.0, 0.0}), redist::Error);
}
