// SPDX-License-Identifier: BSD-3-Clause
// Internal to redist's planning (plan.cpp, plan_dims.cpp, plan_steps.cpp), not installed:
// a plan is built per dimension (which A process row sends which rows to which B process
// row, likewise columns) and scheduled per dimension; these are the pieces.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"

namespace redist::plan_detail {

inline int pmod(std::int64_t x, std::int64_t m) { return static_cast<int>(((x % m) + m) % m); }

// All rows (or columns) that go from one A process row to one B process row.
struct DimPair {
  int a = 0, b = 0;
  std::vector<Run> runs;  // A-space; each piece contiguous locally in A and in B
  std::int64_t count = 0;
  // Local starts (in A, in B) of the last piece of runs.back(), to extend it.
  std::int64_t last_la = 0, last_lb = 0;
};

// The pairs of one dimension: all of them (fix < 0), or only those whose A process is
// `owner` (fix == 0) or whose B process is `owner` (fix == 1). Sorted by (A, B) process.
std::vector<DimPair> dim_pairs(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib,
                               std::int64_t len, int fix = -1, int owner = 0);

// Per-dimension step of each (A process, B process) pair, contention free (no A process
// and no B process twice in one step) and minimal (as many steps as the maximum degree).
//
// Block-cyclic with aligned blocks (same block size, region offsets congruent modulo it)
// sends region block k from A process (k+α) mod Pa to B process (k+β) mod Pb, so A process
// i talks exactly to the B processes j with j - i ≡ c (mod g), g = gcd(Pa, Pb): the
// circulant pattern of Park, Prasanna and Raghavendra. Step s then pairs
// i with j = (i + c + s·g) mod Pb when Pa <= Pb (symmetrically otherwise): max(Pa,Pb)/g
// steps, a closed form any process evaluates for its own pairs in O(1). When the region
// spans at least lcm(Pa, Pb) blocks every pair of the pattern occurs and the closed form
// is minimal; that is decided from the layouts alone, so every rank decides alike. Other
// patterns (unaligned blocks, heterogeneous sizes, short regions) colour the small
// Pa x Pb graph of the whole dimension (König): O(blocks of one period of the dimension).
struct DimSchedule {
  bool closed = false;
  int Pa = 1, Pb = 1, g = 1, c = 0;
  int nsteps = 0;            // step numbers are in [0, nsteps)
  int max_a = 0, max_b = 0;  // most partners of one A process, of one B process
  std::vector<std::pair<int, int>> pairs;  // colouring fallback: every pair, sorted
  std::vector<int> colour;
  int step(int a, int b) const {
    if (closed) return Pa <= Pb ? pmod(b - a - c, Pb) / g : pmod(a - b + c, Pa) / g;
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::make_pair(a, b));
    if (it == pairs.end() || *it != std::make_pair(a, b))
      throw Error(ErrorCode::Internal, "dimension pair (" + std::to_string(a) + "," + std::to_string(b) + ") unscheduled");
    return colour[static_cast<std::size_t>(it - pairs.begin())];
  }
};

// `all`: the dimension's pairs when the caller has them (whole plans); otherwise they are
// cut here if the closed form does not apply.
DimSchedule dim_schedule(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib, std::int64_t len,
                         const std::vector<DimPair>* all);

// Groups the cross transfers by global step number (local copies are in no step), steps in
// increasing number, each step's transfers in plan order. For a rank-local plan these are
// the rank's own steps: two partners share a transfer, hence its number, and both take
// their steps in increasing number, so they meet in the same relative order.
void group_steps(RedistPlan& plan, std::vector<std::pair<std::int64_t, int>>& order);

}  // namespace redist::plan_detail
