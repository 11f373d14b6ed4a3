// Deprecated since malleable 0.2: include "malleable/resize/policy.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_POLICY_HPP
#define MALLEABLE_COMPAT_APPS_POLICY_HPP
#include "malleable/resize/policy.hpp"
#endif
