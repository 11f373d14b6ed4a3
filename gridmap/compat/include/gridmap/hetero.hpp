// Deprecated since malleable 0.2: include "malleable/gridmap/hetero.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_HETERO_HPP
#define MALLEABLE_COMPAT_GRIDMAP_HETERO_HPP
#include "malleable/gridmap/hetero.hpp"
#endif
