// SPDX-License-Identifier: BSD-3-Clause
// The job agent's growth by expander jobs (expander.hpp; Options::launch.join): the expanders
// submitted for the nodes a plan acquires, followed at every remap point, their launches
// joined once they wait, and every expander that is late, refused or left over cancelled.
#include <algorithm>
#include <cmath>
#include <set>

#include "malleable/cluster/job_agent.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

namespace {
Step staying(std::string reason) {
  Step s;
  s.reason = std::move(reason);
  return s;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
}  // namespace

std::vector<std::string> JobAgent::expander_nodes() const {
  std::vector<std::string> out;
  for (const Expander& e : exp_.book)
    if (e.state == Expander::State::Running || e.state == Expander::State::Joined) out.push_back(e.node);
  return out;
}

// The nodes of its expander jobs (running or joined) are the job's too: added to its record
// (Slurm lists them under the expanders, not under the job).
void JobAgent::add_expander_nodes(Job& mine) const {
  for (const auto& n : expander_nodes())
    if (!has(mine.node_list, n)) mine.node_list.push_back(n);
}

bool JobAgent::expanders_pending() const {
  return std::any_of(exp_.book.begin(), exp_.book.end(), [](const Expander& e) {
    return e.state == Expander::State::Pending || e.state == Expander::State::Running;
  });
}

void JobAgent::cancel_expanders(const std::vector<std::string>& ids, const std::string& why) {
  if (ids.empty()) return;
  Argv argv{"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  const Command c = client_->runner()(argv);
  note("cancelled expander job(s) " + [&] {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : ",") + id;
    return s;
  }() + " (" + why + ")" + (c.status == 0 ? "" : "; scancel said: " + escaped(c.said().substr(0, 300))));
  exp_.book.erase(std::remove_if(exp_.book.begin(), exp_.book.end(), [&](const Expander& e) { return has(ids, e.id); }),
                   exp_.book.end());
  if (!expanders_pending()) settle_ledger(false);
}

// An expander refused, late or silent: no node is asked for again before the back-off
// (the first refused.backoff_s, doubling up to refused.backoff_max_s).
void JobAgent::back_off() {
  backoff_ = backoff_ <= 0 ? opt_.refused.backoff_s : std::min(2 * backoff_, opt_.refused.backoff_max_s);
  no_acquire_until_ = now() + backoff_;
}

// Every remap point while expanders are pending: Slurm is asked about them at most every
// interval; late or misplaced ones are cancelled; the launches of those that wait to join
// now join (one step for all of them).
Step JobAgent::follow_expanders(const Moment& m, double t) {
  if (exp_.book.empty()) return Step{};
  if (t - exp_.asked >= opt_.interval_s) {
    exp_.asked = t;
    Argv argv{"squeue", "-h", "-o", "%i|%T|%N", "-j"};
    std::string ids;
    for (const Expander& e : exp_.book) ids += (ids.empty() ? "" : ",") + e.id;
    argv.push_back(ids);
    try {
      // squeue -j of jobs that ended a while ago exits 1 ("Invalid job id"): read what it listed.
      const Command c = client_->runner()(argv);
      const ExpanderUpdate u = update_expanders(exp_.book, parse_expanders(c.out), t, opt_.launch.join.start_deadline_s);
      for (const auto& why : u.why) note(why);
      if (!u.cancel.empty()) {
        cancel_expanders(u.cancel, "late or misplaced");
        back_off();
      }
      if (!u.vanished.empty() && !expanders_pending()) settle_ledger(false);
    } catch (const Error& e) {
      note(std::string("asking Slurm about the expander jobs failed: ") + e.what());
    }
  }
  // A running expander whose launch never came to wait (refused, crashed): cancelled.
  std::vector<std::string> silent;
  for (const Expander& e : exp_.book)
    if (e.state == Expander::State::Running && e.running_at > -1e29 && t - e.running_at > opt_.launch.join.start_deadline_s &&
        std::none_of(m.waiting.begin(), m.waiting.end(), [&](const Moment::Launch& w) { return w.id == e.launch; }))
      silent.push_back(e.id);
  if (!silent.empty()) {
    cancel_expanders(silent, "its launch did not ask to join within " +
                                 std::to_string(static_cast<long>(opt_.launch.join.start_deadline_s)) + " s of its start");
    back_off();
  }
  // The launches of this job's expanders that wait now: they join at this remap point.
  Step g;
  g.kind = Step::Kind::Grow;
  g.procs = m.world_size;
  for (const Expander& e : exp_.book) {
    if (e.state != Expander::State::Pending && e.state != Expander::State::Running) continue;
    const auto w = std::find_if(m.waiting.begin(), m.waiting.end(), [&](const Moment::Launch& l) { return l.id == e.launch; });
    if (w == m.waiting.end()) continue;
    if (w->host != e.node) {  // not where Slurm runs it: not this expander's launch
      note("launch " + e.launch + " waits on " + escaped(w->host) + ", not on " + e.node + ": not joined");
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
  note("growing onto " + hosts + " by joining the launches of its expander jobs");
  return g;
}

// A plan that acquires nodes: one expander job per node (named ones, else the first idle
// ones of the plan's count the job may take), each asked for the job's partition, account
// and QOS, its time limit within the job's own end. The job stays at its size until their
// launches wait to join (follow_expanders).
Step JobAgent::submit_expanders(const Plan& p, int per_node) {
  Job me;
  try {
    me = client_->record();
  } catch (const Error& e) {
    note(std::string("reading the job before growing failed: ") + e.what());
    settle_ledger(false);
    return staying(log_.back());
  }
  // rounded up: the expander may end a minute after the job, never before it
  const long left_min = me.time_left < 0 ? -1 : static_cast<long>(std::ceil(me.time_left / 60));
  const long limit = expander_time_limit(left_min, opt_.launch.join.margin_min, opt_.launch.join.cap_min);
  if (limit <= 0) {
    note("not growing: the job has " + std::to_string(left_min) + " min left, too little for an expander job");
    settle_ledger(false);
    return staying(log_.back());
  }
  std::vector<std::string> nodes = p.nodes;
  if (nodes.empty()) {
    note("not growing: the plan names no node for an expander job (" + p.why + ")");
    settle_ledger(false);
    return staying(log_.back());
  }
  std::string submitted;
  for (const std::string& node : nodes) {
    ExpanderRequest r;
    r.job_id = client_->job_id();
    r.node = node;
    r.procs = std::max(1, per_node);
    r.partition = valid_name(me.partition) ? me.partition : "";
    r.qos = valid_name(me.qos) ? me.qos : "";
    r.time_limit_min = limit;
    r.launcher = opt_.launch.join.launcher;
    r.dir = opt_.launch.join.dir;
    r.launch = "slurm-" + client_->job_id() + "-" + std::to_string(++exp_.seq);
    try {
      const Command c = client_->run(expander_submit_argv(r), "submitting an expander job for " + node);
      Expander e;
      e.id = parse_sbatch_id(c.out);
      e.node = node;
      e.launch = r.launch;
      e.procs = r.procs;
      e.submitted_at = now();
      exp_.book.push_back(e);
      submitted += (submitted.empty() ? "" : ", ") + e.id + " on " + node;
    } catch (const Error& e) {
      note(std::string("growing refused: ") + e.what());
    }
  }
  if (submitted.empty()) {
    back_off();
    settle_ledger(false);
    return staying(log_.back());
  }
  backoff_ = 0;
  note("submitted expander job(s) " + submitted + " (" + std::to_string(limit) + " min; " + p.why + ")");
  return staying("slurm: " + log_.back());
}

// How a step with expanders went: the launches joined (or the join failed: their
// expanders are cancelled); a shrink off expander nodes ended their launches (their
// expanders end by themselves, Slurm then lists their nodes idle).
void JobAgent::expanders_completed(const Step& s, bool ok) {
  if (s.kind == Step::Kind::Grow && !s.launches.empty()) {
    std::vector<std::string> failed;
    for (Expander& e : exp_.book)
      if (has(s.launches, e.launch)) {
        if (ok) e.state = Expander::State::Joined;
        else failed.push_back(e.id);
      }
    cancel_expanders(failed, "its launch did not join");
    if (ok && !expanders_pending()) settle_ledger(false);
  }
  if (s.kind == Step::Kind::Shrink && ok)
    for (Expander& e : exp_.book)
      if (std::any_of(s.hosts.begin(), s.hosts.end(), [&](const Step::Host& h) { return h.name == e.node; })) {
        e.state = Expander::State::Leaving;
        note("gave back " + e.node + ": its launch left, expander job " + e.id + " ends");
      }
}

}  // namespace cluster::slurm
