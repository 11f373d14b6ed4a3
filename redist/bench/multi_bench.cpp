// SPDX-License-Identifier: BSD-3-Clause
// Several matrices moved one after another against in one exchange (redist::Exchange,
// docs/reference/redist.md, "Several matrices in one exchange"): k matrices of n x n doubles
// (default 3 of 2000 x 2000, blocks of 64) from a 2x2 grid to 3x3 and back, on the first 9
// ranks. Per change and rep, interleaved so that they share the machine's state:
//   sequential  k calls of redistribute() (the single-matrix path, default schedule),
//   seq-exch    k exchanges of one matrix each (the exchange's engine, no aggregation),
//   together    one exchange of all k (one message per peer per round for all of them).
// Prints per variant the fastest and the median rep (slowest rank), messages and peak
// bytes, and the ratios sequential / together and seq-exch / together. The result of
// every variant is checked against the global matrix on the first rep. Nothing here is a
// pass/fail target.
//   mpiexec -n 9 redist_multi_bench [--n 2000] [--nb 64] [--matrices 3] [--reps 5]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_cli.hpp"
#include "local_part.hpp"
#include "malleable/redist/redistribute.hpp"

namespace {

double value(int k, std::int64_t i, std::int64_t j) {
  return static_cast<double>(k) * 1e11 + static_cast<double>(i) * 1e5 + static_cast<double>(j);
}

using Local = redist::bench::LocalPart;

Local local_of(const redist::Layout& l, int rank, int k, bool fill) {
  return redist::bench::local_part(l, rank, fill, [k](std::int64_t i, std::int64_t j) { return value(k, i, j); });
}

std::int64_t wrong(const redist::Layout& l, int rank, int k, const Local& x) {
  return redist::bench::wrong_elements(l, rank, x, [k](std::int64_t i, std::int64_t j) { return value(k, i, j); });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"several matrices one after another against in one exchange"};
  std::int64_t n = 2000, nb = 64;
  int reps = 5, nmat = 3;
  app.add_option("--n", n, "matrix order")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--nb", nb, "block size")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--matrices", nmat, "matrices moved")->check(CLI::Range(1, 64));
  app.add_option("--reps", reps, "repetitions")->check(CLI::Range(1, 1000));
  if (auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  if (size < 9) {
    if (me == 0) std::fprintf(stderr, "redist_multi_bench needs 9 ranks (2x2 -> 3x3)\n");
    MPI_Finalize();
    return 2;
  }
  const auto g2 = redist::Layout::block_cyclic(n, n, nb, nb, 2, 2), g3 = redist::Layout::block_cyclic(n, n, nb, nb, 3, 3);
  const char* names[3] = {"sequential", "seq-exch", "together"};
  if (me == 0) std::printf("# %d matrices of %lld x %lld doubles, blocks %lld, on %d ranks, %d reps interleaved\n", nmat,
                           static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(nb), size, reps);
  for (int dir = 0; dir < 2; ++dir) {
    const redist::Layout& la = dir == 0 ? g2 : g3;
    const redist::Layout& lb = dir == 0 ? g3 : g2;
    std::vector<Local> A, B;
    std::vector<redist::RedistPlan> plans;
    for (int k = 0; k < nmat; ++k) {
      A.push_back(local_of(la, me, k, true));
      B.push_back(local_of(lb, me, k, false));
      plans.push_back(redist::make_plan(la, lb, redist::Region::whole(la), size, redist::ScheduleKind::Default, me));
    }
    std::vector<std::vector<double>> times(3);
    std::vector<redist::ExecStats> stats(3);
    std::vector<std::int64_t> bad(3, 0);
    for (int r = -1; r < reps; ++r)  // rep -1: untimed warm-up (staging pool, caches)
      for (int v = 0; v < 3; ++v) {
        for (auto& b : B) std::fill(b.data.begin(), b.data.end(), -1.0);
        std::vector<redist::ExchangeItem> items;
        for (int k = 0; k < nmat; ++k)
          items.push_back(redist::ExchangeItem::of<double>(plans[static_cast<std::size_t>(k)], A[static_cast<std::size_t>(k)].ptr(),
                                                           A[static_cast<std::size_t>(k)].ld, B[static_cast<std::size_t>(k)].ptr(),
                                                           B[static_cast<std::size_t>(k)].ld));
        redist::ExecStats st, total;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (v == 2) {
          redist::redistribute(MPI_COMM_WORLD, items, {}, &total);
        } else {
          for (const auto& it : items) {
            if (v == 0)
              redist::redistribute<double>(MPI_COMM_WORLD, *it.plan, static_cast<const double*>(it.a), it.lda,
                                           static_cast<double*>(it.b), it.ldb, {}, &st);
            else
              redist::redistribute(MPI_COMM_WORLD, {it}, {}, &st);
            total.messages += st.messages;
            total.peak_bytes = std::max(total.peak_bytes, st.peak_bytes);
          }
        }
        double t = MPI_Wtime() - t0, tmax = 0;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r < 0) continue;
        times[static_cast<std::size_t>(v)].push_back(tmax);
        stats[static_cast<std::size_t>(v)] = total;
        if (r == 0)
          for (int k = 0; k < nmat; ++k) bad[static_cast<std::size_t>(v)] += wrong(lb, me, k, B[static_cast<std::size_t>(k)]);
      }
    double load[3] = {-1, -1, -1};
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
      std::fclose(f);
    }
    if (me == 0)
      std::printf("## %s, load %.1f %.1f %.1f\n%12s %10s %10s %10s %14s %8s\n", dir == 0 ? "2x2 -> 3x3" : "3x3 -> 2x2", load[0],
                  load[1], load[2], "variant", "best_s", "median_s", "messages", "peak_bytes", "wrong");
    std::vector<double> best(3), med(3);
    for (std::size_t v = 0; v < 3; ++v) {
      best[v] = *std::min_element(times[v].begin(), times[v].end());
      med[v] = median(times[v]);
      long long mine[2] = {stats[v].messages, stats[v].peak_bytes}, job[2] = {0, 0};
      long long b = bad[v], job_bad = 0;
      MPI_Reduce(&mine[0], &job[0], 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      MPI_Reduce(&mine[1], &job[1], 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&b, &job_bad, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      if (me == 0)
        std::printf("%12s %10.4f %10.4f %10lld %14lld %8lld\n", names[v], best[v], med[v], job[0], job[1], job_bad);
    }
    if (me == 0)
      std::printf("ratio sequential/together: best %.2f median %.2f; seq-exch/together: best %.2f median %.2f\n",
                  best[0] / best[2], med[0] / med[2], best[1] / best[2], med[1] / med[2]);
  }
  MPI_Finalize();
  return 0;
}
