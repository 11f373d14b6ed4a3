// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint write and restart read bandwidth against raw MPI-IO of the same bytes from
// the same processes to the same directory, in one run (issue 20, "Measure"): a session
// writes an N x N double matrix from grid W (Session::checkpoint), the same local
// buffers are written with MPI_File_write_at_all; a second session restarts onto grid R
// (Session::restart, hyperslab reads) and the same bytes are read back with
// MPI_File_read_at_all by the processes of R. Prints seconds, MB/s and the ratios.
// Usage: checkpoint_bench N NB WxW RxR DIR [repeats]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "malleable/resize/session.hpp"

namespace {

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
  MPI_Barrier(comm);
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

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 6) {
    std::fprintf(stderr, "usage: checkpoint_bench N NB WxW RxR DIR [repeats]\n");
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
  std::vector<double> tw, trw, tr, trr;
  for (int rep = 0; rep < reps; ++rep) {
    {
      resize::SessionOptions o;
      o.app = "bench";
      o.progress = false;
      o.persist_history = false;
      resize::Session s(argc, argv, std::move(o));
      int desc[9];
      std::vector<double> a;
      s.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, desc, a);
      s.start(wg);
      for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k % 1000) + rank;
      tw.push_back(s.checkpoint(ck));
      std::vector<char> bytes(a.size() * sizeof(double));
      trw.push_back(raw(MPI_COMM_WORLD, rawf, bytes, true));
    }
    {
      resize::SessionOptions o;
      o.app = "bench";
      o.progress = false;
      o.persist_history = false;
      resize::Session s(argc, argv, std::move(o));
      int desc[9];
      std::vector<double> a;
      s.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, desc, a);
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      s.restart(ck, rg);
      double dt = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      tr.push_back(slowest);
      std::vector<char> bytes(a.size() * sizeof(double));
      trr.push_back(raw(MPI_COMM_WORLD, rawf, bytes, false));
    }
  }
  if (rank == 0) {
    const auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double w = med(tw), rw = med(trw), r = med(tr), rr = med(trr);
    std::printf("checkpoint bandwidth: N=%d NB=%d (%.1f MB), write on %s, read on %s, median of %d\n", n, nb, mb,
                wg.shape().c_str(), rg.shape().c_str(), reps);
    std::printf("  write  checkpoint %8.3f s %8.1f MB/s | raw MPI-IO %8.3f s %8.1f MB/s | ratio %.2fx\n", w, mb / w, rw,
                mb / rw, rw / w);
    std::printf("  read   restart    %8.3f s %8.1f MB/s | raw MPI-IO %8.3f s %8.1f MB/s | ratio %.2fx\n", r, mb / r, rr,
                mb / rr, rr / r);
  }
  MPI_Finalize();
  return 0;
}
