// SPDX-License-Identifier: BSD-3-Clause
// Internal: waiting for MPI without Open MPI's busy polling. A process that waits in a
// blocking call spins on its core; on an oversubscribed node (and in a background
// resize, beside the compute) that core is someone else's. These wait with sleeps that
// back off from `first` to `cap` seconds.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace resize::detail {

// Waits until done() is true; returns the seconds waited.
template <class Done>
double sleep_until(Done&& done, double first = 5e-4, double cap = 20e-3) {
  const double t0 = MPI_Wtime();
  double nap = first;
  while (!done()) {
    std::this_thread::sleep_for(std::chrono::duration<double>(nap));
    nap = std::min(cap, nap * 2);
  }
  return MPI_Wtime() - t0;
}

// Waits for one request (MPI_Test between the sleeps); returns the seconds waited.
inline double sleep_wait(MPI_Request& req, double first = 5e-4, double cap = 20e-3) {
  return sleep_until(
      [&] {
        int flag = 0;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        return flag != 0;
      },
      first, cap);
}

}  // namespace resize::detail
