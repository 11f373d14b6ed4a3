// Deprecated since malleable 0.2: include "malleable/redist/layout.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_REDIST_LAYOUT_HPP
#define MALLEABLE_COMPAT_REDIST_LAYOUT_HPP
#include "malleable/redist/layout.hpp"
#endif
