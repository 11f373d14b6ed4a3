// SPDX-License-Identifier: BSD-3-Clause
// Node-aware placement (pure), see nodes.hpp.
#include "malleable/gridmap/nodes.hpp"

#include <algorithm>
#include <set>

#include "malleable/gridmap/assignment.hpp"
#include "malleable/gridmap/error.hpp"
#include "malleable/redist/traffic.hpp"

namespace gridmap {

int NodeMap::node_of(int id) const {
  if (id < 0 || id >= static_cast<int>(node_of_id.size()))
    fail("node map: process id ", id, " has no node (the map covers ids 0..",
         static_cast<int>(node_of_id.size()) - 1, ")");
  return node_of_id[static_cast<std::size_t>(id)];
}

void NodeMap::validate() const {
  if (inter_node_weight < 1) fail("node map: inter_node_weight must be >= 1, got ", inter_node_weight);
  for (std::size_t p = 0; p < node_of_id.size(); ++p)
    if (node_of_id[p] < 0) fail("node map: node_of_id[", p, "] = ", node_of_id[p], " must be >= 0");
}

std::int64_t node_weighted_cost(const redist::Layout& before, const redist::Layout& after,
                                const NodeMap& nodes) {
  nodes.validate();
  const auto t = redist::node_traffic(before, after, redist::Region::whole(before),
                                      static_cast<int>(nodes.node_of_id.size()), nodes.node_of_id);
  return t.elements_intra_node + static_cast<std::int64_t>(nodes.inter_node_weight) * t.elements_inter_node;
}

namespace {
// benefit[s][k] = overlap(s, k) + (W - 1) * overlap(s, node of k), see nodes.hpp.
std::vector<std::vector<std::int64_t>> node_benefit(const redist::Layout& before, const redist::Layout& after,
                                                    const std::vector<int>& candidates, const NodeMap& nodes) {
  nodes.validate();
  // Every holder of data counts for its node, candidate or not (a holder that is not a
  // candidate is leaving, and its data must travel from its node).
  const std::vector<int> holders = before.rank_list();
  const auto held = overlap_matrix(before, after, holders);
  const std::size_t slots = static_cast<std::size_t>(after.nprow) * after.npcol;
  int nnodes = 0;
  for (int n : nodes.node_of_id) nnodes = std::max(nnodes, n + 1);
  std::vector<std::vector<std::int64_t>> on_node(slots, std::vector<std::int64_t>(static_cast<std::size_t>(nnodes), 0));
  for (std::size_t s = 0; s < slots; ++s)
    for (std::size_t h = 0; h < holders.size(); ++h)
      on_node[s][static_cast<std::size_t>(nodes.node_of(holders[h]))] += held[s][h];
  const auto w = overlap_matrix(before, after, candidates);
  const std::int64_t extra = nodes.inter_node_weight - 1;
  std::vector<std::vector<std::int64_t>> b(slots, std::vector<std::int64_t>(candidates.size()));
  for (std::size_t s = 0; s < slots; ++s)
    for (std::size_t k = 0; k < candidates.size(); ++k)
      b[s][k] = w[s][k] + extra * on_node[s][static_cast<std::size_t>(nodes.node_of(candidates[k]))];
  return b;
}
}  // namespace

Placement place_optimal_nodes(const redist::Layout& before, const redist::Layout& after,
                              const std::vector<int>& candidates, const NodeMap& nodes) {
  const std::size_t slots = static_cast<std::size_t>(after.nprow) * after.npcol;
  if (candidates.size() < slots)
    fail("node-aware placement: ", slots, " slots but only ", candidates.size(), " candidate processes");
  if (std::set<int>(candidates.begin(), candidates.end()).size() != candidates.size())
    fail("node-aware placement: candidate process ids must be distinct");
  const auto b = node_benefit(before, after, candidates, nodes);
  const auto cand_of_slot = max_weight_assignment(b);  // slots (rows) <= candidates (cols)
  Placement out{Topology{after.nprow, after.npcol}, std::vector<int>(slots)};
  for (std::size_t s = 0; s < slots; ++s) out.slots[s] = candidates[static_cast<std::size_t>(cand_of_slot[s])];
  return out;
}

Placement assign_new_ids_by_node(const Placement& rule, const redist::Layout& before,
                                 const redist::MatrixSpec& shape, const std::vector<int>& new_ids,
                                 const NodeMap& nodes) {
  rule.validate();
  std::vector<std::size_t> new_slots;
  for (std::size_t s = 0; s < rule.slots.size(); ++s)
    if (std::find(new_ids.begin(), new_ids.end(), rule.slots[s]) != new_ids.end()) new_slots.push_back(s);
  if (new_slots.size() < 2) return rule;
  std::vector<int> ids;
  for (std::size_t s : new_slots) ids.push_back(rule.slots[s]);
  std::set<int> node_set;
  for (int id : ids) node_set.insert(nodes.node_of(id));
  if (node_set.size() < 2) return rule;
  const auto after = layout_for(Placement::row_major(rule.grid, 0), shape);
  const auto all = node_benefit(before, after, ids, nodes);
  std::vector<std::vector<std::int64_t>> b;
  for (std::size_t s : new_slots) b.push_back(all[s]);
  const auto pick = max_weight_assignment(b);
  Placement out = rule;
  for (std::size_t i = 0; i < new_slots.size(); ++i) out.slots[new_slots[i]] = ids[static_cast<std::size_t>(pick[i])];
  return out;
}

}  // namespace gridmap
