// SPDX-License-Identifier: BSD-3-Clause
// Level recovery against `redistribute` of the same blocks, timed in one run
// (scripts/bench/levels.sh recover). An N x N double matrix in NB x NB blocks:
//   write N NB PxQ DIR           PxQ processes fill it (a value of each global index),
//                                write the local level, then the local + partner level
//                                (nodes as the session finds them: MALLEABLE_NODE_MAP)
//   read N NB PxQ DIR OLD HOLDERS REPS
//                                restart_from_levels onto PxQ (timed: slowest process,
//                                after a barrier), every element checked; before and after
//                                it, REPS times each, `redistribute` of the same blocks from
//                                the OLD grid onto PxQ, old position k held by world rank
//                                HOLDERS[k] (a comma list; the identity on as many ranks
//                                as positions gives the plain layout and every transport)
// Prints recover_s, redistribute_s (median of the 2 x REPS), and their ratio; then
// redistribute_cold_s: one more `redistribute` on a new communicator into untouched
// pages, as the recovery's move meets it (Baseline::cold), and recover / cold.
#include "cases.hpp"

#include <mpi.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
#include "malleable/resize/session.hpp"
#include "bench_timing.hpp"

using resize_bench::timed;

namespace {

double value(std::int64_t i, std::int64_t j) { return static_cast<double>(i % 97) + 0.5 * static_cast<double>(j % 89); }

std::pair<int, int> shape(const std::string& g) {
  const auto x = g.find('x');
  return {std::stoi(g.substr(0, x)), std::stoi(g.substr(x + 1))};
}

// The local array of grid position (pr, pc) of `l`, column-major with lld = min_lld.
void fill(const redist::Layout& l, int pr, int pc, double* a, std::int64_t lld) {
  for (std::int64_t jl = 0; jl < l.local_cols(pc); ++jl)
    for (std::int64_t il = 0; il < l.local_rows(pr); ++il)
      a[il + jl * lld] = value(l.local_to_row(pr, il), l.local_to_col(pc, jl));
}

// Elements of this process's part of `l` that differ from value().
long long wrong(const redist::Layout& l, int pr, int pc, const double* a, std::int64_t lld) {
  long long bad = 0;
  for (std::int64_t jl = 0; jl < l.local_cols(pc); ++jl)
    for (std::int64_t il = 0; il < l.local_rows(pr); ++il)
      bad += a[il + jl * lld] != value(l.local_to_row(pr, il), l.local_to_col(pc, jl));
  return bad;
}

// `redistribute` of the recovery's blocks: old position k's local array on rank holders[k].
struct Baseline {
  redist::Layout from, to;
  redist::RedistPlan plan;
  std::vector<std::vector<double>> held_arrays;
  std::vector<redist::HeldArray> held;
  std::vector<double> b;
  std::int64_t ldb = 1;
  bool plain = false;

  Baseline(int n, int nb, std::pair<int, int> old, std::pair<int, int> nw, const std::vector<int>& holders, int rank,
           int size) {
    std::vector<int> identity(holders.size());
    for (std::size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<int>(k);
    plain = holders == identity && static_cast<int>(holders.size()) <= size;
    from = redist::Layout::block_cyclic(n, n, nb, nb, old.first, old.second, 0, 0,
                                        plain ? redist::RankMap{} : redist::RankMap::holding_several(holders));
    to = redist::Layout::block_cyclic(n, n, nb, nb, nw.first, nw.second);
    plan = redist::make_plan(from, to, redist::Region::whole(from), size, redist::ScheduleKind::Default, rank);
    for (std::size_t k = 0; k < holders.size(); ++k) {
      if (holders[k] != rank) continue;
      const int pr = static_cast<int>(k) / old.second, pc = static_cast<int>(k) % old.second;
      const std::int64_t lda = from.min_lld(pr);
      held_arrays.emplace_back(static_cast<std::size_t>(lda * std::max<std::int64_t>(1, from.local_cols(pc))));
      fill(from, pr, pc, held_arrays.back().data(), lda);
      held.push_back({pr, pc, held_arrays.back().data(), lda});
    }
    int pr = 0, pc = 0;
    if (to.coords_of(rank, pr, pc)) {
      ldb = to.min_lld(pr);
      b.assign(static_cast<std::size_t>(ldb * std::max<std::int64_t>(1, to.local_cols(pc))), 0.0);
    }
  }
  void run(MPI_Comm comm) { run_into(comm, b.data()); }
  // Into `dest` (b's size) instead of b.
  void run_into(MPI_Comm comm, double* dest) {
    if (plain) {
      const double* a = held.empty() ? nullptr : static_cast<const double*>(held[0].a);
      std::vector<redist::ExchangeItem> items{
          redist::ExchangeItem::of(plan, a, held.empty() ? 1 : held[0].lda, dest, ldb)};
      redist::redistribute(comm, items);
      return;
    }
    redist::ExchangeItem it{&plan, nullptr, 1, dest, ldb, sizeof(double), held};
    redist::redistribute(comm, std::vector<redist::ExchangeItem>{it});
  }
  // One `redistribute` as the recovery's move meets it: on a communicator not used before
  // and into a destination nobody has touched (fresh pages, each faulted in by the move's
  // writes, as the new grid's arrays are). The seconds, slowest process.
  double cold(MPI_Comm world) {
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Comm_dup(world, &d);
    const std::size_t bytes = std::max<std::size_t>(b.size(), 1) * sizeof(double);
    void* fresh = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh == MAP_FAILED) MPI_Abort(world, 3);
    const double t = timed(d, [&] { run_into(d, static_cast<double*>(fresh)); });
    munmap(fresh, bytes);
    MPI_Comm_free(&d);
    return t;
  }
};

// The bench's sessions: quiet, and no resize history kept between runs.
resize::SessionOptions quiet_options() { return resize_bench::quiet_options("levels_recover_bench"); }

int write_levels(int argc, char** argv, int n, int nb, std::pair<int, int> g, const std::string& dir) {
  resize::Session S(argc, argv, quiet_options());
  auto a = S.register_matrix<double>("A", n, n, nb, nb, resize::Distribution::BlockCyclic);
  S.start(resize::Grid{g.first, g.second, {}});
  fill(redist::Layout::block_cyclic(n, n, nb, nb, g.first, g.second), S.myrow(), S.mycol(), a.data(), a.lld());
  resize::LevelCadence c;
  c.dir = dir;
  S.set_level_checkpointing(c);
  S.begin_iteration();
  S.end_iteration();
  const double tl = timed(S.world(), [&] { S.checkpoint_levels(false); });
  S.begin_iteration();
  S.end_iteration();
  const double tp = timed(S.world(), [&] { S.checkpoint_levels(true); });
  if (S.world_rank() == 0) std::printf("write_local_s %.4f\nwrite_local_partner_s %.4f\n", tl, tp);
  return 0;
}

int read_levels(int argc, char** argv, int n, int nb, std::pair<int, int> g, const std::string& dir,
                std::pair<int, int> old, const std::vector<int>& holders, int reps) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> t_redist;
  Baseline base(n, nb, old, g, holders, rank, size);
  for (int r = 0; r < reps; ++r) t_redist.push_back(timed(MPI_COMM_WORLD, [&] { base.run(MPI_COMM_WORLD); }));
  long long bad = 0;
  int pr = 0, pc = 0;
  if (base.to.coords_of(rank, pr, pc)) bad += wrong(base.to, pr, pc, base.b.data(), base.ldb);
  resize::SessionOptions o = quiet_options();
  o.progress = true;  // the recovery's line: its time by part (files, choose and read, grid, move)
  resize::Session S(argc, argv, std::move(o));
  auto a = S.register_matrix<double>("A", n, n, nb, nb, resize::Distribution::BlockCyclic);
  const double t_recover = timed(S.world(), [&] { S.restart_from_levels(dir, resize::Grid{g.first, g.second, {}}); });
  for (int r = 0; r < reps; ++r) t_redist.push_back(timed(MPI_COMM_WORLD, [&] { base.run(MPI_COMM_WORLD); }));
  const double t_cold = base.cold(MPI_COMM_WORLD);
  if (S.in_grid()) bad += wrong(redist::Layout::block_cyclic(n, n, nb, nb, g.first, g.second), S.myrow(), S.mycol(),
                                a.data(), a.lld());
  long long bad_all = 0;
  MPI_Allreduce(&bad, &bad_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  std::sort(t_redist.begin(), t_redist.end());
  const double med = t_redist[t_redist.size() / 2];
  if (rank == 0) {
    std::printf("levels recovery N=%d NB=%d, %d processes, old grid %dx%d onto %dx%d, baseline %s\n", n, nb, size,
                old.first, old.second, g.first, g.second, base.plain ? "plain layout" : "old positions held by several");
    std::printf("recover_s %.4f\nredistribute_s %.4f (median of %zu, min %.4f max %.4f)\nratio recover/redistribute "
                "%.2f\nwrong_elements %lld\n",
                t_recover, med, t_redist.size(), t_redist.front(), t_redist.back(), t_recover / med, bad_all);
    std::printf("redistribute_cold_s %.4f\nratio recover/cold %.2f\n", t_cold, t_recover / t_cold);
  }
  return bad_all == 0 ? 0 : 1;
}

}  // namespace

// The case `levels-recover` of malleable-resize-bench (main.cpp): argv[0] is the case's name.
int resize::bench::case_levels_recover(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 6) {
    rc = write_levels(argc, argv, std::stoi(argv[2]), std::stoi(argv[3]), shape(argv[4]), argv[5]);
  } else if (mode == "read" && argc == 9) {
    std::vector<int> holders;
    std::stringstream ss(argv[7]);
    for (std::string x; std::getline(ss, x, ',');) holders.push_back(std::stoi(x));
    rc = read_levels(argc, argv, std::stoi(argv[2]), std::stoi(argv[3]), shape(argv[4]), argv[5], shape(argv[6]),
                     holders, std::stoi(argv[8]));
  } else {
    std::fprintf(stderr, "usage: malleable-resize-bench levels-recover write N NB PxQ DIR\n"
                         "       malleable-resize-bench levels-recover read N NB PxQ DIR OLD_PxQ HOLDERS REPS\n");
  }
  MPI_Finalize();
  return rc;
}
