// SPDX-License-Identifier: BSD-3-Clause
// What a single-copy read costs on this machine (docs/reference/redist.md, "Single copy on a node"):
// a child process holds a source array; the parent reads it with process_vm_readv in
// contiguous pieces of 512 B to 1 MiB (scatter-gather lists of up to IOV_MAX pieces, as
// redist's single copy does), copies the same pieces with memcpy inside its own memory, and
// moves them as the node window does (docs/reference/redist.md, "A node-shared staging window"):
// packed one after the other into a staging area as large as the data (the window's
// segment holds a rank's whole sends), then unpacked from it, two copies of each byte.
// Prints GB/s for each, the time per piece, and the smallest piece size from which the
// single read is cheaper than pack + unpack (the threshold of Transport::Auto's choice,
// segments.hpp's kSingleCopyMinPieceBytes). No MPI.
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_cli.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

namespace redist::bench {
int case_cma(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: malleable-redist-bench cma [MiB (64)] [reps (3)]\n");
    return 0;
  }
  const std::size_t total = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 64) << 20;  // MiB
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<char> src(total, 1), dst(total, 0), staging(total, 0);
  const pid_t child = fork();
  if (child < 0) return std::perror("fork"), 1;
  if (child == 0) {  // holds its copy of src (written after the fork: its own pages) until killed
    std::memset(src.data(), 2, total);
    for (;;) pause();
  }
  usleep(200000);  // the child's pages written
  std::memset(src.data(), 2, total);
  long max_iov = sysconf(_SC_IOV_MAX);
  if (max_iov <= 0) max_iov = 1024;
  std::printf("# cma_probe: %zu MiB, best of %d, IOV_MAX %ld\n", total >> 20, reps, max_iov);
  std::printf("%10s %12s %12s %12s %14s %8s %11s\n", "piece_B", "cma_GB/s", "memcpy_GB/s", "window_GB/s", "cma_us/piece",
              "cma/cpy", "cma/window");
  std::vector<iovec> l(static_cast<std::size_t>(max_iov)), r(static_cast<std::size_t>(max_iov));
  int status = 0;
  std::size_t threshold = 0;  // the smallest piece from which every larger one reads cheaper than pack + unpack
  for (std::size_t piece : {512ul, 1024ul, 2048ul, 4096ul, 8192ul, 16384ul, 32768ul, 65536ul, 262144ul, 1ul << 20}) {
    const std::size_t n = total / piece;
    double cma = 1e30, cpy = 1e30, win = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      for (std::size_t k = 0; k < n;) {
        std::size_t m = 0;
        for (; m < l.size() && k < n; ++m, ++k) {
          l[m] = {dst.data() + k * piece, piece};
          r[m] = {src.data() + k * piece, piece};
        }
        if (process_vm_readv(child, l.data(), m, r.data(), m, 0) != static_cast<ssize_t>(m * piece)) {
          std::perror("process_vm_readv");
          status = 1;
          break;
        }
      }
      cma = std::min(cma, seconds_since(t0));
      t0 = std::chrono::steady_clock::now();
      for (std::size_t k = 0; k < n; ++k) std::memcpy(dst.data() + k * piece, src.data() + k * piece, piece);
      cpy = std::min(cpy, seconds_since(t0));
      // The window: the same pieces packed back to back into staging, then unpacked.
      t0 = std::chrono::steady_clock::now();
      for (std::size_t k = 0; k < n; ++k) std::memcpy(staging.data() + k * piece, src.data() + k * piece, piece);
      for (std::size_t k = 0; k < n; ++k) std::memcpy(dst.data() + k * piece, staging.data() + k * piece, piece);
      win = std::min(win, seconds_since(t0));
      if (dst[total - 1] != 2) status = 1;
    }
    std::printf("%10zu %12.2f %12.2f %12.2f %14.3f %8.1f %11.2f\n", piece, total / cma / 1e9, total / cpy / 1e9,
                total / win / 1e9, cma / n * 1e6, cma / cpy, cma / win);
    if (cma >= win)
      threshold = 0;
    else if (threshold == 0)
      threshold = piece;
  }
  if (threshold)
    std::printf("# single read cheaper than pack + unpack from %zu-byte pieces on\n", threshold);
  else
    std::printf("# single read never cheaper than pack + unpack up to 1 MiB pieces\n");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return status;
}
}  // namespace redist::bench
