// SPDX-License-Identifier: BSD-3-Clause
// The one derivation of a block-cyclic matrix's ScaLAPACK descriptor from its record and
// its form on a grid, {layout, context, leading dimension} (resize/src/parts/descriptor.hpp),
// against ScaLAPACK's own rule for the local rows (NUMROC, written out here) on every
// process of several grids. No MPI.
#include <gtest/gtest.h>

#include <algorithm>

#include "malleable/resize/types.hpp"
#include "parts/descriptor.hpp"

using resize::detail::descriptor;
using resize::detail::descriptor_elements;
using resize::detail::leading_dimension;
using resize::detail::Placement;
using resize::detail::placement;

namespace {
// ScaLAPACK's NUMROC(N, NB, IPROC, ISRCPROC, NPROCS).
long long numroc(long long n, long long nb, int iproc, int nprocs, int isrc = 0) {
  iproc = (iproc - isrc + nprocs) % nprocs;  // the distance from the source process
  const long long nblocks = n / nb;
  long long num = (nblocks / nprocs) * nb;
  const long long extra = nblocks % nprocs;
  if (iproc < extra) num += nb;
  else if (iproc == extra) num += n % nb;
  return num;
}
}  // namespace

TEST(Descriptor, OnEveryProcessOfAGridItIsScaLAPACKsAndOffItANonMembers) {
  for (const auto& [m, n, mb, nb] : {std::tuple{100, 37, 8, 5}, std::tuple{5, 64, 32, 16}, std::tuple{0, 9, 4, 4}}) {
    const redist::MatrixSpec mat = redist::MatrixSpec::block_cyclic(m, n, mb, nb);
    for (const auto& [pr, pc] : {std::pair{2, 3}, std::pair{1, 4}, std::pair{3, 1}}) {
      // the grid's ranks: world ranks 10, 11, ... row-major (a grid on part of a world)
      std::vector<int> ranks(static_cast<std::size_t>(pr * pc));
      for (std::size_t k = 0; k < ranks.size(); ++k) ranks[k] = 10 + static_cast<int>(k);
      const redist::Layout l = mat.layout_on(pr, pc, ranks);
      for (int r = 0; r < pr; ++r)
        for (int c = 0; c < pc; ++c) {
          const int rank = 10 + r * pc + c;
          const auto d = descriptor(mat, &l, 77, rank);
          const long long lr = numroc(m, mb, r, pr), lc = numroc(n, nb, c, pc);
          const std::array<int, 9> want{1, 77, m, n, mb, nb, 0, 0, static_cast<int>(std::max(1LL, lr))};
          EXPECT_EQ(d, want) << m << "x" << n << " on " << pr << "x" << pc << " at (" << r << ", " << c << ")";
          EXPECT_EQ(descriptor_elements(l, rank), static_cast<std::size_t>(std::max(1LL, lr) * std::max(1LL, lc)));
        }
      // a rank outside the grid: context -1, leading dimension 1, no buffer
      const std::array<int, 9> off{1, -1, m, n, mb, nb, 0, 0, 1};
      EXPECT_EQ(descriptor(mat, &l, 77, 3), off);
      EXPECT_EQ(descriptor_elements(l, 3), 0u);
      // not placed yet: off every grid with the record's blocks
      EXPECT_EQ(descriptor(mat, nullptr, 77, 10), off);
    }
  }
}

// A layout whose first block is not on process (0, 0) (RSRC, CSRC: a checkpoint's, a
// level's or a caller's layout): the descriptor names that source process, and the local
// rows, columns and leading dimension are ScaLAPACK's counted from it.
TEST(Descriptor, ItsSourceProcessIsTheLayouts) {
  const redist::MatrixSpec mat = redist::MatrixSpec::block_cyclic(100, 37, 8, 5);
  for (const auto& [rsrc, csrc] : {std::pair{1, 2}, std::pair{2, 0}, std::pair{0, 1}}) {
    const redist::Layout l = redist::Layout::block_cyclic(100, 37, 8, 5, 3, 4, rsrc, csrc);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        const int rank = r * 4 + c;
        const long long lr = numroc(100, 8, r, 3, rsrc), lc = numroc(37, 5, c, 4, csrc);
        const std::array<int, 9> want{1, 9, 100, 37, 8, 5, rsrc, csrc, static_cast<int>(std::max(1LL, lr))};
        EXPECT_EQ(descriptor(mat, &l, 9, rank), want) << "RSRC " << rsrc << " CSRC " << csrc << " at (" << r << ", " << c << ")";
        EXPECT_EQ(leading_dimension(l, rank), std::max(1LL, lr));
        EXPECT_EQ(descriptor_elements(l, rank), static_cast<std::size_t>(std::max(1LL, lr) * std::max(1LL, lc)));
      }
    // off the grid: the layout's source process still, context -1, leading dimension 1
    const std::array<int, 9> off{1, -1, 100, 37, 8, 5, rsrc, csrc, 1};
    EXPECT_EQ(descriptor(mat, &l, 9, 12), off);
    EXPECT_EQ(leading_dimension(l, 12), 1);
    // and the layout read back from that descriptor is the one it came from
    const auto d = descriptor(mat, &l, 9, 0);
    EXPECT_EQ(redist::Layout::from_desc(d.data(), 3, 4), l);
  }
}

// A block distribution's blocks depend on the grid: the descriptor's MB x NB are the
// record's blocks on that grid, not the registered ones.
TEST(Descriptor, ABlockDistributionsBlocksFollowTheGrid) {
  redist::MatrixSpec mat = redist::MatrixSpec::block_cyclic(100, 30, 8, 8);
  mat.dist = resize::Distribution::Block;
  const redist::Layout l = mat.layout_on(3, 2, {});
  const auto d = descriptor(mat, &l, 5, 0);
  EXPECT_EQ(d[4], mat.row_block_on(3));
  EXPECT_EQ(d[5], mat.col_block_on(2));
  EXPECT_EQ(d[8], numroc(100, d[4], 0, 3));
}

// The form besides the layout: the context where the rank has a place (-1 elsewhere) and
// the leading dimension by the one rule; the descriptor carries the form's context and
// leading dimension as given (the session's held ones), its shape, blocks and source from
// the record and the layout.
TEST(Descriptor, ThePlacementIsTheFormBesidesTheLayoutAndTheDescriptorCarriesIt) {
  const redist::MatrixSpec mat = redist::MatrixSpec::block_cyclic(100, 37, 8, 5);
  const redist::Layout l = redist::Layout::block_cyclic(100, 37, 8, 5, 3, 4, 1, 2);
  for (int rank = 0; rank < 12; ++rank) {
    const Placement p = placement(mat, l, 9, rank);
    EXPECT_EQ(p.context, 9);
    EXPECT_EQ(p.lld, leading_dimension(l, rank));
    EXPECT_EQ(descriptor(mat, &l, p), descriptor(mat, &l, 9, rank));
  }
  const Placement off = placement(mat, l, 9, 12);
  EXPECT_EQ(off.context, -1);
  EXPECT_EQ(off.lld, 1);
  // a held leading dimension larger than the local rows (a buffer with padding) is the
  // descriptor's, not recomputed from the layout
  const std::array<int, 9> padded{1, 4, 100, 37, 8, 5, 1, 2, 64};
  EXPECT_EQ(descriptor(mat, &l, Placement{4, 64}), padded);
  // without a layout the form says nothing: off every grid with the record's blocks
  const std::array<int, 9> none{1, -1, 100, 37, 8, 5, 0, 0, 1};
  EXPECT_EQ(descriptor(mat, nullptr, Placement{4, 64}), none);
}

TEST(Descriptor, AnExtendedMatrixHasNoneAndSaysSo) {
  redist::MatrixSpec mat = redist::MatrixSpec::block_cyclic(10, 10, 1, 1);
  mat.name = "W";
  mat.dist = resize::Distribution::Extended;
  try {
    descriptor(mat, nullptr, -1, 0);
    ADD_FAILURE() << "an extended matrix got a descriptor";
  } catch (const resize::Error& e) {
    EXPECT_NE(std::string(e.what()).find("matrix 'W' has per-process block sizes"), std::string::npos) << e.what();
  }
}
