// SPDX-License-Identifier: BSD-3-Clause
// Single copy on a node, the pure part (redist/src/exec/segments.hpp): a transfer's pieces
// as contiguous segments of the sender's and the receiver's local arrays must map exactly
// the elements an element-by-element walk of the transfer maps, each once, and merge
// whatever continues on both sides.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "exec/node_window.hpp"
#include "exec/segments.hpp"
#include "malleable/redist/plan.hpp"
#include "random_layout_parts.hpp"

namespace {

using redist::Layout;
using redist::Region;
using redist::Transfer;
using namespace redist::exec;

using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Every (source offset, destination offset) of transfer t, element by element.
Pairs oracle(const Layout& a, const Layout& b, const Region& r, const Transfer& t, std::int64_t lds, std::int64_t ldd) {
  Pairs out;
  auto each = [](const std::vector<redist::Run>& runs, auto&& f) {
    for (const auto& run : runs)
      for (std::int64_t p = 0; p < run.count; ++p)
        for (std::int64_t e = 0; e < run.len; ++e) f(run.piece(p) + e);
  };
  each(t.cols, [&](std::int64_t j) {
    each(t.rows, [&](std::int64_t i) {
      out.emplace_back(a.row_to_local(i) + a.col_to_local(j) * lds,
                       b.row_to_local(i + r.ib - r.ia) + b.col_to_local(j + r.jb - r.ja) * ldd);
    });
  });
  std::sort(out.begin(), out.end());
  return out;
}

struct Walked {
  Pairs pairs;
  std::vector<Segment> segs;
};

Walked walk(const Layout& a, const Layout& b, const Region& r, const Transfer& t, std::int64_t lds, std::int64_t ldd) {
  const Side sa{a.row_axis(), a.col_axis(), 0, 0, lds, false};
  const Side sb{b.row_axis(), b.col_axis(), r.ib - r.ia, r.jb - r.ja, ldd, true};
  const Walk ws(sa, t), wd(sb, t);
  Walked w;
  for_each_segment(ws, lds, wd, ldd, [&](const Segment& s) {
    w.segs.push_back(s);
    for (std::int64_t e = 0; e < s.len; ++e) w.pairs.emplace_back(s.src + e, s.dst + e);
  });
  std::sort(w.pairs.begin(), w.pairs.end());
  return w;
}

Layout random_layout(std::mt19937& rng, std::int64_t m, std::int64_t n) {
  std::uniform_int_distribution<int> grid(1, 3), block(1, 7), coin(0, 1);
  const int pr = grid(rng), pc = grid(rng);
  if (coin(rng))
    return Layout::block_cyclic(m, n, block(rng), block(rng), pr, pc);
  return Layout::from_blocks(redist_test::random_split(rng, m, 7), redist_test::random_split(rng, n, 7), pr, pc);
}

TEST(Segments, MapEveryElementOfEveryTransferOnceOnRandomLayoutsAndRegions) {
  std::mt19937 rng(20261124);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::uniform_int_distribution<std::int64_t> dim(1, 40);
    const std::int64_t m = dim(rng), n = dim(rng);
    const Layout a = random_layout(rng, m, n), b = random_layout(rng, m + 3, n + 2);
    Region r = Region::whole(a);
    if (trial % 2) {  // a sub-region, shifted in B
      r.m = std::uniform_int_distribution<std::int64_t>(1, m)(rng);
      r.n = std::uniform_int_distribution<std::int64_t>(1, n)(rng);
      r.ia = std::uniform_int_distribution<std::int64_t>(0, m - r.m)(rng);
      r.ja = std::uniform_int_distribution<std::int64_t>(0, n - r.n)(rng);
      r.ib = std::uniform_int_distribution<std::int64_t>(0, m + 3 - r.m)(rng);
      r.jb = std::uniform_int_distribution<std::int64_t>(0, n + 2 - r.n)(rng);
    } else {
      r.ib = std::uniform_int_distribution<std::int64_t>(0, 3)(rng);
      r.jb = std::uniform_int_distribution<std::int64_t>(0, 2)(rng);
    }
    const int P = std::max(a.nprow * a.npcol, b.nprow * b.npcol);
    const auto plan = redist::make_plan(a, b, r, P);
    for (const Transfer& t : plan.transfers) {
      int spr = 0, spc = 0, dpr = 0, dpc = 0;
      ASSERT_TRUE(a.coords_of(t.src, spr, spc));
      ASSERT_TRUE(b.coords_of(t.dst, dpr, dpc));
      const std::int64_t lds = std::max<std::int64_t>(1, a.local_rows(spr)) + trial % 3;
      const std::int64_t ldd = std::max<std::int64_t>(1, b.local_rows(dpr)) + trial % 2;
      const Walked w = walk(a, b, r, t, lds, ldd);
      ASSERT_EQ(w.pairs, oracle(a, b, r, t, lds, ldd)) << "trial " << trial << " transfer " << t.src << "->" << t.dst;
      for (std::size_t k = 1; k < w.segs.size(); ++k) {  // merged: no segment continues the previous on both sides
        const Segment &p = w.segs[k - 1], &q = w.segs[k];
        ASSERT_FALSE(p.src + p.len == q.src && p.dst + p.len == q.dst) << "trial " << trial << " segment " << k;
        // in ascending order on both sides, so a side's touching stretches join in its list
        ASSERT_GE(q.src, p.src + p.len) << "trial " << trial << " segment " << k;
        ASSERT_GE(q.dst, p.dst + p.len) << "trial " << trial << " segment " << k;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(Segments, WholeColumnsOfEqualLeadingDimensionAreOneSegment) {
  // 16 x 16; A on 1x2 in column blocks of 4 (rank 0: columns 0-3, 8-11), B on 1x2 in
  // blocks of 8 (rank 1: columns 8-15). Rank 0 -> rank 1: A's local columns 4-7 (whole
  // columns, ld 16) to B's local columns 0-3: one segment of 64 elements.
  const Layout a = Layout::block_cyclic(16, 16, 16, 4, 1, 2), b = Layout::block_cyclic(16, 16, 16, 8, 1, 2);
  const auto plan = redist::make_plan(a, b, Region::whole(a), 2);
  int found = 0;
  for (const Transfer& t : plan.transfers) {
    if (t.src != 0 || t.dst != 1) continue;
    const Walked w = walk(a, b, Region::whole(a), t, 16, 16);
    ASSERT_EQ(w.segs.size(), 1u);
    EXPECT_EQ(w.segs[0].src, 4 * 16);
    EXPECT_EQ(w.segs[0].dst, 0);
    EXPECT_EQ(w.segs[0].len, 64);
    // A padded leading dimension on one side: a segment per column.
    EXPECT_EQ(walk(a, b, Region::whole(a), t, 20, 16).segs.size(), 4u);
    ++found;
  }
  EXPECT_EQ(found, 1);
}

TEST(Segments, InterleavedRunsComeInOrderSoTheSourceIsOneStretch) {
  // 80 x 10; A on 2x1 in row blocks of 4 (rank 0: rows 0-3, 8-11, ..., 40 local rows), B on
  // 1x2 in blocks of 5 (rank 1: columns 5-9, every row). Rank 0 -> rank 1: in each column
  // all 40 of A's local rows, landing in B's rows as 10 pieces of 4, 8 apart. The rows'
  // runs split where the 4-row and 5-row blocks meet, each with a piece in both periods of
  // 40 rows, so in the runs' order they interleave; walked in order, the source is one
  // stretch of 5 columns x 40 rows (lds 40, from local column 5): the 50 segments ascend
  // and continue each other on A's side, and the process that reads A pins it as one stretch.
  const Layout a = Layout::block_cyclic(80, 10, 4, 4, 2, 1), b = Layout::block_cyclic(80, 10, 5, 5, 1, 2);
  const auto plan = redist::make_plan(a, b, Region::whole(a), 2);
  int found = 0;
  for (const Transfer& t : plan.transfers) {
    if (t.src != 0 || t.dst != 1) continue;
    EXPECT_TRUE(std::any_of(t.rows.begin(), t.rows.end(), [](const redist::Run& r) { return r.count > 1; }));
    const Walked w = walk(a, b, Region::whole(a), t, 40, 80);
    ASSERT_EQ(w.segs.size(), 50u);
    for (std::size_t k = 0; k < w.segs.size(); ++k) {
      EXPECT_EQ(w.segs[k].src, static_cast<std::int64_t>(200 + 4 * k)) << k;
      EXPECT_EQ(w.segs[k].dst, static_cast<std::int64_t>((k / 10) * 80 + (k % 10) * 8)) << k;
      EXPECT_EQ(w.segs[k].len, 4) << k;
    }
    ++found;
  }
  EXPECT_EQ(found, 1);
}

TEST(Segments, ManyRowPiecesMergedForEachColumnMapTheSameInOrder) {
  // Rows in blocks of 1 -> 3 on 2x1: over kKeptRowPieces row pieces a column, so the walk
  // merges the rows' runs again for each column instead of keeping them; the same elements
  // each once, in ascending order on both sides.
  const Layout a = Layout::block_cyclic(3000, 4, 1, 2, 2, 1), b = Layout::block_cyclic(3000, 4, 3, 2, 2, 1);
  const Region r = Region::whole(a);
  const auto plan = redist::make_plan(a, b, r, 2);
  int many = 0;
  for (const Transfer& t : plan.transfers) {
    std::int64_t pieces = 0;
    for (const auto& run : t.rows) pieces += run.count;
    many += pieces > kKeptRowPieces;
    const Walked w = walk(a, b, r, t, 1500, 1500);
    ASSERT_EQ(w.pairs, oracle(a, b, r, t, 1500, 1500)) << t.src << "->" << t.dst;
    for (std::size_t k = 1; k < w.segs.size(); ++k) {
      ASSERT_GE(w.segs[k].src, w.segs[k - 1].src + w.segs[k - 1].len) << k;
      ASSERT_GE(w.segs[k].dst, w.segs[k - 1].dst + w.segs[k - 1].len) << k;
    }
  }
  EXPECT_GT(many, 0);
}

TEST(Segments, SingleCopyPaysForLongPiecesOnAverage) {
  const std::int64_t rows = kSingleCopyMinPieceBytes / 8;  // doubles in a piece at the threshold
  ASSERT_GT(rows, 1);
  Transfer t;
  t.rows = {{0, rows, 3, 2 * rows, 2 * rows, 2 * rows}};  // 3 pieces at the threshold, apart on both sides
  EXPECT_TRUE(single_copy_pays(t, sizeof(double)));
  EXPECT_FALSE(single_copy_pays(t, sizeof(float)));  // half as long
  t.rows.push_back({10 * rows, 1, 10, 2, 2, 2});     // 10 single elements pull the average below
  EXPECT_FALSE(single_copy_pays(t, sizeof(double)));
  t.rows.clear();
  EXPECT_FALSE(single_copy_pays(t, sizeof(double)));  // no rows: nothing to read
}

// A single copy takes the other process's side where it has fewer pieces per column (the
// kernel pins each of its stretches): pieces that touch on one side are one stretch there.
// Rows in blocks of 64 out of every 128 of a whole column (1x2) landing contiguous in B's
// local column (2x1): the sender writes into B; the reverse: the receiver reads A; the mean
// piece is that side's.
TEST(Segments, SingleCopyTakesTheSideWithFewerPieces) {
  Transfer t;
  t.rows = {{0, 64, 8, 128, 128, 64}};  // apart in A, touching in B
  EXPECT_EQ(side_pieces(t, false), 8);
  EXPECT_EQ(side_pieces(t, true), 1);
  EXPECT_FALSE(copy_reads(t));
  EXPECT_EQ(mean_piece_bytes(t, sizeof(double)), 8 * 64 * 8);
  t.rows = {{0, 64, 8, 128, 64, 128}};  // touching in A, apart in B
  EXPECT_TRUE(copy_reads(t));
  EXPECT_EQ(mean_piece_bytes(t, sizeof(double)), 8 * 64 * 8);
  t.rows = {{0, 64, 8, 128, 128, 128}, {2000, 5, 1, 0, 0, 0}};  // apart on both: A on a tie
  EXPECT_TRUE(copy_reads(t));
  EXPECT_EQ(side_pieces(t, false), 9);
  EXPECT_EQ(mean_piece_bytes(t, sizeof(double)), (8 * 64 + 5) * 8 / 9);
}

// The choice between one kernel read and the node window: Auto reads exactly the transfers
// whose pieces average the threshold, and only under Transport::Auto; On always, Off never.
TEST(Segments, ReadsInPlaceByMeanPieceUnderAuto) {
  using redist::SingleCopy;
  using redist::Transport;
  const std::int64_t rows = kSingleCopyMinPieceBytes / 8;
  Transfer at, below;
  at.rows = {{0, rows, 2, 2 * rows, 2 * rows, 2 * rows}};  // 2 pieces, each at the threshold
  below.rows = {{0, rows - 1, 4, 2 * rows, rows, rows}};  // one double short
  EXPECT_EQ(mean_piece_bytes(at, sizeof(double)), kSingleCopyMinPieceBytes);
  EXPECT_EQ(mean_piece_bytes(below, sizeof(double)), kSingleCopyMinPieceBytes - 8);
  EXPECT_EQ(mean_piece_bytes(Transfer{}, sizeof(double)), 0);
  EXPECT_TRUE(reads_in_place(at, sizeof(double), SingleCopy::Auto, Transport::Auto));
  EXPECT_FALSE(reads_in_place(below, sizeof(double), SingleCopy::Auto, Transport::Auto));
  EXPECT_TRUE(reads_in_place(below, 2 * sizeof(double), SingleCopy::Auto, Transport::Auto));  // complex: twice as long
  EXPECT_FALSE(reads_in_place(at, sizeof(double), SingleCopy::Auto, Transport::Packed));
  EXPECT_FALSE(reads_in_place(at, sizeof(double), SingleCopy::Auto, Transport::Datatype));
  EXPECT_FALSE(reads_in_place(at, sizeof(double), SingleCopy::Off, Transport::Auto));
  EXPECT_TRUE(reads_in_place(below, sizeof(double), SingleCopy::On, Transport::Auto));
  EXPECT_TRUE(reads_in_place(below, sizeof(double), SingleCopy::On, Transport::Packed));
}

// A window send out of huge pages is read by its receiver exactly when the sender says its
// A is in huge pages and its row pieces in A, joined where they touch (in ascending order,
// across runs: blocks 64 -> 100 rows leave pieces of 64, 36, 28, ... rows that touch),
// average kHugeReadMinPieceBytes, under Auto and Transport::Auto only; it stops counting
// once they cannot.
TEST(Segments, ReadsHugeByTheSendersPagesAndStretches) {
  using redist::SingleCopy;
  using redist::Transport;
  const std::int64_t rows = kHugeReadMinPieceBytes / 8;  // doubles in a stretch at the threshold
  const std::vector<LocalRun> at{{0, rows, 3, 2 * rows}}, below{{0, rows - 1, 3, 2 * rows}};
  // the pieces of two runs, 64 and 36 rows, alternating and touching: one stretch of 100 x 4 rows
  const std::vector<LocalRun> interleaved{{0, 64, 4, 100}, {64, 36, 4, 100}};
  const std::vector<LocalRun> apart{{0, 64, 4, 200}, {100, 36, 4, 200}};  // 8 stretches
  EXPECT_TRUE(column_stretches_average(at, 8, kHugeReadMinPieceBytes));
  EXPECT_FALSE(column_stretches_average(below, 8, kHugeReadMinPieceBytes));
  EXPECT_TRUE(column_stretches_average(below, 16, kHugeReadMinPieceBytes));  // complex<double>: twice as long
  EXPECT_TRUE(column_stretches_average(interleaved, 8, 400 * 8));             // each run alone: 4 pieces
  EXPECT_FALSE(column_stretches_average(interleaved, 8, 400 * 8 + 1));
  EXPECT_TRUE(column_stretches_average(apart, 8, 50 * 8));
  EXPECT_FALSE(column_stretches_average(apart, 8, 50 * 8 + 1));
  EXPECT_FALSE(column_stretches_average({}, 8, kHugeReadMinPieceBytes));
  EXPECT_TRUE(reads_huge(at, 8, SingleCopy::Auto, Transport::Auto, true));
  EXPECT_FALSE(reads_huge(at, 8, SingleCopy::Auto, Transport::Auto, false));  // ordinary pages
  EXPECT_FALSE(reads_huge(below, 8, SingleCopy::Auto, Transport::Auto, true));
  EXPECT_FALSE(reads_huge(at, 8, SingleCopy::Off, Transport::Auto, true));
  EXPECT_FALSE(reads_huge(at, 8, SingleCopy::On, Transport::Auto, true));  // On reads in place already
  EXPECT_FALSE(reads_huge(at, 8, SingleCopy::Auto, Transport::Packed, true));
  Transfer t;
  t.rows = {{0, rows, 2, 4 * rows, 2 * rows, 2 * rows}};
  EXPECT_EQ(column_bytes(t, 8), 2 * kHugeReadMinPieceBytes);
}

// A sender's window segment holds only what goes through the window: the transfers read in
// one copy (reads_in_place) are left out of window_need. Row blocks 2r -> 3r over 2 -> 3
// process rows, r doubles at the threshold: pieces of r and 2r rows, all read under Auto
// for double (need 0), none for a float rule that falls below (half of them), all packed
// with Off; ranks 0-5 on one node, rank 3 alone on another in the second case.
TEST(Segments, WindowNeedLeavesOutTransfersReadInOneCopy) {
  using redist::SingleCopy;
  using redist::Transport;
  const std::int64_t r = kSingleCopyMinPieceBytes / 8;
  const Layout a = Layout::block_cyclic(6 * r, 2, 2 * r, 1, 2, 3);
  const Layout b = Layout::block_cyclic(6 * r, 2, 3 * r, 2, 3, 2, 1, 0);
  const auto plan = redist::make_plan(a, b, Region::whole(a), 6, redist::ScheduleKind::Default);
  for (const std::vector<int>& node : {std::vector<int>{0, 1, 2, 3, 4, 5}, std::vector<int>{0, 1, 2, 4, 5}}) {
    std::int64_t all = 0, some = 0, checked = 0;
    for (int me = 0; me < 6; ++me) {
      if (!std::binary_search(node.begin(), node.end(), me)) continue;
      std::int64_t packed_all = 0, packed_float = 0;
      for (const auto& t : plan.transfers)
        if (t.src == me && t.dst != me && std::binary_search(node.begin(), node.end(), t.dst)) {
          packed_all += t.elements() * 8;
          if (!reads_in_place(t, 4, SingleCopy::Auto, Transport::Auto)) packed_float += t.elements() * 4;
        }
      EXPECT_EQ(window_need(plan, me, node, 8, SingleCopy::Off, Transport::Auto), packed_all) << me;
      EXPECT_EQ(window_need(plan, me, node, 8, SingleCopy::Auto, Transport::Auto), 0) << me;  // all read
      EXPECT_EQ(window_need(plan, me, node, 8, SingleCopy::Auto, Transport::Packed), packed_all) << me;
      EXPECT_EQ(window_need(plan, me, node, 4, SingleCopy::Auto, Transport::Auto), packed_float) << me;
      EXPECT_EQ(window_need(plan, me, node, 8, SingleCopy::On, Transport::Auto), 0) << me;
      all += packed_all;
      some += packed_float;
      ++checked;
    }
    EXPECT_GT(all, 0);
    EXPECT_TRUE(some > 0 && some < all / 2) << some << " of " << all / 2;  // float: some pieces fall below
    EXPECT_EQ(checked, static_cast<int>(node.size()));
  }
}

}  // namespace
