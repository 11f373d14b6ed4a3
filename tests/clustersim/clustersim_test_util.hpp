// SPDX-License-Identifier: BSD-3-Clause
// The job the simulator's unit tests build their workloads from.
#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include "workload.hpp"

namespace clustersim_test {

// Job `id` submitted at `submit` s on `nodes` nodes: 10 iterations of `work` node-seconds
// in all, serial fraction `sf`; malleable from nodes/2 (at least 1) to 2 x nodes, else rigid.
inline clustersim::Job job(std::string id, double submit, int nodes, bool malleable = false, double work = 100,
                           double sf = 0) {
  clustersim::Job j;
  j.id = std::move(id);
  j.submit_s = submit;
  j.nodes = nodes;
  j.min_nodes = malleable ? std::max(1, nodes / 2) : nodes;
  j.max_nodes = malleable ? nodes * 2 : nodes;
  j.malleable = malleable;
  j.work_node_s = work;
  j.serial_fraction = sf;
  j.iterations = 10;
  return j;
}

}  // namespace clustersim_test
