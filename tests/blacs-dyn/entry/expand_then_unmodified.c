/* SPDX-License-Identifier: BSD-3-Clause */
/* The unmodified solver after an expansion: the original processes solve on 2, expand
 * with the thesis sequence blacs_exit(1) + blacs_setup (schema from $BLACS_SETUP_FILE,
 * add = 2, executable = this program), and the same solver code, untouched, then runs
 * on the world of 4. Newcomers (blacs_dyn_is_new) go straight to the second solve. */
#include "malleable/blacs_dyn/blacs_dyn.h"
#include "unmodified_solve.h"

void blacs_exit_(int* cont);
void blacs_setup_(int* me, int* np);

int main(void) {
  int me = 0, np = 0, one = 1, zero = 0, info = 0;
  blacs_setup_(&me, &np); /* a newcomer joins here */
  if (!blacs_dyn_is_new()) {
    info |= unmodified_solve(240, 16);
    blacs_exit_(&one);
    blacs_setup_(&me, &np);
  }
  info |= unmodified_solve(240, 16);
  blacs_exit_(&zero);
  return info != 0;
}
