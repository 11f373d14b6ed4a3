// SPDX-License-Identifier: BSD-3-Clause
// Harness for README.md's "A malleable program (C++)" (tests/docs/check_snippets.py): it
// declares what the snippet leaves to the reader (n, nb, iters, init, compute).
#include <mpi.h>

#include <utility>
// @INCLUDES@

static const int n = 120, nb = 16, iters = 8;
static double init(int i, int j) { return i + j; }
static void compute(double*, const int*) {}

int main(int argc, char** argv) {
  // @SNIPPET@
  return 0;
}
