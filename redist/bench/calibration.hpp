// SPDX-License-Identifier: BSD-3-Clause
// Measuring and fitting the cost model's parameters (cost_model.hpp) on this machine, the
// MPI side of SUIF-Adapt's "isolated experiments determine the cost per event" (§4): ping-pong
// of a few sizes, memcpy, and a few small redistributions, fitted by least squares. Shared
// by malleable-calibrate, the validation benchmark and the MPI test; not installed.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/redistribute.hpp"
#include "local_part.hpp"

namespace redist::calib {

struct Grid {
  int r = 1, c = 1;
  int size() const { return r * c; }
};
Grid parse_grid(const std::string& s);  // "RxC"
// Ranks of the new grid, row-major. Old processes are ranks 0..o.size()-1, row-major in
// the old grid; added processes follow. Global orders the new grid by rank (the PDGEMR2D
// case, the thesis §4.2); Local1/Local2 keep every old process in its old row and column
// (§4.3), Local2 interspersing the new lines (§4.5).
std::vector<int> placement(const std::string& kind, Grid o, Grid n);

// The slowest rank's time (collective over comm).
double max_over(MPI_Comm comm, double t);
// A barrier that waits without spinning (polls every poll_us microseconds), so
// oversubscribed idle ranks leave the cores to the measured ones.
void sleepy_barrier(MPI_Comm comm, int poll_us = 2000);
// For a case that needs P processes: world ranks 0..P-1 as a communicator. The other
// ranks get MPI_COMM_NULL after waiting, without spinning on the shared cores, at the
// world's sleepy barrier (500 us polls) with which the case's ranks end the case.
MPI_Comm case_comm(int P, int wrank);
// This rank's column-major piece of an N x N double matrix in layout l (empty off the
// grid), filled with a rank-dependent pattern when `fill`.
using Local = bench::LocalPart;
Local allocate(const Layout& l, int rank, bool fill);

// One redistribution as the redist case builds it: an N x N double matrix from grid `from`
// (ranks 0..from.size()-1, row-major) to grid `to` with the new processes placed Global,
// Local1 or Local2 (thesis §4.2-§4.5), one block per process row/column.
struct Case {
  Grid from, to;
  std::int64_t n = 0;
  std::string placement = "global";
  ScheduleKind schedule = ScheduleKind::AllAtOnce;
  int ranks() const { return std::max(from.size(), to.size()); }
  std::string label() const;
};
Layout source_layout(const Case& c);
Layout target_layout(const Case& c);
RedistPlan plan_of(const Case& c);

// Collective over `world`: ranks >= c.ranks() sleep meanwhile. Times `reps` runs of the
// redistribution (each: barrier, redistribute, slowest rank's time) after `warmups`
// untimed ones and returns them on every rank, in run order.
std::vector<double> time_case(MPI_Comm world, const Case& c, int reps, int warmups = 1);
// Times every case `reps` times, interleaved: round r runs each case once (one untimed
// run before it in the first round only), so a burst of load from other jobs hits one run of many
// cases rather than every run of a few; the median over the rounds then drops it.
// result[i] = case i's runs. Collective over `world`.
std::vector<std::vector<double>> time_cases(MPI_Comm world, const std::vector<Case>& cases, int reps);

double median(std::vector<double> v);
// "median" or "min" of the runs (Options::statistic); throws on another name.
double statistic(const std::string& name, const std::vector<double>& runs);
// Relative spread of repeated runs: (75th - 25th percentile) / median.
double relative_iqr(std::vector<double> v);
// The p-th quantile (0..1) by linear interpolation; 0 for an empty vector.
double quantile(std::vector<double> v, double p);

struct Options {
  // Latency, and a size well past the caches: the model is linear in bytes, so it is
  // calibrated where resizes live, on matrices streaming from memory (a buffer that stays
  // in this EPYC's L3 copies 2-3x faster and would pull the per-byte cost down).
  std::vector<std::int64_t> pingpong_bytes{8, 64 << 20};
  std::vector<std::int64_t> copy_bytes{64 << 20, 256 << 20};
  // Weight of the micro-benchmark rows beside the redistributions in the fit (relative
  // errors). They pin the costs the redistributions barely show (latency, memcpy) but
  // measure an ideal case (one pair, contiguous buffers), so the redistributions lead.
  double micro_weight = 0.3;
  std::vector<Case> cases;  // empty: default_cases(world size)
  int reps = 7;             // per measurement; `statistic` of the runs is fitted
  // "median" (default), or "min": the fastest run, the time on the machine without the
  // other jobs' load (steadier when they come in bursts; predictions then mean that too).
  std::string statistic = "median";
  bool verbose = true;      // rank 0 prints what it measured and fitted
};
// Redistributions like the cost case's on up to `world` ranks, at sizes it does not use
// (so that its cases stay held out): 1x2 -> 2x2, 2x2 -> 3x3, 3x3 -> 4x4, 4x4 -> 5x5 where
// they fit, N = 3000 and 6000 (past the caches), each change in six (N, placement,
// schedule) combinations covering the three placements and four schedules at both sizes.
std::vector<Case> default_cases(int world);

struct Calibration {
  CostParams params;
  std::string record_json;  // what was measured and fitted (the file's "calibration")
  double rms_relative_residual = 0;   // over every measurement
  double rms_redistribution_residual = 0;  // over the redistributions only
  // |fitted - measured| / measured over the fitted redistributions (training error).
  std::vector<double> redistribution_errors;
};
// Collective over `world` (>= 2 ranks). Rank 0's hostnames decide within/between nodes;
// the between-node costs are measured only when some rank sits on another host, otherwise
// they are set to the within-node ones and inter_node_measured = false.
Calibration calibrate(MPI_Comm world, const Options& opt);
// The same, and also times `held_out` (not fitted) in the same interleaved rounds as the
// calibration's redistributions, so that both see the same machine load: *held_out_runs
// receives each case's runs (opt.reps of them), on every rank.
Calibration calibrate(MPI_Comm world, const Options& opt, const std::vector<Case>& held_out,
                      std::vector<std::vector<double>>* held_out_runs);
// One measurement, one fit per statistic ("median", "min"; opt.statistic is ignored).
std::vector<Calibration> calibrate_each(MPI_Comm world, const Options& opt, const std::vector<std::string>& statistics,
                                        const std::vector<Case>& held_out,
                                        std::vector<std::vector<double>>* held_out_runs);

}  // namespace redist::calib
