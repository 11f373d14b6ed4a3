// SPDX-License-Identifier: BSD-3-Clause
// Implicit rank maps: a grid in BLACS row or column order from a base rank is
// two numbers, not a list of P ranks. The same placement held implicitly or as an explicit
// list gives the same look-ups, validation, equality, fingerprint and plans (every rank,
// every schedule); and one rank of a grid of millions plans in a heap far below what a
// single copy of a P-entry rank list would take. This program counts its heap
// (plan_scale_heap.cpp replaces operator new), so it is its own executable.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "malleable/redist/plan.hpp"
#include "plan_scale_heap.hpp"
#include "random_layout_parts.hpp"

using redist::Layout;
using redist::RankMap;
using redist::Region;
using redist::ScheduleKind;

namespace {

// The list an implicit map stands for, written from its definition (not via to_vector).
std::vector<int> listed(RankMap::Order order, int base, int nprow, int npcol) {
  std::vector<int> v;
  for (int pr = 0; pr < nprow; ++pr)
    for (int pc = 0; pc < npcol; ++pc) v.push_back(order == RankMap::Order::Row ? base + pr * npcol + pc : base + pc * nprow + pr);
  return v;
}

// `l` with its map replaced by `m` as given (no canonical form: the factories would turn
// a row- or column-major list back into the implicit map).
Layout with_map(Layout l, RankMap m) {
  l.ranks = std::move(m);
  return l;
}

bool same_plan(const redist::RedistPlan& x, const redist::RedistPlan& y, std::string& why) {
  if (x.transfers.size() != y.transfers.size()) return why = "transfer count", false;
  for (std::size_t k = 0; k < x.transfers.size(); ++k) {
    const auto& p = x.transfers[k];
    const auto& q = y.transfers[k];
    if (p.src != q.src || p.dst != q.dst) return why = "partners of transfer " + std::to_string(k), false;
    auto runs_equal = [](const std::vector<redist::Run>& a, const std::vector<redist::Run>& b) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].start != b[i].start || a[i].len != b[i].len || a[i].count != b[i].count ||
            a[i].stride != b[i].stride || a[i].a_stride != b[i].a_stride || a[i].b_stride != b[i].b_stride)
          return false;
      return true;
    };
    if (!runs_equal(p.rows, q.rows) || !runs_equal(p.cols, q.cols)) return why = "runs of transfer " + std::to_string(k), false;
  }
  if (x.steps != y.steps) return why = "steps", false;
  if (x.step_ids != y.step_ids) return why = "step numbers", false;
  const auto& s = x.stats;
  const auto& t = y.stats;
  if (s.elements_local != t.elements_local || s.elements_moved != t.elements_moved || s.messages != t.messages ||
      s.steps != t.steps || s.sent != t.sent || s.received != t.received || s.sent_by_rank != t.sent_by_rank ||
      s.recv_by_rank != t.recv_by_rank)
    return why = "statistics", false;
  return true;
}

TEST(RankMap, ImplicitMapsAreTheirListsInLookupsAndValidation) {
  for (auto order : {RankMap::Order::Row, RankMap::Order::Column})
    for (int base : {0, 3})
      for (auto [nprow, npcol] : {std::pair{1, 1}, {1, 5}, {4, 1}, {3, 4}, {4, 3}}) {
        SCOPED_TRACE(std::to_string(nprow) + "x" + std::to_string(npcol) + " base " + std::to_string(base) +
                     (order == RankMap::Order::Row ? " row" : " column"));
        const RankMap m = order == RankMap::Order::Row ? RankMap::row_major(base) : RankMap::column_major(base);
        const auto v = listed(order, base, nprow, npcol);
        const RankMap e(v);
        EXPECT_FALSE(m.is_explicit());
        EXPECT_TRUE(e.is_explicit());
        EXPECT_EQ(m.to_vector(nprow, npcol), v);
        EXPECT_EQ(m.max_rank(nprow, npcol), base + nprow * npcol - 1);
        EXPECT_EQ(e.max_rank(nprow, npcol), base + nprow * npcol - 1);
        for (int pr = 0; pr < nprow; ++pr)
          for (int pc = 0; pc < npcol; ++pc) {
            const int r = v[static_cast<std::size_t>(pr * npcol + pc)];
            EXPECT_EQ(m.at(pr, pc, nprow, npcol), r);
            EXPECT_EQ(e.at(pr, pc, nprow, npcol), r);
            int ir = -1, ic = -1, jr = -1, jc = -1;
            ASSERT_TRUE(m.find(r, nprow, npcol, ir, ic));
            ASSERT_TRUE(e.find(r, nprow, npcol, jr, jc));
            EXPECT_EQ(std::pair(ir, ic), std::pair(pr, pc));
            EXPECT_EQ(std::pair(jr, jc), std::pair(pr, pc));
          }
        int pr = 0, pc = 0;
        EXPECT_FALSE(m.find(base - 1, nprow, npcol, pr, pc));
        EXPECT_FALSE(m.find(base + nprow * npcol, nprow, npcol, pr, pc));
        EXPECT_FALSE(e.find(base + nprow * npcol, nprow, npcol, pr, pc));
        // One placement, two forms: equal, hashed alike, and canonical as the implicit one.
        EXPECT_TRUE(m.equal(e, nprow, npcol));
        EXPECT_EQ(m.hash(nprow, npcol), e.hash(nprow, npcol));
        EXPECT_FALSE(e.canonical(nprow, npcol).is_explicit());
        // A different base is a different placement.
        const RankMap other = order == RankMap::Order::Row ? RankMap::row_major(base + 1) : RankMap::column_major(base + 1);
        EXPECT_FALSE(m.equal(other, nprow, npcol));
        EXPECT_NE(m.hash(nprow, npcol), other.hash(nprow, npcol));
      }
  // Row and column order differ on a grid with more than one row and column.
  EXPECT_FALSE(RankMap::row_major().equal(RankMap::column_major(), 2, 3));
  EXPECT_NE(RankMap::row_major().hash(2, 3), RankMap::column_major().hash(2, 3));
  EXPECT_TRUE(RankMap::row_major().equal(RankMap::column_major(), 1, 3));
  // Validation names the fault, in both forms.
  auto message = [](const RankMap& m, int nprow, int npcol) {
    try {
      m.validate(nprow, npcol);
    } catch (const redist::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(RankMap::row_major(2), 3, 3), "");
  EXPECT_NE(message(RankMap::row_major(-1), 3, 3).find("non-negative"), std::string::npos);
  EXPECT_NE(message(RankMap::column_major(2147483647 - 7), 3, 3).find("largest int"), std::string::npos);
  EXPECT_NE(message(RankMap({0, 1, 2}), 2, 2).find("3 entries"), std::string::npos);
  EXPECT_NE(message(RankMap({0, 5, 5, 2}), 2, 2).find("rank 5 twice"), std::string::npos);
  EXPECT_NE(message(RankMap({0, -4, 1, 2}), 2, 2).find("contains -4"), std::string::npos);
}

TEST(RankMap, ImplicitAndExplicitMapsOfOneGridGiveIdenticalPlans) {
  std::mt19937 rng(331);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const ScheduleKind kinds[] = {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                                ScheduleKind::AllAtOnce, ScheduleKind::Default};
  for (int trial = 0; trial < 60; ++trial) {
    const int ar = pick(1, 4), ac = pick(1, 4), br = pick(1, 4), bc = pick(1, 4);
    const auto oa = pick(0, 1) ? RankMap::Order::Row : RankMap::Order::Column;
    const auto ob = pick(0, 1) ? RankMap::Order::Row : RankMap::Order::Column;
    const int base_a = pick(0, 3), base_b = pick(0, 3);
    const int comm = std::max(base_a + ar * ac, base_b + br * bc) + pick(0, 2);
    const std::int64_t m = pick(1, 90), n = pick(1, 90);
    const Layout a = Layout::block_cyclic(m, n, pick(1, 7), pick(1, 7), ar, ac, pick(0, ar - 1), pick(0, ac - 1),
                                          oa == RankMap::Order::Row ? RankMap::row_major(base_a) : RankMap::column_major(base_a));
    const Layout b = Layout::block_cyclic(m, n, pick(1, 7), pick(1, 7), br, bc, pick(0, br - 1), pick(0, bc - 1),
                                          ob == RankMap::Order::Row ? RankMap::row_major(base_b) : RankMap::column_major(base_b));
    const Layout ea = with_map(a, RankMap(listed(oa, base_a, ar, ac)));
    const Layout eb = with_map(b, RankMap(listed(ob, base_b, br, bc)));
    ASSERT_FALSE(a.ranks.is_explicit());
    ASSERT_TRUE(ea.ranks.is_explicit());
    const std::int64_t rm = pick(0, static_cast<int>(m)), rn = pick(0, static_cast<int>(n));
    const Region g{rm, rn, pick(0, static_cast<int>(m - rm)), pick(0, static_cast<int>(n - rn)),
                   pick(0, static_cast<int>(m - rm)), pick(0, static_cast<int>(n - rn))};
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::to_string(ar) + "x" + std::to_string(ac) + " -> " +
                 std::to_string(br) + "x" + std::to_string(bc) + " in " + std::to_string(comm) + " ranks");
    EXPECT_TRUE(a == ea);
    EXPECT_TRUE(b == eb);
    EXPECT_EQ(redist::fingerprint(a, b, g), redist::fingerprint(ea, eb, g));
    EXPECT_EQ(redist::plan_stats(a, b, g, comm).sent_by_rank, redist::plan_stats(ea, eb, g, comm).sent_by_rank);
    for (auto kind : kinds)
      for (int r = -1; r < comm; ++r) {
        std::string why;
        ASSERT_TRUE(same_plan(redist::make_plan(a, b, g, comm, kind, r), redist::make_plan(ea, eb, g, comm, kind, r), why))
            << redist::to_string(kind) << " rank " << r << ": " << why;
      }
  }
  // A shuffled list is a different placement: the fingerprint tells it from the implicit map.
  std::mt19937 r2(7);
  const Layout a = Layout::block_cyclic(40, 40, 3, 3, 3, 3);
  const Layout s = with_map(a, RankMap(redist_test::shuffled_ranks(r2, 9, 9)));
  EXPECT_FALSE(a == s);
  EXPECT_NE(redist::fingerprint(a, a, Region::whole(a)), redist::fingerprint(s, a, Region::whole(a)));
}

TEST(RankMap, OneRankOfAHugeImplicitGridPlansInLittleHeap) {
  // 2048 x 2048 -> 2049 x 2049: 4,198,401 ranks. One copy of either grid's rank list would
  // take 16 MiB; the rank's whole plan (blocks of 64, its partners) stays under 2 MiB.
  constexpr int kA = 2048, kB = 2049;
  constexpr std::int64_t N = 4'000'000;
  const std::size_t list_bytes = static_cast<std::size_t>(kA) * kA * sizeof(int);
  constexpr std::size_t kBound = std::size_t{2} << 20;
  ASSERT_GE(list_bytes, 8 * kBound);
  std::size_t layout_heap = 0, plan_heap = 0, transfers = 0;
  Layout a, b;
  layout_heap = redist_heap::peak_of([&] {
    a = Layout::block_cyclic(N, N, 64, 64, kA, kA);
    b = Layout::block_cyclic(N, N, 64, 64, kB, kB);
    return 0;
  });
  EXPECT_LT(layout_heap, kBound) << "building the two layouts";
  const int P = kB * kB;
  // (Circulant is left out: on a region shorter than lcm(Pa, Pb) blocks it colours a whole
  // dimension's pairs, O(blocks of the dimension), the exception plan.hpp documents.)
  for (auto kind : {ScheduleKind::Default, ScheduleKind::Caterpillar})
  for (int rank : {0, kA * kA / 2 + kA / 2, kA * kA - 1, P - 1}) {
    SCOPED_TRACE(std::string(redist::to_string(kind)) + " rank " + std::to_string(rank));
    plan_heap = redist_heap::peak_of([&] {
      auto plan = redist::make_plan(a, b, Region::whole(a), P, kind, rank);
      transfers = plan.transfers.size();
      return plan;
    });
    EXPECT_GT(transfers, 0u);
    EXPECT_LT(plan_heap, kBound);
  }
  // The fingerprint and the layouts' validation and equality cost no heap either.
  const std::size_t checks = redist_heap::peak_of([&] {
    a.validate();
    b.validate();
    return std::pair(redist::fingerprint(a, b, Region::whole(a)), a == b);
  });
  EXPECT_LT(checks, kBound);
}

// A holding_several map that lists each rank once, in row or column order (a level
// recovery whose holders are ranks 0..P-1 of a larger job), keeps its flag through the
// canonical form and Layout::from_blocks: the executors read such an A from the held
// arrays, and an implicit map would send them to a null `a` (seen as a crash of the
// restart from levels onto more processes).
TEST(RankMap, HoldingSeveralStaysExplicitInOrder) {
  const RankMap row = RankMap::holding_several({0, 1, 2, 3});
  EXPECT_TRUE(row.canonical(2, 2).holds_several());
  EXPECT_TRUE(row.canonical(2, 2).is_explicit());
  const RankMap col = RankMap::holding_several({0, 2, 1, 3});
  EXPECT_TRUE(col.canonical(2, 2).holds_several());
  const Layout l = Layout::from_blocks({16, 16}, {16, 16}, 2, 2, 0, 0, row);
  EXPECT_TRUE(l.ranks.holds_several());
  // Without the flag the same list still becomes the implicit map.
  EXPECT_FALSE(RankMap({0, 1, 2, 3}).canonical(2, 2).is_explicit());
}

}  // namespace
