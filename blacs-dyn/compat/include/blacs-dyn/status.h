/* Deprecated since malleable 0.2: include "malleable/blacs_dyn/status.h" instead */
/* (docs/naming.md). This forwarding header goes away in the next release. */
#ifndef MALLEABLE_COMPAT_BLACS_DYN_STATUS_H
#define MALLEABLE_COMPAT_BLACS_DYN_STATUS_H
#include "malleable/blacs_dyn/status.h"
/* The 0.1 names. */
#define BDYN_ERR_ARG BLACS_DYN_ERR_ARG
#define BDYN_ERR_MPI BLACS_DYN_ERR_MPI
#define BDYN_ERR_SCHEMA BLACS_DYN_ERR_SCHEMA
#define BDYN_ERR_SPAWN BLACS_DYN_ERR_SPAWN
#define BDYN_ERR_STATE BLACS_DYN_ERR_STATE
#define BDYN_ERR_TIMEOUT BLACS_DYN_ERR_TIMEOUT
#define BDYN_OK BLACS_DYN_OK
#endif
