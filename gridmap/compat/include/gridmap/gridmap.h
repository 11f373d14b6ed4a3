/* Deprecated since malleable 0.2: include "malleable/gridmap/gridmap.h" instead */
/* (docs/naming.md). This forwarding header goes away in the next release. */
#ifndef MALLEABLE_COMPAT_GRIDMAP_GRIDMAP_H
#define MALLEABLE_COMPAT_GRIDMAP_GRIDMAP_H
#include "malleable/gridmap/gridmap.h"
/* The 0.1 names. */
#define MALL_GRIDMAP_EIMPOSSIBLE GRIDMAP_EIMPOSSIBLE
#define MALL_GRIDMAP_EINTERNAL GRIDMAP_EINTERNAL
#define MALL_GRIDMAP_EINVAL GRIDMAP_EINVAL
#define MALL_GRIDMAP_GLOBAL GRIDMAP_GLOBAL
#define MALL_GRIDMAP_LOCAL1 GRIDMAP_LOCAL1
#define MALL_GRIDMAP_LOCAL2 GRIDMAP_LOCAL2
#define MALL_GRIDMAP_NATURAL_BLOCK GRIDMAP_NATURAL_BLOCK
#define MALL_GRIDMAP_OK GRIDMAP_OK
#define MALL_GRIDMAP_OPTIMAL GRIDMAP_OPTIMAL
#define MALL_GRIDMAP_SELECT_ADAPTIVE GRIDMAP_SELECT_ADAPTIVE
#define MALL_GRIDMAP_SELECT_GLOBAL GRIDMAP_SELECT_GLOBAL
#define MALL_GRIDMAP_SELECT_LOCAL GRIDMAP_SELECT_LOCAL
#define MALL_GRIDMAP_SELECT_MIXED GRIDMAP_SELECT_MIXED
#define MALL_GRIDMAP_SVD GRIDMAP_SVD
#define mall_gridmap_choose_topology gridmap_choose_topology
#define mall_gridmap_hetero_map gridmap_hetero_map
#define mall_gridmap_last_error gridmap_last_error
#define mall_gridmap_local_expansion gridmap_local_expansion
#define mall_gridmap_method gridmap_method
#define mall_gridmap_moved_elements gridmap_moved_elements
#define mall_gridmap_place gridmap_place
#define mall_gridmap_placement gridmap_placement
#define mall_gridmap_select gridmap_select
#define mall_gridmap_selection gridmap_selection
#define mall_gridmap_status gridmap_status
#endif
