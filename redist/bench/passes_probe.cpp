// SPDX-License-Identifier: BSD-3-Clause
// What the memory passes of an element-block redistribution cost, written by hand, beside
// the memcpy floor and redist itself, in one run (docs/reference/redist.md, "Execution").
//
// The case is the redist case's "thin, blocks 1 -> 2" on 2 ranks: a column of 2n elements,
// cyclic (blocks of 1) -> blocks of 2. On rank r, B[2m+r] = A[2m+r] stays (the local
// copy) and B[2m+1-r] comes from the other rank's A[2m+r'] (r' = 1-r), which it packs. Sequences, each the fastest of --reps
// (every rank's time, the slowest rank counted):
//   floor         memcpy of the whole local B (the floor with local copies)
//   separate      pack, Isend/Irecv, local copy, wait, unpack (redist with fuse_local off)
//   fused target  pack, Sendrecv, one pass writing B from A and the received buffer
//                 (redist's default here)
//   shm fused     pack into a shared-memory window, barrier, one pass writing B from A and
//                 the other rank's window (no MPI copy at all: a transport redist does not
//                 have; this bounds what one would gain)
//   redist        redist::redistribute with and without fuse_local
// Ratios to the floor are printed; nothing here is a pass/fail target.
//   mpiexec -n 2 malleable-redist-bench passes [--n 2097152] [--reps 9]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_cli.hpp"
#include "malleable/redist/redistribute.hpp"

namespace {

double slowest_fastest(int reps, const std::function<void()>& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, MPI_Wtime() - t0);
  }
  double worst = 0;
  MPI_Allreduce(&best, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

}  // namespace

namespace redist::bench {
int case_passes(int me, int size, int argc, char** argv) {
  CLI::App app{"hand-written pass sequences of a blocks 1 -> 2 column redistribution vs the memcpy floor"};
  long n = 2097152;
  int reps = 9;
  app.add_option("--n", n, "elements per rank (the column has 2n)")->check(CLI::Range(1024L, 1L << 28));
  app.add_option("--reps", reps, "repetitions, fastest kept")->check(CLI::Range(1, 1000));
  if (const auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  if (size != 2) {
    if (me == 0) std::fprintf(stderr, "passes: run on exactly 2 ranks (got %d)\n", size);
    MPI_Finalize();
    return 2;
  }
  n -= n % 2;
  const long h = n / 2;
  const int peer = 1 - me;
  std::vector<double> A(static_cast<std::size_t>(n)), B(A.size()), buf(static_cast<std::size_t>(h)), rbuf(buf.size());
  for (long i = 0; i < n; ++i) A[static_cast<std::size_t>(i)] = static_cast<double>(me + 2 * i);  // global index 2i+me
  double* seg = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate_shared(static_cast<MPI_Aint>(h) * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &seg, &win);
  MPI_Aint seg_size = 0;
  int disp = 0;
  double* peer_seg = nullptr;
  MPI_Win_shared_query(win, peer, &seg_size, &disp, &peer_seg);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);

  double* a = A.data();
  double* b = B.data();
  const long keep = me, away = 1 - me;  // this rank keeps A[2m+keep], sends A[2m+away]
  auto pack = [&](double* to) {
    for (long m = 0; m < h; ++m) to[m] = a[2 * m + away];
  };
  auto fused = [&](const double* from) {
    for (long m = 0; m < h; ++m) {
      b[2 * m + keep] = a[2 * m + keep];
      b[2 * m + away] = from[m];
    }
  };
  // Every sequence must leave B right: B holds global elements 4k + 2*me + {0, 1}.
  auto check = [&](const char* what) {
    long bad = 0;
    for (long m = 0; m < h; ++m) {
      const double g0 = static_cast<double>(4 * m + 2 * me);
      bad += b[2 * m] != g0 || b[2 * m + 1] != g0 + 1;
    }
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    std::fill(B.begin(), B.end(), -1.0);
    return all == 0 ? std::string("ok") : std::string(what) + ": WRONG";
  };

  struct Row {
    const char* name;
    double s;
    std::string ok;
  };
  std::vector<Row> rows;
  rows.push_back({"floor (memcpy of the local B)", slowest_fastest(reps, [&] { std::memcpy(b, a, sizeof(double) * n); }), "-"});
  std::fill(B.begin(), B.end(), -1.0);
  rows.push_back({"separate passes", slowest_fastest(reps, [&] {
                    pack(buf.data());
                    MPI_Request r[2];
                    MPI_Irecv(rbuf.data(), static_cast<int>(h), MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
                    MPI_Isend(buf.data(), static_cast<int>(h), MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]);
                    for (long m = 0; m < h; ++m) b[2 * m + keep] = a[2 * m + keep];
                    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
                    for (long m = 0; m < h; ++m) b[2 * m + away] = rbuf[static_cast<std::size_t>(m)];
                  }),
                  ""});
  rows.back().ok = check(rows.back().name);
  rows.push_back({"fused target", slowest_fastest(reps, [&] {
                    pack(buf.data());
                    MPI_Sendrecv(buf.data(), static_cast<int>(h), MPI_DOUBLE, peer, 0, rbuf.data(), static_cast<int>(h),
                                 MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    fused(rbuf.data());
                  }),
                  ""});
  rows.back().ok = check(rows.back().name);
  rows.push_back({"shm fused (no MPI copy)", slowest_fastest(reps, [&] {
                    pack(seg);
                    MPI_Win_sync(win);
                    MPI_Barrier(MPI_COMM_WORLD);
                    MPI_Win_sync(win);
                    fused(peer_seg);
                    MPI_Barrier(MPI_COMM_WORLD);  // the peer has read seg before it is packed again
                  }),
                  ""});
  rows.back().ok = check(rows.back().name);
  const redist::Layout la = redist::Layout::block_cyclic(2 * n, 1, 1, 1, 2, 1);
  const redist::Layout lb = redist::Layout::block_cyclic(2 * n, 1, 2, 1, 2, 1);
  for (bool fuse : {false, true}) {
    redist::ExecOptions opt;
    opt.fuse_local = fuse;
    rows.push_back({fuse ? "redist (fuse_local on)" : "redist (fuse_local off)", slowest_fastest(reps, [&] {
                      redist::redistribute<double>(MPI_COMM_WORLD, la, a, n, lb, b, n, redist::ScheduleKind::Default, opt);
                    }),
                    ""});
    rows.back().ok = check(rows.back().name);
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  if (me == 0) {
    char load[64] = "?";
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (!std::fgets(load, sizeof load, f)) load[0] = 0;
      std::fclose(f);
    }
    std::printf("# column of %ld doubles, blocks 1 -> 2, 2 ranks; fastest of %d, slowest rank; load %s", 2 * n, reps, load);
    std::printf("%-32s %9s %9s %s\n", "sequence", "ms", "x floor", "check");
    for (const auto& r : rows)
      std::printf("%-32s %9.3f %8.2fx %s\n", r.name, r.s * 1e3, r.s / rows[0].s, r.ok.c_str());
  }
  MPI_Finalize();
  return 0;
}
}  // namespace redist::bench
