/* The resize session from C (and, through ISO_C_BINDING, Fortran: module
 * malleable_resize). Every function returns MALL_RESIZE_OK or an error code;
 * mall_resize_last_error() gives the message. Collective functions are collective over
 * the session's world (mall_resize_world()).
 *
 * Typical loop (every process, original or spawned, runs the same program):
 *   mall_resize_create(argc, argv, "myapp", "scripted", "3:expand:3x3:local2,6:shrink:2x2", &s);
 *   mall_resize_register(s, "A", n, n, nb, nb, 0, descA, &a);    (a: double*, owned by s)
 *   if (mall_resize_is_newcomer(s)) mall_resize_join(s, &it);
 *   else { mall_resize_start(s, 2, 2); it = 0; ...fill a... }
 *   while (it < iters) { mall_resize_begin_iteration(s); ...PBLAS on descA/a...;
 *                        mall_resize_end_iteration(s); ++it; mall_resize_remap_point(s, &act); }
 *   mall_resize_print_summary(s, "N=...", "check text", ok); mall_resize_destroy(s);
 * After each remap point the session may have reallocated `a` and rewritten descA. */
#ifndef APPS_RESIZE_H
#define APPS_RESIZE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mall_resize_status {
  MALL_RESIZE_OK = 0,
  MALL_RESIZE_ERR_ARG = 1,    /* a bad argument (the message names it) */
  MALL_RESIZE_ERR_STATE = 2,  /* call out of order */
  MALL_RESIZE_ERR_RESIZE = 3  /* the resize failed; the job continues on its old grid */
};

/* Actions reported by mall_resize_remap_point. */
enum { MALL_RESIZE_NONE = 0, MALL_RESIZE_EXPAND = 1, MALL_RESIZE_SHRINK = 2 };

typedef struct mall_resize_session mall_resize_session;

/* policy: "fixed", "scripted" (schedule = text or file) or "sweetspot" (schedule = offer
 * file, NULL for $MALL_OFFER). Redistribution with redist; MALL_RESIZE_MOVER=pdgemr2d in
 * the environment selects ScaLAPACK's PDGEMR2D. */
int mall_resize_create(int argc, char** argv, const char* app, const char* policy,
                       const char* schedule, mall_resize_session** s);
void mall_resize_destroy(mall_resize_session* s);

/* dist: 0 = block-cyclic with MB x NB, 1 = block (one block per process row/column).
 * *buf is allocated, reallocated and freed by the session (malloc/free). */
int mall_resize_register(mall_resize_session* s, const char* name, int m, int n, int mb, int nb,
                         int dist, int* desc, double** buf);
int mall_resize_is_newcomer(const mall_resize_session* s);
int mall_resize_start(mall_resize_session* s, int nprow, int npcol);
int mall_resize_join(mall_resize_session* s, int* iteration);
void mall_resize_begin_iteration(mall_resize_session* s);
void mall_resize_end_iteration(mall_resize_session* s);
/* *action: MALL_RESIZE_NONE/EXPAND/SHRINK; returns MALL_RESIZE_ERR_RESIZE if it failed. */
int mall_resize_remap_point(mall_resize_session* s, int* action);

/* The current grid: BLACS context (-1 off the grid), shape and my coordinates. */
int mall_resize_grid(const mall_resize_session* s, int* ctxt, int* nprow, int* npcol, int* myrow,
                     int* mycol);
int mall_resize_iteration(const mall_resize_session* s);
MPI_Comm mall_resize_world(const mall_resize_session* s);
MPI_Fint mall_resize_world_f(const mall_resize_session* s);
int mall_resize_world_rank(const mall_resize_session* s);

/* Prints the summary table (world rank 0) with the application's check result. */
int mall_resize_print_summary(const mall_resize_session* s, const char* problem, const char* check,
                              int check_ok);

const char* mall_resize_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
