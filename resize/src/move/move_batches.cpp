// SPDX-License-Identifier: BSD-3-Clause
#include "move/move_batches.hpp"

#include <algorithm>
#include <numeric>

namespace resize::detail {

std::vector<MoveBatch> plan_move_batches(std::span<const std::int64_t> max_new_bytes, std::int64_t budget_bytes) {
  std::vector<MoveBatch> out;
  for (std::size_t k = 0; k < max_new_bytes.size(); ++k) {
    const std::int64_t b = max_new_bytes[k];
    const bool fits = !out.empty() && (budget_bytes <= 0 || out.back().bytes + b <= budget_bytes);
    if (fits) {
      out.back().end = k + 1;
      out.back().bytes += b;
    } else {
      out.push_back({k, k + 1, b});
    }
  }
  return out;
}

std::int64_t held_peak(std::span<const std::int64_t> old_bytes, std::span<const std::int64_t> new_bytes,
                       std::span<const MoveBatch> batches) {
  // Before batch b: every old buffer from b on, every new one before b.
  std::int64_t old_left = std::accumulate(old_bytes.begin(), old_bytes.end(), std::int64_t{0});
  std::int64_t new_done = 0, peak = 0;
  for (const MoveBatch& b : batches) {
    std::int64_t new_here = 0, old_here = 0;
    for (std::size_t k = b.begin; k < b.end; ++k) {
      new_here += new_bytes[k];
      old_here += old_bytes[k];
    }
    peak = std::max(peak, old_left + new_done + new_here);
    old_left -= old_here;  // committed: the batch's old buffers are freed
    new_done += new_here;
  }
  return peak;
}

}  // namespace resize::detail
