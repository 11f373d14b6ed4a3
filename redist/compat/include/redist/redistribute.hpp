// Deprecated since malleable 0.2: include "malleable/redist/redistribute.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_REDIST_REDISTRIBUTE_HPP
#define MALLEABLE_COMPAT_REDIST_REDISTRIBUTE_HPP
#include "malleable/redist/redistribute.hpp"
#endif
