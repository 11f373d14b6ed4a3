// SPDX-License-Identifier: BSD-3-Clause
// Timing helpers shared by resize's benchmarks (levels_bench, levels_recover_bench).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace resize_bench {

// Seconds `f` took on the slowest rank of `comm`, started together (collective).
template <class F>
double timed(MPI_Comm comm, F&& f) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  f();
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest;
}

// The median (the upper one of an even count); 0 for none.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace resize_bench
