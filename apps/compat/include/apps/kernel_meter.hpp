// Deprecated since malleable 0.2: include "malleable/resize/kernel_meter.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_KERNEL_METER_HPP
#define MALLEABLE_COMPAT_APPS_KERNEL_METER_HPP
#include "malleable/resize/kernel_meter.hpp"
#endif
