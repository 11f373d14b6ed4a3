// SPDX-License-Identifier: BSD-3-Clause
// The move's one builder (resize/src/move/move_items.hpp) on 4 ranks: matrices of
// different element types queued and run at once (several items: the multi-matrix
// exchange; one item: the single-plan executor), started and finished, the copies of
// level recovery reduced to A's array, the bytes sent, and the misuses refused. Every
// element checked against its global value.
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "move/move_items.hpp"

namespace {

using resize::detail::Scalar;
using resize::detail::HeldCopy;
using resize::detail::MoveItems;

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

template <class T>
T value(std::int64_t i, std::int64_t j, int salt) {
  return static_cast<T>(static_cast<double>(i * 1000 + j + salt));
}

// This rank's local array of `l` (column-major, ld = local rows), each element its global
// value, or zeros; empty off the grid.
template <class T>
std::vector<T> local(const redist::Layout& l, int salt, bool filled, std::int64_t& ld) {
  int pr = -1, pc = -1;
  ld = 1;
  if (!l.coords_of(rank(), pr, pc)) return {};
  const std::int64_t lr = l.local_rows(pr), lc = l.local_cols(pc);
  ld = std::max<std::int64_t>(1, lr);
  std::vector<T> a(static_cast<std::size_t>(ld * std::max<std::int64_t>(1, lc)), T{});
  const auto ra = l.row_axis(), ca = l.col_axis();
  if (filled)
    for (std::int64_t jl = 0; jl < lc; ++jl)
      for (std::int64_t il = 0; il < lr; ++il)
        a[static_cast<std::size_t>(jl * ld + il)] = value<T>(ra.to_global(pr, il), ca.to_global(pc, jl), salt);
  return a;
}

template <class T>
int wrong(const redist::Layout& l, const std::vector<T>& b, std::int64_t ld, int salt) {
  int pr = -1, pc = -1, bad = 0;
  if (!l.coords_of(rank(), pr, pc)) return 0;
  const auto ra = l.row_axis(), ca = l.col_axis();
  for (std::int64_t jl = 0; jl < l.local_cols(pc); ++jl)
    for (std::int64_t il = 0; il < l.local_rows(pr); ++il)
      bad += b[static_cast<std::size_t>(jl * ld + il)] != value<T>(ra.to_global(pr, il), ca.to_global(pc, jl), salt);
  return bad;
}

redist::Layout grid(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb, int p, int q) {
  std::vector<int> ranks(static_cast<std::size_t>(p * q));
  for (int k = 0; k < p * q; ++k) ranks[static_cast<std::size_t>(k)] = (k * 3) % (p * q);  // not the identity
  return redist::Layout::block_cyclic(m, n, mb, nb, p, q, 0, 0, redist::RankMap(std::move(ranks)));
}

TEST(MoveItems, MatricesOfDifferentTypesRunAtOnceAndAloneAndStarted) {
  const redist::Layout la = grid(37, 23, 4, 3, 2, 2), lb = grid(37, 23, 5, 2, 1, 4);
  const redist::Layout ka = grid(19, 41, 2, 7, 4, 1), kb = grid(19, 41, 3, 3, 2, 2);
  for (int how = 0; how < 3; ++how) {  // 0: run two items, 1: run one item, 2: start, test, finish
    std::int64_t lda = 1, ldb = 1, lka = 1, lkb = 1;
    auto a = local<double>(la, 1, true, lda), b = local<double>(lb, 1, false, ldb);
    auto c = local<std::complex<float>>(ka, 2, true, lka), d = local<std::complex<float>>(kb, 2, false, lkb);
    MoveItems batch;
    batch.add(la, a.empty() ? nullptr : a.data(), lda, lb, b.empty() ? nullptr : b.data(), ldb, Scalar::D, 4, rank());
    if (how != 1)
      batch.add(ka, c.empty() ? nullptr : c.data(), lka, kb, d.empty() ? nullptr : d.data(), lkb, Scalar::C, 4, rank());
    EXPECT_EQ(batch.size(), how == 1 ? 1u : 2u);
    if (how < 2) {
      batch.run(MPI_COMM_WORLD);
    } else {
      batch.start(MPI_COMM_WORLD, redist::ExecOptions{});
      EXPECT_THROW(batch.start(MPI_COMM_WORLD, redist::ExecOptions{}), redist::Error);
      EXPECT_THROW(batch.add(la, nullptr, 1, lb, nullptr, 1, Scalar::D, 4, rank()), redist::Error);
      batch.test();
      batch.finish();
      EXPECT_TRUE(batch.test());  // done
    }
    EXPECT_EQ(wrong(lb, b, ldb, 1), 0) << "how " << how;
    if (how != 1) {
      EXPECT_EQ(wrong(kb, d, lkb, 2), 0) << "how " << how;
    }
    // The bytes this rank sends to others: its plans' transfers from it, elements times
    // their size (8 for both: double and complex<float>).
    std::int64_t sent = 0;
    for (std::size_t k = 0; k < batch.size(); ++k)
      for (const auto& t : batch.plan(k).transfers)
        if (t.src == rank() && t.dst != rank()) sent += t.elements() * 8;
    EXPECT_EQ(batch.sent_bytes(rank()), sent);
    EXPECT_GT(sent, 0);
  }
}

// Level recovery's copies: a rank map that lists no rank twice takes the one copy held
// here as A's array (a rank holding none passes none).
TEST(MoveItems, OneHeldCopyIsAsArray) {
  const redist::Layout la = grid(29, 31, 3, 4, 2, 2), lb = grid(29, 31, 4, 4, 4, 1);
  std::int64_t lda = 1, ldb = 1;
  auto a = local<float>(la, 3, true, lda), b = local<float>(lb, 3, false, ldb);
  std::vector<HeldCopy> held;
  int pr = -1, pc = -1;
  if (la.coords_of(rank(), pr, pc)) held.push_back({pr, pc, a.data(), lda});
  MoveItems batch;
  batch.add_held(la, held, lb, b.empty() ? nullptr : b.data(), ldb, Scalar::S, 4, rank());
  batch.run(MPI_COMM_WORLD);
  EXPECT_EQ(wrong(lb, b, ldb, 3), 0);
}

}  // namespace
