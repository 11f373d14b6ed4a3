// SPDX-License-Identifier: BSD-3-Clause
// Processor selection under a TPP budget (thesis §6.3) against Tables 6.7, 6.17, 6.20.
//
// The thesis's T_Th is 0.096 * max_ij rows_i cols_j / PP_ij in ms for 2000 x 2000
// (§6.4.2); HeteroMapping::iteration_time() is the bracket. The published 30-power list is
// rounded to integers (TPP used 1984.84 shows the originals were not), so the table rows
// are compared with 2% slack; docs/reference/gridmap.md lists ours beside theirs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/selection.hpp"

using namespace gridmap;

namespace {

const ProcessorPowers kThirty{{298, 95, 35, 11, 30, 28, 39, 218, 39, 91, 290, 279, 249, 315, 210,
                               64, 209, 284, 131, 84, 176, 267, 66, 232, 114, 138, 157, 251, 250, 174}};

double tth_ms(const Selection& s) { return 0.096 * s.mapping.iteration_time(); }

struct Row {
  double tpp, global, local, mixed;
};

void check_table(const HeteroMapping& initial, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    const auto all = compare_selections(initial, kThirty, r.tpp);
    ASSERT_EQ(all.size(), 4u);
    const double g = tth_ms(all[0]), l = tth_ms(all[1]), m = tth_ms(all[2]);
    EXPECT_EQ(all[0].strategy, SelectionStrategy::Global);
    EXPECT_EQ(all[1].strategy, SelectionStrategy::Local);
    EXPECT_EQ(all[2].strategy, SelectionStrategy::Mixed);
    EXPECT_LE(g, r.global * 1.02) << "TPP " << r.tpp;
    EXPECT_LE(l, r.local * 1.02) << "TPP " << r.tpp;
    EXPECT_LE(m, r.mixed * 1.02) << "TPP " << r.tpp;
    // Mixed starts from Local's arrangement, so it is never slower.
    EXPECT_LE(m, l * (1 + 1e-12)) << "TPP " << r.tpp;
    // The best of ours beats the best of theirs outright.
    EXPECT_LT(std::min({g, l, m}), std::min({r.global, r.local, r.mixed})) << "TPP " << r.tpp;
    for (const auto& s : all) {
      EXPECT_LE(s.tpp_used, r.tpp + 1e-9);
      EXPECT_EQ(s.mapping.grid.size(), initial.grid.size() + static_cast<int>(s.chosen.size()));
      EXPECT_EQ(std::accumulate(s.mapping.rows.begin(), s.mapping.rows.end(), std::int64_t{0}), 2000);
      EXPECT_EQ(std::accumulate(s.mapping.cols.begin(), s.mapping.cols.end(), std::int64_t{0}), 2000);
      EXPECT_EQ(s.movement.elements_total, 2000LL * 2000);
    }
    // Local keeps the old processors' relative places: each old grid row stays in one row.
    const auto& lm = all[1].mapping;
    for (int i = 0; i < lm.grid.rows; ++i) {
      int olds = 0;
      for (int j = 0; j < lm.grid.cols; ++j) olds += lm.ids[static_cast<std::size_t>(i) * lm.grid.cols + j] < initial.grid.size();
      EXPECT_TRUE(olds == 0 || olds == initial.grid.cols) << "TPP " << r.tpp;
    }
  }
}

}  // namespace

TEST(Table67, GlobalLocalMixedAtLeastAsGoodAsTheThesis) {
  const HeteroMapping initial = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000);
  check_table(initial, {{1600, 188.2, 184.0, 183.3}, {1400, 264.9, 215.9, 214.9}, {1200, 250.5, 217.8, 215.9},
                        {1000, 274.3, 273.5, 272.7}, {800, 309.6, 282.1, 282.1}, {600, 357.4, 326.0, 326.2},
                        {400, 488.2, 396.3, 396.3}, {200, 508.5, 487.3, 487.3}});
}

TEST(Table617, GlobalLocalMixedAtLeastAsGoodAsTheThesis) {
  const HeteroMapping initial = map_heterogeneous(ProcessorPowers{{326, 275, 227, 175}}, {2, 2}, 2000, 2000);
  check_table(initial, {{2000, 129.0, 133.4, 132.2}, {1600, 160.0, 176.4, 170.7}, {1400, 165.0, 165.2, 165.2},
                        {1200, 178.6, 184.1, 184.1}, {1000, 297.3, 204.6, 204.6}, {800, 244.7, 234.8, 234.8},
                        {600, 254.7, 250.7, 250.7}, {400, 299.6, 298.4, 298.4}, {200, 322.2, 331.9, 331.9}});
}

TEST(Table620, SeriesOfExpansionsTracksTheThesis) {
  // The thesis does not publish its four lists of 20 random powers in 0.1-10; a seeded
  // generator stands in. Each step grows the previous step's grid (Global and Local each
  // continue from their own); T_Th in seconds must stay within 15% of Table 6.20 or better,
  // fall at every step and never beat perfect balance.
  const ProcessorPowers start{{9.9, 8.8, 8.5, 9.7, 8.7, 7, 6.7, 3.9, 2.6, 2, 1.8, 1.7}};
  HeteroMapping g = map_heterogeneous(start, {4, 3}, 2000, 2000);
  HeteroMapping l = g;
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> d(0.1, 10.0);
  const double tpp[] = {30, 45, 28, 57}, thesis_g[] = {4.2, 2.9, 2.4, 1.7}, thesis_l[] = {4.2, 2.9, 2.5, 1.8};
  double prev_g = 1e300, prev_l = 1e300;
  for (int step = 0; step < 4; ++step) {
    ProcessorPowers offer;
    for (int k = 0; k < 20; ++k) offer.values.push_back(std::round(d(gen) * 10) / 10);
    const Selection sg = select_processors(g, offer, tpp[step], SelectionStrategy::Global);
    const Selection sl = select_processors(l, offer, tpp[step], SelectionStrategy::Local);
    const double tg = 0.096e-3 * sg.mapping.iteration_time(), tl = 0.096e-3 * sl.mapping.iteration_time();
    EXPECT_LE(tg, thesis_g[step] * 1.15) << "step " << step;
    EXPECT_LE(tl, thesis_l[step] * 1.15) << "step " << step;
    EXPECT_LT(tg, prev_g);
    EXPECT_LT(tl, prev_l);
    for (const auto* s : {&sg, &sl}) {
      const double power = s->mapping.total_power();
      EXPECT_GE(s->mapping.iteration_time(), 2000.0 * 2000 / power * (1 - 1e-12));
      EXPECT_LE(s->tpp_used, tpp[step] + 1e-9);
    }
    // Local grows by whole rows and columns.
    EXPECT_GE(sl.mapping.grid.rows, l.grid.rows);
    EXPECT_GE(sl.mapping.grid.cols, l.grid.cols);
    prev_g = tg;
    prev_l = tl;
    g = sg.mapping;
    l = sl.mapping;
  }
}

TEST(Selection, GlobalReplacementTable68Scenario) {
  // §6.4.2, TPP 600: fastest first takes 315 and 284; the thesis's replacement step then
  // trades the under-used 284 for smaller processors. Without replacement ours keeps the
  // 2x3 grid; with it the iteration is shorter.
  const HeteroMapping initial = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000);
  SelectionOptions plain;
  plain.replacement = false;
  const Selection a = select_processors(initial, kThirty, 600, SelectionStrategy::Global, plain);
  std::vector<double> picked;
  for (int k : a.chosen) picked.push_back(kThirty.values[static_cast<std::size_t>(k)]);
  EXPECT_EQ(picked, (std::vector<double>{315, 284}));
  EXPECT_EQ(a.mapping.grid.size(), 6);
  const Selection b = select_processors(initial, kThirty, 600, SelectionStrategy::Global);
  EXPECT_LT(b.mapping.iteration_time(), a.mapping.iteration_time());
}

TEST(Selection, GlobalSearchAndAspectConstraints) {
  const HeteroMapping initial = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000);
  // Searching every factorisation without a constraint ends on one row: perfect balance.
  SelectionOptions search;
  search.global_grid = GlobalGrid::Search;
  const Selection a = select_processors(initial, kThirty, 800, SelectionStrategy::Global, search);
  EXPECT_EQ(a.mapping.grid.rows, 1);
  const double ideal = 2000.0 * 2000 / a.mapping.total_power();  // up to integer rounding
  EXPECT_NEAR(a.mapping.iteration_time(), ideal, 0.005 * ideal);
  // A near-square constraint keeps Global's grid within 2:1, dropping processors if the
  // count has no admitted factorisation.
  SelectionOptions square;
  square.aspect = AspectRatio::near_square(2);
  for (double tpp : {200.0, 600.0, 1400.0}) {
    const Selection b = select_processors(initial, kThirty, tpp, SelectionStrategy::Global, square);
    EXPECT_TRUE(square.aspect.admits(b.mapping.grid)) << to_string(b.mapping.grid);
    EXPECT_LE(b.tpp_used, tpp);
  }
}

TEST(Selection, AdaptivePicksTheLowestPredictedTime) {
  const HeteroMapping initial = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000);
  for (double per_element : {0.0, 1e-6}) {
    SelectionOptions o;
    o.cost.seconds_per_element = per_element;
    const auto all = compare_selections(initial, kThirty, 800, o);
    double best = 1e300;
    for (std::size_t k = 0; k < 3; ++k) best = std::min(best, all[k].predicted_seconds);
    EXPECT_DOUBLE_EQ(all[3].predicted_seconds, best);
    EXPECT_EQ(select_processors(initial, kThirty, 800, SelectionStrategy::Adaptive, o).predicted_seconds, best);
  }
  // With free data movement Adaptive picks the fastest iteration; when moving data is very
  // expensive it picks the choice that moves the least.
  SelectionOptions cheap, dear;
  cheap.cost.seconds_per_element = 0;
  dear.cost.seconds_per_element = 1;
  const auto c = compare_selections(initial, kThirty, 800, cheap);
  const auto d = compare_selections(initial, kThirty, 800, dear);
  double fastest = 1e300;
  std::int64_t least = INT64_MAX;
  for (std::size_t k = 0; k < 3; ++k) {
    fastest = std::min(fastest, c[k].mapping.iteration_time());
    least = std::min(least, std::max(d[k].movement.max_sent_by_one, d[k].movement.max_recv_by_one));
  }
  EXPECT_DOUBLE_EQ(c[3].mapping.iteration_time(), fastest);
  EXPECT_EQ(std::max(d[3].movement.max_sent_by_one, d[3].movement.max_recv_by_one), least);
}

TEST(Selection, RejectsBadInputNamingTheValue) {
  const HeteroMapping initial = map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000);
  try {
    select_processors(initial, kThirty, 10, SelectionStrategy::Global);
    FAIL() << "TPP below every processor accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TPP = 10"), std::string::npos) << e.what();
  }
  EXPECT_THROW(select_processors(initial, kThirty, 0, SelectionStrategy::Local), Error);
  EXPECT_THROW(select_processors(initial, kThirty, -5, SelectionStrategy::Local), Error);
  EXPECT_THROW(select_processors(initial, ProcessorPowers{{}}, 100, SelectionStrategy::Local), Error);
  EXPECT_THROW(select_processors(initial, ProcessorPowers{{50, -1}}, 100, SelectionStrategy::Local), Error);
  EXPECT_THROW(parse_selection_strategy("best"), Error);
  SelectionOptions bad;
  bad.underuse = 1.5;
  EXPECT_THROW(select_processors(initial, kThirty, 600, SelectionStrategy::Global, bad), Error);
}

// ---- The thesis's own rules: SelectionOptions::thesis() on the TPP-600 case
// study of §6.4.2 (Tables 6.8-6.10).

namespace {

std::vector<double> chosen_powers(const Selection& s) {
  std::vector<double> v;
  for (int k : s.chosen) v.push_back(kThirty.values[static_cast<std::size_t>(k)]);
  return v;
}

HeteroMapping thesis_initial(const std::vector<double>& powers) {
  return map_heterogeneous(ProcessorPowers{powers}, {2, 2}, 2000, 2000, HeteroOptions::thesis());
}

}  // namespace

TEST(ThesisGlobal, Table68WithoutReplacement) {
  // "2 more processors were chosen and a 2 x 3 processor grid was constructed" (Table 6.8).
  SelectionOptions o = SelectionOptions::thesis();
  o.replacement = false;
  const Selection s = select_processors(thesis_initial({313, 279, 34, 25}), kThirty, 600, SelectionStrategy::Global, o);
  EXPECT_EQ(chosen_powers(s), (std::vector<double>{315, 284}));
  const HeteroMapping& h = s.mapping;
  EXPECT_EQ(h.grid, (Topology{2, 3}));
  EXPECT_EQ(h.power, (std::vector<double>{315, 284, 279, 313, 34, 25}));
  const std::vector<std::int64_t> rows{1310, 690}, cols{1478, 302, 220};
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(h.rows[i], rows[i], 2) << "row " << i;
  for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(h.cols[j], cols[j], 2) << "column " << j;
  // Table 6.9: 284 (T_opt 64.3) and 279 (47) are the under-used ones.
  const auto u = h.utilisation();
  EXPECT_LT(u[1], 0.9);
  EXPECT_LT(u[2], 0.9);
}

TEST(ThesisGlobal, Table610ReplacesAndAvoidsTheSevenByOneGrid) {
  // "we replace 284 with 66 ... two processors (95 and 114) are added instead of one, to
  // avoid having a 7 x 1 grid" (Table 6.10: 2 x 4, TPP used 590.56, T_Th 357.4 ms).
  const Selection s =
      select_processors(thesis_initial({313, 279, 34, 25}), kThirty, 600, SelectionStrategy::Global,
                        SelectionOptions::thesis());
  std::vector<double> got = chosen_powers(s);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<double>{66, 95, 114, 315}));
  EXPECT_EQ(s.mapping.grid, (Topology{2, 4}));
  EXPECT_NEAR(s.tpp_used, 590.56, 1);
  EXPECT_NEAR(tth_ms(s), 357.4, 0.01 * 357.4);
  const std::vector<std::int64_t> rows{1639, 361}, cols{714, 683, 348, 255};  // ours: +-3
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(s.mapping.rows[i], rows[i], 3) << "row " << i;
  for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(s.mapping.cols[j], cols[j], 3) << "column " << j;
  // The fastest-first refill would have been one processor (218): seven, a single line.
  EXPECT_EQ(squarest_factorization(7), (Topology{1, 7}));
  // The default's improving rule keeps the 1 x 7 (faster under T_Th, which has no
  // communication cost), so the two rules do differ here.
  EXPECT_EQ(select_processors(map_heterogeneous(ProcessorPowers{{313, 279, 34, 25}}, {2, 2}, 2000, 2000), kThirty,
                              600, SelectionStrategy::Global)
                .mapping.grid,
            (Topology{1, 7}));
}

TEST(ThesisGlobal, ReplacementNeverEndsOnASingleRowOrColumn) {
  // Whenever the thesis's replacement step changes the set, the grid it ends on has at
  // least two rows and two columns (both initial grids, every TPP of Tables 6.7 and 6.17,
  // and seeded random offers).
  std::vector<std::pair<HeteroMapping, ProcessorPowers>> runs;
  for (const auto& init : {std::vector<double>{313, 279, 34, 25}, std::vector<double>{326, 275, 227, 175}})
    runs.emplace_back(thesis_initial(init), kThirty);
  std::mt19937 gen(613);
  std::uniform_real_distribution<double> d(10, 300);
  for (int k = 0; k < 6; ++k) {
    ProcessorPowers offer;
    for (int i = 0; i < 30; ++i) offer.values.push_back(std::round(d(gen)));
    runs.emplace_back(thesis_initial({313, 279, 34, 25}), offer);
  }
  int replaced = 0;
  for (const auto& [initial, offer] : runs)
    for (double tpp : {200.0, 400.0, 600.0, 800.0, 1000.0, 1200.0, 1400.0, 1600.0, 2000.0}) {
      SelectionOptions with = SelectionOptions::thesis(), without = with;
      without.replacement = false;
      const Selection a = select_processors(initial, offer, tpp, SelectionStrategy::Global, without);
      const Selection b = select_processors(initial, offer, tpp, SelectionStrategy::Global, with);
      EXPECT_LE(b.tpp_used, tpp + 1e-9);
      if (a.chosen == b.chosen) continue;
      ++replaced;
      EXPECT_GE(b.mapping.grid.rows, 2) << "TPP " << tpp << ": " << b.notes;
      EXPECT_GE(b.mapping.grid.cols, 2) << "TPP " << tpp << ": " << b.notes;
    }
  EXPECT_GE(replaced, 3);  // the rule was exercised
}

TEST(ThesisGlobal, DefaultBeatsOrEqualsTheThesisRulesAtEveryTpp) {
  // Tables 6.7 and 6.17's TPPs: the best of our default strategies is at least as fast as
  // the best of the thesis's rules run by us, and the thesis's rules stay within 3% of the
  // thesis's published best T_Th (its powers were not integers).
  const std::vector<std::pair<std::vector<double>, std::vector<std::pair<double, double>>>> tables{
      {{313, 279, 34, 25},
       {{1600, 183.3}, {1400, 214.9}, {1200, 215.9}, {1000, 272.7}, {800, 282.1}, {600, 326.0}, {400, 396.3}, {200, 487.3}}},
      {{326, 275, 227, 175},
       {{2000, 129.0}, {1600, 160.0}, {1400, 165.0}, {1200, 178.6}, {1000, 204.6}, {800, 234.8}, {600, 250.7},
        {400, 298.4}, {200, 322.2}}}};
  for (const auto& [init, rows] : tables)
    for (const auto& [tpp, published_best] : rows) {
      const auto ours = compare_selections(map_heterogeneous(ProcessorPowers{init}, {2, 2}, 2000, 2000), kThirty, tpp);
      const auto theirs = compare_selections(thesis_initial(init), kThirty, tpp, SelectionOptions::thesis());
      double best_ours = 1e300, best_theirs = 1e300;
      for (std::size_t k = 0; k < 3; ++k) {
        best_ours = std::min(best_ours, tth_ms(ours[k]));
        best_theirs = std::min(best_theirs, tth_ms(theirs[k]));
      }
      EXPECT_LE(best_ours, best_theirs * (1 + 1e-12)) << "TPP " << tpp;
      // Table 6.17 at TPP 200: the thesis added one processor for 193.71 (Global, 1 x 5); the
      // printed list has no such power, so that row is not comparable.
      if (init[0] == 326 && tpp == 200) continue;
      EXPECT_LE(best_theirs, published_best * 1.03) << "TPP " << tpp;
    }
}
