// SPDX-License-Identifier: BSD-3-Clause
// redist against ScaLAPACK's PxGEMR2D: bit-identical local arrays (including what lies
// outside the copied region) on random homogeneous cases. One 16-rank job runs disjoint
// groups of 1..16 processes side by side, so every process count is covered at the cost
// of a few oversubscribed launches.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>

#include "mpi_common.hpp"
#include "malleable/redist/redistribute.hpp"

using namespace redist_test;
using redist::Layout;
using redist::Region;
using redist::ScheduleKind;

namespace {

struct Case {
  Layout a, b;
  Region g;
};

Case random_case(std::mt19937& rng, int P, bool big) {
  auto U = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto grid = [&](int& pr, int& pc) {
    const int count = U(1, P);
    pr = U(1, count);
    pc = std::max(1, count / pr);
  };
  auto ranks = [&](int count) {
    std::vector<int> r(static_cast<std::size_t>(P));
    std::iota(r.begin(), r.end(), 0);
    std::shuffle(r.begin(), r.end(), rng);
    r.resize(static_cast<std::size_t>(count));
    return r;
  };
  int pra, pca, prb, pcb;
  grid(pra, pca);
  grid(prb, pcb);
  const int hi = big ? 400 : 90;
  const int ma = U(1, hi), na = U(1, hi), mb = U(1, hi), nb = U(1, hi);
  Case c;
  c.a = Layout::block_cyclic(ma, na, U(1, 12), U(1, 12), pra, pca, U(0, pra - 1), U(0, pca - 1), ranks(pra * pca));
  c.b = Layout::block_cyclic(mb, nb, U(1, 12), U(1, 12), prb, pcb, U(0, prb - 1), U(0, pcb - 1), ranks(prb * pcb));
  c.g.m = U(1, std::min(ma, mb));
  c.g.n = U(1, std::min(na, nb));
  c.g.ia = U(0, ma - static_cast<int>(c.g.m));
  c.g.ja = U(0, na - static_cast<int>(c.g.n));
  c.g.ib = U(0, mb - static_cast<int>(c.g.m));
  c.g.jb = U(0, nb - static_cast<int>(c.g.n));
  return c;
}

std::array<int, 9> desc_of(const Layout& l, int ctxt, std::int64_t ld) {
  auto d = l.to_desc(ctxt, static_cast<int>(ld));
  return d;  // ctxt == -1 outside the grid, as PxGEMR2D requires
}

// Runs one case with PxGEMR2D and with every redist schedule; returns the number of
// schedules whose B differs from ScaLAPACK's on this rank.
template <class T>
int run_case(MPI_Comm comm, int sys, int gctxt, const Case& c, std::string& why) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  BlacsGrid ga(sys, c.a), gb(sys, c.b);
  const auto A = fill_local<T>(c.a, rank, true, rank % 3);  // some ranks with lld > rows
  auto ref = fill_local<T>(c.b, rank, false, (rank + 1) % 2);
  const auto da = desc_of(c.a, ga.ctxt(), A.ld), db = desc_of(c.b, gb.ctxt(), ref.ld);
  pxgemr2d(static_cast<int>(c.g.m), static_cast<int>(c.g.n), A.in_grid ? A.data.data() : nullptr,
           static_cast<int>(c.g.ia + 1), static_cast<int>(c.g.ja + 1), da.data(),
           ref.in_grid ? ref.data.data() : nullptr, static_cast<int>(c.g.ib + 1), static_cast<int>(c.g.jb + 1),
           db.data(), gctxt);
  int bad = 0;
  struct Variant {
    ScheduleKind kind;
    redist::Transport transport;
    std::int64_t staging;
    int window = -1;  // ExecOptions::node_window: -1 the default, 0 off, 1 on
  };
  const Variant variants[] = {{ScheduleKind::Caterpillar, redist::Transport::Datatype, 0},
                              {ScheduleKind::Circulant, redist::Transport::Datatype, 0},
                              {ScheduleKind::Matching, redist::Transport::Datatype, 0},
                              {ScheduleKind::AllAtOnce, redist::Transport::Datatype, 0},
                              {ScheduleKind::Matching, redist::Transport::Packed, 3 * sizeof(T)},
                              {ScheduleKind::AllAtOnce, redist::Transport::Packed, 1 << 20},
                              {ScheduleKind::Circulant, redist::Transport::Auto, 5 * sizeof(T)},
                              {ScheduleKind::Caterpillar, redist::Transport::Auto, 0, 1},
                              {ScheduleKind::Matching, redist::Transport::Auto, 0, 0}};
  int size = 0;
  MPI_Comm_size(comm, &size);
  for (const auto& v : variants) {
    auto B = fill_local<T>(c.b, rank, false, (rank + 1) % 2);
    redist::ExecOptions opt;
    opt.transport = v.transport;
    if (v.staging) opt.staging_bytes = v.staging;
    if (v.window >= 0) opt.node_window = v.window == 1;
    const auto plan = redist::make_plan(c.a, c.b, c.g, size, v.kind);
    redist::redistribute<T>(comm, plan, A.in_grid ? A.data.data() : nullptr, A.ld,
                            B.in_grid ? B.data.data() : nullptr, B.ld, opt);
    if (B.data.size() != ref.data.size() ||
        (!B.data.empty() && std::memcmp(B.data.data(), ref.data.data(), B.data.size() * sizeof(T)) != 0)) {
      ++bad;
      why += std::string(" ") + redist::to_string(v.kind) +
             (v.transport == redist::Transport::Packed ? "/packed" : v.transport == redist::Transport::Auto ? "/auto" : "") +
             (v.window == 1 ? "/window" : v.window == 0 ? "/no-window" : "");
    }
  }
  return bad;
}

template <class T>
void sweep_round(const std::vector<int>& sizes, int round, int& cases_run) {
  int world = 0, wrank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int color = MPI_UNDEFINED, start = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (start + sizes[k] > world) break;
    if (wrank >= start && wrank < start + sizes[k]) color = static_cast<int>(k);
    start += sizes[k];
  }
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &comm);
  if (comm == MPI_COMM_NULL) return;
  int P = 0, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  const int sys = Csys2blacs_handle(comm);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, P);
  std::mt19937 rng(static_cast<unsigned>(1000 * round + 17 * P + sizeof(T)));
  const int ncases = P >= 12 ? 8 : 12;
  for (int k = 0; k < ncases; ++k) {
    const Case c = random_case(rng, P, k % 4 == 3);
    std::string why;
    const int bad = run_case<T>(comm, sys, gctxt, c, why);
    ++cases_run;
    EXPECT_EQ(bad, 0) << "P=" << P << " case " << k << " differs from PxGEMR2D on rank " << rank << ":" << why
                      << " (A " << c.a.m << "x" << c.a.n << " on " << c.a.nprow << "x" << c.a.npcol << ", B " << c.b.m
                      << "x" << c.b.n << " on " << c.b.nprow << "x" << c.b.npcol << ", region " << c.g.m << "x"
                      << c.g.n << " at A(" << c.g.ia << "," << c.g.ja << ") B(" << c.g.ib << "," << c.g.jb << "))";
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
  MPI_Comm_free(&comm);
}

const std::vector<std::vector<int>> kRounds = {{1, 2, 3, 4, 6}, {5, 11}, {7, 9}, {8, 8}, {10, 6},
                                               {12, 4},         {13, 3}, {14, 2}, {15, 1}, {16}};

}  // namespace

TEST(RedistVsPdgemr2d, DoubleBitIdenticalForOneToSixteenProcesses) {
  int cases = 0;
  for (std::size_t r = 0; r < kRounds.size(); ++r) sweep_round<double>(kRounds[r], static_cast<int>(r), cases);
  EXPECT_GT(cases, 0);
}

// Long thin matrices of blocks of 1-3 elements (the cliff): millions of
// one-element columns are copied, packed and unpacked span by span, whole columns in one
// memcpy where the local array has no padding (ranks 0 and 3 here; the others pad).
TEST(RedistVsPdgemr2d, ThinRowsAndColumnsOfTinyBlocks) {
  int world = 0, wrank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  const int P = std::min(world, 4);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, wrank < P ? 0 : MPI_UNDEFINED, wrank, &comm);
  if (comm == MPI_COMM_NULL) return;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int sys = Csys2blacs_handle(comm);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, P);
  const int q = std::max(1, P / 2);
  const std::vector<Case> cases = {
      {Layout::block_cyclic(1, 20000, 1, 3, 1, P), Layout::block_cyclic(1, 20000, 1, 1, P, 1), Region{1, 20000, 0, 0, 0, 0}},
      {Layout::block_cyclic(1, 20000, 1, 1, 1, P), Layout::block_cyclic(1, 20000, 1, 2, 1, P), Region{1, 20000, 0, 0, 0, 0}},
      {Layout::block_cyclic(20000, 1, 2, 1, P, 1), Layout::block_cyclic(20000, 1, 3, 1, P, 1), Region{20000, 1, 0, 0, 0, 0}},
      {Layout::block_cyclic(3, 9000, 3, 1, 1, P), Layout::block_cyclic(3, 9000, 3, 2, 2, q), Region{3, 9000, 0, 0, 0, 0}},
      {Layout::block_cyclic(4, 7000, 1, 1, 2, q), Layout::block_cyclic(4, 7000, 4, 3, 1, P), Region{2, 5000, 1, 7, 2, 100}},
      // Long columns whose pieces fall into several interleaved runs of over 512 pieces:
      // copied in tiles of every run (exec/local_copy.hpp, copy_rows), odd lengths and offsets so
      // the last tile is partial and runs end at different pieces.
      {Layout::block_cyclic(30011, 3, 3, 1, P, 1), Layout::block_cyclic(30011, 3, 2, 2, q, 2), Region{29000, 2, 5, 1, 11, 0}},
      {Layout::block_cyclic(50021, 1, 2, 1, P, 1), Layout::block_cyclic(50021, 1, 3, 1, P, 1), Region{50021, 1, 0, 0, 0, 0}},
      // Local copies fused with the packing (ExecOptions::fuse_local): each rank's columns
      // of A in blocks of 1 feed its own rows and every other rank's from the same columns.
      {Layout::block_cyclic(303, 50, 1, 1, 1, P), Layout::block_cyclic(303, 50, 2, 3, P, 1), Region{290, 47, 3, 2, 1, 0}}};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    std::string why;
    EXPECT_EQ(run_case<double>(comm, sys, gctxt, cases[k], why), 0) << "thin case " << k << " on rank " << rank << ":" << why;
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
  MPI_Comm_free(&comm);
}

TEST(RedistVsPdgemr2d, FloatAndComplexBitIdentical) {
  int cases = 0;
  const std::vector<std::vector<int>> rounds = {{3, 5, 8}, {16}};
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    sweep_round<float>(rounds[r], 50 + static_cast<int>(r), cases);
    sweep_round<std::complex<double>>(rounds[r], 60 + static_cast<int>(r), cases);
    sweep_round<std::complex<float>>(rounds[r], 70 + static_cast<int>(r), cases);
  }
  // Counted over the world: with fewer than 8 ranks (the MPICH build runs 6) some ranks
  // are in none of these groups.
  int total = 0;
  MPI_Allreduce(&cases, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(total, 0);
}
