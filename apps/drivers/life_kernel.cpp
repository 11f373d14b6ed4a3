// SPDX-License-Identifier: BSD-3-Clause
#include "life_kernel.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "malleable/resize/kernel_meter.hpp"
#include "driver.hpp"

namespace apps {

std::vector<int> uniform_starts(int n, int p) {
  const int b = (n + p - 1) / p;
  std::vector<int> s(static_cast<std::size_t>(p) + 1);
  for (int k = 0; k <= p; ++k) s[static_cast<std::size_t>(k)] = std::min(n, k * b);
  for (int k = 0; k < p; ++k)
    if (s[static_cast<std::size_t>(k) + 1] <= s[static_cast<std::size_t>(k)])
      throw resize::Error("life: N=" + std::to_string(n) + " is too small for " + std::to_string(p) +
                          " process rows/columns with blocks of " + std::to_string(b));
  return s;
}

std::vector<int> proportional_starts(int n, const std::vector<double>& w) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  const int p = static_cast<int>(w.size());
  if (n < p) throw resize::Error("life: N=" + std::to_string(n) + " smaller than " + std::to_string(p) + " parts");
  std::vector<int> size(static_cast<std::size_t>(p));
  std::vector<std::pair<double, int>> rem;
  int used = 0;
  for (int k = 0; k < p; ++k) {
    const double exact = n * w[static_cast<std::size_t>(k)] / total;
    size[static_cast<std::size_t>(k)] = std::max(1, static_cast<int>(std::floor(exact)));
    used += size[static_cast<std::size_t>(k)];
    rem.push_back({exact - std::floor(exact), k});
  }
  std::sort(rem.begin(), rem.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; used < n; k = (k + 1) % rem.size(), ++used) ++size[static_cast<std::size_t>(rem[k].second)];
  while (used > n) {  // only when the >= 1 floor overshot: take from the largest
    auto it = std::max_element(size.begin(), size.end());
    --*it;
    --used;
  }
  std::vector<int> s(1, 0);
  for (int v : size) s.push_back(s.back() + v);
  return s;
}

std::uint8_t life_initial(std::int64_t i, std::int64_t j, int seed) {
  return entry(seed, i, j) > 0.4 ? 1 : 0;  // entry is uniform in [-1, 1]: 30% alive
}

namespace {
// CPU time, so that a rank preempted on an oversubscribed host is not charged for it.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

inline std::uint8_t rule(std::uint8_t alive, int nbrs) {
  return static_cast<std::uint8_t>(nbrs == 3 || (alive && nbrs == 2));
}

// One generation of the m x n interior of `pad` ((m+2) x (n+2), column-major, halo
// filled) into `next` (m x n), `reps` times; CPU seconds returned, wall in *wall_seconds.
double update(const std::vector<std::uint8_t>& pad, int m, int n, std::vector<std::uint8_t>& next, int reps,
              double* wall_seconds) {
  const int pm = m + 2;
  auto P = [&](int i, int j) { return pad[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * pm]; };
  const double t0 = thread_cpu_seconds(), w0 = MPI_Wtime();
  for (int rep = 0; rep < std::max(1, reps); ++rep) {
    // Each repetition must really run (§6.4 emulates a slower processor by doing the work
    // again); the barrier stops the compiler from collapsing identical repetitions.
    asm volatile("" : : "r"(next.data()), "r"(pad.data()) : "memory");
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= m; ++i) {
        const int s = P(i - 1, j - 1) + P(i, j - 1) + P(i + 1, j - 1) + P(i - 1, j) + P(i + 1, j) +
                      P(i - 1, j + 1) + P(i, j + 1) + P(i + 1, j + 1);
        next[static_cast<std::size_t>(i - 1) + static_cast<std::size_t>(j - 1) * m] = rule(P(i, j), s);
      }
  }
  if (wall_seconds) *wall_seconds = MPI_Wtime() - w0;
  return thread_cpu_seconds() - t0;
}
}  // namespace

double life_step(MPI_Comm comm, const LifeBlocks& b, double* cells, int ld, int reps, double* wall_seconds) {
  const int m = b.rows(), n = b.cols(), pm = m + 2, pn = n + 2;
  // Padded copy, column-major (pm x pn), halo initialised dead.
  std::vector<std::uint8_t> pad(static_cast<std::size_t>(pm) * pn, 0);
  auto P = [&](int i, int j) -> std::uint8_t& { return pad[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * pm]; };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) P(i + 1, j + 1) = cells[i + static_cast<std::size_t>(j) * ld] != 0.0;

  // Halo exchange with the 8 neighbours. Tag = index of the direction as seen by the
  // sender; the piece from neighbour (di,dj) is what it sent towards (-di,-dj).
  std::vector<MPI_Request> reqs;
  std::vector<std::vector<std::uint8_t>> sendbuf(9), recvbuf(9);
  auto dir = [](int di, int dj) { return (di + 1) * 3 + (dj + 1); };
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj) {
      if (!di && !dj) continue;
      const int r = b.myrow + di, c = b.mycol + dj;
      if (r < 0 || c < 0 || r >= b.grid.nprow || c >= b.grid.npcol) continue;
      const int peer = b.grid.rank_at(r, c);
      // Rows/columns of my block (1-based in pad) that neighbour (di,dj) needs.
      const int i0 = di < 0 ? 1 : (di > 0 ? m : 1), i1 = di == 0 ? m : i0;
      const int j0 = dj < 0 ? 1 : (dj > 0 ? n : 1), j1 = dj == 0 ? n : j0;
      auto& s = sendbuf[static_cast<std::size_t>(dir(di, dj))];
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) s.push_back(P(i, j));
      auto& rv = recvbuf[static_cast<std::size_t>(dir(di, dj))];
      // The neighbour's matching edge has its own extent along the shared dimension.
      const int rm = b.row_start[r + 1] - b.row_start[r], rn = b.col_start[c + 1] - b.col_start[c];
      rv.resize(static_cast<std::size_t>(di == 0 ? rm : 1) * (dj == 0 ? rn : 1));
      reqs.emplace_back();
      MPI_Irecv(rv.data(), static_cast<int>(rv.size()), MPI_UINT8_T, peer, dir(-di, -dj), comm, &reqs.back());
      reqs.emplace_back();
      MPI_Isend(s.data(), static_cast<int>(s.size()), MPI_UINT8_T, peer, dir(di, dj), comm, &reqs.back());
    }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj) {
      if (!di && !dj) continue;
      const auto& rv = recvbuf[static_cast<std::size_t>(dir(di, dj))];
      if (rv.empty()) continue;
      const int i0 = di < 0 ? 0 : (di > 0 ? m + 1 : 1), i1 = di == 0 ? m : i0;
      const int j0 = dj < 0 ? 0 : (dj > 0 ? n + 1 : 1), j1 = dj == 0 ? n : j0;
      std::size_t k = 0;
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) P(i, j) = rv[k++];
    }

  std::vector<std::uint8_t> next(static_cast<std::size_t>(m) * n);
  const double t = update(pad, m, n, next, reps, wall_seconds);
  resize::kernel_meter_add(t);  // the update is this application's compute kernel
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      cells[i + static_cast<std::size_t>(j) * ld] = next[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * m];
  return t;
}

double life_probe(int n, int reps, double* wall_seconds) {
  const int pm = n + 2;
  std::vector<std::uint8_t> pad(static_cast<std::size_t>(pm) * pm, 0), next(static_cast<std::size_t>(n) * n);
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) pad[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * pm] = life_initial(i, j);
  return update(pad, n, n, next, reps, wall_seconds);
}

void life_serial(std::vector<std::uint8_t>& board, int n, int gens) {
  std::vector<std::uint8_t> next(board.size());
  auto at = [&](int i, int j) -> int {
    return (i < 0 || j < 0 || i >= n || j >= n) ? 0 : board[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n];
  };
  for (int g = 0; g < gens; ++g) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const int s = at(i - 1, j - 1) + at(i, j - 1) + at(i + 1, j - 1) + at(i - 1, j) + at(i + 1, j) +
                      at(i - 1, j + 1) + at(i, j + 1) + at(i + 1, j + 1);
        next[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n] = rule(static_cast<std::uint8_t>(at(i, j)), s);
      }
    board.swap(next);
  }
}

}  // namespace apps
