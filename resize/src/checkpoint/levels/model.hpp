// SPDX-License-Identifier: BSD-3-Clause
// The expected overhead of checkpointing at levels, pure: per-level
// Young/Daly over failure classes, composed hierarchically. No MPI, no clock.
//
// Failures arrive as a Poisson process of rate lambda = 1 / system MTBF (per-node rate
// lambda / nodes). Each failure needs one level to recover: a fraction `share[l]` of them
// needs level l (the cheapest level holding what was lost: a process that dies on a node
// that stays -> local; one node lost -> partner; more -> global), so level l sees
// failures at rate lambda_l = share[l] * lambda. A failure of class l rolls back to that
// level's last checkpoint, pays the relaunch D and the level's recovery R_l.
//
// One level alone (Daly 2006, "A higher order estimate of the optimum checkpoint interval
// for restart dumps", exact for exponential failures): work tau between checkpoints of cost
// C takes on average E(tau) = e^{lambda (D + R)} (e^{lambda (tau + C)} - 1) / lambda, the
// slowdown S = E / tau. To first order S = 1 + C / tau + lambda (tau / 2 + D + R), least at
// Young's tau = sqrt(2 C / lambda) (Young 1974).
// Levels (the hierarchical model of multi-level checkpointing, Moody et al., SC10, "Design,
// modeling, and evaluation of a scalable multi-level checkpointing system", to first
// order): each level's failures roll back work that includes the cheaper levels'
// checkpoints and rework, so the slowdowns multiply, S = prod_l S_l(tau_l), each tau_l
// chosen for its own level; to first order the overhead is the sum over levels of
// sqrt(2 C_l lambda_l) + lambda_l (D + R_l).
#pragma once

#include <string>
#include <vector>

namespace resize::levels {

// One level as the model sees it.
struct ModelLevel {
  std::string name;
  double cost = 0;        // C_l, seconds per checkpoint
  double recovery = 0;    // R_l, seconds to read it back and rebuild
  double share = 0;       // fraction of all failures this level is the cheapest to recover
};

struct LevelPlan {
  std::string name;
  double rate = 0;        // failures per second this level recovers
  double interval = 0;    // chosen work between its checkpoints, seconds (0: never written)
  double slowdown = 1;    // S_l at that interval
};

struct OverheadResult {
  std::vector<LevelPlan> levels;
  double slowdown = 1;    // prod S_l: wall time / useful work
  double overhead = 0;    // 1 - 1 / slowdown: the fraction of wall time not useful work
  double first_order = 0; // sum_l sqrt(2 C_l lambda_l) + lambda_l (D + R_l)
};

// Daly's exact expected slowdown of one level: E(tau) / tau (infinite when it overflows).
double daly_slowdown(double tau, double cost, double recovery_and_restart, double rate);
// The interval minimizing daly_slowdown (golden section over (0, 100 / rate]), >= Young's
// order of magnitude; rate <= 0: 0 (never needed).
double best_interval(double cost, double recovery_and_restart, double rate);

// The expected overhead of a set of levels under system MTBF `mtbf_seconds` with relaunch
// time `restart_seconds`. Throws resize::Error for a negative cost, recovery or share,
// shares not summing to 1 (within 1e-9), or a non-positive MTBF.
OverheadResult expected_overhead(const std::vector<ModelLevel>& levels, double mtbf_seconds, double restart_seconds);

// The global level's cost when every node writes `bytes_per_node` through a file system
// of aggregate bandwidth `fs_bytes_per_second` shared by `nodes` nodes, but never less
// than the cost measured alone (`measured_seconds`).
double shared_fs_seconds(double bytes_per_node, int nodes, double fs_bytes_per_second, double measured_seconds);

// The global level at scale, without this machine's disk as a floor: every node writes
// `bytes_per_node` at once through a file system of aggregate bandwidth
// `fs_bytes_per_second`, each node at most `node_bytes_per_second` (its client link):
// bytes / min(node rate, fs / nodes). Throws resize::Error for a non-positive bandwidth,
// nodes < 1 or negative bytes.
double fs_seconds(double bytes_per_node, int nodes, double fs_bytes_per_second, double node_bytes_per_second);

// The fraction of a link's rate a transfer achieved: (bytes / link rate) / seconds, at most
// 1. Throws resize::Error unless bytes, the rate and the seconds are > 0.
double link_efficiency(double bytes, double link_bytes_per_second, double seconds);

// What was measured on one node (the inputs of the at-scale costs).
struct MeasuredLevels {
  double bytes = 0;        // bytes per node the measurement checkpointed
  double local = 0;        // seconds, the local level
  double partner = 0;      // seconds, the local+partner level (local copy, then the partner copy)
  double link_rate = 0;    // bytes/s of the link the partner copies crossed (1 Gbit/s: 125e6)
};

// The assumptions of one at-scale scenario.
struct ScaleScenario {
  double bytes_per_node = 0;
  int nodes = 1;
  double fs_bandwidth = 0;       // aggregate file-system bytes/s, shared by all nodes
  double fs_node_bandwidth = 0;  // one node's client cap, bytes/s
  double interconnect = 0;       // the partner link's rate at scale, bytes/s
  double local_rate = 0;         // bytes/s of the local level; 0: the measured rate
};

struct ScaleCosts {
  double local = 0, partner = 0, global = 0;  // seconds per checkpoint
  double partner_efficiency = 0;              // measured: link bound / (partner - local)
};

// The levels' costs at scale: local = bytes at the measured per-byte rate (or local_rate);
// partner = local + bytes / (interconnect x the link efficiency measured, i.e. the
// measured partner copy's share of its link's bound); global = fs_seconds (no floor).
// Throws resize::Error when the measured partner level is not dearer than the local one,
// or for non-positive bytes or rates.
ScaleCosts at_scale_costs(const MeasuredLevels& measured, const ScaleScenario& scenario);

// Global-only against local/partner/global for given costs and recoveries (R = C for the
// global level): the two expected overheads and their ratio (global only / multi-level).
struct Comparison {
  OverheadResult global_only, multi;
  double ratio = 0;
};
Comparison compare(double local, double recover_local, double partner, double recover_partner, double global,
                   double share_process, double share_global, double mtbf_seconds, double restart_seconds);

// To first order (checkpoint terms only, sqrt(2 C lambda)), multi-level is >= `target`
// times cheaper than global-only iff C_global / C_partner >= (1 - s) / (1 / target - sqrt(s))^2
// with s the global level's share of the failures; returns that bound, infinity when
// sqrt(s) >= 1 / target (the partners cannot reach the target however cheap they are).
// Throws resize::Error unless target > 0 and 0 <= s <= 1.
double break_even_cost_ratio(double target, double share_global);

}  // namespace resize::levels
