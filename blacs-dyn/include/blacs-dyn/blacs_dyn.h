/* blacs-dyn: a BLACS whose world can grow (MPI_Comm_spawn) and shrink (a communicator
 * stack), seed 002 §3.3. The stock BLACS entry points (blacs_setup_, Cblacs_setup,
 * blacs_pinfo_, Cblacs_pinfo, blacs_get_, Cblacs_get, blacs_gridmap_, ...) are provided
 * by libmall_blacs_dyn and must be linked ahead of ScaLAPACK; this header is the
 * explicit API. Every function returns BDYN_OK or an error code; bdyn_last_error()
 * gives the message. Collective functions are collective over the current world and
 * return the same code on every rank. */
#ifndef BLACS_DYN_BLACS_DYN_H
#define BLACS_DYN_BLACS_DYN_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bdyn_status {
  BDYN_OK = 0,
  BDYN_ERR_ARG = 1,     /* a bad argument (the message names it) */
  BDYN_ERR_SCHEMA = 2,  /* schema file missing or malformed */
  BDYN_ERR_SPAWN = 3,   /* MPI_Comm_spawn failed (no such executable, too many processes) */
  BDYN_ERR_STATE = 4,   /* call out of order (e.g. shrink below level 0) */
  BDYN_ERR_MPI = 5,     /* another MPI error */
  BDYN_ERR_TIMEOUT = 6  /* a joining process did not answer in time */
};

/* Current world: the communicator BLACS, PBLAS and ScaLAPACK use as "the world". */
MPI_Comm bdyn_world(void);
int bdyn_rank(void);
int bdyn_size(void);

/* Expand collectively by nnew processes running `command` with `argv` (NULL-terminated,
 * may be NULL); `hosts` (may be NULL) is a comma-separated host list; `info` may be
 * MPI_INFO_NULL. Existing ranks keep their numbers; newcomers follow. Pushes a level. */
int bdyn_expand(int nnew, const char* command, char* const argv[], const char* hosts,
                MPI_Info info);
/* Expand as described by a schema file (NULL: $BLACS_SETUP_FILE, else ./blacs_setup.dat). */
int bdyn_expand_schema(const char* path);

/* Shrink collectively to an earlier stack level (0 = the initial world). On return
 * *leaving is 1 on processes that are not in the new world: they must call
 * bdyn_leave() (which disconnects and exits spawned groups, parks the others). */
int bdyn_shrink_to_level(int level, int* leaving);
/* Shrink to the current-world ranks in keep[0..nkeep-1] (in that order); pushes a level. */
int bdyn_shrink_to_ranks(const int* keep, int nkeep, int* leaving);
/* For a process that left the world: exits (spawned group) or parks without using CPU
 * until the job ends. Does not return. */
void bdyn_leave(void);

/* The stack. Level 0 is the initial world. */
int bdyn_depth(void);                       /* number of levels, >= 1 */
int bdyn_level_size(int level, int* size);  /* world size at a level */
int bdyn_joined_level(void);                /* level at which this process joined */
int bdyn_is_new(void);                      /* 1 if this process joined in the last expansion
                                               and has not yet called bdyn_clear_new() */
void bdyn_clear_new(void);

/* Join protocol: after an expansion, rank 0 of the world hands application state to
 * the newcomers (and everyone) as opaque bytes. Collective over the current world.
 * On rank 0 *len is the input length; elsewhere buf has capacity cap and *len returns
 * the received length. */
int bdyn_share_state(void* buf, size_t* len, size_t cap);

const char* bdyn_last_error(void);
const char* bdyn_status_string(int code);

#ifdef __cplusplus
}
#endif
#endif
