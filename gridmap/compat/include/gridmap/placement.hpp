// Deprecated since malleable 0.2: include "malleable/gridmap/placement.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_PLACEMENT_HPP
#define MALLEABLE_COMPAT_GRIDMAP_PLACEMENT_HPP
#include "malleable/gridmap/placement.hpp"
#endif
