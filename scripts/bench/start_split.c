/* SPDX-License-Identifier: BSD-3-Clause
 * blacs-dyn's expansion alone, the job's first (scripts/bench/redist.sh start-split runs it):
 * the step between a raw MPI_Comm_spawn + merge of the same program linked with a driver's
 * libraries (spawn_pingpong.c's spawn mode) and a driver's resize. Started with P
 * processes, the job barriers, world rank 0 takes the time, every process calls
 * blacs_dyn_expand(K, this program) (rank 0 spawns over MPI_COMM_SELF, the newcomers check
 * in from their MPI_Init, both merges, the private dup, the host list, BLACS's world), then
 * a barrier on the grown world; rank 0 prints "expand_ms K MS" (the interval a resize's
 * t_spawn_s covers, from its call of blacs_dyn_expand to the grown world). The newcomers
 * take the barrier and finalize. blacs-dyn's symbols are looked up at run time, so the
 * program links like spawn_pingpong.c (libmalleable_blacs_dyn ahead of ScaLAPACK):
 *   mpicc -O2 start_split.c -o start_split <the driver's libraries> -ldl
 *   mpiexec -n 2 ./start_split 2
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*expand_t)(int, const char*, char* const[], const char*, MPI_Info);
typedef MPI_Comm (*world_t)(void);
typedef int (*is_new_t)(void);

static void* need(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) {
    fprintf(stderr, "start_split: %s not found: link libmalleable_blacs_dyn\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const expand_t expand = (expand_t)need("blacs_dyn_expand");
  const world_t world = (world_t)need("blacs_dyn_world");
  const is_new_t is_new = (is_new_t)need("blacs_dyn_is_new");
  if (is_new()) {
    MPI_Barrier(world());
    MPI_Finalize();
    return 0;
  }
  const int k = argc > 1 ? atoi(argv[1]) : 2;
  int me = 0;
  MPI_Barrier(world());
  MPI_Comm_rank(world(), &me);
  const double t0 = MPI_Wtime();
  char* args[] = {argc > 1 ? argv[1] : "2", NULL};
  const int rc = expand(k, argv[0], args, NULL, MPI_INFO_NULL);
  if (rc != 0) {
    fprintf(stderr, "start_split: blacs_dyn_expand failed (%d)\n", rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(world());
  const double t = MPI_Wtime() - t0;
  if (me == 0) printf("expand_ms %d %.1f\n", k, 1e3 * t);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
