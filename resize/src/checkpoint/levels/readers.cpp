// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels: who reads each chosen copy in a recovery (levels.hpp, assign_readers).
// Pure; unit tests resize.Levels.Readers*.
#include <map>

#include "checkpoint/levels/levels.hpp"

namespace resize::levels {

std::vector<int> assign_readers(const std::vector<int>& lister, const std::vector<int>& node_of) {
  std::map<int, std::vector<int>> ranks_of;  // node index -> its new ranks, ascending
  for (std::size_t q = 0; q < node_of.size(); ++q) ranks_of[node_of[q]].push_back(static_cast<int>(q));
  std::vector<int> reader(lister.size(), -1), load(node_of.size(), 0);
  for (std::size_t r = 0; r < lister.size(); ++r)
    if (lister[r] >= 0 && r < node_of.size() && node_of[r] == node_of[static_cast<std::size_t>(lister[r])]) {
      reader[r] = static_cast<int>(r);
      ++load[r];
    }
  for (std::size_t r = 0; r < lister.size(); ++r) {
    if (lister[r] < 0 || reader[r] >= 0) continue;
    int best = -1;
    for (int q : ranks_of[node_of[static_cast<std::size_t>(lister[r])]])
      if (best < 0 || load[static_cast<std::size_t>(q)] < load[static_cast<std::size_t>(best)]) best = q;
    reader[r] = best;
    ++load[static_cast<std::size_t>(best)];
  }
  return reader;
}

}  // namespace resize::levels
