// Deprecated since malleable 0.2: include "malleable/redist/blacs.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_REDIST_BLACS_HPP
#define MALLEABLE_COMPAT_REDIST_BLACS_HPP
#include "malleable/redist/blacs.hpp"
#endif
