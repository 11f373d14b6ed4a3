// Deprecated since malleable 0.2: include "malleable/resize/types.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_TYPES_HPP
#define MALLEABLE_COMPAT_APPS_TYPES_HPP
#include "malleable/resize/types.hpp"
#endif
