// Deprecated since malleable 0.2: include "malleable/gridmap/movement.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_MOVEMENT_HPP
#define MALLEABLE_COMPAT_GRIDMAP_MOVEMENT_HPP
#include "malleable/gridmap/movement.hpp"
#endif
