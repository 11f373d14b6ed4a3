// Deprecated since malleable 0.2: include "malleable/redist/edge_colouring.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_REDIST_EDGE_COLOURING_HPP
#define MALLEABLE_COMPAT_REDIST_EDGE_COLOURING_HPP
#include "malleable/redist/edge_colouring.hpp"
#endif
