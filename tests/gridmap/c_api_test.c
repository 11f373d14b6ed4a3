/* SPDX-License-Identifier: BSD-3-Clause */
/* The gridmap C API from plain C: results of the thesis examples and error reporting. */
#include <stdio.h>
#include <string.h>

#include "malleable/gridmap/gridmap.h"

static int failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

int main(void) {
  int rows = 0, cols = 0, x = -1, y = -1;
  CHECK(gridmap_choose_topology(28, 0, 0, &rows, &cols) == GRIDMAP_OK);
  CHECK(rows == 4 && cols == 7);
  CHECK(gridmap_choose_topology(0, 1, 1, &rows, &cols) == GRIDMAP_EINVAL);
  CHECK(strstr(gridmap_last_error(), "P = 0") != NULL);

  /* §5.2.1.2: 5x5 + 11 -> 6x6; 5x5 + 3 impossible, and the message names Global's 4x7. */
  CHECK(gridmap_local_expansion(5, 5, 11, 1, 1, 0, &x, &y) == GRIDMAP_OK);
  CHECK(x == 1 && y == 1);
  CHECK(strcmp(gridmap_last_error(), "") == 0);
  CHECK(gridmap_local_expansion(5, 5, 3, 1, 1, 0, &x, &y) == GRIDMAP_EIMPOSSIBLE);
  CHECK(strstr(gridmap_last_error(), "4x7") != NULL);

  /* Figure 4.3b: one row of 4 plus 2 columns, Local2 -> 0 4 1 2 5 3. */
  int slots[6];
  CHECK(gridmap_place(GRIDMAP_LOCAL2, 1, 4, NULL, 1, 6, 0, 0, 0, 0, 1, slots) == GRIDMAP_OK);
  const int want[6] = {0, 4, 1, 2, 5, 3};
  CHECK(memcmp(slots, want, sizeof want) == 0);

  /* §4.6.2: 15000^2 block, 2x2 -> 3x3. Optimal never moves more than Local2. */
  int l2[9], opt[9];
  long long moved_l2 = 0, moved_opt = 0, kept = 0;
  CHECK(gridmap_place(GRIDMAP_LOCAL2, 2, 2, NULL, 3, 3, 15000, 15000, 0, 0, 1, l2) == 0);
  CHECK(gridmap_place(GRIDMAP_OPTIMAL, 2, 2, NULL, 3, 3, 15000, 15000, 0, 0, 1, opt) == 0);
  CHECK(gridmap_moved_elements(2, 2, NULL, 3, 3, l2, 15000, 15000, 0, 0, 1, &moved_l2, &kept) == 0);
  CHECK(gridmap_moved_elements(2, 2, NULL, 3, 3, opt, 15000, 15000, 0, 0, 1, &moved_opt, NULL) == 0);
  CHECK(moved_l2 == 125000000LL && kept == 100000000LL);
  CHECK(moved_opt <= moved_l2);

  /* Table 6.4. */
  const double powers[4] = {313, 279, 34, 25};
  int ids[4];
  long long rs[2], cs[2];
  double topt[4], t = 0;
  CHECK(gridmap_hetero_map(GRIDMAP_SVD, 0, 2, 2, powers, 4, 2000, 2000, ids, rs, cs, topt, &t) == 0);
  CHECK(rs[0] + rs[1] == 2000 && cs[0] + cs[1] == 2000);
  CHECK(rs[0] > 1800 && rs[0] < 1850);
  CHECK(t > 0 && t < 6479.9); /* the thesis's sizes give 6479.9 */
  const double bad[4] = {313, 0, 34, 25};
  CHECK(gridmap_hetero_map(GRIDMAP_SVD, 0, 2, 2, bad, 4, 2000, 2000, ids, rs, cs, NULL, NULL) ==
        GRIDMAP_EINVAL);
  CHECK(strstr(gridmap_last_error(), "powers[1] = 0") != NULL);
  CHECK(gridmap_hetero_map(GRIDMAP_SVD, 0, 2, 2, powers, 3, 2000, 2000, ids, rs, cs, NULL, NULL) ==
        GRIDMAP_EINVAL);

  /* Selection: TPP 600 from the 30-power list (Table 6.7). */
  const double offer[30] = {298, 95, 35, 11, 30, 28, 39, 218, 39, 91, 290, 279, 249, 315, 210,
                            64, 209, 284, 131, 84, 176, 267, 66, 232, 114, 138, 157, 251, 250, 174};
  int chosen[30], nchosen = 0, nr = 0, nc = 0, sids[64];
  long long srows[16], scols[16];
  double st = 0;
  CHECK(gridmap_select(GRIDMAP_SELECT_LOCAL, 2, 2, powers, offer, 30, 600, 2000, 2000, chosen,
                            &nchosen, &nr, &nc, 64, sids, 16, srows, scols, &st) == 0);
  CHECK(nchosen == nr * nc - 4);
  double used = 0;
  for (int k = 0; k < nchosen; ++k) used += offer[chosen[k]];
  CHECK(used <= 600);
  CHECK(gridmap_select(GRIDMAP_SELECT_LOCAL, 2, 2, powers, offer, 30, 10, 2000, 2000, chosen,
                            &nchosen, &nr, &nc, 64, sids, 16, srows, scols, &st) == GRIDMAP_EINVAL);
  CHECK(strstr(gridmap_last_error(), "TPP = 10") != NULL);
  CHECK(gridmap_select(GRIDMAP_SELECT_LOCAL, 2, 2, powers, offer, 30, 600, 2000, 2000, chosen,
                            &nchosen, &nr, &nc, 2, sids, 16, srows, scols, &st) == GRIDMAP_EINVAL);
  CHECK(strstr(gridmap_last_error(), "slot_capacity") != NULL);

  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
