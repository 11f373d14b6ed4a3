// SPDX-License-Identifier: BSD-3-Clause
// Predicting a redistribution's time from its plan, with per-event costs calibrated once
// per machine (SUIF-Adapt §3.2 and §4: isolated micro-benchmarks give the cost
// of each event; a redistribution's time is the slowest node's sum of its events). Pure:
// no MPI here; redist/bench/calibrate_cost.cpp measures the parameters and writes the
// JSON file this header reads.
//
// The model, for a plan with `steps` communication steps on ranks placed on nodes:
//
//   work(p)  = Σ over the messages p sends or receives of (message_s + bytes * byte_s),
//              with the within-node or between-node pair of costs, + local bytes * local_copy_byte_s
//   share    = max(1, ranks on the node / cores_per_node)       (oversubscription)
//   bound(S) = max( max_p work_S(p),  max_node Σ_{p on node} work_S(p) / min(cores, ranks of S on node) )
//              for the work of a set S of messages
//   T        = share * (call_s + steps * step_s)
//            + max( bound(all messages),  Σ_s bound(messages of step s) )
//
// The step-wise sum: a rank starts its next step only when its messages of this one are
// done, so a schedule whose steps each keep only a few pairs busy (caterpillar) cannot use
// every core; on one step (all-at-once) both terms are the same. Local copies count in the
// first step (execution overlaps them with its messages).
//
// When waiting ranks sleep instead of spinning (redist's WaitMode::Sleep, and Auto above 8
// ranks per core), a message only progresses while both its ranks are awake: each step
// and each moved byte cost more. sleep_step_s is added per step (times share) and
// sleep_byte_s per byte at each endpoint, in that regime only.
//
// When they spin instead (WaitMode::Spin, and Auto up to 8 ranks per core) on an
// oversubscribed node, every waiting rank burns its time slices polling, so a byte moved
// waits behind the other ranks sharing the core: spin_byte_s * (share - 1) per byte at each
// endpoint, in that regime only (share > 1 and not sleeping).
//
// Both endpoints of a message pay for it: over shared memory without single-copy the sender
// copies into a shared segment and the receiver out of it (the data is copied twice). The
// first bound is the busiest process (SUIF-Adapt's max over nodes of the per-node
// redistribution time); the second is the node's cores running every process's copies when
// the ranks outnumber them. Steps and the call's collective check cost a scheduling round
// each, which takes `share` time slices when ranks share a core.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/plan.hpp"

namespace redist {

// Per-event costs of one machine, seconds and bytes. Plain data; save/load as JSON.
struct CostParams {
  double message_intra_s = 0;    // per message, at each endpoint, both ranks on one node
  double byte_intra_s = 0;       // per byte, at each endpoint, within a node
  double message_inter_s = 0;    // per message, at each endpoint, ranks on different nodes
  double byte_inter_s = 0;       // per byte, at each endpoint, between nodes
  double step_s = 0;             // per schedule step (a synchronisation round)
  double call_s = 0;             // per call (collective argument check, plan hand-over)
  double local_copy_byte_s = 0;  // per byte a rank copies to itself (src == dst)
  double sleep_step_s = 0;       // extra per step when waiters sleep
  double sleep_byte_s = 0;       // extra per byte, at each endpoint, when waiters sleep
  double spin_byte_s = 0;        // extra per byte, at each endpoint, times (share - 1) when
                                 // waiters spin on an oversubscribed node (optional in the file)
  int cores_per_node = 0;        // 0: unknown, every rank is assumed to have a core
  // Whether the between-node costs were measured (a calibration across nodes) or copied
  // from the within-node ones (a single-node calibration): the file says which.
  bool inter_node_measured = false;
};

// The fitted parameters as a vector, in this order (calibration's least squares works on it).
inline constexpr std::size_t kCostParamCount = 10;
inline constexpr std::array<const char*, kCostParamCount> kCostParamNames = {
    "message_intra_node_s", "byte_intra_node_s", "message_inter_node_s", "byte_inter_node_s",
    "step_s",               "call_s",            "local_copy_byte_s",    "sleep_step_s",
    "sleep_byte_s",         "spin_byte_s"};
// Parameters a cost model file may leave out (read as 0): added after version 1 files were
// written, so that those still load and predict as they did.
inline constexpr std::array<bool, kCostParamCount> kCostParamOptional = {false, false, false, false, false,
                                                                         false, false, false, false, true};
std::array<double, kCostParamCount> to_array(const CostParams& p);
void assign(CostParams& p, const std::array<double, kCostParamCount>& v);

// What one rank does in a redistribution: counts only, no times.
struct RankLoad {
  std::int64_t messages_intra = 0, messages_inter = 0;  // sent + received
  std::int64_t bytes_intra = 0, bytes_inter = 0;        // sent + received
  std::int64_t bytes_local = 0;                         // copied to itself
  // One message of `bytes` sent or received, within this rank's node or not.
  void add_message(bool intra, std::int64_t bytes) {
    (intra ? messages_intra : messages_inter) += 1;
    (intra ? bytes_intra : bytes_inter) += bytes;
  }
};

// One rank's work for `load` in seconds, the model's per-rank term (what bound() takes the
// busiest of): its messages and bytes at the parameters' rates, its local copies, and with
// waiters asleep (`sleeping`) or spinning (`spin_weight`: ranks per core - 1) their costs
// per byte moved (crowding() says which).
double rank_work_s(const CostParams& params, const RankLoad& load, bool sleeping, double spin_weight);

// The plan reduced to what the model needs; independent of the parameters.
struct CostFeatures {
  std::vector<RankLoad> ranks;   // indexed by communicator rank
  std::vector<int> node_of_rank; // node id of each rank
  int nodes = 1;
  int steps = 0;
  std::int64_t messages = 0;     // src != dst transfers
  std::int64_t bytes_moved = 0;  // between ranks
  std::int64_t bytes_local = 0;
  // Per step, the ranks taking part and their load in that step (sparse: a rank in no
  // message of the step is absent); step 0 also holds every rank's local copies.
  std::vector<std::vector<std::pair<int, RankLoad>>> step_loads;
};

// `plan` must carry every transfer's runs (make_plan without for_rank). `node_of_rank[r]`
// is rank r's node; empty means one node holding ranks 0..max rank of the plan (a single
// shared-memory machine). Throws redist::Error on a plan materialised for one rank, a
// node map not covering the plan's ranks, a negative node id or elem_bytes == 0.
CostFeatures cost_features(const RedistPlan& plan, std::size_t elem_bytes,
                           std::span<const int> node_of_rank = {});

struct CostPrediction {
  double total_s = 0;
  double overhead_s = 0;       // share * (call_s + steps * (step_s [+ sleep_step_s]))
  double transfer_s = 0;       // the max of the whole plan's bound and the step-wise sum
  double busiest_rank_s = 0;   // max_p work(p)
  double busiest_node_s = 0;   // max over nodes of node work / usable cores
  double stepwise_s = 0;       // Σ over steps of that step's bound (busiest rank or node)
  bool step_bound = false;     // the step-wise sum, not the whole plan's bound, set transfer_s
  int busiest_rank = -1;
  int busiest_node = -1;
  bool node_bound = false;     // the node's cores, not one process, set transfer_s
  double share = 1;            // ranks per core on the most crowded node (>= 1)
  bool sleeping = false;       // waiters taken to sleep (the sleep_* costs apply)
  bool spinning = false;       // waiters spin on an oversubscribed node (spin_byte_s applies)
  // total_s == Σ coefficients[k] * to_array(params)[k]: the prediction is linear in the
  // parameters once the busiest rank/node is chosen (what calibration fits).
  std::array<double, kCostParamCount> coefficients{};
};

// How the ranks wait for messages (redist::WaitMode, which needs MPI). Auto is redist's
// rule: sleep when a node has more than 8 ranks per core (cores_per_node; 0: spin).
enum class Waiting { Auto, Spin, Sleep };
inline constexpr int kRanksPerCoreToSleep = 8;  // redist/src/exec/waiting.cpp, WaitMode::Auto

// The crowding rule, one for predict and for resize's plan of a move (cost_regime): with
// `crowd` ranks on the most crowded node, the ranks per core there (share, >= 1; 1 when
// cores_per_node is 0, not known), whether the waiters sleep (Sleep; Auto: more than
// kRanksPerCoreToSleep ranks per core on a node of known cores) and the weight of
// spin_byte_s when they spin on an oversubscribed node (share - 1; 0 otherwise).
struct Crowding {
  double share = 1;
  bool sleeping = false;
  double spin_weight = 0;
};
Crowding crowding(const CostParams& params, int crowd, Waiting waiting = Waiting::Auto);

CostPrediction predict(const CostParams& params, const CostFeatures& features, Waiting waiting = Waiting::Auto);
CostPrediction predict(const CostParams& params, const RedistPlan& plan, std::size_t elem_bytes,
                       std::span<const int> node_of_rank = {}, Waiting waiting = Waiting::Auto);

// JSON: a flat object a user can read and edit, units in the key names, plus an optional
// "calibration" object (what was measured, kept as is). Parsing checks the format tag and
// version, that every parameter is present, a finite number and >= 0; a failure throws
// redist::Error naming the source (file) and the key at fault. (Text in and out, so that
// redist's public headers do not need a JSON library.)
std::string cost_params_to_json(const CostParams& p, const std::string& calibration_json = "");
CostParams parse_cost_params(const std::string& text, const std::string& source = "cost model");
// The "calibration" object of a cost model text, as JSON text ("null" if there is none).
std::string calibration_of(const std::string& text);
// Writes atomically (temporary file + rename), creating the directory if needed.
void save_cost_params(const CostParams& p, const std::string& path, const std::string& calibration_json = "");
CostParams load_cost_params(const std::string& path);

// Where the calibrated parameters live: $REDIST_COST_MODEL if set, else
// $XDG_CACHE_HOME/malleable/cost_model.json, else $HOME/.cache/malleable/cost_model.json.
std::string default_cost_model_path();

}  // namespace redist
