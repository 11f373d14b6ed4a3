// SPDX-License-Identifier: BSD-3-Clause
// Harness for docs/guide/porting.md's main with its catch (tests/docs/check_snippets.py).
#include <mpi.h>

#include <cstdio>
#include <utility>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/session.hpp"
// @INCLUDES@

// @SNIPPET@
