// SPDX-License-Identifier: BSD-3-Clause
// The expected overhead of checkpointing at levels (issue 35 §3), pure: per-level
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

}  // namespace resize::levels
