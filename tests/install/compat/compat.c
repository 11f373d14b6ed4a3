/* Written against malleable 0.1's names: old include paths, bdyn_ and mall_gridmap_. */
#include <mpi.h>
#include <stdio.h>

#include "blacs-dyn/blacs_dyn.h"
#include "gridmap/gridmap.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ok = bdyn_size() >= 1 && bdyn_depth() == 1 && bdyn_rank() >= 0;
  int p = 0, q = 0;
  ok = ok && mall_gridmap_choose_topology(6, 0.0, 0.0, &p, &q) == MALL_GRIDMAP_OK && p * q == 6;
  if (bdyn_rank() == 0) printf("compat.c: 0.1 names %s\n", ok ? "ok" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
