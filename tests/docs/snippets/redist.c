/* SPDX-License-Identifier: BSD-3-Clause */
/* Harness for docs/guide/README.md's redist calls in C (tests/docs/check_snippets.py). */
#include <mpi.h>
#include <stdint.h>

#include "malleable/redist/redist.h"
/* @INCLUDES@ */

void run(const int desca[9], int ctxtb, int64_t nrb, const int64_t* row_sizes, int64_t ncb,
         const int64_t* col_sizes, int64_t lldb, int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja,
         double* b, int64_t ib, int64_t jb) {
  /* @SNIPPET@ */
}
