// SPDX-License-Identifier: BSD-3-Clause
// malleable-blacs-dyn-bench: blacs-dyn's benchmarks in one program, the case as its first
// argument (as malleable-redist-bench):
//   mpiexec -n 4 malleable-blacs-dyn-bench expand 5 1,5,12
// Without a case, or with an unknown one, it lists the cases and exits 2.
#include <cstdio>
#include <cstring>

#include "cases.hpp"

namespace {

const char* g_program = "malleable-blacs-dyn-bench";

struct Case {
  const char* name;
  int (*run)(int, char**);
  const char* what;
};

constexpr Case kCases[] = {
    {"expand", blacs_dyn_bench::case_expand,
     "expansion and shrink latency against raw MPI_Comm_spawn + MPI_Intercomm_merge, one node"},
    {"expand-nodes", blacs_dyn_bench::case_expand_nodes,
     "growing onto nodes and giving them back against raw MPI (scripts/bench/cluster_bench.sh)"},
};

int usage(FILE* out) {
  std::fprintf(out, "usage: malleable-blacs-dyn-bench <case> [arguments]\ncases:\n");
  for (const Case& c : kCases) std::fprintf(out, "  %-13s %s\n", c.name, c.what);
  return 2;
}

}  // namespace

const char* blacs_dyn_bench::program_path() { return g_program; }

int main(int argc, char** argv) {
  if (argc > 0 && argv[0] != nullptr) g_program = argv[0];
  if (argc < 2) return usage(stderr);
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) return usage(stdout), 0;
  for (const Case& c : kCases)
    if (std::strcmp(argv[1], c.name) == 0) return c.run(argc - 1, argv + 1);
  std::fprintf(stderr, "malleable-blacs-dyn-bench: unknown case '%s'\n", argv[1]);
  return usage(stderr);
}
