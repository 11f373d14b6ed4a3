/* Deprecated since malleable 0.2: include "malleable/blacs_dyn/blacs_dyn.h" instead */
/* (docs/naming.md). This forwarding header goes away in the next release. */
#ifndef MALLEABLE_COMPAT_BLACS_DYN_BLACS_DYN_H
#define MALLEABLE_COMPAT_BLACS_DYN_BLACS_DYN_H
#include "malleable/blacs_dyn/blacs_dyn.h"
#include "blacs-dyn/status.h" /* the 0.1 status names */
/* The 0.1 names. */
#define bdyn_clear_new blacs_dyn_clear_new
#define bdyn_depth blacs_dyn_depth
#define bdyn_expand blacs_dyn_expand
#define bdyn_expand_args blacs_dyn_expand_args
#define bdyn_expand_schema blacs_dyn_expand_schema
#define bdyn_is_new blacs_dyn_is_new
#define bdyn_joined_level blacs_dyn_joined_level
#define bdyn_last_error blacs_dyn_last_error
#define bdyn_leave blacs_dyn_leave
#define bdyn_leaving blacs_dyn_leaving
#define bdyn_level_grid blacs_dyn_level_grid
#define bdyn_level_size blacs_dyn_level_size
#define bdyn_process_counts blacs_dyn_process_counts
#define bdyn_rank blacs_dyn_rank
#define bdyn_set_shrink_hook blacs_dyn_set_shrink_hook
#define bdyn_share_state blacs_dyn_share_state
#define bdyn_shrink_hook blacs_dyn_shrink_hook
#define bdyn_shrink_to_level blacs_dyn_shrink_to_level
#define bdyn_shrink_to_ranks blacs_dyn_shrink_to_ranks
#define bdyn_size blacs_dyn_size
#define bdyn_status blacs_dyn_status
#define bdyn_status_string blacs_dyn_status_string
#define bdyn_world blacs_dyn_world
#define bdyn_world_f blacs_dyn_world_f
#endif
