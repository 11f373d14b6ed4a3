// redist_cost_bench: the cost model's predictions (cost_model.hpp) against measured
// redistributions, over redist_bench's cases (grid expansions, Global/Local1/Local2
// placement, every schedule, one block per process row/column). Prints predicted and
// measured time and the relative error per case, then the median absolute error
// (issue 13 §2 target: <= 15% on this machine).
//
//   mpiexec --oversubscribe --bind-to none -n 25 redist_cost_bench --calibrate --n 2000,4000,8000
//
// --calibrate fits the parameters in the same run first (ratios from one run on a shared
// machine); otherwise they are read from --model (default: the malleable-calibrate cache).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "calibration.hpp"

using redist::calib::Case;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world = 0, wrank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);

  CLI::App app{"redist cost model: predicted vs measured redistribution time"};
  std::vector<std::int64_t> sizes{2000, 4000, 8000};
  std::vector<std::string> changes{"2x2:3x3", "3x3:4x4", "4x4:5x5"};
  std::vector<std::string> placements{"global", "local1", "local2"};
  std::vector<std::string> schedules{"allatonce", "matching", "circulant", "caterpillar"};
  std::string model_path = redist::default_cost_model_path(), json_path, save_path;
  int reps = 5;
  bool calibrate = false;
  redist::calib::Options cal_opt;
  app.add_option("--n", sizes, "matrix orders")->delimiter(',');
  app.add_option("--changes", changes, "grid changes old:new")->delimiter(',');
  app.add_option("--placements", placements, "global, local1, local2")->delimiter(',');
  app.add_option("--schedules", schedules, "caterpillar, circulant, matching, allatonce")->delimiter(',');
  app.add_option("--reps", reps, "runs per case; the median is compared")->check(CLI::Range(1, 1000));
  app.add_option("--model", model_path, "cost model file (default: " + model_path + ")");
  app.add_flag("--calibrate", calibrate, "fit the parameters in this run first (not written unless --save)");
  app.add_option("--cal-reps", cal_opt.reps, "runs per calibration measurement");
  app.add_option("--save", save_path, "with --calibrate: also write the fitted parameters here");
  app.add_option("--json", json_path, "write every case to this JSON file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = wrank == 0 ? app.exit(e) : 0;
    MPI_Finalize();
    return rc;
  }

  int rc = 0;
  try {
    redist::CostParams params;
    std::string source = model_path;
    if (calibrate) {
      const auto cal = redist::calib::calibrate(MPI_COMM_WORLD, cal_opt);
      params = cal.params;
      source = "calibrated in this run";
      if (wrank == 0 && !save_path.empty()) redist::save_cost_params(params, save_path, cal.record_json);
    } else {
      params = redist::load_cost_params(model_path);
    }
    if (wrank == 0) {
      std::printf("# %d MPI ranks; cost model: %s; median of %d runs per case\n", world, source.c_str(), reps);
      std::printf("%6s %8s %7s %-12s %9s %6s %6s %11s %11s %8s %6s\n", "N", "change", "place", "schedule", "moved_MB",
                  "steps", "msgs", "predicted_s", "measured_s", "error", "iqr");
    }
    nlohmann::json results = nlohmann::json::array();
    std::vector<double> errors;
    for (const auto& change : changes) {
      const auto colon = change.find(':');
      if (colon == std::string::npos) throw std::runtime_error("change \"" + change + "\" is not old:new");
      const auto from = redist::calib::parse_grid(change.substr(0, colon));
      const auto to = redist::calib::parse_grid(change.substr(colon + 1));
      for (const auto n : sizes)
        for (const auto& place : placements)
          for (const auto& sched : schedules) {
            const Case c{from, to, n, place, redist::parse_schedule(sched)};
            if (c.ranks() > world) {
              if (wrank == 0) std::printf("# skipping %s: needs %d ranks\n", c.label().c_str(), c.ranks());
              continue;
            }
            const auto plan = redist::calib::plan_of(c);
            const auto pred = redist::predict(params, plan, sizeof(double));
            const auto t = redist::calib::time_case(MPI_COMM_WORLD, c, reps);
            const double measured = redist::calib::median(t), spread = redist::calib::relative_iqr(t);
            const double err = (pred.total_s - measured) / measured;
            errors.push_back(std::abs(err));
            if (wrank == 0) {
              std::printf("%6lld %8s %7s %-12s %9.1f %6d %6lld %11.5f %11.5f %+7.1f%% %5.1f%%\n",
                          static_cast<long long>(n), change.c_str(), place.c_str(), sched.c_str(),
                          static_cast<double>(plan.stats.elements_moved) * 8e-6, static_cast<int>(plan.steps.size()),
                          static_cast<long long>(plan.stats.messages), pred.total_s, measured, 100 * err,
                          100 * spread);
              std::fflush(stdout);
              results.push_back({{"n", n}, {"change", change}, {"placement", place}, {"schedule", sched},
                                 {"ranks", c.ranks()}, {"moved_bytes", plan.stats.elements_moved * 8},
                                 {"steps", plan.steps.size()}, {"messages", plan.stats.messages},
                                 {"predicted_s", pred.total_s}, {"measured_s", measured}, {"runs_s", t},
                                 {"relative_error", err}, {"relative_iqr", spread},
                                 {"share", pred.share}, {"node_bound", pred.node_bound}});
            }
          }
    }
    const double med = redist::calib::median(errors);
    std::size_t within = 0;
    for (double e : errors) within += e <= 0.15 ? 1 : 0;
    if (wrank == 0) {
      std::printf("# median |error| %.1f%% over %zu cases; %zu within 15%%\n", 100 * med, errors.size(), within);
      if (!json_path.empty()) {
        nlohmann::json doc{{"ranks", world}, {"model", source}, {"params", nlohmann::json::parse(redist::cost_params_to_json(params))},
                           {"cases", results}, {"median_abs_relative_error", med}};
        std::ofstream(json_path) << doc.dump(2) << "\n";
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redist_cost_bench: rank %d: %s\n", wrank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
