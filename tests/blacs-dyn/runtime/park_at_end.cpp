// SPDX-License-Identifier: BSD-3-Clause
// A spawned process parked while a sibling stays is released at MPI_Finalize: rank 0,
// the active sibling and the parked one disconnect the group's spawn link together and
// the job ends normally. 2 -> 4 (group {2, 3}); keep ranks {0, 1, 2}: id 3 parks.
#include <mpi.h>

#include <cstdio>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (!blacs_dyn_is_new() && blacs_dyn_expand(2, argv[0], nullptr, nullptr, MPI_INFO_NULL) != BLACS_DYN_OK) {
    std::fprintf(stderr, "expand: %s\n", blacs_dyn_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int keep[] = {0, 1, 2};
  int leaving = 0;
  if (blacs_dyn_shrink_to_ranks(keep, 3, &leaving) != BLACS_DYN_OK) {
    std::fprintf(stderr, "shrink: %s\n", blacs_dyn_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (leaving) {
    if (blacs_dyn_leaving() != 2) std::printf("FAILED: the half-group member should park\n");
    blacs_dyn_leave();
  }
  const auto r = blacs_dyn_test::pdgemm_on_world(36, 6);
  int active = 0, parked = 0, exited = 0;
  blacs_dyn_process_counts(&active, &parked, &exited);
  const bool ok = r.ok && r.np == 3 && active == 3 && parked == 1 && exited == 0;
  if (blacs_dyn_rank() == 0) std::printf("world %d, %d parked: %s\n", r.np, parked, ok ? "PASS" : "FAILED");
  std::fflush(stdout);
  MPI_Finalize();
  return ok ? 0 : 1;
}
