// SPDX-License-Identifier: BSD-3-Clause
// A resize's matrix move under a per-process memory budget (SessionOptions::
// move_budget_bytes, docs/reference/apps.md "Memory of a resize"): the registered matrices go in
// consecutive batches, one redist exchange each, and a batch's old buffers are freed before
// the next batch allocates its new ones. Pure: the MPI shell (parts/grid_switch.cpp) agrees the
// per-matrix maxima with one MPI_Allreduce over a vector of one entry per matrix (O(matrices),
// whatever the number of processes) and hands them here; every process then plans the same
// batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace resize::detail {

// Matrices [begin, end) of the move's order, and `bytes`: the sum of their new buffers'
// largest per-process sizes, the most any process allocates for this batch (an upper bound:
// the matrices may peak on different processes, which one vector of maxima cannot tell).
struct MoveBatch {
  std::size_t begin = 0, end = 0;
  std::int64_t bytes = 0;
  bool operator==(const MoveBatch&) const = default;
};

// Consecutive batches, each as long as its bytes fit `budget_bytes` (greedy, in the
// matrices' order, so the fewest batches for that order). A matrix whose new buffer alone
// exceeds the budget is a batch of its own. budget_bytes <= 0: no limit (one batch of every
// matrix). No matrices: no batches. max_new_bytes[k] >= 0: matrix k's largest new buffer on
// any process, in bytes.
std::vector<MoveBatch> plan_move_batches(std::span<const std::int64_t> max_new_bytes, std::int64_t budget_bytes);

// The most bytes of matrix buffers one process holds during a batched move: while batch b
// moves it holds the old buffers of batch b and of every later batch and the new buffers
// of batch b and of every earlier one (old_bytes[k], new_bytes[k]: this process's buffers
// of matrix k). With one batch that is every old buffer plus every new one.
std::int64_t held_peak(std::span<const std::int64_t> old_bytes, std::span<const std::int64_t> new_bytes,
                       std::span<const MoveBatch> batches);

}  // namespace resize::detail
