// SPDX-License-Identifier: BSD-3-Clause
// The one place redist reads the environment (config.hpp).
#include "config.hpp"

#include <cstdlib>

namespace redist {

namespace {
EnvText text(const char* name) {
  const char* v = std::getenv(name);
  return v ? EnvText(v) : std::nullopt;
}
}  // namespace

Config read_config() {
  Config c;
  c.fault = text("MALLEABLE_REDIST_FAULT");
  c.cost_model = text("REDIST_COST_MODEL");
  c.xdg_cache_home = text("XDG_CACHE_HOME");
  c.home = text("HOME");
  return c;
}

}  // namespace redist
