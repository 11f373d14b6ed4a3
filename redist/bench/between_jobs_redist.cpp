// SPDX-License-Identifier: BSD-3-Clause
// `redistribute` between jobs on one node (docs/measurements/results.md, "Between jobs on one node"):
// an N x N matrix (blocks of nb) goes from a 1x2 grid (ranks 0, 1) to a 2x2 grid (ranks
// 0..3), where ranks 2 and 3 are either processes MPI_Comm_spawn'ed by the first two and
// merged with them (--spawn, as after a resize's spawn) or processes of the same job. Each
// transport of redist is timed: message (MPI point to point: the node window and single
// copy off, i.e. what MPI's own transport gives between jobs), window (the node-shared
// staging window), single-copy (process_vm_readv for every transfer in the node) and auto
// (redist's default choice), and other-jobs (the window only between ranks of different
// jobs, WindowPairs::OtherJobs: what a resize's moves use). Best of `reps` per transport,
// round robin; time = slowest rank; every result checked element for element.
//   mpiexec -n 2 malleable-redist-bench between-jobs --spawn N NB REPS [--expect-window]
//   mpiexec -n 4 malleable-redist-bench between-jobs --same-job N NB REPS [--expect-window]
// Prints: "setting transport seconds GBps window_MB single_copy_MB" per transport (GB/s:
// bytes moved between ranks / time; the MB that went through the node window or were read in
// one copy, over all ranks, last repetition), preceded by a comment line. Exit 1 when a
// result differs; with --expect-window also when the window transport moved nothing
// through the node window (it could not reach the other processes), when other-jobs moved
// bytes through it within one job or none between jobs, or when redist::job_ranks does
// not name this process's job (ranks 0-1 and 2-3 after a spawn, all four in one job).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "malleable/redist/node_map.hpp"
#include "malleable/redist/redistribute.hpp"

namespace {

struct Variant {
  const char* name;
  redist::ExecOptions opt;
};

std::vector<Variant> variants() {
  redist::ExecOptions message, window, single, autov, other;
  message.node_window = false;
  message.single_copy = redist::SingleCopy::Off;
  window.single_copy = redist::SingleCopy::Off;
  single.single_copy = redist::SingleCopy::On;
  other.single_copy = redist::SingleCopy::Off;
  other.window_pairs = redist::WindowPairs::OtherJobs;
  return {{"message", message}, {"window", window}, {"single-copy", single}, {"auto", autov}, {"other-jobs", other}};
}

double value(std::int64_t i, std::int64_t j) { return 1.0 + static_cast<double>(i) + 1e-6 * static_cast<double>(j); }

int run(MPI_Comm comm, bool spawned, std::int64_t n, std::int64_t nb, int reps, bool expect_window) {
  const char* setting = spawned ? "between-jobs" : "same-job";
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const std::vector<int> job = redist::job_ranks(comm);
  const std::vector<int> want = !spawned ? std::vector<int>{0, 1, 2, 3} : me < 2 ? std::vector<int>{0, 1} : std::vector<int>{2, 3};
  const auto la = redist::Layout::block_cyclic(n, n, nb, nb, 1, 2);
  const auto lb = redist::Layout::block_cyclic(n, n, nb, nb, 2, 2);
  int pr = 0, pc = 0;
  const bool in_a = la.coords_of(me, pr, pc);
  const std::int64_t arows = in_a ? la.local_rows(pr) : 0, acols = in_a ? la.local_cols(pc) : 0;
  std::vector<double> a(static_cast<std::size_t>(std::max<std::int64_t>(1, arows * acols)));
  if (in_a)
    for (std::int64_t jl = 0; jl < acols; ++jl)
      for (std::int64_t il = 0; il < arows; ++il)
        a[static_cast<std::size_t>(jl * arows + il)] = value(la.local_to_row(pr, il), la.local_to_col(pc, jl));
  int qr = 0, qc = 0;
  lb.coords_of(me, qr, qc);
  const std::int64_t brows = lb.local_rows(qr), bcols = lb.local_cols(qc);
  std::vector<double> b(static_cast<std::size_t>(std::max<std::int64_t>(1, brows * bcols)));
  // Bytes that change rank: every element whose owner in B is not its owner in A.
  std::int64_t moved = 0;
  for (std::int64_t jl = 0; jl < bcols; ++jl)
    for (std::int64_t il = 0; il < brows; ++il) {
      const std::int64_t i = lb.local_to_row(qr, il), j = lb.local_to_col(qc, jl);
      if (la.rank_at(la.row_owner(i), la.col_owner(j)) != me) moved += 8;
    }
  std::int64_t moved_all = 0;
  MPI_Allreduce(&moved, &moved_all, 1, MPI_INT64_T, MPI_SUM, comm);
  auto vs = variants();
  std::vector<double> best(vs.size(), 1e30);
  std::vector<std::int64_t> shared(2 * vs.size(), 0);  // window, single-copy bytes per variant
  int bad = 0;
  for (int r = 0; r < reps; ++r)
    for (std::size_t v = 0; v < vs.size(); ++v) {
      std::fill(b.begin(), b.end(), 0.0);
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      redist::ExecStats st;
      redist::redistribute(comm, la, a.data(), std::max<std::int64_t>(1, arows), lb, b.data(),
                           std::max<std::int64_t>(1, brows), redist::ScheduleKind::Default, vs[v].opt, &st);
      double t = MPI_Wtime() - t0, tmax = 0;
      shared[2 * v] = st.bytes_window;
      shared[2 * v + 1] = st.bytes_single_copy;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
      best[v] = std::min(best[v], tmax);
      for (std::int64_t jl = 0; jl < bcols; ++jl)
        for (std::int64_t il = 0; il < brows; ++il)
          if (b[static_cast<std::size_t>(jl * brows + il)] != value(lb.local_to_row(qr, il), lb.local_to_col(qc, jl))) bad = 1;
    }
  std::vector<std::int64_t> shared_all(shared.size(), 0);
  MPI_Allreduce(shared.data(), shared_all.data(), static_cast<int>(shared.size()), MPI_INT64_T, MPI_SUM, comm);
  if (expect_window && shared_all[2] == 0) bad = 2;  // variant 1: the node window
  if (expect_window && (spawned ? shared_all[8] == 0 : shared_all[8] != 0)) bad = 3;  // variant 4: other jobs only
  if (expect_window && job != want) bad = 4;
  int bad_all = 0;
  MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_MAX, comm);
  if (me == 0) {
    std::printf("# %s: N=%lld nb=%lld 1x2 -> 2x2, %.1f MB between ranks, best of %d; check %s\n", setting,
                static_cast<long long>(n), static_cast<long long>(nb), static_cast<double>(moved_all) / 1e6, reps,
                bad_all == 1   ? "FAILED"
                : bad_all == 2 ? "FAILED (nothing went through the node window)"
                : bad_all == 3 ? "FAILED (other-jobs: the window joined one job's ranks, or no other job's)"
                : bad_all == 4 ? "FAILED (job_ranks does not name this process's job)"
                               : "ok");
    for (std::size_t v = 0; v < vs.size(); ++v)
      std::printf("%s %s %.5f %.2f %.1f %.1f\n", setting, vs[v].name, best[v], static_cast<double>(moved_all) / best[v] / 1e9,
                  static_cast<double>(shared_all[2 * v]) / 1e6, static_cast<double>(shared_all[2 * v + 1]) / 1e6);
  }
  return bad_all ? 1 : 0;
}

}  // namespace

namespace redist::bench {
int case_between_jobs(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 5 || argc > 6 || (std::strcmp(argv[1], "--spawn") != 0 && std::strcmp(argv[1], "--same-job") != 0)) {
    std::fprintf(stderr, "usage: malleable-redist-bench between-jobs --spawn|--same-job N NB REPS [--expect-window]\n");
    MPI_Finalize();
    return 2;
  }
  const bool spawn = std::strcmp(argv[1], "--spawn") == 0;
  const std::int64_t n = std::atoll(argv[2]), nb = std::atoll(argv[3]);
  const int reps = std::atoi(argv[4]);
  const bool expect_window = argc > 5 && std::strcmp(argv[5], "--expect-window") == 0;
  MPI_Comm parent = MPI_COMM_NULL, inter = MPI_COMM_NULL, all = MPI_COMM_WORLD;
  MPI_Comm_get_parent(&parent);
  if (spawn) {
    if (parent == MPI_COMM_NULL) {
      std::vector<char*> child_args{argv[0]};  // this case's name first, then its options
      child_args.insert(child_args.end(), argv + 1, argv + argc);
      child_args.push_back(nullptr);
      MPI_Comm_spawn(program_path(), child_args.data(), 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                     MPI_ERRCODES_IGNORE);
      MPI_Intercomm_merge(inter, 0, &all);
    } else {
      inter = parent;
      MPI_Intercomm_merge(inter, 1, &all);
    }
  }
  int np = 0;
  MPI_Comm_size(all, &np);
  int rc = 2;
  if (np == 4)
    rc = run(all, spawn, n, nb, reps, expect_window);
  else
    std::fprintf(stderr, "between-jobs: needs 4 processes in all (2 with --spawn), got %d\n", np);
  if (spawn) {
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
  }
  MPI_Finalize();
  return rc;
}
}  // namespace redist::bench
