/* Deprecated since malleable 0.2: include "malleable/resize/resize.h" instead */
/* (docs/naming.md). This forwarding header goes away in the next release. */
#ifndef MALLEABLE_COMPAT_APPS_RESIZE_H
#define MALLEABLE_COMPAT_APPS_RESIZE_H
#include "malleable/resize/resize.h"
/* The 0.1 names. */
#define MALL_RESIZE_ERR_ARG RESIZE_ERR_ARG
#define MALL_RESIZE_ERR_RESIZE RESIZE_ERR_RESIZE
#define MALL_RESIZE_ERR_STATE RESIZE_ERR_STATE
#define MALL_RESIZE_EXPAND RESIZE_EXPAND
#define MALL_RESIZE_NONE RESIZE_NONE
#define MALL_RESIZE_OK RESIZE_OK
#define MALL_RESIZE_SHRINK RESIZE_SHRINK
#define mall_resize_begin_iteration resize_begin_iteration
#define mall_resize_create resize_create
#define mall_resize_destroy resize_destroy
#define mall_resize_end_iteration resize_end_iteration
#define mall_resize_grid resize_grid
#define mall_resize_is_newcomer resize_is_newcomer
#define mall_resize_iteration resize_iteration
#define mall_resize_join resize_join
#define mall_resize_last_error resize_last_error
#define mall_resize_print_summary resize_print_summary
#define mall_resize_register resize_register
#define mall_resize_remap_point resize_remap_point
#define mall_resize_session resize_session
#define mall_resize_start resize_start
#define mall_resize_status resize_status
#define mall_resize_world resize_world
#define mall_resize_world_f resize_world_f
#define mall_resize_world_rank resize_world_rank
#endif
