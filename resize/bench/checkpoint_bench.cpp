// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint write and restart read bandwidth against raw MPI-IO of the same bytes from
// the same processes to the same directory, in one run ("Measure"): a session
// writes an N x N double matrix from grid W (Session::checkpoint), the same local
// buffers are written with MPI_File_write_at_all; a second session restarts onto grid R
// (Session::restart, hyperslab reads) and the same bytes are read back with
// MPI_File_read_at_all by the processes of R. Prints seconds, MB/s and the ratios. Both
// writes go to a new file; a second checkpoint over the first under the same name is
// timed on its own line.
// Usage: malleable-resize-bench checkpoint N NB WxW RxR DIR [repeats]
#include "cases.hpp"

#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "malleable/resize/session.hpp"

namespace {

// Before every timed write or read: rank 0 removes what the step replaces and flushes
// the page cache's dirty pages (sync), so that no step pays for the previous one's
// writeback (the kernel's flush of 128 MB written a moment before made single raw writes
// 3-4x slower here). Outside the timings.
void settle(MPI_Comm comm, const std::string& remove = "") {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    if (!remove.empty()) std::remove(remove.c_str());
    sync();
  }
  MPI_Barrier(comm);
}

resize::Grid parse(const std::string& t) {
  const auto x = t.find('x');
  return resize::Grid{std::stoi(t.substr(0, x)), std::stoi(t.substr(x + 1)), {}};
}

// Raw MPI-IO: every process's `bytes` at its prefix-sum offset, collective.
double raw(MPI_Comm comm, const std::string& path, std::vector<char>& buf, bool write) {
  long long mine = static_cast<long long>(buf.size()), off = 0;
  MPI_Exscan(&mine, &off, 1, MPI_LONG_LONG, MPI_SUM, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) off = 0;
  settle(comm, write ? path : "");  // a new file, as every checkpoint is
  const double t0 = MPI_Wtime();
  MPI_File f;
  MPI_File_open(comm, path.c_str(), write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
  if (write)
    MPI_File_write_at_all(f, off, buf.data(), static_cast<int>(buf.size()), MPI_CHAR, MPI_STATUS_IGNORE);
  else
    MPI_File_read_at_all(f, off, buf.data(), static_cast<int>(buf.size()), MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&f);
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest;
}

// Raw MPI-IO in the checkpoint's own file pattern: the N x N matrix row-major in the
// file, each process's block-cyclic blocks (grid g, blocks nb x nb) through an
// MPI_Type_create_darray file view, collective; `buf` holds the process's elements packed
// row-major (what the checkpoint hands HDF5). Processes off the grid take part with
// nothing. Measures what the access pattern itself costs MPI-IO, without HDF5.
double raw_pattern(MPI_Comm comm, const std::string& path, int n, int nb, const resize::Grid& g, bool write) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int p = g.nprow * g.npcol;
  MPI_Datatype view = MPI_CHAR;
  std::vector<double> buf;
  if (rank < p) {
    const int gs[2] = {n, n}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, da[2] = {nb, nb},
              ps[2] = {g.nprow, g.npcol};
    MPI_Type_create_darray(p, rank, 2, gs, dist, da, ps, MPI_ORDER_C, MPI_DOUBLE, &view);
    MPI_Type_commit(&view);
    int bytes = 0;
    MPI_Type_size(view, &bytes);
    buf.assign(static_cast<std::size_t>(bytes) / sizeof(double), 1.0 + rank);
  }
  settle(comm, write ? path : "");
  const double t0 = MPI_Wtime();
  MPI_File f;
  MPI_File_open(comm, path.c_str(), write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
  if (rank < p) MPI_File_set_view(f, 0, MPI_DOUBLE, view, "native", MPI_INFO_NULL);
  else MPI_File_set_view(f, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL);
  if (write)
    MPI_File_write_all(f, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_STATUS_IGNORE);
  else
    MPI_File_read_all(f, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&f);
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (view != MPI_CHAR) MPI_Type_free(&view);
  return slowest;
}

}  // namespace

// The case `checkpoint` of malleable-resize-bench (main.cpp): argv[0] is the case's name.
int resize::bench::case_checkpoint(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 6) {
    std::fprintf(stderr, "usage: malleable-resize-bench checkpoint N NB WxW RxR DIR [repeats]\n");
    MPI_Finalize();
    return 2;
  }
  const int n = std::stoi(argv[1]), nb = std::stoi(argv[2]);
  const resize::Grid wg = parse(argv[3]), rg = parse(argv[4]);
  const std::string dir = argv[5], ck = dir + "/bench.h5", rawf = dir + "/raw.bin";
  const int reps = argc > 6 ? std::stoi(argv[6]) : 3;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double mb = static_cast<double>(n) * n * sizeof(double) / 1e6;
  std::vector<double> tw, two, trw, tr, trr, tpw, tpr;
  for (int rep = 0; rep < reps; ++rep) {
    {
      resize::Session s(argc, argv, resize_bench::quiet_options("bench"));
      int desc[9];
      std::vector<double> a;
      s.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, desc, a);
      s.start(wg);
      for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k % 1000) + rank;
      // A new file, as the raw write's: the previous repeat's is removed outside the
      // timing (replacing a file under its name costs ext4 a flush of the new one in the
      // rename, auto_da_alloc, ~30 ms for 128 MB here; the session's own checkpoints,
      // checkpoint_in, take a new name each time and never pay it).
      settle(MPI_COMM_WORLD, ck);
      tw.push_back(s.checkpoint(ck));
      // And again under the same name: what a program that reuses one path pays.
      settle(MPI_COMM_WORLD);
      two.push_back(s.checkpoint(ck));
      std::vector<char> bytes(a.size() * sizeof(double));
      trw.push_back(raw(MPI_COMM_WORLD, rawf, bytes, true));
      tpw.push_back(raw_pattern(MPI_COMM_WORLD, dir + "/pattern.bin", n, nb, wg, true));
    }
    {
      resize::Session s(argc, argv, resize_bench::quiet_options("bench"));
      int desc[9];
      std::vector<double> a;
      s.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, desc, a);
      settle(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      s.restart(ck, rg);
      double dt = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      tr.push_back(slowest);
      std::vector<char> bytes(a.size() * sizeof(double));
      trr.push_back(raw(MPI_COMM_WORLD, rawf, bytes, false));
      tpr.push_back(raw_pattern(MPI_COMM_WORLD, dir + "/pattern.bin", n, nb, rg, false));
    }
  }
  if (rank == 0) {
    for (int rep = 0; rep < reps; ++rep)
      std::printf("  repeat %d: write %.3f s (over same name %.3f s), raw %.3f s; restart %.3f s, raw %.3f s\n", rep + 1,
                  tw[rep], two[rep], trw[rep], tr[rep], trr[rep]);
    const auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double w = med(tw), wo = med(two), rw = med(trw), r = med(tr), rr = med(trr), pw = med(tpw), pr = med(tpr);
    std::printf("checkpoint bandwidth: N=%d NB=%d (%.1f MB), write on %s, read on %s, median of %d\n", n, nb, mb,
                wg.shape().c_str(), rg.shape().c_str(), reps);
    std::printf("  write  checkpoint %8.3f s %8.1f MB/s | raw MPI-IO %8.3f s %8.1f MB/s | ratio %.2fx\n", w, mb / w, rw,
                mb / rw, rw / w);
    std::printf("  read   restart    %8.3f s %8.1f MB/s | raw MPI-IO %8.3f s %8.1f MB/s | ratio %.2fx\n", r, mb / r, rr,
                mb / rr, rr / r);
    // Each repeat's checkpoint and raw step ran back to back: the ratio of each pair,
    // less sensitive than the ratio of medians to the raw write's swings on a busy node.
    const auto paired = [&](const std::vector<double>& rawt, const std::vector<double>& ckt) {
      std::vector<double> q;
      for (std::size_t k = 0; k < ckt.size(); ++k) q.push_back(rawt[k] / ckt[k]);
      std::sort(q.begin(), q.end());
      std::printf("%.2fx / %.2fx / %.2fx", q.front(), q[q.size() / 2], q.back());
    };
    std::printf("  paired ratios (min / median / max of the repeats): write ");
    paired(trw, tw);
    std::printf(", read ");
    paired(trr, tr);
    std::printf("\n");
    std::printf("  write over the previous checkpoint under the same name %8.3f s %8.1f MB/s | ratio %.2fx\n", wo, mb / wo,
                rw / wo);
    std::printf("  raw MPI-IO in the checkpoint's pattern (darray view): write %8.3f s (%.2fx of contiguous), read %8.3f s (%.2fx)\n",
                pw, rw / pw, pr, rr / pr);
  }
  MPI_Finalize();
  return 0;
}
