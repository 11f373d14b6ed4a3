// SPDX-License-Identifier: BSD-3-Clause
// Bad input to redist's collective C entry points on 4 processes: a bad
// argument on ONE rank gives every rank the same error code and message, B untouched,
// and no rank is left waiting (ctest's TIMEOUT turns a hang into a failure); invalid
// communicator handles return errors instead of ending the job; messages name the user's
// arguments and ranks; "nothing to do" follows PDGEMR2D; ctxt -1 descriptors work.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Every rank's code and message, gathered: all equal to `code`, all messages identical
// and containing `text`.
void expect_everywhere(int rc, int code, const std::string& text, const std::string& what) {
  const std::string msg = redist_error_message();
  int P = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::vector<int> codes(static_cast<std::size_t>(P));
  MPI_Allgather(&rc, 1, MPI_INT, codes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < P; ++r) EXPECT_EQ(codes[static_cast<std::size_t>(r)], code) << what << ": rank " << r << " (" << msg << ")";
  EXPECT_NE(msg.find(text), std::string::npos) << what << ": message \"" << msg << "\" lacks \"" << text << "\"";
  char mine[512] = {0}, first[512] = {0};
  std::strncpy(mine, msg.c_str(), sizeof mine - 1);
  std::memcpy(first, mine, sizeof mine);
  MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_STREQ(mine, first) << what << ": messages differ between ranks";
}

double value(std::int64_t i, std::int64_t j) { return 1000.0 * static_cast<double>(i) + static_cast<double>(j); }

// A: M x N on a 2 x 2 grid of all 4 ranks; B: 1 x 3 grid on ranks 3, 1, 0 (rank 2 not in
// it); gctxt: 1 x 4 of all ranks in reverse order, so its communicator's ranks are not the
// caller's.
struct Grids {
  static constexpr int M = 23, N = 17;
  int sys = -1, ca = -1, cb = -1, gctxt = -1, ar = -1, ac = -1, br = -1, bc = -1;
  int desca[9] = {0}, descb[9] = {0};
  std::vector<double> a, b;
  Grids() {
    Cblacs_get(0, 0, &sys);
    ca = sys;
    Cblacs_gridinit(&ca, "R", 2, 2);
    int np = 0, nq = 0;
    Cblacs_gridinfo(ca, &np, &nq, &ar, &ac);
    int mapb[3] = {3, 1, 0};
    cb = sys;
    Cblacs_gridmap(&cb, mapb, 1, 1, 3);
    if (cb >= 0) Cblacs_gridinfo(cb, &np, &nq, &br, &bc);
    int mapg[4] = {3, 2, 1, 0};
    gctxt = sys;
    Cblacs_gridmap(&gctxt, mapg, 1, 1, 4);
    int info = 0, m = M, n = N, mba = 4, nba = 3, mbb = 5, nbb = 2, zero = 0, two = 2, three = 3, one = 1;
    int lla = std::max(1, numroc_(&m, &mba, &ar, &zero, &two));
    descinit_(desca, &m, &n, &mba, &nba, &zero, &zero, &ca, &lla, &info);
    const int nla = numroc_(&n, &nba, &ac, &zero, &two);
    a.assign(static_cast<std::size_t>(lla * std::max(1, nla)), 0.0);
    redist_desc da;
    redist_desc_from_scalapack(&da, desca);
    for (std::int64_t jl = 1; jl <= nla; ++jl)
      for (std::int64_t il = 1; il <= numroc_(&m, &mba, &ar, &zero, &two); ++il) {
        std::int64_t ig = 0, jg = 0;
        redist_l2g(&da, REDIST_ROWS, ar, il, &ig);
        redist_l2g(&da, REDIST_COLS, ac, jl, &jg);
        a[static_cast<std::size_t>((jl - 1) * lla + il - 1)] = value(ig - 1, jg - 1);
      }
    if (cb >= 0) {
      int llb = std::max(1, numroc_(&m, &mbb, &br, &zero, &one));
      descinit_(descb, &m, &n, &mbb, &nbb, &zero, &zero, &cb, &llb, &info);
      b.assign(static_cast<std::size_t>(llb * std::max(1, numroc_(&n, &nbb, &bc, &zero, &three))), -1.0);
    } else {
      descb[0] = 1;
      descb[1] = -1;
    }
  }
  ~Grids() {
    if (cb >= 0) Cblacs_gridexit(cb);
    if (gctxt >= 0) Cblacs_gridexit(gctxt);
    Cblacs_gridexit(ca);
  }
  double* bp() { return b.empty() ? nullptr : b.data(); }
};

}  // namespace

// Class 2: one rank's bad argument, every kind, every rank chosen at random (seeded).
TEST(BadInputMpi, OneRankBadArgumentFailsEverywhereAndNobodyWaits) {
  Grids g;
  redist_desc da, db;
  ASSERT_EQ(redist_desc_from_scalapack(&da, g.desca), REDIST_SUCCESS);
  ASSERT_EQ(redist_desc_from_scalapack(&db, g.descb), REDIST_SUCCESS);
  std::mt19937 rng(14002);
  struct Fault {
    const char* name;
    int code;
    std::function<int(bool bad)> call;
  };
  redist_stats st;
  const std::vector<Fault> faults = {
      {"plan_stats NULL stats", REDIST_ERR_NULL_BUFFER,
       [&](bool bad) { return redist_plan_stats(&da, &db, MPI_COMM_WORLD, REDIST_DEFAULT, bad ? nullptr : &st); }},
      {"plan_stats NULL desca", REDIST_ERR_NULL_BUFFER,
       [&](bool bad) { return redist_plan_stats(bad ? nullptr : &da, &db, MPI_COMM_WORLD, REDIST_DEFAULT, &st); }},
      {"plan_stats schedule 9", REDIST_ERR_INVALID_ARGUMENT,
       [&](bool bad) { return redist_plan_stats(&da, &db, MPI_COMM_WORLD, bad ? 9 : REDIST_MATCHING, &st); }},
      {"pdgemr2d schedule -1", REDIST_ERR_INVALID_ARGUMENT,
       [&](bool bad) {
         return redist_pdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, &da, g.bp(), 1, 1, &db, MPI_COMM_WORLD,
                                bad ? -1 : REDIST_DEFAULT);
       }},
      {"pdgemr2d NULL descb", REDIST_ERR_NULL_BUFFER,
       [&](bool bad) {
         return redist_pdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, &da, g.bp(), 1, 1, bad ? nullptr : &db,
                                MPI_COMM_WORLD, REDIST_DEFAULT);
       }},
      {"pdgemr2d M differs", REDIST_ERR_INCONSISTENT,
       [&](bool bad) {
         return redist_pdgemr2d(bad ? 0 : Grids::M, Grids::N, g.a.data(), 1, 1, &da, g.bp(), 1, 1, &db,
                                MPI_COMM_WORLD, REDIST_DEFAULT);
       }},
      {"Cpdgemr2d invalid gctxt", REDIST_ERR_NOT_IN_GRID,
       [&](bool bad) {
         return redist_Cpdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, g.desca, g.bp(), 1, 1, g.descb,
                                 bad ? 977 : g.ca, REDIST_DEFAULT);
       }},
      {"Cpdgemr2d NULL DESCA", REDIST_ERR_NULL_BUFFER,
       [&](bool bad) {
         return redist_Cpdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, bad ? nullptr : g.desca, g.bp(), 1, 1,
                                 g.descb, g.gctxt, REDIST_DEFAULT);
       }},
      {"Cpdgemr2d DTYPE 2", REDIST_ERR_INVALID_LAYOUT,
       [&](bool bad) {
         int d[9];
         std::memcpy(d, g.desca, sizeof d);
         if (bad) d[0] = 2;
         return redist_Cpdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, d, g.bp(), 1, 1, g.descb, g.ca, REDIST_DEFAULT);
       }},
      {"pdgemr2d lld 0", REDIST_ERR_LLD,
       [&](bool bad) {
         redist_desc x = da;
         if (bad) x.lld = 0;
         return redist_pdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, &x, g.bp(), 1, 1, &db, MPI_COMM_WORLD,
                                REDIST_DEFAULT);
       }},
      {"pdgemr2d_fstd ctxt 977", REDIST_ERR_NOT_IN_GRID,
       [&](bool bad) {
         int d[9];
         std::memcpy(d, g.desca, sizeof d);
         if (bad) d[1] = 977;
         return redist_pdgemr2d_fstd(Grids::M, Grids::N, g.a.data(), 1, 1, d, g.bp(), 1, 1, g.descb,
                                     MPI_Comm_c2f(MPI_COMM_WORLD), REDIST_DEFAULT);
       }},
  };
  const std::vector<double> before = g.b;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t f = 0; f < faults.size(); ++f) {
      const int culprit = static_cast<int>(rng() % 4);
      const int rc = faults[f].call(rank() == culprit);
      // Cpdgemr2d on gctxt names the caller's rank, not gctxt's communicator's (reversed).
      const std::string who = faults[f].code == REDIST_ERR_INCONSISTENT ? "" : "rank " + std::to_string(culprit) + ":";
      expect_everywhere(rc, faults[f].code, who, faults[f].name);
      EXPECT_EQ(g.b, before) << faults[f].name << ": B changed although the call failed";
    }
  }
  // Nothing half-done: the same calls, correct, work.
  EXPECT_EQ(redist_Cpdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, g.desca, g.bp(), 1, 1, g.descb, g.gctxt,
                             REDIST_MATCHING),
            REDIST_SUCCESS)
      << redist_error_message();
  EXPECT_EQ(redist_plan_stats(&da, &db, MPI_COMM_WORLD, REDIST_MATCHING, &st), REDIST_SUCCESS) << redist_error_message();
  EXPECT_EQ(st.elements_total, Grids::M * Grids::N);
}

// Class 3: invalid communicator handles return an error on every rank; the job goes on.
TEST(BadInputMpi, InvalidCommunicatorsReturnErrors) {
  Grids g;
  redist_desc da, db;
  ASSERT_EQ(redist_desc_from_scalapack(&da, g.desca), REDIST_SUCCESS);
  ASSERT_EQ(redist_desc_from_scalapack(&db, g.descb), REDIST_SUCCESS);
  redist_stats st;
  MPI_Comm inter = MPI_COMM_NULL, half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank() % 2, rank(), &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank() % 2 == 0 ? 1 : 0, 77, &inter);
  for (MPI_Comm bad : {MPI_COMM_NULL, inter}) {
    const std::string text = bad == MPI_COMM_NULL ? "comm is MPI_COMM_NULL" : "intercommunicator";
    expect_everywhere(redist_plan_stats(&da, &db, bad, REDIST_DEFAULT, &st), REDIST_ERR_INVALID_ARGUMENT, text, "plan_stats");
    expect_everywhere(redist_pdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, &da, g.bp(), 1, 1, &db, bad, REDIST_DEFAULT),
                      REDIST_ERR_INVALID_ARGUMENT, text, "pdgemr2d");
    expect_everywhere(redist_pzgemr2d_f(1, 1, g.a.data(), 1, 1, &da, g.bp(), 1, 1, &db, MPI_Comm_c2f(bad), REDIST_DEFAULT),
                      REDIST_ERR_INVALID_ARGUMENT, text, "pzgemr2d_f");
    int threw = 0;
    try {
      const auto l = redist::Layout::block_cyclic(4, 4, 2, 2, 1, 1);
      std::vector<double> x(16);
      redist::redistribute<double>(bad, l, x.data(), 4, l, x.data(), 4);
    } catch (const redist::Error& e) {
      threw = e.code() == redist::ErrorCode::InvalidArgument;
    }
    EXPECT_EQ(threw, 1);
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  EXPECT_EQ(redist_plan_stats(&da, &db, MPI_COMM_WORLD, REDIST_DEFAULT, &st), REDIST_SUCCESS);
}

// Class 5: messages name the user's argument and value, the descriptor, the caller's rank
// and the block entry that differs.
TEST(BadInputMpi, MessagesNameTheUsersArguments) {
  Grids g;
  redist_desc da, db;
  ASSERT_EQ(redist_desc_from_scalapack(&da, g.desca), REDIST_SUCCESS);
  ASSERT_EQ(redist_desc_from_scalapack(&db, g.descb), REDIST_SUCCESS);
  const auto pd = [&](std::int64_t ia, std::int64_t jb, const redist_desc* x, const redist_desc* y) {
    return redist_pdgemr2d(5, 4, g.a.data(), ia, 1, x, g.bp(), 1, jb, y, MPI_COMM_WORLD, REDIST_DEFAULT);
  };
  expect_everywhere(pd(0, 1, &da, &db), REDIST_ERR_REGION, "IA = 0 must be at least 1", "IA = 0");
  expect_everywhere(pd(1, 15, &da, &db), REDIST_ERR_REGION, "JB = 15 with N = 4 runs past the 17 columns of B (descb->n)",
                    "JB too large");
  expect_everywhere(pd(INT64_MAX, 1, &da, &db), REDIST_ERR_REGION, "IA = 9223372036854775807 with M = 5", "IA overflow");
  redist_desc x = db;
  x.rsrc = 4;
  expect_everywhere(pd(1, 1, &da, g.cb >= 0 ? &x : &db), REDIST_ERR_INVALID_LAYOUT, "descb: rsrc = 4", "rsrc");
  int d[9];
  std::memcpy(d, g.descb, sizeof d);
  if (rank() == 3) d[8] = 0;
  expect_everywhere(redist_Cpdgemr2d(5, 4, g.a.data(), 1, 1, g.desca, g.bp(), 1, 1, d, g.gctxt, REDIST_DEFAULT),
                    REDIST_ERR_LLD, "rank 3: DESCB(LLD_) = 0", "LLD via gctxt");
  // Block lists that differ between processes of one grid: the entry, not a hash.
  std::int64_t rb[3] = {8, 7, 8}, cb[2] = {9, 8};
  if (rank() == 2) rb[1] = 6, rb[2] = 9;
  redist_desc h;
  ASSERT_EQ(redist_desc_init_blocks(&h, g.ca, 3, rb, 2, cb, 0, 0, 16), REDIST_SUCCESS) << redist_error_message();
  expect_everywhere(pd(1, 1, &h, &db), REDIST_ERR_INCONSISTENT, "desca->row_blocks[1] is 7 on rank 0 but 6 on rank 2",
                    "block lists");
}

// Class 7: nothing to do is nothing examined, as PDGEMR2D: M or N zero, and processes in
// neither grid, whose IA..JB are not looked at.
TEST(BadInputMpi, NothingToDoExaminesNothing) {
  Grids g;
  const std::vector<double> before = g.b;
  std::mt19937_64 rng(14007);
  for (int k = 0; k < 20; ++k) {
    const std::int64_t junk = static_cast<std::int64_t>(rng());
    const int rc = k % 2 ? redist_pdgemr2d(0, 5, nullptr, junk, -junk, nullptr, nullptr, -3, junk, nullptr,
                                           MPI_COMM_WORLD, REDIST_DEFAULT)
                         : redist_Cpdgemr2d(7, 0, nullptr, -5, 999, nullptr, nullptr, 0, -1, nullptr, g.ca,
                                            REDIST_DEFAULT);
    expect_everywhere(rc, REDIST_SUCCESS, "", "empty");
  }
  EXPECT_EQ(g.b, before);
  // A on ranks {0, 3}, B on ranks {1, 3}: rank 2 is in neither and passes garbage origins;
  // rank 1 (B only) passes a garbage IA, rank 0 (A only) a garbage JB.
  int sys = g.sys, ca = sys, cb = sys, mapa[2] = {0, 3}, mapb[2] = {1, 3};
  Cblacs_gridmap(&ca, mapa, 1, 1, 2);
  Cblacs_gridmap(&cb, mapb, 1, 1, 2);
  const int me = rank();
  const int pa = me == 0 ? 0 : me == 3 ? 1 : -1, pb = me == 1 ? 0 : me == 3 ? 1 : -1;
  const int M = 9, Ncols = 8, nb = 2;
  auto local_cols = [&](int p) { return p < 0 ? 0 : 4; };  // 8 columns in blocks of 2 over 2 processes
  redist_desc da{}, db{};
  da.ctxt = db.ctxt = -1;
  int dsa[9] = {1, ca, M, Ncols, M, nb, 0, 0, M}, dsb[9] = {1, cb, M, Ncols, M, nb, 0, 0, M};
  if (pa >= 0) {
    ASSERT_EQ(redist_desc_from_scalapack(&da, dsa), REDIST_SUCCESS);
  }
  if (pb >= 0) {
    ASSERT_EQ(redist_desc_from_scalapack(&db, dsb), REDIST_SUCCESS);
  }
  std::vector<double> a(static_cast<std::size_t>(M * std::max(1, local_cols(pa)))), b(static_cast<std::size_t>(M * 4), -1.0);
  for (int j = 0; j < local_cols(pa); ++j)
    for (int i = 0; i < M; ++i) {
      const int jg = (j / nb) * 2 * nb + pa * nb + j % nb;
      a[static_cast<std::size_t>(j * M + i)] = 100.0 * i + jg;
    }
  const std::int64_t ia = me == 1 || me == 2 ? 999 : 2, ja = me == 2 ? -4 : 3;
  const std::int64_t ib = me == 2 ? 0 : 1, jb = me == 0 || me == 2 ? -77 : 2;
  const int rc = redist_pdgemr2d(6, 5, pa >= 0 ? a.data() : nullptr, ia, ja, &da, pb >= 0 ? b.data() : nullptr, ib, jb,
                                 &db, MPI_COMM_WORLD, REDIST_DEFAULT);
  expect_everywhere(rc, REDIST_SUCCESS, "", "origins from the grids' processes");
  // B(1:6, 2:6) = A(2:7, 3:7), 1-based.
  if (pb >= 0)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < M; ++i) {
        const int jg = (j / nb) * 2 * nb + pb * nb + j % nb;  // 0-based global column of B
        const bool inside = i < 6 && jg >= 1 && jg < 6;
        const double want = inside ? 100.0 * (i + 1) + (jg + 1) : -1.0;
        EXPECT_EQ(b[static_cast<std::size_t>(j * M + i)], want) << "B(" << i << "," << jg << ") on rank " << me;
      }
  if (ca >= 0) Cblacs_gridexit(ca);
  if (cb >= 0) Cblacs_gridexit(cb);
}

// Class 8: redist_desc_init_blocks with ctxt -1 outside the grid, as the header and the
// Fortran example say, and empty dimensions without dummy pointers.
TEST(BadInputMpi, DescInitBlocksOutsideTheGrid) {
  Grids g;
  const std::int64_t rows[1] = {23}, cols[3] = {7, 5, 5};  // 23 x 17 on B's 1 x 3 grid
  redist_desc da, dh;
  ASSERT_EQ(redist_desc_from_scalapack(&da, g.desca), REDIST_SUCCESS);
  std::vector<double> h;
  std::int64_t ncols = 0;
  if (g.cb >= 0) {
    ASSERT_EQ(redist_desc_init_blocks(&dh, g.cb, 1, rows, 3, cols, 0, 0, 23), REDIST_SUCCESS) << redist_error_message();
    ASSERT_EQ(redist_numroc(&dh, REDIST_COLS, g.bc, &ncols), REDIST_SUCCESS);
    h.assign(static_cast<std::size_t>(23 * ncols), -1.0);
  } else {
    // What the Fortran example does outside the grid: the same arrays, ctxt -1 ...
    ASSERT_EQ(redist_desc_init_blocks(&dh, -1, 1, rows, 3, cols, 0, 0, 1), REDIST_SUCCESS) << redist_error_message();
    // ... or nothing at all.
    ASSERT_EQ(redist_desc_init_blocks(&dh, -1, 0, nullptr, 0, nullptr, 0, 0, 1), REDIST_SUCCESS) << redist_error_message();
  }
  const int rc = redist_pdgemr2d(Grids::M, Grids::N, g.a.data(), 1, 1, &da, h.empty() ? nullptr : h.data(), 1, 1, &dh,
                                 MPI_COMM_WORLD, REDIST_CIRCULANT);
  expect_everywhere(rc, REDIST_SUCCESS, "", "ctxt -1 outside B");
  for (std::int64_t jl = 1; jl <= ncols; ++jl) {
    std::int64_t jg = 0;
    ASSERT_EQ(redist_l2g(&dh, REDIST_COLS, g.bc, jl, &jg), REDIST_SUCCESS);
    for (std::int64_t i = 0; i < 23; ++i)
      EXPECT_EQ(h[static_cast<std::size_t>((jl - 1) * 23 + i)], value(i, jg - 1)) << "B(" << i << "," << jg - 1 << ")";
  }
  // An empty dimension needs no list on the grid's processes either.
  if (g.cb >= 0) {
    const std::int64_t ones[3] = {1, 1, 1};
    redist_desc e;
    EXPECT_EQ(redist_desc_init_blocks(&e, g.cb, 0, nullptr, 3, ones, 0, 0, 1), REDIST_SUCCESS) << redist_error_message();
    EXPECT_EQ(e.m, 0);
  }
}

// redist_plan_stats takes each rank's own plan and reduces; its figures are
// the whole plan's (built here, pure, on every rank) under every schedule, both ways
// (rank 2 holds no part of B).
TEST(BadInputMpi, PlanStatsAreTheWholePlansFromRankLocalPlans) {
  Grids g;
  redist_desc da, db;
  ASSERT_EQ(redist_desc_from_scalapack(&da, g.desca), REDIST_SUCCESS);
  ASSERT_EQ(redist_desc_from_scalapack(&db, g.descb), REDIST_SUCCESS);
  const auto la = redist::Layout::block_cyclic(Grids::M, Grids::N, 4, 3, 2, 2);
  const auto lb = redist::Layout::block_cyclic(Grids::M, Grids::N, 5, 2, 1, 3, 0, 0, {3, 1, 0});
  for (int k : {REDIST_CATERPILLAR, REDIST_CIRCULANT, REDIST_MATCHING, REDIST_ALLATONCE, REDIST_DEFAULT})
    for (int way = 0; way < 2; ++way) {
      SCOPED_TRACE("schedule " + std::to_string(k) + (way ? " B->A" : " A->B"));
      redist_stats st{};
      ASSERT_EQ(redist_plan_stats(way ? &db : &da, way ? &da : &db, MPI_COMM_WORLD, k, &st), REDIST_SUCCESS)
          << redist_error_message();
      const auto& x = way ? lb : la;
      const auto& y = way ? la : lb;
      const auto w = redist::make_plan(x, y, redist::Region::whole(x), 4, static_cast<redist::ScheduleKind>(k)).stats;
      EXPECT_EQ(st.elements_total, w.elements_total);
      EXPECT_EQ(st.elements_local, w.elements_local);
      EXPECT_EQ(st.elements_moved, w.elements_moved);
      EXPECT_EQ(st.messages, w.messages);
      EXPECT_EQ(st.max_sent_by_one, w.max_sent_by_one);
      EXPECT_EQ(st.max_recv_by_one, w.max_recv_by_one);
      EXPECT_EQ(st.steps, w.steps);
      EXPECT_GT(st.steps, 0);
    }
}
