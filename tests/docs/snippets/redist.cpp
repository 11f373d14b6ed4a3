// SPDX-License-Identifier: BSD-3-Clause
// Harness for docs/guide/README.md's redist calls in C++ (tests/docs/check_snippets.py).
#include <mpi.h>

#include <cstdint>

#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
// @INCLUDES@

void run(MPI_Comm comm, int comm_size, std::int64_t n, const double* a_local, std::int64_t lda, double* b_local,
         std::int64_t ldb) {
  // @SNIPPET@
  (void)moved;
}
