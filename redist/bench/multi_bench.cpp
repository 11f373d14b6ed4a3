// SPDX-License-Identifier: BSD-3-Clause
// Several matrices moved one after another against in one exchange (redist::Exchange,
// docs/reference/redist.md, "Several matrices in one exchange"): k matrices of n x n doubles
// (default 3 of 2000 x 2000, blocks of 64) from a 2x2 grid to 3x3 and back (--from, --to),
// on the first ranks. Per change and rep, interleaved so that they share the machine's state:
//   sequential  k calls of redistribute() (the single-matrix path, default schedule),
//   seq-exch    k exchanges of one matrix each (the exchange's engine, no aggregation),
//   together    one exchange of all k (one message per peer per round for all of them),
//   one-job     the same with a resize's options (WindowPairs::OtherJobs: the pairs of one
//               MPI job, here all of them, by MPI's transport instead of the node window).
// Prints per variant the fastest and the median rep (slowest rank), messages and peak
// bytes, and the ratios sequential / together and seq-exch / together. The result of
// every variant is checked against the global matrix on the first rep. Nothing here is a
// pass/fail target.
//   mpiexec -n 9 malleable-redist-bench multi [--n 2000] [--nb 64] [--matrices 3] [--reps 5] [--from 2x2] [--to 3x3]
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

namespace redist::bench {
int case_multi(int me, int size, int argc, char** argv) {
  CLI::App app{"several matrices one after another against in one exchange"};
  std::int64_t n = 2000, nb = 64;
  int reps = 5, nmat = 3;
  std::string from = "2x2", to = "3x3";
  app.add_option("--n", n, "matrix order")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--nb", nb, "block size")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--matrices", nmat, "matrices moved")->check(CLI::Range(1, 64));
  app.add_option("--reps", reps, "repetitions")->check(CLI::Range(1, 1000));
  app.add_option("--from", from, "first grid, RxC");
  app.add_option("--to", to, "second grid, RxC");
  if (auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  int r1 = 0, c1 = 0, r2 = 0, c2 = 0;
  if (std::sscanf(from.c_str(), "%dx%d", &r1, &c1) != 2 || std::sscanf(to.c_str(), "%dx%d", &r2, &c2) != 2 || r1 < 1 ||
      c1 < 1 || r2 < 1 || c2 < 1) {
    if (me == 0) std::fprintf(stderr, "multi: --from and --to are grids RxC (got %s, %s)\n", from.c_str(), to.c_str());
    MPI_Finalize();
    return 2;
  }
  const int need = std::max(r1 * c1, r2 * c2);
  if (size < need) {
    if (me == 0) std::fprintf(stderr, "multi: needs %d ranks (%s -> %s)\n", need, from.c_str(), to.c_str());
    MPI_Finalize();
    return 2;
  }
  const auto g2 = redist::Layout::block_cyclic(n, n, nb, nb, r1, c1), g3 = redist::Layout::block_cyclic(n, n, nb, nb, r2, c2);
  constexpr int kVariants = 4;
  const char* names[kVariants] = {"sequential", "seq-exch", "together", "one-job"};
  redist::ExecOptions one_job;
  one_job.window_pairs = redist::WindowPairs::OtherJobs;  // as a resize's move (resize/src/parts/grid_switch.cpp)
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
    std::vector<std::vector<double>> times(kVariants);
    std::vector<redist::ExecStats> stats(kVariants);
    std::vector<std::int64_t> bad(kVariants, 0);
    for (int r = -1; r < reps; ++r)  // rep -1: untimed warm-up (staging pool, caches)
      for (int v = 0; v < kVariants; ++v) {
        for (auto& b : B) std::fill(b.data.begin(), b.data.end(), -1.0);
        std::vector<redist::ExchangeItem> items;
        for (int k = 0; k < nmat; ++k)
          items.push_back(redist::ExchangeItem::of<double>(plans[static_cast<std::size_t>(k)], A[static_cast<std::size_t>(k)].ptr(),
                                                           A[static_cast<std::size_t>(k)].ld, B[static_cast<std::size_t>(k)].ptr(),
                                                           B[static_cast<std::size_t>(k)].ld));
        redist::ExecStats st, total;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (v >= 2) {
          redist::redistribute(MPI_COMM_WORLD, items, v == 3 ? one_job : redist::ExecOptions{}, &total);
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
      std::printf("## %s, load %.1f %.1f %.1f\n%12s %10s %10s %10s %14s %8s\n", (dir == 0 ? from + " -> " + to : to + " -> " + from).c_str(), load[0],
                  load[1], load[2], "variant", "best_s", "median_s", "messages", "peak_bytes", "wrong");
    std::vector<double> best(kVariants), med(kVariants);
    for (std::size_t v = 0; v < kVariants; ++v) {
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
      std::printf("ratio sequential/together: best %.2f median %.2f; seq-exch/together: best %.2f median %.2f; "
                  "one-job/sequential: best %.2f median %.2f\n",
                  best[0] / best[2], med[0] / med[2], best[1] / best[2], med[1] / med[2], best[3] / best[0], med[3] / med[0]);
  }
  MPI_Finalize();
  return 0;
}
}  // namespace redist::bench
