// Deprecated since malleable 0.2: include "malleable/gridmap/error.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_ERROR_HPP
#define MALLEABLE_COMPAT_GRIDMAP_ERROR_HPP
#include "malleable/gridmap/error.hpp"
#endif
