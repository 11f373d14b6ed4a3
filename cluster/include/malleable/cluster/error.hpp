// SPDX-License-Identifier: BSD-3-Clause
// The cluster component's one error: what Slurm, the arbiter or a file said that cannot
// be used, with the reason. The session turns it into its own error at its boundary.
#pragma once

#include <stdexcept>

namespace cluster {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cluster
