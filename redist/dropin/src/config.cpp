// SPDX-License-Identifier: BSD-3-Clause
// The one place the PDGEMR2D drop-in reads the environment (config.hpp).
#include "config.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace redist::dropin {

Config parse_config(const char* impl, const char* verbose) {
  Config c;
  c.verbose = verbose && *verbose && std::strcmp(verbose, "0") != 0;
  if (!impl || !*impl || std::strcmp(impl, "redist") == 0) return c;
  static constexpr std::array<std::pair<const char*, int>, 4> kSchedules{{{"caterpillar", REDIST_CATERPILLAR},
                                                                          {"circulant", REDIST_CIRCULANT},
                                                                          {"matching", REDIST_MATCHING},
                                                                          {"allatonce", REDIST_ALLATONCE}}};
  if (std::strcmp(impl, "scalapack") == 0) {
    c.force_scalapack = true;
    return c;
  }
  for (const auto& [name, schedule] : kSchedules)
    if (std::strcmp(impl, name) == 0) {
      c.schedule = schedule;
      return c;
    }
  c.bad_value = impl;
  return c;
}

const Config& config() {
  static const Config c = parse_config(std::getenv("REDIST_GEMR2D"), std::getenv("REDIST_GEMR2D_VERBOSE"));
  return c;
}

}  // namespace redist::dropin
