// SPDX-License-Identifier: BSD-3-Clause
// Mapped arrays, the pure part (exec/mapped_registry.hpp): the registry of address
// ranges against a brute-force list, and a transfer's span in a local array against the
// last element its walk touches; then redist_alloc/redist_free in one process.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "exec/mapped_registry.hpp"
#include "malleable/redist/mapped.hpp"
#include "malleable/redist/plan.hpp"

using redist::exec::MappedRange;
using redist::exec::MappedRegistry;

namespace {

// The range of `list` that holds all of [p, p + len), or nullptr.
const MappedRange* brute_find(const std::vector<MappedRange>& list, std::uintptr_t p, std::int64_t len) {
  for (const auto& r : list)
    if (len > 0 && p >= r.begin && p + static_cast<std::uintptr_t>(len) <= r.begin + static_cast<std::uintptr_t>(r.bytes))
      return &r;
  return nullptr;
}

bool overlaps(const std::vector<MappedRange>& list, const MappedRange& x) {
  for (const auto& r : list)
    if (x.begin < r.begin + static_cast<std::uintptr_t>(r.bytes) && r.begin < x.begin + static_cast<std::uintptr_t>(x.bytes))
      return true;
  return false;
}

}  // namespace

TEST(MappedRegistry, FindsTheRangeThatHoldsASpanAndItsOffset) {
  MappedRegistry reg;
  ASSERT_TRUE(reg.add({1000, 100, 7, 1, 128, 0}));
  ASSERT_TRUE(reg.add({2000, 64, 8, 2, 64, 0}));
  const auto at = reg.find(1010, 90);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->fd, 7);
  EXPECT_EQ(at->gen, 1);
  EXPECT_EQ(at->offset, 10);
  EXPECT_FALSE(reg.find(1010, 91).has_value());  // one byte past the range
  EXPECT_FALSE(reg.find(999, 2).has_value());    // starts before it
  EXPECT_FALSE(reg.find(1100, 1).has_value());   // between the two
  EXPECT_FALSE(reg.find(1000, 0).has_value());   // empty
  EXPECT_EQ(reg.find(2063, 1)->offset, 63);
  EXPECT_EQ(reg.size(), 2u);
  EXPECT_EQ(reg.bytes(), 164);
}

TEST(MappedRegistry, RefusesOverlapsEmptyAndWrappingRanges) {
  MappedRegistry reg;
  ASSERT_TRUE(reg.add({1000, 100, 1, 1, 100, 0}));
  EXPECT_FALSE(reg.add({1099, 10, 2, 2, 10, 0}));
  EXPECT_FALSE(reg.add({990, 11, 2, 2, 11, 0}));
  EXPECT_FALSE(reg.add({1000, 100, 2, 2, 100, 0}));
  EXPECT_TRUE(reg.add({990, 10, 2, 2, 10, 0}));  // touches, does not overlap
  EXPECT_TRUE(reg.add({1100, 1, 3, 3, 1, 0}));
  EXPECT_FALSE(reg.add({5000, 0, 4, 4, 0, 0}));
  EXPECT_FALSE(reg.add({UINTPTR_MAX - 3, 8, 4, 4, 8, 0}));
  EXPECT_EQ(reg.size(), 3u);
  EXPECT_FALSE(reg.find(995, 10).has_value());  // across two ranges: no one array holds it
}

TEST(MappedRegistry, RemoveTakesOnlyARangeByItsStart) {
  MappedRegistry reg;
  ASSERT_TRUE(reg.add({1000, 100, 1, 1, 100, 0}));
  EXPECT_FALSE(reg.remove(1001).has_value());
  EXPECT_FALSE(reg.remove(999).has_value());
  const auto r = reg.remove(1000);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->fd, 1);
  EXPECT_EQ(reg.size(), 0u);
  EXPECT_FALSE(reg.find(1000, 1).has_value());
}

TEST(MappedRegistry, RandomAddsRemovesAndLookupsMatchABruteForceList) {
  std::mt19937 rng(5);
  auto U = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  MappedRegistry reg;
  std::vector<MappedRange> list;
  for (int i = 0; i < 3000; ++i) {
    const int op = U(0, 2);
    if (op == 0) {
      const MappedRange r{static_cast<std::uintptr_t>(U(0, 5000)), U(1, 300), i, i, 0, U(0, 64)};
      const bool ok = reg.add(r);
      EXPECT_EQ(ok, !overlaps(list, r));
      if (ok) list.push_back(r);
    } else if (op == 1 && !list.empty()) {
      const auto k = static_cast<std::size_t>(U(0, static_cast<int>(list.size()) - 1));
      const auto r = reg.remove(list[k].begin + (U(0, 3) == 0 ? 1 : 0));
      if (r) {
        EXPECT_EQ(r->begin, list[k].begin);
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(k));
      }
    } else {
      const auto p = static_cast<std::uintptr_t>(U(0, 5400));
      const std::int64_t len = U(0, 200);
      const auto at = reg.find(p, len);
      const MappedRange* want = brute_find(list, p, len);
      ASSERT_EQ(at.has_value(), want != nullptr) << "p=" << p << " len=" << len;
      if (want) {
        EXPECT_EQ(at->fd, want->fd);
        EXPECT_EQ(at->offset, want->offset + static_cast<std::int64_t>(p - want->begin));
      }
    }
    ASSERT_EQ(reg.size(), list.size());
  }
}

// walk_span: one past the last element a transfer's walk touches, against every element
// of every transfer of random block-cyclic plans walked one by one.
TEST(MappedRegistry, WalkSpanIsOnePastTheLastElementTouched) {
  std::mt19937 rng(11);
  auto U = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int c = 0; c < 60; ++c) {
    const int m = U(1, 60), n = U(1, 60), pr = U(1, 3), pc = U(1, 3);
    const auto la = redist::Layout::block_cyclic(m, n, U(1, 7), U(1, 7), pr, pc);
    const auto lb = redist::Layout::block_cyclic(m, n, U(1, 7), U(1, 7), U(1, 3), U(1, 3));
    const auto plan = redist::make_plan(la, lb, redist::Region{m, n, 0, 0, 0, 0}, std::max(pr * pc, lb.nprow * lb.npcol));
    const redist::exec::Side sa{la.row_axis(), la.col_axis(), 0, 0, 0, false};
    for (const auto& t : plan.transfers) {
      redist::exec::Side s = sa;
      s.ld = la.min_lld(la.row_owner(t.rows.front().start)) + U(0, 3);
      const redist::exec::Walk w(s, t);
      std::int64_t last = -1;
      redist::exec::ColCursor cur(w);
      for (std::int64_t o = 0; o < w.ncols;) {
        const auto [col, left] = cur.at();
        for (const auto& r : w.rows)
          for (std::int64_t p = 0; p < r.count; ++p)
            last = std::max(last, (col + left - 1) * s.ld + r.start + p * r.stride + r.len - 1);
        cur.next(left);
        o += left;
      }
      EXPECT_EQ(redist::exec::walk_span(w, s.ld), last + 1);
    }
  }
}

TEST(MappedArrays, AllocatedArraysAreRegisteredZeroedAndFreed) {
  void* p = redist_alloc(1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(redist_is_mapped(p, 1000), 1);
  EXPECT_EQ(redist_is_mapped(static_cast<char*>(p) + 999, 1), 1);
  EXPECT_EQ(redist_is_mapped(static_cast<char*>(p) + 1, 1024), 0);  // past the rounded size
  std::vector<char> zero(1000, 0);
  EXPECT_EQ(std::memcmp(p, zero.data(), 1000), 0);
  std::memset(p, 7, 1000);
  redist_free(p);
  EXPECT_EQ(redist_is_mapped(p, 1), 0);
  redist_free(nullptr);
  int on_heap = 0;
  EXPECT_EQ(redist_is_mapped(&on_heap, sizeof on_heap), 0);
  redist::MappedArray<double> a(4096), b;
  EXPECT_TRUE(a.shareable());
  a[4095] = 1.5;
  b = std::move(a);
  EXPECT_EQ(b[4095], 1.5);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_FALSE(a.shareable());
}
