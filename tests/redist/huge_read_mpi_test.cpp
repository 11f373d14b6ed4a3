// SPDX-License-Identifier: BSD-3-Clause
// A window send out of huge pages (Route::HugeRead; docs/reference/redist.md, "Single copy on
// a node"): each sender's A lies in transparent huge pages (2 MiB aligned, madvise before
// the first touch), so the sender tells its receiver in the window's word to read its
// pieces with the kernel where they average at least kHugeReadMinPieceBytes (reads_huge),
// and packs the rest into its window. Checked per rank: the bytes read in one copy are
// exactly those of the receives whose pieces pass the rule, the rest came through the
// window, and B is bit-identical to the global matrix's values; SingleCopy::Off keeps the
// window for all, and a refused read goes by message with the same result.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "exec/segments.hpp"
#include "exec/single_copy.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_common.hpp"

using namespace redist_test;
using redist::Layout;

namespace {

std::int64_t sum(std::int64_t v) {
  std::int64_t s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

// `bytes` in transparent huge pages: 2 MiB aligned and advised before the first touch.
struct HugeArray {
  explicit HugeArray(std::size_t bytes) : len(bytes) {
    const std::size_t huge = std::size_t{2} << 20;
    raw_len = bytes + huge;
    raw = mmap(nullptr, raw_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) raw = nullptr, raw_len = 0;
    if (!raw) return;
    p = reinterpret_cast<double*>((reinterpret_cast<std::uintptr_t>(raw) + huge - 1) & ~(huge - 1));
    madvise(p, len, MADV_HUGEPAGE);
    std::memset(p, 0, len);
  }
  ~HugeArray() {
    if (raw) munmap(raw, raw_len);
  }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;
  std::size_t len = 0, raw_len = 0;
  void* raw = nullptr;
  double* p = nullptr;
};

struct Outcome {
  std::int64_t bad = 0, expect_read = 0, expect_huge = 0;  // received bytes the rules read; of them, reads_huge's
  redist::ExecStats st;
};

// Row blocks mb -> mbb over P -> P process rows (the second grid starting at row 1; `wide`:
// over P process columns instead, whole rows), n columns, doubles; A in huge pages.
// *all_huge: every rank's A in huge pages.
Outcome run(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t mbb, redist::SingleCopy mode, bool* all_huge,
            bool wide = false) {
  int me = 0, P = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const Layout a = Layout::block_cyclic(m, n, mb, 3, P, 1);
  const Layout b = wide ? Layout::block_cyclic(m, n, mbb, 5, 1, P) : Layout::block_cyclic(m, n, mbb, 5, P, 1, 1, 0);
  const auto A0 = fill_local<double>(a, me, true);
  HugeArray A(A0.data.size() * sizeof(double));
  std::memcpy(A.p, A0.data.data(), A.len);
  auto B = fill_local<double>(b, me, false);
  const auto want = fill_local<double>(b, me, true);
  const int huge = redist::exec::huge_paged(A.p, static_cast<std::int64_t>(A.len)) ? 1 : 0;
  int every = 0;
  MPI_Allreduce(&huge, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  *all_huge = every == 1;
  redist::ExecOptions opt;
  opt.single_copy = mode;
  Outcome o;
  redist::redistribute<double>(MPI_COMM_WORLD, a, A.p, A0.ld, b, B.data.data(), B.ld, redist::ScheduleKind::Default,
                               opt, &o.st);
  for (std::size_t k = 0; k < B.data.size(); ++k)
    if (std::memcmp(&B.data[k], &want.data[k], sizeof(double)) != 0) ++o.bad;
  const auto plan = redist::make_plan(a, b, redist::Region::whole(a), P, redist::ScheduleKind::Default, me);
  const redist::exec::Side sa{a.row_axis(), a.col_axis(), 0, 0, 1, false};  // the senders' A (ld: not used here)
  for (const auto& t : plan.transfers) {
    if (t.dst != me || t.src == me) continue;
    const bool in_place = redist::exec::reads_in_place(t, 8, mode, redist::Transport::Auto);
    const bool by_huge =
        !in_place && redist::exec::reads_huge(redist::exec::Walk(sa, t).rows, 8, mode, redist::Transport::Auto, true);
    o.expect_read += in_place || by_huge ? t.elements() * 8 : 0;
    o.expect_huge += by_huge ? t.elements() * 8 : 0;
  }
  return o;
}

constexpr std::int64_t kRows = redist::exec::kHugeReadMinPieceBytes / 8;  // doubles in a piece at the threshold

TEST(RedistHugeRead, LongPiecesOutOfHugePagesAreReadInOneCopy) {
  bool huge = false;
  // pieces of 2 and 4 x the threshold's rows on the sender's side (1 MiB and more: none)
  const Outcome o = run(24 * kRows, 64, 4 * kRows, 6 * kRows, redist::SingleCopy::Auto, &huge);
  EXPECT_EQ(sum(o.bad), 0);
  if (!huge) GTEST_SKIP() << "transparent huge pages unavailable here (madvise): the route is not taken";
  EXPECT_GT(sum(o.expect_huge), 0);
  EXPECT_EQ(o.st.bytes_single_copy, o.expect_read);
  EXPECT_EQ(o.st.bytes_single_copy + o.st.bytes_window, o.st.bytes_received);
  EXPECT_EQ(sum(o.st.bytes_single_copy), sum(o.st.bytes_received));
}

// Row blocks of 64 -> 100 onto whole rows (P x 1 -> 1 x P): the plan's row runs cut A's
// local column at every edge of both (64, 36, 28, ... rows), but in A they touch, so the
// sender's column is one stretch and the receiver reads it in one copy.
TEST(RedistHugeRead, PiecesThatTouchInAAreOneStretch) {
  bool huge = false;
  const Outcome o = run(24 * kRows, 64, 64, 100, redist::SingleCopy::Auto, &huge, true);
  EXPECT_EQ(sum(o.bad), 0);
  if (!huge) GTEST_SKIP() << "transparent huge pages unavailable here";
  EXPECT_GT(sum(o.expect_huge), 0);
  EXPECT_EQ(o.st.bytes_single_copy, o.expect_read);
  EXPECT_EQ(sum(o.st.bytes_single_copy), sum(o.st.bytes_received));
}

TEST(RedistHugeRead, ShortPiecesOutOfHugePagesGoThroughTheWindow) {
  bool huge = false;
  // pieces of under 16 KiB (row blocks of 1,000 doubles and less)
  const Outcome o = run(24 * kRows, 64, 1000, 700, redist::SingleCopy::Auto, &huge);
  EXPECT_EQ(sum(o.bad), 0);
  EXPECT_EQ(o.expect_read, 0);
  EXPECT_EQ(o.st.bytes_single_copy, 0);
  EXPECT_EQ(o.st.bytes_window, o.st.bytes_received);
  EXPECT_GT(sum(o.st.bytes_received), 0);
  if (!huge) GTEST_SKIP() << "transparent huge pages unavailable here: the window was the only route";
}

TEST(RedistHugeRead, SingleCopyOffKeepsTheWindow) {
  bool huge = false;
  const Outcome o = run(24 * kRows, 64, 4 * kRows, 6 * kRows, redist::SingleCopy::Off, &huge);
  EXPECT_EQ(sum(o.bad), 0);
  EXPECT_EQ(o.expect_read, 0);
  EXPECT_EQ(o.st.bytes_single_copy, 0);
  EXPECT_EQ(o.st.bytes_window, o.st.bytes_received);
  EXPECT_GT(sum(o.st.bytes_received), 0);
}

TEST(RedistHugeRead, ARefusedReadGoesByMessage) {
  bool huge = false;
  setenv("MALLEABLE_REDIST_FAULT", "single-copy-refused", 1);
  const Outcome o = run(24 * kRows, 64, 4 * kRows, 6 * kRows, redist::SingleCopy::Auto, &huge);
  unsetenv("MALLEABLE_REDIST_FAULT");
  EXPECT_EQ(sum(o.bad), 0);
  EXPECT_EQ(o.st.bytes_single_copy, 0);
  if (!huge) GTEST_SKIP() << "transparent huge pages unavailable here";
  EXPECT_EQ(o.st.bytes_window, o.st.bytes_received - o.expect_read);  // the refused ones came by message
}

}  // namespace
