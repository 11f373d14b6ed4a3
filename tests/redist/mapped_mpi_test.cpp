// SPDX-License-Identifier: BSD-3-Clause
// Mapped arrays (redist_alloc) on one node: a receiver copies the pieces straight out of a
// sender's mapped array of A (Route::MappedRead). Every result bit-identical to ScaLAPACK's
// PxGEMR2D and to the same call through the node window from ordinary arrays, for block
// size changes, grid changes, an expansion and a shrink, with all senders' arrays mapped or
// only the even ranks'; ExecStats::bytes_mapped is exactly what the mapped senders sent
// this rank. A mapping refused (MALLEABLE_REDIST_FAULT=mapped-refused, =shm-refused) goes
// by message with the same result, and the next call maps again. No mapping of a peer's
// array outlives the call. Transfers of pieces of 1 MiB and more, which SingleCopy::Auto
// gives the kernel's read or write, go mapped too when the sender's A is mapped.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "exec/node_window.hpp"
#include "exec/segments.hpp"
#include "malleable/redist/mapped.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_common.hpp"

using namespace redist_test;
using redist::Layout;
using redist::Region;

namespace {

struct Case {
  const char* name;
  Layout a, b;
  Region g;
};

// All ranks of the test on one node (mpiexec on one host).
std::vector<Case> cases(int P) {
  const int h = std::max(1, P / 2);
  std::vector<int> first(static_cast<std::size_t>(h)), all(static_cast<std::size_t>(P));
  std::iota(first.begin(), first.end(), 0);
  std::iota(all.begin(), all.end(), 0);
  return {
      {"block size 16 -> 25 on 1xP", Layout::block_cyclic(301, 290, 16, 16, 1, P), Layout::block_cyclic(301, 290, 25, 25, 1, P),
       Region{301, 290, 0, 0, 0, 0}},
      {"grid 1xP -> Px1", Layout::block_cyclic(256, 256, 16, 16, 1, P), Layout::block_cyclic(256, 256, 16, 16, P, 1),
       Region{256, 256, 0, 0, 0, 0}},
      {"grid and blocks 2x(P/2) 8 -> 1xP 13, a region", Layout::block_cyclic(200, 180, 8, 8, 2, h),
       Layout::block_cyclic(190, 200, 13, 13, 1, P), Region{150, 170, 7, 3, 11, 20}},
      {"expansion P/2 -> P", Layout::block_cyclic(240, 240, 12, 12, 1, h, 0, 0, first),
       Layout::block_cyclic(240, 240, 12, 12, 2, h, 0, 0, all), Region{240, 240, 0, 0, 0, 0}},
      {"shrink P -> P/2, blocks 12 -> 5", Layout::block_cyclic(240, 240, 12, 12, 2, h, 0, 0, all),
       Layout::block_cyclic(240, 240, 5, 5, h, 1, 0, 0, first), Region{240, 240, 0, 0, 0, 0}}};
}

// The bytes this rank receives from other ranks whose A is mapped (mapped(src)).
template <class T, class F>
std::int64_t from_mapped(const redist::RedistPlan& plan, int me, F mapped) {
  std::int64_t b = 0;
  for (const auto& t : plan.transfers)
    if (t.dst == me && t.src != me && mapped(t.src)) b += t.elements() * static_cast<std::int64_t>(sizeof(T));
  return b;
}

struct Result {
  std::vector<char> b;
  redist::ExecStats st;
};

// One call: A's local array in a mapped array (when `map`) or an ordinary one.
template <class T>
Result run(const Case& c, const redist::RedistPlan& plan, const LocalMatrix<T>& A, bool map, int me,
           const redist::ExecOptions& opt = {}) {
  const auto B0 = fill_local<T>(c.b, me, false, (me + 1) % 2);
  redist::MappedArray<T> am(std::max<std::size_t>(A.data.size(), 1));
  std::vector<T> ao(A.data);
  std::memcpy(am.data(), A.data.data(), A.data.size() * sizeof(T));
  std::vector<T> b(B0.data);
  Result r;
  redist::redistribute<T>(MPI_COMM_WORLD, plan, A.in_grid ? (map ? am.data() : ao.data()) : nullptr, A.ld,
                          B0.in_grid ? b.data() : nullptr, B0.ld, opt, &r.st);
  // The peers' arrays are let go of at the end of the call (a freed one is not kept alive).
  EXPECT_EQ(redist::exec::segment_use().array_maps, 0);
  r.b.resize(b.size() * sizeof(T));
  if (!b.empty()) std::memcpy(r.b.data(), b.data(), r.b.size());
  return r;
}

// PxGEMR2D's B for case c (this rank's local bytes).
template <class T>
std::vector<char> reference(const Case& c, const LocalMatrix<T>& A, int sys, int gctxt, int me) {
  BlacsGrid ga(sys, c.a), gb(sys, c.b);
  auto ref = fill_local<T>(c.b, me, false, (me + 1) % 2);
  const auto da = c.a.to_desc(ga.ctxt(), static_cast<int>(A.ld)), db = c.b.to_desc(gb.ctxt(), static_cast<int>(ref.ld));
  pxgemr2d(static_cast<int>(c.g.m), static_cast<int>(c.g.n), A.in_grid ? A.data.data() : nullptr,
           static_cast<int>(c.g.ia + 1), static_cast<int>(c.g.ja + 1), da.data(), ref.in_grid ? ref.data.data() : nullptr,
           static_cast<int>(c.g.ib + 1), static_cast<int>(c.g.jb + 1), db.data(), gctxt);
  std::vector<char> want(ref.data.size() * sizeof(T));
  if (!want.empty()) std::memcpy(want.data(), ref.data.data(), want.size());
  return want;
}

template <class T>
void check_cases(const char* type) {
  const int me = world_rank(), P = world_size();
  const int sys = Csys2blacs_handle(MPI_COMM_WORLD);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, P);
  for (const Case& c : cases(P)) {
    const auto plan = redist::make_plan(c.a, c.b, c.g, P);
    const auto A = fill_local<T>(c.a, me, true, me % 3);
    const std::vector<char> want = reference<T>(c, A, sys, gctxt, me);
    const std::string at = std::string(type) + " " + c.name + " on rank " + std::to_string(me);
    const Result win = run<T>(c, plan, A, false, me);
    EXPECT_EQ(win.b, want) << "window: " << at;
    EXPECT_EQ(win.st.bytes_mapped, 0) << at;
    const Result all = run<T>(c, plan, A, true, me);
    EXPECT_EQ(all.b, want) << "mapped: " << at;
    const std::int64_t expect_all = from_mapped<T>(plan, me, [](int) { return true; });
    EXPECT_EQ(all.st.bytes_mapped, expect_all) << at;
    const Result even = run<T>(c, plan, A, me % 2 == 0, me);
    EXPECT_EQ(even.b, want) << "even ranks mapped: " << at;
    EXPECT_EQ(even.st.bytes_mapped, from_mapped<T>(plan, me, [](int r) { return r % 2 == 0; })) << at;
    EXPECT_EQ(even.st.bytes_window, from_mapped<T>(plan, me, [](int r) { return r % 2 == 1; })) << at;
    for (const char* fault : {"mapped-refused", "shm-refused"}) {
      setenv("MALLEABLE_REDIST_FAULT", fault, 1);
      const Result refused = run<T>(c, plan, A, true, me);
      unsetenv("MALLEABLE_REDIST_FAULT");
      EXPECT_EQ(refused.b, want) << fault << ": " << at;
      EXPECT_EQ(refused.st.bytes_mapped, 0) << fault << ": " << at;
      EXPECT_EQ(refused.st.bytes_window, 0) << fault << ": " << at;  // by message
      EXPECT_EQ(refused.st.bytes_received, win.st.bytes_received) << fault << ": " << at;
    }
    const Result again = run<T>(c, plan, A, true, me);
    EXPECT_EQ(again.b, want) << "mapped after a refusal: " << at;
    EXPECT_EQ(again.st.bytes_mapped, expect_all) << at;
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
}

// Tall matrices whose transfers between ranks have pieces of 1 MiB and more, which
// SingleCopy::Auto copies with the kernel: whole columns of 140,000 doubles, read by the
// receiver; and row blocks of 140,000 that the receiver holds in one stretch and the
// sender in two, written by the sender.
std::vector<Case> large_piece_cases(int P) {
  const int h = std::max(1, P / 2);
  return {{"whole columns of 1.1 MB, blocks 2 -> 3 on 1xP", Layout::block_cyclic(140000, 4 * P, 140000, 2, 1, P),
           Layout::block_cyclic(140000, 4 * P, 140000, 3, 1, P), Region{140000, 4 * P, 0, 0, 0, 0}},
          {"1xP -> 2x(P/2), row blocks of 1.1 MB", Layout::block_cyclic(560000, 2 * P, 560000, 2, 1, P),
           Layout::block_cyclic(560000, 2 * P, 140000, 2, 2, h), Region{560000, 2 * P, 0, 0, 0, 0}}};
}

// What this rank receives from other ranks (mapped(src)) in transfers SingleCopy::Auto reads
// (reads: the receiver reads, else the sender writes), in bytes.
template <class F>
std::int64_t kernel_bytes(const redist::RedistPlan& plan, int me, bool reads, F mapped) {
  std::int64_t b = 0;
  for (const auto& t : plan.transfers)
    if (t.dst == me && t.src != me && mapped(t.src) && redist::exec::copy_reads(t) == reads &&
        redist::exec::reads_in_place(t, sizeof(double), redist::SingleCopy::Auto, redist::Transport::Auto))
      b += t.elements() * static_cast<std::int64_t>(sizeof(double));
  return b;
}

}  // namespace

TEST(RedistMapped, DoubleMatchesPdgemr2dAndTheWindowMappedOrRefused) { check_cases<double>("double"); }
TEST(RedistMapped, FloatMatchesPdgemr2dAndTheWindowMappedOrRefused) { check_cases<float>("float"); }
TEST(RedistMapped, ComplexMatchesPdgemr2dAndTheWindowMappedOrRefused) { check_cases<std::complex<double>>("complex"); }

// Some ranks received from a mapped sender in the cases above (the route was taken at all).
TEST(RedistMapped, SomeRankReceivesOutOfAMappedArray) {
  const int me = world_rank(), P = world_size();
  const Case c = cases(P)[1];
  const auto plan = redist::make_plan(c.a, c.b, c.g, P);
  const auto A = fill_local<double>(c.a, me, true);
  const Result r = run<double>(c, plan, A, true, me);
  std::int64_t sum = 0;
  MPI_Allreduce(&r.st.bytes_mapped, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(sum, 0);
}

// ExecOptions::mapped_keep: a receiver keeps its mappings of the senders' arrays after the
// call (the next call on the same arrays finds them), and a call without it lets go of them.
TEST(RedistMapped, MappedKeepKeepsTheMappingsUntilACallWithoutIt) {
  const int me = world_rank(), P = world_size();
  const Case c = cases(P)[1];
  const auto plan = redist::make_plan(c.a, c.b, c.g, P);
  const auto A = fill_local<double>(c.a, me, true);
  const auto B0 = fill_local<double>(c.b, me, false);
  redist::MappedArray<double> am(A.data.size());
  std::memcpy(am.data(), A.data.data(), A.data.size() * sizeof(double));
  std::vector<double> b = B0.data;
  redist::ExecOptions keep;
  keep.mapped_keep = true;
  redist::ExecStats st;
  for (int k = 0; k < 2; ++k) {
    redist::redistribute<double>(MPI_COMM_WORLD, plan, am.data(), A.ld, b.data(), B0.ld, keep, &st);
    EXPECT_EQ(redist::exec::segment_use().array_maps > 0, st.bytes_mapped > 0) << "call " << k;
  }
  std::vector<double> again = B0.data;
  redist::redistribute<double>(MPI_COMM_WORLD, plan, am.data(), A.ld, again.data(), B0.ld);
  EXPECT_EQ(again, b);
  EXPECT_EQ(redist::exec::segment_use().array_maps, 0);
}

// A transfer the kernel would copy (pieces of 1 MiB and more, read by the receiver or
// written by the sender) goes mapped when the sender's A is mapped: B bit-identical to
// PDGEMR2D's, bytes_mapped exactly what the mapped senders sent in such transfers and
// bytes_single_copy what the others did; refused, by message; mapped_read off, the kernel.
TEST(RedistMapped, LargePiecesTheKernelWouldCopyGoMapped) {
  const int me = world_rank(), P = world_size();
  const int sys = Csys2blacs_handle(MPI_COMM_WORLD);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, P);
  const auto all = [](int) { return true; };
  const auto even = [](int r) { return r % 2 == 0; };
  const auto odd = [](int r) { return r % 2 == 1; };
  for (const Case& c : large_piece_cases(P)) {
    const auto plan = redist::make_plan(c.a, c.b, c.g, P);
    const auto A = fill_local<double>(c.a, me, true, me % 3);
    const std::vector<char> want = reference<double>(c, A, sys, gctxt, me);
    const std::string at = std::string(c.name) + " on rank " + std::to_string(me);
    const bool reads = std::string(c.name).rfind("whole", 0) == 0;
    const std::int64_t kernel = kernel_bytes(plan, me, reads, all);
    EXPECT_EQ(kernel, from_mapped<double>(plan, me, all)) << "every transfer is one the kernel copies: " << at;
    EXPECT_EQ(kernel_bytes(plan, me, !reads, all), 0) << at;
    std::int64_t total = 0;
    MPI_Allreduce(&kernel, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(total, 0) << c.name;
    const Result plain = run<double>(c, plan, A, false, me);
    EXPECT_EQ(plain.b, want) << "ordinary arrays: " << at;
    EXPECT_EQ(plain.st.bytes_single_copy, kernel) << at;
    EXPECT_EQ(plain.st.bytes_mapped, 0) << at;
    const Result mapped = run<double>(c, plan, A, true, me);
    EXPECT_EQ(mapped.b, want) << "mapped: " << at;
    EXPECT_EQ(mapped.st.bytes_mapped, kernel) << at;
    EXPECT_EQ(mapped.st.bytes_single_copy, 0) << at;
    const Result half = run<double>(c, plan, A, me % 2 == 0, me);
    EXPECT_EQ(half.b, want) << "even ranks mapped: " << at;
    EXPECT_EQ(half.st.bytes_mapped, kernel_bytes(plan, me, reads, even)) << at;
    EXPECT_EQ(half.st.bytes_single_copy, kernel_bytes(plan, me, reads, odd)) << at;
    setenv("MALLEABLE_REDIST_FAULT", "mapped-refused", 1);
    const Result refused = run<double>(c, plan, A, true, me);
    unsetenv("MALLEABLE_REDIST_FAULT");
    EXPECT_EQ(refused.b, want) << "mapping refused: " << at;
    EXPECT_EQ(refused.st.bytes_mapped + refused.st.bytes_single_copy, 0) << "by message: " << at;
    EXPECT_EQ(refused.st.bytes_received, plain.st.bytes_received) << at;
    redist::ExecOptions off;
    off.mapped_read = false;
    const Result kernel_only = run<double>(c, plan, A, true, me, off);
    EXPECT_EQ(kernel_only.b, want) << "mapped_read off: " << at;
    EXPECT_EQ(kernel_only.st.bytes_single_copy, kernel) << at;
    EXPECT_EQ(kernel_only.st.bytes_mapped, 0) << at;
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
}
