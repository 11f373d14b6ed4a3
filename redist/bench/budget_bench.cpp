// SPDX-License-Identifier: BSD-3-Clause
// Time against memory budget (ExecOptions::memory_budget_bytes): one
// redistribution (default 4000 x 4000 doubles, blocks of 64, 2x2 -> 3x3 on the first 9
// ranks) under each budget, the budgets interleaved rep by rep so that they share the
// machine's state (each timed call after an untimed one with the same budget); per budget the fastest rep (slowest rank), the job's most rounds and
// largest peak_bytes, and the time's ratio to the unlimited run. The result is checked
// against the global matrix once per budget. Nothing here is a pass/fail target.
//   mpiexec -n 9 malleable-redist-bench budget [--n 4000] [--nb 64] [--reps 5]
//       [--budgets 65536,1048576,16777216,0] [--transport packed|auto|datatype]
//       [--schedule allatonce|caterpillar|default]
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

double value(std::int64_t i, std::int64_t j) { return static_cast<double>(i) * 1e5 + static_cast<double>(j); }

using Local = redist::bench::LocalPart;

Local local_of(const redist::Layout& l, int rank, bool fill) { return redist::bench::local_part(l, rank, fill, value); }

std::int64_t wrong(const redist::Layout& l, int rank, const Local& x) { return redist::bench::wrong_elements(l, rank, x, value); }

}  // namespace

namespace redist::bench {
int case_budget(int me, int size, int argc, char** argv) {
  CLI::App app{"redistribution time against the executor's memory budget"};
  std::int64_t n = 4000, nb = 64;
  int reps = 5;
  std::vector<std::int64_t> budgets = {std::int64_t{64} << 10, std::int64_t{1} << 20, std::int64_t{16} << 20, 0};
  std::string transport = "packed", schedule = "allatonce";
  app.add_option("--n", n, "matrix order")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--nb", nb, "block size")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--reps", reps, "repetitions, fastest kept")->check(CLI::Range(1, 1000));
  app.add_option("--budgets", budgets, "memory budgets in bytes (0 = unlimited)")->delimiter(',');
  app.add_option("--transport", transport, "packed, auto or datatype");
  app.add_option("--schedule", schedule, "allatonce, caterpillar or default");
  if (auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  if (size < 9) {
    if (me == 0) std::fprintf(stderr, "budget: needs 9 ranks (2x2 -> 3x3)\n");
    MPI_Finalize();
    return 2;
  }
  const auto la = redist::Layout::block_cyclic(n, n, nb, nb, 2, 2), lb = redist::Layout::block_cyclic(n, n, nb, nb, 3, 3);
  const redist::ScheduleKind kind = schedule == "caterpillar" ? redist::ScheduleKind::Caterpillar
                                    : schedule == "default"   ? redist::ScheduleKind::Default
                                                              : redist::ScheduleKind::AllAtOnce;
  redist::ExecOptions base;
  base.transport = transport == "auto" ? redist::Transport::Auto
                   : transport == "datatype" ? redist::Transport::Datatype
                                             : redist::Transport::Packed;
  const Local A = local_of(la, me, true);
  Local B = local_of(lb, me, false);
  const std::size_t nbud = budgets.size();
  std::vector<double> best(nbud, 1e30);
  std::vector<redist::ExecStats> stats(nbud);
  std::vector<std::int64_t> bad(nbud, 0);
  for (int r = 0; r < reps; ++r)
    for (std::size_t k = 0; k < nbud; ++k) {
      redist::ExecOptions opt = base;
      opt.memory_budget_bytes = budgets[k];
      std::fill(B.data.begin(), B.data.end(), -1.0);
      redist::ExecStats st;
      // An untimed call first: the staging pool is trimmed to each call's budget, so the
      // timed call finds it as repeated calls with this budget leave it.
      redist::redistribute<double>(MPI_COMM_WORLD, la, A.in ? A.data.data() : nullptr, A.ld, lb,
                                   B.in ? B.data.data() : nullptr, B.ld, kind, opt, &st);
      std::fill(B.data.begin(), B.data.end(), -1.0);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      redist::redistribute<double>(MPI_COMM_WORLD, la, A.in ? A.data.data() : nullptr, A.ld, lb,
                                   B.in ? B.data.data() : nullptr, B.ld, kind, opt, &st);
      double t = MPI_Wtime() - t0, tmax = 0;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      best[k] = std::min(best[k], tmax);
      stats[k] = st;
      if (r == 0) bad[k] = wrong(lb, me, B);
    }
  double load[3] = {-1, -1, -1};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::size_t unlimited = nbud;
  for (std::size_t k = 0; k < nbud; ++k)
    if (budgets[k] == 0) unlimited = k;
  if (me == 0)
    std::printf("# %lld x %lld doubles, blocks %lld, 2x2 -> 3x3 on %d ranks, %s, %s, fastest of %d, load %.1f %.1f %.1f\n"
                "%12s %10s %8s %10s %14s %10s %8s\n",
                static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(nb), size, transport.c_str(),
                schedule.c_str(), reps, load[0], load[1], load[2], "budget", "time_s", "rounds", "messages", "peak_bytes",
                "vs_unlim", "wrong");
  for (std::size_t k = 0; k < nbud; ++k) {
    long long mine[4] = {stats[k].rounds, stats[k].messages, stats[k].peak_bytes, bad[k]}, most[4] = {0, 0, 0, 0};
    MPI_Reduce(mine, most, 3, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine[3], &most[3], 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
      std::printf("%12lld %10.4f %8lld %10lld %14lld %10.2f %8lld\n", static_cast<long long>(budgets[k]), best[k], most[0],
                  most[1], most[2], unlimited < nbud ? best[k] / best[unlimited] : 0.0, most[3]);
  }
  MPI_Finalize();
  return 0;
}
}  // namespace redist::bench
