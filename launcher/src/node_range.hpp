// SPDX-License-Identifier: BSD-3-Clause
// The node range a Slurm job asked for: cluster's reader (malleable/cluster/node_range.hpp,
// shared with the arbiter daemon), named here for the launcher; and the settings the
// launcher exports from it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "malleable/cluster/node_range.hpp"

namespace launcher {

using cluster::slurm::job_node_range;
using cluster::slurm::JobRange;
using cluster::slurm::NodeRange;
using cluster::slurm::nodes_in_words;
using cluster::slurm::parse_node_count;
using cluster::slurm::range_text;
using cluster::slurm::RangeRead;
using cluster::slurm::script_node_range;
using cluster::slurm::submit_line_node_range;

// The settings the launcher exports to the program of the recipe (malleable-run --job-dir in a
// Slurm job): RESIZE_POLICY=slurm and, for a range it read, RESIZE_SLURM_MIN_NODES and
// RESIZE_SLURM_MAX_NODES; each only where `is_set` says the user has not set it (set to
// anything, empty included).
std::vector<std::pair<std::string, std::string>> recipe_settings(const std::optional<NodeRange>& range,
                                                                 const std::function<bool(const std::string&)>& is_set);

}  // namespace launcher
