// SPDX-License-Identifier: BSD-3-Clause
// First-come-first-served with EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001),
// pure: which waiting jobs start now. Jobs start in submission order while they fit; when
// the oldest waiting job (the head) does not fit, it gets a reservation at the earliest
// time enough running jobs have ended by their estimates (the shadow time), and a later job
// may start now if it fits the idle nodes and either ends by its estimate before the
// shadow time or uses only nodes the head will not need then (the extra nodes).
#pragma once

#include <string>
#include <vector>

namespace clustersim {

struct Waiting {
  std::string id;
  int nodes = 1;         // nodes it starts with
  double estimate_s = 0; // run time estimate on those nodes
};
struct Running {
  int nodes = 0;
  double estimated_end = 0;  // absolute
};

struct EasyResult {
  std::vector<std::size_t> start;  // indexes into the queue, in the order they start
  double shadow = -1;              // the head's reservation (< 0: none needed)
  int extra = 0;                   // nodes free at the shadow time beyond the head's
};

// queue: waiting jobs, oldest first. Throws Error if a job asks for more than `total`.
EasyResult easy_backfill(double now, int idle, int total, const std::vector<Waiting>& queue,
                         std::vector<Running> running);

}  // namespace clustersim
