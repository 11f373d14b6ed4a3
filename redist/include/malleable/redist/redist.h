/* SPDX-License-Identifier: BSD-3-Clause */
/* C interface of redist: the extended descriptor (ScaLAPACK's DESC with per-row/column
 * block sizes) and PxGEMR2D-style redistribution between any two grids.
 *
 * Conventions follow ScaLAPACK: global indices IA/JA are 1-based, local storage is
 * column-major with leading dimension LLD, processes outside a grid pass a descriptor
 * whose ctxt is -1 (and no ranks), and every call that moves data is collective over the
 * enclosing communicator. Functions return REDIST_SUCCESS or an error code;
 * redist_error_message() explains the last error of the calling thread. */
#ifndef REDIST_REDIST_H
#define REDIST_REDIST_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes (same values as redist::ErrorCode). */
enum {
  REDIST_SUCCESS = 0,
  REDIST_ERR_INVALID_LAYOUT = 1,
  REDIST_ERR_SIZE_MISMATCH = 2,
  REDIST_ERR_REGION = 3,
  REDIST_ERR_LLD = 4,
  REDIST_ERR_NULL_BUFFER = 5,
  REDIST_ERR_NOT_IN_GRID = 6,
  REDIST_ERR_INCONSISTENT = 7,
  REDIST_ERR_MPI = 8,
  REDIST_ERR_INTERNAL = 9,
  REDIST_ERR_INVALID_ARGUMENT = 10 /* communicator handle, schedule or dim not valid */
};

/* Schedules: see docs/reference/redist.md for which is fastest here. */
enum {
  REDIST_CATERPILLAR = 0, /* Prylli-Tourancheau, as inside PDGEMR2D */
  REDIST_CIRCULANT = 1,   /* Park-Prasanna-Raghavendra, contention free */
  REDIST_MATCHING = 2,    /* bipartite edge colouring: contention free, max-degree steps */
  REDIST_ALLATONCE = 3,   /* every transfer posted at once */
  REDIST_DEFAULT = 4
};

/* Row or column dimension for the index functions. */
enum { REDIST_ROWS = 0, REDIST_COLS = 1 };

/* The extended descriptor. The grid is given either by a BLACS context (ctxt >= 0 on the
 * processes of the grid, -1 elsewhere; nprow/npcol are filled from it) or, with
 * ctxt == -1, by `ranks`: nprow*npcol ranks of the enclosing communicator, row-major.
 * Block sizes: row_blocks[0..nrow_blocks) if non-NULL, else uniform mb (the last block
 * possibly shorter), likewise columns. Arrays are borrowed, not copied. */
typedef struct redist_desc {
  int ctxt;
  int nprow, npcol;
  int rsrc, csrc;
  int mb, nb;
  int64_t m, n;
  int64_t lld;
  int64_t nrow_blocks, ncol_blocks;
  const int64_t* row_blocks;
  const int64_t* col_blocks;
  const int* ranks;
} redist_desc;

/* From a standard 9-integer ScaLAPACK DESC (DTYPE_=1). On processes outside the grid
 * (DESC(CTXT_) == -1) the result is a valid "not in this grid" descriptor and, as in
 * PDGEMR2D, no other entry is read (all nine -1, as CP2K passes, is fine). */
int redist_desc_from_scalapack(redist_desc* d, const int desc[9]);
/* Heterogeneous form on a BLACS grid: one size per row block / column block. With
 * ctxt == -1 (a process outside the grid) the result is a valid "not in this grid"
 * descriptor whatever the lists are (NULL included). An empty dimension needs no list. */
int redist_desc_init_blocks(redist_desc* d, int ctxt, int64_t nrow_blocks, const int64_t* row_blocks,
                            int64_t ncol_blocks, const int64_t* col_blocks, int rsrc, int csrc,
                            int64_t lld);
/* Back to a 9-integer DESC; fails with REDIST_ERR_INVALID_LAYOUT unless uniform. */
int redist_desc_to_scalapack(const redist_desc* d, int desc[9]);

/* Generalised NUMROC: rows (dim REDIST_ROWS) or columns held by process row/col iproc. */
int redist_numroc(const redist_desc* d, int dim, int iproc, int64_t* count);
/* Global index ig (1-based) -> owning process and local index (1-based). */
int redist_g2l(const redist_desc* d, int dim, int64_t ig, int* iproc, int64_t* il);
/* Local index il (1-based) on process iproc -> global index (1-based). */
int redist_l2g(const redist_desc* d, int dim, int iproc, int64_t il, int64_t* ig);

/* B(IB:IB+M-1, JB:JB+N-1) := A(IA:IA+M-1, JA:JA+N-1), collective over `comm`, which must
 * contain every process of both grids (BLACS grids: the communicator their system
 * context was made from). Processes outside a grid may pass NULL for its buffer. As
 * PDGEMR2D: nothing but comm, schedule, M and N is examined when M or N is 0, and IA/JA
 * (IB/JB) are taken from A's (B's) grid processes; errors are reported on every process
 * with B untouched (docs/reference/redist.md, "Error contract"). */
int redist_pdgemr2d(int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja, const redist_desc* desca,
                    double* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule);
int redist_psgemr2d(int64_t m, int64_t n, const float* a, int64_t ia, int64_t ja, const redist_desc* desca,
                    float* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule);
/* Complex: interleaved (re, im) arrays (C99 double _Complex or std::complex<double>). */
int redist_pzgemr2d(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca,
                    void* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule);
int redist_pcgemr2d(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca,
                    void* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule);

/* Drop-in shaped like ScaLAPACK's Cpdgemr2d: standard DESCs and a BLACS context `gctxt`
 * whose processes all call. When gctxt spans every BLACS process the call runs on BLACS's
 * system communicator, so a gctxt invalid on one process is reported on all; ranks in
 * messages are BLACS process numbers. Error contract: docs/reference/redist.md. */
int redist_Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b, int ib,
                     int jb, const int* descb, int gctxt, int schedule);

/* Fortran entry points (used by the `redist` Fortran module; Fortran MPI handles). */
int redist_pdgemr2d_f(int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      double* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule);
int redist_psgemr2d_f(int64_t m, int64_t n, const float* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      float* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule);
int redist_pzgemr2d_f(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      void* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule);
int redist_pcgemr2d_f(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      void* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule);

/* Fortran entry points with standard 9-integer DESCs: a DESC that is bad on one process
 * is reported on every process (with that process's message) instead of failing alone. */
int redist_pdgemr2d_fstd(int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja, const int* desca,
                         double* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule);
int redist_psgemr2d_fstd(int64_t m, int64_t n, const float* a, int64_t ia, int64_t ja, const int* desca,
                         float* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule);
int redist_pzgemr2d_fstd(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const int* desca,
                         void* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule);
int redist_pcgemr2d_fstd(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const int* desca,
                         void* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule);

/* Statistics of B := A over whole matrices on the enclosing communicator. Collective
 * over comm: a NULL argument or bad schedule on one process is every process's error.
 * Counts are elements. */
typedef struct redist_stats {
  int64_t elements_total, elements_local, elements_moved, messages;
  int64_t max_sent_by_one, max_recv_by_one;
  int steps;
} redist_stats;
int redist_plan_stats(const redist_desc* desca, const redist_desc* descb, MPI_Comm comm, int schedule,
                      redist_stats* stats);

/* Message of the last error on this thread ("" after success); code -> short text. */
const char* redist_error_message(void);
const char* redist_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
