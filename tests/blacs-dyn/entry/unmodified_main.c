/* SPDX-License-Identifier: BSD-3-Clause */
/* main() of the unmodified ScaLAPACK program: built once against stock ScaLAPACK and
 * once with libmalleable_blacs_dyn ahead of it, without changing a line. */
#include "unmodified_solve.h"

void blacs_exit_(int* cont);

int main(void) {
  int zero = 0;
  const int info = unmodified_solve(240, 16);
  blacs_exit_(&zero);
  return info != 0;
}
