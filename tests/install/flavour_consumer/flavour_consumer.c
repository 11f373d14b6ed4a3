/* SPDX-License-Identifier: BSD-3-Clause */
/* Links the installed redist and runs one status-message call: the program must start
 * with the libraries of its own MPI flavour (mpi_flavour_test.sh checks ldd). */
#include <mpi.h>
#include <stdio.h>

#include "malleable/redist/redist.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  printf("consumer runs on: %.20s\n", version);
  printf("redist says: %s\n", redist_strerror(REDIST_SUCCESS));
  MPI_Finalize();
  return 0;
}
