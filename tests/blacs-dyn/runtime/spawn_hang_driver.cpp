// SPDX-License-Identifier: BSD-3-Clause
// Driver of scripts/bench/spawn.sh hang: ROUNDS rounds of one kind of blacs-dyn expansion,
// each followed by a shrink back to the initial world (the newcomers exit), so that every
// round starts from the same world. Rank 0 prints one line per phase, flushed at once, so
// that the script can tell a round that hangs and in which phase:
//   begin R              before the expansion of round R
//   spawned R SECONDS    the expansion returned (SECONDS: its wall time on rank 0)
//   done R SECONDS       the shrink returned and the newcomers have left
// Kinds: one (1 process), several (3 processes in one spawn), hosts (one group of 1 per
// host on two hosts, spawned at the same time by ranks 0 and 1: blacs_dyn_expand_hosts).
// HOSTS (optional, comma-separated) names the hosts of kind hosts; default: this node
// twice. Kind grow: 1 process a round and no shrink, so the world grows by one each round
// and no process exits before the end (no client of the launcher's PMIx server leaves
// while others connect). Usage: spawn_hang_driver KIND ROUNDS [HOSTS] (newcomers get the
// round from rank 0).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"

namespace {
void fail(const char* what, int rc) {
  std::printf("rank %d: FAILED: %s: %s: %s\n", blacs_dyn_rank(), what, blacs_dyn_status_string(rc),
              blacs_dyn_last_error());
  std::fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

std::vector<std::string> split_hosts(const char* text, const char* self) {
  std::vector<std::string> hosts;
  if (text == nullptr || *text == '\0') return {self, self};
  std::string s(text);
  for (size_t at = 0; at <= s.size();) {
    const size_t comma = std::min(s.find(',', at), s.size());
    if (comma > at) hosts.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return hosts;
}

int expand(const std::string& kind, int rounds, char* self, const std::vector<std::string>& hosts,
           const char* hosts_arg) {
  std::string rounds_arg = std::to_string(rounds);
  std::string hosts_text = hosts_arg ? hosts_arg : "";
  std::string kind_arg = kind;
  char* argv[] = {kind_arg.data(), rounds_arg.data(), hosts_text.data(), nullptr};
  if (kind == "one" || kind == "grow") return blacs_dyn_expand(1, self, argv, nullptr, MPI_INFO_NULL);
  if (kind == "several") return blacs_dyn_expand(3, self, argv, nullptr, MPI_INFO_NULL);
  std::vector<const char*> names;
  std::vector<int> counts;
  for (const auto& h : hosts) {
    names.push_back(h.c_str());
    counts.push_back(1);
  }
  return blacs_dyn_expand_hosts(static_cast<int>(names.size()), names.data(), counts.data(), self, argv,
                                MPI_INFO_NULL);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string kind = argc > 1 ? argv[1] : "one";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
  const char* hosts_arg = argc > 3 ? argv[3] : nullptr;
  if (kind != "one" && kind != "several" && kind != "hosts" && kind != "grow") {
    std::printf("FAILED: unknown kind '%s' (one, several, hosts, grow)\n", kind.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char self[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(self, &len);
  const auto hosts = split_hosts(hosts_arg, self);
  int round = 0;
  bool newcomer = blacs_dyn_is_new() != 0;
  if (newcomer) {
    size_t n = sizeof round;
    if (int rc = blacs_dyn_share_state(&round, &n, sizeof round)) fail("share_state", rc);
    blacs_dyn_clear_new();
  }
  for (;; ++round) {
    // The originals expand; a newcomer enters here in the grown world of its round.
    if (!newcomer) {
      if (round >= rounds) break;
      const bool root = blacs_dyn_rank() == 0;
      if (root) {
        std::printf("begin %d\n", round);
        std::fflush(stdout);
      }
      const double t0 = MPI_Wtime();
      if (int rc = expand(kind, rounds, argv[0], hosts, hosts_arg)) fail("expand", rc);
      if (root) {
        std::printf("spawned %d %.4f\n", round, MPI_Wtime() - t0);
        std::fflush(stdout);
      }
      size_t n = sizeof round;
      if (int rc = blacs_dyn_share_state(&round, &n, sizeof round)) fail("share_state", rc);
    }
    newcomer = false;
    const double t1 = MPI_Wtime();
    int leaving = 0;
    if (kind != "grow") {
      if (int rc = blacs_dyn_shrink_to_level(0, &leaving)) fail("shrink", rc);
    }
    if (leaving) blacs_dyn_leave();  // the newcomers exit
    if (blacs_dyn_rank() == 0) {
      std::printf("done %d %.4f\n", round, MPI_Wtime() - t1);
      std::fflush(stdout);
    }
  }
  if (blacs_dyn_rank() == 0) std::printf("PASS: %d rounds of '%s'\n", rounds, kind.c_str());
  MPI_Finalize();
  return 0;
}
