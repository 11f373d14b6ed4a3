/* SPDX-License-Identifier: BSD-3-Clause */
/* Plain C consumer built with `pkg-config --cflags --libs malleable`: the C APIs of
 * blacs-dyn and redist link and answer (world = MPI_COMM_WORLD before any expansion;
 * the generalised numroc of a heterogeneous descriptor). */
#include <mpi.h>
#include <stdio.h>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/redist/redist.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = blacs_dyn_rank(), size = blacs_dyn_size(), world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  /* 10 rows in blocks 7,3 and 9 columns in blocks 2,4,3 on a 2x1 grid of ranks 0,1 */
  const int64_t rows[] = {7, 3}, cols[] = {2, 4, 3};
  const int ranks[] = {0, 1};
  redist_desc d = {-1, 2, 1, 0, 0, 0, 0, 10, 9, 7, 2, 3, rows, cols, ranks};
  int64_t r1 = -1, c0 = -1;
  int rc = redist_numroc(&d, REDIST_ROWS, 1, &r1) | redist_numroc(&d, REDIST_COLS, 0, &c0);
  int ok = size == world && blacs_dyn_depth() == 1 && rc == REDIST_SUCCESS && r1 == 3 && c0 == 9;
  if (rank == 0)
    printf("consumer_c: world %d, depth %d, numroc rows(p1)=%lld cols(q0)=%lld: %s\n", size,
           blacs_dyn_depth(), (long long)r1, (long long)c0, ok ? "OK" : "BAD");
  MPI_Finalize();
  return ok ? 0 : 1;
}
