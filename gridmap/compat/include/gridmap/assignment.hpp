// Deprecated since malleable 0.2: include "malleable/gridmap/assignment.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_GRIDMAP_ASSIGNMENT_HPP
#define MALLEABLE_COMPAT_GRIDMAP_ASSIGNMENT_HPP
#include "malleable/gridmap/assignment.hpp"
#endif
