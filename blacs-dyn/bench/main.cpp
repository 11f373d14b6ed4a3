// SPDX-License-Identifier: BSD-3-Clause
// malleable-blacs-dyn-bench: blacs-dyn's benchmarks in one program, the case as its first
// argument (common's bench_main, as malleable-redist-bench):
//   mpiexec -n 4 malleable-blacs-dyn-bench expand 5 1,5,12
#include "cases.hpp"
#include "malleable_internal/bench_main.hpp"

namespace {

const char* g_program = "malleable-blacs-dyn-bench";

constexpr malleable_internal::BenchCase kCases[] = {
    {"expand", blacs_dyn_bench::case_expand,
     "expansion and shrink latency against raw MPI_Comm_spawn + MPI_Intercomm_merge, one node"},
    {"expand-nodes", blacs_dyn_bench::case_expand_nodes,
     "growing onto nodes and giving them back against raw MPI (scripts/bench/slurm.sh cluster)"},
};

}  // namespace

const char* blacs_dyn_bench::program_path() { return g_program; }

int main(int argc, char** argv) {
  if (argc > 0 && argv[0] != nullptr) g_program = argv[0];
  return malleable_internal::bench_main(argc, argv, "malleable-blacs-dyn-bench", kCases);
}
