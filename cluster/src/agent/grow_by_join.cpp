// SPDX-License-Identifier: BSD-3-Clause
// The job agent's growth by expander jobs (GrowByJoin, agent_state.hpp; expander.hpp;
// Options::launch.join): the expanders submitted for the nodes a plan acquires, followed at
// every remap point, their launches joined once they wait, and every expander that is late,
// refused or left over cancelled; and the expander book read (its nodes, whether any is
// pending).
#include <algorithm>
#include <cmath>
#include <set>

#include "agent/agent_state.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm::detail {

namespace {
bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
}  // namespace

std::vector<std::string> expander_nodes(const AgentState::Expanders& x) {
  std::vector<std::string> out;
  for (const Expander& e : x.book)
    if (e.state == Expander::State::Running || e.state == Expander::State::Joined) out.push_back(e.node);
  return out;
}

// The nodes of its expander jobs (running or joined) are the job's too: added to its record
// (Slurm lists them under the expanders, not under the job).
void add_expander_nodes(const AgentState::Expanders& x, Job& mine) {
  for (const auto& n : expander_nodes(x))
    if (!has(mine.node_list, n)) mine.node_list.push_back(n);
}

bool expanders_pending(const AgentState::Expanders& x) {
  return std::any_of(x.book.begin(), x.book.end(), [](const Expander& e) {
    return e.state == Expander::State::Pending || e.state == Expander::State::Running;
  });
}

void GrowByJoin::cancel(const std::vector<std::string>& ids, const std::string& why) {
  if (ids.empty()) return;
  Argv argv{"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  const Command c = a.client->runner()(argv);
  a.note("cancelled expander job(s) " + [&] {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : ",") + id;
    return s;
  }() + " (" + why + ")" + (c.status == 0 ? "" : "; scancel said: " + escaped(c.said().substr(0, 300))));
  a.exp.book.erase(std::remove_if(a.exp.book.begin(), a.exp.book.end(), [&](const Expander& e) { return has(ids, e.id); }),
                   a.exp.book.end());
  if (!expanders_pending(a.exp)) a.settle_ledger(false);
}

// The expanders whose launches have not joined, cancelled (at the job's end: joined ones end
// with the job's processes; each one's launcher also watches the job, --while-job).
void GrowByJoin::cancel_unjoined(const std::string& why) {
  std::vector<std::string> left;
  for (const Expander& e : a.exp.book)
    if (e.state == Expander::State::Pending || e.state == Expander::State::Running) left.push_back(e.id);
  cancel(left, why);
}

// Every remap point while expanders are pending: Slurm is asked about them at most every
// interval; late or misplaced ones are cancelled; the launches of those that wait to join
// now join (one step for all of them).
Step GrowByJoin::follow(const Moment& m, double t) {
  if (a.exp.book.empty()) return Step{};
  if (t - a.exp.asked >= a.opt.interval_s) {
    a.exp.asked = t;
    Argv argv{"squeue", "-h", "-o", "%i|%T|%N", "-j"};
    std::string ids;
    for (const Expander& e : a.exp.book) ids += (ids.empty() ? "" : ",") + e.id;
    argv.push_back(ids);
    try {
      // squeue -j of jobs that ended a while ago exits 1 ("Invalid job id"): read what it listed.
      const Command c = a.client->runner()(argv);
      const ExpanderUpdate u = update_expanders(a.exp.book, parse_expanders(c.out), t, a.opt.launch.join.start_deadline_s);
      for (const auto& why : u.why) a.note(why);
      if (!u.cancel.empty()) {
        cancel(u.cancel, "late or misplaced");
        a.back_off();
      }
      if (!u.vanished.empty() && !expanders_pending(a.exp)) a.settle_ledger(false);
    } catch (const Error& e) {
      a.note(std::string("asking Slurm about the expander jobs failed: ") + e.what());
    }
  }
  // A running expander whose launch never came to wait (refused, crashed): cancelled.
  std::vector<std::string> silent;
  for (const Expander& e : a.exp.book)
    if (e.state == Expander::State::Running && e.running_at > -1e29 && t - e.running_at > a.opt.launch.join.start_deadline_s &&
        std::none_of(m.waiting.begin(), m.waiting.end(), [&](const Moment::Launch& w) { return w.id == e.launch; }))
      silent.push_back(e.id);
  if (!silent.empty()) {
    cancel(silent, "its launch did not ask to join within " +
                                 std::to_string(static_cast<long>(a.opt.launch.join.start_deadline_s)) + " s of its start");
    a.back_off();
  }
  // The launches of this job's expanders that wait now: they join at this remap point.
  Step g;
  g.kind = Step::Kind::Grow;
  g.procs = m.world_size;
  for (const Expander& e : a.exp.book) {
    if (e.state != Expander::State::Pending && e.state != Expander::State::Running) continue;
    const auto w = std::find_if(m.waiting.begin(), m.waiting.end(), [&](const Moment::Launch& l) { return l.id == e.launch; });
    if (w == m.waiting.end()) continue;
    if (w->host != e.node) {  // not where Slurm runs it: not this expander's launch
      a.note("launch " + e.launch + " waits on " + escaped(w->host) + ", not on " + e.node + ": not joined");
      continue;
    }
    g.hosts.push_back(Step::Host{e.node, w->procs});
    g.launches.push_back(e.launch);
    g.procs += w->procs;
  }
  if (g.launches.empty()) return Step{};
  std::string hosts;
  for (const auto& h : g.hosts) hosts += (hosts.empty() ? "" : ",") + h.name;
  g.reason = "slurm: expander job(s) of " + hosts + " ready: their launches join";
  a.note("growing onto " + hosts + " by joining the launches of its expander jobs");
  return g;
}

// Growth while the job grows by joining: nodes of its expanders whose launches have not
// joined yet wait for them (follow); held nodes that run nothing are joined by launches the
// session orders from its launcher; nodes to acquire get expander jobs, one growth at a time.
Step GrowByJoin::grow(const Moment& m, Plan p, int per_node, double t) {
  std::vector<std::string> awaited;
  for (const Expander& e : a.exp.book)
    if (e.state == Expander::State::Pending || e.state == Expander::State::Running) awaited.push_back(e.node);
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& n) { return std::find(awaited.begin(), awaited.end(), n) != awaited.end(); }),
                p.nodes.end());
  if (p.kind == Plan::Kind::UseHeld) {
    if (p.nodes.empty()) return stay("slurm: waiting for the launches of its expander jobs (" + compress_hostlist(awaited) + ")");
    a.note("growing onto held node(s) " + compress_hostlist(p.nodes) + " by launches its launcher starts (" + p.why + ")");
    return expansion(m, p, p.nodes, per_node, "slurm: " + a.log.back());
  }
  if (expanders_pending(a.exp)) return stay("slurm: waiting for its expander jobs (" + compress_hostlist(awaited) + ")");
  if (t < a.no_acquire_until)
    return stay("slurm: not asking Slurm for nodes again before " + std::to_string(static_cast<int>(a.backoff)) +
                " s have passed since it refused (" + p.why + ")");
  return submit(p, per_node);
}

// A plan that acquires nodes: one expander job per node (named ones, else the first idle
// ones of the plan's count the job may take), each asked for the job's partition, account
// and QOS, its time limit within the job's own end. The job stays at its size until their
// launches wait to join (follow).
Step GrowByJoin::submit(const Plan& p, int per_node) {
  Job me;
  try {
    me = a.client->record();
  } catch (const Error& e) {
    a.note(std::string("reading the job before growing failed: ") + e.what());
    a.settle_ledger(false);
    return stay(a.log.back());
  }
  // rounded up: the expander may end a minute after the job, never before it
  const long left_min = me.time_left < 0 ? -1 : static_cast<long>(std::ceil(me.time_left / 60));
  const long limit = expander_time_limit(left_min, a.opt.launch.join.margin_min, a.opt.launch.join.cap_min);
  if (limit <= 0) {
    a.note("not growing: the job has " + std::to_string(left_min) + " min left, too little for an expander job");
    a.settle_ledger(false);
    return stay(a.log.back());
  }
  std::vector<std::string> nodes = p.nodes;
  if (nodes.empty()) {
    a.note("not growing: the plan names no node for an expander job (" + p.why + ")");
    a.settle_ledger(false);
    return stay(a.log.back());
  }
  std::string submitted;
  for (const std::string& node : nodes) {
    ExpanderRequest r;
    r.job_id = a.client->job_id();
    r.node = node;
    r.procs = std::max(1, per_node);
    r.partition = valid_name(me.partition) ? me.partition : "";
    r.qos = valid_name(me.qos) ? me.qos : "";
    r.time_limit_min = limit;
    r.launcher = a.opt.launch.join.launcher;
    r.dir = a.opt.launch.join.dir;
    r.launch = "slurm-" + a.client->job_id() + "-" + std::to_string(++a.exp.seq);
    try {
      const Command c = a.client->run(expander_submit_argv(r), "submitting an expander job for " + node);
      Expander e;
      e.id = parse_sbatch_id(c.out);
      e.node = node;
      e.launch = r.launch;
      e.procs = r.procs;
      e.submitted_at = a.now();
      a.exp.book.push_back(e);
      submitted += (submitted.empty() ? "" : ", ") + e.id + " on " + node;
    } catch (const Error& e) {
      a.note(std::string("growing refused: ") + e.what());
    }
  }
  if (submitted.empty()) {
    a.back_off();
    a.settle_ledger(false);
    return stay(a.log.back());
  }
  a.backoff = 0;
  a.note("submitted expander job(s) " + submitted + " (" + std::to_string(limit) + " min; " + p.why + ")");
  return stay("slurm: " + a.log.back());
}

// How a step with expanders went: the launches joined (or the join failed: their
// expanders are cancelled); a shrink off expander nodes ended their launches (their
// expanders end by themselves, Slurm then lists their nodes idle).
void GrowByJoin::completed(const Step& s, bool ok) {
  if (s.kind == Step::Kind::Grow && !s.launches.empty()) {
    std::vector<std::string> failed;
    for (Expander& e : a.exp.book)
      if (has(s.launches, e.launch)) {
        if (ok) e.state = Expander::State::Joined;
        else failed.push_back(e.id);
      }
    cancel(failed, "its launch did not join");
    if (ok && !expanders_pending(a.exp)) a.settle_ledger(false);
  }
  if (s.kind == Step::Kind::Shrink && ok)
    for (Expander& e : a.exp.book)
      if (std::any_of(s.hosts.begin(), s.hosts.end(), [&](const Step::Host& h) { return h.name == e.node; })) {
        e.state = Expander::State::Leaving;
        a.note("gave back " + e.node + ": its launch left, expander job " + e.id + " ends");
      }
}

}  // namespace cluster::slurm::detail
