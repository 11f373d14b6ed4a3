// SPDX-License-Identifier: BSD-3-Clause
// The job agent among many jobs (ManyJobs, agent_state.hpp): its plan from the shared ledger
// (arbitrate() under the ledger's lock, plan_shared) or from the arbiter daemon
// (malleable-arbiterd, plan_arbiter: the job's state and its growth model as a table go to
// the daemon, the plan comes back; an arbiter that does not answer leaves the job at its
// size: said once, asked again after a back-off). Either way the job's bid lives past the
// gap between its remap points.
#include "agent/agent_state.hpp"

#include "arbiter/client.hpp"

#include <algorithm>
#include <set>

namespace cluster::slurm::detail {

namespace {
// The growth model at every node count the arbiter may ask about: up to the node limit
// over the nodes the ranks run on, down to one node (a give-back's loss), at most 256 each way.
std::map<int, Growth> growth_table(const GrowthModel& g, int rank_nodes, int max_nodes) {
  std::map<int, Growth> t;
  const int up = std::min(256, std::max(0, max_nodes - rank_nodes) + 1), down = std::min(256, rank_nodes - 1);
  for (int n = 1; n <= up; ++n) t[n] = g(n);
  for (int n = 1; n <= down; ++n) t[-n] = g(-n);
  return t;
}
}  // namespace

// The policy is asked at remap points, so a job whose iterations are longer than the bid's
// lifetime renews its bid that seldom: it found it dropped at every query, bid anew and
// waited out the window again, never growing (a 23-s iteration against a 20-s lifetime,
// emulated). Its bids and offers live at least twice the last gap (and four intervals).
double ManyJobs::bid_lifetime(double w) {
  const double gap = a.pace.last_plan_wall > -1e29 ? w - a.pace.last_plan_wall : 0;
  a.pace.last_plan_wall = w;
  return std::max(4 * a.opt.interval_s * (1 + a.opt.jitter), 2 * gap);
}

// Many jobs: the shared view, arbitrate() on the ledger under its lock, the decision in
// this job's log. False: nothing to do (the reason noted).
bool ManyJobs::plan_shared(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart) {
  const std::vector<std::string>& ranks = m.rank_hosts;
  const double w = a.wall();
  ClusterView v;
  try {
    bool queried = false;
    v = a.shared->view(a.client->runner(), w, a.opt.interval_s, a.client->job_id(), queried);
    // A view taken before this job started does not list it: taken again.
    if (!queried && std::none_of(v.jobs.begin(), v.jobs.end(), [&](const Job& j) { return j.id == a.client->job_id(); }))
      v = a.shared->view(a.client->runner(), w, 0, a.client->job_id(), queried);
    for (const Expander& e : a.exp.book) v.expanders.insert(e.id);  // by their ids, not their names
    s = snapshot_of(v, a.client->job_id());
  } catch (const Error& e) {
    a.note(std::string("asking Slurm failed: ") + e.what());
    return false;
  }
  a.most_nodes = std::max<int>(a.most_nodes, static_cast<int>(s.mine.node_list.size()));
  const int held = static_cast<int>(s.mine.node_list.size());
  const Options o = a.bounded(held, held);
  JobState me{a.client->job_id(), ranks, per_node, o.min_nodes, o.max_nodes};
  ArbiterOptions rules;
  rules.bid_window_s = a.opt.bid_window_s > 0 ? a.opt.bid_window_s : 2 * a.opt.interval_s;
  rules.bid_ttl_s = std::max(rules.bid_ttl_s, bid_lifetime(w));
  rules.offer_ttl_s = rules.bid_ttl_s;
  rules.expansion = a.opt.expansion;
  const GrowthModel growth = a.growth_of(m, per_node);
  Arbitration r;
  try {
    a.shared->update([&](const Ledger& l) {
      r = arbitrate(v, l, me, growth, w, rules);
      // While Slurm's last refusal holds, this job neither bids nor claims.
      if (r.plan.kind == Plan::Kind::Acquire && a.now() < a.no_acquire_until) {
        const auto mine = settle(r.ledger, me.id);
        r.plan = Plan{};
        r.rule = "backoff";
        r.plan.why = "not asking Slurm for nodes again before " + std::to_string(static_cast<int>(a.backoff)) +
                     " s have passed since it refused";
        return mine;
      }
      return r.ledger;
    });
    a.shared->log(me.id, decision_json(r, me.id, w));
  } catch (const Error& e) {
    a.note(std::string("the shared ledger failed: ") + e.what());
    return false;
  }
  p = r.plan;
  by_restart = r.by_restart;
  p.why = r.rule + ": " + p.why;
  return true;
}

// One job and the arbiter daemon: the plan the daemon answers. False: nothing to do (noted).
bool ManyJobs::plan_arbiter(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart) {
  const std::vector<std::string>& ranks = m.rank_hosts;
  const double t = a.now();
  if (t < a.link.retry_at) return false;
  const int rank_nodes = static_cast<int>(std::set<std::string>(ranks.begin(), ranks.end()).size());
  a.most_nodes = std::max(a.most_nodes, rank_nodes);
  // before the arbiter answers, the nodes the ranks run on stand for those the job holds
  const Options o = a.bounded(a.no_release ? a.most_nodes : rank_nodes, rank_nodes);
  arbiter::Request q;
  q.kind = arbiter::Request::Kind::Arbitrate;
  q.job = JobState{a.client->job_id(), ranks, std::max(1, per_node), o.min_nodes, o.max_nodes};
  q.hold = t < a.no_acquire_until || expanders_pending(a.exp);  // one growth at a time: its expanders first
  q.bid_ttl_s = bid_lifetime(a.wall());
  const GrowthModel growth = a.growth_of(m, per_node);
  q.growth = growth_table(growth, rank_nodes, o.max_nodes);
  // Its expander jobs by their ids (sbatch's answers): no waiting job for anyone.
  for (const Expander& e : a.exp.book)
    if (q.expanders.size() < arbiter::kMaxExpanders) q.expanders.push_back(e.id);
  arbiter::Reply r;
  try {
    r = arbiter::ask(arbiter::ClientOptions{a.opt.arbiter.socket, a.opt.arbiter.munge_socket, a.opt.arbiter.timeout_s, a.opt.arbiter.user}, q);
  } catch (const Error& e) {
    a.link.backoff = a.link.backoff <= 0 ? std::max(a.opt.interval_s, 1.0) : std::min(2 * a.link.backoff, 60.0);
    a.link.retry_at = t + a.link.backoff;
    if (a.link.down.empty())
      a.note(std::string("the arbiter does not answer (") + e.what() + "): the job keeps its size and asks again later");
    a.link.down = e.what();
    return false;
  }
  if (!a.link.down.empty()) a.note("the arbiter answers again");
  a.link.down.clear();
  a.link.backoff = 0;
  if (!r.ok) {
    const std::string why = "the arbiter refused: " + r.error;
    if (a.log.empty() || a.log.back() != why) a.note(why);
    return false;
  }
  s.mine.id = a.client->job_id();
  s.mine.node_list = r.held;
  s.idle = r.idle;
  a.most_nodes = std::max<int>(a.most_nodes, static_cast<int>(r.held.size()));
  p = r.arbitration.plan;
  by_restart = r.arbitration.by_restart;
  p.why = r.arbitration.rule + ": " + p.why;
  return true;
}

}  // namespace cluster::slurm::detail
