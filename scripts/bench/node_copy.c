/* SPDX-License-Identifier: BSD-3-Clause
 * A node's copy bandwidth, STREAM's Copy kernel on every rank at once (the bound
 * scripts/bench/device16.sh respawn sets redist's bytes moved per second against): each
 * rank copies its own array of MIB MiB of doubles into another (c[j] = a[j], both arrays
 * written first, so no page is faulted in while timed), REPS times; a repetition's time
 * is rank 0's from one barrier to the next (all ranks' copies, as they overlapped). One line per repetition, then the best:
 *   rep <tab> R <tab> seconds <tab> copied_Bps
 *   best <tab> ranks N <tab> MiB per rank M <tab> copied_Bps B <tab> stream_Bps 2B
 * copied_Bps: bytes copied per second over the ranks (each byte read once, written once);
 * stream_Bps: STREAM's convention, read and written bytes counted (twice that).
 *   mpiexec -n 16 node_copy [MIB per rank, default 256] [REPS, default 10]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void copy(double* restrict c, const double* restrict a, size_t n) {
  for (size_t j = 0; j < n; ++j) c[j] = a[j];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 256;
  const long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 10;
  if (mib < 1 || mib > 65536 || reps < 1 || reps > 10000) {
    if (rank == 0) fprintf(stderr, "usage: node_copy [MiB per rank 1-65536] [reps 1-10000]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t n = (size_t)mib * 1048576 / sizeof(double);
  double* a = malloc(n * sizeof(double));
  double* c = malloc(n * sizeof(double));
  if (!a || !c) {
    fprintf(stderr, "node_copy: rank %d: no memory for 2 x %ld MiB\n", rank, mib);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t j = 0; j < n; ++j) a[j] = (double)j, c[j] = 0;
  double best = 0;
  for (long r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    copy(c, a, n);
    MPI_Barrier(MPI_COMM_WORLD);
    const double slowest = MPI_Wtime() - t0;
    if (rank == 0) {
      const double bps = (double)size * (double)n * sizeof(double) / slowest;
      printf("rep\t%ld\t%.6f\t%.4g\n", r + 1, slowest, bps);
      if (bps > best) best = bps;
    }
  }
  double check = c[n / 2] == (double)(n / 2) ? 1 : 0, all = 0;
  MPI_Reduce(&check, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all != size) fprintf(stderr, "node_copy: copies differ on %d ranks\n", size - (int)all);
    printf("best\tranks %d\tMiB per rank %ld\tcopied_Bps %.4g\tstream_Bps %.4g\n", size, mib, best, 2 * best);
  }
  free(a);
  free(c);
  MPI_Finalize();
  return all == size || rank != 0 ? 0 : 1;
}
