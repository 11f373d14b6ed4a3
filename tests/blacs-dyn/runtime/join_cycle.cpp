// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, as blacs-dyn's API does it (tests/blacs-dyn/runtime/join_cycle.sh runs it): a job
// of 2 processes (launch A) is joined by launch B (2 processes), then by launch C (2);
// each step runs PDGEMM on the whole world, checked against serial OpenBLAS; then B, the
// middle one, leaves (blacs_dyn_shrink_to_ranks keeps A and C) while A and C compute on;
// then every launch ends and each MPI_Finalize returns (the script bounds every mpiexec).
// A and C go on computing until the script has seen B's mpiexec return.
// The same binary is every launch: a joined process is a newcomer (blacs_dyn_is_new) and
// learns the step from rank 0 through blacs_dyn_share_state, as a spawned one does.
//   join_cycle [steps]   steps: "b,c" (default) joins B then C then B leaves;
//                        "any": one expansion by whatever launches wait, then back to A
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"

namespace {

int fail(const char* what, int rc) {
  std::fprintf(stderr, "FAILED: rank %d: %s: %s: %s\n", blacs_dyn_rank(), what, blacs_dyn_status_string(rc),
               blacs_dyn_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

struct State {
  int step = 0;
  int a = 0, b = 0;  // sizes of launch A and B (ranks 0..a-1 are A, then B, then C)
};

bool check(const State& s, int expected) {
  const auto r = blacs_dyn_test::pdgemm_on_world(64, 8);
  char id[80] = "";
  blacs_dyn_launch_id(id, sizeof id);
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, blacs_dyn_world());
  const bool ok = r.ok && r.np == expected && sum == expected;
  if (blacs_dyn_rank() == 0)
    std::printf("step %d: world %d (expected %d), grid %dx%d, PDGEMM max error %.2e %s\n", s.step, r.np, expected,
                r.nprow, r.npcol, r.maxerr, ok ? "ok" : "FAILED");
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "b,c";
  State s;
  if (blacs_dyn_is_new()) {
    size_t len = sizeof s;
    if (int rc = blacs_dyn_share_state(&s, &len, sizeof s)) return fail("blacs_dyn_share_state", rc);
    blacs_dyn_clear_new();
  } else {
    s.a = blacs_dyn_size();
    // Collective over the job's first world (a joined process does not ask).
    if (!blacs_dyn_join_supported()) {
      if (blacs_dyn_rank() == 0) std::printf("SKIPPED: %s\n", blacs_dyn_join_unsupported_reason());
      MPI_Finalize();
      return 77;
    }
  }
  bool ok = true;
  const auto grow = [&](const char* launch) {
    const char* names[] = {launch};
    const int rc = launch ? blacs_dyn_expand_join(1, names, 120) : blacs_dyn_expand_join(1, nullptr, 120);
    if (rc) fail("blacs_dyn_expand_join", rc);
    ++s.step;
    size_t len = sizeof s;
    if (int r2 = blacs_dyn_share_state(&s, &len, sizeof s)) fail("blacs_dyn_share_state", r2);
  };
  // Step 0: A alone. Step 1: A+B. Step 2: A+B+C. Step 3: A+C (B left). Step 4: the end.
  if (mode == "b,c") {
    if (s.step == 0) {
      ok = check(s, s.a) && ok;
      grow("b");
    }
    if (s.step == 1) {
      if (s.b == 0) s.b = blacs_dyn_size() - s.a;
      ok = check(s, s.a + s.b) && ok;
      grow("c");
    }
    if (s.step == 2) {
      const int n = blacs_dyn_size();
      ok = check(s, n) && ok;
      std::vector<int> keep;
      for (int r = 0; r < n; ++r)
        if (r < s.a || r >= s.a + s.b) keep.push_back(r);
      int leaving = 0;
      if (int rc = blacs_dyn_shrink_to_ranks(keep.data(), static_cast<int>(keep.size()), &leaving))
        return fail("blacs_dyn_shrink_to_ranks", rc);
      if (leaving) {
        if (blacs_dyn_leaving() != 1) {
          std::fprintf(stderr, "FAILED: a process of launch B must exit, its leaving mode is %d\n", blacs_dyn_leaving());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        blacs_dyn_leave();
      }
      s.step = 3;
      // A and C compute on until the script saw B's mpiexec return (JOIN_CYCLE_GONE names
      // the file it then makes), at most 60 s: B ended while the others went on.
      const char* gone = std::getenv("JOIN_CYCLE_GONE");
      const double until = MPI_Wtime() + 60;
      for (int k = 0, seen = 0; !seen; ++k) {
        ok = check(s, static_cast<int>(keep.size())) && ok;
        seen = k >= 20 && (!gone || std::ifstream(gone).good() || MPI_Wtime() > until);
        MPI_Bcast(&seen, 1, MPI_INT, 0, blacs_dyn_world());
      }
    }
  } else {
    if (s.step == 0) {
      ok = check(s, s.a) && ok;
      grow(nullptr);
    }
    ok = check(s, blacs_dyn_size()) && ok;
    int leaving = 0;
    if (int rc = blacs_dyn_shrink_to_level(0, &leaving)) return fail("blacs_dyn_shrink_to_level", rc);
    if (leaving) blacs_dyn_leave();
    s.step = 2;
    ok = check(s, s.a) && ok;
  }
  int active = 0, parked = 0, exited = 0;
  blacs_dyn_process_counts(&active, &parked, &exited);
  int all = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, blacs_dyn_world());
  if (blacs_dyn_rank() == 0) {
    std::printf("processes: %d active, %d parked, %d exited\n", active, parked, exited);
    std::printf("%s\n", every && parked == 0 ? "PASS" : "FAILED");
  }
  std::fflush(stdout);
  MPI_Finalize();
  return every ? 0 : 1;
}
