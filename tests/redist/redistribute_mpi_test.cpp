// SPDX-License-Identifier: BSD-3-Clause
// redist on heterogeneous layouts (checked against the global matrix gathered on rank 0)
// and every kind of bad input (every rank throws the same error, B untouched, no hang).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>

#include "mpi_common.hpp"
#include "malleable/redist/redistribute.hpp"

using namespace redist_test;
using redist::ErrorCode;
using redist::Layout;
using redist::Region;
using redist::ScheduleKind;

namespace {

std::vector<std::int64_t> random_split(std::mt19937& rng, std::int64_t total, int parts_hint) {
  std::vector<std::int64_t> b;
  const int maxsize = static_cast<int>(std::max<std::int64_t>(1, 2 * total / std::max(1, parts_hint)));
  while (total > 0) {
    const std::int64_t s = std::min<std::int64_t>(total, std::uniform_int_distribution<int>(1, maxsize)(rng));
    b.push_back(s);
    total -= s;
  }
  return b;
}

std::vector<int> shuffled(std::mt19937& rng, int count, int P) {
  std::vector<int> r(static_cast<std::size_t>(P));
  std::iota(r.begin(), r.end(), 0);
  std::shuffle(r.begin(), r.end(), rng);
  r.resize(static_cast<std::size_t>(count));
  return r;
}

// Rank 0 assembles B from every rank's local array and compares it with the global A:
// inside the region B(ib+i, jb+j) == A(ia+i, ja+j), outside it the sentinel.
template <class T>
int gathered_mismatches(const Layout& lb, const LocalMatrix<T>& B, const Region& g) {
  struct Entry {
    std::int64_t i, j;
    T v;
  };
  std::vector<Entry> mine;
  int pr = 0, pc = 0;
  if (lb.coords_of(world_rank(), pr, pc)) {
    const auto ra = lb.row_axis(), ca = lb.col_axis();
    for (std::int64_t jl = 0; jl < B.cols; ++jl)
      for (std::int64_t il = 0; il < B.rows; ++il)
        mine.push_back({ra.to_global(pr, il), ca.to_global(pc, jl), B.data[static_cast<std::size_t>(jl * B.ld + il)]});
  }
  const int P = world_size();
  int bytes = static_cast<int>(mine.size() * sizeof(Entry));
  std::vector<int> counts(static_cast<std::size_t>(P)), displs(static_cast<std::size_t>(P));
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<Entry> all;
  if (world_rank() == 0) {
    std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
    all.resize(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0)) / sizeof(Entry));
  }
  MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  int bad = 0;
  if (world_rank() == 0) {
    std::vector<int> seen(static_cast<std::size_t>(lb.m * lb.n), 0);
    for (const auto& e : all) {
      ++seen[static_cast<std::size_t>(e.i * lb.n + e.j)];
      const bool inside = e.i >= g.ib && e.i < g.ib + g.m && e.j >= g.jb && e.j < g.jb + g.n;
      const T want = inside ? make<T>(e.i - g.ib + g.ia, e.j - g.jb + g.ja) : sentinel<T>();
      if (std::memcmp(&want, &e.v, sizeof(T)) != 0) ++bad;
    }
    for (int s : seen) bad += s == 1 ? 0 : 1;  // the gathered B covers the matrix once
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad;
}

template <class T>
void heterogeneous_cases(unsigned seed, int ncases) {
  const int P = world_size(), me = world_rank();
  std::mt19937 rng(seed);
  auto U = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int k = 0; k < ncases; ++k) {
    const int pra = U(1, 3), pca = std::max(1, U(1, P) / pra);
    const int prb = U(1, 3), pcb = std::max(1, U(1, P) / prb);
    const int m = U(1, 120), n = U(1, 120), mb2 = U(m, 150), nb2 = U(n, 150);
    Layout a = Layout::from_blocks(random_split(rng, m, pra * U(1, 3)), random_split(rng, n, pca * U(1, 3)), pra,
                                   pca, U(0, pra - 1), U(0, pca - 1), shuffled(rng, pra * pca, P));
    Layout b;
    if (k % 3 == 0) {
      // One block per process row/column, sized by power: the thesis's heterogeneous
      // block distribution (§3.4.4, §6.2).
      std::vector<double> wr(static_cast<std::size_t>(prb)), wc(static_cast<std::size_t>(pcb));
      for (auto& w : wr) w = U(1, 8);
      for (auto& w : wc) w = U(1, 8);
      const int mm = std::max(mb2, prb), nn = std::max(nb2, pcb);
      b = Layout::from_blocks(redist::proportional_blocks(mm, wr), redist::proportional_blocks(nn, wc), prb, pcb, 0, 0,
                              shuffled(rng, prb * pcb, P));
    } else {
      b = Layout::from_blocks(random_split(rng, mb2, prb * U(1, 3)), random_split(rng, nb2, pcb * U(1, 3)), prb, pcb,
                              U(0, prb - 1), U(0, pcb - 1), shuffled(rng, prb * pcb, P));
    }
    Region g;
    g.m = U(1, m);
    g.n = U(1, n);
    g.ia = U(0, static_cast<int>(m - g.m));
    g.ja = U(0, static_cast<int>(n - g.n));
    g.ib = U(0, static_cast<int>(b.m - g.m));
    g.jb = U(0, static_cast<int>(b.n - g.n));
    const auto A = fill_local<T>(a, me, true, 1);
    for (auto kind : {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                      ScheduleKind::AllAtOnce}) {
      auto B = fill_local<T>(b, me, false, 2);
      redist::redistribute<T>(MPI_COMM_WORLD, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                              B.in_grid ? B.data.data() : nullptr, B.ld, g, kind);
      EXPECT_EQ(gathered_mismatches(b, B, g), 0) << "case " << k << " schedule " << redist::to_string(kind);
    }
  }
}

// Runs `call` on every rank; checks that every rank threw redist::Error with `code`
// (and, if given, a message containing `text`) and that B stayed as it was.
void expect_collective_error(const std::function<void()>& call, ErrorCode code, const std::string& text,
                             const std::vector<double>& b_before, const std::vector<double>& b_after) {
  int threw = 0;
  try {
    call();
  } catch (const redist::Error& e) {
    threw = 1;
    EXPECT_EQ(e.code(), code) << e.what();
    if (!text.empty()) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(threw, 1) << "this rank did not throw";
  EXPECT_EQ(b_before, b_after) << "B changed although the call failed";
  int all = 0;
  MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(all, 1) << "some rank did not throw";
}

}  // namespace

TEST(RedistMpi, HeterogeneousLayoutsMatchGatheredGlobalMatrix) {
  heterogeneous_cases<double>(41, 12);
  heterogeneous_cases<std::complex<float>>(43, 3);
}

TEST(RedistMpi, WholeMatrixConvenienceAndEmptyRegion) {
  const int P = world_size(), me = world_rank();
  const Layout a = Layout::block_cyclic(77, 65, 8, 8, 1, std::min(P, 2));
  const Layout b = Layout::block_cyclic(77, 65, 5, 3, std::max(1, P / 2), 2 <= P ? 2 : 1);
  const auto A = fill_local<double>(a, me, true);
  auto B = fill_local<double>(b, me, false);
  redist::redistribute<double>(MPI_COMM_WORLD, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                               B.in_grid ? B.data.data() : nullptr, B.ld);
  EXPECT_EQ(gathered_mismatches(b, B, Region::whole(a)), 0);
  auto C = fill_local<double>(b, me, false);
  const auto before = C.data;
  redist::redistribute<double>(MPI_COMM_WORLD, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                               C.in_grid ? C.data.data() : nullptr, C.ld, Region{0, 10, 0, 0, 0, 0});
  EXPECT_EQ(C.data, before);
}

TEST(RedistMpi, BadInputFailsOnEveryRankWithoutTouchingB) {
  const int P = world_size(), me = world_rank();
  ASSERT_GE(P, 4) << "the bad-input cases name ranks 1..3";
  // A on a 2 x (P/2) grid, B on all ranks in one row; every rank holds A data.
  const int pca = P / 2;
  const Layout a = Layout::block_cyclic(60, 50, 4, 4, 2, pca);
  const Layout b = Layout::block_cyclic(60, 50, 7, 5, 1, P);
  const auto A = fill_local<double>(a, me, true);
  auto B = fill_local<double>(b, me, false);
  const std::vector<double> before = B.data;
  const double* pa = A.in_grid ? A.data.data() : nullptr;
  double* pb = B.in_grid ? B.data.data() : nullptr;
  const Region whole = Region::whole(a);

  expect_collective_error(
      [&] {
        const Layout wide = Layout::block_cyclic(60, 51, 7, 5, 1, P);
        redist::redistribute<double>(MPI_COMM_WORLD, a, pa, A.ld, wide, pb, B.ld);
      },
      ErrorCode::SizeMismatch, "but b is 60 x 51", before, B.data);
  int pr2 = 0, pc2 = 0;
  ASSERT_TRUE(a.coords_of(2, pr2, pc2));
  const std::int64_t rows2 = a.local_rows(pr2);
  expect_collective_error(
      [&] { redist::redistribute<double>(MPI_COMM_WORLD, a, pa, me == 2 ? rows2 - 1 : A.ld, b, pb, B.ld, whole); },
      ErrorCode::LeadingDimension, "rank 2: lda = " + std::to_string(rows2 - 1), before, B.data);
  expect_collective_error(
      [&] { redist::redistribute<double>(MPI_COMM_WORLD, a, me == 1 ? nullptr : pa, A.ld, b, pb, B.ld, whole); },
      ErrorCode::NullBuffer, "rank 1: a is null", before, B.data);
  expect_collective_error(
      [&] { redist::redistribute<double>(MPI_COMM_WORLD, a, pa, A.ld, b, me == 3 ? nullptr : pb, B.ld, whole); },
      ErrorCode::NullBuffer, "rank 3: b is null", before, B.data);
  expect_collective_error(
      [&] { redist::redistribute<double>(MPI_COMM_WORLD, a, pa, A.ld, b, pb, B.ld, Region{20, 10, 45, 0, 0, 0}); },
      ErrorCode::RegionOutOfRange, "region.ia = 45", before, B.data);
  expect_collective_error(
      [&] {
        // Rank P-1 was told a different block size: each plan is valid on its own.
        const Layout other = Layout::block_cyclic(60, 50, 6, 5, 1, P);
        redist::redistribute<double>(MPI_COMM_WORLD, a, pa, A.ld, me == P - 1 ? other : b, pb, B.ld, whole);
      },
      ErrorCode::Inconsistent, "different layouts", before, B.data);
  expect_collective_error(
      [&] {
        Layout broken = b;
        broken.csrc = P;  // invalid on one rank only
        redist::redistribute<double>(MPI_COMM_WORLD, a, pa, A.ld, me == 1 ? broken : b, pb, B.ld, whole);
      },
      ErrorCode::InvalidLayout, "rank 1: csrc = " + std::to_string(P), before, B.data);
  expect_collective_error(
      [&] {
        const auto plan = redist::make_plan(a, b, whole, P + 1, ScheduleKind::Matching);
        redist::redistribute<double>(MPI_COMM_WORLD, plan, pa, A.ld, pb, B.ld);
      },
      ErrorCode::Inconsistent, "communicator has " + std::to_string(P), before, B.data);
  expect_collective_error(
      [&] {
        redist::ExecOptions opt;
        opt.transport = me == 0 ? redist::Transport::Packed : redist::Transport::Datatype;
        const auto plan = redist::make_plan(a, b, whole, P, ScheduleKind::Matching);
        redist::redistribute<double>(MPI_COMM_WORLD, plan, pa, A.ld, pb, B.ld, opt);
      },
      ErrorCode::Inconsistent, "", before, B.data);

  expect_collective_error(
      [&] {
        const auto plan = redist::make_plan(a, b, whole, P, ScheduleKind::Matching, (me + 1) % P);
        redist::redistribute<double>(MPI_COMM_WORLD, plan, pa, A.ld, pb, B.ld);
      },
      ErrorCode::Inconsistent, "materialized for rank 1", before, B.data);

  // Nothing is left half-done: the same arguments, corrected, work.
  redist::redistribute<double>(MPI_COMM_WORLD, a, pa, A.ld, b, pb, B.ld, whole);
  EXPECT_EQ(gathered_mismatches(b, B, whole), 0);
}

// Transport::Auto (the default) packs the transfers whose pieces are short and sends the
// others as datatypes, in the same step: here the senders of A's first process row hold
// 96-row pieces (datatype), those of the second 2-row pieces (packed), and both B ranks
// receive from both kinds at once; staging of a few columns makes the packed ones go as
// several messages. Every schedule, checked against the gathered global matrix.
TEST(RedistMpi, AutoTransportMixesPackedAndDatatypeTransfersInOneStep) {
  const int P = world_size(), me = world_rank();
  ASSERT_GE(P, 6);
  const Layout a = Layout::from_blocks({96, 2}, {5, 5, 5}, 2, 3, 0, 0, {0, 1, 2, 3, 4, 5});
  const Layout b = Layout::from_blocks({98}, {4, 4, 4, 3}, 1, 2, 0, 0, {5, 0});
  const auto A = fill_local<double>(a, me, true, 1);
  for (auto kind : {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                    ScheduleKind::AllAtOnce}) {
    for (std::int64_t staging : {std::int64_t{3 * 2 * 8}, std::int64_t{8} << 20}) {
      auto B = fill_local<double>(b, me, false, 2);
      redist::ExecOptions opt;
      ASSERT_EQ(opt.transport, redist::Transport::Auto);
      opt.staging_bytes = staging;
      const auto plan = redist::make_plan(a, b, Region::whole(a), P, kind);
      redist::redistribute<double>(MPI_COMM_WORLD, plan, A.in_grid ? A.data.data() : nullptr, A.ld,
                                   B.in_grid ? B.data.data() : nullptr, B.ld, opt);
      EXPECT_EQ(gathered_mismatches(b, B, Region::whole(a)), 0)
          << "schedule " << redist::to_string(kind) << " staging " << staging;
    }
  }
}

// ExecOptions::fuse_local: the local copy goes with the unpacking when the received
// pieces land in the same local columns of B (a column in blocks of 1 -> 3 rows), with the
// packing when the sent pieces come from the same local columns of A (columns in blocks of
// 1 on a 1 x P grid -> rows in blocks of 2 on P x 1). Fused, unfused and fused-but-staged
// (several rounds: not fused) all give the gathered global matrix; the stats say which ran.
TEST(RedistMpi, LocalCopyFusedWithUnpackingOrPackingGivesTheSameResult) {
  const int P = world_size(), me = world_rank();
  std::vector<int> ranks(static_cast<std::size_t>(P));
  std::iota(ranks.begin(), ranks.end(), 0);
  struct Case {
    const char* what;
    Layout a, b;
  };
  const Case cases[] = {
      {"target (column, blocks 1 -> 3)", Layout::block_cyclic(6001, 2, 1, 1, P, 1, 0, 0, ranks),
       Layout::block_cyclic(6001, 2, 3, 1, P, 1, 0, 0, ranks)},
      {"source (1 x P columns -> P x 1 rows)", Layout::block_cyclic(601, 40, 1, 1, 1, P, 0, 0, ranks),
       Layout::block_cyclic(601, 40, 2, 2, P, 1, 0, 0, ranks)},
      {"target along a row (1 x N, blocks 1 -> 2)", Layout::block_cyclic(1, 6001, 1, 1, 1, P, 0, 0, ranks),
       Layout::block_cyclic(1, 6001, 1, 2, 1, P, 0, 0, ranks)},
      {"target along a row of 2 (2 x N, blocks 1 -> 3, 1 x P -> 2 x P/2)",
       Layout::block_cyclic(2, 6001, 1, 1, 1, P, 0, 0, ranks), Layout::block_cyclic(2, 6001, 1, 3, 2, P / 2, 0, 0, ranks)}};
  int fused_somewhere = 0;
  for (const auto& c : cases) {
    const auto A = fill_local<double>(c.a, me, true, 1);
    for (auto kind : {ScheduleKind::AllAtOnce, ScheduleKind::Caterpillar}) {
      for (int mode = 0; mode < 3; ++mode) {  // fused, not fused, fused but several rounds
        auto B = fill_local<double>(c.b, me, false, 2);
        redist::ExecOptions opt;
        opt.transport = redist::Transport::Packed;
        opt.node_window = false;  // fusion is of packed messages (the window packs and unpacks on its own)
        opt.fuse_local = mode != 1;
        if (mode == 2) opt.staging_bytes = 8;
        redist::ExecStats st;
        const auto plan = redist::make_plan(c.a, c.b, Region::whole(c.a), P, kind);
        redist::redistribute<double>(MPI_COMM_WORLD, plan, A.in_grid ? A.data.data() : nullptr, A.ld,
                                     B.in_grid ? B.data.data() : nullptr, B.ld, opt, &st);
        const std::string at = std::string(c.what) + ", " + redist::to_string(kind) + ", mode " + std::to_string(mode);
        EXPECT_EQ(gathered_mismatches(c.b, B, Region::whole(c.a)), 0) << at;
        const bool local = std::any_of(plan.transfers.begin(), plan.transfers.end(),
                                       [&](const redist::Transfer& t) { return t.src == me && t.dst == me; });
        EXPECT_EQ(st.bytes_local > 0, local) << at;
        if (mode == 0)
          EXPECT_EQ(st.bytes_fused, st.bytes_local) << at;
        else
          EXPECT_EQ(st.bytes_fused, 0) << at;
        fused_somewhere += st.bytes_fused > 0;
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&fused_somewhere, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(total, 0);
}

// ExecOptions::single_copy (docs/reference/redist.md, "Single copy on a node"): every rank of this
// test is on one node, so On lands every received byte in one copy (the receiver reads
// the sender's A, or the sender writes into the receiver's B); Off none; with the copy refused (the test-only fault, as a system with ptrace restrictions refuses it) each
// transfer goes by message; Auto copies none of these pieces (2,048-4,096 rows, 8-32 KiB,
// under kSingleCopyMinPieceBytes: they go through the node window; node_window_mpi_test
// checks the pieces it does read). All four give the gathered global matrix.
template <class T>
void single_copy_case(const char* type) {
  const int P = world_size(), me = world_rank();
  ASSERT_GE(P, 6);
  std::vector<int> ranks(static_cast<std::size_t>(P));
  std::iota(ranks.begin(), ranks.end(), 0);
  // Row blocks 4096 -> 6144 (long pieces on both sides: the receivers read); whole columns
  // in column blocks on 1 x P -> row blocks of 4 on P x 1 (the receiver's pieces touch,
  // the sender's do not: the senders write into B) and back (the receivers read).
  const Layout layouts[][2] = {
      {Layout::block_cyclic(12288, 40, 4096, 6, 2, 3, 0, 0, {0, 1, 2, 3, 4, 5}),
       Layout::block_cyclic(12288, 40, 6144, 7, 3, 2, 1, 0, {5, 3, 1, 0, 2, 4})},
      {Layout::block_cyclic(600, 40, 600, 6, 1, P), Layout::block_cyclic(600, 40, 4, 40, P, 1, 1, 0)},
      {Layout::block_cyclic(600, 40, 4, 40, P, 1, 1, 0), Layout::block_cyclic(600, 40, 600, 6, 1, P)}};
  for (int kase = 0; kase < 3 * 4; ++kase) {  // each pair: on, off, on but refused, auto
    const Layout& a = layouts[kase / 4][0];
    const Layout& b = layouts[kase / 4][1];
    const int mode = kase % 4;
    const auto A = fill_local<T>(a, me, true, 1);
    auto B = fill_local<T>(b, me, false, 2);
    redist::ExecOptions opt;
    EXPECT_EQ(opt.single_copy, redist::SingleCopy::Auto);
    opt.single_copy = mode == 3 ? redist::SingleCopy::Auto : mode == 1 ? redist::SingleCopy::Off : redist::SingleCopy::On;
    if (mode == 2) setenv("MALLEABLE_REDIST_FAULT", "single-copy-refused", 1);
    redist::ExecStats st;
    redist::redistribute<T>(MPI_COMM_WORLD, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                            B.in_grid ? B.data.data() : nullptr, B.ld, ScheduleKind::Default, opt, &st);
    unsetenv("MALLEABLE_REDIST_FAULT");
    const std::string at = std::string(type) + ", layouts " + std::to_string(kase / 4) + ", mode " + std::to_string(mode);
    EXPECT_EQ(gathered_mismatches(b, B, Region::whole(a)), 0) << at;
    std::int64_t mine[2] = {st.bytes_single_copy, st.bytes_received}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(all[1], 0) << at;
    EXPECT_EQ(all[0], mode == 0 ? all[1] : 0) << at;
  }
}

TEST(RedistMpi, SingleCopyOnOneNodeReadsInPlaceOrFallsBackToMessages) {
  single_copy_case<double>("double");
  single_copy_case<float>("float");
  single_copy_case<std::complex<double>>("complex<double>");
}

// ExecOptions::node_window (docs/reference/redist.md, "A node-shared staging window"): every rank of
// this test is on one node, so with the window every received byte is unpacked straight
// from the sender's segment; off, none is (by message); with a budget too small for a
// step, some are (what fits in half the budget) and the rest goes by message. Several
// calls in a row reuse each process's segment, grow it (a larger matrix) and make it anew
// smaller; a communicator of its own (freed after) uses the same segments. All give the
// gathered global matrix.
template <class T>
void node_window_case(const char* type) {
  const int P = world_size(), me = world_rank();
  ASSERT_GE(P, 6);
  MPI_Comm mine = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &mine);
  struct Call {
    std::int64_t m, n;
    int mode;  // 0 window, 1 off, 2 budget too small for the window
    MPI_Comm comm;
  };
  const Call calls[] = {{300, 77, 0, MPI_COMM_WORLD}, {300, 77, 0, MPI_COMM_WORLD}, {900, 150, 0, MPI_COMM_WORLD},
                        {40, 30, 0, MPI_COMM_WORLD},  {300, 77, 1, MPI_COMM_WORLD}, {900, 150, 2, MPI_COMM_WORLD},
                        {300, 77, 0, mine}};
  for (const Call& c : calls) {
    const Layout a = Layout::block_cyclic(c.m, c.n, 7, 5, 2, 3, 0, 0, {0, 1, 2, 3, 4, 5});
    const Layout b = Layout::block_cyclic(c.m, c.n, 4, 9, 3, 2, 1, 0, {5, 3, 1, 0, 2, 4});
    const auto A = fill_local<T>(a, me, true, 1);
    auto B = fill_local<T>(b, me, false, 2);
    redist::ExecOptions opt;
    opt.node_window = c.mode != 1;
    if (c.mode == 2) opt.memory_budget_bytes = 65536;  // the window may take half: less than a step needs
    redist::ExecStats st;
    redist::redistribute<T>(c.comm, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                            B.in_grid ? B.data.data() : nullptr, B.ld, ScheduleKind::Default, opt, &st);
    const std::string at = std::string(type) + ", " + std::to_string(c.m) + " x " + std::to_string(c.n) + ", mode " +
                           std::to_string(c.mode);
    EXPECT_EQ(gathered_mismatches(b, B, Region::whole(a)), 0) << at;
    std::int64_t got[2] = {st.bytes_window, st.bytes_received}, all[2] = {0, 0};
    MPI_Allreduce(got, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(all[1], 0) << at;
    if (c.mode == 2) {
      EXPECT_LT(all[0], all[1]) << at;  // what does not fit half the budget goes by message
    } else {
      EXPECT_EQ(all[0], c.mode == 0 ? all[1] : 0) << at;
    }
  }
  MPI_Comm_free(&mine);
}

TEST(RedistMpi, NodeWindowUnpacksFromSharedMemoryOrFallsBackToMessages) {
  node_window_case<double>("double");
  node_window_case<float>("float");
  node_window_case<std::complex<double>>("complex<double>");
}

TEST(RedistMpi, ExecStatsSplitWaitingFromTransferring) {
  const int P = world_size(), me = world_rank();
  const Layout a = Layout::block_cyclic(200, 200, 16, 16, 1, 2, 0, 0, {0, 1});
  std::vector<int> rb(static_cast<std::size_t>(P));
  std::iota(rb.begin(), rb.end(), 0);
  const Layout b = Layout::block_cyclic(200, 200, 16, 16, 1, P, 0, 0, rb);
  const auto A = fill_local<double>(a, me, true);
  auto B = fill_local<double>(b, me, false);
  redist::ExecOptions opt;
  opt.split_wait_transfer = true;
  redist::ExecStats st;
  const auto plan = redist::make_plan(a, b, Region::whole(a), P, ScheduleKind::Caterpillar);
  redist::redistribute<double>(MPI_COMM_WORLD, plan, A.in_grid ? A.data.data() : nullptr, A.ld,
                               B.in_grid ? B.data.data() : nullptr, B.ld, opt, &st);
  EXPECT_EQ(st.bytes_sent, plan.stats.sent_by_rank[static_cast<std::size_t>(me)] * 8);
  EXPECT_EQ(st.bytes_received, plan.stats.recv_by_rank[static_cast<std::size_t>(me)] * 8);
  EXPECT_GE(st.total_s, st.wait_s + st.transfer_s);
  EXPECT_GE(st.wait_s, 0.0);
  EXPECT_EQ(gathered_mismatches(b, B, Region::whole(a)), 0);
}
