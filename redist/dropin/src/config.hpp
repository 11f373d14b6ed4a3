// SPDX-License-Identifier: BSD-3-Clause
// The environment variables of the PDGEMR2D drop-in (docs/guide/configuration.md), read once
// per process by `config()`, the only place the drop-in looks at the environment.
#pragma once

#include <string>

#include "malleable/redist/redist.h"

namespace redist::dropin {

// Which implementation serves the calls and how loudly.
struct Config {
  bool force_scalapack = false;  // REDIST_GEMR2D=scalapack
  int schedule = REDIST_DEFAULT; // REDIST_GEMR2D=<schedule name>
  bool verbose = false;          // REDIST_GEMR2D_VERBOSE set, not empty and not "0"
  std::string bad_value;         // an unrecognised REDIST_GEMR2D, reported once
};

// REDIST_GEMR2D: unset, "" or "redist" -> redist's default schedule; "scalapack" -> the
// original; a schedule name -> redist with that schedule (docs/reference/redist.md, Schedules).
Config parse_config(const char* impl, const char* verbose);

// The environment's configuration, read at the first call.
const Config& config();

}  // namespace redist::dropin
