// SPDX-License-Identifier: BSD-3-Clause
// price_resize (malleable/resize/predict.hpp): one model of a resize's start and move, for
// the planner and the simulator. Pure, header-only arithmetic beneath (redist/bound.hpp):
// a program that calls only this pulls nothing else from the core.
#include <algorithm>

#include "malleable/redist/bound.hpp"
#include "malleable/resize/predict.hpp"

namespace resize {

ResizePrice price_resize(const ResizePriceInput& in) {
  ResizePrice p;
  p.start_s = in.bare_start_s > 0 ? in.bare_start_s : in.start_fixed_s + in.start_per_unit_s * in.started;
  const redist::BoundRates rates{in.copy_Bps, in.shm_Bps};
  double memory = 0, link = 0;
  if (rates.valid()) {
    if (in.ranks_at_work < 1) throw Error("price: ranks at work must be >= 1");
    memory = redist::bound_seconds_from_totals(in.kept_bytes, in.moved_bytes, in.ranks_at_work, rates);
  }
  if (in.link_Bps > 0) {
    if (in.link_nodes < 1) throw Error("price: a redistribution between empty node sets");
    link = in.link_ratio * in.link_bytes / (in.link_nodes * in.link_Bps);
  }
  p.redistribute_s = std::max(memory, link);
  return p;
}

}  // namespace resize
