/* Deprecated since malleable 0.2: include "malleable/redist/scalapack_api.h" instead */
/* (docs/naming.md). This forwarding header goes away in the next release. */
#ifndef MALLEABLE_COMPAT_REDIST_SCALAPACK_API_H
#define MALLEABLE_COMPAT_REDIST_SCALAPACK_API_H
#include "malleable/redist/scalapack_api.h"
#endif
