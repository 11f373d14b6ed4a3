/* SPDX-License-Identifier: BSD-3-Clause */
/* The resize session from C (and, through ISO_C_BINDING, Fortran: module
 * malleable_resize). Every function returns RESIZE_OK or an error code;
 * resize_last_error() gives the message. Collective functions are collective over
 * the session's world (resize_world()).
 *
 * Typical loop (every process, original or spawned, runs the same program):
 *   resize_create(argc, argv, "myapp", "scripted", "3:expand:3x3:local2,6:shrink:2x2", &s);
 *   resize_register(s, "A", n, n, nb, nb, RESIZE_DIST_BLOCK_CYCLIC, descA, &a);    (a: double*, owned by s)
 *   if (resize_is_newcomer(s)) resize_join(s, &it);
 *   else { resize_start(s, 2, 2); it = 0; ...fill a... }
 *   while (it < iters) { resize_begin_iteration(s); ...PBLAS on descA/a...;
 *                        resize_end_iteration(s); ++it; resize_remap_point(s, &act); }
 *   resize_print_summary(s, "N=...", "check text", ok); resize_destroy(s);
 * After each remap point the session may have reallocated `a` and rewritten descA. */
#ifndef APPS_RESIZE_H
#define APPS_RESIZE_H

#include <mpi.h>
#include <stddef.h>

#include "malleable/error.h"

/* Complex elements: C99 float/double _Complex in C, std::complex in C++ (the same
 * interleaved (re, im) layout, as LAPACKE does). */
#ifdef __cplusplus
#include <complex>
typedef std::complex<float> resize_complex_float;
typedef std::complex<double> resize_complex_double;
#else
typedef float _Complex resize_complex_float;
typedef double _Complex resize_complex_double;
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum resize_status {
  RESIZE_OK = 0,
  RESIZE_ERR_ARG = 1,    /* a bad argument (the message names it), or any failure below */
  RESIZE_ERR_STATE = 2,  /* call out of order (MALLEABLE_ERR_STATE, from any part) */
  RESIZE_ERR_RESIZE = 3, /* the resize failed; the job continues on its old grid */
  RESIZE_ERR_CHECKPOINT = 4 /* a checkpoint (or DIR/<app>.next) could not be written: the
                               same on every process, the previous checkpoints untouched */
};

/* Distributions for resize_register's `dist` (redist::Distribution's first two). */
enum { RESIZE_DIST_BLOCK_CYCLIC = 0, /* ScaLAPACK's block-cyclic with MB x NB */
       RESIZE_DIST_BLOCK = 1         /* one block per process row/column */ };

/* Actions reported by resize_remap_point. */
enum { RESIZE_NONE = 0, RESIZE_EXPAND = 1, RESIZE_SHRINK = 2, RESIZE_REGRID = 3 };

typedef struct resize_session resize_session;

/* policy: "fixed", "scripted" (schedule = text or file), "sweetspot" (schedule = offer
 * file, NULL for $RESIZE_OFFER) or "slurm" (schedule = "iterations=N", the run's
 * iterations for its payoff test, or NULL for $RESIZE_SLURM_ITERATIONS: under Slurm by
 * the recipe of docs/guide/slurm.md). RESIZE_POLICY=slurm or fixed in the environment
 * replaces the program's policy (docs/guide/configuration.md). Redistribution with redist; RESIZE_MOVER=pdgemr2d in
 * the environment selects ScaLAPACK's PDGEMR2D. RESIZE_MOVE_BUDGET=<bytes>[K|M|G] bounds the
 * new matrix buffers a process allocates at once during a resize's move (docs/reference/apps.md,
 * "Memory of a resize"; default: no limit). */
int resize_create(int argc, char** argv, const char* app, const char* policy,
                       const char* schedule, resize_session** s);
void resize_destroy(resize_session* s);

/* dist: RESIZE_DIST_BLOCK_CYCLIC (0, MB x NB blocks) or RESIZE_DIST_BLOCK (1, one block per
 * process row/column).
 * *buf is allocated, reallocated and freed by the session (malloc/free): the variable
 * `buf` points to must stay valid until resize_destroy, which frees the buffer and sets
 * *buf to NULL (a free(*buf) of yours afterwards is harmless). Re-read *buf and desc
 * after start/join and after every remap point. */
int resize_register(resize_session* s, const char* name, int m, int n, int mb, int nb,
                         int dist, int* desc, double** buf);
/* The same for the other ScaLAPACK element types, by p?gemr2d's letter: _s float,
 * _c float complex, _z double complex (_d is resize_register). The data moves bit for
 * bit. Every process registers the same matrices, in the same order, with the same types. */
int resize_register_s(resize_session* s, const char* name, int m, int n, int mb, int nb,
                      int dist, int* desc, float** buf);
int resize_register_d(resize_session* s, const char* name, int m, int n, int mb, int nb,
                      int dist, int* desc, double** buf);
int resize_register_c(resize_session* s, const char* name, int m, int n, int mb, int nb,
                      int dist, int* desc, resize_complex_float** buf);
int resize_register_z(resize_session* s, const char* name, int m, int n, int mb, int nb,
                      int dist, int* desc, resize_complex_double** buf);
/* 1 on a process spawned by an expansion (it calls resize_join, not resize_start), also
 * after resize_join; 0 on the processes the launcher started. */
int resize_is_newcomer(const resize_session* s);
/* nprow = npcol = 0: every process of the world on a near-square grid (P <= Q). */
int resize_start(resize_session* s, int nprow, int npcol);
int resize_join(resize_session* s, int* iteration);
/* Checkpoint and restart (docs/guide/checkpoint.md). Collective: writes every registered
 * matrix, the completed iteration and the grid into ONE parallel HDF5 file at `path`
 * (under path.tmp, renamed when complete); RESIZE_ERR_CHECKPOINT if it cannot be
 * written (the same on every process). */
int resize_checkpoint(resize_session* s, const char* path);
/* Instead of resize_start, before the first remap point: starts on nprow x npcol and
 * reads every registered matrix from checkpoint `file` onto that grid; *iteration is the
 * number of completed iterations to continue from. A file that does not fit (another
 * program, other matrices/types/sizes, damaged, checksum mismatch) returns RESIZE_ERR_ARG
 * on every process with the same resize_last_error(); no file is changed. */
int resize_restart(resize_session* s, const char* file, int nprow, int npcol, int* iteration);
/* The same into dir/<app>-<iteration>.h5 (dir created if need be), keeping the newest
 * `keep` checkpoints (0: all). The file name is copied into file[0..file_len) when file
 * is not NULL (truncated, NUL-terminated). RESIZE_ERR_CHECKPOINT if it cannot be written. */
int resize_checkpoint_in(resize_session* s, const char* dir, int keep, char* file, int file_len);

/* Checkpoint cadence and resize by restart (docs/guide/checkpoint.md, "From C and Fortran").
 * resize_set_checkpointing (every process, after start/restart/join): checkpoints into
 * `dir` (created) every "N" iterations, every "<T>s|m|h", "auto" (Young/Daly from the
 * measured cost and mtbf_seconds > 0) or only when asked ("" or NULL: the last
 * iteration, a file dir/checkpoint.request, a resize by restart); `keep` newest kept
 * (0: all). resize_checkpoint_if_due (collective, after each iteration; last = 1 after
 * the last one): checkpoints when due; *written = 1 if it did (may be NULL).
 * resize_remap_or_restart (collective, instead of resize_remap_point): the policy's
 * decision carried out in place (RESIZE_MECHANISM_SPAWN; an expansion that fails, or with
 * RESIZE_REFRESH_AFTER=N one that would take this launch past N spawned processes, is
 * carried out by restart) or by restart (RESIZE_MECHANISM_RESTART). *step is
 * RESIZE_STEP_CONTINUE, RESIZE_STEP_RESIZED (re-read buffers and descriptors) or
 * RESIZE_STEP_EXIT_FOR_RESTART: the session checkpointed and wrote dir/<app>.next; call
 * resize_destroy, MPI_Finalize and exit with RESIZE_EXIT_RESIZE_BY_RESTART, and
 * malleable-run starts the program again with "-g PxQ --restart FILE" appended.
 * *action as resize_remap_point. RESIZE_ERR_RESIZE: a resize in place failed, the job
 * continues (*step CONTINUE). Without resize_set_checkpointing it is resize_remap_point. */
enum { RESIZE_MECHANISM_SPAWN = 0, RESIZE_MECHANISM_RESTART = 1 };
enum { RESIZE_STEP_CONTINUE = 0, RESIZE_STEP_RESIZED = 1, RESIZE_STEP_EXIT_FOR_RESTART = 2 };
#define RESIZE_EXIT_RESIZE_BY_RESTART 4
int resize_set_checkpointing(resize_session* s, const char* dir, const char* every, double mtbf_seconds, int keep);
int resize_checkpoint_if_due(resize_session* s, int last, int* written);
int resize_remap_or_restart(resize_session* s, int mechanism, int* step, int* action);
/* Checkpoint levels in the nodes' own storage (docs/guide/checkpoint.md, "Levels").
 * resize_set_level_checkpointing (every process, after start): dir ("" or NULL:
 * /dev/shm/malleable-<job>), local_every / partner_every as `every` above ("N", "<T>s",
 * "auto", "" never; a partner checkpoint writes the local level too), the MTBFs "auto"
 * uses per level, `keep` versions per level (0: all). resize_level_checkpoint_if_due
 * (collective, after each iteration): *written = 0 none, 1 local, 2 local + partner (may be
 * NULL); RESIZE_ERR_CHECKPOINT when a level cannot be written (the previous versions
 * intact). resize_restart_from_levels (instead of resize_start after a failure): every
 * registered matrix from the newest version complete across the levels in dir on the
 * nodes of this job, moved onto nprow x npcol; global_dir (may be NULL): the global
 * checkpoints used only for processes whose blocks are in no level. */
int resize_set_level_checkpointing(resize_session* s, const char* dir, const char* local_every,
                                   const char* partner_every, double local_mtbf, double partner_mtbf, int keep);
int resize_level_checkpoint_if_due(resize_session* s, int last, int* written);
int resize_restart_from_levels(resize_session* s, const char* dir, int nprow, int npcol, const char* global_dir,
                               int* iteration);
/* Collective: the policy's decision now without acting on it (*action, target grid
 * nprow x npcol; RESIZE_NONE: none), e.g. for a resize by restart of your own. */
int resize_next_decision(resize_session* s, int* action, int* nprow, int* npcol);
/* Collective: a dry run of the next resize (docs/guide/porting.md, "Dry run"): the policy
 * asked as at a remap point, its decision planned and NOT carried out (grids, merge,
 * respawn or background, nodes, each matrix's bytes kept and moved, each phase's predicted
 * cost). The plan as JSON (schema malleable.plan/1) into json[0..json_len) and as a table
 * into table[0..table_len), either may be NULL, NUL-terminated, the same on every process.
 * A buffer too short holds the text cut short and RESIZE_ERR_ARG names the size needed.
 * Nothing moves. (C++: Session::dry_run; RESIZE_DRY_RUN=1: every remap point a dry run.) */
int resize_dry_run(resize_session* s, char* json, size_t json_len, char* table, size_t table_len);

void resize_begin_iteration(resize_session* s);
void resize_end_iteration(resize_session* s);
/* This process computed `work` units (cells, flops) in `seconds` of its own compute in
 * the current iteration (not counting waits): the measured speeds behind adaptive
 * policies. Finite values >= 0, else RESIZE_ERR_ARG. Call between begin and end. */
int resize_report_compute(resize_session* s, double work, double seconds);
/* *action: RESIZE_NONE/EXPAND/SHRINK/REGRID; returns RESIZE_ERR_RESIZE if the resize was
 * refused or failed (the job continues on its old grid), resize_last_error_code and _part
 * then saying what refused it. */
int resize_remap_point(resize_session* s, int* action);

/* Background resizes (docs/reference/apps.md, "Background resizes"). resize_mark_constant: the
 * application does not change this registered matrix between remap points, so a resize
 * may move it while the old grid keeps computing (before start/join, every process).
 * resize_set_background: mode RESIZE_BACKGROUND_OFF (default), _WAIT (the completing
 * remap point waits for the background part) or _CONTINUE (it keeps iterating until the
 * part is done); a resize completes at the first remap point at least min_iterations
 * (>= 1) after it began. resize_complete (collective): completes a resize still under
 * way now; *action as resize_remap_point (RESIZE_NONE if none). */
enum { RESIZE_BACKGROUND_OFF = 0, RESIZE_BACKGROUND_WAIT = 1, RESIZE_BACKGROUND_CONTINUE = 2 };
int resize_mark_constant(resize_session* s, const char* name);
int resize_set_background(resize_session* s, int mode, int min_iterations);
int resize_complete(resize_session* s, int* action);
/* resize_cancel (collective, at the job's end, after the loop): a resize under way in the
 * background that has not switched is cancelled, not completed: an expansion's newcomers
 * exit, the job stays on its grid with its data; *action: what was cancelled
 * (RESIZE_EXPAND/SHRINK) or RESIZE_NONE. resize_complete is for a program that goes on
 * computing on the new grid after its loop. */
int resize_cancel(resize_session* s, int* action);

/* The application's own state: bytes it cannot recompute (a running sum, a seed),
 * handed to the newcomers at every expansion and kept in checkpoints (resize_restart
 * restores it). The session copies `bytes` bytes from `state` on world rank 0 into
 * `state` on every other process, newcomers included (during resize_join). The buffer
 * stays the application's and must live as long as the session; every process passes
 * the same size (a hand-over of another size fails resize_join with RESIZE_ERR_ARG).
 * Before resize_start / resize_join / resize_restart. NULL state with bytes > 0:
 * RESIZE_ERR_ARG. (C++: Session::set_app_state.) */
int resize_set_app_state(resize_session* s, void* state, size_t bytes);

/* The current grid: BLACS context (-1 off the grid), shape and my coordinates. */
int resize_grid(const resize_session* s, int* ctxt, int* nprow, int* npcol, int* myrow,
                     int* mycol);
int resize_iteration(const resize_session* s);
MPI_Comm resize_world(const resize_session* s);
MPI_Fint resize_world_f(const resize_session* s);
int resize_world_rank(const resize_session* s);

/* The run's report, the same as the drivers' (docs/reference/apps.md "Your program's summary").
 * resize_print_summary prints the summary table on world rank 0 (nothing elsewhere) with
 * the problem's name (NULL or "": the registered matrices) and the application's result
 * check (check NULL: none given). resize_set_result_check records the check alone.
 * resize_write_json writes the run as JSON (what malleable-plot draws) to `path` ("-":
 * stdout) on world rank 0; RESIZE_ERR_ARG if it cannot. Not collective. */
int resize_print_summary(resize_session* s, const char* problem, const char* check, int check_ok);
int resize_set_result_check(resize_session* s, int check_ok, const char* message);
int resize_write_json(const resize_session* s, const char* path);

/* The last failure of the calling thread: its message, and its code and part in the one
 * enumeration of malleable/error.h, as the part that raised it said them
 * (MALLEABLE_ERR_SPAWN and MALLEABLE_PART_BLACS_DYN for a spawn blacs-dyn refused,
 * MALLEABLE_ERR_ARG and MALLEABLE_PART_RESIZE for a bad argument of the session's own);
 * "", MALLEABLE_OK and MALLEABLE_PART_NONE before the first. A resize that
 * resize_remap_point refused or that failed (RESIZE_ERR_RESIZE): the code and part of what
 * refused it (MALLEABLE_ERR_STATE of MALLEABLE_PART_RESIZE for a decision the job's state
 * forbids, blacs-dyn's code where blacs-dyn refused), MALLEABLE_ERR_RESIZE where no finer
 * cause is known, its cause in the message. */
const char* resize_last_error(void);
int resize_last_error_code(void);
int resize_last_error_part(void);

#ifdef __cplusplus
}
#endif
#endif
