// SPDX-License-Identifier: BSD-3-Clause
// Aliased arguments: A and B the same distributed array with overlapping
// regions, e.g. the column shift X(:,2:6) := X(:,1:5). ScaLAPACK's PDGEMR2D answers as if
// A were read before B is written; redist must give the same answer, element by element,
// checked against a serial copy through a temporary (the definition) and, where
// ScaLAPACK's own routine is exact (one process), against ScaLAPACK's result.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <string>

#include "mpi_common.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"

using namespace redist_test;
using redist::Layout;
using redist::Region;
using redist::ScheduleKind;

namespace {

// X(ib:ib+m-1, jb:jb+n-1) := X(ia:ia+m-1, ja:ja+n-1), 1-based as in PDGEMR2D.
struct Shift {
  int m, n, ia, ja, ib, jb;
  std::string label() const {
    return "X(" + std::to_string(ib) + ":" + std::to_string(ib + m - 1) + "," + std::to_string(jb) + ":" +
           std::to_string(jb + n - 1) + ") := X(" + std::to_string(ia) + ":" + std::to_string(ia + m - 1) + "," +
           std::to_string(ja) + ":" + std::to_string(ja + n - 1) + ")";
  }
};

// The global matrix after the shift, computed serially through a temporary.
std::vector<double> serial_shift(std::int64_t M, std::int64_t N, const Shift& s) {
  std::vector<double> g(static_cast<std::size_t>(M * N)), tmp(static_cast<std::size_t>(s.m) * s.n);
  for (std::int64_t j = 0; j < N; ++j)
    for (std::int64_t i = 0; i < M; ++i) g[static_cast<std::size_t>(j * M + i)] = make<double>(i, j);
  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.m; ++i)
      tmp[static_cast<std::size_t>(j) * s.m + i] = g[static_cast<std::size_t>((s.ja - 1 + j) * M + (s.ia - 1 + i))];
  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.m; ++i)
      g[static_cast<std::size_t>((s.jb - 1 + j) * M + (s.ib - 1 + i))] = tmp[static_cast<std::size_t>(j) * s.m + i];
  return g;
}

// Elements of this rank's local array that differ from the global reference (padding rows
// below the local rows must keep the sentinel). Names the first few in `why`.
int count_wrong(const Layout& l, int rank, const LocalMatrix<double>& x, const std::vector<double>& want,
                std::string& why) {
  if (!x.in_grid) return 0;
  int pr = 0, pc = 0;
  l.coords_of(rank, pr, pc);
  const auto ra = l.row_axis(), ca = l.col_axis();
  int bad = 0;
  for (std::int64_t jl = 0; jl < x.cols; ++jl)
    for (std::int64_t il = 0; il < x.ld; ++il) {
      const double got = x.data[static_cast<std::size_t>(jl * x.ld + il)];
      const double w = il < x.rows ? want[static_cast<std::size_t>(ca.to_global(pc, jl) * l.m + ra.to_global(pr, il))]
                                   : sentinel<double>();
      if (std::memcmp(&got, &w, sizeof got) != 0 && bad++ < 3)
        why += " local(" + std::to_string(il) + "," + std::to_string(jl) + ")=" + std::to_string(got) + " want " +
               std::to_string(w) + ";";
    }
  return bad;
}

const std::vector<Shift> kShifts = {
    {16, 5, 1, 1, 1, 2},   // the issue's column shift: X(:,2:6) := X(:,1:5), 80 elements
    {16, 5, 1, 2, 1, 1},   // and back
    {15, 6, 1, 1, 2, 1},   // rows down
    {14, 5, 3, 2, 1, 1},   // diagonal up-left
    {13, 4, 1, 1, 4, 3},   // diagonal down-right, overlapping partly
    {16, 6, 1, 1, 1, 1},   // B := A in place
};

}  // namespace

// One process per case (each rank runs its own on MPI_COMM_SELF): ScaLAPACK's PDGEMR2D is
// exact here, so redist must match it bit for bit, through the C drop-in shape
// (redist_Cpdgemr2d) and the redist_desc form (redist_pdgemr2d).
TEST(Aliasing, OneProcessShiftsMatchScalapackAndTheSerialCopy) {
  int wrank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  const int sys = Csys2blacs_handle(MPI_COMM_SELF);
  int ctxt = sys;
  Cblacs_gridinit(&ctxt, "R", 1, 1);
  const std::array<std::array<int, 2>, 4> blocks{{{4, 2}, {1, 1}, {3, 2}, {16, 6}}};
  const auto [mb, nb] = blocks[static_cast<std::size_t>(wrank) % blocks.size()];
  const std::int64_t M = 16, N = 6;
  const Layout l = Layout::block_cyclic(M, N, mb, nb, 1, 1);
  for (const Shift& s : kShifts) {
    SCOPED_TRACE(s.label() + " blocks " + std::to_string(mb) + "x" + std::to_string(nb));
    const auto want = serial_shift(M, N, s);
    auto ref = fill_local<double>(l, 0, true, 1);
    const auto desc = l.to_desc(ctxt, static_cast<int>(ref.ld));
    Cpdgemr2d(s.m, s.n, ref.data.data(), s.ia, s.ja, desc.data(), ref.data.data(), s.ib, s.jb, desc.data(), ctxt);
    std::string why;
    ASSERT_EQ(count_wrong(l, 0, ref, want, why), 0) << "ScaLAPACK itself:" << why;

    auto x = fill_local<double>(l, 0, true, 1);
    ASSERT_EQ(redist_Cpdgemr2d(s.m, s.n, x.data.data(), s.ia, s.ja, desc.data(), x.data.data(), s.ib, s.jb,
                               desc.data(), ctxt, REDIST_DEFAULT),
              REDIST_SUCCESS)
        << redist_error_message();
    EXPECT_EQ(x.data, ref.data) << "redist_Cpdgemr2d differs from PDGEMR2D";
    why.clear();
    EXPECT_EQ(count_wrong(l, 0, x, want, why), 0) << "redist_Cpdgemr2d:" << why;

    auto y = fill_local<double>(l, 0, true, 1);
    redist_desc d{};
    ASSERT_EQ(redist_desc_from_scalapack(&d, desc.data()), REDIST_SUCCESS) << redist_error_message();
    ASSERT_EQ(redist_pdgemr2d(s.m, s.n, y.data.data(), s.ia, s.ja, &d, y.data.data(), s.ib, s.jb, &d, MPI_COMM_SELF,
                              REDIST_DEFAULT),
              REDIST_SUCCESS)
        << redist_error_message();
    EXPECT_EQ(y.data, ref.data) << "redist_pdgemr2d differs from PDGEMR2D";
  }
  Cblacs_gridexit(ctxt);
  Cfree_blacs_system_handle(sys);
}

// Four processes, one array on a 2x2 grid (and a 4x1 grid), blocks of 1..4, every schedule
// and both transports: messages and local copies both read A while B is written, on ranks
// that are at once senders and receivers of the same storage. The answer is the serial copy.
TEST(Aliasing, FourProcessShiftsEqualTheSerialCopyUnderEveryScheduleAndTransport) {
  int rank = 0, P = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  ASSERT_EQ(P, 4);
  const std::int64_t M = 16, N = 6;
  for (const auto& [pr, pc] : std::vector<std::pair<int, int>>{{2, 2}, {4, 1}})
    for (int bs : {1, 2, 3, 4}) {
      const Layout l = Layout::block_cyclic(M, N, bs, bs, pr, pc, 0, 0, pr == 2 ? std::vector<int>{3, 1, 0, 2}
                                                                                  : std::vector<int>{});
      for (const Shift& s : kShifts)
        for (auto kind : {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                          ScheduleKind::AllAtOnce})
          for (auto transport : {redist::Transport::Datatype, redist::Transport::Packed, redist::Transport::Auto}) {
            SCOPED_TRACE(s.label() + " on " + std::to_string(pr) + "x" + std::to_string(pc) + ", blocks " +
                         std::to_string(bs) + ", " + redist::to_string(kind) +
                         (transport == redist::Transport::Packed ? " packed" : transport == redist::Transport::Auto ? " auto" : " datatype"));
            const auto want = serial_shift(M, N, s);
            auto x = fill_local<double>(l, rank, true, rank % 2);
            redist::ExecOptions opt;
            opt.transport = transport;
            opt.staging_bytes = 24;  // several messages per transfer in the packed transport
            redist::ExecStats st;
            redist::redistribute<double>(MPI_COMM_WORLD, l, x.data.data(), x.ld, l, x.data.data(), x.ld,
                                         Region{s.m, s.n, s.ia - 1, s.ja - 1, s.ib - 1, s.jb - 1}, kind, opt, &st);
            EXPECT_EQ(st.bytes_staged, static_cast<std::int64_t>(sizeof(double)) *
                                           (x.ld * (x.cols - 1) + x.rows));  // every rank holds part of X
            std::string why;
            EXPECT_EQ(count_wrong(l, rank, x, want, why), 0) << why;
          }
    }
}

// Disjoint storage is not staged (and the result is ordinary).
TEST(Aliasing, SeparateArraysAreNotStaged) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Layout a = Layout::block_cyclic(16, 6, 2, 2, 2, 2), b = Layout::block_cyclic(16, 6, 3, 1, 1, 4);
  const auto x = fill_local<double>(a, rank, true);
  auto y = fill_local<double>(b, rank, false);
  redist::ExecStats st;
  redist::redistribute<double>(MPI_COMM_WORLD, a, x.data.data(), x.ld, b, y.data.data(), y.ld,
                               ScheduleKind::Default, {}, &st);
  EXPECT_EQ(st.bytes_staged, 0);
  std::string why;
  EXPECT_EQ(count_wrong(b, rank, y, serial_shift(16, 6, {16, 6, 1, 1, 1, 1}), why), 0) << why;
}
