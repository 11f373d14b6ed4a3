/* Deprecated since malleable 0.2: include "malleable/redist/redist.h" instead */
/* (docs/naming.md). This forwarding header goes away in the next release. */
#ifndef MALLEABLE_COMPAT_REDIST_REDIST_H
#define MALLEABLE_COMPAT_REDIST_REDIST_H
#include "malleable/redist/redist.h"
#endif
