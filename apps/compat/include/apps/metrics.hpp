// Deprecated since malleable 0.2: include "malleable/resize/metrics.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_METRICS_HPP
#define MALLEABLE_COMPAT_APPS_METRICS_HPP
#include "malleable/resize/metrics.hpp"
#endif
