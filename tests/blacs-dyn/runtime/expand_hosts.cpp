// SPDX-License-Identifier: BSD-3-Clause
// One spawn group per host (blacs_dyn_expand_hosts), on one machine: 2 -> 5 processes as
// two groups spawned at the same time by ranks 0 and 1 (group 2's link is handed over to
// rank 0), PDGEMM checked on the grown world, every rank's node reported, argument errors
// reported on every rank with the world unchanged, rank 0's node refused for release,
// then each group leaves whole (its processes end) when the world shrinks past it.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"
#include "proc_stat.hpp"

namespace {
bool g_ok = true;
void expect(bool cond, const char* what) {
  if (!cond) {
    std::printf("rank %d: FAILED: %s (%s)\n", blacs_dyn_rank(), what, blacs_dyn_last_error());
    g_ok = false;
  }
}
std::vector<int> all_pids() {
  const int me = static_cast<int>(getpid());
  std::vector<int> pids(static_cast<std::size_t>(blacs_dyn_size()));
  MPI_Allgather(&me, 1, MPI_INT, pids.data(), 1, MPI_INT, blacs_dyn_world());
  return pids;
}
// Every rank got `code`, and the same message as rank 0.
bool same_error_everywhere(int rc, int code) {
  char msg[512] = {};
  std::snprintf(msg, sizeof msg, "%s", blacs_dyn_last_error());
  char root[512];
  std::memcpy(root, msg, sizeof msg);
  MPI_Bcast(root, sizeof root, MPI_CHAR, 0, blacs_dyn_world());
  int good = rc == code && std::strcmp(msg, root) == 0 ? 1 : 0, all = 0;
  MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, blacs_dyn_world());
  return all == 1;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<int> pids;
  if (!blacs_dyn_is_new()) {
    // The node every rank runs on: here all on this machine.
    std::vector<char> names(static_cast<std::size_t>(blacs_dyn_size()) * 64);
    expect(blacs_dyn_hosts(names.data(), 64) == BLACS_DYN_OK, "blacs_dyn_hosts");
    const std::string host(names.data());
    const char* hosts[] = {host.c_str(), host.c_str()};
    const int counts[] = {2, 1};
    char child[] = "child";
    char* cargv[] = {child, nullptr};
    expect(blacs_dyn_expand_hosts(2, hosts, counts, argv[0], cargv, MPI_INFO_NULL) == BLACS_DYN_OK,
           "blacs_dyn_expand_hosts");
  } else {
    blacs_dyn_clear_new();
  }
  // Everyone (old and new) continues here on the world of 5.
  expect(blacs_dyn_size() == 5, "world of 5 after the expansion");
  expect(blacs_dyn_depth() == 2, "one level for both groups");
  const auto r = blacs_dyn_test::pdgemm_on_world(48, 8);
  expect(r.ok, "PDGEMM on the grown world");
  std::vector<char> names(5 * 64);
  expect(blacs_dyn_hosts(names.data(), 64) == BLACS_DYN_OK, "blacs_dyn_hosts after the expansion");
  char mine[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(mine, &len);
  expect(std::strcmp(names.data() + 64 * blacs_dyn_rank(), mine) == 0, "my entry is my node");
  pids = all_pids();
  const int newcomer = blacs_dyn_joined_level() == 1;
  expect(newcomer == (blacs_dyn_rank() >= 2), "ranks 2..4 are the newcomers");

  // A bad argument on rank 0 only: every rank reports it, nothing changes.
  const int counts[] = {1};
  int rc = blacs_dyn_expand_hosts(1, nullptr, counts, argv[0], nullptr,
                                  MPI_INFO_NULL);
  expect(same_error_everywhere(rc, BLACS_DYN_ERR_ARG), "NULL hosts reported on every rank");
  const char* zero_host = names.data();
  int leaving = 0;
  rc = blacs_dyn_release_hosts(1, &zero_host, &leaving);
  expect(same_error_everywhere(rc, BLACS_DYN_ERR_ARG), "rank 0's node is refused on every rank");
  const char* none = blacs_dyn_rank() == 1 ? nullptr : zero_host;
  rc = blacs_dyn_release_hosts(1, &none, &leaving);
  expect(same_error_everywhere(rc, BLACS_DYN_ERR_ARG), "a NULL host on rank 1 is reported on every rank");
  expect(blacs_dyn_size() == 5, "world unchanged by refused calls");

  // Drop rank 4 (the second group, alone): its group exits.
  const int keep[] = {0, 1, 2, 3};
  expect(blacs_dyn_shrink_to_ranks(keep, 4, &leaving) == BLACS_DYN_OK, "shrink to ranks 0..3");
  if (leaving) {
    if (blacs_dyn_leaving() != 1) std::printf("FAILED: rank 4 should exit, leaving mode %d\n", blacs_dyn_leaving());
    blacs_dyn_leave();
  }
  // Back to level 0: the first group (ranks 2, 3) exits.
  expect(blacs_dyn_shrink_to_level(0, &leaving) == BLACS_DYN_OK, "shrink to level 0");
  if (leaving) blacs_dyn_leave();
  int active = 0, parked = 0, exited = 0;
  blacs_dyn_process_counts(&active, &parked, &exited);
  expect(active == 2 && parked == 0 && exited == 3, "2 active, 3 exited");
  if (blacs_dyn_rank() == 0) {
    for (int i = 2; i < 5; ++i)
      expect(blacs_dyn_test::gone_within(pids[static_cast<std::size_t>(i)], 10.0), "a newcomer's process ended");
  }
  int all = g_ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, blacs_dyn_world());
  if (blacs_dyn_rank() == 0) std::printf("%s\n", every ? "PASS" : "FAILED");
  MPI_Finalize();
  return every ? 0 : 1;
}
