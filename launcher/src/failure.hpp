// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's reason to stop: a message and the status the launcher exits with,
// printed as "malleable-run: <what>".
#pragma once

#include <stdexcept>
#include <string>

namespace launcher {

struct Failure : std::runtime_error {
  Failure(int s, const std::string& what) : std::runtime_error(what), status(s) {}
  int status;
};

}  // namespace launcher
