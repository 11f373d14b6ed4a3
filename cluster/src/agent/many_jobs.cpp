// SPDX-License-Identifier: BSD-3-Clause
// The job agent among many jobs: its plan from the shared ledger (arbitrate() under the
// ledger's lock, plan_shared) or from the arbiter daemon (malleable-arbiterd, plan_arbiter:
// the job's state and its growth model as a table go to the daemon, the plan comes back; an
// arbiter that does not answer leaves the job at its size: said once, asked again after a
// back-off). Either way the job's bid lives past the gap between its remap points.
#include "malleable/cluster/job_agent.hpp"

#include "arbiter/client.hpp"

#include <algorithm>
#include <set>

namespace cluster::slurm {

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
double JobAgent::bid_lifetime(double w) {
  const double gap = last_plan_wall_ > -1e29 ? w - last_plan_wall_ : 0;
  last_plan_wall_ = w;
  return std::max(4 * opt_.interval_s * (1 + opt_.jitter), 2 * gap);
}

// Many jobs: the shared view, arbitrate() on the ledger under its lock, the decision in
// this job's log. False: nothing to do (the reason noted).
bool JobAgent::plan_shared(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart) {
  const std::vector<std::string>& ranks = m.rank_hosts;
  const double w = wall();
  ClusterView v;
  try {
    bool queried = false;
    v = shared_->view(client_->runner(), w, opt_.interval_s, client_->job_id(), queried);
    // A view taken before this job started does not list it: taken again.
    if (!queried && std::none_of(v.jobs.begin(), v.jobs.end(), [&](const Job& j) { return j.id == client_->job_id(); }))
      v = shared_->view(client_->runner(), w, 0, client_->job_id(), queried);
    for (const Expander& e : exp_.book) v.expanders.insert(e.id);  // by their ids, not their names
    s = snapshot_of(v, client_->job_id());
  } catch (const Error& e) {
    note(std::string("asking Slurm failed: ") + e.what());
    return false;
  }
  most_nodes_ = std::max<int>(most_nodes_, static_cast<int>(s.mine.node_list.size()));
  const int held = static_cast<int>(s.mine.node_list.size());
  const Options o = bounded(held, held);
  JobState me{client_->job_id(), ranks, per_node, o.min_nodes, o.max_nodes};
  ArbiterOptions a;
  a.bid_window_s = opt_.bid_window_s > 0 ? opt_.bid_window_s : 2 * opt_.interval_s;
  a.bid_ttl_s = std::max(a.bid_ttl_s, bid_lifetime(w));
  a.offer_ttl_s = a.bid_ttl_s;
  a.expansion = opt_.expansion;
  const GrowthModel growth = growth_of(m, per_node);
  Arbitration r;
  try {
    shared_->update([&](const Ledger& l) {
      r = arbitrate(v, l, me, growth, w, a);
      // While Slurm's last refusal holds, this job neither bids nor claims.
      if (r.plan.kind == Plan::Kind::Acquire && now() < no_acquire_until_) {
        const auto mine = settle(r.ledger, me.id);
        r.plan = Plan{};
        r.rule = "backoff";
        r.plan.why = "not asking Slurm for nodes again before " + std::to_string(static_cast<int>(backoff_)) +
                     " s have passed since it refused";
        return mine;
      }
      return r.ledger;
    });
    shared_->log(me.id, decision_json(r, me.id, w));
  } catch (const Error& e) {
    note(std::string("the shared ledger failed: ") + e.what());
    return false;
  }
  p = r.plan;
  by_restart = r.by_restart;
  p.why = r.rule + ": " + p.why;
  return true;
}

// One job and the arbiter daemon: the plan the daemon answers. False: nothing to do (noted).
bool JobAgent::plan_arbiter(const Moment& m, int per_node, Snapshot& s, Plan& p, bool& by_restart) {
  const std::vector<std::string>& ranks = m.rank_hosts;
  const double t = now();
  if (t < link_.retry_at) return false;
  const int rank_nodes = static_cast<int>(std::set<std::string>(ranks.begin(), ranks.end()).size());
  most_nodes_ = std::max(most_nodes_, rank_nodes);
  // before the arbiter answers, the nodes the ranks run on stand for those the job holds
  const Options o = bounded(no_release_ ? most_nodes_ : rank_nodes, rank_nodes);
  arbiter::Request q;
  q.kind = arbiter::Request::Kind::Arbitrate;
  q.job = JobState{client_->job_id(), ranks, std::max(1, per_node), o.min_nodes, o.max_nodes};
  q.hold = t < no_acquire_until_ || expanders_pending();  // one growth at a time: its expanders first
  q.bid_ttl_s = bid_lifetime(wall());
  const GrowthModel growth = growth_of(m, per_node);
  q.growth = growth_table(growth, rank_nodes, o.max_nodes);
  // Its expander jobs by their ids (sbatch's answers): no waiting job for anyone.
  for (const Expander& e : exp_.book)
    if (q.expanders.size() < arbiter::kMaxExpanders) q.expanders.push_back(e.id);
  arbiter::Reply r;
  try {
    r = arbiter::ask(arbiter::ClientOptions{opt_.arbiter.socket, opt_.arbiter.munge_socket, opt_.arbiter.timeout_s, opt_.arbiter.user}, q);
  } catch (const Error& e) {
    link_.backoff = link_.backoff <= 0 ? std::max(opt_.interval_s, 1.0) : std::min(2 * link_.backoff, 60.0);
    link_.retry_at = t + link_.backoff;
    if (link_.down.empty())
      note(std::string("the arbiter does not answer (") + e.what() + "): the job keeps its size and asks again later");
    link_.down = e.what();
    return false;
  }
  if (!link_.down.empty()) note("the arbiter answers again");
  link_.down.clear();
  link_.backoff = 0;
  if (!r.ok) {
    const std::string why = "the arbiter refused: " + r.error;
    if (log_.empty() || log_.back() != why) note(why);
    return false;
  }
  s.mine.id = client_->job_id();
  s.mine.node_list = r.held;
  s.idle = r.idle;
  most_nodes_ = std::max<int>(most_nodes_, static_cast<int>(r.held.size()));
  p = r.arbitration.plan;
  by_restart = r.arbitration.by_restart;
  p.why = r.arbitration.rule + ": " + p.why;
  return true;
}

}  // namespace cluster::slurm
