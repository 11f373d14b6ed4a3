// SPDX-License-Identifier: BSD-3-Clause
// Many malleable jobs under one Slurm: the arbitration between them, pure.
//
// Every job's world rank 0 decides at its remap points from two shared pieces of plain
// data, both files in one directory every job can reach (a shared file system; no daemon
// of ours), read and written under flock by the shell (slurm_ledger.cpp):
//   - the cluster view: one `squeue` (all jobs) and one `sinfo` (idle nodes), taken by
//     whichever job first finds the cached view older than the interval, read by the
//     others (slurmctld sees two queries per interval per cluster, not per job);
//   - the ledger: short-lived entries the jobs write about what they are doing
//       Bid     job J wants `count` more nodes; its predicted saving `score` (seconds
//               per node) orders the bids: growth goes to the best payoff
//       Claim   job J is acquiring exactly `nodes` (idle ones): nobody else asks for them
//       Offer   job J could give `count` nodes toward waiting job `for_job`
//       Promise job J gives (gave) `nodes` back for waiting job `for_job`: counted as
//               given by everyone (no over-shrink), taken by nobody, and J does not grow
//               while `for_job` waits (no oscillation)
//     every entry expires (`expires`, wall-clock seconds): the entries of a job that died
//     vanish on their own; a Claim also ends when a view taken after it shows none of its
//     nodes idle, a Promise or Offer when its waiting job no longer waits.
// arbitrate() takes the view, the ledger and this job's state and returns the plan, the
// ledger to write back and one machine-readable log line with the rule and its reason.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "malleable/cluster/slurm.hpp"
#include "malleable/cluster/qos.hpp"

namespace cluster::slurm {

// ---- the cluster view (one query per cluster per interval) ---------------------------

// The whole cluster at one moment: every job Slurm lists (running and pending, in submit
// order) and the idle nodes.
struct ClusterView {
  double taken_at = 0;            // wall-clock seconds (epoch) when Slurm was asked
  std::vector<Job> jobs;          // squeue -h --sort=V -o kSqueueFormat (submit order)
  std::vector<std::string> idle;  // idle_nodes(): sinfo -h -o '%P %t %s %N', state exactly idle
  std::vector<Partition> partitions = {};  // parse_partitions() of the same; empty: unknown
  // The QOS node limits (parse_qos of kQosCommand; the arbiter daemon asks sacctmgr, the
  // shared directory does not); empty: no limit known. A growth is capped at its job's
  // (qos_cap: the jobs' %q and %U sum what a user and a QOS hold).
  std::map<std::string, QosLimits> qos = {};
  // Jobs squeue listed whose record cannot be read (read_squeue: a job listed twice, a
  // field that is not what Slurm writes there), with the reason: no snapshot of theirs,
  // no owner, no part in anyone's decision.
  std::map<std::string, std::string> unreadable = {};
  // Job ids of expander jobs (expander.hpp) as the record of whoever submitted them says
  // (sbatch's answers: a job agent's own book; the arbiter daemon's record of what each
  // job's owner reported), never as a name says (a name is any user's to choose): no
  // waiting job in any snapshot. Not in the view's file (format_view).
  std::set<std::string> expanders = {};
};
// The commands that make a view, and the view from their outputs (throws Error when the
// outputs are not what the commands print at all; a job whose record cannot be read is
// one of the view's `unreadable`). A job's hostlists are bounded by the cluster's node
// count (sinfo's partitions). A pending job with a node range waits for the minimum its
// comment names ("min_nodes=K", sbatch --comment; read_squeue), else for Slurm's estimate.
inline const Argv kViewJobsCommand = {"squeue", "-h", "--sort=V", "-o", kSqueueFormat};
inline const Argv kViewIdleCommand = kIdleCommand;
ClusterView make_view(double taken_at, const std::string& squeue_out, const std::string& sinfo_out);
// The cache file's text and back (throws Error naming what is malformed): lines "taken T",
// "idle LIST", "partition NAME MAX NODES", "qos NAME PER_JOB PER_USER GROUP", "job ID STATE
// NODES NODELIST PRIO SUBMIT START LEFT UID PLAN PARTITION QOS REASON NAME" and
// "unreadable ID WHY", fields separated by one blank, each percent-encoded (every byte but
// letters, digits and ._,:()[]/+=@*- as %XX; '-' alone: empty): a job's name is one field
// whatever it holds.
std::string format_view(const ClusterView& v);
ClusterView parse_view(const std::string& text);
// Job `id`'s Snapshot from a view: its allocation, the idle nodes, the partitions, the
// jobs that wait (in Slurm's order, sort_slurm_order; only those whose partition shares a
// node with this job's; the view's expander jobs (ClusterView::expanders: by their ids,
// never by a name) and jobs pending for another reason than nodes, e.g. Dependency, BeginTime, JobHeldUser,
// are not waiting jobs: only reasons Resources, Priority, None or none listed).
// Throws Error if the view does not list the job, or lists it unreadable (the reason).
Snapshot snapshot_of(const ClusterView& v, const std::string& id);
// Is a view taken at `taken_at` too old at `now` for a job asking every `interval_s`?
bool view_stale(double taken_at, double now, double interval_s);
// The interval to the next query of job `job_id`: base * (1 + jitter * u), u in [-1, 1)
// drawn from (job id, round): jobs started together spread out.
double jittered_interval(double base_s, double jitter, const std::string& job_id, std::uint64_t round);

// ---- the ledger ------------------------------------------------------------------------

struct LedgerEntry {
  enum class Kind { Bid, Claim, Offer, Promise } kind = Kind::Bid;
  std::string job;                 // who wrote it
  std::string for_job;             // Offer, Promise: the waiting job
  std::vector<std::string> nodes;  // Claim: the nodes being acquired; Promise: given back
  int count = 0;                   // Bid: nodes wanted; Offer: nodes it could give
  double score = 0;                // Bid: predicted saving, seconds per node
  double since = 0;                // wall-clock seconds it was first written
  double expires = 0;              // wall-clock seconds; dropped after
  bool operator==(const LedgerEntry&) const = default;
};
struct Ledger {
  std::vector<LedgerEntry> entries;
};
std::string to_string(LedgerEntry::Kind k);  // "bid" "claim" "offer" "promise"
// One entry a line: "KIND JOB FOR COUNT SCORE SINCE EXPIRES NODES" ("-" for empty).
std::string format_ledger(const Ledger& l);
Ledger parse_ledger(const std::string& text);  // throws Error naming a bad line

// ---- arbitration ------------------------------------------------------------------------

// This job, as the arbiter needs it.
struct JobState {
  std::string id;
  std::vector<std::string> rank_hosts;  // node of every rank now (rank 0's first)
  int per_node = 1;                     // processes per node it grows onto
  int min_nodes = 1, max_nodes = 0;     // max 0: no limit
};

struct ArbiterOptions {
  double bid_window_s = 4;    // a bid stands this long before it may win (others bid meanwhile)
  double bid_ttl_s = 20;      // a bid not renewed for this long is dropped
  double claim_ttl_s = 60;    // a claim whose acquisition never ended (job died) is dropped
  double offer_ttl_s = 20;
  double promise_ttl_s = 900; // a promise whose waiting job never started is dropped
  bool expansion = true;      // Slurm permits job expansion; else growth is by restart
  // Growth adds only nodes whose parallel efficiency (predicted speed-up over the added
  // share of nodes) reaches this; 0: any growth that pays
  double min_growth_efficiency = 0.5;
  // A give-back for a waiting job happens only if the giver's predicted loss (its rest of
  // run on fewer nodes, plus the shrink) is at most this share of its rest of run on the
  // nodes it has (the most the waiting job can gain from these nodes); 0: always give
  double give_gain_share = 0.5;
  // A bid's saving is at most what its job can save: the time Slurm leaves it to run
  // (squeue %L), or this when that is unlimited or unknown (a week).
  double max_saving_s = 7 * 86400;
};

struct Arbitration {
  Plan plan;           // None, GiveBack (nodes), UseHeld (nodes), Acquire (nodes named)
  bool by_restart = false;  // Acquire without job expansion: a new, larger allocation
  std::string rule;    // what decided: see arbitrate()
  std::string for_job; // the waiting job a give-back or offer is for
  Ledger ledger;       // to write back: expired entries dropped, this job's updated
};

// Rules, in order (the rule name in the log):
//   "promised"    a Promise of this job is for a job still waiting: stay, do not grow
//   "give-back"   the oldest waiting job not covered by idle nodes and others' promises:
//                 this job gives the rest (nodes running nothing first, then the latest
//                 joined, never rank 0's, not below min_nodes) and writes a Promise
//   "give-share"  it cannot alone: Offers of the jobs that could, summed, cover it; this
//                 job gives its share (offers taken in job id order)
//   "offer"       it cannot alone and the offers do not cover it yet: write an Offer, stay
//   "cannot-give" nothing to offer (at min_nodes, or only rank 0's node)
//   "waiting"     jobs wait (covered by others): do not grow
//   "use-held"    nodes of the allocation run nothing: grow onto them, also while jobs
//                 wait when this job gives nothing now ("offer", "cannot-give",
//                 "waiting": the why names that rule); they stay on offer, and a job
//                 started on one process of its allocation can give them later
//   "no-idle"     no idle node unclaimed and unpromised, or at max_nodes
//   "qos-limit"   the job's QOS leaves no room (the view's QOS table, qos_cap: its
//                 MaxTRESPerJob, MaxTRESPerUser over the user's running jobs of the QOS,
//                 GrpTRES over all of them; nodes others claim count as held); a QOS
//                 that leaves some room caps the growth and the reason says so
//   "no-payoff"   growing does not pay (the bid is withdrawn)
//   "bid"         growing pays; the bid stands for less than bid_window_s: stay
//   "outbid"      another job's bid is better (higher score; tie: lower job id) and the
//                 free nodes go to it first. A bid's score is its saving per node, the
//                 saving bounded by its job's time left (max_saving_s when unlimited);
//                 while jobs of two or more users (the view's uids) bid, each user's jobs
//                 together get at most their fair share of the free nodes (the free
//                 nodes over the users bidding, rounded up), best bids first
//   "acquire"     this job's bid wins: Claim the named nodes, Acquire them
Arbitration arbitrate(const ClusterView& v, const Ledger& l, const JobState& me, const GrowthModel& growth,
                      double now, const ArbiterOptions& a);

// After an acquisition ended (granted or refused): this job's Claim and Bid removed; with
// promises_too also its Promises (a give-back that failed: the nodes stay with the job).
Ledger settle(const Ledger& l, const std::string& job, bool promises_too = false);

// One JSON object, one line: {"t":..,"job":..,"rule":..,"plan":..,"nodes":[..],
// "for":..,"by_restart":..,"why":..}.
std::string decision_json(const Arbitration& a, const std::string& job, double now);


// ---- the shared directory (slurm_shared.cpp: files and flock) ----------------------------

// DIR/view (the cached cluster view), DIR/ledger, DIR/log/<job>.jsonl (the decisions),
// DIR/queries.log (one line per query of Slurm: time and job), each written whole under
// flock of DIR/<file>.lock and renamed into place.
//
// Who may write them (nothing is ever world-writable, whatever the umask):
//   PerUser  the user's own directory ($HOME/.malleable/slurm/<cluster>): DIR and DIR/log
//            0700, every file 0600; files and directories of this user found there with
//            wider modes (an older version wrote 0666) are narrowed
//   Group    a common directory (RESIZE_SLURM_SHARED) for the users of one Unix group:
//            created 02770 (setgid: new files take the directory's group) when missing, an
//            existing one left as its owner set it; files 0660 in the directory's group.
//            Any member of the group can write any job's entries: this mode trusts the
//            group (an arbiter daemon, RESIZE_ARBITER, trusts nobody)
enum class SharedAccess { PerUser, Group };
const char* to_string(SharedAccess a);  // "per-user" "shared-group"
class SharedDir {
 public:
  // Creates it (and DIR/log) with the modes above; throws Error.
  explicit SharedDir(std::string dir, SharedAccess access = SharedAccess::PerUser);
  SharedAccess access() const { return access_; }
  const std::string& dir() const { return dir_; }
  // The cached view if it is younger than max_age_s at `now`; else, under the lock, read
  // again (another job may just have queried) and if still stale ask Slurm through `run`
  // (the two view commands) and write the view. `queried`: this call asked Slurm.
  ClusterView view(const Runner& run, double now, double max_age_s, const std::string& job, bool& queried);
  // The ledger read, changed by f and written back, under the ledger's lock. f is first
  // called on the ledger read without the lock; if it changes nothing, that is all (f's
  // last call is the one that counts).
  void update(const std::function<Ledger(const Ledger&)>& f);
  void log(const std::string& job, const std::string& line);  // appends a line

 private:
  std::string dir_;
  SharedAccess access_;
  unsigned file_mode_;  // 0600 or 0660
  long gid_ = -1;  // Group: the directory's group, given to files it creates
};

}  // namespace cluster::slurm
