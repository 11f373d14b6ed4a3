// SPDX-License-Identifier: BSD-3-Clause
// Which mappings of other processes' node-window segments (node_window.cpp, Store::peers)
// a process lets go: those of processes that are gone. A job that resizes many times
// meets a new set of newcomers on each expansion; a mapping of a departed newcomer's
// segment kept its pages alive (a deleted /dev/shm file, resident in this process) for
// the rest of the run, about 60 kB per departed process (docs/measurements/endurance.md).
// Pure: the caller says which processes are alive. Internal to redist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redist::exec {

// Indices (ascending) of the entries of `pids` whose process is not alive. A pid reused by
// a later process counts as alive: that mapping stays until the reuser is gone too (a
// stale mapping, never a wrong one: map_peer checks the segment's token).
template <class Alive>
std::vector<std::size_t> gone_peers(const std::vector<std::int64_t>& pids, Alive&& alive) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < pids.size(); ++i)
    if (!alive(pids[i])) out.push_back(i);
  return out;
}

}  // namespace redist::exec
