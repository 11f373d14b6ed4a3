// SPDX-License-Identifier: BSD-3-Clause
// Heterogeneous Game of Life (thesis §6.4, Experiment 1, Table 6.3): processors of
// unequal power, emulated as in the thesis by repeating the local update in proportion
// to 1/power (here max_power/power times). The same board is run twice: with uniform
// blocks (every process n/p x n/q) and with rows and columns sized by gridmap's SVD
// heterogeneous mapping (§3.5.1, §6.2), which also chooses where each processor sits.
// Prints the per-process table (power, block, work, measured time per iteration) for
// both, checks both boards against a serial run and checks that the proportional
// mapping gives every process within --balance-tol of the ideal work n*n*power/sum(power).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "malleable/gridmap/hetero.hpp"
#include "driver.hpp"
#include "life_kernel.hpp"

namespace {

struct RankRow {
  int rank = 0;
  double power = 0;
  int rows = 0, cols = 0, reps = 0;
  double work = 0;        // rows*cols/power: time units of one generation on this processor
  double compute_ms = 0;  // measured CPU ms per generation (update only, repetitions included)
  double iter_ms = 0;     // measured wall ms per generation (exchange + update + waiting)
};

struct Run {
  std::string mode;
  std::vector<RankRow> ranks;  // on world rank 0
  long long bad = 0;
  double max_imbalance = 0;    // max |work/ideal - 1|
  double iter_ms = 0;          // max over ranks
};

Run run(const std::string& mode, int n, resize::Grid shape, const std::vector<double>& powers, int gens,
        bool svd, int base_reps) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  apps::LifeBlocks b;
  b.grid = shape;
  if (mode == "uniform") {
    b.row_start = apps::uniform_starts(n, shape.nprow);
    b.col_start = apps::uniform_starts(n, shape.npcol);
    b.grid.ranks = shape.rank_map();
  } else {
    gridmap::ProcessorPowers pw{powers};
    gridmap::HeteroOptions opt;
    opt.method = svd ? gridmap::HeteroMethod::Svd : gridmap::HeteroMethod::NaturalBlock;
    const auto map = gridmap::map_heterogeneous(pw, gridmap::Topology{shape.nprow, shape.npcol}, n, n, opt);
    b.row_start.assign(1, 0);
    for (auto r : map.rows) b.row_start.push_back(b.row_start.back() + static_cast<int>(r));
    b.col_start.assign(1, 0);
    for (auto c : map.cols) b.col_start.push_back(b.col_start.back() + static_cast<int>(c));
    b.grid.ranks = map.ids;  // slot -> process id = world rank
  }
  for (int i = 0; i < shape.nprow; ++i)
    for (int j = 0; j < shape.npcol; ++j)
      if (b.grid.rank_at(i, j) == rank) {
        b.myrow = i;
        b.mycol = j;
      }
  const double pmax = *std::max_element(powers.begin(), powers.end());
  const double mypower = powers[static_cast<std::size_t>(rank)];
  const int reps = std::max(1, static_cast<int>(std::lround(base_reps * pmax / mypower)));
  const int m = b.rows(), nn = b.cols();
  std::vector<double> cells(static_cast<std::size_t>(m) * nn);
  for (int j = 0; j < nn; ++j)
    for (int i = 0; i < m; ++i)
      cells[i + static_cast<std::size_t>(j) * m] = apps::life_initial(b.row_start[b.myrow] + i, b.col_start[b.mycol] + j);
  MPI_Barrier(MPI_COMM_WORLD);
  double compute = 0;
  const double t0 = MPI_Wtime();
  for (int g = 0; g < gens; ++g) compute += apps::life_step(MPI_COMM_WORLD, b, cells.data(), m, reps);
  const double wall = MPI_Wtime() - t0;
  // Check against the serial run.
  std::vector<std::uint8_t> board(static_cast<std::size_t>(n) * n);
  if (rank == 0) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) board[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n] = apps::life_initial(i, j);
    apps::life_serial(board, n, gens);
  }
  MPI_Bcast(board.data(), n * n, MPI_UINT8_T, 0, MPI_COMM_WORLD);
  long long bad = 0;
  for (int j = 0; j < nn; ++j)
    for (int i = 0; i < m; ++i)
      bad += cells[i + static_cast<std::size_t>(j) * m] !=
             board[static_cast<std::size_t>(b.row_start[b.myrow] + i) + static_cast<std::size_t>(b.col_start[b.mycol] + j) * n];
  Run out;
  out.mode = mode;
  MPI_Allreduce(&bad, &out.bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  double mine[6] = {mypower, static_cast<double>(m), static_cast<double>(nn), static_cast<double>(reps),
                    compute / gens * 1e3, wall / gens * 1e3};
  std::vector<double> all(static_cast<std::size_t>(6) * size);
  MPI_Gather(mine, 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double total_power = std::accumulate(powers.begin(), powers.end(), 0.0);
    const double ideal = static_cast<double>(n) * n / total_power;
    for (int r = 0; r < size; ++r) {
      const double* v = &all[static_cast<std::size_t>(6) * r];
      RankRow row{r, v[0], static_cast<int>(v[1]), static_cast<int>(v[2]), static_cast<int>(v[3]),
                  v[1] * v[2] / v[0], v[4], v[5]};
      out.max_imbalance = std::max(out.max_imbalance, std::fabs(row.work / ideal - 1.0));
      out.iter_ms = std::max(out.iter_ms, row.iter_ms);
      out.ranks.push_back(row);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // whole lines, never cut by a warning on stderr
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = 400, gens = 10;
  std::string grid = "2x2", powers_text = "1,2,2,4", mode = "both", method = "svd", json;
  double balance_tol = 0.10;
  int base_reps = 20;
  CLI::App cli{"heterogeneous Game of Life, uniform vs power-proportional blocks (thesis Table 6.3)"};
  cli.option_defaults()->always_capture_default();  // --help shows every default
  cli.set_version_flag("--version", apps::version_text("life_hetero"));
  cli.add_option("-n,--size", n, "board size N")->check(apps::positive());
  cli.add_option("-g,--grid", grid, "process grid PxQ (P*Q = processes)");
  cli.add_option("--powers", powers_text, "processing power of each world rank, e.g. 1,2,2,4");
  cli.add_option("-i,--iters", gens, "generations")->check(apps::positive());
  cli.add_option("--mode", mode, "uniform, proportional or both")
      ->check(CLI::IsMember({"uniform", "proportional", "both"}));
  cli.add_option("--method", method, "heterogeneous mapping: svd or natural")->check(CLI::IsMember({"svd", "natural"}));
  cli.add_option("--base-reps", base_reps,
                 "updates per generation on the fastest processor (a processor of power p repeats "
                 "base*max_power/p times; the thesis used 1000/p)")
      ->check(apps::positive());
  cli.add_option("--balance-tol", balance_tol, "allowed relative deviation from the ideal work")
      ->check(apps::positive());
  cli.add_option("--json", json, "write the table as JSON to this file");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = rank == 0 ? cli.exit(e) : 2;
    MPI_Finalize();
    return rc == 0 ? 0 : 2;
  }
  int rc = 0;
  try {
    const auto x = grid.find('x');
    resize::Grid shape{0, 0, {}};
    try {
      if (x != std::string::npos) shape = {std::stoi(grid.substr(0, x)), std::stoi(grid.substr(x + 1)), {}};
    } catch (const std::exception&) {
    }
    if (shape.nprow < 1 || shape.npcol < 1) throw resize::Error("--grid: expected PxQ, got '" + grid + "'");
    if (shape.size() != size)
      throw resize::Error("--grid " + grid + " needs " + std::to_string(shape.size()) + " processes, running on " +
                          std::to_string(size));
    const auto pw = gridmap::parse_powers(powers_text);
    if (static_cast<int>(pw.values.size()) != size)
      throw resize::Error("--powers: " + std::to_string(pw.values.size()) + " values for " + std::to_string(size) +
                          " processes");
    std::vector<Run> runs;
    if (mode == "uniform" || mode == "both") runs.push_back(run("uniform", n, shape, pw.values, gens, method == "svd", base_reps));
    if (mode == "proportional" || mode == "both")
      runs.push_back(run("proportional", n, shape, pw.values, gens, method == "svd", base_reps));
    if (rank == 0) {
      std::printf("== heterogeneous Life N=%d on %s, powers %s, %d generations (update repeated %d*max_power/power times)\n",
                  n, grid.c_str(), powers_text.c_str(), gens, base_reps);
      std::printf("   work = rows*cols/power, ideal = N*N/sum(power) = %.0f; times per generation: update CPU ms, iteration wall ms\n",
                  static_cast<double>(n) * n / std::accumulate(pw.values.begin(), pw.values.end(), 0.0));
      std::printf("   rank  power |");
      for (const auto& r : runs) std::printf(" %-12s   block     work  update  iter |", r.mode.c_str());
      std::printf("\n");
      for (int k = 0; k < size; ++k) {
        std::printf("   %4d %6.1f |", k, runs[0].ranks[static_cast<std::size_t>(k)].power);
        for (const auto& r : runs) {
          const auto& q = r.ranks[static_cast<std::size_t>(k)];
          char blk[32];
          std::snprintf(blk, sizeof blk, "%dx%d", q.rows, q.cols);
          std::printf(" %-12s %9s %8.0f %7.2f %5.1f |", "", blk, q.work, q.compute_ms, q.iter_ms);
        }
        std::printf("\n");
      }
      for (const auto& r : runs)
        std::printf("   %-12s: iteration %.2f ms (max over ranks), work imbalance max |w/ideal-1| = %.1f%%, "
                    "%lld cells differ from the serial run\n",
                    r.mode.c_str(), r.iter_ms, 100 * r.max_imbalance, r.bad);
      bool ok = true;
      for (const auto& r : runs) ok = ok && r.bad == 0;
      for (const auto& r : runs)
        if (r.mode == "proportional" && r.max_imbalance > balance_tol) {
          std::printf("   FAILED: proportional mapping is %.1f%% off the ideal work (allowed %.0f%%)\n",
                      100 * r.max_imbalance, 100 * balance_tol);
          ok = false;
        }
      std::printf("   result check: %s\n", ok ? "OK (boards identical to the serial run; proportional work balanced)" : "FAILED");
      if (!json.empty()) {
        nlohmann::json j;
        for (const auto& r : runs) {
          nlohmann::json jr = {{"mode", r.mode}, {"iteration_ms", r.iter_ms}, {"max_imbalance", r.max_imbalance},
                               {"cells_wrong", r.bad}};
          for (const auto& q : r.ranks)
            jr["ranks"].push_back({{"rank", q.rank}, {"power", q.power}, {"rows", q.rows}, {"cols", q.cols},
                                   {"reps", q.reps}, {"work", q.work}, {"update_ms", q.compute_ms},
                                   {"iteration_ms", q.iter_ms}});
          j.push_back(jr);
        }
        std::ofstream(json) << j.dump(2);
      }
      rc = ok ? 0 : 1;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "life_hetero (rank %d): error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return rc;
}
