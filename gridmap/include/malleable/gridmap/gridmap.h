/* SPDX-License-Identifier: BSD-3-Clause */
/* gridmap C API: topology choice, placement on expansion, data moved, heterogeneous
 * mapping and processor selection for C and Fortran callers.
 * Every function returns a status; on failure gridmap_last_error() (per thread)
 * names the argument and value at fault. Process ids are ranks of the communicator the
 * redistribution runs on (old processes 0..P-1, spawned ones P...). Grids are row-major:
 * slot (i, j) is element i*cols + j. */
#ifndef GRIDMAP_H
#define GRIDMAP_H

#ifdef __cplusplus
extern "C" {
#endif

enum gridmap_status {
  GRIDMAP_OK = 0,
  GRIDMAP_EINVAL = 1,      /* bad input (zero power, P < 1, wrong lengths, ...) */
  GRIDMAP_EIMPOSSIBLE = 2, /* valid input but no plan exists (5x5 + 3 locally) */
  GRIDMAP_EINTERNAL = 3    /* unexpected failure (out of memory, LAPACK) */
};

enum gridmap_placement { GRIDMAP_GLOBAL = 0, GRIDMAP_LOCAL1 = 1,
                              GRIDMAP_LOCAL2 = 2, GRIDMAP_OPTIMAL = 3 };
enum gridmap_method { GRIDMAP_SVD = 0, GRIDMAP_NATURAL_BLOCK = 1 };
enum gridmap_selection { GRIDMAP_SELECT_GLOBAL = 0, GRIDMAP_SELECT_LOCAL = 1,
                              GRIDMAP_SELECT_MIXED = 2, GRIDMAP_SELECT_ADAPTIVE = 3 };

/* Message of the last failed call on this thread ("" after a success). */
const char* gridmap_last_error(void);

/* Topology for nprocs processes under c <= p*r, r <= q*c (§5.1.1); p or q <= 0 means
 * unconstrained. */
int gridmap_choose_topology(int nprocs, double p, double q, int* rows, int* cols);

/* Local expansion optimiser (§5.2.1.2): rows x cols grid, `offered` processes. final_grid
 * = 0 applies the constraints to the increment (thesis), 1 to the final grid. Returns
 * GRIDMAP_EIMPOSSIBLE (message says what Global would do) if no step fits. */
int gridmap_local_expansion(int rows, int cols, int offered, double p, double q,
                                 int final_grid, int* add_rows, int* add_cols);

/* Placement of the new_rows x new_cols grid after growing old_rows x old_cols.
 * old_slots may be NULL (row-major 0..P-1). Local1/Local2 need new >= old in both
 * dimensions. The matrix (m x n, mb x nb blocks, or block = 1 for one block per process)
 * is used by GRIDMAP_OPTIMAL only. slots receives new_rows*new_cols ids. */
int gridmap_place(int strategy, int old_rows, int old_cols, const int* old_slots,
                       int new_rows, int new_cols, long long m, long long n, long long mb,
                       long long nb, int block, int* slots);

/* Exact elements moved and kept between two placements of one matrix (redist's plan). */
int gridmap_moved_elements(int old_rows, int old_cols, const int* old_slots,
                                int new_rows, int new_cols, const int* new_slots,
                                long long m, long long n, long long mb, long long nb, int block,
                                long long* moved, long long* kept);

/* Heterogeneous mapping of nprocs = rows*cols processors (§6.2). thesis_only = 1 runs the
 * SVD heuristic as the thesis ran it (rank-1 rows, feasible columns, T_opt refinement; no
 * coordinate ascent, no swap search: HeteroOptions::thesis()). Outputs:
 * ids[rows*cols] (processor index per slot), row_sizes[rows], col_sizes[cols] (sum m, n),
 * t_opt[rows*cols] and iteration_time (max r_i c_j / power_ij) may be NULL. */
int gridmap_hetero_map(int method, int thesis_only, int rows, int cols,
                            const double* powers, int nprocs, long long m, long long n, int* ids,
                            long long* row_sizes, long long* col_sizes, double* t_opt,
                            double* iteration_time);

/* Processor selection under a TPP budget (§6.3). The current grid is rows x cols with
 * powers[rows*cols] arranged row-major (sized, not rearranged). Outputs: chosen indices
 * into free_powers (capacity nfree) and their count, the new grid, and if the buffers
 * are large enough (slot_capacity >= new rows*cols, line_capacity >= new rows and cols)
 * ids, row and column sizes; else GRIDMAP_EINVAL naming the size needed. */
int gridmap_select(int strategy, int rows, int cols, const double* powers,
                        const double* free_powers, int nfree, double tpp, long long m,
                        long long n, int* chosen, int* nchosen, int* new_rows, int* new_cols,
                        int slot_capacity, int* ids, int line_capacity, long long* row_sizes,
                        long long* col_sizes, double* iteration_time);

#ifdef __cplusplus
}
#endif

#endif /* GRIDMAP_H */
