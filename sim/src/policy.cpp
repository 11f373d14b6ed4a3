// SPDX-License-Identifier: BSD-3-Clause
#include "policy.hpp"

#include <algorithm>

#include "malleable/resize/predict.hpp"
#include "malleable/cluster/cluster.hpp"

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

Action decide_for(const Cluster& c, std::size_t job, int done, const Costs& costs, const Ranks& ranks) {
  const Job& j = c.workload().jobs.at(job);
  cluster::slurm::Snapshot s;
  s.mine.id = j.id;
  s.mine.state = "RUNNING";
  const auto& held = c.held(job);
  s.mine.nodes = static_cast<int>(held.size());
  for (int n : held) s.mine.node_list.push_back(c.node_name(n));
  for (int n : c.idle_nodes_sorted()) s.idle.push_back(c.node_name(n));
  for (std::size_t q : c.queue()) {
    cluster::slurm::Job w;
    w.id = c.workload().jobs[q].id;
    w.state = "PENDING";
    w.nodes = c.workload().jobs[q].nodes;
    w.priority = static_cast<double>(c.workload().jobs.size() - q);  // FCFS, as view_of
    w.submit = c.workload().jobs[q].submit_s;
    w.partition = "batch";
    s.pending.push_back(std::move(w));
  }
  cluster::slurm::Options o;
  o.procs_per_node = 1;
  o.min_nodes = std::max(ranks.floor, ranks.frozen ? std::max(j.min_nodes, s.mine.nodes) : j.min_nodes);
  o.max_nodes = ranks.frozen || ranks.no_growth ? s.mine.nodes : j.max_nodes;
  std::vector<std::string> rank_hosts;
  for (int n : ranks.nodes.empty() ? held : ranks.nodes) rank_hosts.push_back(c.node_name(n));
  o.total_iterations = j.iterations;
  // The single-job decision's own payoff test, as on a job that has measured nothing yet
  // (the simulator's payoff is judged apart, with its cost model): grow unless the job is
  // about to end.
  const int world = static_cast<int>(rank_hosts.size()), left = j.iterations - done;
  const cluster::slurm::GrowthModel growth = [&](int extra) {
    cluster::slurm::Growth g;
    g.pays = o.total_iterations <= 0 || left > 1;
    g.why = o.total_iterations <= 0 ? "job length unknown"
            : left <= 1             ? std::to_string(left) + " iteration(s) left"
                                    : "no measurement on " + std::to_string(world + extra) + " processes yet";
    return g;
  };
  const auto plan = cluster::slurm::decide(s, rank_hosts, o, growth);
  Action a;
  a.why = plan.why;
  if (plan.kind == cluster::slurm::Plan::Kind::GiveBack) {
    a.kind = Action::Kind::Shrink;
    a.rule = "give-back";
    for (const auto& name : plan.nodes) a.give.push_back(std::stoi(name.substr(1)));
  } else if (plan.kind == cluster::slurm::Plan::Kind::UseHeld) {
    a.kind = Action::Kind::UseHeld;
    a.rule = "use-held";
    for (const auto& name : plan.nodes) a.claim.push_back(std::stoi(name.substr(1)));
  } else if (plan.kind == cluster::slurm::Plan::Kind::Acquire && plan.acquire > 0) {
    std::string why;
    const int from = static_cast<int>(rank_hosts.size());
    if (growth_pays(j, from, from + plan.acquire, j.iterations - done, costs, &why)) {
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

namespace {

int node_index(const std::string& name) { return std::stoi(name.substr(1)); }

// The backfill plan's reservation of the oldest waiting job (EASY's head: its shadow
// time): the idle nodes, then the nodes of the running jobs in the order their estimated
// ends free them, until it has the nodes it waits for; its start, the last of those ends
// (now when the idle nodes suffice). Written into the head's planned_start and
// planned_nodes, as squeue --start lists them.
void plan_head(const Cluster& c, double now, cluster::slurm::ClusterView& v) {
  const std::size_t first = c.head(now);  // the oldest waiting job the site's rules let start
  if (first >= c.queue().size()) return;
  const std::string& head_id = c.workload().jobs[c.queue()[first]].id;
  auto head = std::find_if(v.jobs.begin(), v.jobs.end(), [&](const cluster::slurm::Job& j) { return j.id == head_id; });
  if (head == v.jobs.end()) return;
  const int need = head->nodes;
  std::vector<int> nodes;
  for (int n : c.idle_nodes_sorted()) {
    if (static_cast<int>(nodes.size()) >= need) break;
    nodes.push_back(n);
  }
  double start = now;
  if (static_cast<int>(nodes.size()) < need) {
    std::vector<std::pair<double, std::size_t>> ends;
    for (std::size_t k = 0; k < c.workload().jobs.size(); ++k)
      if (c.running(k)) ends.emplace_back(c.estimated_end(k), k);
    std::sort(ends.begin(), ends.end());
    for (const auto& [end, k] : ends) {
      for (int n : c.held(k)) {
        if (static_cast<int>(nodes.size()) >= need) break;
        nodes.push_back(n);
      }
      start = std::max(start, end);
      if (static_cast<int>(nodes.size()) >= need) break;
    }
  }
  head->planned_start = start;
  for (int n : nodes) head->planned_nodes.push_back(c.node_name(n));
}

}  // namespace

namespace {

// The view without the head's reservation: what changes only with the cluster's version
// (the jobs listed, their nodes, the idle nodes).
cluster::slurm::ClusterView listed_view(const Cluster& c, double now) {
  cluster::slurm::ClusterView v;
  v.taken_at = now;
  const auto& jobs = c.workload().jobs;
  std::vector<bool> waiting(jobs.size(), false);
  for (std::size_t q : c.queue()) waiting[q] = true;
  // With fair-share the queue is in priority order (Cluster::set_fair_share): a waiting
  // job's priority is its place there, on the scale of the submission order's.
  const bool fair = c.fair_share().on();
  std::vector<std::size_t> position(fair ? jobs.size() : 0);
  if (fair)
    for (std::size_t p = 0; p < c.queue().size(); ++p) position[c.queue()[p]] = p;
  for (std::size_t k = 0; k < jobs.size(); ++k) {  // submission order, as squeue --sort=V
    if (!c.running(k) && !waiting[k]) continue;
    cluster::slurm::Job sj;
    sj.id = jobs[k].id;
    sj.name = jobs[k].id;
    sj.state = c.running(k) ? "RUNNING" : "PENDING";
    if (c.running(k)) {
      for (int n : c.held(k)) sj.node_list.push_back(c.node_name(n));
      sj.nodes = static_cast<int>(sj.node_list.size());
    } else {  // a malleable job with a range waits for its minimum (its min_nodes comment)
      sj.nodes = c.start_ranges() && jobs[k].malleable ? std::min(jobs[k].min_nodes, jobs[k].nodes) : jobs[k].nodes;
      sj.reason = c.held_reason(k, now);  // held by a site's rule (BeginTime, a user's limit), not waiting for nodes
    }
    // The simulated scheduler is FCFS: an earlier submission has the higher priority
    // (squeue %Q), and one partition (with fair-share: the queue's order, below).
    sj.priority = static_cast<double>(jobs.size() - k);
    if (fair && waiting[k]) sj.priority = static_cast<double>(jobs.size() - position[k]);  // the multifactor order
    sj.submit = jobs[k].submit_s;
    sj.partition = "batch";
    v.jobs.push_back(std::move(sj));
  }
  for (int n : c.idle_nodes_sorted()) v.idle.push_back(c.node_name(n));
  return v;
}

}  // namespace

cluster::slurm::ClusterView view_of(const Cluster& c, double now) {
  auto v = listed_view(c, now);
  plan_head(c, now, v);
  return v;
}

const cluster::slurm::ClusterView& ViewCache::view(const Cluster& c, double now) {
  if (cluster_ != &c || version_ != c.version()) {
    v_ = listed_view(c, now);
    cluster_ = &c;
    version_ = c.version();
    ++rebuilds_;
  } else {  // the head's reservation reads the estimated ends, which move without a version change
    v_.taken_at = now;
    const cluster::slurm::Job fresh;
    for (auto& j : v_.jobs) {
      if (j.planned_start == fresh.planned_start && j.planned_nodes.empty()) continue;
      j.planned_start = fresh.planned_start;
      j.planned_nodes.clear();
    }
  }
  plan_head(c, now, v_);
  return v_;
}

Action arbitrate_for(const Cluster& c, std::size_t job, int done, const Costs& costs, cluster::slurm::Ledger& ledger,
                     double now, const cluster::slurm::ArbiterOptions& opt, const Ranks& ranks, ViewCache* cache) {
  const Job& j = c.workload().jobs.at(job);
  cluster::slurm::JobState me;
  me.id = j.id;
  for (int n : ranks.nodes.empty() ? c.held(job) : ranks.nodes) me.rank_hosts.push_back(c.node_name(n));
  me.per_node = 1;
  const int held = static_cast<int>(c.held(job).size());
  me.min_nodes = std::max(ranks.floor, ranks.frozen ? std::max(j.min_nodes, held) : j.min_nodes);
  me.max_nodes = ranks.frozen || ranks.no_growth ? held : j.max_nodes;
  const int from = static_cast<int>(me.rank_hosts.size());
  const int left = j.iterations - done;
  const cluster::slurm::GrowthModel growth = [&](int extra) {
    cluster::slurm::Growth g;
    const int to = std::min(from + extra, j.max_nodes);
    g.pays = growth_pays(j, from, to, left, costs, &g.why);
    g.saving_s = std::max(0.0, (j.iteration_s(from) - j.iteration_s(to)) * left - costs.grow_s(from, to, j.nodes));
    g.measured_iteration = j.iteration_s(from);
    g.predicted_iteration = j.iteration_s(to);
    g.predicted_resize = to < from ? costs.shrink_s(from, to, j.nodes) : costs.grow_s(from, to, j.nodes);
    g.iterations_left = left;
    return g;
  };
  cluster::slurm::ClusterView fresh;
  const auto& view = cache ? cache->view(c, now) : (fresh = view_of(c, now));
  auto a = cluster::slurm::arbitrate(view, ledger, me, growth, now, opt);
  ledger = std::move(a.ledger);
  Action out;
  out.rule = a.rule;
  out.why = a.plan.why;
  if (a.plan.kind == cluster::slurm::Plan::Kind::GiveBack) {
    out.kind = Action::Kind::Shrink;
    for (const auto& name : a.plan.nodes) out.give.push_back(node_index(name));
  } else if (a.plan.kind == cluster::slurm::Plan::Kind::UseHeld) {
    out.kind = Action::Kind::UseHeld;
    for (const auto& name : a.plan.nodes) out.claim.push_back(node_index(name));
  } else if (a.plan.kind == cluster::slurm::Plan::Kind::Acquire) {
    out.kind = Action::Kind::Grow;
    for (const auto& name : a.plan.nodes) out.claim.push_back(node_index(name));
    out.grow = a.plan.acquire > 0 ? a.plan.acquire : static_cast<int>(out.claim.size());
  }
  return out;
}

}  // namespace clustersim
