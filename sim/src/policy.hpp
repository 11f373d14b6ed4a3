// SPDX-License-Identifier: BSD-3-Clause
// The malleable jobs' decisions in the cluster simulator come from the project's own
// policy code: cluster::slurm::decide (malleable/cluster/slurm.hpp) on a Slurm snapshot
// built from the simulated cluster (this job's nodes, the idle nodes, the waiting jobs
// oldest first), and, for growth, the payoff test resize::predict_payoff with the job's
// model iteration times and the cost model's resize time (the session's predictor knows
// the speeds; here the model is exact).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "costs.hpp"
#include "malleable/cluster/cluster.hpp"

namespace clustersim {

struct Action {
  enum class Kind { None, Shrink, Grow, UseHeld } kind = Kind::None;
  std::vector<int> give;  // Shrink: nodes to give back (last joined first)
  int grow = 0;           // Grow: nodes to ask for
  std::vector<int> claim; // Grow by the arbiter: the idle nodes it claimed; UseHeld: the
                          // nodes of its allocation it spawns onto
  std::string rule;       // "give-back", "acquire", "no-payoff", "stay"
  std::string why;        // the policy's reason
};


// What the arbitration needs of the job beyond its allocation: the nodes its processes
// run on (a job started on one process holds nodes that run nothing until it spawns onto
// them; empty: every node it holds), and whether Slurm still takes a change of its
// allocation (without accounting, once: after that it gives nothing back and asks for
// nothing, as the real policy does, but still spawns onto nodes it holds).
struct Ranks {
  std::vector<int> nodes;
  bool frozen = false;
  int floor = 0;  // processes of the first launch share rank 0's world and cannot leave: a
                  // job started on all its nodes gives back only nodes it grew onto
  bool no_growth = false;  // growth switched off (a lever's share measured): at most what it holds
};

// The single-job policy's decision (cluster::slurm::decide) of running malleable job `job`
// after `done` of its iterations.
Action decide_for(const Cluster& c, std::size_t job, int done, const Costs& costs, const Ranks& ranks = {});

// The arbitration's view of the simulated cluster, as squeue and sinfo would list it: every
// running and waiting job in submission order with its nodes, FCFS priority (an earlier
// submission higher), submit time and partition "batch"; the oldest waiting job's
// reservation (EASY's head: the idle nodes, then the nodes of the running jobs in the order
// their estimated ends free them) as its planned_start and planned_nodes; the idle nodes.
cluster::slurm::ClusterView view_of(const Cluster& c, double now);

// view_of kept between decisions (the simulator asks the policy thousands of times between
// two changes of the cluster at 10,000 nodes): the jobs and idle nodes listed are rebuilt
// only when the cluster's version() changes; taken_at and the head's reservation (it reads
// the running jobs' estimated ends, which move without a version change) are redone at every
// call, so view() equals view_of(c, now) at every call.
class ViewCache {
 public:
  const cluster::slurm::ClusterView& view(const Cluster& c, double now);
  long rebuilds() const { return rebuilds_; }

 private:
  const Cluster* cluster_ = nullptr;
  std::uint64_t version_ = 0;
  cluster::slurm::ClusterView v_;
  long rebuilds_ = 0;
};

// The multi-job arbitration (cluster::slurm::arbitrate) on a cluster view
// built from the simulated cluster (every job, running and waiting, and the idle nodes),
// the shared ledger (kept by the simulator between calls) and a growth model from the
// job's Amdahl times and the cost model. `ledger` is replaced by the one to write back.
// With a cache, its view (the same as view_of's) instead of a new one.
Action arbitrate_for(const Cluster& c, std::size_t job, int done, const Costs& costs, cluster::slurm::Ledger& ledger,
                     double now, const cluster::slurm::ArbiterOptions& opt, const Ranks& ranks = {},
                     ViewCache* cache = nullptr);

// The payoff of growing job j from `from` to `to` nodes with `left` iterations to go
// (resize::predict_payoff on the model's iteration times and the cost model).
bool growth_pays(const Job& j, int from, int to, int left, const Costs& costs, std::string* why = nullptr);

}  // namespace clustersim
