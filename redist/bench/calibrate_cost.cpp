// SPDX-License-Identifier: BSD-3-Clause
// malleable-calibrate: measures this machine's per-event redistribution costs (ping-pong,
// memcpy, a few small redistributions), fits the cost model's parameters
// (cost_model.hpp) and writes them to the cache file, printing what it measured.
//
//   mpiexec --oversubscribe --bind-to none -n 9 malleable-calibrate [--out path] [--reps 7]
//
// Default file: $REDIST_COST_MODEL, else $XDG_CACHE_HOME/malleable/cost_model.json,
// else ~/.cache/malleable/cost_model.json. Run it with as many ranks as the largest grid
// you resize to fit (9 here: 1x2->2x2 and 2x2->3x3 are measured) — well under a minute.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "bench_cli.hpp"
#include "calibration.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int wrank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  CLI::App app{"malleable-calibrate: fit the redistribution cost model on this machine"};
  std::string out = redist::default_cost_model_path();
  redist::calib::Options opt;
  bool dry = false;
  app.add_option("--out", out, "where to write the parameters (default: " + out + ")");
  app.add_option("--reps", opt.reps, "runs per measurement; the median is fitted")->check(CLI::Range(1, 1000));
  app.add_option("--statistic", opt.statistic, "median or min of each measurement's runs is fitted")
      ->check(CLI::IsMember({"median", "min"}));
  app.add_option("--pingpong-bytes", opt.pingpong_bytes, "ping-pong message sizes")->delimiter(',');
  app.add_option("--micro-weight", opt.micro_weight, "weight of ping-pong/memcpy rows beside redistributions")
      ->check(CLI::Range(0.0, 100.0));
  app.add_flag("--dry-run", dry, "measure and print, write nothing");
  if (const auto rc = redist::calib::parse_or_exit(app, argc, argv, wrank)) return *rc;
  int rc = 0;
  try {
    const double t0 = MPI_Wtime();
    const auto cal = redist::calib::calibrate(MPI_COMM_WORLD, opt);
    if (wrank == 0) {
      // A rough flag only (docs/reference/redist.md, "Predicting redistribution time"): a load burst
      // during calibration shows as a fit that misses its own redistributions.
      if (cal.rms_redistribution_residual > 0.25)
        std::printf("warning: the fit misses its own redistributions by %.0f%% (rms): the machine was probably "
                    "busy; run again when it is quieter\n",
                    100 * cal.rms_redistribution_residual);
      if (!dry) {
        redist::save_cost_params(cal.params, out, cal.record_json);
        std::printf("wrote %s (%.1f s)\n", out.c_str(), MPI_Wtime() - t0);
      } else {
        std::printf("dry run: nothing written (%.1f s)\n", MPI_Wtime() - t0);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "malleable-calibrate: rank %d: %s\n", wrank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
