// SPDX-License-Identifier: BSD-3-Clause
// The node window's segments (ExecOptions::node_window, on by default; docs/reference/redist.md, "A
// node-shared staging window") belong to processes, not to communicators: communicators
// used for redistributions are freed in different orders on different ranks, or on some
// ranks only, without waiting; /dev/shm holds no name of ours after (or between) calls;
// shared memory unavailable on some senders, or refused to some receivers, sends those
// transfers by message with the same result; memory stays within the budget.
#include <dirent.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exec/node_window.hpp"
#include "exec/segments.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_common.hpp"

using namespace redist_test;
using redist::Layout;
using redist::ScheduleKind;

namespace {

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
int size_of(MPI_Comm c) {
  int n = 0;
  MPI_Comm_size(c, &n);
  return n;
}

// 2 x (P/2) -> (P/2) x 2 (or 1 x P -> P x 1) on `comm`, blocks 7x5 -> 4x9. Returns this rank's
// bytes unpacked from a window and received; every element of B checked against the global
// matrix's value there (*bad counts the wrong ones).
template <class T>
std::pair<std::int64_t, std::int64_t> redistribute_on(MPI_Comm comm, std::int64_t m, std::int64_t n, int* bad,
                                                      std::int64_t budget = 0) {
  const int P = size_of(comm), me = rank_of(comm);
  const int r = P % 2 == 0 ? 2 : 1, c = P / r;
  const Layout a = Layout::block_cyclic(m, n, 7, 5, r, c);
  const Layout b = Layout::block_cyclic(m, n, 4, 9, c, r, 1, 0);
  const auto A = fill_local<T>(a, me, true);
  auto B = fill_local<T>(b, me, false);
  const auto want = fill_local<T>(b, me, true);
  redist::ExecOptions opt;
  if (budget > 0) opt.memory_budget_bytes = budget;
  redist::ExecStats st;
  redist::redistribute<T>(comm, a, A.in_grid ? A.data.data() : nullptr, A.ld, b, B.in_grid ? B.data.data() : nullptr,
                          B.ld, ScheduleKind::Default, opt, &st);
  for (std::size_t k = 0; k < B.data.size(); ++k)
    if (std::memcmp(&B.data[k], &want.data[k], sizeof(T)) != 0) ++*bad;
  if (budget > 0) {
    EXPECT_LE(st.peak_bytes, budget);
  }
  return {st.bytes_window, st.bytes_received};
}

// Names of ours in /dev/shm (the segments' names begin with "malleable-redist.<pid>.").
int names_in_dev_shm(long pid) {
  const std::string prefix = "malleable-redist." + std::to_string(pid) + ".";
  int n = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (const dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) ++n;
    closedir(d);
  }
  return n;
}

std::int64_t sum(std::int64_t v, MPI_Comm c = MPI_COMM_WORLD) {
  std::int64_t s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, c);
  return s;
}

}  // namespace

TEST(RedistNodeWindow, OnByDefault) {
  EXPECT_TRUE(redist::ExecOptions{}.node_window);
}

// Four communicators (three of all ranks, one of the even ranks), each used for a
// redistribution through the window, then freed in a rank-dependent order; the even ranks'
// one is freed by half of them before a redistribution over all ranks and by the others
// after it. With a window whose free waits for the node's other ranks (the MPI shared window
// kept on the communicator, before) this hangs: the test's timeout fails it.
TEST(RedistNodeWindow, CommunicatorsFreedInDifferentOrdersDoNotWait) {
  const int me = rank_of(MPI_COMM_WORLD), P = size_of(MPI_COMM_WORLD);
  ASSERT_GE(P, 4);
  std::vector<MPI_Comm> c(3, MPI_COMM_NULL);
  for (auto& x : c) MPI_Comm_dup(MPI_COMM_WORLD, &x);
  MPI_Comm evens = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2 == 0 ? 0 : MPI_UNDEFINED, me, &evens);
  int bad = 0;
  std::int64_t window = 0, received = 0;
  for (std::size_t k = 0; k < c.size(); ++k) {
    const auto [w, r] = redistribute_on<double>(c[k], 200 + 50 * static_cast<std::int64_t>(k), 60, &bad);
    window += w, received += r;
  }
  if (evens != MPI_COMM_NULL) {
    const auto [w, r] = redistribute_on<double>(evens, 150, 40, &bad);
    window += w, received += r;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(sum(received), 0);
  EXPECT_EQ(sum(window), sum(received));  // one node: every received byte came through a window
  // Rank-dependent orders: rotate by rank; the even ranks free theirs first or last by half.
  std::rotate(c.begin(), c.begin() + me % 3, c.end());
  if (evens != MPI_COMM_NULL && me % 4 == 0) MPI_Comm_free(&evens);
  for (auto& x : c) MPI_Comm_free(&x);
  EXPECT_EQ(bad, 0);
  // The world goes on through the segments kept by processes, not by communicators, while
  // ranks 2, 6, ... still hold `evens` (a free that waited for them would hang here).
  const auto [w, r] = redistribute_on<std::complex<double>>(MPI_COMM_WORLD, 300, 70, &bad);
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(sum(w), sum(r));
  if (evens != MPI_COMM_NULL) MPI_Comm_free(&evens);
}

// /dev/shm holds no name of this process's segments after calls that made, grew and remade
// them: each name is unlinked as soon as its segment exists (receivers map the open
// descriptor), so neither a normal run nor a killed one leaves one behind.
TEST(RedistNodeWindow, DevShmKeepsNoName) {
  int bad = 0;
  std::int64_t w = 0;
  for (const std::int64_t m : {120, 900, 60, 400}) {  // grow, remake smaller, grow
    w += redistribute_on<double>(MPI_COMM_WORLD, m, 80, &bad).first;
    EXPECT_EQ(names_in_dev_shm(static_cast<long>(getpid())), 0) << "after m = " << m;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(sum(w), 0);
  const auto use = redist::exec::segment_use();
  EXPECT_GT(use.own, 0);  // this process did make segments: the check above saw them gone
  EXPECT_LT(use.peers, size_of(MPI_COMM_WORLD));  // at most one mapping per other rank
}

// Shared memory unavailable on the even ranks (as with /dev/shm full): their transfers go by
// message, the odd ranks' still through their segments; refused to every receiver (a
// system forbidding /proc/<pid>/fd): all by message. Same result every time.
TEST(RedistNodeWindow, UnavailableOrRefusedGoesByMessage) {
  const int me = rank_of(MPI_COMM_WORLD);
  for (const char* f : {"shm-unavailable", "shm-refused"}) {
    const bool set = std::string(f) == "shm-refused" || me % 2 == 0;
    if (set) setenv("MALLEABLE_REDIST_FAULT", f, 1);
    int bad = 0;
    // A size no call before used: the segments are made anew, so the fault is met.
    const auto [w, r] = redistribute_on<double>(MPI_COMM_WORLD, 1500, 90, &bad);
    unsetenv("MALLEABLE_REDIST_FAULT");
    EXPECT_EQ(bad, 0) << f;
    const std::int64_t all_w = sum(w), all_r = sum(r);
    EXPECT_GT(all_r, 0) << f;
    if (std::string(f) == "shm-refused") {
      EXPECT_EQ(all_w, 0) << f;
    } else {
      EXPECT_TRUE(all_w > 0 && all_w < all_r) << f << ": " << all_w << " of " << all_r;
    }
    int again = 0;  // and afterwards, without the fault, the window again
    const auto [w2, r2] = redistribute_on<double>(MPI_COMM_WORLD, 1500, 90, &again);
    EXPECT_EQ(again, 0);
    EXPECT_EQ(sum(w2), sum(r2)) << f;
  }
}

// A small memory budget: each rank's segment takes at most half of it; what does not fit
// goes by message; the peak stays within the budget; the same result.
TEST(RedistNodeWindow, SegmentWithinBudget) {
  int bad = 0;
  const std::int64_t budget = 1 << 16;
  const auto [w, r] = redistribute_on<std::complex<float>>(MPI_COMM_WORLD, 900, 150, &bad, budget);
  EXPECT_EQ(bad, 0);
  const std::int64_t all_w = sum(w), all_r = sum(r);
  EXPECT_TRUE(all_w > 0 && all_w < all_r) << all_w << " of " << all_r;
  EXPECT_LE(redist::exec::segment_use().own, budget / 2);
}

// ExecOptions::single_copy = Auto (the default) beside the window: every rank is on one
// node, so each transfer between two ranks is read in one copy exactly when its pieces
// average at least kSingleCopyMinPieceBytes (reads_in_place, computed here from the plan
// the call makes) and goes through the window otherwise. With r doubles at the threshold,
// row blocks 2r -> 3r over 2 -> 3 process rows give pieces of r and 2r rows: all read in
// one copy for double and complex<double>, some for float (half the threshold and the
// threshold); blocks 7x5 -> 4x9 give none. Each byte received went one way or the other;
// B is right.
template <class T>
void auto_case(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb, std::int64_t mbb, std::int64_t nbb,
               const char* what) {
  const int P = size_of(MPI_COMM_WORLD), me = rank_of(MPI_COMM_WORLD);
  ASSERT_GE(P, 6);
  const Layout a = Layout::block_cyclic(m, n, mb, nb, 2, 3);
  const Layout b = Layout::block_cyclic(m, n, mbb, nbb, 3, 2, 1, 0);
  const auto A = fill_local<T>(a, me, true);
  auto B = fill_local<T>(b, me, false);
  const auto want = fill_local<T>(b, me, true);
  redist::ExecOptions opt;
  EXPECT_EQ(opt.single_copy, redist::SingleCopy::Auto);
  redist::ExecStats st;
  redist::redistribute<T>(MPI_COMM_WORLD, a, A.in_grid ? A.data.data() : nullptr, A.ld, b,
                          B.in_grid ? B.data.data() : nullptr, B.ld, ScheduleKind::Default, opt, &st);
  int bad = 0;
  for (std::size_t k = 0; k < B.data.size(); ++k)
    if (std::memcmp(&B.data[k], &want.data[k], sizeof(T)) != 0) ++bad;
  EXPECT_EQ(sum(bad), 0) << what;
  const auto plan = redist::make_plan(a, b, redist::Region::whole(a), P, ScheduleKind::Default, me);
  std::int64_t read = 0;  // what this rank receives that the rule reads in one copy
  for (const auto& t : plan.transfers)
    if (t.dst == me && t.src != me &&
        redist::exec::reads_in_place(t, sizeof(T), redist::SingleCopy::Auto, redist::Transport::Auto))
      read += t.elements() * static_cast<std::int64_t>(sizeof(T));
  EXPECT_EQ(st.bytes_single_copy, read) << what << ", rank " << me;
  EXPECT_EQ(st.bytes_single_copy + st.bytes_window, st.bytes_received) << what << ", rank " << me;
  const std::int64_t all_read = sum(read), all_received = sum(st.bytes_received);
  EXPECT_GT(all_received, 0) << what;
  const std::string w = what;
  if (w == "short pieces") {
    EXPECT_EQ(all_read, 0);
  } else if (w == "long pieces, float") {
    EXPECT_TRUE(all_read > 0 && all_read < all_received) << all_read;
  } else {
    EXPECT_EQ(all_read, all_received) << what;
  }
}

TEST(RedistNodeWindow, AutoReadsLongPiecesInOneCopyAndWindowsTheRest) {
  auto_case<double>(900, 150, 7, 5, 4, 9, "short pieces");
  const std::int64_t r = redist::exec::kSingleCopyMinPieceBytes / 8;
  auto_case<float>(6 * r, 2, 2 * r, 1, 3 * r, 2, "long pieces, float");
  auto_case<double>(6 * r, 2, 2 * r, 1, 3 * r, 2, "long pieces, double");
  auto_case<std::complex<double>>(6 * r, 2, 2 * r, 1, 3 * r, 2, "long pieces, complex<double>");
}
