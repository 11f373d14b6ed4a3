// Deprecated since malleable 0.2: include "malleable/resize/report.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_REPORT_HPP
#define MALLEABLE_COMPAT_APPS_REPORT_HPP
#include "malleable/resize/report.hpp"
#endif
