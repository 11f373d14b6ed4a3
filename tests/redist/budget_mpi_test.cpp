// SPDX-License-Identifier: BSD-3-Clause
// The memory budget of redist's executor (ExecOptions::memory_budget_bytes):
// under budgets of 1 MiB and 64 KiB (many rounds, columns larger than a message, columns
// sent as datatypes) and with a window of 2 messages, every schedule and transport gives
// exactly ScaLAPACK's PDGEMR2D result, ExecStats::peak_bytes stays within the budget, and
// the unlimited run needs more than the budget (so the bound is not met by accident).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>

#include "mpi_common.hpp"
#include "malleable/redist/redistribute.hpp"

using namespace redist_test;
using redist::Layout;
using redist::Region;
using redist::ScheduleKind;
using redist::Transport;

namespace {

struct Case {
  const char* name;
  Layout a, b;
};

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

std::int64_t max_over_ranks(std::int64_t v) {
  long long x = v, r = 0;
  MPI_Allreduce(&x, &r, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

// Runs `c` with PDGEMR2D and with redist under every (budget, transport, schedule);
// checks bit-identity, peak_bytes against the budget and the window. Returns per budget
// the job's largest peak_bytes and rounds of the packed AllAtOnce run, for the caller.
struct Peaks {
  std::int64_t unlimited_packed = 0, tiny_rounds = 0, tiny_steps = 0;
};

Peaks run_case(const Case& c, int max_outstanding = 64) {
  const int rank = world_rank();
  int P = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int sys = Csys2blacs_handle(MPI_COMM_WORLD);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, P);
  Peaks peaks;
  {
    BlacsGrid ga(sys, c.a), gb(sys, c.b);
    const auto A = fill_local<double>(c.a, rank, true, rank % 2);  // some ranks with lld > rows
    auto ref = fill_local<double>(c.b, rank, false, (rank + 1) % 2);
    const auto da = c.a.to_desc(ga.ctxt(), static_cast<int>(A.ld)), db = c.b.to_desc(gb.ctxt(), static_cast<int>(ref.ld));
    pxgemr2d(static_cast<int>(c.a.m), static_cast<int>(c.a.n), A.in_grid ? A.data.data() : nullptr, 1, 1, da.data(),
             ref.in_grid ? ref.data.data() : nullptr, 1, 1, db.data(), gctxt);
    for (std::int64_t budget : {std::int64_t{0}, kMiB, 64 * std::int64_t{1024}})
      for (Transport tr : {Transport::Packed, Transport::Datatype, Transport::Auto})
        for (ScheduleKind kind : {ScheduleKind::AllAtOnce, ScheduleKind::Caterpillar}) {
          auto B = fill_local<double>(c.b, rank, false, (rank + 1) % 2);
          redist::ExecOptions opt;
          opt.transport = tr;
          opt.memory_budget_bytes = budget;
          opt.max_outstanding = max_outstanding;
          redist::ExecStats st;
          redist::redistribute<double>(MPI_COMM_WORLD, c.a, A.in_grid ? A.data.data() : nullptr, A.ld, c.b,
                                       B.in_grid ? B.data.data() : nullptr, B.ld, kind, opt, &st);
          const std::string what = std::string(c.name) + " budget " + std::to_string(budget) + " transport " +
                                   std::to_string(static_cast<int>(tr)) + " " + redist::to_string(kind) + " rank " +
                                   std::to_string(rank);
          EXPECT_TRUE(B.data.size() == ref.data.size() &&
                      (B.data.empty() || std::memcmp(B.data.data(), ref.data.data(), B.data.size() * sizeof(double)) == 0))
              << what << ": differs from PDGEMR2D";
          if (budget > 0) {
            EXPECT_LE(st.peak_bytes, budget) << what;
          }
          EXPECT_LE(st.max_in_flight, max_outstanding) << what;
          const std::int64_t peak = max_over_ranks(st.peak_bytes);
          const std::int64_t rounds = max_over_ranks(st.rounds), steps = max_over_ranks(st.steps);
          if (tr == Transport::Packed && kind == ScheduleKind::AllAtOnce) {
            if (budget == 0) peaks.unlimited_packed = peak;
            if (budget == 64 * 1024) peaks.tiny_rounds = rounds, peaks.tiny_steps = steps;
          }
        }
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
  return peaks;
}

Layout on(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb, int pr, int pc) {
  return Layout::block_cyclic(m, n, mb, nb, pr, pc);
}

}  // namespace

// 2x2 -> 3x3 (the expansion of the budget test), N = 1500: packed messages are
// ~1 MB each unlimited, so 64 KiB moves them in many rounds of column slices.
TEST(RedistBudget, ExpansionMatchesPdgemr2dWithinBudget) {
  const auto p = run_case({"2x2->3x3", on(1500, 1500, 64, 64, 2, 2), on(1500, 1500, 64, 64, 3, 3)});
  EXPECT_GT(p.unlimited_packed, kMiB) << "the unlimited run must need more than the budget tested";
  EXPECT_GT(p.tiny_rounds, 4 * p.tiny_steps) << "64 KiB must move the data in many rounds";
}

TEST(RedistBudget, ShrinkMatchesPdgemr2dWithinBudget) {
  const auto p = run_case({"3x3->2x2", on(1200, 1100, 32, 32, 3, 3), on(1200, 1100, 32, 32, 2, 2)});
  EXPECT_GT(p.unlimited_packed, kMiB);
}

// Blocks 100 -> 7 on one grid: short pieces (Auto packs them), every rank a partner of
// every other.
TEST(RedistBudget, BlockSizeChangeMatchesPdgemr2dWithinBudget) {
  run_case({"nb 100->7", on(1000, 1000, 100, 100, 3, 3), on(1000, 1000, 7, 7, 3, 3)});
}

// Columns of 3000 rows (24,000 bytes) exceed a 64 KiB budget's largest message (16 KiB):
// those transfers go as datatypes with no staging even under Packed; 1 MiB packs them.
TEST(RedistBudget, ColumnsLargerThanAMessage) {
  run_case({"tall 1x2->1x3", on(3000, 300, 3000, 10, 1, 2), on(3000, 300, 3000, 7, 1, 3)});
}

// AllAtOnce with every rank a partner of every other, two messages in flight at a time.
TEST(RedistBudget, WindowOfTwoMessages) {
  run_case({"window 2", on(600, 600, 5, 5, 3, 3), on(600, 600, 3, 3, 3, 3)}, 2);
}

// A budget below the minimum, a window of 0, or budgets that differ between ranks under
// the packed transport fail on every rank with the same error before any data moves.
TEST(RedistBudget, BadOptionsFailOnEveryRank) {
  const int rank = world_rank();
  const Layout a = on(100, 100, 8, 8, 2, 2), b = on(100, 100, 8, 8, 3, 3);
  const auto A = fill_local<double>(a, rank, true);
  auto B = fill_local<double>(b, rank, false);
  const auto B0 = B.data;
  for (int bad = 0; bad < 4; ++bad) {
    redist::ExecOptions opt;
    // Different valid budgets cut packed messages differently: refused, not a hang.
    if (bad == 3) opt.transport = Transport::Packed, opt.memory_budget_bytes = rank == 2 ? kMiB : 64 << 10;
    if (bad == 0) opt.memory_budget_bytes = rank == 4 ? 100 : opt.memory_budget_bytes;  // one rank only
    if (bad == 1) opt.memory_budget_bytes = -1;
    if (bad == 2) opt.max_outstanding = rank == 1 ? 0 : 64;
    std::string msg;
    try {
      redist::redistribute<double>(MPI_COMM_WORLD, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                                   B.in_grid ? B.data.data() : nullptr, B.ld, ScheduleKind::Default, opt);
    } catch (const redist::Error& e) {
      msg = e.what();
    }
    EXPECT_NE(msg.find(bad == 2 ? "max_outstanding" : bad == 3 ? "memory budgets" : "memory_budget_bytes"), std::string::npos)
        << bad << ": " << msg;
    EXPECT_EQ(B.data, B0);
  }
}
