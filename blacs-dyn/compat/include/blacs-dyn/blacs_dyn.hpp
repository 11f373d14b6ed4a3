// Deprecated since malleable 0.2: include "malleable/blacs_dyn/blacs_dyn.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_BLACS_DYN_BLACS_DYN_HPP
#define MALLEABLE_COMPAT_BLACS_DYN_BLACS_DYN_HPP
#include "malleable/blacs_dyn/blacs_dyn.hpp"
namespace bdyn = blacs_dyn;  // the 0.1 namespace
#endif
