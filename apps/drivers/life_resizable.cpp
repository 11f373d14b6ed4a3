// SPDX-License-Identifier: BSD-3-Clause
// Resizable Game of Life (thesis §3.7.4): the board is block-distributed (one block per
// process, ScaLAPACK DESC with MB = ceil(N/P), NB = ceil(N/Q)), each generation exchanges
// the 8-neighbour halo and updates. Checked cell by cell against a serial run: the
// result must be identical whatever grids the job went through.
//
// --seed 0 lets world rank 0 pick the initial board's seed at run time; the processes
// spawned by an expansion cannot read it from their command line and receive it with
// the session's application state (Session::set_app_state).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "driver.hpp"
#include "life_kernel.hpp"

int main(int argc, char** argv) {
  apps::CommonOptions o = apps::start(argc, argv, 240, 64, 10);  // MPI_THREAD_MULTIPLE with --background
  resize::Matrix<double> cells;  // the board, 0.0 or 1.0 (the session's, moved at every resize)
  int work = 1;
  int seed = 7;
  apps::DriverHooks h;
  h.name = "life";
  h.problem = [&] {
    return "N=" + std::to_string(o.n) + " work x" + std::to_string(work) + " seed " + std::to_string(seed);
  };
  h.setup = [&](resize::Session& s) {
    s.set_app_state(
        [&] {
          std::vector<char> b(sizeof seed);
          std::memcpy(b.data(), &seed, sizeof seed);
          return b;
        },
        [&](const std::vector<char>& b) {
          if (b.size() != sizeof seed) throw resize::Error("life: application state of unexpected size");
          std::memcpy(&seed, b.data(), sizeof seed);
        });
    cells = s.register_matrix<double>("board", o.n, o.n, 1, 1, resize::Distribution::Block);
  };
  h.init = [&](resize::Session& s) {
    if (seed == 0) {  // chosen at run time by world rank 0, known to the originals by a broadcast
      const auto now = std::chrono::system_clock::now().time_since_epoch();
      seed = 1 + static_cast<int>(std::chrono::duration_cast<std::chrono::microseconds>(now).count() % 1000000);
      MPI_Bcast(&seed, 1, MPI_INT, 0, s.world());
    }
    cells.for_each_local([&](int i, int j, double& v) { v = apps::life_initial(i, j, seed); });
  };
  h.iterate = [&](resize::Session& s) {
    if (!s.in_grid()) return;
    apps::LifeBlocks b;
    b.row_start = apps::uniform_starts(o.n, s.grid().nprow);
    b.col_start = apps::uniform_starts(o.n, s.grid().npcol);
    b.grid = s.grid();
    b.myrow = s.myrow();
    b.mycol = s.mycol();
    apps::life_step(s.world(), b, cells.data(), cells.lld(), work);
  };
  h.check = [&](resize::Session& s) {
    const int n = o.n;
    std::vector<std::uint8_t> board(static_cast<std::size_t>(n) * n);
    if (s.world_rank() == 0) {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) board[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n] = apps::life_initial(i, j, seed);
      apps::life_serial(board, n, s.iteration());
    }
    MPI_Bcast(board.data(), n * n, MPI_UINT8_T, 0, s.world());
    long long bad = 0, alive = 0;
    cells.for_each_local([&](int i, int j, const double& v) {
      alive += v != 0.0;
      bad += v != board[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n];
    });
    long long loc[2] = {bad, alive}, tot[2] = {0, 0};
    MPI_Allreduce(loc, tot, 2, MPI_LONG_LONG, MPI_SUM, s.world());
    // Every process, spawned ones included, must hold the run's seed.
    int seeds[2] = {seed, -seed}, agree[2] = {0, 0};
    MPI_Allreduce(seeds, agree, 2, MPI_INT, MPI_MAX, s.world());
    const bool same_seed = agree[0] == -agree[1];
    const bool ok = tot[0] == 0 && same_seed;
    char msg[200];
    std::snprintf(msg, sizeof msg,
                  "generation %d: %lld live cells, %lld cells differ from the serial run; seed %s on every "
                  "process: %s",
                  s.iteration(), tot[1], tot[0], same_seed ? "the same" : "NOT the same", ok ? "OK" : "FAILED");
    return apps::Check{ok, msg};
  };
  const int rc = apps::run_driver(argc, argv, o, [&](void* app) {
    auto* cli = static_cast<CLI::App*>(app);
    cli->add_option("--work", work, "repeat each local update this many times");
    cli->add_option("--seed", seed, "initial board seed (0: chosen at run time by rank 0)");
  }, h);
  MPI_Finalize();
  return rc;
}
