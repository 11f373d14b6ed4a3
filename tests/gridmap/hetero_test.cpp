// SPDX-License-Identifier: BSD-3-Clause
// Heterogeneous mapping (thesis §3.5, §6.2): the SVD heuristic, natural block
// decomposition, sizes, U and T_opt, and the thesis's worked examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/hetero.hpp"
#include "malleable/redist/layout.hpp"

using namespace gridmap;

namespace {

// max_ij rows_i cols_j / power_ij for sizes and an arrangement given in a table.
double table_time(const std::vector<double>& power, int q, const std::vector<std::int64_t>& rows,
                  const std::vector<std::int64_t>& cols) {
  double t = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < cols.size(); ++j)
      t = std::max(t, static_cast<double>(rows[i] * cols[j]) / power[i * static_cast<std::size_t>(q) + j]);
  return t;
}

HeteroOptions thesis_only() {
  HeteroOptions o;
  o.coordinate_ascent = false;  // the SVD heuristic exactly as §6.2.1 describes it
  return o;
}

}  // namespace

TEST(Table64, ArrangementAndRowsMatchAndThroughputBeatsTheThesis) {
  const ProcessorPowers p{{313, 279, 34, 25}};
  for (const auto& opt : {thesis_only(), HeteroOptions{}}) {
    const HeteroMapping h = map_heterogeneous(p, {2, 2}, 2000, 2000, opt);
    EXPECT_EQ(h.power, (std::vector<double>{313, 279, 34, 25}));  // fastest first, row-major
    EXPECT_EQ(h.rows[0] + h.rows[1], 2000);
    EXPECT_EQ(h.cols[0] + h.cols[1], 2000);
    EXPECT_NEAR(static_cast<double>(h.rows[0]), 1819, 20);  // thesis: 1819 / 181
  }
  // The thesis's sizes (rows 1819/181, columns 1115/885) give T = 6479.9 (x 0.096 =
  // 622 ms, Table 6.6's 622.9). The pure rank-1 SVD sizes are the rank-1 vectors (columns
  // about 1058/942) and are slower; with the exact coordinate ascent ours are faster.
  const double thesis = table_time({313, 279, 34, 25}, 2, {1819, 181}, {1115, 885});
  EXPECT_NEAR(thesis * 0.096, 622.9, 1.0);
  const HeteroMapping ours = map_heterogeneous(p, {2, 2}, 2000, 2000);
  EXPECT_LT(ours.iteration_time(), thesis);
  // For a fixed 2x2 arrangement the optimum of Obj2 is a one-parameter search over
  // c2/c1 (r tight to c); the ascent must reach it (up to integer rounding).
  double best = 0;
  for (int k = 1; k < 200000; ++k) {
    const double g = k / 100000.0;
    const double r1 = std::min(313.0, 279.0 / g), r2 = std::min(34.0, 25.0 / g);
    best = std::max(best, (r1 + r2) * (1 + g));
  }
  EXPECT_LE(ours.iteration_time(), 2000.0 * 2000 / best * 1.001);
  // T_opt (Table 6.5): the bottleneck processors need exactly their power, none more.
  const auto t = ours.t_opt();
  const auto u = ours.utilisation();
  for (std::size_t k = 0; k < t.size(); ++k) {
    EXPECT_LE(t[k], ours.power[k] * (1 + 1e-12));
    EXPECT_LE(u[k], 1 + 1e-12);
  }
  EXPECT_DOUBLE_EQ(*std::max_element(u.begin(), u.end()), 1.0);
  EXPECT_NEAR(t[0], 313, 1.0);  // thesis T_opt[0][0] = 313
  EXPECT_NEAR(t[3], 25, 0.5);   // thesis T_opt[1][1] = 25
}

TEST(Table62, ProportionalAllocationOfARankOneGrid) {
  // Powers 1, 2, 2, 4 on 2x2, 2000 x 2000: rows and columns 667 / 1333 (Table 6.2b).
  const HeteroMapping h = map_heterogeneous(ProcessorPowers{{1, 2, 2, 4}}, {2, 2}, 2000, 2000);
  std::vector<std::int64_t> rows = h.rows, cols = h.cols;
  std::sort(rows.begin(), rows.end());
  std::sort(cols.begin(), cols.end());
  EXPECT_EQ(rows, (std::vector<std::int64_t>{667, 1333}));
  EXPECT_EQ(cols, (std::vector<std::int64_t>{667, 1333}));
  EXPECT_NEAR(h.iteration_time(), 2000.0 * 2000 / 9, 2000.0 * 2000 / 9 * 0.002);
}

TEST(Table61, RefinementFindsTheRankOneArrangement) {
  // The rank-1 powers of Table 6.1; sorting them row-major is not rank-1, the refinement
  // must find an arrangement where every processor is busy (time = m n / sum of powers).
  const ProcessorPowers p{{1, 2, 3, 2, 4, 6, 3, 6, 9}};
  for (const auto& opt : {thesis_only(), HeteroOptions{}}) {
    const HeteroMapping h = map_heterogeneous(p, {3, 3}, 600, 600, opt);
    EXPECT_NEAR(h.iteration_time(), 600.0 * 600 / 36, 1e-9);
    for (double u : h.utilisation()) EXPECT_NEAR(u, 1.0, 1e-9);
  }
}

TEST(Table615And618, InitialMappingsAreAtLeastAsFastAsTheThesis) {
  // Experiment 2b (Tables 6.15/6.16): 326 275 / 227 175, rows 1197/803, cols 1111/889.
  const double thesis_2b = table_time({326, 275, 227, 175}, 2, {1197, 803}, {1111, 889});
  EXPECT_LE(map_heterogeneous(ProcessorPowers{{326, 275, 227, 175}}, {2, 2}, 2000, 2000).iteration_time(),
            thesis_2b);
  // Experiment 3 (Tables 6.18/6.19): 12 processors on 4x3.
  const std::vector<double> pw{9.9, 8.8, 8.5, 9.7, 8.7, 7, 6.7, 3.9, 2.6, 2, 1.8, 1.7};
  const double thesis_3 = table_time(pw, 3, {752, 735, 358, 155}, {839, 695, 466});
  EXPECT_NEAR(thesis_3 * 0.096e-3, 6.24, 0.01);  // seconds, as in Table 6.20's units
  const HeteroMapping h = map_heterogeneous(ProcessorPowers{pw}, {4, 3}, 2000, 2000);
  EXPECT_LE(h.iteration_time(), thesis_3);
}

TEST(HeteroMapping, PropertiesOnRandomPowers) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> d(0.1, 10);
  for (int trial = 0; trial < 40; ++trial) {
    const Topology g{1 + static_cast<int>(gen() % 4), 1 + static_cast<int>(gen() % 5)};
    ProcessorPowers p;
    for (int k = 0; k < g.size(); ++k) p.values.push_back(d(gen));
    const std::int64_t m = 500 + gen() % 1500, n = 500 + gen() % 1500;
    const double total = std::accumulate(p.values.begin(), p.values.end(), 0.0);
    for (auto method : {HeteroMethod::Svd, HeteroMethod::NaturalBlock}) {
      HeteroOptions o;
      o.method = method;
      const HeteroMapping h = map_heterogeneous(p, g, m, n, o);
      EXPECT_EQ(std::accumulate(h.rows.begin(), h.rows.end(), std::int64_t{0}), m);
      EXPECT_EQ(std::accumulate(h.cols.begin(), h.cols.end(), std::int64_t{0}), n);
      for (auto v : h.rows) EXPECT_GE(v, 1);
      for (auto v : h.cols) EXPECT_GE(v, 1);
      std::vector<int> ids = h.ids;
      std::sort(ids.begin(), ids.end());
      for (int k = 0; k < g.size(); ++k) EXPECT_EQ(ids[static_cast<std::size_t>(k)], k);
      // No mapping beats perfect balance: every processor busy the whole iteration.
      EXPECT_GE(h.iteration_time(), static_cast<double>(m) * static_cast<double>(n) / total * (1 - 1e-12));
      const auto u = h.utilisation();
      EXPECT_NEAR(*std::max_element(u.begin(), u.end()), 1.0, 1e-12);
    }
    // The ascent never lowers Obj2 for the same arrangement.
    HeteroOptions fixed_pure = thesis_only(), fixed_ascent;
    fixed_pure.refine_arrangement = fixed_ascent.refine_arrangement = false;
    EXPECT_GE(map_heterogeneous(p, g, m, n, fixed_ascent).throughput(),
              map_heterogeneous(p, g, m, n, fixed_pure).throughput() * (1 - 1e-12));
  }
}

TEST(HeteroMapping, OneRowGridIsPerfectlyBalanced) {
  const ProcessorPowers p{{5, 3, 2}};
  const HeteroMapping h = map_heterogeneous(p, {1, 3}, 10, 1000);
  std::vector<std::int64_t> cols = h.cols;
  std::sort(cols.begin(), cols.end());
  EXPECT_EQ(cols, (std::vector<std::int64_t>{200, 300, 500}));
  EXPECT_DOUBLE_EQ(h.iteration_time(), 10.0 * 1000 / 10);
}

TEST(HeteroMapping, NaturalBlockIsExactOnRankOneArrangements) {
  HeteroOptions o;
  o.method = HeteroMethod::NaturalBlock;
  o.coordinate_ascent = false;
  o.refine_arrangement = false;
  const HeteroMapping h = map_arranged(ProcessorPowers{{4, 2, 2, 1}}, {2, 2}, {0, 1, 2, 3}, 300, 300, o);
  EXPECT_EQ(h.rows, (std::vector<std::int64_t>{200, 100}));
  EXPECT_EQ(h.cols, (std::vector<std::int64_t>{200, 100}));
}

TEST(HeteroMapping, FixedSlotsKeepTheirProcessors) {
  HeteroOptions o;
  o.fixed = {1, 1, 0, 0};  // the first row is the old grid
  const HeteroMapping h = map_arranged(ProcessorPowers{{10, 1, 2, 9}}, {2, 2}, {0, 1, 2, 3}, 100, 100, o);
  EXPECT_EQ(h.ids[0], 0);
  EXPECT_EQ(h.ids[1], 1);
  // The new processors may swap: 9 goes under 10's column? Under the 1's column the 9 is
  // wasted; the refinement puts the faster newcomer where r_i c_j is larger.
  EXPECT_EQ(h.ids[2], 3);
}

TEST(HeteroTopology, SearchTakesTheBestFactorisation) {
  const ProcessorPowers p{{9, 8, 7, 3, 2, 1}};
  const HeteroMapping best = search_topology(p, 1200, 1200, AspectRatio::near_square(2));
  double want = 1e300;
  for (Topology g : {Topology{2, 3}, Topology{3, 2}})
    want = std::min(want, map_heterogeneous(p, g, 1200, 1200).iteration_time());
  EXPECT_DOUBLE_EQ(best.iteration_time(), want);
  // Unconstrained, one row of six is perfectly balanced and wins.
  EXPECT_EQ(search_topology(p, 1200, 1200).grid.rows, 1);
  EXPECT_EQ(squarest_factorization(12), (Topology{3, 4}));
  EXPECT_EQ(squarest_factorization(11), (Topology{1, 11}));
  EXPECT_THROW(squarest_factorization(7, AspectRatio::near_square(2)), Error);
}

TEST(HeteroLayout, BlockAndBlockCyclicPlugIntoRedist) {
  const HeteroMapping h = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000);
  const redist::Layout block = to_layout(h, h.ids);
  block.validate();
  EXPECT_EQ(block.row_blocks, h.rows);
  EXPECT_EQ(block.local_rows(0), h.rows[0]);
  const redist::Layout cyc = to_layout_cyclic(h, 200, 100, h.ids);
  cyc.validate();
  EXPECT_GT(cyc.row_blocks.size(), 2u);
  for (int pr = 0; pr < 2; ++pr) EXPECT_EQ(cyc.local_rows(pr), h.rows[static_cast<std::size_t>(pr)]);
  for (int pc = 0; pc < 2; ++pc) EXPECT_EQ(cyc.local_cols(pc), h.cols[static_cast<std::size_t>(pc)]);
  EXPECT_EQ(cyc.rank_list(), h.ids);
  EXPECT_THROW(to_layout_cyclic(h, 1, 100), Error);
}

TEST(HeteroMapping, RejectsBadInputNamingTheValue) {
  try {
    map_heterogeneous(ProcessorPowers{{3, 0, 2, 1}}, {2, 2}, 100, 100);
    FAIL() << "zero power accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[1] = 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(map_heterogeneous(ProcessorPowers{{3, -2, 2, 1}}, {2, 2}, 100, 100), Error);
  EXPECT_THROW(map_heterogeneous(ProcessorPowers{{3, 2, 1}}, {2, 2}, 100, 100), Error);
  EXPECT_THROW(map_heterogeneous(ProcessorPowers{{}}, {1, 1}, 100, 100), Error);
  EXPECT_THROW(map_heterogeneous(ProcessorPowers{{3, 2, 2, 1}}, {2, 2}, 1, 100), Error);
  EXPECT_THROW(map_arranged(ProcessorPowers{{3, 2, 2, 1}}, {2, 2}, {0, 0, 1, 2}, 100, 100), Error);
  EXPECT_THROW(parse_powers("1,x,3"), Error);
  EXPECT_EQ(parse_powers("313, 279,34,25").values, (std::vector<double>{313, 279, 34, 25}));
  EXPECT_THROW(proportional_sizes({1, 2}, 1), Error);
}

// ---- The thesis's own heuristic: HeteroOptions::thesis() against the sizes
// the thesis published. Tolerance 2 rows/columns: the thesis's powers were not integers
// (Table 6.17's "TPP used" 1984.84) and its rounding is not described.

namespace {

struct Published {
  std::vector<double> arrangement;  // row-major, as printed
  Topology grid;
  std::vector<std::int64_t> rows, cols;
  std::vector<double> t_opt;  // the T_opt table that follows it
};

void expect_reproduced(const HeteroMapping& h, const Published& t) {
  EXPECT_EQ(h.grid, t.grid);
  EXPECT_EQ(h.power, t.arrangement);
  ASSERT_EQ(h.rows.size(), t.rows.size());
  ASSERT_EQ(h.cols.size(), t.cols.size());
  for (std::size_t i = 0; i < t.rows.size(); ++i) EXPECT_NEAR(h.rows[i], t.rows[i], 2) << "row " << i;
  for (std::size_t j = 0; j < t.cols.size(); ++j) EXPECT_NEAR(h.cols[j], t.cols[j], 2) << "column " << j;
  // T_opt follows from the sizes; 2% (or 1 unit for the small ones) covers the +-2 sizes.
  const auto need = h.t_opt();
  for (std::size_t k = 0; k < t.t_opt.size(); ++k)
    EXPECT_NEAR(need[k], t.t_opt[k], std::max(1.0, 0.02 * t.t_opt[k])) << "slot " << k;
}

const Published kTable64{{313, 279, 34, 25}, {2, 2}, {1819, 181}, {1115, 885}, {313, 248, 31, 25}};
const Published kTable615{{326, 275, 227, 175}, {2, 2}, {1197, 803}, {1111, 889}, {325.7, 260.4, 218.7, 174.9}};
// Table 6.8 (Global at TPP 600 before the replacement, Table 6.9 its T_opt): 315 and 284
// join, sorted start [[315, 313, 284], [279, 34, 25]] refined into the published arrangement.
const Published kTable68{{315, 284, 279, 313, 34, 25}, {2, 3}, {1310, 690}, {1478, 302, 220},
                         {315, 64.3, 47, 166, 33.9, 24.8}};

}  // namespace

TEST(ThesisHeuristic, ReproducesTable64) {
  const ProcessorPowers p{{313, 279, 34, 25}};
  const HeteroMapping h = map_heterogeneous(p, {2, 2}, 2000, 2000, HeteroOptions::thesis());
  expect_reproduced(h, kTable64);
  EXPECT_NEAR(0.096 * h.iteration_time(), 622.9, 0.01 * 622.9);  // Table 6.6's T_Th
  // The literal §6.2.1.2 reading (c_j = b_j) misses the published columns by far.
  HeteroOptions literal = HeteroOptions::thesis();
  literal.svd_columns = SvdColumns::RankOne;
  EXPECT_GT(std::abs(map_heterogeneous(p, {2, 2}, 2000, 2000, literal).cols[0] - 1115), 50);
}

TEST(ThesisHeuristic, ReproducesTable615) {
  const HeteroMapping h =
      map_heterogeneous(ProcessorPowers{{326, 275, 227, 175}}, {2, 2}, 2000, 2000, HeteroOptions::thesis());
  expect_reproduced(h, kTable615);
}

TEST(ThesisHeuristic, ReproducesTable68ArrangementAndSizes) {
  // The six processors in the thesis's greedy order (old 313 279 34 25, new 315 284).
  const HeteroMapping h = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25, 315, 284}}, {2, 3}, 2000, 2000,
                                            HeteroOptions::thesis());
  expect_reproduced(h, kTable68);
  EXPECT_GE(h.iterations, 1);  // the published arrangement is not the sorted start
}

TEST(ThesisHeuristic, DefaultSizingIsAtLeastAsFastOnTheThesisGrids) {
  // The default (exact ascent, swap search) against the thesis's heuristic on every grid the
  // thesis sized: Tables 6.4, 6.8, 6.10, 6.15, 6.18. (On random powers the default is not
  // always faster: the heuristic wins on 21 of 500 random 2..4 x 2..4 grids, by up to 5%,
  // where its refinement ends in a better arrangement; docs/reference/gridmap.md.)
  const std::vector<std::pair<ProcessorPowers, Topology>> cases{
      {ProcessorPowers{{313, 279, 34, 25}}, {2, 2}},
      {ProcessorPowers{{326, 275, 227, 175}}, {2, 2}},
      {ProcessorPowers{{313, 279, 34, 25, 315, 284}}, {2, 3}},
      {ProcessorPowers{{313, 279, 34, 25, 315, 66, 95, 114}}, {2, 4}},
      {ProcessorPowers{{9.9, 8.8, 8.5, 9.7, 8.7, 7, 6.7, 3.9, 2.6, 2, 1.8, 1.7}}, {4, 3}}};
  for (const auto& [p, g] : cases) {
    const HeteroMapping ours = map_heterogeneous(p, g, 2000, 2000);
    const HeteroMapping theirs = map_heterogeneous(p, g, 2000, 2000, HeteroOptions::thesis());
    EXPECT_LE(ours.iteration_time(), theirs.iteration_time() * (1 + 1e-12)) << to_string(g);
    EXPECT_GE(ours.throughput(), theirs.throughput() * (1 - 1e-12)) << to_string(g);
  }
  // Table 6.4 by name: ours 6205.5, the thesis's heuristic 6464.6 (published sizes 6479.9).
  const ProcessorPowers p{{313, 279, 34, 25}};
  EXPECT_LT(map_heterogeneous(p, {2, 2}, 2000, 2000).iteration_time(),
            map_heterogeneous(p, {2, 2}, 2000, 2000, HeteroOptions::thesis()).iteration_time() * 0.97);
}
