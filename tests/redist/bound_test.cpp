// SPDX-License-Identifier: BSD-3-Clause
// The copy/shared-memory bound model (malleable/redist/bound.hpp): hand-computed values.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "malleable/redist/bound.hpp"

using redist::BoundRates;

TEST(Bound, OneRankAddsCopyAndExchange) {
  const BoundRates r{4e9, 2e9};
  // 8 GB kept at 4 GB/s = 2 s, 2 GB moved at 2 GB/s = 1 s.
  EXPECT_DOUBLE_EQ(redist::rank_bound_seconds(8e9, 2e9, r), 3.0);
  EXPECT_DOUBLE_EQ(redist::rank_bound_seconds(0, 0, r), 0.0);
}

TEST(Bound, SlowestRankIsTheBound) {
  const BoundRates r{1e9, 1e9};
  EXPECT_DOUBLE_EQ(redist::bound_seconds({1e9, 3e9}, {1e9, 0}, r), 3.0);
  EXPECT_DOUBLE_EQ(redist::bound_seconds({}, {}, r), 0.0);
}

TEST(Bound, TotalsGiveTheMeanRankAtMostTheSlowest) {
  const BoundRates r{2e9, 1e9};
  const std::vector<double> kept{1e9, 3e9}, moved{2e9, 0};
  const double mean = redist::bound_seconds_from_totals(4e9, 2e9, 2, r);
  EXPECT_DOUBLE_EQ(mean, (4e9 / 2e9 + 2e9 / 1e9) / 2);
  EXPECT_LE(mean, redist::bound_seconds(kept, moved, r));
}

TEST(Bound, FractionAndRate) {
  EXPECT_DOUBLE_EQ(redist::fraction_of_bound(0.7, 1.0), 0.7);
  EXPECT_DOUBLE_EQ(redist::fraction_of_bound(1.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(redist::gb_per_s(3e9, 1.5), 2.0);
  EXPECT_DOUBLE_EQ(redist::gb_per_s(3e9, 0.0), 0.0);
}

TEST(Bound, RefusesMissingRatesAndNegativeBytes) {
  EXPECT_THROW(redist::rank_bound_seconds(1, 1, BoundRates{0, 1}), std::invalid_argument);
  EXPECT_THROW(redist::rank_bound_seconds(1, 1, BoundRates{1, 0}), std::invalid_argument);
  EXPECT_THROW(redist::rank_bound_seconds(-1, 1, BoundRates{1, 1}), std::invalid_argument);
  EXPECT_THROW(redist::bound_seconds({1}, {}, BoundRates{1, 1}), std::invalid_argument);
  EXPECT_THROW(redist::bound_seconds_from_totals(1, 1, 0, BoundRates{1, 1}), std::invalid_argument);
}
