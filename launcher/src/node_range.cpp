// SPDX-License-Identifier: BSD-3-Clause
// The settings the launcher exports from a job's node range (node_range.hpp).
#include "node_range.hpp"

namespace launcher {

std::vector<std::pair<std::string, std::string>> recipe_settings(const std::optional<cluster::slurm::NodeRange>& range,
                                                                 const std::function<bool(const std::string&)>& is_set) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!is_set("RESIZE_POLICY")) out.emplace_back("RESIZE_POLICY", "slurm");
  if (range && !is_set("RESIZE_SLURM_MIN_NODES")) out.emplace_back("RESIZE_SLURM_MIN_NODES", std::to_string(range->min));
  if (range && !is_set("RESIZE_SLURM_MAX_NODES")) out.emplace_back("RESIZE_SLURM_MAX_NODES", std::to_string(range->max));
  return out;
}

}  // namespace launcher
