// SPDX-License-Identifier: BSD-3-Clause
// Rank-local plans: make_plan(..., for_rank) builds only that rank's
// transfers, yet the union over all ranks is the whole plan (same transfers, same runs,
// same step numbers), every schedule stays contention free with partners meeting in the
// same order, and Matching keeps max-degree steps.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>

#include "malleable/redist/plan.hpp"
#include "random_layout_parts.hpp"

using redist::Layout;
using redist::Region;
using redist::ScheduleKind;

namespace {

using redist_test::random_split;
using redist_test::shuffled_ranks;

struct Case {
  std::string name;
  Layout a, b;
  Region g;
  int comm;
};

const ScheduleKind kKinds[] = {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                               ScheduleKind::AllAtOnce};

bool same_runs(const std::vector<redist::Run>& x, const std::vector<redist::Run>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const auto& p = x[k];
    const auto& q = y[k];
    if (p.start != q.start || p.len != q.len || p.count != q.count || p.stride != q.stride ||
        p.a_stride != q.a_stride || p.b_stride != q.b_stride)
      return false;
  }
  return true;
}

// Job-wide step number of every transfer of a plan (-1: a local copy).
std::vector<std::int64_t> step_of(const redist::RedistPlan& p) {
  std::vector<std::int64_t> id(p.transfers.size(), -1);
  EXPECT_EQ(p.step_ids.size(), p.steps.size());
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    if (s > 0) {
      EXPECT_LT(p.step_ids[s - 1], p.step_ids[s]) << "step numbers must increase";
    }
    for (int k : p.steps[s]) id[static_cast<std::size_t>(k)] = p.step_ids[s];
  }
  return id;
}

int max_degree(const redist::RedistPlan& p, int comm) {
  std::vector<int> out(static_cast<std::size_t>(comm)), in(static_cast<std::size_t>(comm));
  int d = 0;
  for (const auto& t : p.transfers)
    if (t.src != t.dst) {
      d = std::max(d, ++out[static_cast<std::size_t>(t.src)]);
      d = std::max(d, ++in[static_cast<std::size_t>(t.dst)]);
    }
  return d;
}

// Every rank's plan against the whole plan.
void check_union(const Case& c, ScheduleKind kind) {
  SCOPED_TRACE(c.name + " " + redist::to_string(kind));
  const auto full = redist::make_plan(c.a, c.b, c.g, c.comm, kind);
  const auto full_id = step_of(full);
  // Whole plan: contention free and covering every cross transfer once.
  for (std::size_t s = 0; s < full.steps.size() && kind != ScheduleKind::AllAtOnce; ++s) {
    std::set<int> snd, rcv;
    for (int k : full.steps[s]) {
      ASSERT_TRUE(snd.insert(full.transfers[static_cast<std::size_t>(k)].src).second) << "step " << s;
      ASSERT_TRUE(rcv.insert(full.transfers[static_cast<std::size_t>(k)].dst).second) << "step " << s;
    }
  }
  std::map<std::pair<int, int>, std::int64_t> seen;  // (src, dst) -> step number, from the ranks' plans
  std::size_t held = 0;
  for (int r = 0; r < c.comm; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const auto mine = redist::make_plan(c.a, c.b, c.g, c.comm, kind, r);
    ASSERT_EQ(mine.materialized_for, r);
    ASSERT_EQ(mine.comm_size, c.comm);
    ASSERT_EQ(mine.schedule, full.schedule);
    const auto id = step_of(mine);
    // The same transfers as the whole plan's involving r, in the same order, same runs.
    std::size_t j = 0;
    for (std::size_t k = 0; k < full.transfers.size(); ++k) {
      const auto& f = full.transfers[k];
      if (f.src != r && f.dst != r) continue;
      ASSERT_LT(j, mine.transfers.size()) << "missing transfer " << f.src << "->" << f.dst;
      const auto& t = mine.transfers[j];
      ASSERT_EQ(t.src, f.src);
      ASSERT_EQ(t.dst, f.dst);
      ASSERT_TRUE(same_runs(t.rows, f.rows)) << f.src << "->" << f.dst << " rows";
      ASSERT_TRUE(same_runs(t.cols, f.cols)) << f.src << "->" << f.dst << " cols";
      ASSERT_EQ(id[j], full_id[k]) << f.src << "->" << f.dst << " step number";
      if (t.src != t.dst) {
        const auto [it, fresh] = seen.emplace(std::make_pair(t.src, t.dst), id[j]);
        if (fresh) ++held;
        ASSERT_EQ(it->second, id[j]) << "partners disagree on the step of " << t.src << "->" << t.dst;
      }
      ++j;
    }
    ASSERT_EQ(j, mine.transfers.size()) << "extra transfers";
    // Contention free for r: at most one send and one receive per step.
    if (kind != ScheduleKind::AllAtOnce)
      for (const auto& s : mine.steps) {
        int snd = 0, rcv = 0;
        for (int k : s) {
          snd += mine.transfers[static_cast<std::size_t>(k)].src == r;
          rcv += mine.transfers[static_cast<std::size_t>(k)].dst == r;
        }
        ASSERT_LE(snd, 1);
        ASSERT_LE(rcv, 1);
      }
    // r's own figures.
    EXPECT_EQ(mine.stats.rank, r);
    EXPECT_EQ(mine.stats.sent, full.stats.sent_by_rank[static_cast<std::size_t>(r)]);
    EXPECT_EQ(mine.stats.received, full.stats.recv_by_rank[static_cast<std::size_t>(r)]);
    EXPECT_EQ(mine.stats.steps, static_cast<int>(mine.steps.size()));
    EXPECT_TRUE(mine.stats.sent_by_rank.empty());
  }
  std::size_t cross = 0;
  for (const auto& t : full.transfers) cross += t.src != t.dst;
  EXPECT_EQ(held, cross);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  auto add = [&](std::string n, Layout a, Layout b, int comm, Region g = {}) {
    if (g.m == 0 && g.n == 0) g = Region::whole(a);
    v.push_back({std::move(n), std::move(a), std::move(b), g, comm});
  };
  // Grids sharing a divisor, coprime grids, shrinks, block-size changes, long periods.
  add("2x2->4x4", Layout::block_cyclic(96, 80, 4, 4, 2, 2), Layout::block_cyclic(96, 80, 4, 4, 4, 4), 16);
  add("4x4->2x2", Layout::block_cyclic(96, 80, 4, 4, 4, 4), Layout::block_cyclic(96, 80, 4, 4, 2, 2), 16);
  add("3x3->4x4 coprime", Layout::block_cyclic(150, 130, 3, 3, 3, 3), Layout::block_cyclic(150, 130, 3, 3, 4, 4), 16);
  add("4x4->5x5 coprime nb1", Layout::block_cyclic(200, 61, 1, 1, 4, 4), Layout::block_cyclic(200, 61, 1, 1, 5, 5),
      25);
  add("2x3->3x2 nb 2->5", Layout::block_cyclic(77, 91, 2, 2, 2, 3), Layout::block_cyclic(77, 91, 5, 5, 3, 2), 6);
  add("1x6->6x1", Layout::block_cyclic(60, 60, 3, 2, 1, 6), Layout::block_cyclic(60, 60, 2, 3, 6, 1), 6);
  add("3x3->3x3 src shift", Layout::block_cyclic(50, 50, 4, 4, 3, 3, 1, 2),
      Layout::block_cyclic(50, 50, 4, 4, 3, 3, 2, 0), 9);
  add("2x2->3x3 periodic", Layout::block_cyclic(1000, 37, 2, 3, 2, 2), Layout::block_cyclic(1000, 37, 3, 2, 3, 3), 9);
  add("submatrix 3x2->2x4", Layout::block_cyclic(90, 90, 5, 4, 3, 2), Layout::block_cyclic(70, 100, 3, 7, 2, 4), 8,
      Region{41, 53, 7, 11, 13, 2});
  add("unaligned submatrix", Layout::block_cyclic(120, 120, 4, 4, 2, 3), Layout::block_cyclic(120, 120, 4, 4, 3, 2), 6,
      Region{100, 101, 3, 5, 2, 0});
  std::mt19937 rng(33);
  // Rank permutations, both grids in one communicator, overlapping or not.
  for (int k = 0; k < 6; ++k) {
    const int comm = 12;
    v.push_back({"permuted " + std::to_string(k),
                 Layout::block_cyclic(64, 48, 1 + k % 3, 2 + k % 2, 2, 3, k % 2, k % 3, shuffled_ranks(rng, 6, comm)),
                 Layout::block_cyclic(64, 48, 2 + k % 2, 1 + k % 4, 3, 4, k % 3, 0, shuffled_ranks(rng, 12, comm)),
                 Region{60 - k, 40 + k, k, 8 - k, 4 - k / 2, 0}, comm});
  }
  // Heterogeneous block lists (the thesis's proportional blocks and random ones).
  for (int k = 0; k < 6; ++k) {
    const int comm = 9;
    v.push_back({"heterogeneous " + std::to_string(k),
                 Layout::from_blocks(random_split(rng, 70, 9), random_split(rng, 55, 7), 2, 3, k % 2, 1, shuffled_ranks(rng, 6, comm)),
                 Layout::from_blocks(random_split(rng, 70, 5), random_split(rng, 55, 11), 3, 3, 0, k % 3, shuffled_ranks(rng, 9, comm)),
                 Region{70 - k, 55 - 2 * k, k, 2 * k, 0, 0}, comm});
  }
  return v;
}

}  // namespace

TEST(PlanLocal, UnionOfRankPlansIsTheWholePlanUnderEverySchedule) {
  for (const auto& c : cases())
    for (auto kind : kKinds) {
      check_union(c, kind);
      if (HasFatalFailure()) return;
    }
}

TEST(PlanLocal, MatchingAboveTheWholeGraphSizeIsTheMaxDegreeProductOfDimensions) {
  // 12x12 -> 13x13: 144 x 169 rank pairs, above the 16,384 up to which the whole rank
  // graph is coloured, so every rank evaluates the per-dimension product for itself.
  const Layout a = Layout::block_cyclic(13 * 12 * 2, 13 * 12 * 3, 2, 3, 12, 12);
  const Layout b = Layout::block_cyclic(13 * 12 * 2, 13 * 12 * 3, 2, 3, 13, 13);
  const Case c{"12x12->13x13", a, b, Region::whole(a), 169};
  check_union(c, ScheduleKind::Matching);
  const auto p = redist::make_plan(a, b, c.g, c.comm, ScheduleKind::Matching);
  // Every sender has 13 x 13 partners in the product graph, one of them itself (a rank of
  // both grids keeps that block): the product takes Δr·Δc = 169 steps where colouring the
  // whole rank graph would take 168, the one extra step documented in plan.hpp.
  EXPECT_EQ(p.stats.steps, 169);
  EXPECT_GE(p.stats.steps, max_degree(p, c.comm));
  EXPECT_LE(p.stats.steps, max_degree(p, c.comm) + 1);
  // Without self-transfers (disjoint rank sets) the product is exactly max-degree.
  std::vector<int> shifted(169);
  std::iota(shifted.begin(), shifted.end(), 144);
  const Layout bs = Layout::block_cyclic(13 * 12 * 2, 13 * 12 * 3, 2, 3, 13, 13, 0, 0, shifted);
  const Case d{"12x12->13x13 disjoint", a, bs, Region::whole(a), 144 + 169};
  check_union(d, ScheduleKind::Matching);
  const auto q = redist::make_plan(a, bs, d.g, d.comm, ScheduleKind::Matching);
  EXPECT_EQ(q.stats.steps, max_degree(q, d.comm));
  EXPECT_EQ(q.stats.steps, 169);
  // Rows grow while columns shrink: the product (3 x 3 steps) exceeds the maximum degree
  // (3), so Matching is refused at this size with a message naming the alternative.
  const Layout w = Layout::block_cyclic(240, 240, 2, 2, 8, 24), t = Layout::block_cyclic(240, 240, 2, 2, 24, 8);
  try {
    (void)redist::make_plan(w, t, Region::whole(w), 192, ScheduleKind::Matching, 5);
    ADD_FAILURE() << "matching with a non-minimal product was accepted";
  } catch (const redist::Error& e) {
    EXPECT_EQ(e.code(), redist::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("use schedule circulant"), std::string::npos) << e.what();
  }
  // Circulant plans it, contention free, with each rank's own transfers only.
  const Case e{"8x24->24x8", w, t, Region::whole(w), 192};
  check_union(e, ScheduleKind::Circulant);
  EXPECT_EQ(redist::make_plan(w, t, e.g, e.comm, ScheduleKind::Circulant).stats.steps, 9);
}

TEST(PlanLocal, RankPlanAtScaleHoldsOnlyItsPartners) {
  // 128x128 -> 129x129 (16,641 ranks), blocks of 64, N = 100,000: the whole plan would
  // hold 268 million transfers; one rank's holds its partners: its 13 row blocks of A
  // land on 13 B process rows (coprime grids), likewise columns, so at most 13 x 13
  // sends and as many receives, whatever the schedule. Counts, not time: the benchmark measures time.
  const std::int64_t n = 100000;
  const Layout a = Layout::block_cyclic(n, n, 64, 64, 128, 128), b = Layout::block_cyclic(n, n, 64, 64, 129, 129);
  for (auto kind : {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                    ScheduleKind::AllAtOnce}) {
    const auto p = redist::make_plan(a, b, Region::whole(a), 129 * 129, kind, 777);
    EXPECT_LE(p.transfers.size(), 2u * 13u * 13u) << redist::to_string(kind);
    EXPECT_GT(p.stats.sent, 0);
    EXPECT_GT(p.stats.received, 0);
    EXPECT_EQ(p.stats.sent, a.local_rows(777 / 128) * a.local_cols(777 % 128) - p.stats.elements_local);
  }
}
