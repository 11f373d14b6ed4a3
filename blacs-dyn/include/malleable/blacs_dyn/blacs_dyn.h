/* SPDX-License-Identifier: BSD-3-Clause */
/* blacs-dyn: a BLACS whose world can grow (MPI_Comm_spawn) and shrink (a communicator
 * stack of one communicator per world reached). The stock BLACS entry points (blacs_setup_, Cblacs_setup,
 * blacs_pinfo_, Cblacs_pinfo, blacs_get_, Cblacs_get, blacs_gridmap_, ...) are provided
 * by libmalleable_blacs_dyn and must be linked ahead of ScaLAPACK; this header is the
 * explicit API. Every function returns BLACS_DYN_OK or an error code; blacs_dyn_last_error()
 * gives the message. Collective functions are collective over the current world and
 * return the same code on every rank. */
#ifndef BLACS_DYN_BLACS_DYN_H
#define BLACS_DYN_BLACS_DYN_H

#include <mpi.h>
#include <stddef.h>

#include "malleable/blacs_dyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Current world: the communicator BLACS, PBLAS and ScaLAPACK use as "the world". */
MPI_Comm blacs_dyn_world(void);
int blacs_dyn_rank(void);
int blacs_dyn_size(void);
/* The current world as a Fortran handle (for Fortran and for MPI_Comm_f2c users). */
MPI_Fint blacs_dyn_world_f(void);

/* Expand collectively by nnew processes running `command` with `argv` (NULL-terminated,
 * may be NULL); `hosts` (may be NULL) is a comma-separated host list; `info` may be
 * MPI_INFO_NULL. Existing ranks keep their numbers; newcomers follow. Pushes a level.
 * As with MPI_Comm_spawn, command/argv/hosts/info are read on rank 0 only; nnew must
 * agree everywhere. Rank 0 spawns (over MPI_COMM_SELF), checks in every newcomer
 * within $BLACS_DYN_JOIN_TIMEOUT seconds (default 180) and then the whole world merges. */
int blacs_dyn_expand(int nnew, const char* command, char* const argv[], const char* hosts,
                MPI_Info info);
/* blacs_dyn_expand with the arguments as one string, split like a shell would split words
 * ('...' and "..." quotes, backslash escapes, no expansion); args and hosts may be NULL.
 * The form the Fortran module uses. */
int blacs_dyn_expand_args(int nnew, const char* command, const char* args, const char* hosts);
/* Expand collectively by one spawn group per host: counts[i] processes running `command`
 * on hosts[i] (a node name of the launcher's allocation). Group i is spawned by world rank
 * i mod size, so the spawns of different hosts run at the same time; newcomers get ranks
 * in host order, after the existing ones; one level is pushed. Each host's processes
 * share an MPI_COMM_WORLD of their own, so they can later leave together and free the
 * node (blacs_dyn_release_hosts). hosts, counts, command, argv and info are read on rank
 * 0 only; nhosts and the total count must agree everywhere. */
int blacs_dyn_expand_hosts(int nhosts, const char* const hosts[], const int counts[],
                           const char* command, char* const argv[], MPI_Info info);
/* Growing by joining (docs/reference/blacs-dyn.md, "Growing by joining"): a job whose
 * processes have BLACS_DYN_JOB_DIR=DIR (a private directory; malleable-run
 * --job-dir sets it up with an ompi-server) grows by whole launches of the same program
 * (mpiexec on one node each, BLACS_DYN_JOIN_LAUNCH=<id>: malleable-run --join DIR) that join
 * it at a remap point: world rank 0 connects to each (MPI_Comm_connect to the port it wrote
 * into DIR/join), checks its secret, uid and program before anything is merged, and the
 * launches become one level (one group each) as spawned groups do; a shrink that drops a
 * launch's processes ends the launch. Joined processes are newcomers (blacs_dyn_is_new)
 * exactly like spawned ones. */
/* Collective: 1 if this job can grow by joining (a job directory, an MPI that opens
 * ports), else 0 with the reason in blacs_dyn_join_unsupported_reason(). The same on
 * every rank. */
int blacs_dyn_join_supported(void);
const char* blacs_dyn_join_unsupported_reason(void);
/* 1 if the job's launcher starts the launches the job orders (BLACS_DYN_JOIN_AGENT,
 * set by malleable-run --job-dir) and, as far as this process knows, the job can be
 * joined: blacs_dyn_expand_join_hosts can be used. Local; exact on world rank 0. */
int blacs_dyn_join_can_order(void);
/* World rank 0 (elsewhere 0 and 0): the launches waiting to join now (their requests
 * pass the checks made without connecting; those that do not are refused, told and
 * logged in DIR/join.log) and their processes. Not collective (it reads DIR/join): a
 * caller broadcasts what rank 0 decides. */
int blacs_dyn_join_waiting(int* nlaunches, int* nprocs);
/* World rank 0, after blacs_dyn_join_waiting: launch i (0 <= i < nlaunches) of that
 * answer: its id and host (NUL-terminated, truncated to the lengths) and processes. */
int blacs_dyn_join_waiting_launch(int i, char* id, int idlen, char* host, int hostlen, int* procs);
/* Collective: expand by launches that join, one group each, all in one level. launches
 * names them (nlaunches ids, read on rank 0); launches NULL: the first nlaunches ready,
 * or with nlaunches 0 every launch ready now. Waits at most wait_seconds (<= 0: the join
 * timeout, BLACS_DYN_JOIN_TIMEOUT) for named or counted launches to come. All or
 * nothing: a launch refused (wrong secret, another uid, a stale launch, another program,
 * no heartbeat), dead or missing fails the call with BLACS_DYN_ERR_JOIN on every rank,
 * the others are sent away and the world is unchanged. */
int blacs_dyn_expand_join(int nlaunches, const char* const launches[], double wait_seconds);
/* Collective: world rank 0 orders one launch per host from the job's launcher
 * (counts[i] processes on hosts[i]; "" where the launcher runs) and the job joins them,
 * as blacs_dyn_expand_join with their ids; launches that did not join by then are called
 * off (the launcher ends them). hosts and counts are read on rank 0; nhosts must agree. */
int blacs_dyn_expand_join_hosts(int nhosts, const char* const hosts[], const int counts[], double wait_seconds);
/* This process's launch if it joined one: its id (NUL-terminated, truncated to len - 1
 * characters); "" for the job's first launch and spawned processes. Local. */
int blacs_dyn_launch_id(char* id, int len);

/* Expand as described by a schema file (NULL: $BLACS_SETUP_FILE, else ./blacs_setup.dat). */
int blacs_dyn_expand_schema(const char* path);

/* Shrink collectively to an earlier stack level (0 = the initial world). On return
 * *leaving is 1 on processes that are not in the new world: they must call
 * blacs_dyn_leave() (which disconnects and exits spawned groups, parks the others). */
int blacs_dyn_shrink_to_level(int level, int* leaving);
/* Shrink to the current-world ranks in keep[0..nkeep-1] (in that order); pushes a level.
 * keep[0] must be 0: rank 0 roots every spawn and releases parked processes at the end,
 * so it never leaves. */
int blacs_dyn_shrink_to_ranks(const int* keep, int nkeep, int* leaving);
/* A respawn's last step, collective over the current world: the processes the last
 * expansion started replace the world; every other process of the job (parked ones too)
 * ends. On return *leaving is 1 on the processes that end: they must call
 * blacs_dyn_leave(). The ones that stay go on as a job started with them (level 0 their
 * spawn's MPI_COMM_WORLD; after a spawn of one group per node, the first node's group and
 * one expansion by the others). Refused (BLACS_DYN_ERR_STATE, the world unchanged) when the
 * current level is no expansion, or under a job directory (growing by joining). */
int blacs_dyn_retire(int* leaving);
/* The spawn group (launch) of every rank of the current world into groups[0..n-1] (n at
 * least the world's size). Processes of one group share an MPI_COMM_WORLD and, with Open
 * MPI, its shared-memory transport. Local. */
int blacs_dyn_rank_groups(int* groups, int n);
/* Shrink collectively by giving whole nodes back: every process of the current world on
 * hosts[0..nhosts-1] leaves, and each of them must end (its spawn group leaves whole),
 * so that no process of the job stays on those nodes. Refused with BLACS_DYN_ERR_STATE,
 * world unchanged, when a process there would have to park instead (its spawn group has
 * members elsewhere, or it is one of the job's original processes), and with
 * BLACS_DYN_ERR_ARG for rank 0's node or a host the world does not use. The others keep
 * their order; pushes a level. The arguments must agree everywhere. */
int blacs_dyn_release_hosts(int nhosts, const char* const hosts[], int* leaving);
/* Collective: the node (MPI_Get_processor_name) of every rank of the current world:
 * names + r * stride holds rank r's, NUL-terminated (truncated to stride - 1 chars). */
int blacs_dyn_hosts(char* names, int stride);
/* For a process that left the world: exits (spawned group) or parks without using CPU
 * until the job ends. Does not return. */
void blacs_dyn_leave(void);
/* What blacs_dyn_leave() will do on this process after a shrink: 0 it stays in the world,
 * 1 it exits (its whole spawn group leaves), 2 it parks until the job ends. */
int blacs_dyn_leaving(void);

/* Optional hook run by the shrink functions on every member of the old world after the
 * request has been validated and before anybody leaves: the place to move data off
 * the leaving processes. new_rank[r] is the new rank of old rank r, or -1 if r leaves.
 * A nonzero return on any rank cancels the shrink (BLACS_DYN_ERR_STATE, nothing changed).
 * NULL removes the hook. */
typedef int (*blacs_dyn_shrink_hook)(MPI_Comm old_world, const int* new_rank, int old_size,
                                int new_size, void* user);
void blacs_dyn_set_shrink_hook(blacs_dyn_shrink_hook hook, void* user);

/* The stack. Level 0 is the initial world. */
int blacs_dyn_depth(void);                       /* number of levels, >= 1 */
int blacs_dyn_level_size(int level, int* size);  /* world size at a level */
int blacs_dyn_joined_level(void);                /* level at which this process joined */
int blacs_dyn_level_grid(int level, int* nprow, int* npcol); /* last grid made on that level's
                                                           world (0 x 0: none yet) */
/* Processes of the job: in the current world, parked (released from the world, waiting
 * for the end), exited (spawned groups that left). */
int blacs_dyn_process_counts(int* active, int* parked, int* exited);
int blacs_dyn_is_new(void);                      /* 1 if this process joined in the last expansion
                                               and has not yet called blacs_dyn_clear_new() */
void blacs_dyn_clear_new(void);

/* Join protocol: after an expansion, rank 0 of the world hands application state to
 * the newcomers (and everyone) as opaque bytes. Collective over the current world.
 * On rank 0 *len is the input length; elsewhere buf has capacity cap and *len returns
 * the received length. */
int blacs_dyn_share_state(void* buf, size_t* len, size_t cap);

/* Background expansions (needs MPI_THREAD_MULTIPLE). blacs_dyn_background_thread(1)
 * marks the calling thread as the one background thread: an expansion it makes
 * (blacs_dyn_expand*) stays pending - that thread alone sees the grown world
 * (blacs_dyn_world, _rank, _size, _hosts, _share_state) and its waits for other ranks
 * sleep rather than spin - while the other threads, the BLACS entry points and BLACS's
 * globals keep the old world. blacs_dyn_background_thread(0) ends the mark. Then the
 * main thread calls blacs_dyn_publish_background(): the pending world becomes the world
 * (*published = 1; 0 if nothing was pending). Other calls that change the world fail
 * with BLACS_DYN_ERR_STATE, on every thread, while a background thread runs or a world is
 * pending. */
int blacs_dyn_background_thread(int on);
int blacs_dyn_publish_background(int* published);
/* `fn(user)` runs once at the start of MPI_Finalize (blacs-dyn's wrapper), before
 * blacs-dyn releases parked processes or spawn links; NULL removes it. One hook. */
int blacs_dyn_set_finalize_hook(void (*fn)(void*), void* user);

/* 1 unless this job is known not to spawn: a spawn failed the way an MPI without dynamic
 * processes fails (MPICH 4.0.2 here: "Error in spawn call"), or BLACS_DYN_SPAWN=off. The
 * same on every rank; a caller (the resize session) refuses expansions up front then.
 * blacs_dyn_spawn_unsupported_reason() says why ("" while spawning is supported). */
int blacs_dyn_spawn_supported(void);
const char* blacs_dyn_spawn_unsupported_reason(void);

/* Open MPI's selected point-to-point layer (PML): "ucx", "ob1", "cm", found in the file
 * its module lives in (mca_pml_ucx.so); "" under another MPI or where that cannot be found
 * (a static build). Into name (NUL-terminated, truncated to len - 1 characters). Local;
 * after MPI_Init. */
int blacs_dyn_selected_pml(char* name, int len);

/* BLACS contexts outliving BLACS (blacs_dyn::Grid's release): the number of blacs_exit /
 * Cblacs_exit calls so far (either argument; each frees every context, and a later grid
 * may reuse a freed context's number), and 1 if `ctxt` names a live context of this
 * process in BLACS' table (ScaLAPACK 2.2), 0 otherwise. Neither calls MPI: both may be
 * called after MPI_Finalize. */
int blacs_dyn_blacs_exits(void);
int blacs_dyn_context_live(int ctxt);

const char* blacs_dyn_last_error(void);
const char* blacs_dyn_status_string(int code);

#ifdef __cplusplus
}
#endif
#endif
