// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/gridmap/movement.hpp"

#include <algorithm>
#include <limits>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/limits.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"

namespace gridmap {

Movement account(const redist::Layout& before, const redist::Layout& after, int comm_size,
                 int element_bytes) {
  if (element_bytes < 1) fail("accounting: element size must be >= 1 byte, got ", element_bytes);
  if (comm_size < 1) fail("accounting: communicator size must be >= 1, got ", comm_size);
  redist::PlanStats s;
  try {
    s = redist::plan_stats(before, after, comm_size);
  } catch (const redist::Error& e) {
    throw Error(e, "accounting: ");  // redist's code and part kept
  }
  // Byte counts are element counts times the element size: refuse here what
  // Movement::bytes_moved() could not represent.
  if (s.elements_total > std::numeric_limits<std::int64_t>::max() / element_bytes)
    fail("accounting: ", s.elements_total, " elements of ", element_bytes,
         " bytes do not fit in a 64-bit byte count (limit ", std::numeric_limits<std::int64_t>::max(), ")");
  Movement m;
  m.elements_total = s.elements_total;
  m.elements_kept = s.elements_local;
  m.elements_moved = s.elements_moved;
  m.messages = s.messages;
  m.max_sent_by_one = s.max_sent_by_one;
  m.max_recv_by_one = s.max_recv_by_one;
  m.sent_by_rank = s.sent_by_rank;
  m.recv_by_rank = s.recv_by_rank;
  m.element_bytes = element_bytes;
  return m;
}

Movement account(const Placement& before, const Placement& after, const redist::MatrixSpec& shape,
                 int element_bytes) {
  const int comm = 1 + std::max(before.max_id(), after.max_id());
  return account(layout_for(before, shape), layout_for(after, shape), comm, element_bytes);
}

double thesis_local1_moved(double n, double p, double r) {
  (void)p;  // Local1's sum telescopes to a form independent of p (§4.5)
  return n * (2 * n * r - n) / (2 * r);
}

double thesis_local2_moved(double n, double p, double r) {
  return n * n / 4 * (p + 2 * r) / (p + r);
}

double thesis_table41_ratio(double p, double r) {
  return thesis_local1_moved(1, p, r) / thesis_local2_moved(1, p, r);
}

double thesis_lower_bound_moved(double n, double p, double r) { return n * n * r / (p + r); }

ExpansionPlan plan_expansion(const Placement& from, int offered, PlacementStrategy strategy,
                             const redist::MatrixSpec& shape, AspectRatio aspect, AspectScope scope,
                             int element_bytes) {
  from.validate();
  check_matrix(shape);
  if (offered < 0) fail("expansion: offered processes must be >= 0, got ", offered);
  if (offered > kMaxProcesses - from.grid.size())
    fail("expansion: ", offered, " offered processes on top of the current ", from.grid.size(),
         " are more than the limit of ", kMaxProcesses, " processes");
  ExpansionPlan plan;
  plan.strategy = strategy;
  plan.from = from;
  plan.local = plan_local_expansion(from.grid, offered, aspect, scope);
  if (strategy == PlacementStrategy::Global) {
    const Topology g = choose_topology(from.grid.size() + offered, aspect).grid;
    if (g.size() < from.grid.size())
      fail("expansion: Global under these aspect constraints gives ", to_string(g),
           ", smaller than the current ", to_string(from.grid));
    plan.to = place_global(g);
  } else {
    if (!plan.local.possible) fail("expansion: ", plan.local.reason);
    if (strategy == PlacementStrategy::Optimal)
      plan.to = place_optimal(from, plan.local.grid, plan.local.used, shape);
    else
      plan.to = place_local(from, plan.local.add_rows, plan.local.add_cols, strategy);
  }
  plan.used = plan.to.grid.size() - from.grid.size();
  plan.movement = account(from, plan.to, shape, element_bytes);
  return plan;
}

}  // namespace gridmap
