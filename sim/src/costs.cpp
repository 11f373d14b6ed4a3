// SPDX-License-Identifier: BSD-3-Clause
#include "costs.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "workload.hpp"

namespace clustersim {

double Costs::redistribution_s(int from, int to, int requested) const {
  if (from < 1 || to < 1 || requested < 1) throw Error("redistribution between empty node sets");
  const double data = data_bytes_per_node * requested;
  return redist_link_ratio * data / (std::min(from, to) * link_Bps);
}

double Costs::expand_s(int from, int to, int requested) const {
  return spawn_fixed_s + spawn_per_node_s * (to - from) + redistribution_s(from, to, requested) + other_s;
}

double Costs::shrink_s(int from, int to, int requested) const {
  return release_s + redistribution_s(from, to, requested) + other_s;
}

double Costs::restart_s(int from, int to, int requested) const {
  const double data = data_bytes_per_node * requested;
  const double write = data / std::min(fs_Bps, from * fs_node_Bps);
  const double read = data / std::min(fs_Bps, to * fs_node_Bps);
  return write + restart_fixed_s + spawn_per_node_s * to + read;
}

double Costs::grow_s(int from, int to, int requested) const {
  return expansion ? expand_s(from, to, requested) : restart_s(from, to, requested);
}

Costs parse_costs(const std::string& json_text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("costs: not JSON: ") + e.what());
  }
  if (!doc.is_object()) throw Error("costs: not a JSON object");
  Costs c;
  const std::map<std::string, double*> numbers = {
      {"spawn_fixed_s", &c.spawn_fixed_s},         {"spawn_per_node_s", &c.spawn_per_node_s},
      {"release_s", &c.release_s},                 {"other_s", &c.other_s},
      {"link_Bps", &c.link_Bps},                   {"redist_link_ratio", &c.redist_link_ratio},
      {"data_bytes_per_node", &c.data_bytes_per_node}, {"fs_Bps", &c.fs_Bps},
      {"fs_node_Bps", &c.fs_node_Bps},             {"restart_fixed_s", &c.restart_fixed_s},
      {"launch_s", &c.launch_s}};
  for (const auto& [key, value] : doc.items()) {
    if (!key.empty() && key[0] == '_') continue;
    if (key == "expansion") {
      if (!value.is_boolean()) throw Error("costs: 'expansion' must be true or false");
      c.expansion = value.get<bool>();
      continue;
    }
    const auto it = numbers.find(key);
    if (it == numbers.end()) throw Error("costs: unknown key '" + key + "'");
    if (!value.is_number()) throw Error("costs: '" + key + "' must be a number");
    *it->second = value.get<double>();
    if (*it->second < 0) throw Error("costs: '" + key + "' must not be negative");
  }
  for (const char* rate : {"link_Bps", "redist_link_ratio", "fs_Bps", "fs_node_Bps"})
    if (!(*numbers.at(rate) > 0)) throw Error(std::string("costs: '") + rate + "' must be positive");
  return c;
}

}  // namespace clustersim
