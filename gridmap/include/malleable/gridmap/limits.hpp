// SPDX-License-Identifier: BSD-3-Clause
// What gridmap accepts and how much work one call may do.
// Every size that comes from a caller goes through these checks before it is multiplied,
// added or used to size an allocation, so a request is either answered with exact counts
// or refused with a gridmap::Error naming the value and the limit - never wrapped around,
// never left running for minutes. docs/reference/gridmap.md "Error contract" lists them.
#pragma once

#include <cstdint>

#include "malleable/gridmap/error.hpp"

namespace gridmap {

// Processes in one grid (current, offered, or the grown one): 65536 = 256 x 256.
inline constexpr int kMaxProcesses = 1 << 16;
// Process ids are communicator ranks; accounting sizes per-rank vectors by the largest.
inline constexpr int kMaxProcessId = (1 << 20) - 1;
// Blocks per matrix dimension in a layout (ceil(m / mb), or cycles x process lines of a
// heterogeneous block-cyclic layout): bounds the layout's memory to 32 MiB a dimension.
inline constexpr std::int64_t kMaxLayoutBlocks = std::int64_t{1} << 22;
// The exact optimal placement (Hungarian algorithm) costs holders^2 x slots steps for
// `holders` processes that hold data and `slots` grid slots; 2^28 (about 1 s here, a
// 24x24 grid grown by one row and column) is the most one call may do.
inline constexpr double kMaxAssignmentWork = static_cast<double>(std::int64_t{1} << 28);
// Processors in one heterogeneous mapping: each SVD/T_opt refinement step costs about
// (p + q)^2 pq and there are at most 64 steps; 1024 (32x32) stays within seconds.
inline constexpr int kMaxHeteroProcessors = 1024;
// The swap search beyond the thesis tries every pair of slots (P^2 evaluations per pass);
// it runs only up to this many slots (the thesis's grids have at most 48), and so does
// Global selection's replacement step.
inline constexpr int kMaxSwapSearchSlots = 64;
// Offered free processors in one processor selection (Global's replacement step tries
// each under-used processor against each offered one).
inline constexpr int kMaxOfferedProcessors = 1024;

// Throws unless rows, cols >= 1 and rows * cols <= kMaxProcesses (the product is formed
// in 64 bits, so Topology::size() never overflows afterwards).
void check_grid_size(const char* what, std::int64_t rows, std::int64_t cols);

}  // namespace gridmap
