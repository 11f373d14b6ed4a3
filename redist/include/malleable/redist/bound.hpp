// SPDX-License-Identifier: BSD-3-Clause
// The copy/shared-memory bound of a redistribution, pure arithmetic: how long
// the machine needs at least to land a redistribution's bytes, given two rates measured on
// the same cores (malleable-redist-bench bound measures them; a resize's report takes them
// from the environment or a short copy probe):
//   copy_Bps: a memcpy per rank, all ranks copying at once (STREAM copy, bytes copied/s);
//   shm_Bps:  the shared-memory rate between two ranks of one launch, bytes received per
//             second per rank while every rank exchanges large messages at once.
// Each rank must copy the bytes it keeps (from its old array into its new one) and receive
// the bytes it gets from other ranks (or send them, whichever is more), so
//   bound_r = kept_r / copy_Bps + moved_r / shm_Bps,      bound = max over ranks of bound_r.
// No overlap of the two is assumed (they share the same memory bus); a redistribution
// at bound takes `bound` seconds, and fraction = bound / measured (1: at the bound).
// From totals over P ranks only, the mean over ranks, which is <= the max: still a lower
// bound on the time (a looser one when the ranks' shares differ).
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace redist {

struct BoundRates {
  double copy_Bps = 0;  // bytes copied per second per rank, all ranks at once
  double shm_Bps = 0;   // bytes moved between ranks per second per rank, all ranks at once
  bool valid() const { return copy_Bps > 0 && shm_Bps > 0; }
};

// One rank's bound: seconds to copy `kept` bytes and receive (or send) `moved` bytes.
inline double rank_bound_seconds(double kept, double moved, const BoundRates& r) {
  if (!r.valid()) throw std::invalid_argument("bound: the copy and shared-memory rates must be > 0");
  if (kept < 0 || moved < 0) throw std::invalid_argument("bound: bytes must be >= 0");
  return kept / r.copy_Bps + moved / r.shm_Bps;
}

// The bound of a redistribution from every rank's kept and moved bytes (same length):
// the slowest rank's.
inline double bound_seconds(const std::vector<double>& kept, const std::vector<double>& moved, const BoundRates& r) {
  if (kept.size() != moved.size()) throw std::invalid_argument("bound: kept and moved differ in length");
  double worst = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) worst = std::max(worst, rank_bound_seconds(kept[i], moved[i], r));
  return worst;
}

// From totals over `ranks` ranks (a resize's report knows no per-rank split): the mean
// rank's bound, a lower bound on the slowest rank's.
inline double bound_seconds_from_totals(double kept_total, double moved_total, int ranks, const BoundRates& r) {
  if (ranks < 1) throw std::invalid_argument("bound: ranks must be >= 1");
  return rank_bound_seconds(kept_total, moved_total, r) / ranks;
}

// bound / measured: 1 at the bound, 0.5 twice as slow; 0 where nothing was measured.
inline double fraction_of_bound(double bound_s, double measured_s) {
  return measured_s > 0 ? bound_s / measured_s : 0.0;
}

// Bytes per second in GB/s (1e9), 0 where no time was measured.
inline double gb_per_s(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; }

}  // namespace redist
