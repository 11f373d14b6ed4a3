// SPDX-License-Identifier: BSD-3-Clause
// Leaving and parking (docs/reference/blacs-dyn.md, "Who exits and who parks"):
//   2 -> 4 (group 1) -> 6 (group 2); pop to level 1: group 2 exits, its PIDs disappear;
//   keep ranks {0, 2}: original rank 1 parks and group-1 member 3 parks (its sibling
//   stays); both use near-zero CPU; keep {0}: group 1's last active member exits and
//   its parked sibling is woken to exit; the parked original is released at
//   MPI_Finalize, which then completes for everyone.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"
#include "proc_stat.hpp"

namespace {
bool g_ok = true;
void expect(bool cond, const char* what) {
  if (blacs_dyn_rank() == 0 || !cond) std::printf("%s: %s\n", cond ? "ok" : "FAILED", what);
  g_ok = g_ok && cond;
}
void check_rc(int rc, const char* what) {
  if (rc != BLACS_DYN_OK) {
    std::fprintf(stderr, "%s: %s: %s\n", what, blacs_dyn_status_string(rc), blacs_dyn_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
void leave_if(int leaving) {
  if (leaving) blacs_dyn_leave();
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int phase = 0;
  if (blacs_dyn_is_new()) {
    size_t len = sizeof phase;
    check_rc(blacs_dyn_share_state(&phase, &len, sizeof phase), "share");
  }
  char child[] = "child";
  char* cargv[] = {child, nullptr};
  if (phase < 1) {
    check_rc(blacs_dyn_expand(2, argv[0], cargv, nullptr, MPI_INFO_NULL), "expand 2->4");
    phase = 1;
    size_t len = sizeof phase;
    check_rc(blacs_dyn_share_state(&phase, &len, sizeof phase), "share");
  }
  if (phase < 2) {
    check_rc(blacs_dyn_expand(2, argv[0], cargv, nullptr, MPI_INFO_NULL), "expand 4->6");
    phase = 2;
    size_t len = sizeof phase;
    check_rc(blacs_dyn_share_state(&phase, &len, sizeof phase), "share");
  }
  // At level 2 the ranks are the process ids 0..5.
  const int me = blacs_dyn_rank();
  int pid = static_cast<int>(getpid());
  std::vector<int> pids(6);
  MPI_Gather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, 0, blacs_dyn_world());
  if (me == 0) expect(blacs_dyn_size() == 6 && blacs_dyn_depth() == 3, "world of 6 at depth 3");

  // 1. Pop the spawned group 2 (ids 4, 5): it disconnects and exits.
  int leaving = 0;
  check_rc(blacs_dyn_shrink_to_level(1, &leaving), "shrink to level 1");
  if (leaving && blacs_dyn_leaving() != 1) {
    std::printf("FAILED: rank %d of group 2 should exit, mode %d\n", me, blacs_dyn_leaving());
    g_ok = false;
  }
  leave_if(leaving);
  if (blacs_dyn_rank() == 0) {
    expect(blacs_dyn_test::gone_within(pids[4], 5.0) && blacs_dyn_test::gone_within(pids[5], 5.0),
           "PIDs of the popped spawned group are gone");
  }
  expect(blacs_dyn_test::pdgemm_on_world(48, 8).ok, "PDGEMM on the world of 4");

  // 2. Keep ranks {0, 2}: id 1 (original) and id 3 (group 1, sibling 2 stays) park.
  const int keep1[] = {0, 2};
  check_rc(blacs_dyn_shrink_to_ranks(keep1, 2, &leaving), "shrink to {0, 2}");
  if (leaving) {
    if (blacs_dyn_leaving() != 2) std::printf("FAILED: rank %d should park, mode %d\n", me, blacs_dyn_leaving());
    blacs_dyn_leave();
  }
  if (blacs_dyn_rank() == 0) {
    const long hz = blacs_dyn_test::ticks_per_second();
    const auto a1 = blacs_dyn_test::proc_stat(pids[1]), a3 = blacs_dyn_test::proc_stat(pids[3]);
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const auto b1 = blacs_dyn_test::proc_stat(pids[1]), b3 = blacs_dyn_test::proc_stat(pids[3]);
    const long d1 = b1.ticks - a1.ticks, d3 = b3.ticks - a3.ticks;
    std::printf("parked CPU over 3 s: original %ld ticks (state %c), spawned %ld ticks "
                "(state %c), %ld ticks/s\n", d1, b1.state, d3, b3.state, hz);
    // Near zero: under 3% of one core (a busy-polling process would show ~100%).
    expect(b1.exists && b3.exists && d1 <= 3 * hz * 3 / 100 && d3 <= 3 * hz * 3 / 100,
           "parked processes use near-zero CPU");
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  int active = 0, parked = 0, exited = 0;
  blacs_dyn_process_counts(&active, &parked, &exited);
  if (blacs_dyn_rank() == 0)
    expect(active == 2 && parked == 2 && exited == 2, "counts: 2 active, 2 parked, 2 exited");
  expect(blacs_dyn_test::pdgemm_on_world(48, 8).ok, "PDGEMM on the world of 2");

  // 3. Keep {0}: id 2 is group 1's last active member, so it exits and parked id 3 is
  //    woken to exit with it; id 1 stays parked until MPI_Finalize.
  const int keep2[] = {0};
  check_rc(blacs_dyn_shrink_to_ranks(keep2, 1, &leaving), "shrink to {0}");
  if (leaving && blacs_dyn_leaving() != 1) std::printf("FAILED: id 2 should exit, mode %d\n", blacs_dyn_leaving());
  leave_if(leaving);
  expect(blacs_dyn_test::gone_within(pids[2], 5.0) && blacs_dyn_test::gone_within(pids[3], 5.0),
         "group 1 is gone, its parked member included");
  expect(blacs_dyn_test::proc_stat(pids[1]).exists, "the parked original is still there");
  blacs_dyn_process_counts(&active, &parked, &exited);
  expect(active == 1 && parked == 1 && exited == 4, "counts: 1 active, 1 parked, 4 exited");
  expect(blacs_dyn_test::pdgemm_on_world(48, 8).ok, "PDGEMM on the world of 1");
  std::printf("%s\n", g_ok ? "PASS" : "FAIL");
  std::fflush(stdout);
  MPI_Finalize();  // releases the parked original; everybody finalizes together
  return g_ok ? 0 : 1;
}
