// Deprecated since malleable 0.2: include "malleable/resize/schedule.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_SCHEDULE_HPP
#define MALLEABLE_COMPAT_APPS_SCHEDULE_HPP
#include "malleable/resize/schedule.hpp"
#endif
