// SPDX-License-Identifier: BSD-3-Clause
// a user's program, written as docs/guide/porting.md says, where the features meet.
// The job starts on 2x2 (4 processes) and grows to 2x3 by spawn after iteration 2; its
// matrix S is a running sum (every iteration adds to it; the newcomers' blocks cannot be
// recomputed), so a newcomer that fills S again after join() ends with the wrong sum.
//   sum, history        the porting guide's line `int it = s.is_newcomer() ? s.join() :
//                       s.start(g); if (!s.is_newcomer()) fill` (§3): S checked exactly
//   levels DIR          the same with a level checkpoint every iteration and a global one
//                       every 2nd, cadences set once on the original processes only: the
//                       newcomers inherit them (§2); a level written after the expansion
//   finalize DIR        as levels, then MPI_Finalize with the session (its grids on the
//                       merged world, its nodes, its cadences) still in scope, destroyed
//                       after it (§4): must end with status 0
//   sizes DIR           as levels through 2x2 -> 2x3 -> 2x2 (spawn, then shrink), keep 2:
//                       afterwards the node's level directory holds at most 2 versions
//                       of each level and the global directory 2 files, nothing of an
//                       interrupted write (retention across world sizes)
//   late                as sum with a schedule entry after the last iteration (9): the
//                       session must say it did not run (§6)
//   badschedule         a malformed schedule the program does not catch (§6): one message
//                       and the job's end, no backtraces
//   skip                world rank 3 skips the remap point after iteration 2 (§5): the
//                       others must end the job naming it (RESIZE_REMAP_TIMEOUT short)
//   skiplate            world rank 3 skips the remap point after iteration 4, once the
//                       session measured the gaps between remap points: with the cap left
//                       at 600 s the job must end within the measured bound (FLOOR)
// Prints PASS (world rank 0) or FAILED lines; exits 1 on a wrong result.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/session.hpp"

namespace {

constexpr int kN = 30, kNb = 4, kIters = 5;

double initial(int i, int j) { return 1000.0 + i * j; }
// Files of `dir` (recursively) that break keep = 2: more than 2 versions (world size,
// iteration) of a level in one node directory, more than 2 global files, any .tmp left.
long long retention_faults(const std::string& dir) {
  namespace fs = std::filesystem;
  long long bad = 0;
  for (const auto& node : fs::directory_iterator(dir + "/levels")) {
    std::set<std::pair<int, int>> versions[2];
    for (const auto& f : fs::directory_iterator(node.path())) {
      const std::string n = f.path().filename().string();
      // <program>.<local|partner>.r<rank>-<nprocs>.v<iteration> (docs/guide/checkpoint.md)
      char kind[16] = "";
      int rank = 0, nprocs = 0, iteration = 0;
      if (n.find(".tmp") != std::string::npos) {
        std::fprintf(stderr, "FAILED: left by an interrupted write: %s\n", f.path().c_str());
        ++bad;
      } else if (std::sscanf(n.c_str(), "user_program.%15[a-z].r%d-%d.v%d", kind, &rank, &nprocs, &iteration) == 4) {
        versions[std::strcmp(kind, "partner") == 0].insert({nprocs, iteration});
      }
    }
    for (const auto& v : versions)
      if (v.size() > 2) {
        std::fprintf(stderr, "FAILED: %s holds %zu versions of a level, keep is 2:", node.path().c_str(), v.size());
        for (auto [p, it] : v) std::fprintf(stderr, " (%d processes, iteration %d)", p, it);
        std::fprintf(stderr, "\n");
        ++bad;
      }
  }
  std::size_t global = 0;
  for (const auto& f : fs::directory_iterator(dir + "/global")) global += f.is_regular_file();
  if (global > 2) {
    std::fprintf(stderr, "FAILED: %s holds %zu files, keep is 2\n", (dir + "/global").c_str(), global);
    ++bad;
  }
  return bad;
}

double step(int it, int i, int j) { return it * (i + 0.5 * j); }  // added after iteration `it`

int run(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "sum";
  const std::string dir = argc > 2 ? argv[2] : "";
  resize::SessionOptions o;
  o.app = "user_program";
  o.progress = false;
  o.policy = resize::make_policy("scripted", mode == "skip" || mode == "skiplate" ? "4:expand:2x3"
                                             : mode == "sizes" ? "2:expand:2x3,4:shrink:2x2"
                                             : mode == "late" ? "2:expand:2x3,9:expand:3x3"
                                             : mode == "badschedule" ? "2:grow:2x3"  // throws, uncaught
                                                              : "2:expand:2x3", "");
  resize::Session s(argc, argv, std::move(o));
  auto S = s.register_matrix<double>("S", kN, kN, kNb, kNb);
  if (mode == "sizes" && !s.is_newcomer()) {  // a clean directory: only this run's files count
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0) std::filesystem::remove_all(dir);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int it = s.is_newcomer() ? s.join() : s.start(resize::Grid{2, 2, {}});
  if (!s.is_newcomer()) S.for_each_local([](int i, int j, double& v) { v = initial(i, j); });
  const bool levels = mode == "levels" || mode == "finalize" || mode == "sizes";
  if (!s.is_newcomer() && levels) {
    s.set_level_checkpointing(resize::LevelCadence{dir + "/levels", "1", "", 0, 0, 2});
    s.set_checkpointing(resize::CheckpointCadence{dir + "/global", "2", 0, 2});
  }
  std::string levels_after;  // the level written after the expansion, on every process
  while (it < kIters) {
    s.begin_iteration();
    ++it;
    double local = 0, total = 0;  // the iteration's residual, a collective over the world
    if (s.in_grid()) S.for_each_local([&](int i, int j, double& v) { local += v += step(it, i, j); });
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, s.world());
    s.end_iteration();
    if (levels) {
      const std::string lv = s.level_checkpoint_if_due();
      s.checkpoint_if_due();
      if (s.world_size() == 6) levels_after = lv;
    }
    if (mode == "skip" && it == 2 && s.world_rank() == 3) continue;  // the bug under test
    if (mode == "skiplate" && it == 4 && s.world_rank() == 3) continue;
    s.remap_point();
  }
  long long bad = 0;
  if (s.in_grid())
    S.for_each_local([&](int i, int j, double v) {
      double want = initial(i, j);
      for (int k = 1; k <= it; ++k) want += step(k, i, j);
      if (v != want && ++bad <= 3)
        std::fprintf(stderr, "FAILED: rank %d (%s): S(%d,%d) = %g, want %g\n", s.world_rank(),
                     s.is_newcomer() ? "newcomer" : "original", i, j, v, want);
    });
  if (mode == "sizes" && s.world_rank() == 0) bad += retention_faults(dir);
  if (levels && levels_after != "local") {
    std::fprintf(stderr, "FAILED: rank %d: no level checkpoint after the expansion ('%s')\n", s.world_rank(),
                 levels_after.c_str());
    ++bad;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, s.world());
  const int expected = mode == "sizes" ? 4 : 6;
  if (s.world_rank() == 0) {
    if (bad == 0 && s.world_size() == expected)
      std::printf("PASS: %s: S exact on %d processes after %d iterations\n", mode.c_str(), s.world_size(), it);
    else
      std::printf("FAILED: %s: %lld wrong, world of %d (want %d)\n", mode.c_str(), bad, s.world_size(), expected);
  }
  if (mode == "finalize") {
    MPI_Finalize();  // before the session (in this scope) is destroyed: it must free nothing
    return bad == 0 ? 0 : 1;
  }
  return bad == 0 && s.world_size() == expected ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "sum";
  const int rc = run(argc, argv);
  if (mode != "finalize") MPI_Finalize();
  return rc;
}
