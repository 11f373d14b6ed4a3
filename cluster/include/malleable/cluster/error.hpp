// SPDX-License-Identifier: BSD-3-Clause
// The cluster component's one error: what Slurm, the arbiter or a file said that cannot
// be used, with the reason. The one form (malleable::Error, malleable/error.hpp): part
// Cluster, code BatchSystem; the session lets it through to its caller as it is.
#pragma once

#include <string>

#include "malleable/error.hpp"

namespace cluster {

class Error : public malleable::Error {
 public:
  explicit Error(const std::string& what)
      : malleable::Error(malleable::Part::Cluster, malleable::Errc::BatchSystem, what) {}
};

}  // namespace cluster
