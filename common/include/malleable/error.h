/* SPDX-License-Identifier: BSD-3-Clause */
/* The one enumeration of what went wrong, for every part of malleable, and the parts that
 * raise errors. An error keeps its code and part from where it was raised to the caller
 * (C++: malleable::Error, malleable/error.hpp, which every part's Error is); the C APIs
 * return their own status codes as before and report the code and part of the last
 * failure (resize_last_error_code, resize_last_error_part). The values never change. */
#ifndef MALLEABLE_ERROR_H
#define MALLEABLE_ERROR_H

enum malleable_error_code {
  MALLEABLE_OK = 0,
  /* any part */
  MALLEABLE_ERR_ARG = 1,          /* a bad argument (the message names it and its value) */
  MALLEABLE_ERR_STATE = 2,        /* a call out of order */
  MALLEABLE_ERR_MPI = 3,          /* an MPI call failed */
  MALLEABLE_ERR_INTERNAL = 4,     /* an unexpected failure (out of memory, a broken invariant) */
  MALLEABLE_ERR_INCONSISTENT = 5, /* processes passed different arguments to a collective call */
  MALLEABLE_ERR_TIMEOUT = 6,      /* a process did not answer in time */
  /* blacs-dyn: the world's changes */
  MALLEABLE_ERR_SCHEMA = 10,            /* a schema file missing or malformed */
  MALLEABLE_ERR_SPAWN = 11,             /* MPI_Comm_spawn failed or was refused */
  MALLEABLE_ERR_SPAWN_UNSUPPORTED = 12, /* this MPI cannot spawn here; nothing changed */
  MALLEABLE_ERR_JOIN = 13,              /* an expansion by joining did not take place */
  /* redist: layouts and their exchange */
  MALLEABLE_ERR_LAYOUT = 20,        /* a descriptor or layout field out of range */
  MALLEABLE_ERR_SIZE_MISMATCH = 21, /* two matrices (or regions) disagree on their global sizes */
  MALLEABLE_ERR_REGION = 22,        /* a submatrix that does not fit in its matrix */
  MALLEABLE_ERR_LLD = 23,           /* a leading dimension below the local rows */
  MALLEABLE_ERR_NULL_BUFFER = 24,   /* a participating process passed no buffer */
  MALLEABLE_ERR_NOT_IN_GRID = 25,   /* a process claims data of a grid it is not part of */
  /* gridmap: grids and placements */
  MALLEABLE_ERR_IMPOSSIBLE = 30, /* valid input, but no plan exists */
  /* resize: the session */
  MALLEABLE_ERR_RESIZE = 40,     /* a resize failed; the job continues on its old grid */
  MALLEABLE_ERR_CHECKPOINT = 41, /* a checkpoint could not be written; the previous ones are intact */
  /* cluster: the batch system */
  MALLEABLE_ERR_BATCH = 50 /* Slurm, the arbiter or one of their files said what cannot be used */
};

enum malleable_error_part {
  MALLEABLE_PART_NONE = 0, /* no failure yet */
  MALLEABLE_PART_BLACS_DYN = 1,
  MALLEABLE_PART_REDIST = 2,
  MALLEABLE_PART_GRIDMAP = 3,
  MALLEABLE_PART_RESIZE = 4,
  MALLEABLE_PART_CLUSTER = 5
};

#endif
