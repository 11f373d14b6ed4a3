// SPDX-License-Identifier: BSD-3-Clause
// Emulated-power Game of Life on a heterogeneous block layout (thesis §6.4): process
// (i, j) of a p x q grid holds rows_i x cols_j cells and, to emulate a processor of power
// PP, repeats its update R/PP times per generation (the thesis used R = 1000; a fractional
// remainder is done as a partial sweep so powers are emulated exactly). Each generation
// exchanges the 8-neighbour halo, then updates.
//
// Reports per process the compute time of one generation (CPU time of the update, the
// time a dedicated core would need - the thesis's per-processor columns of Table 6.3) and
// per generation the wall time and the dedicated-core estimate max_p(compute_p).
// Run with mpiexec -n p*q. JSON on rank 0.
#include <mpi.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "malleable_internal/mpi_world.hpp"

namespace {

using json = nlohmann::json;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class T>
std::vector<T> parse_list(const std::string& s) {
  std::vector<T> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(static_cast<T>(std::stod(item)));
  return out;
}

std::uint8_t initial(std::int64_t i, std::int64_t j) {
  std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(j) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return (h % 10) < 3 ? 1 : 0;
}

// Local block with a one-cell halo, row-major (rows+2) x (cols+2).
struct Block {
  int rows = 0, cols = 0;
  std::vector<std::uint8_t> cur, next;
  std::uint8_t& at(std::vector<std::uint8_t>& v, int i, int j) { return v[static_cast<std::size_t>(i) * (cols + 2) + j]; }
};

// Update columns [c0, c1) of the interior from cur into next.
void update(Block& b, int c0, int c1) {
  const int w = b.cols + 2;
  for (int i = 1; i <= b.rows; ++i) {
    const std::uint8_t* up = &b.cur[static_cast<std::size_t>(i - 1) * w];
    const std::uint8_t* mid = &b.cur[static_cast<std::size_t>(i) * w];
    const std::uint8_t* dn = &b.cur[static_cast<std::size_t>(i + 1) * w];
    std::uint8_t* out = &b.next[static_cast<std::size_t>(i) * w];
    for (int j = c0 + 1; j <= c1; ++j) {
      const int s = up[j - 1] + up[j] + up[j + 1] + mid[j - 1] + mid[j + 1] + dn[j - 1] + dn[j] + dn[j + 1];
      out[j] = static_cast<std::uint8_t>(s == 3 || (s == 2 && mid[j]));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const malleable_internal::World world = malleable_internal::init_world(&argc, &argv);
  const int rank = world.rank, size = world.size;

  CLI::App app{"Emulated-power Game of Life on a heterogeneous block layout (thesis §6.4)"};
  int p = 1, q = 1, iters = 4;
  std::string rows_s, cols_s, powers_s, json_path = "-", label;
  double R = 1000;
  app.add_option("--p", p, "process rows")->required();
  app.add_option("--q", q, "process columns")->required();
  app.add_option("--rows", rows_s, "data rows per process row, comma separated")->required();
  app.add_option("--cols", cols_s, "data columns per process column, comma separated")->required();
  app.add_option("--powers", powers_s, "processing power per grid slot, row-major")->required();
  app.add_option("--R", R, "emulation constant: a processor of power PP sweeps R/PP times");
  app.add_option("--iters", iters, "generations (the first is a warm-up and is not averaged)");
  app.add_option("--label", label, "free text copied to the JSON");
  app.add_option("--json", json_path, "JSON output on rank 0 (- = stdout)");
  if (const auto code = malleable_internal::parse_or_finalize(app, argc, argv, true)) return *code;
  const auto rows = parse_list<int>(rows_s), cols = parse_list<int>(cols_s);
  const auto powers = parse_list<double>(powers_s);
  if (static_cast<int>(rows.size()) != p || static_cast<int>(cols.size()) != q ||
      static_cast<int>(powers.size()) != p * q || size != p * q || iters < 2) {
    if (rank == 0)
      std::cerr << "repro_hetero_life: need " << p << " rows, " << q << " cols, " << p * q
                << " powers, that many processes (have " << size << ") and --iters >= 2\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int myrow = rank / q, mycol = rank % q;
  const double reps = R / powers[static_cast<std::size_t>(rank)];
  std::vector<int> row_start(static_cast<std::size_t>(p) + 1, 0), col_start(static_cast<std::size_t>(q) + 1, 0);
  std::partial_sum(rows.begin(), rows.end(), row_start.begin() + 1);
  std::partial_sum(cols.begin(), cols.end(), col_start.begin() + 1);

  Block b;
  b.rows = rows[static_cast<std::size_t>(myrow)];
  b.cols = cols[static_cast<std::size_t>(mycol)];
  const std::size_t cells = static_cast<std::size_t>(b.rows + 2) * static_cast<std::size_t>(b.cols + 2);
  b.cur.assign(cells, 0);
  b.next.assign(cells, 0);
  for (int i = 1; i <= b.rows; ++i)
    for (int j = 1; j <= b.cols; ++j) b.at(b.cur, i, j) = initial(row_start[myrow] + i - 1, col_start[mycol] + j - 1);

  auto neighbour = [&](int di, int dj) {
    const int i = myrow + di, j = mycol + dj;
    return (i < 0 || i >= p || j < 0 || j >= q) ? MPI_PROC_NULL : i * q + j;
  };
  MPI_Datatype column;  // one interior column of the halo'd row-major block
  MPI_Type_vector(b.rows, 1, b.cols + 2, MPI_UINT8_T, &column);
  MPI_Type_commit(&column);
  const int w = b.cols + 2;
  auto exchange = [&]() {
    // Columns first, then whole rows including the halo corners: 8 neighbours in 2 phases.
    MPI_Sendrecv(&b.cur[static_cast<std::size_t>(w) + 1], 1, column, neighbour(0, -1), 0,
                 &b.cur[static_cast<std::size_t>(w) + b.cols + 1], 1, column, neighbour(0, 1), 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&b.cur[static_cast<std::size_t>(w) + b.cols], 1, column, neighbour(0, 1), 1,
                 &b.cur[static_cast<std::size_t>(w)], 1, column, neighbour(0, -1), 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&b.cur[static_cast<std::size_t>(w)], w, MPI_UINT8_T, neighbour(-1, 0), 2,
                 &b.cur[static_cast<std::size_t>(b.rows + 1) * w], w, MPI_UINT8_T, neighbour(1, 0), 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&b.cur[static_cast<std::size_t>(b.rows) * w], w, MPI_UINT8_T, neighbour(1, 0), 3, &b.cur[0], w,
                 MPI_UINT8_T, neighbour(-1, 0), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  };

  std::vector<double> compute(static_cast<std::size_t>(iters)), wall(static_cast<std::size_t>(iters));
  const int full = static_cast<int>(std::floor(reps));
  const int partial_cols = static_cast<int>(std::lround((reps - full) * b.cols));
  for (int it = 0; it < iters; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    exchange();
    const double c0 = cpu_now();
    // §6.4: the same update repeated to stand for a slower processor.
    for (int k = 0; k < full; ++k) update(b, 0, b.cols);
    if (partial_cols > 0) update(b, 0, partial_cols);
    if (full == 0) update(b, partial_cols, b.cols);  // the generation itself is always complete
    compute[static_cast<std::size_t>(it)] = cpu_now() - c0;
    std::swap(b.cur, b.next);
    MPI_Barrier(MPI_COMM_WORLD);
    wall[static_cast<std::size_t>(it)] = MPI_Wtime() - t0;
  }
  std::int64_t live = 0;
  for (int i = 1; i <= b.rows; ++i)
    for (int j = 1; j <= b.cols; ++j) live += b.at(b.cur, i, j);
  std::int64_t live_all = 0;
  MPI_Reduce(&live, &live_all, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

  // Mean over generations 2..iters (the first warms caches and pages).
  const auto mean_tail = [&](const std::vector<double>& v) {
    return std::accumulate(v.begin() + 1, v.end(), 0.0) / static_cast<double>(v.size() - 1);
  };
  const double my_compute = mean_tail(compute);
  std::vector<double> all_compute(static_cast<std::size_t>(size));
  MPI_Gather(&my_compute, 1, MPI_DOUBLE, all_compute.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<double> max_compute(static_cast<std::size_t>(iters));
  MPI_Reduce(compute.data(), max_compute.data(), iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Type_free(&column);

  if (rank == 0) {
    json out;
    out["label"] = label;
    out["grid"] = std::to_string(p) + "x" + std::to_string(q);
    out["rows"] = rows;
    out["cols"] = cols;
    out["powers"] = powers;
    out["R"] = R;
    out["iters"] = iters;
    out["compute_s_by_rank"] = all_compute;  // mean per generation, dedicated-core time
    out["dedicated_s"] = mean_tail(max_compute);
    out["wall_s"] = mean_tail(wall);
    double pred = 0;
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < q; ++j)
        pred = std::max(pred, static_cast<double>(rows[static_cast<std::size_t>(i)]) * cols[static_cast<std::size_t>(j)] /
                                  powers[static_cast<std::size_t>(i * q + j)]);
    out["t_th_units"] = pred;  // max rows*cols/PP, the thesis's T_Th without its factor
    out["live_cells"] = live_all;
    if (json_path == "-") {
      std::cout << out.dump(1) << "\n";
    } else {
      std::ofstream f(json_path);
      f << out.dump(1) << "\n";
    }
  }
  MPI_Finalize();
  return 0;
}
