// Deprecated since malleable 0.2: include "malleable/gridmap/selection.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_SELECTION_HPP
#define MALLEABLE_COMPAT_GRIDMAP_SELECTION_HPP
#include "malleable/gridmap/selection.hpp"
#endif
