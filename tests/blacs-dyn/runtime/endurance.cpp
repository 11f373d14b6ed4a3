// SPDX-License-Identifier: BSD-3-Clause
// Endurance benchmark: how much the original processes' resident memory
// grows per resize over many expand + shrink cycles, blacs-dyn's (expand by ADD, a BLACS
// grid and a PDGEMM on the grown world, shrink back to level 0: the newcomers exit)
// against a raw loop of the same spawns (MPI_Comm_spawn + MPI_Intercomm_merge, the
// children disconnect and exit), side by side in one run. Open MPI keeps state per spawned
// job for the rest of the run; the difference between the two slopes is ours.
// A third loop shrinks back by ranks (keep one newcomer, then only the originals)
// instead of popping a level. Usage: endurance CYCLES ADD (each loop runs CYCLES times).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "grid_check_util.hpp"
#include "raw_spawn.hpp"

namespace {

double rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  long kb = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> kb;
      break;
    }
    std::getline(in, key);
  }
  return static_cast<double>(kb) / 1024.0;
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& y, std::size_t from) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = from; i < y.size(); ++i) {
    const double x = static_cast<double>(i);
    n += 1;
    sx += x;
    sy += y[i];
    sxx += x * x;
    sxy += x * y[i];
  }
  const double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : 0.0;
}

// The largest RSS among the original processes (MPI_COMM_WORLD), on rank 0.
double max_rss() {
  double mine = rss_mb(), top = 0;
  MPI_Reduce(&mine, &top, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return top;
}

// Back to the original world by ranks, in two steps: keep one newcomer (its sibling
// parks), then only the originals (the group exits, the parked sibling woken with it).
// Once, each step pushed a level that was never popped.
int shrink_by_ranks(int n0, int& leaving) {
  std::vector<int> keep;
  for (int r = 0; r <= n0; ++r) keep.push_back(r);
  int rc = blacs_dyn_shrink_to_ranks(keep.data(), n0 + 1, &leaving);
  if (rc != BLACS_DYN_OK || leaving) return rc;
  keep.pop_back();
  return blacs_dyn_shrink_to_ranks(keep.data(), n0, &leaving);
}

// A newcomer of a blacs-dyn cycle: the same collective calls as the originals.
int dyn_child(bool by_ranks, int n0) {
  blacs_dyn_clear_new();
  blacs_dyn_test::pdgemm_on_world(32, 8);
  int leaving = 0;
  if (by_ranks) shrink_by_ranks(n0, leaving);
  else blacs_dyn_shrink_to_level(0, &leaving);
  if (leaving) blacs_dyn_leave();
  std::printf("FAILED: a newcomer stayed after the shrink\n");
  MPI_Finalize();
  return 1;
}

void report(const char* what, const std::vector<double>& rss, int resizes_per_cycle, int add) {
  const std::size_t warm = rss.size() / 5;
  const double per_cycle = slope(rss, warm);
  std::printf("%-34s RSS %.1f -> %.1f MB (after cycle %zu: %.1f MB); growth %.4f MB per cycle = "
              "%.4f MB per resize, %.4f MB per spawned process\n",
              what, rss.front(), rss.back(), warm, rss[warm], per_cycle, per_cycle / resizes_per_cycle,
              per_cycle / add);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "raw-child")) {
    MPI_Init(&argc, &argv);
    return blacs_dyn_bench::raw_child(1);
  }
  MPI_Init(&argc, &argv);
  if (blacs_dyn_is_new()) return dyn_child(argc > 2 && !std::strcmp(argv[1], "ranks-child"), argc > 2 ? std::atoi(argv[2]) : 0);
  const int cycles = argc > 1 ? std::atoi(argv[1]) : 40;
  const int add = argc > 2 ? std::atoi(argv[2]) : 2;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool ok = true;

  // A first spawn of each kind outside the measurement (lazy start-up of Open MPI's
  // dynamic-process machinery).
  std::vector<double> raw, dyn;
  char raw_arg[] = "raw-child";
  char* raw_argv[] = {raw_arg, nullptr};
  for (int c = 0; c <= cycles; ++c) {
    MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
    MPI_Comm_spawn(argv[0], raw_argv, add, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    const double r = max_rss();
    if (c > 0) raw.push_back(r);
  }
  for (int c = 0; c <= cycles; ++c) {
    char child[] = "dyn-child";
    char* cargv[] = {child, nullptr};
    if (blacs_dyn_expand(add, argv[0], cargv, nullptr, MPI_INFO_NULL) != BLACS_DYN_OK) {
      std::printf("FAILED: expand: %s\n", blacs_dyn_last_error());
      ok = false;
      break;
    }
    ok = blacs_dyn_test::pdgemm_on_world(32, 8).ok && ok;
    int leaving = 0;
    if (blacs_dyn_shrink_to_level(0, &leaving) != BLACS_DYN_OK || leaving) {
      std::printf("FAILED: shrink: %s\n", blacs_dyn_last_error());
      ok = false;
      break;
    }
    const double r = max_rss();
    if (c > 0) dyn.push_back(r);
  }
  // The same cycle, back to the original world by ranks instead of by a pop.
  std::vector<double> by_ranks;
  int n0 = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n0);
  std::string n0_arg = std::to_string(n0);
  for (int c = 0; ok && c <= cycles; ++c) {
    char child[] = "ranks-child";
    char* cargv[] = {child, n0_arg.data(), nullptr};
    if (blacs_dyn_expand(add, argv[0], cargv, nullptr, MPI_INFO_NULL) != BLACS_DYN_OK) {
      std::printf("FAILED: expand: %s\n", blacs_dyn_last_error());
      ok = false;
      break;
    }
    ok = blacs_dyn_test::pdgemm_on_world(32, 8).ok && ok;
    int leaving = 0;
    if (shrink_by_ranks(n0, leaving) != BLACS_DYN_OK || leaving) {
      std::printf("FAILED: shrink by ranks: %s\n", blacs_dyn_last_error());
      ok = false;
      break;
    }
    const double r = max_rss();
    if (c > 0) by_ranks.push_back(r);
  }
  if (rank == 0 && ok && !raw.empty() && !dyn.empty() && !by_ranks.empty()) {
    std::printf("endurance: %d original processes, %d cycles of +%d processes each\n", blacs_dyn_size(), cycles, add);
    report("raw MPI_Comm_spawn + merge", raw, 1, add);
    report("blacs-dyn expand + grid + shrink", dyn, 2, add);
    report("the same, shrinking by ranks", by_ranks, 3, add);
    int active = 0, parked = 0, exited = 0;
    blacs_dyn_process_counts(&active, &parked, &exited);
    std::printf("blacs-dyn depth %d; processes %d active, %d parked, %d exited\n", blacs_dyn_depth(), active,
                parked, exited);
  }
  if (rank == 0) std::printf("%s\n", ok ? "PASS" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
