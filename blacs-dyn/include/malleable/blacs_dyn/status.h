/* SPDX-License-Identifier: BSD-3-Clause */
/* blacs-dyn status codes; kept apart from blacs_dyn.h so the pure planning code and its
 * unit tests do not depend on mpi.h. */
#ifndef BLACS_DYN_STATUS_H
#define BLACS_DYN_STATUS_H

enum blacs_dyn_status {
  BLACS_DYN_OK = 0,
  BLACS_DYN_ERR_ARG = 1,     /* a bad argument (the message names it) */
  BLACS_DYN_ERR_SCHEMA = 2,  /* schema file missing or malformed */
  BLACS_DYN_ERR_SPAWN = 3,   /* MPI_Comm_spawn failed or was refused (no such executable, too many
                           processes) */
  BLACS_DYN_ERR_STATE = 4,   /* call out of order (e.g. shrink below level 0) */
  BLACS_DYN_ERR_MPI = 5,     /* another MPI error */
  BLACS_DYN_ERR_TIMEOUT = 6, /* a joining process did not answer in time */
  BLACS_DYN_ERR_UNSUPPORTED = 7, /* this MPI cannot spawn here (e.g. MPICH without dynamic
                                   processes, or BLACS_DYN_SPAWN=off): nothing changed, and
                                   further expansions are refused up front */
  BLACS_DYN_ERR_JOIN = 8 /* an expansion by joining did not take place: a launch was refused,
                            died or did not come in time, or the job cannot be joined (no job
                            directory, an MPI without ports); the world is unchanged */
};

#endif
