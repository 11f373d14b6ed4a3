// Deprecated since malleable 0.2: include "malleable/gridmap/topology.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_TOPOLOGY_HPP
#define MALLEABLE_COMPAT_GRIDMAP_TOPOLOGY_HPP
#include "malleable/gridmap/topology.hpp"
#endif
