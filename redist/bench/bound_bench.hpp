// SPDX-License-Identifier: BSD-3-Clause
// What malleable-redist-bench's cases against a bound share (bound_bench.cpp defines them):
// the grid changes they sweep, the load average, the slowest rank's time of an arm, an
// arm's repetitions (best and median) and every rank's kept and moved bytes, from which
// malleable/redist/bound.hpp's bound_seconds gives the bound of a redistribution.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "calibration.hpp"
#include "malleable/redist/layout.hpp"

namespace redist::bench::bound {

// "NB@RxC:NB@RxC": A's square blocks and grid, then B's; throws std::runtime_error.
struct Change {
  int nba = 64, nbb = 64;
  redist::calib::Grid ga, gb;
  std::string text;
};
Change parse_change(const std::string& t);

// The 1-minute load average (/proc/loadavg), -1 if unread.
double load_average();

// The slowest rank's seconds of f(), all ranks of comm starting together.
template <class F>
double timed(MPI_Comm comm, F&& f) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  f();
  return redist::calib::max_over(comm, MPI_Wtime() - t0);
}

// Every repetition's time of an arm (the slowest rank's): best and median reported.
struct Times {
  std::vector<double> t;
  void add(double x) { t.push_back(x); }
  double best() const { return t.empty() ? 1e30 : *std::min_element(t.begin(), t.end()); }
  double median() const { return t.empty() ? 1e30 : redist::calib::median(t); }
};

// Bytes per rank of redistributing the whole N x N double matrix from a to b on P ranks:
// kept[r] stays on rank r (copied from its old array into its new one), moved[r] is the
// larger of what r sends and receives.
void kept_moved(const Layout& a, const Layout& b, int P, std::vector<double>& kept, std::vector<double>& moved);

}  // namespace redist::bench::bound
