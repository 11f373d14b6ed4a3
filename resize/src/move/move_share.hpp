// SPDX-License-Identifier: BSD-3-Clause
// One rank's share of a redistribution's counts and modelled cost, from its rank-local plan
// (redist::make_plan with for_rank), and how the job-wide figures follow from every rank's
// share by sums and maxima (no process builds the whole job's plan during a
// resize). Pure: the MPI shell (mover.cpp, tally_moves) does the reductions with
// MPI_Allreduce; the unit test does them with loops and checks that they give the whole
// plan's plan_stats, node_traffic and cost-model prediction.
//
// The cost model (redist/cost_model.hpp) takes maxima and per-node sums of per-rank work:
//   T = share * (call_s + steps * step_s') + max( bound(whole plan), Σ_s bound(step s) )
//   bound(S) = max( max_p work_S(p), max_node Σ_{p on node} work_S(p) / min(cores, ranks of S on node) )
// Each rank evaluates work(p) for the whole plan and for each step it takes part in (keyed
// by the step's job-wide number), so a vector of slots — [whole, step lo, ..., step hi] —
// per rank is summed within each node (node bounds) and maximised over the job. Its
// length is the schedule's span of step numbers (1 for all-at-once, the maximum degree for
// matching/circulant, up to P for the caterpillar, whose execution walks P steps anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/plan.hpp"

namespace resize::detail {

// The model's job-wide regime: ranks per core on the most crowded node and how waiters
// wait (cost_model.hpp; Waiting::Auto). node_of_rank covers every rank of the communicator
// (empty: comm_size ranks on one node). O(P) over an array the session holds anyway.
struct CostRegime {
  double share = 1;
  bool sleeping = false;
  double spin_weight = 0;  // share - 1 when waiters spin on an oversubscribed node
};
CostRegime cost_regime(const redist::CostParams& params, std::span<const int> node_of_rank, int comm_size);

// What one rank contributes. Elements sent count at the sender only, so their sums over
// ranks are the job's (each cross transfer has exactly one sender).
struct RankShare {
  int rank = -1;
  std::int64_t local = 0;       // elements it keeps (src == dst)
  std::int64_t sent = 0;        // elements sent to other ranks
  std::int64_t sent_intra = 0;  // of them, to ranks on this rank's node
  std::int64_t sent_inter = 0;  // to other nodes
  std::int64_t messages_intra = 0, messages_inter = 0;  // cross transfers it sends
  // Cost model (when params were given): seconds of this rank's work.
  double whole_s = 0;                                  // over the whole plan (incl. local copies)
  double local_s = 0;                                  // its local copies (in the job's first step)
  std::vector<std::pair<std::int64_t, double>> steps;  // (job-wide step number, work), increasing
};

// `plan` is rank-local (materialized_for = its rank). node_of_rank: as cost_regime.
// params null: counts only. Throws redist::Error on a whole plan or a short node map.
RankShare rank_share(const redist::RedistPlan& plan, std::size_t elem_bytes, std::span<const int> node_of_rank,
                     const redist::CostParams* params, const CostRegime& regime);

// The job's span of step numbers: lo = min, hi = max over all ranks' steps (reduce with
// min / max); no step anywhere: hi < lo.
struct StepSpan {
  std::int64_t lo = 0, hi = -1;
  std::size_t slots() const { return 1 + static_cast<std::size_t>(hi >= lo ? hi - lo + 1 : 1); }
};
StepSpan own_span(const RankShare& s);  // this rank's (hi < lo if it takes no step)

// A rank's contribution, per slot (0 = whole plan, 1 + (id - lo) = step id): work seconds,
// whether it takes part (the whole plan: always; a step: a message in it, or local copies
// in the first step) and whether it has a message there. Sum `work` and `active` within a
// node; take maxima of `work`, `active`, `message` over the job.
struct CostSlots {
  std::vector<double> work, active, message;
};
CostSlots cost_slots(const RankShare& s, const StepSpan& span);

// A node's bound per slot from the node's sums (cost_model.hpp's bound(S), node part):
// work_sum / min(cores, active_sum); 0 where nobody takes part or cores are unknown.
std::vector<double> node_bounds(const redist::CostParams& params, std::span<const double> work_sum,
                                std::span<const double> active_sum);

// The prediction from the job-wide maxima per slot: of ranks' work, of node bounds, of
// `active` and of `message` (the steps are the slots with a message).
double predicted_seconds(const redist::CostParams& params, const CostRegime& regime, std::span<const double> rank_max,
                         std::span<const double> node_max, std::span<const double> active_max,
                         std::span<const double> message_max);

}  // namespace resize::detail
