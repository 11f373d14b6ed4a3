// Deprecated since malleable 0.2: include "malleable/resize/session.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_SESSION_HPP
#define MALLEABLE_COMPAT_APPS_SESSION_HPP
#include "malleable/resize/session.hpp"
#endif
