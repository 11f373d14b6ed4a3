// SPDX-License-Identifier: BSD-3-Clause
// The batch system's state in the cluster simulator, pure: the machine's
// nodes, the FCFS queue, the running jobs and what each held when; the scheduler (EASY
// backfilling) and the malleable jobs' policy act on it. SimGrid's actors (main.cpp) only
// move time forward and call these operations at the simulated instants.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "easy.hpp"
#include "periods.hpp"
#include "metrics.hpp"
#include "outages.hpp"
#include "workload.hpp"

namespace clustersim {

class Cluster {
 public:
  explicit Cluster(Workload w);
  // Malleable jobs start on fewer nodes than they ask for, down to their minimum, when
  // that is what is idle (Slurm's --nodes=min-max; easy.hpp).
  void set_start_ranges(bool on) { ranges_ = on; }
  bool start_ranges() const { return ranges_; }
  // The top of a malleable job's range: its max_nodes (Slurm starts a --nodes=min-max job
  // on as many as it can give, up to max; the runner submits min-max) or, false, the size
  // it asked for.
  void set_range_top_max(bool on) { top_max_ = on; }
  // Or (efficiency > 0) the largest size up to max_nodes whose added nodes, over the size
  // asked for, run at least this parallel efficiency in the job's model (the speed-up they
  // add over the share of nodes they add: the growth's own floor, min_growth_efficiency):
  // a moldable job's range as far as the nodes it adds are worth it.
  void set_range_top_efficient(double efficiency);
  // Conservative backfilling (Slurm's sched/backfill: every waiting job keeps its planned
  // start) instead of EASY (only the oldest waiting job does); easy.hpp.
  void set_conservative(bool on) { conservative_ = on; }
  // Conservative backfilling's planning blocks (Slurm's bf_resolution; easy.hpp).
  void set_resolution(Resolution r) { resolution_ = r; }
  // Time limits kept (time_limit.hpp): a job with a limit starts on a range only down to
  // the fewest nodes on which its predicted run (its model's run time plus
  // `overhead_s` per iteration: the policy's queries) stays within its limit. Off: down to
  // its minimum whatever its limit.
  void set_time_limits(bool on, double overhead_s = 0);
  // The time limit follows the size (a lever; off by default): a job with a limit started
  // below its request runs under its limit scaled by its model's time on that size
  // (limit_on), so a range starts down to its minimum whatever its limit; a give-back
  // extends the limit (extend_limit). Needs set_time_limits(true).
  void set_limit_follows_size(bool on);
  bool limit_follows_size() const { return follows_; }
  // A start below the request guarded by the limit (on, the default: the floor above, or
  // with the limit following the size, the limit scaled to the start's size). Off: Slurm's
  // own start of an sbatch -N min-top job, as the emulated runs submit it: on any size down
  // to the minimum, under the limit it was submitted with (ended at it when its run there
  // is longer); a limit that follows the size then moves only at a give-back, as the
  // arbiter's --extend-limits on did before it raised a limit at a start below the range.
  void set_start_guard(bool on);
  // Job j's limit from a start on n nodes: limit_on(j, n) with the guard, its kill limit without.
  double start_limit(std::size_t job, int n) const;
  // Job j's limit on n nodes: its kill limit, scaled by its model's time on n over its time
  // on the size it asked for when the limit follows the size and n is fewer (0: none);
  // limits::limit_at_start, the arbiter's rule at a start below the range (never past
  // perfect scaling, which no model of the workload passes).
  double limit_on(std::size_t job, int n) const;
  // The fewest nodes job j may start on (its minimum, or more under its limit), and
  // whether its limit raised it above its minimum (a start below the request refused).
  int start_floor(std::size_t job) const { return start_floor_.at(job); }
  bool start_narrowed(std::size_t job) const { return start_floor_.at(job) > w_.jobs.at(job).min_nodes; }
  // Starts actually narrowed by the limit: a waiting job on a range that a scheduling pass
  // would have started on fewer nodes than its floor (in [min_nodes, floor)) had its floor
  // been its minimum, and that the floor kept waiting instead. Counted once a job, at the
  // pass where it happens (schedule() reruns the pass without the floors only when a
  // waiting job's floor is above its minimum and that minimum fits the idle nodes).
  // narrowed(): the jobs first narrowed at the last schedule() call.
  const std::vector<std::size_t>& narrowed() const { return narrowed_now_; }
  // Per-user limits, as Slurm's QOS MaxJobsPerUser and MaxTRESPerUser=node=N: a user's
  // running jobs at most max_jobs, the nodes they hold at most max_nodes (0: no limit). A
  // waiting job whose start would pass its user's limit is held (passed over by the
  // backfilling, pending with reason QOSMaxJobsPerUserLimit); within one pass the starts
  // in queue order use the limits up; a job on a range starts on at most the nodes its
  // user has left (not below its floor); a growth never takes its user past max_nodes. A
  // job without a user (-1) is not limited. Throws Error if a job of a user needs more
  // nodes than max_nodes (it could never start).
  struct UserLimits {
    int max_jobs = 0;
    int max_nodes = 0;
    bool on() const { return max_jobs > 0 || max_nodes > 0; }
  };
  void set_user_limits(UserLimits l);
  const UserLimits& user_limits() const { return user_limits_; }
  // Whether job j's start (on its size, or on its floor with ranges) would now pass its
  // user's limit; the nodes its user may still take (INT_MAX: no node limit).
  bool held_by_user(std::size_t job) const;
  int user_nodes_left(std::size_t job) const;
  // Jobs a pass held for their user's limit (each counted once).
  long user_limit_held() const { return user_held_count_; }
  // Slurm's multifactor priority with fair-share (priority/multifactor, the classic
  // fair-share of a flat account tree with equal shares): a waiting job's priority is
  //   weight * 2^(-U / S) + age_weight * min(1, waited / max_age_s)
  // with U its user's decayed usage (node-seconds, halved every half_life_s: Slurm's
  // PriorityDecayHalfLife) over all users' and S = 1 / the workload's users (its share).
  // The queue is ordered by it at every pass (ties: submission order), so EASY's head and
  // the backfilling's order follow it. Usage accrues exactly: a running job's nodes
  // from each change of its allocation to the next. Off (weight 0, the default): FCFS.
  struct FairShare {
    double weight = 0, age_weight = 0;
    double half_life_s = 7 * 86400.0, max_age_s = 7 * 86400.0;
    bool on() const { return weight > 0; }
  };
  void set_fair_share(FairShare f);
  const FairShare& fair_share() const { return fair_; }
  double priority(std::size_t job, double now) const;
  double user_usage(long user) const;  // decayed node-seconds at the last pass
  // Why a waiting job may not start now ("" : it may): BeginTime (a site's period rule),
  // QOSMaxJobsPerUserLimit or QOSMaxNodePerUserLimit (its user's limits).
  std::string held_reason(std::size_t job, double now) const;
  long starts_narrowed() const { return narrowed_count_; }
  // Outages (outages.hpp): the nodes an outage holds leave the idle pool as they become
  // idle (a drain; the lowest-numbered idle nodes stay for jobs) and come back at its end;
  // no job starts or grows onto them. apply_outages(now) brings the pool to the outages at
  // now: every pass, grant and release calls it, and the simulation at each outage's cuts.
  void set_outages(std::vector<Outage> o);
  const std::vector<Outage>& outages() const { return outages_; }
  void apply_outages(double now);
  int down_count() const { return static_cast<int>(down_.size()); }

  const Workload& workload() const { return w_; }
  int total() const { return w_.nodes; }
  int idle_count() const { return static_cast<int>(idle_.size()); }
  const std::string& node_name(int n) const { return names_[n]; }
  // A site's prime-time rule (periods.hpp): a waiting job the rule does not let start now
  // is passed over by the backfilling (neither started nor the head), and listed to the
  // policy as pending for another reason than nodes. bump() marks the change of period.
  void set_periods(PeriodPolicy p) { periods_ = std::move(p); }
  const PeriodPolicy& periods() const { return periods_; }
  bool eligible(std::size_t job, double now) const;
  // The oldest waiting job the rule lets start now (EASY's head; queue().size(): none).
  std::size_t head(double now) const;
  void bump() { ++version_; }
  // A malleable job's range top at the start (its max_nodes or its size; set_range_top_max).
  int range_top(std::size_t job) const;
  // Bumped by every change of the queue, an allocation or the idle nodes.
  std::uint64_t version() const { return version_; }

  void submit(std::size_t job, double now);
  // EASY (or conservative) backfilling over the queue; the started jobs get their nodes (lowest-numbered idle
  // first) and leave the queue. Returns them in start order.
  std::vector<std::size_t> schedule(double now);
  // The running job's estimated end (the scheduler's shadow time uses it); a job with a
  // time limit keeps start + limit, as Slurm does.
  void set_estimated_end(std::size_t job, double end);
  // A running job's time limit extended by `by_s` (the limit follows a give-back): its
  // estimated end, which the backfilling plans with, moves as much.
  void extend_limit(std::size_t job, double by_s);

  const std::vector<std::size_t>& queue() const { return queue_; }
  const std::vector<int>& held(std::size_t job) const { return state_[job].held; }  // join order
  const std::vector<int>& idle_nodes_sorted() const;  // snapshot helper, ascending
  bool running(std::size_t job) const { return state_[job].running; }
  double estimated_end(std::size_t job) const { return state_[job].estimated_end; }

  // Malleability: take up to `count` idle nodes for a job (returned in the order they
  // join), and give nodes of a job back to the idle pool. Both keep node-second accounts.
  std::vector<int> grant(std::size_t job, int count, double now);
  // The named nodes that are still idle (a claim of the arbiter).
  std::vector<int> grant_nodes(std::size_t job, const std::vector<int>& nodes, double now);
  void release(std::size_t job, const std::vector<int>& nodes, double now);
  // A resize of `seconds` ended at `now` (counted in the record).
  void resized(std::size_t job, double seconds);
  void finish(std::size_t job, double now);
  // The job ended at its time limit, its work lost (counted in its record).
  void killed(std::size_t job) { state_.at(job).record.killed = true; }
  void past_limit(std::size_t job) { state_.at(job).record.past_limit = true; }

  const JobRecord& record(std::size_t job) const { return state_[job].record; }
  std::vector<JobRecord> records() const;  // every job; throws Error if one has not ended

 private:
  struct State {
    std::vector<int> held;
    bool queued = false, running = false, done = false;
    double estimated_end = 0;
    double since = 0;  // node-seconds accounted up to here
    JobRecord record;
  };
  void account(State& s, double now);
  Workload w_;
  std::vector<std::string> names_;
  std::set<int> idle_;
  std::set<int> down_;  // taken from the idle pool by an outage
  std::vector<Outage> outages_;
  mutable std::vector<int> idle_sorted_;
  mutable std::uint64_t idle_sorted_version_ = ~std::uint64_t{0};
  std::vector<std::size_t> queue_;
  std::vector<State> state_;
  std::uint64_t version_ = 0;
  bool ranges_ = false;
  bool top_max_ = false;
  bool conservative_ = false;
  Resolution resolution_;
  std::vector<int> start_floor_;
  struct UserUse {
    int jobs = 0, nodes = 0;
  };
  FairShare fair_;
  std::unordered_map<long, double> usage_;  // per user: decayed node-seconds
  double usage_at_ = 0, usage_total_ = 0;
  int users_ = 1;
  void order_by_priority(double now);
  void accrue(double now);  // usage decayed and the running jobs' node-seconds added up to now
  UserLimits user_limits_;
  std::unordered_map<long, UserUse> use_;  // per user: running jobs and the nodes they hold
  std::vector<bool> user_held_;
  long user_held_count_ = 0;
  void note_user_held(std::size_t job);
  std::vector<bool> narrowed_;             // per job: a start already narrowed
  std::vector<std::size_t> narrowed_now_;  // first narrowed at the last pass
  long narrowed_count_ = 0;
  bool limits_ = false;
  bool follows_ = false;
  bool start_guard_ = true;
  PeriodPolicy periods_;
  double estimate(std::size_t job) const;
  double limit_overhead_s_ = 0;
  double top_efficiency_ = 0;
  std::vector<int> efficient_top_;
  void floors();
  void count_narrowed(const std::vector<Waiting>& waiting, const std::vector<std::size_t>& at, const EasyResult& r,
                      const std::function<EasyResult(const std::vector<Waiting>&)>& backfill);
};

}  // namespace clustersim
