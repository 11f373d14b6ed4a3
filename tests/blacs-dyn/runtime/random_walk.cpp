// SPDX-License-Identifier: BSD-3-Clause
// Seeded random walks of expansions and shrinks: single spawns, one group per
// host, pops to any lower level, subsets in any order (partial groups park, whole groups
// exit), over `steps` resizes, with PDGEMM checked against serial OpenBLAS on the world
// after every one. A request the stack must refuse (popping to a level whose processes
// already left) has to fail on every rank with the world unchanged. At the end the process
// counts must add up. Usage: random_walk SEED STEPS (every process runs the same binary;
// newcomers learn the step and seed from rank 0).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"

namespace {
constexpr int kMaxWorld = 7;  // 2 cores: keep the oversubscription bounded
bool g_ok = true;

void fail(const char* what, int rc) {
  std::printf("rank %d: FAILED: %s: %s: %s\n", blacs_dyn_rank(), what, blacs_dyn_status_string(rc),
              blacs_dyn_last_error());
  std::fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// The same decision on every rank: a generator seeded with (seed, step).
std::mt19937 rng_for(int seed, int step) { return std::mt19937(static_cast<unsigned>(seed) * 7919u + static_cast<unsigned>(step)); }

struct State {
  int seed, step, steps, refusals;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  State st{argc > 1 ? std::atoi(argv[1]) : 1, 0, argc > 2 ? std::atoi(argv[2]) : 24, 0};
  if (blacs_dyn_is_new()) {
    size_t len = sizeof st;
    if (int rc = blacs_dyn_share_state(&st, &len, sizeof st)) fail("share_state", rc);
    blacs_dyn_clear_new();
  }
  char host[MPI_MAX_PROCESSOR_NAME];
  int hlen = 0;
  MPI_Get_processor_name(host, &hlen);
  char child[] = "child";
  std::string seed_arg, steps_arg;
  for (; st.step < st.steps; ++st.step) {
    const auto r = blacs_dyn_test::pdgemm_on_world(40, 8);
    if (!r.ok) {
      std::printf("rank %d: FAILED: PDGEMM at step %d on %d processes\n", blacs_dyn_rank(), st.step, r.np);
      g_ok = false;
    }
    const int n = blacs_dyn_size(), depth = blacs_dyn_depth();
    auto rng = rng_for(st.seed, st.step);
    const int pick = static_cast<int>(rng() % 4);
    std::string what;
    int rc = BLACS_DYN_OK, leaving = 0;
    bool grew = false;
    if ((pick == 0 || n == 1) && n < kMaxWorld) {
      const int add = 1 + static_cast<int>(rng() % std::min(2, kMaxWorld - n));
      what = "expand +" + std::to_string(add);
      seed_arg = std::to_string(st.seed);
      steps_arg = std::to_string(st.steps);
      char* cargv[] = {seed_arg.data(), steps_arg.data(), child, nullptr};
      rc = blacs_dyn_expand(add, argv[0], cargv, nullptr, MPI_INFO_NULL);
      grew = true;
    } else if (pick == 1 && n + 2 <= kMaxWorld) {
      what = "expand one group per host +1 +1";
      const char* hosts[] = {host, host};
      const int counts[] = {1, 1};
      seed_arg = std::to_string(st.seed);
      steps_arg = std::to_string(st.steps);
      char* cargv[] = {seed_arg.data(), steps_arg.data(), child, nullptr};
      rc = blacs_dyn_expand_hosts(2, hosts, counts, argv[0], cargv, MPI_INFO_NULL);
      grew = true;
    } else if (pick == 2 && depth > 1) {
      const int level = static_cast<int>(rng() % static_cast<unsigned>(depth - 1));
      what = "pop to level " + std::to_string(level);
      rc = blacs_dyn_shrink_to_level(level, &leaving);
    } else if (n > 1) {
      // a random subset in a random order, rank 0 first
      std::vector<int> others;
      for (int k = 1; k < n; ++k) others.push_back(k);
      std::shuffle(others.begin(), others.end(), rng);
      const int keep_n = 1 + static_cast<int>(rng() % static_cast<unsigned>(n - 1));
      std::vector<int> keep = {0};
      keep.insert(keep.end(), others.begin(), others.begin() + (keep_n - 1));
      what = "keep " + std::to_string(keep.size()) + " of " + std::to_string(n);
      rc = blacs_dyn_shrink_to_ranks(keep.data(), static_cast<int>(keep.size()), &leaving);
    } else {
      what = "nothing";
    }
    if (rc == BLACS_DYN_ERR_STATE && !grew) {
      // A legal refusal: the same on every rank, the world as it was.
      int same = blacs_dyn_size() == n && blacs_dyn_depth() == depth, all = 0;
      MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, blacs_dyn_world());
      if (!all) {
        std::printf("rank %d: FAILED: refused '%s' changed the world\n", blacs_dyn_rank(), what.c_str());
        g_ok = false;
      }
      ++st.refusals;
    } else if (rc != BLACS_DYN_OK) {
      fail(what.c_str(), rc);
    }
    if (blacs_dyn_rank() == 0)
      std::printf("step %2d: %-34s -> world %d, depth %d%s\n", st.step, what.c_str(), blacs_dyn_size(),
                  blacs_dyn_depth(), rc == BLACS_DYN_ERR_STATE ? " (refused: " : "");
    if (rc == BLACS_DYN_ERR_STATE && blacs_dyn_rank() == 0) std::printf("   %s)\n", blacs_dyn_last_error());
    if (leaving) blacs_dyn_leave();
    if (grew && rc == BLACS_DYN_OK) {
      State next = st;
      ++next.step;
      size_t len = sizeof next;
      if (int e = blacs_dyn_share_state(&next, &len, sizeof next)) fail("share_state", e);
    }
  }
  const auto r = blacs_dyn_test::pdgemm_on_world(40, 8);
  int active = 0, parked = 0, exited = 0;
  blacs_dyn_process_counts(&active, &parked, &exited);
  int ok = g_ok && r.ok && active == blacs_dyn_size() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, blacs_dyn_world());
  if (blacs_dyn_rank() == 0)
    std::printf("seed %d: %d resizes (%d refused), end: %d active, %d parked, %d exited: %s\n", st.seed,
                st.steps, st.refusals, active, parked, exited, all ? "PASS" : "FAILED");
  MPI_Finalize();
  return all ? 0 : 1;
}
