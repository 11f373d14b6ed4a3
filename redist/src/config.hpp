// SPDX-License-Identifier: BSD-3-Clause
// Every environment variable redist reads, as one typed value (docs/guide/configuration.md has
// the table). `read_config()` is the only place that looks at the environment; it reads
// it each time it is called, so a variable set while the process runs counts from the
// next call on.
#pragma once

#include <optional>
#include <string>

namespace redist {

// An environment variable as set: nullopt when unset, else its text (possibly empty).
using EnvText = std::optional<std::string>;

struct Config {
  EnvText fault;           // MALLEABLE_REDIST_FAULT: a fault to inject (single-copy-refused, ...)
  EnvText cost_model;      // REDIST_COST_MODEL: the cost model file
  EnvText xdg_cache_home;  // XDG_CACHE_HOME: the default cost model's folder
  EnvText home;            // HOME: the fallback of XDG_CACHE_HOME
};

// The environment as it is now.
Config read_config();

}  // namespace redist
