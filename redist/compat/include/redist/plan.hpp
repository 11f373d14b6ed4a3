// Deprecated since malleable 0.2: include "malleable/redist/plan.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_REDIST_PLAN_HPP
#define MALLEABLE_COMPAT_REDIST_PLAN_HPP
#include "malleable/redist/plan.hpp"
#endif
