// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by resize's benchmarks (checkpoint_bench, levels_bench,
// levels_recover_bench): a quiet session's options and the timing.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "malleable/resize/session.hpp"

namespace resize_bench {

// A benchmark's session, named `app`: no progress printed, its resize history in memory only.
inline resize::SessionOptions quiet_options(const char* app) {
  resize::SessionOptions o;
  o.app = app;
  o.progress = false;
  o.persist_history = false;
  return o;
}

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
