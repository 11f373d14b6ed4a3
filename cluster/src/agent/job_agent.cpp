// SPDX-License-Identifier: BSD-3-Clause
// The job's side at a remap point (job_agent.hpp): asks Slurm at most every interval,
// takes decide()'s or the arbitration's plan and turns it into a Step, acquiring or giving
// back nodes with the Client's commands.
#include "malleable/cluster/job_agent.hpp"

#include "arbiter/client.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace cluster::slurm {

// ---- the agent -----------------------------------------------------------------------

JobAgent::JobAgent(std::unique_ptr<Client> client, Options o) : client_(std::move(client)), opt_(o) {
  interval_now_ = opt_.interval_s;
  place_.placed = opt_.launch.on;
}

// The job ends: expanders whose launches have not joined are cancelled (joined ones end
// with the job's processes; each one's launcher also watches the job, --while-job).
JobAgent::~JobAgent() {
  try {
    std::vector<std::string> left;
    for (const Expander& e : exp_.book)
      if (e.state == Expander::State::Pending || e.state == Expander::State::Running) left.push_back(e.id);
    cancel_expanders(left, "the job ends");
  } catch (...) {  // nothing escapes a destructor: the expanders end with their time limit
  }
}

double JobAgent::wall() const {
  if (opt_.wall_clock) return opt_.wall_clock();
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Slurm 22.05 without an accounting database answers every update of a job that merged
// an expansion with "the DB index is being set, try again" for as long as it runs, and
// does not perform a NodeList update: such a job gives no node back any more (said once).
void JobAgent::refuses_release(const std::string& why) {
  if (no_release_ || why.find("DB index is being set") == std::string::npos) return;
  no_release_ = true;
  note("Slurm refuses to shrink this job's allocation after its expansion (no accounting database): it gives no "
       "node back from now on");
}

// After a change of the job's size that Slurm accepted: without accounting storage it
// will refuse the next one, so the job gives nothing back from now on (said once) rather
// than end processes for nodes Slurm keeps.
void JobAgent::resized_once() {
  if (!opt_.one_update || no_release_) return;
  no_release_ = true;
  note("Slurm keeps no accounting (AccountingStorageType=none) and refuses a second change of a job's size: this "
       "job gives no node back from now on");
}

void JobAgent::settle_ledger(bool promises_too) {
  if (asks_arbiter()) {
    arbiter::Request q;
    q.kind = arbiter::Request::Kind::Settle;
    q.job.id = client_->job_id();
    q.promises_too = promises_too;
    try {
      const arbiter::Reply r =
          arbiter::ask(arbiter::ClientOptions{opt_.arbiter.socket, opt_.arbiter.munge_socket, opt_.arbiter.timeout_s, opt_.arbiter.user}, q);
      if (!r.ok) note("the arbiter refused to settle: " + r.error);
    } catch (const Error& e) {
      // Its entries expire on their own (claim_ttl_s): nothing is held for good.
      note(std::string("the arbiter did not take the settlement: ") + e.what());
    }
    return;
  }
  if (!shared_) return;
  try {
    shared_->update([&](const Ledger& l) { return settle(l, client_->job_id(), promises_too); });
  } catch (const Error& e) {
    note(std::string("the shared ledger failed: ") + e.what());
  }
}

void JobAgent::note(std::string line) {
  if (opt_.verbose) {
    std::printf("[slurm] %s\n", escaped(line).c_str());  // what Slurm or the arbiter said: one line, no control bytes
    std::fflush(stdout);
  }
  log_.push_back(std::move(line));
}

double JobAgent::now() const {
  if (opt_.clock) return opt_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
// A reason without its numbers: printed again only when this changes.
std::string without_digits(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }), s.end());
  return s;
}

// The growth onto `nodes` (held or just granted), per_node processes on each.
Step expansion(const Moment& m, const Plan& p, const std::vector<std::string>& nodes, int per_node, std::string reason) {
  Step g;
  g.kind = Step::Kind::Grow;
  g.procs = m.world_size + per_node * static_cast<int>(nodes.size());
  for (const auto& h : nodes) g.hosts.push_back(Step::Host{h, per_node});
  g.reason = std::move(reason);
  g.predicted_iteration = p.predicted_iteration;
  g.predicted_resize = p.predicted_resize;
  g.measured_iteration = p.measured_iteration;
  g.prediction = p.why;
  return g;
}

Step stay(std::string reason) {
  Step s;
  s.reason = std::move(reason);
  return s;
}
}  // namespace

void JobAgent::start_once() {
  configured_ = true;
  try {
    if (opt_.configure) opt_.configure(opt_);
    if (!opt_.shared_dir.empty() && !asks_arbiter())
      shared_ = std::make_unique<SharedDir>(opt_.shared_dir, opt_.shared_group ? SharedAccess::Group : SharedAccess::PerUser);
  } catch (const Error& e) {
    note(std::string("the Slurm policy could not start: ") + e.what() + "; it stays alone (no shared directory)");
    opt_.shared_dir.clear();
  }
  interval_now_ = opt_.interval_s;
}

// The shared view can be up to an interval old: the job's own nodes are read afresh
// before it gives any back or grows onto held ones (an acquisition merged since, or a
// release, must not be missed). False: Slurm could not be asked (noted).
bool JobAgent::refresh_own_nodes(Snapshot& s, Plan& p) {
  try {
    s.mine.node_list = client_->held();
  } catch (const Error& e) {
    note(std::string("asking Slurm failed: ") + e.what());
    settle_ledger(true);
    return false;
  }
  add_expander_nodes(s.mine);
  const auto& h = s.mine.node_list;
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& n) { return std::find(h.begin(), h.end(), n) == h.end(); }),
                p.nodes.end());
  if (p.nodes.empty()) {
    settle_ledger(true);
    p.kind = Plan::Kind::None;
    p.why += " (but Slurm no longer lists those nodes for the job)";
  }
  return true;
}

Options JobAgent::bounded(int floor_nodes, int held) const {
  Options o = opt_;
  if (o.max_nodes <= 0) o.max_nodes = most_nodes_;
  if (no_release_ || !o.levers.give_back) o.min_nodes = std::max(o.min_nodes, floor_nodes);
  if (!o.levers.grow) o.max_nodes = std::max(1, std::min(o.max_nodes, held));
  return o;
}

// The moment's growth model at this job's processes per node; without one, growth pays
// (nothing predicts otherwise: the job grows when nodes are idle).
GrowthModel JobAgent::growth_of(const Moment& m, int per_node) const {
  if (!m.growth)
    return [](int) {
      Growth g;
      g.pays = true;
      g.why = "no prediction";
      return g;
    };
  return [&m, per_node](int n) { return m.growth(n, per_node); };
}

// The plan of a job deciding alone (no arbiter, no shared ledger): Slurm's snapshot, the
// nodes of its expander jobs counted as its own, and slurm::decide. False: Slurm gave no
// answer (noted).
bool JobAgent::plan_alone(const Moment& m, int per_node, Snapshot& s, Plan& p) {
  try {
    s = client_->snapshot();
  } catch (const Error& e) {
    note(std::string("asking Slurm failed: ") + e.what());
    return false;
  }
  add_expander_nodes(s.mine);
  most_nodes_ = std::max<int>(most_nodes_, static_cast<int>(s.mine.node_list.size()));
  const int held = static_cast<int>(s.mine.node_list.size());
  const Options o = bounded(held, held);
  p = slurm::decide(s, m.rank_hosts, o, growth_of(m, per_node));
  if (grows_by_join() && p.kind == Plan::Kind::Acquire && p.nodes.empty()) {  // an expander asks for a node by name
    const auto free = growable_idle(s, s.idle);
    p.nodes.assign(free.begin(), free.begin() + std::min<std::ptrdiff_t>(p.acquire, static_cast<std::ptrdiff_t>(free.size())));
  }
  return true;
}

Step JobAgent::decide(const Moment& m) {
  return_failed_grant();
  const double t = now();
  if (grows_by_join()) {  // at every remap point: a launch of an expander that waits joins at once
    if (!configured_) start_once();
    if (Step j = follow_expanders(m, t); j.kind != Step::Kind::Stay) return j;
  }
  if (t - last_ask_ < interval_now_) return Step{};
  if (!configured_) start_once();
  last_ask_ = t;
  if (shared_ || asks_arbiter()) interval_now_ = jittered_interval(opt_.interval_s, opt_.jitter, client_->job_id(), ++round_);
  const std::vector<std::string>& ranks = m.rank_hosts;
  const int per_node = opt_.procs_per_node > 0
                           ? opt_.procs_per_node
                           : static_cast<int>(std::count(ranks.begin(), ranks.end(), ranks.empty() ? "" : ranks.front()));
  Snapshot s;
  Plan p;
  bool by_restart = false;
  if (shared_ || asks_arbiter()) {
    const bool planned = asks_arbiter() ? plan_arbiter(m, per_node, s, p, by_restart) : plan_shared(m, per_node, s, p, by_restart);
    if (!planned) return stay(log_.empty() ? "" : log_.back());
    if (p.kind == Plan::Kind::GiveBack || p.kind == Plan::Kind::UseHeld) {
      if (!refresh_own_nodes(s, p)) return stay(log_.back());
    }
  } else if (!plan_alone(m, per_node, s, p)) {
    return stay(log_.back());
  }
  know_daemons(ranks, s);
  // A node the launch or the last expansion placed processes on but which runs none: no
  // growth onto it again (placement.cpp).
  if (guard_placement(ranks, s, p) && p.kind == Plan::Kind::None) settle_ledger(false);
  switch (p.kind) {
    case Plan::Kind::None: {
      // Printed when the reason changes, not when only its numbers do.
      const std::string shape = without_digits(p.why);
      if (shape != last_none_) note("staying: " + p.why);
      last_none_ = shape;
      return stay("slurm: " + p.why);
    }
    case Plan::Kind::GiveBack:
      return give_back(m, s, p, per_node, t);
    case Plan::Kind::UseHeld:
    case Plan::Kind::Acquire:
      return grow(m, p, per_node, t, by_restart);
  }
  return Step{};
}

// Nodes that run none of the job's processes go back at once; the others after the
// shrink has ended every process there (completed()). A node of an expander job goes back
// by ending that job (an idle one cancelled, a busy one's launch leaving in the shrink): the
// job's own allocation changes only for its own nodes (scontrol update NodeList).
Step JobAgent::give_back(const Moment& m, const Snapshot& s, const Plan& p, int per_node, double t) {
  const std::vector<std::string>& ranks = m.rank_hosts;
  const std::vector<std::string> exp = expander_nodes();
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
    for (const Expander& e : exp_.book)
      if (in(idle_exp, e.node)) ids.push_back(e.id);
    cancel_expanders(ids, "its node " + compress_hostlist(idle_exp) + " given back (" + p.why + ")");
  }
  if (busy.empty()) {
    if (own_idle) {
      try {
        client_->release(keep);
        note("gave back idle node(s) " + compress_hostlist(p.nodes) + " (" + p.why + ")");
        resized_once();
      } catch (const Error& e) {
        note(std::string("could not give nodes back: ") + e.what());
        settle_ledger(true);
        refuses_release(e.what());
        return stay(log_.back());
      }
    }
    // Held nodes still running nothing are used at once (the arbiter's next answer;
    // nothing taken back: only nodes the job keeps).
    Plan use;
    use.kind = Plan::Kind::UseHeld;
    for (const auto& h : keep)
      if (std::find(ranks.begin(), ranks.end(), h) == ranks.end()) use.nodes.push_back(h);
    if (use.nodes.empty()) return stay(log_.empty() ? "" : log_.back());
    use.why = "use-held: " + std::to_string(use.nodes.size()) + " node(s) kept run nothing";
    return grow(m, use, per_node, t, false);
  }
  Step d;
  d.kind = Step::Kind::Shrink;
  d.reason = "slurm: " + p.why;
  d.procs = m.world_size - leaving;
  for (const auto& h : busy) d.hosts.push_back(Step::Host{h, 0});
  if (own_given) pending_keep_ = keep;  // expander nodes alone: the job's allocation stays as it is
  note("shrinking to give back " + compress_hostlist(p.nodes) + " (" + p.why + ")");
  return d;
}

// Growth onto held nodes or nodes Slurm grants (or, without job expansion, by restart).
Step JobAgent::grow(const Moment& m, const Plan& p0, int per_node, double t, bool by_restart) {
  Plan p = p0;
  if (grows_by_join()) return grow_by_join(m, p, per_node, t);
  if (!within_launcher(p)) return stay(log_.back());
  std::vector<std::string> nodes = p.nodes;
  if (p.kind == Plan::Kind::Acquire) {
    if (t < no_acquire_until_) {
      const std::string why = "not asking Slurm for nodes again before " + std::to_string(static_cast<int>(backoff_)) +
                              " s have passed since it refused (" + p.why + ")";
      const std::string shape = without_digits(why);
      if (shape != last_none_) note("staying: " + why);
      last_none_ = shape;
      return stay("slurm: " + why);
    }
    if (by_restart) {
      // No job expansion in this Slurm: a new allocation holding these nodes and the
      // job's, by restart (malleable-run --hosts slurm resubmits the job).
      note("growing by restart into a new allocation with " + compress_hostlist(nodes) +
           " (Slurm does not permit job expansion; " + p.why + ")");
      Step g = expansion(m, p, nodes, per_node, "slurm: " + log_.back());
      g.new_allocation = true;
      return g;
    }
    try {
      nodes = !p.nodes.empty() ? client_->acquire(p.nodes) : client_->acquire(p.acquire);  // named: the arbiter, or idle nodes left out (slurm.hpp, decide)
      acquired_ = nodes;
      backoff_ = 0;
      note("Slurm granted " + compress_hostlist(nodes) + " (" + p.why + ")");
      resized_once();
    } catch (const Error& e) {
      backoff_ = backoff_ <= 0 ? opt_.refused.backoff_s : std::min(2 * backoff_, opt_.refused.backoff_max_s);
      no_acquire_until_ = now() + backoff_;
      settle_ledger(false);
      note(std::string("growing refused: ") + e.what() + "; next request in " +
           std::to_string(static_cast<int>(backoff_)) + " s at the earliest");
      return stay(log_.back());
    }
  } else {
    note("growing onto held node(s) " + compress_hostlist(nodes) + " (" + p.why + ")");
  }
  const auto far =
      opt_.launch.late_daemons ? std::vector<std::string>{} : beyond_launcher(place_.daemons, place_.node, nodes);
  if (!far.empty()) {
    // A spawn there would end the job (Open MPI 4.1): the same growth by restart, the
    // launcher relaunching the job on its allocation, these nodes included.
    note("growing by restart onto " + compress_hostlist(nodes) + ": the launcher runs daemons on " +
         compress_hostlist(place_.daemons) + " and cannot start one on " + compress_hostlist(far) +
         " after launch (Open MPI 4.1)");
    Step g = expansion(m, p, nodes, per_node, "slurm: " + log_.back());
    g.by_restart = true;
    return g;
  }
  return expansion(m, p, nodes, per_node, "slurm: " + log_.back());
}

// Growth while the job grows by joining: nodes of its expanders whose launches have not
// joined yet wait for them (follow_expanders); held nodes that run nothing are joined by
// launches the session orders from its launcher; nodes to acquire get expander jobs, one
// growth at a time.
Step JobAgent::grow_by_join(const Moment& m, Plan p, int per_node, double t) {
  std::vector<std::string> awaited;
  for (const Expander& e : exp_.book)
    if (e.state == Expander::State::Pending || e.state == Expander::State::Running) awaited.push_back(e.node);
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& n) { return std::find(awaited.begin(), awaited.end(), n) != awaited.end(); }),
                p.nodes.end());
  if (p.kind == Plan::Kind::UseHeld) {
    if (p.nodes.empty()) return stay("slurm: waiting for the launches of its expander jobs (" + compress_hostlist(awaited) + ")");
    note("growing onto held node(s) " + compress_hostlist(p.nodes) + " by launches its launcher starts (" + p.why + ")");
    return expansion(m, p, p.nodes, per_node, "slurm: " + log_.back());
  }
  if (expanders_pending()) return stay("slurm: waiting for its expander jobs (" + compress_hostlist(awaited) + ")");
  if (t < no_acquire_until_)
    return stay("slurm: not asking Slurm for nodes again before " + std::to_string(static_cast<int>(backoff_)) +
                " s have passed since it refused (" + p.why + ")");
  return submit_expanders(p, per_node);
}

void JobAgent::completed(const Step& d, bool ok) {
  const bool grow = d.kind == Step::Kind::Grow;
  if (!exp_.book.empty()) expanders_completed(d, ok);
  if (grow && (d.new_allocation || d.by_restart) && !ok) {
    settle_ledger(false);
    no_acquire_until_ = now() + 1e12;
    note("growing by restart is not possible here (no checkpoint directory): no more requests for nodes");
  }
  if (d.kind == Step::Kind::Shrink && !pending_keep_.empty()) {
    if (ok) {
      try {
        client_->release(pending_keep_);
        note("returned the nodes to Slurm; the job now holds " + compress_hostlist(pending_keep_));
        resized_once();
      } catch (const Error& e) {
        note(std::string("the processes left, but Slurm kept the nodes: ") + e.what());
        settle_ledger(true);
        refuses_release(e.what());
      }
    } else {
      note("the shrink was refused; the job keeps its nodes");
      settle_ledger(true);
    }
    pending_keep_.clear();
  }
  if (grow && ok)
    for (const auto& h : d.hosts)
      if (h.count > 0) {
        place_.placed.push_back(h.name);
        auto& daemons = place_.daemons;
        if (std::find(daemons.begin(), daemons.end(), h.name) == daemons.end()) daemons.push_back(h.name);
      }
  if (grow && !acquired_.empty()) {
    // The spawn failed: the nodes Slurm gave for it go back at the next remap point
    // (decide), unless the job first resizes by restart onto them (the
    // driver checkpoints, exits, and malleable-run relaunches on the allocation).
    if (!ok) failed_grant_ = acquired_;
    acquired_.clear();
  }
}

void JobAgent::return_failed_grant() {
  if (failed_grant_.empty()) return;
  const auto nodes = std::exchange(failed_grant_, {});
  try {
    auto keep = client_->held();
    keep.erase(std::remove_if(keep.begin(), keep.end(),
                              [&](const std::string& h) {
                                return std::find(nodes.begin(), nodes.end(), h) != nodes.end();
                              }),
               keep.end());
    client_->release(keep);
    note("the expansion failed; returned " + compress_hostlist(nodes) + " to Slurm");
  } catch (const Error& e) {
    note(std::string("the expansion failed and the nodes could not be returned: ") + e.what());
  }
}

// ---- where the job's processes are (the rules: placement.cpp) -----------------------

// Once, at the first decision: where the launcher runs daemons. Open MPI starts one on
// every node of the allocation it was given (malleable-run's launch hosts, else the job's
// nodes now: nothing has grown yet), and mpiexec itself runs on rank 0's node.
void JobAgent::know_daemons(const std::vector<std::string>& ranks, const Snapshot& s) {
  if (place_.known) return;
  place_.known = true;
  place_.daemons = !opt_.launch.on.empty() ? opt_.launch.on : s.mine.node_list;
  place_.node = !ranks.empty() ? ranks.front() : place_.daemons.empty() ? std::string() : place_.daemons.front();
}

bool JobAgent::within_launcher(Plan& p) {
  if (opt_.launch.late_daemons || !opt_.launch.on.empty()) return true;  // a spawn reaches them, or a relaunch does
  const bool remote =
      std::any_of(place_.daemons.begin(), place_.daemons.end(), [&](const std::string& h) { return h != place_.node; });
  if (!remote) {
    // The launcher alone: one new node by spawn (the rest stay for later, or never).
    if (p.kind == Plan::Kind::Acquire && p.acquire > 1) {
      p.acquire = 1;
      if (p.nodes.size() > 1) p.nodes.resize(1);
      p.why += " (one node: the launcher adds one daemon by spawn)";
    } else if (p.kind == Plan::Kind::UseHeld) {
      auto far = beyond_launcher(place_.daemons, place_.node, p.nodes);
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
  const auto far = beyond_launcher(place_.daemons, place_.node, p.nodes);
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& h) { return std::find(far.begin(), far.end(), h) != far.end(); }),
                p.nodes.end());
  if (!p.nodes.empty()) {
    if (p.kind == Plan::Kind::Acquire) p.acquire = static_cast<int>(p.nodes.size());
    return true;
  }
  p = Plan{};
  settle_ledger(false);
  no_acquire_until_ = now() + opt_.refused.backoff_max_s;
  if (!place_.said)
    note("not growing beyond the nodes the launcher runs daemons on (" + compress_hostlist(place_.daemons) +
         "): Open MPI 4.1 cannot start a daemon on a node granted after launch once it runs daemons on other nodes, "
         "and no launcher relaunches this job (run it under malleable-run --hosts slurm to grow by restart)");
  place_.said = true;
  return false;
}

// Called at each decision with the ranks' nodes now: the nodes placed by the launcher or
// by the last completed expansion are checked once; any the job holds but runs nothing on
// is barred from growth for the rest of the run, said once.
bool JobAgent::guard_placement(const std::vector<std::string>& ranks, const Snapshot& s, Plan& p) {
  if (!place_.placed.empty() && !ranks.empty()) {
    for (const auto& h : unplaced_nodes(s.mine.node_list, ranks, place_.placed)) {
      if (std::find(place_.barred.begin(), place_.barred.end(), h) != place_.barred.end()) continue;
      place_.barred.push_back(h);
      note("node " + h + " runs none of this job's processes although the launch or expansion placed them there "
           "(their nodes: " + compress_hostlist(std::vector<std::string>(ranks.begin(), ranks.end())) +
           "): not growing onto " + h + " again (check how mpiexec places processes in this allocation)");
    }
    place_.placed.clear();
  }
  return without_nodes(p, place_.barred);
}

}  // namespace cluster::slurm
