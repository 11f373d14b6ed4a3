// SPDX-License-Identifier: BSD-3-Clause
// What a single-copy read costs on this machine (docs/reference/redist.md, "Single copy on a node"):
// a child process holds a source array; the parent reads it with process_vm_readv in
// contiguous pieces of 512 B to 1 MiB (scatter-gather lists of up to IOV_MAX pieces, as
// redist's single copy does), copies the same pieces with memcpy inside its own memory, and
// moves them as the node window does (docs/reference/redist.md, "A node-shared staging window"):
// packed one after the other into a staging area as large as the data (the window's
// segment holds a rank's whole sends), then unpacked from it, two copies of each byte.
// The child holds a second source in transparent huge pages (its own mapping, 2 MiB
// aligned, madvise(MADV_HUGEPAGE) before its first write), read the same way (cma_huge):
// the kernel pins the other process's pages of each read, per 4 KiB page in the first
// source and per 2 MiB in this one, so the two columns apart are what the pins cost.
// Prints GB/s for each, the time per piece, the child's memory in huge pages, and the
// smallest piece size from which the single read is cheaper than pack + unpack (the
// threshold of Transport::Auto's choice, segments.hpp's kSingleCopyMinPieceBytes). No MPI.
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench_cli.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What the child tells the parent once its sources are written: the huge-page source's
// address (0: no mapping) and the child's anonymous memory in huge pages, KiB (-1: not known).
struct ChildWord {
  std::uint64_t huge_src = 0;
  std::int64_t huge_kib = -1;
};

std::int64_t anon_huge_kib() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string key;
  std::int64_t kib = -1;
  while (in >> key)
    if (key == "AnonHugePages:" && in >> kib) return kib;
  return -1;
}

// The child: writes its own copy of src (its own pages) and a huge-page source of `total`
// bytes, tells the parent through `fd`, and holds both until killed.
[[noreturn]] void child_holds(std::vector<char>& src, std::size_t total, int fd) {
  std::memset(src.data(), 2, total);
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  ChildWord w;
  void* m = mmap(nullptr, total + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) {
    auto* p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(m) + kHuge - 1) / kHuge * kHuge);
    (void)madvise(p, total, MADV_HUGEPAGE);
    std::memset(p, 2, total);
    w.huge_src = reinterpret_cast<std::uintptr_t>(p);
  }
  w.huge_kib = anon_huge_kib();
  if (write(fd, &w, sizeof w) != static_cast<ssize_t>(sizeof w)) _exit(1);
  for (;;) pause();
}

// Reads `total` bytes at `src` of process `pid` into dst in pieces of `piece` bytes, up to
// l.size() of them a call; seconds, or -1 when a read failed.
double read_pieces(pid_t pid, char* dst, std::uint64_t src, std::size_t total, std::size_t piece, std::vector<iovec>& l,
                   std::vector<iovec>& r) {
  const std::size_t n = total / piece;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < n;) {
    std::size_t m = 0;
    for (; m < l.size() && k < n; ++m, ++k) {
      l[m] = {dst + k * piece, piece};
      r[m] = {reinterpret_cast<char*>(src + k * piece), piece};
    }
    if (process_vm_readv(pid, l.data(), m, r.data(), m, 0) != static_cast<ssize_t>(m * piece)) {
      std::perror("process_vm_readv");
      return -1;
    }
  }
  return seconds_since(t0);
}

struct Best {
  double cma = 1e30, huge = 1e30, cpy = 1e30, win = 1e30;
};

// One piece size's best of `reps`: the two reads, memcpy, pack + unpack. false: a read failed.
bool measure(pid_t child, const ChildWord& w, std::vector<char>& src, std::vector<char>& dst, std::vector<char>& staging,
             std::size_t piece, int reps, Best& b) {
  const std::size_t total = src.size(), n = total / piece;
  long max_iov = sysconf(_SC_IOV_MAX);
  std::vector<iovec> l(static_cast<std::size_t>(max_iov > 0 ? max_iov : 1024)), r(l.size());
  for (int rep = 0; rep < reps; ++rep) {
    const double c = read_pieces(child, dst.data(), reinterpret_cast<std::uintptr_t>(src.data()), total, piece, l, r);
    if (c < 0 || dst[total - 1] != 2) return false;
    b.cma = std::min(b.cma, c);
    if (w.huge_src) {
      std::memset(dst.data() + total - 1, 0, 1);
      const double h = read_pieces(child, dst.data(), w.huge_src, total, piece, l, r);
      if (h < 0 || dst[total - 1] != 2) return false;
      b.huge = std::min(b.huge, h);
    }
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < n; ++k) std::memcpy(dst.data() + k * piece, src.data() + k * piece, piece);
    b.cpy = std::min(b.cpy, seconds_since(t0));
    // The window: the same pieces packed back to back into staging, then unpacked.
    t0 = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < n; ++k) std::memcpy(staging.data() + k * piece, src.data() + k * piece, piece);
    for (std::size_t k = 0; k < n; ++k) std::memcpy(dst.data() + k * piece, staging.data() + k * piece, piece);
    b.win = std::min(b.win, seconds_since(t0));
  }
  return true;
}

// The smallest piece (of `pieces`, ascending) from which every larger one reads faster
// than pack + unpack by `read` (0: none).
template <class Read>
std::size_t threshold(const std::vector<std::size_t>& pieces, const std::vector<Best>& b, Read read) {
  std::size_t t = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i)
    if (read(b[i]) >= b[i].win)
      t = 0;
    else if (t == 0)
      t = pieces[i];
  return t;
}

void print_threshold(const char* what, std::size_t t) {
  if (t)
    std::printf("# %s cheaper than pack + unpack from %zu-byte pieces on\n", what, t);
  else
    std::printf("# %s never cheaper than pack + unpack up to 1 MiB pieces\n", what);
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
  int fd[2];
  if (pipe(fd) != 0) return std::perror("pipe"), 1;
  const pid_t child = fork();
  if (child < 0) return std::perror("fork"), 1;
  if (child == 0) child_holds(src, total, fd[1]);
  ChildWord w;
  const bool told = read(fd[0], &w, sizeof w) == static_cast<ssize_t>(sizeof w);  // the child's pages written
  std::memset(src.data(), 2, total);
  std::printf("# cma_probe: %zu MiB, best of %d, IOV_MAX %ld, child's huge-page source %s (child AnonHugePages %lld kB)\n",
              total >> 20, reps, sysconf(_SC_IOV_MAX), w.huge_src ? "mapped" : "none", static_cast<long long>(w.huge_kib));
  std::printf("%10s %12s %14s %12s %12s %14s %8s %11s %16s\n", "piece_B", "cma_GB/s", "cma_huge_GB/s", "memcpy_GB/s",
              "window_GB/s", "cma_us/piece", "cma/cpy", "cma/window", "cma_huge/window");
  const std::vector<std::size_t> pieces{512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 262144, 1ul << 20};
  std::vector<Best> best(pieces.size());
  int status = told ? 0 : 1;
  for (std::size_t i = 0; i < pieces.size() && status == 0; ++i) {
    Best& b = best[i];
    if (!measure(child, w, src, dst, staging, pieces[i], reps, b)) status = 1;
    const double n = static_cast<double>(total / pieces[i]), bytes = static_cast<double>(total);
    std::printf("%10zu %12.2f %14.2f %12.2f %12.2f %14.3f %8.1f %11.2f %16.2f\n", pieces[i], bytes / b.cma / 1e9,
                w.huge_src ? bytes / b.huge / 1e9 : 0.0, bytes / b.cpy / 1e9, bytes / b.win / 1e9, b.cma / n * 1e6,
                b.cma / b.cpy, b.cma / b.win, w.huge_src ? b.huge / b.win : 0.0);
  }
  print_threshold("single read", threshold(pieces, best, [](const Best& b) { return b.cma; }));
  if (w.huge_src) print_threshold("single read of huge pages", threshold(pieces, best, [](const Best& b) { return b.huge; }));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return status;
}
}  // namespace redist::bench
