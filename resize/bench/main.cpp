// SPDX-License-Identifier: BSD-3-Clause
// malleable-resize-bench: resize's benchmarks in one program, the case as its first
// argument (common's bench_main, as malleable-redist-bench):
//   mpiexec -n 9 malleable-resize-bench checkpoint 4000 64 2x2 3x3 /tmp/ck 3
// The kernel meter's benchmark stays a program of its own (kernel_meter_bench): it links
// the BLAS interposers, which would meter every case of this one.
#include "cases.hpp"
#include "malleable_internal/bench_main.hpp"

namespace {

constexpr malleable_internal::BenchCase kCases[] = {
    {"checkpoint", resize::bench::case_checkpoint,
     "checkpoint write / restart read against raw MPI-IO of the same bytes (scripts/bench/levels.sh checkpoint)"},
    {"levels", resize::bench::case_levels,
     "checkpoint levels against a raw memcpy and the global HDF5 checkpoint (scripts/bench/levels.sh levels)"},
    {"levels-recover", resize::bench::case_levels_recover,
     "level recovery against redistribute of the same blocks (scripts/bench/levels.sh recover)"},
    {"levels-overhead", resize::bench::case_levels_overhead,
     "the expected overhead of global-only against multi-level checkpoints at scale (no MPI)"},
    {"matrix-map", resize::bench::case_matrix_map,
     "what the handle's cached index map saves over rebuilding it per call (at, for_each_local)"},
};

}  // namespace

int main(int argc, char** argv) { return malleable_internal::bench_main(argc, argv, "malleable-resize-bench", kCases); }
