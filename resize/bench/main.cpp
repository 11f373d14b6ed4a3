// SPDX-License-Identifier: BSD-3-Clause
// malleable-resize-bench: resize's benchmarks in one program, the case as its first
// argument (as malleable-redist-bench):
//   mpiexec -n 9 malleable-resize-bench checkpoint 4000 64 2x2 3x3 /tmp/ck 3
// Without a case, or with an unknown one, it lists the cases and exits 2. The kernel
// meter's benchmark stays a program of its own (kernel_meter_bench): it links the BLAS
// interposers, which would meter every case of this one.
#include <cstdio>
#include <cstring>

#include "cases.hpp"

namespace {

struct Case {
  const char* name;
  int (*run)(int, char**);
  const char* what;
};

constexpr Case kCases[] = {
    {"checkpoint", resize::bench::case_checkpoint,
     "checkpoint write / restart read against raw MPI-IO of the same bytes (scripts/bench/checkpoint_bench.sh)"},
    {"levels", resize::bench::case_levels,
     "checkpoint levels against a raw memcpy and the global HDF5 checkpoint (scripts/bench/levels_bench.sh)"},
    {"levels-recover", resize::bench::case_levels_recover,
     "level recovery against redistribute of the same blocks (scripts/bench/levels_recover_bench.sh)"},
    {"levels-overhead", resize::bench::case_levels_overhead,
     "the expected overhead of global-only against multi-level checkpoints at scale (no MPI)"},
    {"matrix-map", resize::bench::case_matrix_map,
     "what the handle's cached index map saves over rebuilding it per call (at, for_each_local)"},
};

int usage(FILE* out) {
  std::fprintf(out, "usage: malleable-resize-bench <case> [arguments]\ncases:\n");
  for (const Case& c : kCases) std::fprintf(out, "  %-16s %s\n", c.name, c.what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(stderr);
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) return usage(stdout), 0;
  for (const Case& c : kCases)
    if (std::strcmp(argv[1], c.name) == 0) return c.run(argc - 1, argv + 1);
  std::fprintf(stderr, "malleable-resize-bench: unknown case '%s'\n", argv[1]);
  return usage(stderr);
}
