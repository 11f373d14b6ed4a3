// SPDX-License-Identifier: BSD-3-Clause
#include "policy.hpp"

#include "malleable/resize/predict.hpp"
#include "policy/slurm.hpp"

namespace clustersim {

bool growth_pays(const Job& j, int from, int to, int left, const Costs& costs, std::string* why) {
  if (to <= from || left <= 0) {
    if (why) *why = "nothing to gain";
    return false;
  }
  const double grow = costs.grow_s(from, to, j.nodes);
  const double other = costs.expansion ? costs.other_s : 0.0;
  const double redist = costs.expansion ? costs.redistribution_s(from, to, j.nodes) : 0.0;
  const auto p = resize::predict_payoff(j.iteration_s(from), j.iteration_s(to), grow - other - redist, redist, other, left);
  if (why) *why = p.why;
  return p.pays;
}

Action decide_for(const Cluster& c, std::size_t job, int done, const Costs& costs) {
  const Job& j = c.workload().jobs.at(job);
  resize::slurm::Snapshot s;
  s.mine.id = j.id;
  s.mine.state = "RUNNING";
  const auto& held = c.held(job);
  s.mine.nodes = static_cast<int>(held.size());
  for (int n : held) s.mine.node_list.push_back(c.node_name(n));
  for (int n : c.idle_nodes_sorted()) s.idle.push_back(c.node_name(n));
  for (std::size_t q : c.queue()) {
    resize::slurm::Job w;
    w.id = c.workload().jobs[q].id;
    w.state = "PENDING";
    w.nodes = c.workload().jobs[q].nodes;
    s.pending.push_back(std::move(w));
  }
  resize::slurm::Options o;
  o.procs_per_node = 1;
  o.min_nodes = j.min_nodes;
  o.max_nodes = j.max_nodes;
  o.total_iterations = j.iterations;
  resize::PolicyInput in;
  in.iteration = done;
  in.world_size = s.mine.nodes;
  in.remaining = j.iterations - done;
  const auto plan = resize::slurm::decide(s, s.mine.node_list, o, in);
  Action a;
  a.why = plan.why;
  if (plan.kind == resize::slurm::Plan::Kind::GiveBack) {
    a.kind = Action::Kind::Shrink;
    a.rule = "give-back";
    for (const auto& name : plan.nodes) a.give.push_back(std::stoi(name.substr(1)));
  } else if (plan.kind == resize::slurm::Plan::Kind::Acquire && plan.acquire > 0) {
    std::string why;
    if (growth_pays(j, s.mine.nodes, s.mine.nodes + plan.acquire, j.iterations - done, costs, &why)) {
      a.kind = Action::Kind::Grow;
      a.grow = plan.acquire;
      a.rule = "acquire";
    } else {
      a.rule = "no-payoff";
    }
    a.why += "; " + why;
  } else {
    a.rule = "stay";
  }
  return a;
}

}  // namespace clustersim
