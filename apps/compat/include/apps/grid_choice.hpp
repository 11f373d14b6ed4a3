// Deprecated since malleable 0.2: include "malleable/resize/grid_choice.hpp" instead
// (docs/naming.md). This forwarding header goes away in the next release.
#ifndef MALLEABLE_COMPAT_APPS_GRID_CHOICE_HPP
#define MALLEABLE_COMPAT_APPS_GRID_CHOICE_HPP
#include "malleable/resize/grid_choice.hpp"
#endif
