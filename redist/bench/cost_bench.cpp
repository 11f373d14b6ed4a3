// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench cost: the cost model's predictions (cost_model.hpp) against measured
// redistributions, over the redist case's (grid expansions, Global/Local1/Local2
// placement, every schedule, one block per process row/column). Prints predicted and
// measured time (median, or --statistic min, of --reps runs, with their spread) and the relative error per
// case, then the median, 90th percentile and maximum absolute error (the target:
// median <= 15% on this machine).
//
//   mpiexec --oversubscribe --bind-to none -n 25 malleable-redist-bench cost --calibrate --n 4000,8000
//
// --calibrate fits the parameters in the same run first, on malleable-calibrate's cases
// (sizes 3000 and 6000: the cases evaluated here stay held out), measuring the fitted and
// the evaluated redistributions in the same interleaved rounds so that both see the same
// machine load; it reports the error on both (training and held out). Otherwise the
// parameters are read from --model (default: the malleable-calibrate cache) and the cases
// are measured in interleaved rounds alone. --statistic both fits and compares twice from
// the same runs, on their median and on their minimum (--json FILE, FILE.min.json).
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench_cli.hpp"
#include "calibration.hpp"

using redist::calib::Case;
namespace calib = redist::calib;

namespace {

nlohmann::json summary(const std::vector<double>& abs_errors) {
  std::size_t within = 0;
  for (double e : abs_errors) within += e <= 0.15 ? 1 : 0;
  return {{"cases", abs_errors.size()},
          {"median", calib::median(abs_errors)},
          {"p90", calib::quantile(abs_errors, 0.9)},
          {"max", abs_errors.empty() ? 0.0 : *std::max_element(abs_errors.begin(), abs_errors.end())},
          {"within_15pct", within}};
}

void print_summary(const char* what, const nlohmann::json& s) {
  std::printf("# %s: median |error| %.1f%%, p90 %.1f%%, max %.1f%% over %zu cases; %zu within 15%%\n", what,
              100 * s["median"].get<double>(), 100 * s["p90"].get<double>(), 100 * s["max"].get<double>(),
              s["cases"].get<std::size_t>(), s["within_15pct"].get<std::size_t>());
}

}  // namespace

namespace redist::bench {
int case_cost(int wrank, int world, int argc, char** argv) {
  CLI::App app{"redist cost model: predicted vs measured redistribution time"};
  std::vector<std::int64_t> sizes{2000, 4000, 8000};
  std::vector<std::string> changes{"2x2:3x3", "3x3:4x4", "4x4:5x5"};
  std::vector<std::string> placements{"global", "local1", "local2"};
  std::vector<std::string> schedules{"allatonce", "matching", "circulant", "caterpillar"};
  std::string model_path = redist::default_cost_model_path(), json_path, save_path;
  int reps = 5;
  bool calibrate = false;
  calib::Options cal_opt;
  app.add_option("--n", sizes, "matrix orders")->delimiter(',');
  app.add_option("--changes", changes, "grid changes old:new")->delimiter(',');
  app.add_option("--placements", placements, "global, local1, local2")->delimiter(',');
  app.add_option("--schedules", schedules, "caterpillar, circulant, matching, allatonce")->delimiter(',');
  app.add_option("--reps", reps, "runs per case (interleaved rounds); the median is compared")
      ->check(CLI::Range(1, 1000));
  std::string statistic = "median";
  app.add_option("--statistic", statistic,
                 "median or min of each case's runs, fitted and compared; both: two fits of the same runs")
      ->check(CLI::IsMember({"median", "min", "both"}));
  app.add_option("--model", model_path, "cost model file (default: " + model_path + ")");
  app.add_flag("--calibrate", calibrate, "fit the parameters in this run first (not written unless --save)");
  app.add_option("--save", save_path, "with --calibrate: also write the (first statistic's) fitted parameters here");
  app.add_option("--json", json_path, "write every case to this JSON file (other statistics: FILE.<statistic>.json)");
  if (const auto rc = redist::calib::parse_or_exit(app, argc, argv, wrank)) return *rc;

  int rc = 0;
  try {
    std::vector<Case> cases;
    std::vector<std::string> change_of;
    for (const auto& change : changes) {
      const auto colon = change.find(':');
      if (colon == std::string::npos) throw std::runtime_error("change \"" + change + "\" is not old:new");
      const auto from = calib::parse_grid(change.substr(0, colon));
      const auto to = calib::parse_grid(change.substr(colon + 1));
      for (const auto n : sizes)
        for (const auto& place : placements)
          for (const auto& sched : schedules) {
            const Case c{from, to, n, place, redist::parse_schedule(sched)};
            if (c.ranks() > world) {
              if (wrank == 0) std::printf("# skipping %s: needs %d ranks\n", c.label().c_str(), c.ranks());
              continue;
            }
            cases.push_back(c);
            change_of.push_back(change);
          }
    }

    const double t_start = MPI_Wtime();
    const std::vector<std::string> stats =
        statistic == "both" ? std::vector<std::string>{"median", "min"} : std::vector<std::string>{statistic};
    std::vector<redist::CostParams> params;
    std::string source = model_path;
    std::vector<std::vector<double>> runs;
    std::vector<nlohmann::json> training, calibration_record;
    if (calibrate) {
      cal_opt.reps = reps;
      const auto cals = calib::calibrate_each(MPI_COMM_WORLD, cal_opt, stats, cases, &runs);
      source = "calibrated in this run";
      for (std::size_t k = 0; k < cals.size(); ++k) {
        params.push_back(cals[k].params);
        training.push_back(summary(cals[k].redistribution_errors));
        calibration_record.push_back(nlohmann::json::parse(cals[k].record_json));
      }
      if (wrank == 0 && !save_path.empty()) redist::save_cost_params(params[0], save_path, cals[0].record_json);
    } else {
      params.assign(stats.size(), redist::load_cost_params(model_path));
      training.assign(stats.size(), nullptr);
      calibration_record.assign(stats.size(), nullptr);
      runs = calib::time_cases(MPI_COMM_WORLD, cases, reps);
    }

    for (std::size_t k = 0; k < stats.size(); ++k) {
      const std::string& stat = stats[k];
      nlohmann::json results = nlohmann::json::array();
      std::vector<double> errors;
      if (wrank == 0) {
        std::printf("# %d MPI ranks; cost model: %s; %s of %d interleaved runs per case\n", world, source.c_str(),
                    stat.c_str(), reps);
        std::printf("%6s %8s %7s %-12s %9s %6s %6s %11s %11s %8s %6s %15s\n", "N", "change", "place", "schedule",
                    "moved_MiB", "steps", "msgs", "predicted_s", "measured_s", "error", "iqr", "min..max_s");
      }
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        const auto plan = calib::plan_of(c);
        const auto pred = redist::predict(params[k], plan, sizeof(double));
        const auto& t = runs[i];
        const double measured = calib::statistic(stat, t), spread = calib::relative_iqr(t);
        const double lo = *std::min_element(t.begin(), t.end()), hi = *std::max_element(t.begin(), t.end());
        const double err = (pred.total_s - measured) / measured;
        errors.push_back(std::abs(err));
        if (wrank == 0) {
          std::printf("%6lld %8s %7s %-12s %9.1f %6d %6lld %11.5f %11.5f %+7.1f%% %5.1f%% %7.4f..%.4f\n",
                      static_cast<long long>(c.n), change_of[i].c_str(), c.placement.c_str(), to_string(c.schedule),
                      static_cast<double>(plan.stats.elements_moved) * 8 / 1048576.0, static_cast<int>(plan.steps.size()),
                      static_cast<long long>(plan.stats.messages), pred.total_s, measured, 100 * err, 100 * spread,
                      lo, hi);
          results.push_back({{"n", c.n}, {"change", change_of[i]}, {"placement", c.placement},
                             {"schedule", to_string(c.schedule)}, {"ranks", c.ranks()},
                             {"moved_bytes", plan.stats.elements_moved * 8}, {"steps", plan.steps.size()},
                             {"messages", plan.stats.messages}, {"predicted_s", pred.total_s},
                             {"measured_s", measured}, {"runs_s", t}, {"min_s", lo}, {"max_s", hi},
                             {"q25_s", calib::quantile(t, 0.25)}, {"q75_s", calib::quantile(t, 0.75)},
                             {"relative_error", err}, {"relative_iqr", spread}, {"share", pred.share},
                             {"node_bound", pred.node_bound}, {"step_bound", pred.step_bound},
                             {"sleeping", pred.sleeping}, {"spinning", pred.spinning}});
        }
      }
      const auto held_out = summary(errors);
      if (wrank == 0) {
        std::fflush(stdout);
        const std::string tag = " [" + stat + "]";
        if (!training[k].is_null())
          print_summary(("training (the calibration's own redistributions)" + tag).c_str(), training[k]);
        print_summary(("held out (the cases above)" + tag).c_str(), held_out);
        if (!json_path.empty()) {
          char host[256] = {};
          gethostname(host, sizeof host - 1);
          const std::time_t now = std::time(nullptr);
          char date[32];
          std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
          double load[3] = {0, 0, 0};
          if (getloadavg(load, 3) < 0) load[0] = load[1] = load[2] = -1;
          nlohmann::json doc{{"ranks", world},
                             {"host", host},
                             {"cpus", std::thread::hardware_concurrency()},
                             {"date", date},
                             {"load_average_at_end", {load[0], load[1], load[2]}},
                             {"reps", reps},
                             {"statistic", stat + " of interleaved runs"},
                             {"model", source},
                             {"params", nlohmann::json::parse(redist::cost_params_to_json(params[k]))},
                             {"calibration", calibration_record[k]},
                             {"cases", results},
                             {"held_out", held_out},
                             {"training", training[k]},
                             {"median_abs_relative_error", held_out["median"]}};
          // The first statistic goes to --json, the others beside it: run1.json, run1.min.json.
          std::string path = json_path;
          if (k > 0) {
            const auto dot = path.rfind(".json");
            path = (dot == std::string::npos ? path : path.substr(0, dot)) + "." + stat + ".json";
          }
          std::ofstream(path) << doc.dump(2) << "\n";
        }
      }
    }
    if (wrank == 0) std::printf("# %.0f s\n", MPI_Wtime() - t_start);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cost: rank %d: %s\n", wrank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
}  // namespace redist::bench
