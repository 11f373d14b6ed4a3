/* SPDX-License-Identifier: BSD-3-Clause */
/* Harness for docs/guide/checkpoint.md's C loop (tests/docs/check_snippets.py). */
#include <mpi.h>
#include <stddef.h>

#include "malleable/resize/resize.h"
/* @INCLUDES@ */

int run(resize_session* s, const char* restart_file, int p, int q, int iters) {
  int it;
  /* @SNIPPET@ */
  return 0;
}
