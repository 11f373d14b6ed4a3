// SPDX-License-Identifier: BSD-3-Clause
#include "cluster.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "time_limit.hpp"

namespace clustersim {

Cluster::Cluster(Workload w) : w_(std::move(w)), state_(w_.jobs.size()) {
  names_.reserve(w_.nodes);
  for (int n = 0; n < w_.nodes; ++n) {
    std::string name(1, 'n');  // (not "n" + to_string: GCC 12's false -Wrestrict)
    name += std::to_string(n);
    names_.push_back(std::move(name));
    idle_.insert(idle_.end(), n);
  }
  for (std::size_t j = 0; j < w_.jobs.size(); ++j) {
    const Job& job = w_.jobs[j];
    if (job.max_nodes > w_.nodes) throw Error("job " + job.id + " may use more nodes than the machine has");
    state_[j].record.id = job.id;
    state_[j].record.malleable = job.malleable;
    state_[j].record.submit_s = job.submit_s;
  }
  floors();
}

int Cluster::range_top(std::size_t job) const {
  const Job& j = w_.jobs.at(job);
  if (!ranges_ || !j.malleable) return j.nodes;
  if (top_efficiency_ > 0) return efficient_top_.at(job);
  return top_max_ ? j.max_nodes : j.nodes;
}

void Cluster::set_range_top_efficient(double efficiency) {
  top_efficiency_ = efficiency;
  efficient_top_.assign(w_.jobs.size(), 0);
  for (std::size_t k = 0; k < w_.jobs.size(); ++k) {
    const Job& j = w_.jobs[k];
    int top = j.nodes;
    for (int m = j.nodes + 1; m <= j.max_nodes; ++m) {
      const double gain = j.runtime_s(j.nodes) / j.runtime_s(m) - 1;
      if (gain / (static_cast<double>(m - j.nodes) / j.nodes) >= efficiency) top = m;
    }
    efficient_top_[k] = top;
  }
}

void Cluster::set_time_limits(bool on, double overhead_s) {
  limits_ = on;
  limit_overhead_s_ = overhead_s;
  floors();
}

void Cluster::floors() {
  start_floor_.assign(w_.jobs.size(), 1);
  for (std::size_t k = 0; k < w_.jobs.size(); ++k) {
    const Job& j = w_.jobs[k];
    start_floor_[k] = j.min_nodes;
    if (!limits_ || follows_ || !start_guard_ || !j.malleable || j.kill_limit_s() <= 0 || j.min_nodes >= j.nodes) continue;
    // Slurm may start it on anything in [floor, top]: the floor is the fewest nodes whose
    // predicted run keeps the limit, at most the size it asked for.
    const double per_iteration = limit_overhead_s_;
    start_floor_[k] = fewest_within(j.min_nodes, j.nodes, j.kill_limit_s(), [&](int n) {
      return EndPrediction{0, 0, j.iteration_s(n), per_iteration, j.iterations}.end();
    });
  }
}

void Cluster::account(State& s, double now) {
  s.record.node_s += static_cast<double>(s.held.size()) * (now - s.since);
  s.since = now;
}

void Cluster::submit(std::size_t job, double now) {
  State& s = state_.at(job);
  if (s.queued || s.running || s.done) throw Error("job " + w_.jobs[job].id + " submitted twice");
  s.queued = true;
  s.record.submit_s = now;
  queue_.push_back(job);
  ++version_;
}

double Cluster::estimate(std::size_t job) const {
  const Job& j = w_.jobs[job];
  return j.limit_s > 0 ? j.limit_s : j.runtime_s(range_top(job));
}

bool Cluster::eligible(std::size_t job, double now) const { return held_reason(job, now).empty(); }

std::string Cluster::held_reason(std::size_t job, double now) const {
  if (periods_.on && !periods_.may_start(now, estimate(job))) return "BeginTime";
  if (!held_by_user(job)) return "";
  const auto it = use_.find(w_.jobs.at(job).user);
  const bool jobs = user_limits_.max_jobs > 0 && it != use_.end() && it->second.jobs + 1 > user_limits_.max_jobs;
  return jobs ? "QOSMaxJobsPerUserLimit" : "QOSMaxNodePerUserLimit";
}

int Cluster::user_nodes_left(std::size_t job) const {
  const long u = w_.jobs.at(job).user;
  if (u < 0 || user_limits_.max_nodes <= 0) return std::numeric_limits<int>::max();
  const auto it = use_.find(u);
  return std::max(0, user_limits_.max_nodes - (it == use_.end() ? 0 : it->second.nodes));
}

bool Cluster::held_by_user(std::size_t job) const {
  const Job& j = w_.jobs.at(job);
  if (!user_limits_.on() || j.user < 0) return false;
  const auto it = use_.find(j.user);
  const int jobs = it == use_.end() ? 0 : it->second.jobs;
  const int lowest = ranges_ && j.malleable ? start_floor_.at(job) : j.nodes;
  return (user_limits_.max_jobs > 0 && jobs + 1 > user_limits_.max_jobs) || user_nodes_left(job) < lowest;
}

void Cluster::set_user_limits(UserLimits l) {
  if (l.max_jobs < 0 || l.max_nodes < 0) throw Error("per-user limits must be >= 0 (0: none)");
  for (const auto& j : w_.jobs)
    if (l.max_nodes > 0 && j.user >= 0 && j.min_nodes > l.max_nodes)
      throw Error("job " + j.id + " needs " + std::to_string(j.min_nodes) + " nodes, more than the per-user limit of " +
                  std::to_string(l.max_nodes) + ": it could never start");
  user_limits_ = l;
  ++version_;
}

void Cluster::set_fair_share(FairShare f) {
  if (f.weight < 0 || f.age_weight < 0 || !(f.half_life_s > 0) || !(f.max_age_s > 0))
    throw Error("fair-share: weights must be >= 0, the half-life and the maximum age > 0");
  fair_ = f;
  std::set<long> users;
  for (const auto& j : w_.jobs) users.insert(j.user);
  users_ = std::max<int>(1, static_cast<int>(users.size()));
  ++version_;
}

double Cluster::user_usage(long user) const {
  const auto it = usage_.find(user);
  return it == usage_.end() ? 0.0 : it->second;
}

double Cluster::priority(std::size_t job, double now) const {
  const Job& j = w_.jobs.at(job);
  const double share = 1.0 / users_;
  const double used = usage_total_ > 0 ? user_usage(j.user) / usage_total_ : 0.0;
  const double age = std::min(1.0, std::max(0.0, now - state_.at(job).record.submit_s) / fair_.max_age_s);
  return fair_.weight * std::exp2(-used / share) + fair_.age_weight * age;
}

void Cluster::accrue(double now) {
  const double dt = now - usage_at_;
  if (!fair_.on() || !(dt > 0)) return;
  const double decay = std::exp2(-dt / fair_.half_life_s);
  usage_total_ = 0;
  for (auto& [user, used] : usage_) used *= decay;
  for (std::size_t k = 0; k < state_.size(); ++k)
    if (state_[k].running) usage_[w_.jobs[k].user] += static_cast<double>(state_[k].held.size()) * dt;
  for (const auto& [user, used] : usage_) usage_total_ += used;
  usage_at_ = now;
}

void Cluster::order_by_priority(double now) {
  accrue(now);
  std::vector<std::pair<double, std::size_t>> key;
  key.reserve(queue_.size());
  for (std::size_t j : queue_) key.emplace_back(-priority(j, now), j);
  std::sort(key.begin(), key.end());  // highest priority first, then the earlier submission
  bool changed = false;
  for (std::size_t k = 0; k < queue_.size(); ++k) {
    changed = changed || queue_[k] != key[k].second;
    queue_[k] = key[k].second;
  }
  if (changed) ++version_;
}

void Cluster::note_user_held(std::size_t job) {
  user_held_.resize(w_.jobs.size(), false);
  if (!user_held_[job]) {
    user_held_[job] = true;
    ++user_held_count_;
  }
}

std::size_t Cluster::head(double now) const {
  for (std::size_t k = 0; k < queue_.size(); ++k)
    if (eligible(queue_[k], now)) return k;
  return queue_.size();
}

std::vector<std::size_t> Cluster::schedule(double now) {
  narrowed_now_.clear();
  apply_outages(now);
  if (fair_.on()) order_by_priority(now);
  if (queue_.empty()) return {};
  std::vector<Waiting> waiting;
  std::vector<std::size_t> at;      // waiting[i] is queue_[at[i]]
  std::vector<bool> held_in_pass;   // by queue position: held by its user's limit in this pass
  const auto collect = [&] {
    waiting.clear();
    at.clear();
    for (std::size_t k = 0; k < queue_.size(); ++k) {
      const std::size_t j = queue_[k];
      if (!eligible(j, now) || (!held_in_pass.empty() && held_in_pass[k])) continue;
      const Job& job = w_.jobs[j];
      const int top = range_top(j);
      const bool limit = job.limit_s > 0;
      waiting.push_back({job.id, top, limit ? job.limit_s : job.runtime_s(top), job.malleable ? start_floor_[j] : 0,
                         job.serial_fraction, limit, job.comm_fraction, limit && follows_ && start_guard_ ? job.nodes : 0});
      at.push_back(k);
    }
  };
  collect();
  if (user_limits_.on())
    for (std::size_t k = 0; k < queue_.size(); ++k)
      if (held_by_user(queue_[k])) note_user_held(queue_[k]);
  if (waiting.empty()) return {};
  std::vector<Running> run;
  for (const auto& s : state_)
    if (s.running) run.push_back({static_cast<int>(s.held.size()), s.estimated_end});
  const auto backfill = [&](const std::vector<Waiting>& q) {
    return conservative_ ? conservative_backfill(now, idle_count(), total(), q, run, ranges_, resolution_)
                         : easy_backfill(now, idle_count(), total(), q, run, ranges_);
  };
  EasyResult r = backfill(waiting);
  // Per-user limits within the pass: the starts in order use up their users' limits; a
  // start that would pass its user's limit (an earlier start of the same user took it) is
  // held and the pass planned again without it; a job on a range starts on at most what
  // its user has left.
  while (user_limits_.on()) {
    std::unordered_map<long, UserUse> use = use_;
    bool again = false;
    for (Start& st : r.start) {
      const std::size_t j = queue_[at[st.index]];
      const long u = w_.jobs[j].user;
      if (u < 0) continue;
      UserUse& mine = use[u];
      const int lowest = ranges_ && w_.jobs[j].malleable ? start_floor_[j] : st.nodes;
      const int left = user_limits_.max_nodes > 0 ? user_limits_.max_nodes - mine.nodes : st.nodes;
      if ((user_limits_.max_jobs > 0 && mine.jobs + 1 > user_limits_.max_jobs) || left < lowest) {
        if (held_in_pass.empty()) held_in_pass.assign(queue_.size(), false);
        held_in_pass[at[st.index]] = true;
        note_user_held(j);
        again = true;
        break;
      }
      st.nodes = std::min(st.nodes, left);
      ++mine.jobs;
      mine.nodes += st.nodes;
    }
    if (!again) break;
    collect();
    if (waiting.empty()) return {};
    r = backfill(waiting);
  }
  count_narrowed(waiting, at, r, backfill);
  std::vector<std::size_t> started;
  std::vector<bool> leaves(queue_.size(), false);
  for (const Start& st : r.start) {
    const std::size_t j = queue_[at[st.index]];
    State& s = state_[j];
    for (int i = 0; i < st.nodes; ++i) {
      s.held.push_back(*idle_.begin());
      idle_.erase(idle_.begin());
    }
    s.queued = false;
    s.running = true;
    s.since = now;
    const double run_limit = w_.jobs[j].run_limit_s;
    s.estimated_end = now + (run_limit > 0 ? start_limit(j, st.nodes) : waiting[st.index].estimate_on(st.nodes));
    s.record.start_s = now;
    s.record.start_nodes = s.record.min_held = s.record.max_held = st.nodes;
    if (w_.jobs[j].user >= 0) {
      ++use_[w_.jobs[j].user].jobs;
      use_[w_.jobs[j].user].nodes += st.nodes;
    }
    leaves[at[st.index]] = true;
    started.push_back(j);
  }
  if (!started.empty()) {
    std::vector<std::size_t> rest;
    for (std::size_t k = 0; k < queue_.size(); ++k)
      if (!leaves[k]) rest.push_back(queue_[k]);
    queue_.swap(rest);
    ++version_;
  }
  return started;
}

void Cluster::count_narrowed(const std::vector<Waiting>& waiting, const std::vector<std::size_t>& at,
                             const EasyResult& r, const std::function<EasyResult(const std::vector<Waiting>&)>& backfill) {
  if (!ranges_ || !limits_) return;
  narrowed_.resize(w_.jobs.size(), false);
  std::vector<bool> started(waiting.size(), false);
  for (const Start& st : r.start) started[st.index] = true;
  // Only a job the floor may have held: malleable, floor above its minimum, that minimum
  // within the idle nodes (a start never takes more), not started, not yet counted.
  std::vector<Waiting> loose = waiting;
  bool any = false;
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    const std::size_t j = queue_[at[i]];
    const Job& job = w_.jobs[j];
    if (!job.malleable || start_floor_[j] <= job.min_nodes) continue;
    loose[i].min_nodes = job.min_nodes;
    any = any || (!started[i] && !narrowed_[j] && job.min_nodes <= idle_count());
  }
  if (!any) return;
  for (const Start& st : backfill(loose).start) {
    const std::size_t j = queue_[at[st.index]];
    if (started[st.index] || narrowed_[j] || st.nodes >= start_floor_[j]) continue;
    narrowed_[j] = true;
    ++narrowed_count_;
    narrowed_now_.push_back(j);
  }
}

void Cluster::extend_limit(std::size_t job, double by_s) {
  State& s = state_.at(job);
  if (s.running && by_s > 0) s.estimated_end += by_s;
}

void Cluster::set_limit_follows_size(bool on) {
  follows_ = on;
  floors();
}

void Cluster::set_start_guard(bool on) {
  start_guard_ = on;
  floors();
}

double Cluster::start_limit(std::size_t job, int n) const {
  return start_guard_ ? limit_on(job, n) : w_.jobs.at(job).kill_limit_s();
}

double Cluster::limit_on(std::size_t job, int n) const {
  const Job& j = w_.jobs.at(job);
  const double limit = j.kill_limit_s();
  if (!follows_ || limit <= 0 || n <= 0 || n >= j.nodes) return limit;
  // the arbiter's rule at a start below the range (--extend-limits): one function
  return limit_at_start(limit, n, j.nodes, j.runtime_s(n), j.runtime_s(j.nodes)).limit_s;
}

void Cluster::set_estimated_end(std::size_t job, double end) {
  if (w_.jobs.at(job).limit_s > 0) return;
  state_.at(job).estimated_end = end;
}

const std::vector<int>& Cluster::idle_nodes_sorted() const {
  if (idle_sorted_version_ != version_) {
    idle_sorted_.assign(idle_.begin(), idle_.end());
    idle_sorted_version_ = version_;
  }
  return idle_sorted_;
}

void Cluster::set_outages(std::vector<Outage> o) {
  for (const Outage& x : o)
    if (!(x.start_s < x.end_s) || x.nodes < 0)
      throw Error("an outage needs start < end and nodes >= 0 (got [" + std::to_string(x.start_s) + ", " +
                  std::to_string(x.end_s) + "), " + std::to_string(x.nodes) + " nodes)");
  outages_ = std::move(o);
}

void Cluster::apply_outages(double now) {
  if (outages_.empty()) return;
  const auto want = static_cast<std::size_t>(nodes_down(outages_, now, total()));
  const std::size_t before = down_.size();
  while (down_.size() < want && !idle_.empty()) {
    down_.insert(*idle_.rbegin());
    idle_.erase(std::prev(idle_.end()));
  }
  while (down_.size() > want) {
    idle_.insert(*down_.begin());
    down_.erase(down_.begin());
  }
  if (down_.size() != before) ++version_;
}

std::vector<int> Cluster::grant(std::size_t job, int count, double now) {
  State& s = state_.at(job);
  if (!s.running) throw Error("grant to job " + w_.jobs[job].id + ", which is not running");
  apply_outages(now);
  accrue(now);
  account(s, now);
  count = std::min(count, user_nodes_left(job));
  std::vector<int> got;
  while (count-- > 0 && !idle_.empty()) {
    got.push_back(*idle_.begin());
    idle_.erase(idle_.begin());
  }
  s.held.insert(s.held.end(), got.begin(), got.end());
  s.record.max_held = std::max<int>(s.record.max_held, static_cast<int>(s.held.size()));
  if (w_.jobs[job].user >= 0) use_[w_.jobs[job].user].nodes += static_cast<int>(got.size());
  if (!got.empty()) ++version_;
  return got;
}

std::vector<int> Cluster::grant_nodes(std::size_t job, const std::vector<int>& nodes, double now) {
  State& s = state_.at(job);
  if (!s.running) throw Error("grant to job " + w_.jobs[job].id + ", which is not running");
  apply_outages(now);
  accrue(now);
  account(s, now);
  std::vector<int> got;
  int left = user_nodes_left(job);
  for (int n : nodes)
    if (left > 0 && idle_.erase(n)) got.push_back(n), --left;
  s.held.insert(s.held.end(), got.begin(), got.end());
  s.record.max_held = std::max<int>(s.record.max_held, static_cast<int>(s.held.size()));
  if (w_.jobs[job].user >= 0) use_[w_.jobs[job].user].nodes += static_cast<int>(got.size());
  if (!got.empty()) ++version_;
  return got;
}

void Cluster::release(std::size_t job, const std::vector<int>& nodes, double now) {
  State& s = state_.at(job);
  accrue(now);
  account(s, now);
  for (int n : nodes) {
    const auto it = std::find(s.held.begin(), s.held.end(), n);
    if (it == s.held.end()) throw Error("job " + w_.jobs[job].id + " releases node " + names_[n] + ", which it does not hold");
    s.held.erase(it);
    idle_.insert(n);
    if (w_.jobs[job].user >= 0) --use_[w_.jobs[job].user].nodes;
  }
  if (s.running && s.held.empty()) throw Error("job " + w_.jobs[job].id + " released its last node while running");
  s.record.min_held = std::min<int>(s.record.min_held, static_cast<int>(s.held.size()));
  if (!nodes.empty()) ++version_;
  apply_outages(now);
}

void Cluster::resized(std::size_t job, double seconds) {
  ++state_.at(job).record.resizes;
  state_[job].record.resize_s += seconds;
}

void Cluster::finish(std::size_t job, double now) {
  State& s = state_.at(job);
  if (!s.running) throw Error("job " + w_.jobs[job].id + " ends without running");
  accrue(now);
  account(s, now);
  s.record.end_nodes = static_cast<int>(s.held.size());
  s.running = false;
  if (w_.jobs[job].user >= 0) {
    UserUse& u = use_[w_.jobs[job].user];
    --u.jobs;
    u.nodes -= static_cast<int>(s.held.size());
  }
  const std::vector<int> nodes = s.held;
  s.held.clear();
  for (int n : nodes) idle_.insert(n);
  s.done = true;
  s.record.end_s = now;
  ++version_;
  apply_outages(now);
}

std::vector<JobRecord> Cluster::records() const {
  std::vector<JobRecord> out;
  for (std::size_t j = 0; j < state_.size(); ++j) {
    if (!state_[j].done) throw Error("job " + w_.jobs[j].id + " has not ended");
    out.push_back(state_[j].record);
  }
  return out;
}

}  // namespace clustersim
