// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench: redist's benchmarks and probes in one program, the case as its
// first argument (as SLATE's tester):
//   mpiexec -n 9 malleable-redist-bench redist --n 1200 --changes 2x2:3x3
//   malleable-redist-bench <case> --help      each case's options
// Without a case, or with an unknown one, it lists the cases and exits 2 (common's bench_main).
#include "bench_cli.hpp"
#include "malleable_internal/bench_main.hpp"
#include "malleable_internal/mpi_world.hpp"

namespace {

using namespace redist::bench;

// An MPI case (bench_cli.hpp) after MPI_Init, on its world rank and size.
template <MpiCase run>
int with_mpi(int argc, char** argv) {
  const malleable_internal::World w = malleable_internal::init_world(&argc, &argv);
  return run(w.rank, w.size, argc, argv);
}

const char* g_program = "malleable-redist-bench";

constexpr malleable_internal::BenchCase kCases[] = {
    {"redist", with_mpi<case_redist>,
     "schedules, the shapes suite (--suite/--shapes) and COSTA vs PDGEMR2D on grid changes"},
    {"multi", with_mpi<case_multi>, "several matrices one after another against in one exchange"},
    {"budget", with_mpi<case_budget>, "time against the executor's memory budget"},
    {"cost", with_mpi<case_cost>, "the cost model: predicted vs measured (--calibrate first)"},
    {"exec", with_mpi<case_exec>, "one case's executor phases and CPU time per ExecOptions variant"},
    {"passes", with_mpi<case_passes>, "hand-written pass sequences vs the memcpy floor and redist"},
    {"between-jobs", case_between_jobs,
     "redistribute between a job and the processes it spawned, per transport"},
    {"cma", case_cma, "process_vm_readv vs memcpy vs pack + unpack (no MPI)"},
    {"bound", with_mpi<case_bound>,
     "redist, PDGEMR2D and COSTA as fractions of the copy/shared-memory bound measured in the same run"},
    {"mapped", with_mpi<case_mapped>,
     "the routes within a node (window, kernel single copy, mapped arrays) against the single-copy bound"},
};

}  // namespace

const char* redist::bench::program_path() { return g_program; }

int main(int argc, char** argv) {
  if (argc > 0 && argv[0] != nullptr) g_program = argv[0];
  return malleable_internal::bench_main(argc, argv, "malleable-redist-bench", kCases);
}
