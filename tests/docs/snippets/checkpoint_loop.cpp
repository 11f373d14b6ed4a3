// SPDX-License-Identifier: BSD-3-Clause
// Harness for docs/guide/checkpoint.md's C++ loop (tests/docs/check_snippets.py).
#include <mpi.h>

#include "malleable/resize/session.hpp"
// @INCLUDES@

int run(resize::Session& s, int it, int iters) {
  // @SNIPPET@
  return 0;
}
