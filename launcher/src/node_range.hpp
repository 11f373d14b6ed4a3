// SPDX-License-Identifier: BSD-3-Clause
// The settings the launcher exports from the node range a Slurm job asked for (the range is
// read by cluster's reader, malleable/cluster/node_range.hpp, shared with the arbiter daemon;
// the launcher names it cluster::slurm::).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "malleable/cluster/node_range.hpp"

namespace launcher {

// The settings the launcher exports to the program of the recipe (malleable-run --job-dir in a
// Slurm job): RESIZE_POLICY=slurm and, for a range it read, RESIZE_SLURM_MIN_NODES and
// RESIZE_SLURM_MAX_NODES; each only where `is_set` says the user has not set it (set to
// anything, empty included).
std::vector<std::pair<std::string, std::string>> recipe_settings(const std::optional<cluster::slurm::NodeRange>& range,
                                                                 const std::function<bool(const std::string&)>& is_set);

}  // namespace launcher
