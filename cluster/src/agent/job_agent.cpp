// SPDX-License-Identifier: BSD-3-Clause
// The job's side at a remap point (job_agent.hpp): asks Slurm at most every interval,
// takes decide()'s or the arbitration's plan and turns it into a Step, acquiring or giving
// back nodes with the Client's commands. JobAgent's methods over its state (AgentState,
// agent_state.hpp): the steps of one decision are free functions over that state here;
// the plans among many jobs (ManyJobs, many_jobs.cpp) and the growth by expander jobs
// (GrowByJoin, grow_by_join.cpp) are operations of their own over it.
#include "malleable/cluster/job_agent.hpp"

#include "agent/agent_state.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace cluster::slurm {

namespace {
using detail::AgentState;
using detail::expansion;
using detail::stay;

// A reason without its numbers: printed again only when this changes.
std::string without_digits(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }), s.end());
  return s;
}

void start_once(AgentState& a) {
  a.configured = true;
  try {
    if (a.opt.configure) a.opt.configure(a.opt);
    if (!a.opt.shared_dir.empty() && !a.asks_arbiter())
      a.shared = std::make_unique<SharedDir>(a.opt.shared_dir, a.opt.shared_group ? SharedAccess::Group : SharedAccess::PerUser);
  } catch (const Error& e) {
    a.note(std::string("the Slurm policy could not start: ") + e.what() + "; it stays alone (no shared directory)");
    a.opt.shared_dir.clear();
  }
  a.pace.interval = a.opt.interval_s;
}

// The shared view can be up to an interval old: the job's own nodes are read afresh
// before it gives any back or grows onto held ones (an acquisition merged since, or a
// release, must not be missed). False: Slurm could not be asked (noted).
bool refresh_own_nodes(AgentState& a, Snapshot& s, Plan& p) {
  try {
    s.mine.node_list = a.client->held();
  } catch (const Error& e) {
    a.note(std::string("asking Slurm failed: ") + e.what());
    a.settle_ledger(true);
    return false;
  }
  detail::add_expander_nodes(a.exp, s.mine);
  const auto& h = s.mine.node_list;
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& n) { return std::find(h.begin(), h.end(), n) == h.end(); }),
                p.nodes.end());
  if (p.nodes.empty()) {
    a.settle_ledger(true);
    p.kind = Plan::Kind::None;
    p.why += " (but Slurm no longer lists those nodes for the job)";
  }
  return true;
}

// The plan of a job deciding alone (no arbiter, no shared ledger): Slurm's snapshot, the
// nodes of its expander jobs counted as its own, and slurm::decide. False: Slurm gave no
// answer (noted).
bool plan_alone(AgentState& a, const Moment& m, int per_node, Snapshot& s, Plan& p) {
  try {
    s = a.client->snapshot();
  } catch (const Error& e) {
    a.note(std::string("asking Slurm failed: ") + e.what());
    return false;
  }
  detail::add_expander_nodes(a.exp, s.mine);
  a.most_nodes = std::max<int>(a.most_nodes, static_cast<int>(s.mine.node_list.size()));
  const int held = static_cast<int>(s.mine.node_list.size());
  const Options o = a.bounded(held, held);
  p = slurm::decide(s, m.rank_hosts, o, a.growth_of(m, per_node));
  if (a.grows_by_join() && p.kind == Plan::Kind::Acquire && p.nodes.empty()) {  // an expander asks for a node by name
    const auto free = growable_idle(s, s.idle);
    p.nodes.assign(free.begin(), free.begin() + std::min<std::ptrdiff_t>(p.acquire, static_cast<std::ptrdiff_t>(free.size())));
  }
  return true;
}

// ---- where the job's processes are (the rules: placement.cpp) -----------------------

// Once, at the first decision: where the launcher runs daemons. Open MPI starts one on
// every node of the allocation it was given (malleable-run's launch hosts, else the job's
// nodes now: nothing has grown yet), and mpiexec itself runs on rank 0's node.
void know_daemons(AgentState::Placement& place, const Options& o, const std::vector<std::string>& ranks,
                  const Snapshot& s) {
  if (place.known) return;
  place.known = true;
  place.daemons = !o.launch.on.empty() ? o.launch.on : s.mine.node_list;
  place.node = !ranks.empty() ? ranks.front() : place.daemons.empty() ? std::string() : place.daemons.front();
}

// A job no launcher relaunches (no MALLEABLE_RUN_HOSTS) grows only where its launcher can
// spawn: the plan without the other nodes; false when nothing is left (said once).
bool within_launcher(AgentState& a, Plan& p) {
  if (a.opt.launch.late_daemons || !a.opt.launch.on.empty()) return true;  // a spawn reaches them, or a relaunch does
  const auto& place = a.place;
  const bool remote =
      std::any_of(place.daemons.begin(), place.daemons.end(), [&](const std::string& h) { return h != place.node; });
  if (!remote) {
    // The launcher alone: one new node by spawn (the rest stay for later, or never).
    if (p.kind == Plan::Kind::Acquire && p.acquire > 1) {
      p.acquire = 1;
      if (p.nodes.size() > 1) p.nodes.resize(1);
      p.why += " (one node: the launcher adds one daemon by spawn)";
    } else if (p.kind == Plan::Kind::UseHeld) {
      auto far = beyond_launcher(place.daemons, place.node, p.nodes);
      if (!far.empty()) far.erase(far.begin());  // the first new node is reached
      p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                                   [&](const std::string& h) { return std::find(far.begin(), far.end(), h) != far.end(); }),
                    p.nodes.end());
    }
    return true;
  }
  if (p.kind != Plan::Kind::UseHeld && p.kind != Plan::Kind::Acquire) return true;
  // Named nodes (held, or those the arbitration chose) keep the ones with a daemon of the
  // launcher (a node the job gave back keeps its idle daemon); nodes Slurm would choose
  // (a count alone) can have none.
  const auto far = beyond_launcher(place.daemons, place.node, p.nodes);
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& h) { return std::find(far.begin(), far.end(), h) != far.end(); }),
                p.nodes.end());
  if (!p.nodes.empty()) {
    if (p.kind == Plan::Kind::Acquire) p.acquire = static_cast<int>(p.nodes.size());
    return true;
  }
  p = Plan{};
  a.settle_ledger(false);
  a.no_acquire_until = a.now() + a.opt.refused.backoff_max_s;
  if (!a.place.said)
    a.note("not growing beyond the nodes the launcher runs daemons on (" + compress_hostlist(place.daemons) +
           "): Open MPI 4.1 cannot start a daemon on a node granted after launch once it runs daemons on other nodes, "
           "and no launcher relaunches this job (run it under malleable-run --hosts slurm to grow by restart)");
  a.place.said = true;
  return false;
}

// Called at each decision with the ranks' nodes now: the nodes placed by the launcher or
// by the last completed expansion are checked once; any the job holds but runs nothing on
// is barred from growth for the rest of the run, said once.
bool guard_placement(AgentState& a, const std::vector<std::string>& ranks, const Snapshot& s, Plan& p) {
  auto& place = a.place;
  if (!place.placed.empty() && !ranks.empty()) {
    for (const auto& h : unplaced_nodes(s.mine.node_list, ranks, place.placed)) {
      if (std::find(place.barred.begin(), place.barred.end(), h) != place.barred.end()) continue;
      place.barred.push_back(h);
      a.note("node " + h + " runs none of this job's processes although the launch or expansion placed them there "
             "(their nodes: " + compress_hostlist(std::vector<std::string>(ranks.begin(), ranks.end())) +
             "): not growing onto " + h + " again (check how mpiexec places processes in this allocation)");
    }
    place.placed.clear();
  }
  return without_nodes(p, place.barred);
}

// ---- the steps ------------------------------------------------------------------------

// An acquisition: the nodes Slurm granted, or nothing (refused: noted, the back-off set).
bool acquire(AgentState& a, const Plan& p, std::vector<std::string>& nodes) {
  try {
    nodes = !p.nodes.empty() ? a.client->acquire(p.nodes) : a.client->acquire(p.acquire);  // named: the arbiter, or idle nodes left out (slurm.hpp, decide)
    a.acquired = nodes;
    a.backoff = 0;
    a.note("Slurm granted " + compress_hostlist(nodes) + " (" + p.why + ")");
    a.resized_once();
    return true;
  } catch (const Error& e) {
    a.back_off();
    a.settle_ledger(false);
    a.note(std::string("growing refused: ") + e.what() + "; next request in " +
           std::to_string(static_cast<int>(a.backoff)) + " s at the earliest");
    return false;
  }
}

// Growth onto held nodes or nodes Slurm grants (or, without job expansion, by restart).
Step grow(AgentState& a, const Moment& m, const Plan& p0, int per_node, double t, bool by_restart) {
  Plan p = p0;
  if (a.grows_by_join()) return detail::GrowByJoin{a}.grow(m, p, per_node, t);
  if (!within_launcher(a, p)) return stay(a.log.back());
  std::vector<std::string> nodes = p.nodes;
  if (p.kind == Plan::Kind::Acquire) {
    if (t < a.no_acquire_until) {
      const std::string why = "not asking Slurm for nodes again before " + std::to_string(static_cast<int>(a.backoff)) +
                              " s have passed since it refused (" + p.why + ")";
      const std::string shape = without_digits(why);
      if (shape != a.last_none) a.note("staying: " + why);
      a.last_none = shape;
      return stay("slurm: " + why);
    }
    if (by_restart) {
      // No job expansion in this Slurm: a new allocation holding these nodes and the
      // job's, by restart (malleable-run --hosts slurm resubmits the job).
      a.note("growing by restart into a new allocation with " + compress_hostlist(nodes) +
             " (Slurm does not permit job expansion; " + p.why + ")");
      Step g = expansion(m, p, nodes, per_node, "slurm: " + a.log.back());
      g.new_allocation = true;
      return g;
    }
    if (!acquire(a, p, nodes)) return stay(a.log.back());
  } else {
    a.note("growing onto held node(s) " + compress_hostlist(nodes) + " (" + p.why + ")");
  }
  const auto far =
      a.opt.launch.late_daemons ? std::vector<std::string>{} : beyond_launcher(a.place.daemons, a.place.node, nodes);
  if (!far.empty()) {
    // A spawn there would end the job (Open MPI 4.1): the same growth by restart, the
    // launcher relaunching the job on its allocation, these nodes included.
    a.note("growing by restart onto " + compress_hostlist(nodes) + ": the launcher runs daemons on " +
           compress_hostlist(a.place.daemons) + " and cannot start one on " + compress_hostlist(far) +
           " after launch (Open MPI 4.1)");
    Step g = expansion(m, p, nodes, per_node, "slurm: " + a.log.back());
    g.by_restart = true;
    return g;
  }
  return expansion(m, p, nodes, per_node, "slurm: " + a.log.back());
}

// No busy node given back: the idle ones of the job's own go back at once, and held nodes
// still running nothing are used at once (the arbiter's next answer; nothing taken back:
// only nodes the job keeps).
Step give_back_idle(AgentState& a, const Moment& m, const Plan& p, const std::vector<std::string>& keep, bool own_idle,
                    int per_node, double t) {
  if (own_idle) {
    try {
      a.client->release(keep);
      a.note("gave back idle node(s) " + compress_hostlist(p.nodes) + " (" + p.why + ")");
      a.resized_once();
    } catch (const Error& e) {
      a.note(std::string("could not give nodes back: ") + e.what());
      a.settle_ledger(true);
      a.refuses_release(e.what());
      return stay(a.log.back());
    }
  }
  const std::vector<std::string>& ranks = m.rank_hosts;
  Plan use;
  use.kind = Plan::Kind::UseHeld;
  for (const auto& h : keep)
    if (std::find(ranks.begin(), ranks.end(), h) == ranks.end()) use.nodes.push_back(h);
  if (use.nodes.empty()) return stay(a.log.empty() ? "" : a.log.back());
  use.why = "use-held: " + std::to_string(use.nodes.size()) + " node(s) kept run nothing";
  return grow(a, m, use, per_node, t, false);
}

// Nodes that run none of the job's processes go back at once; the others after the
// shrink has ended every process there (completed()). A node of an expander job goes back
// by ending that job (an idle one cancelled, a busy one's launch leaving in the shrink): the
// job's own allocation changes only for its own nodes (scontrol update NodeList).
Step give_back(AgentState& a, const Moment& m, const Snapshot& s, const Plan& p, int per_node, double t) {
  const std::vector<std::string>& ranks = m.rank_hosts;
  const std::vector<std::string> exp = detail::expander_nodes(a.exp);
  const auto in = [](const std::vector<std::string>& v, const std::string& h) { return std::find(v.begin(), v.end(), h) != v.end(); };
  std::vector<std::string> keep, busy, idle_exp;
  for (const auto& h : s.mine.node_list)
    if (!in(p.nodes, h) && !in(exp, h)) keep.push_back(h);
  int leaving = 0;
  bool own_given = false, own_idle = false;
  for (const auto& h : p.nodes) {
    const int n = static_cast<int>(std::count(ranks.begin(), ranks.end(), h));
    if (n > 0) busy.push_back(h);
    else if (in(exp, h)) idle_exp.push_back(h);
    else own_idle = true;
    own_given = own_given || !in(exp, h);
    leaving += n;
  }
  if (!idle_exp.empty()) {
    std::vector<std::string> ids;
    for (const Expander& e : a.exp.book)
      if (in(idle_exp, e.node)) ids.push_back(e.id);
    detail::GrowByJoin{a}.cancel(ids, "its node " + compress_hostlist(idle_exp) + " given back (" + p.why + ")");
  }
  if (busy.empty()) return give_back_idle(a, m, p, keep, own_idle, per_node, t);
  Step d;
  d.kind = Step::Kind::Shrink;
  d.reason = "slurm: " + p.why;
  d.procs = m.world_size - leaving;
  for (const auto& h : busy) d.hosts.push_back(Step::Host{h, 0});
  if (own_given) a.pending_keep = keep;  // expander nodes alone: the job's allocation stays as it is
  a.note("shrinking to give back " + compress_hostlist(p.nodes) + " (" + p.why + ")");
  return d;
}

void return_failed_grant(AgentState& a) {
  if (a.failed_grant.empty()) return;
  const auto nodes = std::exchange(a.failed_grant, {});
  try {
    auto keep = a.client->held();
    keep.erase(std::remove_if(keep.begin(), keep.end(),
                              [&](const std::string& h) {
                                return std::find(nodes.begin(), nodes.end(), h) != nodes.end();
                              }),
               keep.end());
    a.client->release(keep);
    a.note("the expansion failed; returned " + compress_hostlist(nodes) + " to Slurm");
  } catch (const Error& e) {
    a.note(std::string("the expansion failed and the nodes could not be returned: ") + e.what());
  }
}

// After a shrink that gave own nodes back: the nodes go back to Slurm once the processes
// left (`ok`), else the job keeps them.
void release_after_shrink(AgentState& a, bool ok) {
  if (ok) {
    try {
      a.client->release(a.pending_keep);
      a.note("returned the nodes to Slurm; the job now holds " + compress_hostlist(a.pending_keep));
      a.resized_once();
    } catch (const Error& e) {
      a.note(std::string("the processes left, but Slurm kept the nodes: ") + e.what());
      a.settle_ledger(true);
      a.refuses_release(e.what());
    }
  } else {
    a.note("the shrink was refused; the job keeps its nodes");
    a.settle_ledger(true);
  }
  a.pending_keep.clear();
}
}  // namespace

// ---- the agent -----------------------------------------------------------------------

JobAgent::JobAgent(std::unique_ptr<Client> client, Options o)
    : s_(std::make_unique<detail::AgentState>(std::move(client), std::move(o))) {}

// The job ends: expanders whose launches have not joined are cancelled (joined ones end
// with the job's processes; each one's launcher also watches the job, --while-job).
JobAgent::~JobAgent() {
  try {
    detail::GrowByJoin{*s_}.cancel_unjoined("the job ends");
  } catch (...) {  // nothing escapes a destructor: the expanders end with their time limit
  }
}

const std::vector<std::string>& JobAgent::log() const { return s_->log; }

const Options& JobAgent::options() const { return s_->opt; }

Step JobAgent::decide(const Moment& m) {
  AgentState& a = *s_;
  return_failed_grant(a);
  const double t = a.now();
  if (a.grows_by_join()) {  // at every remap point: a launch of an expander that waits joins at once
    if (!a.configured) start_once(a);
    if (Step j = detail::GrowByJoin{a}.follow(m, t); j.kind != Step::Kind::Stay) return j;
  }
  if (t - a.pace.last_ask < a.pace.interval) return Step{};
  if (!a.configured) start_once(a);
  a.pace.last_ask = t;
  if (a.shared || a.asks_arbiter()) a.pace.interval = jittered_interval(a.opt.interval_s, a.opt.jitter, a.client->job_id(), ++a.pace.round);
  const std::vector<std::string>& ranks = m.rank_hosts;
  const int per_node = a.opt.procs_per_node > 0
                           ? a.opt.procs_per_node
                           : static_cast<int>(std::count(ranks.begin(), ranks.end(), ranks.empty() ? "" : ranks.front()));
  Snapshot s;
  Plan p;
  bool by_restart = false;
  if (a.shared || a.asks_arbiter()) {
    detail::ManyJobs many{a};
    const bool planned = a.asks_arbiter() ? many.plan_arbiter(m, per_node, s, p, by_restart) : many.plan_shared(m, per_node, s, p, by_restart);
    if (!planned) return stay(a.log.empty() ? "" : a.log.back());
    if (p.kind == Plan::Kind::GiveBack || p.kind == Plan::Kind::UseHeld) {
      if (!refresh_own_nodes(a, s, p)) return stay(a.log.back());
    }
  } else if (!plan_alone(a, m, per_node, s, p)) {
    return stay(a.log.back());
  }
  know_daemons(a.place, a.opt, ranks, s);
  // A node the launch or the last expansion placed processes on but which runs none: no
  // growth onto it again (placement.cpp).
  if (guard_placement(a, ranks, s, p) && p.kind == Plan::Kind::None) a.settle_ledger(false);
  switch (p.kind) {
    case Plan::Kind::None: {
      // Printed when the reason changes, not when only its numbers do.
      const std::string shape = without_digits(p.why);
      if (shape != a.last_none) a.note("staying: " + p.why);
      a.last_none = shape;
      return stay("slurm: " + p.why);
    }
    case Plan::Kind::GiveBack:
      return give_back(a, m, s, p, per_node, t);
    case Plan::Kind::UseHeld:
    case Plan::Kind::Acquire:
      return grow(a, m, p, per_node, t, by_restart);
  }
  return Step{};
}

void JobAgent::completed(const Step& d, bool ok) {
  AgentState& a = *s_;
  const bool grow = d.kind == Step::Kind::Grow;
  if (!a.exp.book.empty()) detail::GrowByJoin{a}.completed(d, ok);
  if (grow && (d.new_allocation || d.by_restart) && !ok) {
    a.settle_ledger(false);
    a.no_acquire_until = a.now() + 1e12;
    a.note("growing by restart is not possible here (no checkpoint directory): no more requests for nodes");
  }
  if (d.kind == Step::Kind::Shrink && !a.pending_keep.empty()) release_after_shrink(a, ok);
  if (grow && ok)
    for (const auto& h : d.hosts)
      if (h.count > 0) {
        a.place.placed.push_back(h.name);
        auto& daemons = a.place.daemons;
        if (std::find(daemons.begin(), daemons.end(), h.name) == daemons.end()) daemons.push_back(h.name);
      }
  if (grow && !a.acquired.empty()) {
    // The spawn failed: the nodes Slurm gave for it go back at the next remap point
    // (decide), unless the job first resizes by restart onto them (the
    // driver checkpoints, exits, and malleable-run relaunches on the allocation).
    if (!ok) a.failed_grant = a.acquired;
    a.acquired.clear();
  }
}

}  // namespace cluster::slurm
