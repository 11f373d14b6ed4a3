// SPDX-License-Identifier: BSD-3-Clause
// What Matrix<T>'s cached index map saves (label bench): on a 2x2 grid, for a block-cyclic
// matrix and one with per-process block sizes (extended descriptor), world rank 0 times
//   at:       for every global (i, j): owns(i, j) ? sum += at(i, j)   (the handle, now)
//   before:   the same through the handle's former code (commit 88b3c81, copied below as
//             OldMap: the map rebuilt from the session for owns() and again for at(), the
//             extended one allocating its prefix sums each time)
//   each:     for_each_local (the cached map's block walk)
//   before:   the former for_each_local (the map built once, then global_row/global_col
//             per element)
// in one run, alternating the variants, and prints the best of the repetitions and the
// ratios. Both variants of a pair must read the same sum (checked: exit 1 otherwise).
//   mpiexec -n 4 malleable-resize-bench matrix-map [N]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include "cases.hpp"
#include "malleable/resize/session.hpp"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Pair {
  double fast = 1e300, slow = 1e300;
  double fast_sum = 0, slow_sum = 0;
};

// The handle's index map before the cache (resize::IndexMap at commit 88b3c81, with the
// MatrixState::map() that built it on every call), kept here as the baseline.
struct OldMap {
  int m = 0, n = 0, mb = 1, nb = 1;
  int nprow = 1, npcol = 1, myrow = -1, mycol = -1;
  std::vector<std::int64_t> rows_start, cols_start;

  static int bc_owner(int i, int b, int p) { return static_cast<int>((static_cast<std::int64_t>(i) / b) % p); }
  static int bc_local(int i, int b, int p) {
    return static_cast<int>(static_cast<std::int64_t>(i) / (static_cast<std::int64_t>(b) * p) * b + i % b);
  }
  static int bc_global(int l, int b, int me, int p) {
    return static_cast<int>((static_cast<std::int64_t>(l) / b * p + me) * b + l % b);
  }
  static int bc_count(int n, int b, int me, int p) {
    if (me < 0) return 0;
    const int blocks = n / b, extra = blocks % p;
    int count = blocks / p * b;
    if (me < extra) count += b;
    else if (me == extra) count += n % b;
    return count;
  }
  static int ex_owner(const std::vector<std::int64_t>& start, int i) {
    const auto it = std::upper_bound(start.begin(), start.end(), static_cast<std::int64_t>(i));
    return static_cast<int>(std::max<std::ptrdiff_t>(0, it - start.begin() - 1));
  }
  bool extended() const { return !rows_start.empty(); }
  bool in_grid() const { return myrow >= 0 && mycol >= 0; }
  int row_owner(int i) const { return extended() ? ex_owner(rows_start, i) : bc_owner(i, mb, nprow); }
  int col_owner(int j) const { return extended() ? ex_owner(cols_start, j) : bc_owner(j, nb, npcol); }
  int local_row(int i) const {
    return extended() ? static_cast<int>(i - rows_start[static_cast<std::size_t>(row_owner(i))]) : bc_local(i, mb, nprow);
  }
  int local_col(int j) const {
    return extended() ? static_cast<int>(j - cols_start[static_cast<std::size_t>(col_owner(j))]) : bc_local(j, nb, npcol);
  }
  int global_row(int il) const {
    return extended() ? static_cast<int>(rows_start[static_cast<std::size_t>(myrow)] + il) : bc_global(il, mb, myrow, nprow);
  }
  int global_col(int jl) const {
    return extended() ? static_cast<int>(cols_start[static_cast<std::size_t>(mycol)] + jl) : bc_global(jl, nb, mycol, npcol);
  }
  int local_rows() const {
    if (!in_grid()) return 0;
    return extended() ? static_cast<int>(rows_start[myrow + 1] - rows_start[myrow]) : bc_count(m, mb, myrow, nprow);
  }
  int local_cols() const {
    if (!in_grid()) return 0;
    return extended() ? static_cast<int>(cols_start[mycol + 1] - cols_start[mycol]) : bc_count(n, nb, mycol, npcol);
  }
  bool owns(int i, int j) const {
    return in_grid() && i >= 0 && i < m && j >= 0 && j < n && row_owner(i) == myrow && col_owner(j) == mycol;
  }
  // MatrixState::map() as it was: from the session and the handle, on every call.
  static OldMap of(const resize::Session& s, const resize::Matrix<double>& a) {
    OldMap mp;
    mp.m = a.rows();
    mp.n = a.cols();
    mp.nprow = std::max(1, s.grid().nprow);
    mp.npcol = std::max(1, s.grid().npcol);
    if (s.in_grid()) {
      mp.myrow = s.myrow();
      mp.mycol = s.mycol();
    }
    if (!a.extended()) {
      mp.mb = std::max(1, a.desc()[4]);
      mp.nb = std::max(1, a.desc()[5]);
      return mp;
    }
    mp.rows_start.assign(1, 0);
    for (auto b : a.row_blocks()) mp.rows_start.push_back(mp.rows_start.back() + b);
    mp.cols_start.assign(1, 0);
    for (auto b : a.col_blocks()) mp.cols_start.push_back(mp.cols_start.back() + b);
    return mp;
  }
};

// The at() pair and the for_each pair for one matrix, best of `reps`.
void measure(resize::Session& s, resize::Matrix<double>& a, int reps, Pair& at, Pair& each) {
  const int m = a.rows(), n = a.cols();
  for (int r = 0; r < reps; ++r) {
    at.fast = std::min(at.fast, seconds([&] {
      double sum = 0;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i)
          if (a.owns(i, j)) sum += a.at(i, j);
      at.fast_sum = sum;
    }));
    at.slow = std::min(at.slow, seconds([&] {
      double sum = 0;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i)
          if (OldMap::of(s, a).owns(i, j)) {
            const OldMap mp = OldMap::of(s, a);  // the former at(): map() again, owns, local indices
            if (!mp.owns(i, j)) std::abort();
            sum += a.local(mp.local_row(i), mp.local_col(j));
          }
      at.slow_sum = sum;
    }));
    each.fast = std::min(each.fast, seconds([&] {
      double sum = 0;
      a.for_each_local([&](int i, int j, double& v) { sum += v * (i + 2 * j); });
      each.fast_sum = sum;
    }));
    each.slow = std::min(each.slow, seconds([&] {
      double sum = 0;
      const OldMap mp = OldMap::of(s, a);
      const int ml = mp.local_rows(), nl = mp.local_cols();
      for (int jl = 0; jl < nl; ++jl) {
        const int j = mp.global_col(jl);
        for (int il = 0; il < ml; ++il) sum += a.local(il, jl) * (mp.global_row(il) + 2 * j);
      }
      each.slow_sum = sum;
    }));
  }
}

bool report(const char* what, const char* fast, const char* slow, const Pair& p, long long count) {
  std::printf("  %-10s %-10s %9.2f ns/element   %-10s %9.2f ns/element   ratio %.1fx\n", what, fast,
              1e9 * p.fast / static_cast<double>(count), slow, 1e9 * p.slow / static_cast<double>(count),
              p.slow / p.fast);
  if (p.fast_sum != p.slow_sum) {
    std::printf("  %s: the two variants read different sums (%.17g vs %.17g): FAILED\n", what, p.fast_sum, p.slow_sum);
    return false;
  }
  return true;
}

}  // namespace

// The case `matrix-map` of malleable-resize-bench (main.cpp): argv[0] is the case's name.
int resize::bench::case_matrix_map(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 600;
  bool ok = true;
  {
    resize::SessionOptions o;
    o.app = "map_bench";
    o.progress = false;
    resize::Session s(argc, argv, std::move(o));
    auto cyclic = s.register_matrix<double>("cyclic", n, n, 32, 32);
    auto ext = s.register_matrix<double>("extended", n, n, [n](const resize::Grid& g, std::vector<long long>& r,
                                                               std::vector<long long>& c) {
      // uneven: process row/column k gets a share proportional to k + 1
      const auto split = [](long long total, int parts, std::vector<long long>& out) {
        out.assign(static_cast<std::size_t>(parts), 0);
        const long long w = static_cast<long long>(parts) * (parts + 1) / 2;
        long long given = 0;
        for (int k = 0; k < parts; ++k) given += out[static_cast<std::size_t>(k)] = total * (k + 1) / w;
        out.back() += total - given;
      };
      split(n, g.nprow, r);
      split(n, g.npcol, c);
    });
    s.start(resize::Grid{2, 2, {}});
    for (auto* a : {&cyclic, &ext}) a->for_each_local([](int i, int j, double& v) { v = 1.0 + (i * 7 + j) % 13; });
    if (s.in_grid() && s.world_rank() == 0) {
      double load[3] = {0, 0, 0};
      if (getloadavg(load, 3) < 0) load[0] = -1;
      std::printf("malleable-resize-bench matrix-map: N = %d on a 2x2 grid, world rank 0's part (load average %.2f; best of 5)\n", n,
                  load[0]);
      for (auto* a : {&cyclic, &ext}) {
        Pair at, each;
        measure(s, *a, 5, at, each);
        std::printf(" %s:\n", a->name().c_str());
        ok &= report("at", "now", "before", at, static_cast<long long>(n) * n);
        ok &= report("for_each", "now", "before", each,
                     static_cast<long long>(a->local_rows()) * a->local_cols());
      }
    }
    // The other ranks wait here without spinning on the cores the timing runs on.
    MPI_Request req;
    MPI_Ibarrier(s.world(), &req);
    for (int done = 0; !done;) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (!done) usleep(2000);
    }
  }
  int all = ok ? 1 : 0, agreed = 0;
  MPI_Allreduce(&all, &agreed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Finalize();
  return agreed ? 0 : 1;
}
