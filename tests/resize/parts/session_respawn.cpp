// SPDX-License-Identifier: BSD-3-Clause
// A respawn (docs/reference/apps.md, "Merge or respawn") against a merge, through Open
// MPI's own view of the processes. The job starts on 2x2 (4 processes), grows to 2x3
// after iteration 2 and shrinks to 2x2 after iteration 4; its matrix S is a running sum
// (every iteration adds to it: the blocks cannot be recomputed) whose first values depend
// on a seed world rank 0 picks at run time and hands out as the application state, so
// a process that lost data or state ends with a wrong S (checked exactly).
//   respawn   RESIZE_RECONFIGURE=respawn: after each resize every process of the world
//             is of one launch: Open MPI gave all of them one job id (the process name's
//             jobid, OMPI_MCA_ess_base_jobid) and each one's MPI_COMM_WORLD is the job's
//             world (MPI_Group_compare: MPI_IDENT); no process of the first launch is
//             left (is_newcomer everywhere); world rank 0's report goes on (the summary
//             holds the iterations from 1 and both resizes, each "reconfigured by respawn")
//   merge     RESIZE_RECONFIGURE=merge, the control: after the expansion the world holds
//             two launches (two job ids, MPI_COMM_WORLD a part of the world), so the
//             check above can fail
// Prints PASS (world rank 0) or FAILED lines; exits 1 on a wrong result.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/session.hpp"

namespace {

constexpr int kN = 30, kNb = 4, kIters = 6;

double initial(int seed, int i, int j) { return seed + i * j; }
double step(int it, int i, int j) { return it * (i + 0.5 * j); }

// Open MPI's view of the world's launches: the number of distinct job ids among the
// processes, and whether every process's MPI_COMM_WORLD is the world itself.
struct Launches {
  int jobs = 0;
  bool world_is_comm_world = false;
};
Launches launches(MPI_Comm w) {
  const char* j = std::getenv("OMPI_MCA_ess_base_jobid");
  long long mine = j ? std::atoll(j) : -1;
  int n = 0;
  MPI_Comm_size(w, &n);
  std::vector<long long> all(static_cast<std::size_t>(n));
  MPI_Allgather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, w);
  Launches out;
  std::set<long long> ids(all.begin(), all.end());
  out.jobs = ids.count(-1) ? -1 : static_cast<int>(ids.size());  // -1: a process without a job id
  MPI_Group gw, gc;
  MPI_Comm_group(w, &gw);
  MPI_Comm_group(MPI_COMM_WORLD, &gc);
  int cmp = MPI_UNEQUAL;
  MPI_Group_compare(gw, gc, &cmp);
  MPI_Group_free(&gw);
  MPI_Group_free(&gc);
  int ident = cmp == MPI_IDENT ? 1 : 0, all_ident = 0;
  MPI_Allreduce(&ident, &all_ident, 1, MPI_INT, MPI_MIN, w);
  out.world_is_comm_world = all_ident == 1;
  return out;
}

int run(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "respawn";
  const bool respawn = mode == "respawn";
  resize::SessionOptions o;
  o.app = "respawn_test";
  o.progress = true;  // the resize lines, "reconfigured by ..." in them
  o.policy = resize::make_policy("scripted", "2:expand:2x3,4:shrink:2x2", "");
  resize::Session s(argc, argv, std::move(o));
  int seed = 0;
  s.set_app_state([&] { return std::vector<char>(reinterpret_cast<const char*>(&seed),
                                                 reinterpret_cast<const char*>(&seed) + sizeof seed); },
                  [&](const std::vector<char>& b) {
                    if (b.size() == sizeof seed) std::memcpy(&seed, b.data(), sizeof seed);
                  });
  auto S = s.register_matrix<double>("S", kN, kN, kNb, kNb);
  int it = s.is_newcomer() ? s.join() : s.start(resize::Grid{2, 2, {}});
  if (!s.is_newcomer()) {
    seed = 1000 + static_cast<int>(getpid() % 1000);  // rank 0's, chosen at run time
    MPI_Bcast(&seed, 1, MPI_INT, 0, s.world());
    S.for_each_local([&](int i, int j, double& v) { v = initial(seed, i, j); });
  }
  long long bad = 0;
  const auto fail = [&](const std::string& what) {
    if (s.world_rank() == 0) std::printf("FAILED: %s after iteration %d: %s\n", mode.c_str(), it, what.c_str());
    ++bad;
  };
  // After each resize (the originals after their remap point, the newcomers after join():
  // the same point of the job): Open MPI's view of the new world.
  int seen = s.is_newcomer() ? 0 : s.world_size();
  const auto check_launches = [&] {
    if (s.world_size() == seen) return;
    seen = s.world_size();
    const Launches l = launches(s.world());
    int newcomer = s.is_newcomer() ? 1 : 0, all_new = 0;
    MPI_Allreduce(&newcomer, &all_new, 1, MPI_INT, MPI_MIN, s.world());
    if (respawn && (l.jobs != 1 || !l.world_is_comm_world || !all_new))
      fail(std::to_string(l.jobs) + " job ids, MPI_COMM_WORLD " + (l.world_is_comm_world ? "is" : "is not") +
           " the world, " + (all_new ? "no" : "some") + " process of an earlier launch left");
    if (!respawn && s.world_size() == 6 && (l.jobs != 2 || l.world_is_comm_world))
      fail(std::to_string(l.jobs) + " job ids after a merge (want 2)");
    if (s.world_rank() == 0)
      std::printf("launches after iteration %d: %d processes, %d job id(s), MPI_COMM_WORLD %s the world\n", it,
                  s.world_size(), l.jobs, l.world_is_comm_world ? "is" : "is not");
  };
  int checks = 0;  // resizes this process saw (a respawn's newcomer sees only the last)
  while (it < kIters) {
    if (s.world_size() != seen) ++checks;
    check_launches();
    s.begin_iteration();
    ++it;
    if (s.in_grid()) S.for_each_local([&](int i, int j, double& v) { v += step(it, i, j); });
    s.end_iteration();
    s.remap_point();
  }
  if (s.world_size() != seen) ++checks;
  check_launches();
  if (checks < 1) fail("no resize seen");
  if (s.in_grid())
    S.for_each_local([&](int i, int j, double v) {
      double want = initial(seed, i, j);
      for (int k = 1; k <= it; ++k) want += step(k, i, j);
      if (v != want && ++bad <= 3)
        std::fprintf(stderr, "FAILED: rank %d: S(%d,%d) = %g, want %g (seed %d)\n", s.world_rank(), i, j, v, want, seed);
    });
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, s.world());
  if (s.world_rank() == 0) {
    // World rank 0's report goes on across the respawns: every iteration and both resizes.
    const std::string sum = s.summary();
    const std::string how = respawn ? "reconfigured by respawn" : "reconfigured by merge";
    std::size_t n = 0;
    for (auto p = sum.find(how); p != std::string::npos; p = sum.find(how, p + 1)) ++n;
    if (n != 2 || sum.find("2x2->2x3") == std::string::npos || sum.find("2x3->2x2") == std::string::npos ||
        sum.find("1-2") == std::string::npos) {
      std::printf("FAILED: %s: the summary lacks a resize or the first iterations (%zu x '%s'):\n%s\n", mode.c_str(), n,
                  how.c_str(), sum.c_str());
      ++bad;
    }
    if (bad == 0 && s.world_size() == 4)
      std::printf("PASS: %s: S exact on %d processes after %d iterations\n", mode.c_str(), s.world_size(), it);
    else
      std::printf("FAILED: %s: %lld wrong, world of %d (want 4)\n", mode.c_str(), bad, s.world_size());
  }
  MPI_Bcast(&bad, 1, MPI_LONG_LONG, 0, s.world());
  return bad == 0 && s.world_size() == 4 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rc = run(argc, argv);
  MPI_Finalize();
  return rc;
}
