// SPDX-License-Identifier: BSD-3-Clause
// "-p slurm": a real resource manager drives the resizes. The policy is the session's face
// of the cluster component's JobAgent (malleable/cluster/cluster.hpp): at each remap point
// it hands the agent the job's ranks and a growth model built from the session's metrics
// and history, and turns the agent's Step into a Decision (the target grid chosen here,
// grid_choice.hpp). Pure: the agent runs Slurm's commands on world rank 0 only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "malleable/cluster/cluster.hpp"
#include "common/config.hpp"
#include "malleable/resize/policy.hpp"

namespace resize {

class SlurmPolicy final : public Policy {
 public:
  SlurmPolicy(std::unique_ptr<cluster::slurm::Client> client, cluster::slurm::Options o);
  Decision decide(const PolicyInput& in) override;
  void completed(const Decision& d, int from_procs, bool ok) override;
  std::string name() const override { return "slurm"; }
  // The launches waiting to join are its expander jobs': it decides on them.
  bool decides_on_waiting_launches() const override { return true; }
  // What happened at each remap point that asked Slurm (for the report and tests).
  const std::vector<std::string>& log() const { return agent_.log(); }
  // Its options as made (the run's iterations among them; for tests).
  const cluster::slurm::Options& options() const { return agent_.options(); }

 private:
  cluster::slurm::JobAgent agent_;
};

// What growing by `extra_nodes` (< 0: giving that many back) with `per_node` processes on
// each would bring, from the session's measurements: the payoff point (predicted gain x
// iterations left against the predicted resize time: spawn and other from the history,
// redistribution as the latest expansion's). Unknown length or no measurement on that
// size yet: it pays (try it, the thesis's sweet-spot search).
cluster::slurm::Growth growth_from_metrics(const PolicyInput& in, const cluster::slurm::Options& o, int extra_nodes,
                                           int per_node);

// The policy with its options from the environment (RESIZE_SLURM_PROCS_PER_NODE,
// RESIZE_SLURM_MIN_NODES, RESIZE_SLURM_MAX_NODES, RESIZE_SLURM_ITERATIONS,
// RESIZE_SLURM_INTERVAL, RESIZE_SLURM_BACKOFF: the first wait after a refusal, 0 none;
// RESIZE_SLURM_SHARED: the shared directory, default $HOME/.malleable/slurm/<ClusterName>,
// "off" for the single-job policy; RESIZE_ARBITER: the arbiter daemon's socket (then no
// shared directory), RESIZE_ARBITER_MUNGE: munged's socket, RESIZE_ARBITER_USER: whose
// replies are taken (default malleable-arbiter); RESIZE_SLURM_JITTER; RESIZE_SLURM_GROW and
// RESIZE_SLURM_GIVE_BACK: on, the default, or off (a lever switched off);
// RESIZE_SLURM_EXPANSION: on, off or auto, the default: scontrol show config;
// RESIZE_SLURM_LATE_DAEMONS: on or off, the default; MALLEABLE_RUN_HOSTS; SLURM_JOB_ID),
// read once here, when the policy is made; throws Error outside a Slurm job.
std::unique_ptr<Policy> make_slurm_policy(int total_iterations = 0);

// Growth by expander jobs from the environment (RESIZE_SLURM_JOIN: auto, the default, or
// off; RESIZE_SLURM_JOIN_DEADLINE; BLACS_DYN_JOB_DIR and MALLEABLE_RUN, which
// malleable-run --job-dir exports): sets o.join when the job can be joined; throws
// Error on a bad value or on a job directory without an absolute launcher.
void join_options(const config::Slurm& env, cluster::slurm::Options& o);

}  // namespace resize
