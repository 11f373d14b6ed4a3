// SPDX-License-Identifier: BSD-3-Clause
// redist's local-copy kernels on their own, without MPI (redist/src/exec/local_copy.hpp,
// fused.hpp): every rank of a plan simulated in one process, each transfer moved from its
// sender's local array of A to its receiver's local array of B by the executor's kernels
// (copy_transfer; pack_columns and unpack_columns in message-sized pieces; the fused
// passes where choose_fuse picks one) must give B exactly A's elements of the region, and
// leave every other element of B alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "exec/fused.hpp"
#include "exec/local_copy.hpp"
#include "malleable/redist/plan.hpp"
#include "random_layout_parts.hpp"

namespace {

using redist::Layout;
using redist::Region;
using redist::Transfer;
using namespace redist::exec;

constexpr double kUntouched = -1.0;

double value(std::int64_t i, std::int64_t j) { return static_cast<double>(i * 100003 + j + 1); }

// One rank's local arrays of A and B (padded leading dimensions), A filled with value(i, j).
struct Rank {
  std::int64_t lda = 1, ldb = 1;
  std::vector<double> a, b;
  Side sa, sb;
};

std::vector<Rank> make_ranks(const Layout& la, const Layout& lb, const Region& r, int P, int pad) {
  std::vector<Rank> ranks(static_cast<std::size_t>(P));
  for (int q = 0; q < P; ++q) {
    Rank& k = ranks[static_cast<std::size_t>(q)];
    int pr = 0, pc = 0;
    if (la.coords_of(q, pr, pc)) {
      k.lda = std::max<std::int64_t>(1, la.local_rows(pr)) + pad;
      k.a.assign(static_cast<std::size_t>(k.lda * la.local_cols(pc)), 0.0);
      for (std::int64_t jl = 0; jl < la.local_cols(pc); ++jl)
        for (std::int64_t il = 0; il < la.local_rows(pr); ++il)
          k.a[static_cast<std::size_t>(il + jl * k.lda)] = value(la.local_to_row(pr, il), la.local_to_col(pc, jl));
    }
    if (lb.coords_of(q, pr, pc)) {
      k.ldb = std::max<std::int64_t>(1, lb.local_rows(pr)) + (pad + 1) % 3;
      k.b.assign(static_cast<std::size_t>(k.ldb * lb.local_cols(pc)), kUntouched);
    }
    k.sa = Side{la.row_axis(), la.col_axis(), 0, 0, k.lda, false};
    k.sb = Side{lb.row_axis(), lb.col_axis(), r.ib - r.ia, r.jb - r.ja, k.ldb, true};
  }
  return ranks;
}

// "" when every rank's B holds A's region and nothing else was written, else the first
// wrong element.
std::string check(const Layout& lb, const Region& r, const std::vector<Rank>& ranks) {
  for (std::size_t q = 0; q < ranks.size(); ++q) {
    int pr = 0, pc = 0;
    if (!lb.coords_of(static_cast<int>(q), pr, pc)) continue;
    const Rank& k = ranks[q];
    for (std::int64_t jl = 0; jl < lb.local_cols(pc); ++jl)
      for (std::int64_t il = 0; il < lb.local_rows(pr); ++il) {
        const std::int64_t i = lb.local_to_row(pr, il), j = lb.local_to_col(pc, jl);
        const bool in = i >= r.ib && i < r.ib + r.m && j >= r.jb && j < r.jb + r.n;
        const double want = in ? value(i - r.ib + r.ia, j - r.jb + r.ja) : kUntouched;
        const double got = k.b[static_cast<std::size_t>(il + jl * k.ldb)];
        if (got != want)
          return "rank " + std::to_string(q) + " B(" + std::to_string(i) + "," + std::to_string(j) + ") = " +
                 std::to_string(got) + ", want " + std::to_string(want);
      }
  }
  return {};
}

// Column counts that cut `ncols` into message-sized pieces at random.
std::vector<std::int64_t> random_cuts(std::mt19937& rng, std::int64_t ncols) {
  std::vector<std::int64_t> cuts;
  while (ncols > 0) {
    const std::int64_t c = std::min(ncols, std::uniform_int_distribution<std::int64_t>(1, 9)(rng));
    cuts.push_back(c);
    ncols -= c;
  }
  return cuts;
}

enum class Path { Direct, Packed, Fused };

// Moves every transfer of the whole plan by the kernels of `path`; returns how many ranks
// fused their local copy, by kind.
std::map<Fuse, int> run(const redist::RedistPlan& plan, std::vector<Rank>& ranks, Path path, std::mt19937& rng) {
  std::map<Fuse, int> fused;
  const auto P = ranks.size();
  if (path == Path::Direct) {  // copy_transfer on every transfer, cross ones included
    for (const Transfer& t : plan.transfers) {
      Rank &s = ranks[static_cast<std::size_t>(t.src)], &d = ranks[static_cast<std::size_t>(t.dst)];
      copy_transfer<double>(s.sa, s.a.data(), d.sb, d.b.data(), t);
    }
    return fused;
  }
  // Per rank: its local transfer, the cross transfers it sends and receives, the fused pass.
  std::vector<const Transfer*> local(P, nullptr);
  std::vector<std::vector<const Transfer*>> outs(P), ins(P);
  for (const Transfer& t : plan.transfers) {
    if (t.src == t.dst)
      local[static_cast<std::size_t>(t.src)] = &t;
    else {
      outs[static_cast<std::size_t>(t.src)].push_back(&t);
      ins[static_cast<std::size_t>(t.dst)].push_back(&t);
    }
  }
  std::vector<Fuse> how(P, Fuse::None);
  if (path == Path::Fused)
    for (std::size_t q = 0; q < P; ++q) {
      if (!local[q]) continue;
      std::vector<Walk> wo, wi;  // reserved: the pointers below stay valid
      wo.reserve(outs[q].size());
      wi.reserve(ins[q].size());
      std::vector<const Walk*> po, pi;
      for (const Transfer* t : outs[q]) po.push_back(&wo.emplace_back(ranks[q].sa, *t));
      for (const Transfer* t : ins[q]) pi.push_back(&wi.emplace_back(ranks[q].sb, *t));
      how[q] = choose_fuse(Walk(ranks[q].sa, *local[q]), Walk(ranks[q].sb, *local[q]), po, pi);
      if (how[q] != Fuse::None) ++fused[how[q]];
    }
  auto source = [&](std::size_t q) { return how[q] == Fuse::Source || how[q] == Fuse::SourceRow; };
  auto target = [&](std::size_t q) { return how[q] == Fuse::Target || how[q] == Fuse::TargetRow; };
  // Each cross transfer's message(s): packed by its sender, in random pieces or fused.
  std::map<const Transfer*, std::vector<double>> msg;
  for (std::size_t q = 0; q < P; ++q) {
    Rank& s = ranks[q];
    std::vector<Walk> walks;
    walks.reserve(outs[q].size());
    std::vector<std::vector<LocalRun>> packed;
    packed.reserve(outs[q].size());
    std::vector<FusedChan<double>> chans;
    for (const Transfer* t : outs[q]) {
      const Walk& w = walks.emplace_back(s.sa, *t);
      packed.push_back(packed_runs(w.rows));
      auto& buf = msg[t];
      buf.assign(static_cast<std::size_t>(w.ncols * w.rows_per_col), 0.0);
      chans.push_back({&w, &packed.back(), buf.data()});
      if (source(q)) continue;
      std::int64_t first = 0;
      for (std::int64_t nc : random_cuts(rng, w.ncols)) {
        pack_columns<double>(w, packed.back(), s.a.data(), s.lda, first, nc, buf.data() + first * w.rows_per_col);
        first += nc;
      }
    }
    if (source(q)) run_fused<double>(how[q], s.sa, s.a.data(), s.sb, s.b.data(), *local[q], chans);
  }
  // Received: unpacked in other random pieces, or fused with the receiver's local copy.
  for (std::size_t q = 0; q < P; ++q) {
    Rank& d = ranks[q];
    std::vector<Walk> walks;
    walks.reserve(ins[q].size());
    std::vector<std::vector<LocalRun>> packed;
    packed.reserve(ins[q].size());
    std::vector<FusedChan<double>> chans;
    for (const Transfer* t : ins[q]) {
      const Walk& w = walks.emplace_back(d.sb, *t);
      packed.push_back(packed_runs(w.rows));
      chans.push_back({&w, &packed.back(), msg[t].data()});
      if (target(q)) continue;
      std::int64_t first = 0;
      for (std::int64_t nc : random_cuts(rng, w.ncols)) {
        unpack_columns<double>(w, packed.back(), msg[t].data() + first * w.rows_per_col, first, nc, d.b.data(), d.ldb);
        first += nc;
      }
    }
    if (target(q)) run_fused<double>(how[q], d.sa, d.a.data(), d.sb, d.b.data(), *local[q], chans);
    if (local[q] && !source(q) && !target(q)) copy_transfer<double>(d.sa, d.a.data(), d.sb, d.b.data(), *local[q]);
  }
  return fused;
}

Layout random_layout(std::mt19937& rng, std::int64_t m, std::int64_t n) {
  std::uniform_int_distribution<int> grid(1, 3), block(1, 7), coin(0, 2);
  const int pr = grid(rng), pc = grid(rng);
  switch (coin(rng)) {
    case 0: return Layout::block_cyclic(m, n, block(rng), block(rng), pr, pc);
    case 1: return Layout::block_cyclic(m, n, m, block(rng), 1, pc);  // whole columns
    default: return Layout::from_blocks(redist_test::random_split(rng, m, 7), redist_test::random_split(rng, n, 7), pr, pc);
  }
}

Region random_region(std::mt19937& rng, std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb, bool sub) {
  Region r = Region::whole(Layout::block_cyclic(m, n, 1, 1, 1, 1));
  if (!sub) return r;
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  r.m = pick(1, m);
  r.n = pick(1, n);
  r.ia = pick(0, m - r.m);
  r.ja = pick(0, n - r.n);
  r.ib = pick(0, mb - r.m);
  r.jb = pick(0, nb - r.n);
  return r;
}

void expect_all_paths(const Layout& la, const Layout& lb, const Region& r, std::mt19937& rng, int pad,
                      std::map<Fuse, int>* fused, const std::string& what) {
  const int P = std::max(la.nprow * la.npcol, lb.nprow * lb.npcol);
  const auto plan = redist::make_plan(la, lb, r, P);
  for (Path path : {Path::Direct, Path::Packed, Path::Fused}) {
    auto ranks = make_ranks(la, lb, r, P, pad);
    const auto f = run(plan, ranks, path, rng);
    if (fused)
      for (auto [k, c] : f) (*fused)[k] += c;
    ASSERT_EQ(check(lb, r, ranks), "") << what << ", path " << static_cast<int>(path);
  }
}

TEST(LocalCopy, EveryPathMovesExactlyTheRegionOnRandomLayouts) {
  std::mt19937 rng(20261125);
  for (int trial = 0; trial < 400; ++trial) {
    std::uniform_int_distribution<std::int64_t> dim(1, 40);
    const std::int64_t m = dim(rng), n = dim(rng);
    const Layout la = random_layout(rng, m, n), lb = random_layout(rng, m + 3, n + 2);
    const Region r = random_region(rng, m, n, m + 3, n + 2, trial % 2 == 1);
    expect_all_paths(la, lb, r, rng, trial % 3, nullptr, "trial " + std::to_string(trial));
  }
}

// Shapes where each fused pass applies (long columns, or one row in short column
// blocks), so the fused kernels are exercised, not only skipped.
TEST(LocalCopy, FusedPassesMoveExactlyTheRegion) {
  std::mt19937 rng(7);
  std::map<Fuse, int> fused;
  const std::int64_t m = 150, n = 37;
  // Target: rows split over 2 ranks gathered on one; Source: the reverse.
  expect_all_paths(Layout::block_cyclic(m, n, 64, 5, 2, 1), Layout::block_cyclic(m, n, m, 4, 1, 1), Region::whole(
                   Layout::block_cyclic(m, n, 1, 1, 1, 1)), rng, 1, &fused, "2x1 -> 1x1");
  expect_all_paths(Layout::block_cyclic(m, n, m, 4, 1, 1), Layout::block_cyclic(m, n, 64, 5, 2, 1), Region::whole(
                   Layout::block_cyclic(m, n, 1, 1, 1, 1)), rng, 2, &fused, "1x1 -> 2x1");
  // TargetRow / SourceRow: a 1 x 300 row in column blocks of 1-3 (ld 1 and padded).
  for (int pad : {0, 2}) {
    const Layout wide = Layout::block_cyclic(1, 300, 1, 3, 1, 2), narrow = Layout::block_cyclic(1, 300, 1, 2, 1, 1);
    const Region whole = Region::whole(wide);
    expect_all_paths(wide, narrow, whole, rng, pad, &fused, "1x2 -> 1x1, blocks 3 -> 2");
    expect_all_paths(narrow, wide, whole, rng, pad, &fused, "1x1 -> 1x2, blocks 2 -> 3");
  }
  EXPECT_GT(fused[Fuse::Target], 0);
  EXPECT_GT(fused[Fuse::Source], 0);
  EXPECT_GT(fused[Fuse::TargetRow], 0);
  EXPECT_GT(fused[Fuse::SourceRow], 0);
}

// Runs of short column pieces against one long stretch (column blocks of 3 gathered on
// one process), and short row pieces (blocks of 1-4 rows: copy_short's loops).
TEST(LocalCopy, ShortPiecesAndGatheredRuns) {
  std::mt19937 rng(11);
  for (std::int64_t mb : {1, 2, 3, 4, 5}) {
    const Layout a = Layout::block_cyclic(23, 300, mb, 3, 2, 2), b = Layout::block_cyclic(23, 300, 23, 300, 1, 1);
    expect_all_paths(a, b, Region::whole(a), rng, 0, nullptr, "gather, mb " + std::to_string(mb));
    expect_all_paths(b, a, Region::whole(a), rng, 1, nullptr, "scatter, mb " + std::to_string(mb));
  }
}

}  // namespace
