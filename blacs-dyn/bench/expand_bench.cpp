// SPDX-License-Identifier: BSD-3-Clause
// Expansion and shrink latency of blacs-dyn against raw MPI_Comm_spawn +
// MPI_Intercomm_merge, in the same run, interleaved, medians of several repetitions.
//   mpiexec -n 4 malleable-blacs-dyn-bench expand [reps=5] [adds=1,5,12]
// Library expansion = blacs_dyn_expand (spawn, check-in, merge) + a BLACS grid on the new world
// (blacs_get(0, 0) + blacs_gridinit), everybody done. Raw = MPI_Comm_spawn over the
// world + MPI_Intercomm_merge, everybody done. Shrink = blacs_dyn_shrink_to_level back to the
// previous level (the spawned group disconnects and exits).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "cases.hpp"
#include "raw_spawn.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A newcomer of a library expansion: take part in the grid and in the shrink, then leave.
int lib_child() {
  { blacs_dyn::Grid g = blacs_dyn::Grid::square(); }
  MPI_Barrier(blacs_dyn_world());
  if (blacs_dyn::World::shrink_to_level(blacs_dyn::World::depth() - 2)) blacs_dyn::World::leave();
  MPI_Finalize();
  return 1;  // not reached
}

}  // namespace

// The case `expand` of malleable-blacs-dyn-bench (main.cpp): argv[0] is the case's name;
// the processes it spawns run the same program and case.
int blacs_dyn_bench::case_expand(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (blacs_dyn::World::is_new()) return lib_child();
  if (argc > 1 && !std::strcmp(argv[1], "--raw-child")) return blacs_dyn_bench::raw_child(1);

  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<int> adds = {1, 5, 12};
  if (argc > 2) {
    adds.clear();
    std::stringstream ss(argv[2]);
    std::string tok;
    while (std::getline(ss, tok, ',')) adds.push_back(std::atoi(tok.c_str()));
  }
  const MPI_Comm world = blacs_dyn_world();
  int rank = 0, np = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &np);
  if (rank == 0)
    std::printf("# blacs-dyn expansion benchmark: %d parents, %d repetitions, medians in ms\n"
                "# raw = MPI_Comm_spawn + MPI_Intercomm_merge; expand = blacs_dyn_expand (rank 0);\n"
                "# expand+grid = blacs_dyn_expand + blacs_gridinit on the new world, all done;\n"
                "# ratio = (expand+grid) / raw; shrink = blacs_dyn_shrink_to_level back, all done\n"
                "%6s %12s %12s %12s %8s %12s\n",
                np, reps, "add", "raw", "expand", "expand+grid", "ratio", "shrink");
  char case_arg[] = "expand", raw_arg[] = "--raw-child";
  char* raw_argv[] = {case_arg, raw_arg, nullptr};
  for (int k : adds) {
    std::vector<double> raw, lib, lib_expand, shrink;
    for (int r = 0; r < reps; ++r) {
      // Raw spawn + merge.
      MPI_Barrier(world);
      double t0 = MPI_Wtime();
      MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
      std::vector<int> errs(static_cast<size_t>(k));
      MPI_Comm_spawn(program_path(), raw_argv, k, MPI_INFO_NULL, 0, world, &inter, errs.data());
      MPI_Intercomm_merge(inter, 0, &merged);
      MPI_Barrier(merged);
      raw.push_back(MPI_Wtime() - t0);
      MPI_Comm_free(&merged);
      MPI_Comm_disconnect(&inter);

      // blacs-dyn: expand + grid on the new world.
      MPI_Barrier(world);
      t0 = MPI_Wtime();
      blacs_dyn::World::expand(k, program_path(), {"expand"});
      lib_expand.push_back(MPI_Wtime() - t0);
      { blacs_dyn::Grid g = blacs_dyn::Grid::square(); }
      MPI_Barrier(blacs_dyn_world());
      lib.push_back(MPI_Wtime() - t0);

      t0 = MPI_Wtime();
      if (blacs_dyn::World::shrink_to_level(blacs_dyn::World::depth() - 2)) blacs_dyn::World::leave();
      MPI_Barrier(blacs_dyn_world());
      shrink.push_back(MPI_Wtime() - t0);
    }
    if (rank == 0) {
      const double mr = median(raw), ml = median(lib);
      std::printf("%6d %12.1f %12.1f %12.1f %8.2f %12.1f\n", k, 1e3 * mr, 1e3 * median(lib_expand),
                  1e3 * ml, ml / mr, 1e3 * median(shrink));
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
