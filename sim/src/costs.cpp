// SPDX-License-Identifier: BSD-3-Clause
#include "costs.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "malleable/resize/predict.hpp"
#include "workload.hpp"

namespace clustersim {

// The start and the move by resize's one model (price_resize, malleable/resize/predict.hpp,
// the dry run's planner's): the start per node, the move at the node-link bound.
double Costs::redistribution_s(int from, int to, int requested) const {
  if (from < 1 || to < 1 || requested < 1) throw Error("redistribution between empty node sets");
  resize::ResizePriceInput in;
  in.link_bytes = data_bytes_per_node * requested;
  in.link_nodes = std::min(from, to);
  in.link_Bps = link_Bps;
  in.link_ratio = redist_link_ratio;
  return resize::price_resize(in).redistribute_s;
}

double Costs::expand_s(int from, int to, int requested) const {
  resize::ResizePriceInput in;
  in.start_fixed_s = spawn_fixed_s;
  in.start_per_unit_s = spawn_per_node_s;
  in.started = to - from;
  return resize::price_resize(in).start_s + redistribution_s(from, to, requested) + other_s;
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

double Costs::give_back_s(int from, int to, int requested) const {
  return (to < from ? shrink_s(from, to, requested) : 0.0) + update_s;
}

double Costs::acquire_s(int from, int to, int requested) const { return grow_s(from, to, requested) + update_s; }

double Costs::next_pass(double now) const {
  if (!(sched_interval_s > 0)) return now;
  const double k = std::ceil(now / sched_interval_s - 1e-9);
  return std::max(now, k * sched_interval_s);
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
      {"launch_s", &c.launch_s},                   {"sched_interval_s", &c.sched_interval_s},
      {"decision_s", &c.decision_s},               {"update_s", &c.update_s}};
  const std::map<std::string, bool*> flags = {{"expansion", &c.expansion}, {"one_update", &c.one_update}};
  for (const auto& [key, value] : doc.items()) {
    if (!key.empty() && key[0] == '_') continue;
    if (const auto f = flags.find(key); f != flags.end()) {
      if (!value.is_boolean()) throw Error("costs: '" + key + "' must be true or false");
      *f->second = value.get<bool>();
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

Costs scale_resize_costs(Costs c, double factor) {
  if (!(factor > 0)) throw Error("a cost factor must be > 0");
  c.spawn_fixed_s *= factor;
  c.spawn_per_node_s *= factor;
  c.release_s *= factor;
  c.other_s *= factor;
  c.restart_fixed_s *= factor;
  c.data_bytes_per_node *= factor;  // the redistribution and the checkpoint scale with it
  return c;
}

}  // namespace clustersim
