// SPDX-License-Identifier: BSD-3-Clause
// Expand 2 -> 4 -> 6 -> 9 and shrink 9 -> 6 -> 4 -> 2, with PDGEMM on the current grid
// checked against serial OpenBLAS after every step. The same binary is the spawned
// executable: a newcomer joins inside MPI_Init and learns the step from rank 0 through
// blacs_dyn_share_state, so it continues at the same point of the loop.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"

namespace {
const int kSizes[] = {2, 4, 6, 9, 6, 4, 2};
constexpr int kSteps = 7;

int fail(const char* what, int rc) {
  std::fprintf(stderr, "rank %d: %s failed: %s: %s\n", blacs_dyn_rank(), what, blacs_dyn_status_string(rc),
               blacs_dyn_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int step = 0;
  if (blacs_dyn_is_new()) {
    size_t len = sizeof step;
    if (int rc = blacs_dyn_share_state(&step, &len, sizeof step)) return fail("blacs_dyn_share_state", rc);
    blacs_dyn_clear_new();
  }
  bool all_ok = true;
  for (;; ++step) {
    const auto r = blacs_dyn_test::pdgemm_on_world(64, 8);
    int depth = blacs_dyn_depth(), nprow = 0, npcol = 0;
    blacs_dyn_level_grid(depth - 1, &nprow, &npcol);
    const bool size_ok = r.np == kSizes[step] && blacs_dyn_size() == kSizes[step];
    const bool grid_ok = nprow == r.nprow && npcol == r.npcol;
    if (blacs_dyn_rank() == 0)
      std::printf("step %d: world %d (expected %d), depth %d, grid %dx%d (stack says %dx%d), "
                  "PDGEMM max error %.2e %s\n",
                  step, r.np, kSizes[step], depth, r.nprow, r.npcol, nprow, npcol, r.maxerr,
                  r.ok && size_ok && grid_ok ? "ok" : "FAILED");
    all_ok = all_ok && r.ok && size_ok && grid_ok;
    if (step + 1 == kSteps) break;
    const int next = kSizes[step + 1];
    if (next > kSizes[step]) {
      char child_arg[] = "child";
      char* cargv[] = {child_arg, nullptr};
      if (int rc = blacs_dyn_expand(next - kSizes[step], argv[0], cargv, nullptr, MPI_INFO_NULL))
        return fail("blacs_dyn_expand", rc);
      int s = step + 1;
      size_t len = sizeof s;
      if (int rc = blacs_dyn_share_state(&s, &len, sizeof s)) return fail("blacs_dyn_share_state", rc);
    } else {
      // Pop back to the level that had that size: 9 -> level 2, 6 -> level 1, 4 -> level 0.
      int leaving = 0;
      if (int rc = blacs_dyn_shrink_to_level(blacs_dyn_depth() - 2, &leaving))
        return fail("blacs_dyn_shrink_to_level", rc);
      if (leaving) {
        if (blacs_dyn_leaving() != 1) {
          std::fprintf(stderr, "a popped spawned group should exit, leaving mode is %d\n",
                       blacs_dyn_leaving());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        blacs_dyn_leave();
      }
    }
  }
  int active = 0, parked = 0, exited = 0;
  blacs_dyn_process_counts(&active, &parked, &exited);
  if (blacs_dyn_rank() == 0) {
    std::printf("processes: %d active, %d parked, %d exited\n", active, parked, exited);
    all_ok = all_ok && active == 2 && parked == 0 && exited == 7;
    std::printf("%s\n", all_ok ? "PASS" : "FAIL");
  }
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
