// SPDX-License-Identifier: BSD-3-Clause
// Harness for docs/guide/porting.md's error handling (tests/docs/check_snippets.py).
#include <mpi.h>

#include <cstdio>
#include <string>

#include "malleable/resize/session.hpp"
// @INCLUDES@

int run(resize::Session& s, const std::string& file, const resize::Grid& grid, int iters) {
  int it = 0;
  // @SNIPPET@
  return it;
}
