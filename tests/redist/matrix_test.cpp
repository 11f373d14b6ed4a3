// SPDX-License-Identifier: BSD-3-Clause
// redist::MatrixSpec, the one record of a matrix before it has a grid: its layout on a
// grid for each distribution kind, the refusal of an extended one without its rule, and
// the element type's letters (the files' spelling) both ways.
#include <gtest/gtest.h>

#include <complex>
#include <string>

#include "malleable/redist/matrix.hpp"

using redist::Distribution;
using redist::MatrixSpec;
using redist::Scalar;

TEST(MatrixSpec, BlockCyclicKeepsItsBlockOnEveryGrid) {
  const MatrixSpec s = MatrixSpec::block_cyclic(100, 70, 8, 6);
  EXPECT_EQ(s.dist, Distribution::BlockCyclic);
  EXPECT_EQ(s.type, Scalar::D);
  for (int p : {1, 2, 3}) {
    const redist::Layout l = s.layout_on(p, p + 1);
    EXPECT_EQ(l.m, 100);
    EXPECT_EQ(l.n, 70);
    EXPECT_EQ(l.row_blocks.front(), 8);
    EXPECT_EQ(l.col_blocks.front(), 6);
    EXPECT_EQ(l.nprow, p);
    EXPECT_EQ(l.npcol, p + 1);
  }
}

TEST(MatrixSpec, BlockIsOneBlockPerProcessLine) {
  const MatrixSpec s = MatrixSpec::block(100, 70);
  EXPECT_EQ(s.dist, Distribution::Block);
  EXPECT_EQ(s.row_block_on(3), 34);  // ceil(100 / 3)
  EXPECT_EQ(s.col_block_on(4), 18);  // ceil(70 / 4)
  EXPECT_EQ(s.row_block_on(200), 1); // at least 1
  const redist::Layout l = s.layout_on(3, 4, {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  EXPECT_EQ(l.row_blocks.front(), 34);
  EXPECT_EQ(l.col_blocks.front(), 18);
  EXPECT_EQ(l.rank_at(0, 0), 11);  // the ranks given, row-major
}

TEST(MatrixSpec, ExtendedTakesItsBlocksFromItsRuleOnTheGridAsked) {
  MatrixSpec s;
  s.name = "A";
  s.m = 10;
  s.n = 9;
  s.dist = Distribution::Extended;
  int asked_rows = 0, asked_cols = 0;
  s.sizes = [&](int nprow, int npcol, const std::vector<int>& ranks, std::vector<long long>& rows,
                std::vector<long long>& cols) {
    asked_rows = nprow;
    asked_cols = npcol;
    EXPECT_EQ(ranks, (std::vector<int>{1, 0}));
    rows = {7, 3};
    cols = {9};
  };
  ASSERT_TRUE(s.extended());
  const redist::Layout l = s.layout_on(2, 1, {1, 0});
  EXPECT_EQ(asked_rows, 2);
  EXPECT_EQ(asked_cols, 1);
  EXPECT_EQ(l.row_blocks.to_vector(), (std::vector<std::int64_t>{7, 3}));
  EXPECT_EQ(l.col_blocks.to_vector(), (std::vector<std::int64_t>{9}));
  EXPECT_EQ(l.local_rows(0), 7);
  EXPECT_EQ(l.local_rows(1), 3);
}

TEST(MatrixSpec, AnExtendedOneWithoutItsRuleIsRefusedByName) {
  MatrixSpec s = MatrixSpec::block_cyclic(10, 10, 2, 2);
  s.name = "Ahat";
  s.dist = Distribution::Extended;
  try {
    (void)s.layout_on(2, 2);
    FAIL() << "an extended matrix without block sizes was laid out";
  } catch (const redist::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'Ahat'"), std::string::npos) << e.what();
  }
}

TEST(MatrixSpec, BlocksThatDoNotAddUpToItsShapeAreRefusedByName) {
  MatrixSpec s;
  s.name = "B";
  s.m = 10;
  s.n = 4;
  s.dist = Distribution::Extended;
  s.sizes = [](int, int, const std::vector<int>&, std::vector<long long>& rows, std::vector<long long>& cols) {
    rows = {5, 4};  // 9, not 10
    cols = {4};
  };
  try {
    (void)s.layout_on(2, 1);
    FAIL() << "blocks of 9 rows laid out a matrix of 10";
  } catch (const redist::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'B' (10 x 4): its block sizes on a 2x1 grid add up to 9 x 4"),
              std::string::npos) << e.what();
  }
}

TEST(Scalar, LettersRoundTripAndOnlySdczAreElementTypes) {
  for (Scalar t : {Scalar::S, Scalar::D, Scalar::C, Scalar::Z}) {
    Scalar back = Scalar::S;
    ASSERT_TRUE(redist::scalar_from_letter(redist::scalar_letter(t), back));
    EXPECT_EQ(back, t);
  }
  EXPECT_EQ(redist::scalar_letter(Scalar::Z), 'z');
  EXPECT_EQ(redist::scalar_bytes(redist::scalar_of<std::complex<float>>()), 8u);
  EXPECT_EQ(redist::scalar_bytes(redist::scalar_of<double>()), 8u);
  EXPECT_EQ(redist::scalar_bytes(Scalar::S), 4u);
  Scalar untouched = Scalar::C;
  for (char c : {'q', 'D', '\0', 'x'}) {
    EXPECT_FALSE(redist::scalar_from_letter(c, untouched)) << c;
    EXPECT_EQ(untouched, Scalar::C);
  }
}
