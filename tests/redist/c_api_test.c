/* SPDX-License-Identifier: BSD-3-Clause */
/* The C interface from C: PDGEMR2D drop-in against ScaLAPACK, heterogeneous descriptors
 * against the known global matrix, index functions against ScaLAPACK TOOLS, collective
 * errors with codes and messages. Run on 4 processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malleable/redist/redist.h"
#include "malleable/redist/scalapack_api.h"

static int failures = 0;
static int me = 0;
#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      ++failures;                                               \
      fprintf(stderr, "[rank %d] %s:%d: ", me, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
    }                                                           \
  } while (0)

static double f(long i, long j) { return (double)(i * 1009 + j * 7 + 1); } /* 0-based global */

/* Local array of a block-cyclic matrix (uniform or explicit blocks) filled with f or -1. */
static double* make_local(const redist_desc* d, int myr, int myc, int fill, int64_t* rows, int64_t* cols) {
  if (redist_numroc(d, REDIST_ROWS, myr, rows) || redist_numroc(d, REDIST_COLS, myc, cols)) return NULL;
  const int64_t ld = d->lld;
  double* x = malloc(sizeof(double) * (size_t)(ld * (*cols > 0 ? *cols : 1)));
  for (int64_t k = 0; k < ld * (*cols > 0 ? *cols : 1); ++k) x[k] = -1.0;
  if (fill)
    for (int64_t jl = 1; jl <= *cols; ++jl)
      for (int64_t il = 1; il <= *rows; ++il) {
        int64_t ig = 0, jg = 0;
        redist_l2g(d, REDIST_ROWS, myr, il, &ig);
        redist_l2g(d, REDIST_COLS, myc, jl, &jg);
        x[(jl - 1) * ld + (il - 1)] = f((long)ig - 1, (long)jg - 1);
      }
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P != 4) {
    if (me == 0) fprintf(stderr, "run on 4 processes\n");
    MPI_Finalize();
    return 2;
  }
  int sys = 0, ca = 0, cb = 0, np_r, np_c, ar, ac, br = -1, bc = -1;
  Cblacs_get(-1, 0, &sys);
  ca = sys;
  Cblacs_gridinit(&ca, "R", 2, 2);
  Cblacs_gridinfo(ca, &np_r, &np_c, &ar, &ac);
  int usermap[3] = {3, 1, 0}; /* B: 1 x 3, rank 2 not in it */
  cb = sys;
  Cblacs_gridmap(&cb, usermap, 1, 1, 3);
  if (cb >= 0) Cblacs_gridinfo(cb, &np_r, &np_c, &br, &bc);

  /* 1. Drop-in: bit-identical to Cpdgemr2d on a submatrix with RSRC/CSRC != 0. */
  const int M = 57, N = 43, mba = 5, nba = 4, mbb = 3, nbb = 7;
  int desca[9], descb[9], info = 0, zero = 0, one = 1, three = 3, two = 2;
  int lla = numroc_(&M, &mba, &ar, &one, &two);
  if (lla < 1) lla = 1;
  descinit_(desca, &M, &N, &mba, &nba, &one, &one, &ca, &lla, &info);
  CHECK(info == 0, "descinit A info %d", info);
  redist_desc da;
  CHECK(redist_desc_from_scalapack(&da, desca) == REDIST_SUCCESS, "%s", redist_error_message());
  int64_t rows = 0, cols = 0;
  double* a = make_local(&da, ar, ac, 1, &rows, &cols);
  CHECK(rows == numroc_(&M, &mba, &ar, &one, &two), "numroc rows %ld", (long)rows);
  CHECK(cols == numroc_(&N, &nba, &ac, &one, &two), "numroc cols %ld", (long)cols);
  for (int ig = 1; ig <= M; ++ig) {
    int p = -1;
    int64_t il = 0;
    redist_g2l(&da, REDIST_ROWS, ig, &p, &il);
    CHECK(p == indxg2p_(&ig, &mba, &zero, &one, &two) && il == indxg2l_(&ig, &mba, &zero, &one, &two), "g2l %d", ig);
  }
  double *ref = NULL, *mine = NULL;
  int llb = 1;
  if (cb >= 0) {
    llb = numroc_(&M, &mbb, &br, &zero, &one) + 2;
    int nloc = numroc_(&N, &nbb, &bc, &two, &three);
    descinit_(descb, &M, &N, &mbb, &nbb, &zero, &two, &cb, &llb, &info);
    ref = malloc(sizeof(double) * (size_t)(llb * (nloc > 0 ? nloc : 1)));
    mine = malloc(sizeof(double) * (size_t)(llb * (nloc > 0 ? nloc : 1)));
    for (int k = 0; k < llb * (nloc > 0 ? nloc : 1); ++k) ref[k] = mine[k] = -1.0;
  } else {
    memset(descb, 0, sizeof descb);
    descb[0] = 1;
    descb[1] = -1;
    descb[2] = M;
    descb[3] = N;
  }
  Cpdgemr2d(30, 25, a, 10, 8, desca, ref, 20, 12, descb, ca);
  int rc = redist_Cpdgemr2d(30, 25, a, 10, 8, desca, mine, 20, 12, descb, ca, REDIST_MATCHING);
  CHECK(rc == REDIST_SUCCESS, "redist_Cpdgemr2d: %s", redist_error_message());
  if (cb >= 0) {
    int nloc = numroc_(&N, &nbb, &bc, &two, &three);
    CHECK(memcmp(ref, mine, sizeof(double) * (size_t)(llb * (nloc > 0 ? nloc : 1))) == 0, "differs from Cpdgemr2d");
  }

  /* 2. Heterogeneous B (explicit block sizes on the B grid) against the global matrix. */
  const int64_t rblocks[4] = {20, 7, 25, 5}; /* sum 57 */
  const int64_t cblocks[5] = {2, 15, 9, 11, 6}; /* sum 43 */
  redist_desc dh;
  int64_t hrows = 0, hcols = 0;
  double* h = NULL;
  if (cb >= 0) {
    redist_desc probe;
    redist_desc_init_blocks(&probe, cb, 4, rblocks, 5, cblocks, 0, 1, 1);
    redist_numroc(&probe, REDIST_ROWS, br, &hrows);
    CHECK(redist_desc_init_blocks(&dh, cb, 4, rblocks, 5, cblocks, 0, 1, hrows > 0 ? hrows : 1) == REDIST_SUCCESS,
          "%s", redist_error_message());
    h = make_local(&dh, br, bc, 0, &hrows, &hcols);
  } else {
    memset(&dh, 0, sizeof dh);
    dh.ctxt = -1;
  }
  rc = redist_pdgemr2d(M, N, a, 1, 1, &da, h, 1, 1, &dh, MPI_COMM_WORLD, REDIST_CIRCULANT);
  CHECK(rc == REDIST_SUCCESS, "redist_pdgemr2d heterogeneous: %s", redist_error_message());
  if (cb >= 0)
    for (int64_t jl = 1; jl <= hcols; ++jl)
      for (int64_t il = 1; il <= hrows; ++il) {
        int64_t ig = 0, jg = 0;
        redist_l2g(&dh, REDIST_ROWS, br, il, &ig);
        redist_l2g(&dh, REDIST_COLS, bc, jl, &jg);
        CHECK(h[(jl - 1) * dh.lld + il - 1] == f((long)ig - 1, (long)jg - 1), "B(%ld,%ld)", (long)ig, (long)jg);
      }

  /* 3. Stats: every element counted once. */
  redist_stats st;
  rc = redist_plan_stats(&da, &dh, MPI_COMM_WORLD, REDIST_MATCHING, &st);
  CHECK(rc == REDIST_SUCCESS && st.elements_total == (int64_t)M * N &&
            st.elements_local + st.elements_moved == st.elements_total && st.steps > 0,
        "stats rc %d total %ld", rc, (long)st.elements_total);

  /* 4. Collective errors: LLD too small on rank 1 only; all ranks get the code and the
   *    message names rank 1; B untouched. */
  redist_desc bad = da;
  if (me == 1) bad.lld = 1;
  double before = h ? h[0] : 0.0;
  if (h) h[0] = -5.0;
  rc = redist_pdgemr2d(M, N, a, 1, 1, &bad, h, 1, 1, &dh, MPI_COMM_WORLD, REDIST_DEFAULT);
  CHECK(rc == REDIST_ERR_LLD, "expected REDIST_ERR_LLD, got %d (%s)", rc, redist_error_message());
  CHECK(strstr(redist_error_message(), "rank 1") != NULL, "message: %s", redist_error_message());
  CHECK(h == NULL || h[0] == -5.0, "B changed on failure");
  if (h) h[0] = before;
  /* Size mismatch (region larger than B) everywhere. */
  rc = redist_pdgemr2d(M, N + 1, a, 1, 1, &da, h, 1, 1, &dh, MPI_COMM_WORLD, REDIST_DEFAULT);
  CHECK(rc == REDIST_ERR_REGION, "expected REDIST_ERR_REGION, got %d (%s)", rc, redist_error_message());
  /* A context that is not valid on this process. */
  redist_desc ghost = da;
  if (me == 2) ghost.ctxt = 977;
  rc = redist_pdgemr2d(M, N, a, 1, 1, &ghost, h, 1, 1, &dh, MPI_COMM_WORLD, REDIST_DEFAULT);
  CHECK(rc == REDIST_ERR_NOT_IN_GRID, "expected REDIST_ERR_NOT_IN_GRID, got %d (%s)", rc, redist_error_message());
  /* Processes disagreeing on a descriptor. */
  redist_desc other = da;
  if (me == 3) other.mb = 6;
  rc = redist_pdgemr2d(M, N, a, 1, 1, &other, h, 1, 1, &dh, MPI_COMM_WORLD, REDIST_DEFAULT);
  CHECK(rc == REDIST_ERR_INCONSISTENT, "expected REDIST_ERR_INCONSISTENT, got %d (%s)", rc, redist_error_message());
  CHECK(strcmp(redist_strerror(REDIST_ERR_LLD), "local leading dimension too small") == 0, "strerror");
  int desc_back[9];
  CHECK(redist_desc_to_scalapack(&da, desc_back) == REDIST_SUCCESS && memcmp(desc_back, desca, sizeof desca) == 0,
        "to_scalapack round trip");
  if (cb >= 0) CHECK(redist_desc_to_scalapack(&dh, desc_back) == REDIST_ERR_INVALID_LAYOUT, "non-uniform to DESC");

  free(a);
  free(ref);
  free(mine);
  free(h);
  if (cb >= 0) Cblacs_gridexit(cb);
  Cblacs_gridexit(ca);
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("redist C API: %s (%d failed checks)\n", any ? "FAILED" : "passed", any);
  MPI_Finalize();
  return any ? 1 : 0;
}
