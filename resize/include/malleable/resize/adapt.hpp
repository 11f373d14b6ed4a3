// SPDX-License-Identifier: BSD-3-Clause
// Adapting to load while running.
// Pure, no MPI: from the measured speeds of the world's processes, the current grid and
// its block sizes, it predicts what each adaptation would give and picks the best one
// that pays (predicted gain over the remaining iterations > predicted
// cost). The adaptations, all on the same world (Action::Regrid, nobody is spawned):
//   - re-weight: the same grid, block sizes recomputed from the measured powers;
//   - drop:      a process whose participation slows the job leaves the grid;
//                it stays in the world off the grid, measuring its speed with a probe;
//   - return:    a process off the grid comes back (its load is gone).
// A candidate's iteration time is predicted by scaling the measured one by the ratio of
// the two layouts' compute times (the thesis's T_Th with measured speeds);
// its cost is the calibrated redistribution prediction plus the "other" time
// of earlier regrids (ResizeHistory).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "malleable/resize/predict.hpp"
#include "malleable/resize/types.hpp"

namespace redist {
struct CostParams;
}

namespace resize {

struct AdaptOptions {
  double min_gain = 0.05;       // a candidate must cut the iteration time by 5% (noise)
  double margin = 1.0;          // an adaptation pays when gain > margin * cost
  bool reweight = true, drop = true, give_back = true;
  int min_samples = 2;          // speed samples per process before any decision
  std::size_t elem_bytes = 8;   // element size of the matrix moved
  // Without a calibrated cost model (malleable-calibrate): moved bytes at this rate plus
  // a fixed cost, stated as such in the reasoning.
  double fallback_bytes_per_s = 1e9;
  double fallback_other_s = 0.005;
};

// The application's block sizes on a grid for given mapping powers (by world rank): one
// block per process row and column (the sizes of register_matrix_blocks).
using LayoutSizes = std::function<void(const Grid& g, const std::vector<double>& powers,
                                       std::vector<long long>& rows, std::vector<long long>& cols)>;

struct AdaptCandidate {
  std::string what;             // "re-weight", "drop rank 3", "return rank 3"
  Grid grid;                    // rank map filled in
  std::vector<double> powers;   // mapping powers by world rank
  double t_compute = 0;         // predicted compute time (T_Th with measured speeds), s
  PayoffPrediction prediction;
};

struct AdaptPlan {
  std::optional<AdaptCandidate> chosen;     // empty: stay
  std::vector<AdaptCandidate> considered;
  std::string why;                          // one line
};

struct AdaptInput {
  Grid grid;                          // current grid, rank map filled in or row-major
  std::vector<double> powers;         // mapping powers in use, by world rank (empty: all 1)
  std::vector<double> speeds;         // measured speed by world rank (<= 0: unknown)
  std::vector<int> samples;           // speed samples by world rank
  int world_size = 0;
  double t_iteration = 0;             // measured iteration time now, s (> 0)
  int remaining = -1;                 // iterations left (< 0: unknown)
  std::int64_t m = 0, n = 0;          // the matrix the layouts hold
};

// The most world ranks plan_adaptation weighs. It runs on one process (the policy's, at a
// remap point) and prices each of its O(P) candidates with the whole job's plan
// (O(P_A x P_B) transfers, redist::make_plan without for_rank): at 128 ranks each plan
// has at most 16,384 pairs (redist's whole-graph Matching limit). Above, it stays and
// says why (docs/measurements/scale.md). gridmap's heterogeneous mapping, which picks the
// candidates' grids, stops at 1,024 processors anyway (gridmap::kMaxHeteroProcessors).
inline constexpr int kMaxAdaptRanks = 128;

// Throws Error on inconsistent input (sizes of speeds/samples vs world_size, m, n < 1).
AdaptPlan plan_adaptation(const AdaptInput& in, const LayoutSizes& sizes, const redist::CostParams* cost,
                          const ResizeHistory* history, const AdaptOptions& opt = {});

}  // namespace resize
