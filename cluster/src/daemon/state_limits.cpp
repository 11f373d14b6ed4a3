// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's state, --extend-limits (state.hpp): the jobs followed for their time
// limits, the raises of their give-backs and of their starts below their node range, pure.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "daemon/state.hpp"
#include "malleable/cluster/expander.hpp"

namespace cluster::arbiter {

using json = nlohmann::json;

namespace {
const std::string kAtStart = "start-below-range";
const std::string kAtExpander = "expander";
}  // namespace

// --extend-limits: a job of the recipe (it asks about itself) is followed from its first
// request: Slurm's record then (its start, its limit as it stands, its nodes) is its book;
// until its start is judged, its last request's model is kept with it.
void ArbiterState::follow_limit(const slurm::Snapshot& s, const Request& r) {
  auto it = limit_jobs_.find(s.mine.id);
  if (it == limit_jobs_.end()) {
    if (limit_jobs_.size() >= kMaxLimitJobs || s.mine.state != "RUNNING") return;
    const auto limit = limits::slurm_limit_s(s.mine.start, s.mine.time_left, view_.taken_at);
    if (!limit || s.mine.node_list.empty()) return;  // unlimited, or no start known: nothing to follow
    LimitJob j;
    j.book = limits::LimitBook{s.mine.start, *limit, static_cast<int>(s.mine.node_list.size()), 0};
    it = limit_jobs_.emplace(s.mine.id, j).first;
  }
  if (it->second.start == LimitJob::Start::Done) return;
  it->second.growth = r.growth;
  it->second.rank_nodes = static_cast<int>(std::set<std::string>(r.job.rank_hosts.begin(), r.job.rank_hosts.end()).size());
}

// A give-back the arbiter decided: what it takes the job to, and the model's times (the
// job's claims: they decide how much, within the cap), kept until a view shows it done.
void ArbiterState::note_give_back(const Request& r, const slurm::Snapshot& s, const slurm::Arbitration& a, double now) {
  const auto it = limit_jobs_.find(r.job.id);
  if (it == limit_jobs_.end() || a.plan.kind != slurm::Plan::Kind::GiveBack) return;
  const std::set<std::string> ranks(r.job.rank_hosts.begin(), r.job.rank_hosts.end());
  const int from = static_cast<int>(s.mine.node_list.size());
  const int after = from - static_cast<int>(a.plan.nodes.size());
  // only nodes that run ranks slow the job (held nodes running nothing go free)
  const int k = static_cast<int>(std::count_if(a.plan.nodes.begin(), a.plan.nodes.end(),
                                               [&](const std::string& h) { return ranks.count(h) > 0; }));
  LimitJob& j = it->second;
  if (k <= 0 || after < 1 || (j.raised_to > 0 && after >= j.raised_to)) return;  // nothing slows, or raised for already
  const slurm::Growth g = growth_model(r.growth)(-k);
  LimitJob::Pending p;
  p.nodes_after = after;
  p.t_from = g.measured_iteration;
  p.t_to = g.predicted_iteration;
  p.cost_s = std::max(0.0, g.predicted_resize);
  p.from_ranks = static_cast<int>(ranks.size());
  p.to_ranks = p.from_ranks - k;
  p.decided_at = now;
  j.pending = p;
}

// The give-backs the new view shows done (the job holds no more than the decision left it,
// its own nodes and its expanders'): each raised once, from this view's record; a job that
// left the view (or stopped running) is forgotten; a decision never carried out is dropped
// with its promise's lifetime.
void ArbiterState::limits_from_view() {
  if (limit_jobs_.empty()) return;
  std::map<std::string, const slurm::Job*> listed;
  for (const auto& j : view_.jobs) listed.emplace(j.id, &j);
  for (auto it = limit_jobs_.begin(); it != limit_jobs_.end();) {
    const auto l = listed.find(it->first);
    if (l == listed.end() || l->second->state != "RUNNING" || view_.unreadable.count(it->first) > 0) {
      it = limit_jobs_.erase(it);
      continue;
    }
    LimitJob& j = it->second;
    // while its start's raise is on its way, a give-back's raise (from the limit before it)
    // waits: made after it, it would lower the limit the start's raise set
    if (j.pending && j.start != LimitJob::Start::Raising) {
      slurm::Snapshot s;
      try {
        s = slurm::snapshot_of(view_, it->first);
      } catch (const Error&) {
        it = limit_jobs_.erase(it);
        continue;
      }
      const int held = static_cast<int>(s.mine.node_list.size());
      const LimitJob::Pending p = *j.pending;
      if (held <= p.nodes_after && held >= 1) {
        j.pending.reset();
        j.raised_to = held;
        if (const auto limit = limits::slurm_limit_s(s.mine.start, s.mine.time_left, view_.taken_at)) {
          const auto raise = limits::raise_for_give_back(j.book, *limit, view_.taken_at, held, p.t_from, p.t_to,
                                                         p.from_ranks, p.to_ranks, p.cost_s);
          j.book.costs_s += std::clamp(p.cost_s, 0.0, limits::kMaxResizeCostS);
          if (raise)
            limit_due_.push_back(LimitUpdate{it->first,
                                             {"scontrol", "update", "JobId=" + it->first,
                                              "TimeLimit=" + std::to_string(raise->new_min)},
                                             raise->old_min, raise->new_min, raise->cut_s > 0, raise->why});
        }
      } else if (view_.taken_at - p.decided_at > opt_.arbiter.promise_ttl_s) {
        j.pending.reset();
      }
    }
    if (j.raised) raise_expanders(it->first, j, listed);
    ++it;
  }
}

// A raised job's expanders end no earlier than it (limits::raise_expander): each a job
// that it reported (its owner's: ClusterView::expanders), named for it in Slurm's record
// (expander_name), running on one node since the job's start; raised once per new end.
void ArbiterState::raise_expanders(const std::string& id, LimitJob& j, const std::map<std::string, const slurm::Job*>& listed) {
  const auto reported = expander_reports_.find(id);
  const slurm::Job* job = listed.at(id);
  const auto job_limit = limits::slurm_limit_s(job->start, job->time_left, view_.taken_at);
  if (reported == expander_reports_.end() || !job_limit) return;
  std::erase_if(j.expanders_to, [&](const auto& e) { return listed.count(e.first) == 0; });
  for (const std::string& e : reported->second) {
    const auto l = listed.find(e);
    if (l == listed.end() || view_.expanders.count(e) == 0) continue;
    const slurm::Job& x = *l->second;
    if (x.state != "RUNNING" || x.node_list.size() != 1 || slurm::expander_of(x.name) != id) continue;
    const auto limit = limits::slurm_limit_s(x.start, x.time_left, view_.taken_at);
    if (!limit) continue;
    const auto raise = limits::raise_expander(job->start, *job_limit, x.start, *limit);
    if (!raise) continue;
    long& queued = j.expanders_to[e];
    if (raise->new_min <= queued) continue;  // queued or made already
    queued = raise->new_min;
    limit_due_.push_back(LimitUpdate{e, {"scontrol", "update", "JobId=" + e, "TimeLimit=" + std::to_string(raise->new_min)},
                                     raise->old_min, raise->new_min, false, "expander of job " + id + ": " + raise->why,
                                     kAtExpander});
  }
}

std::vector<LimitUpdate> ArbiterState::take_limit_updates() { return std::exchange(limit_due_, {}); }

std::vector<std::string> ArbiterState::limit_updates_done(const std::vector<std::pair<LimitUpdate, slurm::Command>>& done,
                                                         double now, bool& changed) {
  std::vector<std::string> log;
  changed = false;
  for (const auto& [u, c] : done) {
    json line{{"t", now},         {"job", u.job},           {"rule", "limit-extended"}, {"at", u.at},
              {"old_min", u.old_min}, {"new_min", u.new_min}, {"capped", u.capped},        {"why", u.why}};
    const auto started = limit_jobs_.find(u.job);
    const bool at_start = u.at == kAtStart && started != limit_jobs_.end();
    if (at_start) started->second.start = LimitJob::Start::Done;  // judged: journalled so
    if (at_start && c.status == 0)  // the limit its start size holds: its give-backs' cap from it
      started->second.book.submitted_s = std::max(started->second.book.submitted_s, 60.0 * u.new_min);
    if (c.status == 0 && started != limit_jobs_.end()) started->second.raised = true;
    if (c.status == 0) {
      ++limits_raised_;
      limits_refused_.clear();
      limits_refusal_said_ = false;
      log.push_back("job " + u.job + ": TimeLimit " + std::to_string(u.old_min) + " -> " + std::to_string(u.new_min) +
                    " min (" + u.why + ")");
    } else {
      ++limits_failed_;
      std::string said = c.said().substr(0, 300);
      std::replace(said.begin(), said.end(), '\n', ' ');
      limits_refused_ = slurm::command_line(u.argv) + " failed (status " + std::to_string(c.status) + "): " + said;
      line["rule"] = "limit-refused";
      line["error"] = limits_refused_;
      if (!std::exchange(limits_refusal_said_, true))
        log.push_back("Slurm refuses to raise time limits (" + limits_refused_ +
                      "): the daemon's user needs AdminLevel=Operator (sacctmgr, docs/guide/arbiter.md); until a raise "
                      "is made, give-backs are judged against the limits as they stand; logged again after one is made");
    }
    remember(key_of(u.job, kUnknownUid), owned(line.dump(-1, ' ', false, json::error_handler_t::replace), u.job));
    changed = true;
  }
  return log;
}

// The starts to read: those not yet read, at most kStartReadsPerView a view.
std::vector<std::string> ArbiterState::take_start_reads() {
  std::vector<std::string> out;
  if (!opt_.extend_limits) return out;
  for (auto& [id, j] : limit_jobs_)
    if (j.start == LimitJob::Start::ToRead && out.size() < kStartReadsPerView) {
      j.start = LimitJob::Start::Reading;
      out.push_back(id);
    }
  return out;
}

std::vector<std::string> ArbiterState::start_reads_done(const std::vector<StartRead>& reads, double now, bool& changed) {
  std::vector<std::string> log;
  changed = false;
  for (const StartRead& r : reads) {
    const auto it = limit_jobs_.find(r.job);
    if (it == limit_jobs_.end() || it->second.start != LimitJob::Start::Reading) continue;  // gone meanwhile
    if (auto line = start_read_done(r, now)) log.push_back(std::move(*line));
    changed = changed || it->second.start == LimitJob::Start::Done;
  }
  return log;
}

// One start judged (decide_start_limit): a raise due, read again, or judged (a refusal's
// line for the log, kept with the decisions).
std::optional<std::string> ArbiterState::start_read_done(const StartRead& read, double now) {
  LimitJob& j = limit_jobs_.at(read.job);
  StartFacts f{read.job, j.book, j.growth, j.rank_nodes, j.start_tries + 1 >= kStartTries};
  const StartDecision d = decide_start_limit(f, read);
  switch (d.kind) {
    case StartDecision::Kind::Again:
      ++j.start_tries;
      j.start = LimitJob::Start::ToRead;
      return std::nullopt;
    case StartDecision::Kind::Raise:
      j.start = LimitJob::Start::Raising;
      limit_due_.push_back(LimitUpdate{read.job,
                                       {"scontrol", "update", "JobId=" + read.job, "TimeLimit=" + std::to_string(d.raise->new_min)},
                                       d.raise->old_min, d.raise->new_min, d.raise->cut_s > 0, d.raise->why, kAtStart});
      break;
    case StartDecision::Kind::None:
    case StartDecision::Kind::Refused: {
      j.start = LimitJob::Start::Done;
      j.growth.clear();
      const bool refused = d.kind == StartDecision::Kind::Refused;
      const json line{{"t", now}, {"job", read.job}, {"rule", refused ? "limit-start-refused" : "limit-start-kept"}, {"why", d.why}};
      remember(key_of(read.job, kUnknownUid), owned(line.dump(-1, ' ', false, json::error_handler_t::replace), read.job));
      if (refused) return "job " + read.job + ": no TimeLimit raise at its start: " + d.why;
      break;
    }
  }
  return std::nullopt;
}

}  // namespace cluster::arbiter
