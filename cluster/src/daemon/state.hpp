// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's state, pure: the cluster view it took, who owns which job, the
// ledger, the recent decisions; a request handled against them (arbitrate() of
// slurm_arbiter.hpp, the same rules as the per-job shared directory), and the journal that
// carries the ledger and the decisions across a restart (the shell writes it to a temp
// file, fsyncs and renames it before it replies, so that a reply the client saw is never
// lost to a kill -9, and a claim is never written twice: the ledger holds one entry per
// job and kind, replaced, not appended).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "arbiter/protocol.hpp"
#include "daemon/start_limit.hpp"
#include "malleable/cluster/time_limit.hpp"

namespace cluster::arbiter {

struct StateOptions {
  slurm::ArbiterOptions arbiter;  // the rules' windows and lifetimes (a request may lengthen a bid's, up to max_bid_ttl_s)
  double interval_s = 2;          // the view is taken again when older than this
  double max_bid_ttl_s = 3600;
  std::uint32_t slurm_user = 0;   // SlurmUser's uid: may ask about any job, as root may
  // Operators (--operators): their status shows every job, as root's and SlurmUser's do;
  // everyone else's shows its own jobs only. They may not ask about others' jobs.
  std::set<std::uint32_t> operators = {};
  // Decisions kept for status and the journal, per uid: a decision about a job under its
  // owner's uid (the asking uid when the view names no owner), a refusal under the uid
  // refused. One user's requests never push another's records out.
  std::size_t recent = 200;
  // sacctmgr's QOS table (kQosCommand, slurmdbd) is asked with a view when the last ask is
  // at least this old (and with the first view): at most once per max(qos_interval_s,
  // interval_s). 0: never asked (no QOS limit applied).
  double qos_interval_s = 60;
  // --extend-limits (docs/guide/arbiter.md, "Time limits that follow the size"): a job of
  // the recipe (one that asks the arbiter about itself) that gives nodes back by the
  // arbiter's decision has its TimeLimit raised in Slurm (`scontrol update`, the daemon's
  // user a Slurm operator) by the simulator's rule (limits::raise_for_give_back), and its
  // give-backs are judged against that capped limit; one that Slurm started below the top of
  // its node range has its TimeLimit raised once for that start by the simulator's rule at a
  // start below the request (limits::raise_at_start, start_limit.hpp). Off: limits are
  // never touched and a give-back that would overrun the limit is refused, as before.
  bool extend_limits = false;
};

// A TimeLimit raise the daemon is to make in Slurm (ArbiterState::take_limit_updates): the
// command (an argument vector) and what the journal line says of it.
struct LimitUpdate {
  std::string job;
  slurm::Argv argv;  // scontrol update JobId=J TimeLimit=M
  long old_min = 0, new_min = 0;
  bool capped = false;
  std::string why;
  std::string at = "give-back";  // or "start-below-range" (start_limit.hpp)
};

class ArbiterState {
 public:
  explicit ArbiterState(StateOptions o);
  bool view_stale(double now) const;
  double view_taken_at() const { return view_.taken_at; }
  bool has_view() const { return have_view_; }
  void set_view(slurm::ClusterView v, std::map<std::string, std::uint32_t> owners);  // keeps the QOS table
  // Is sacctmgr to be asked with a view taken at `now` (StateOptions::qos_interval_s)?
  bool qos_due(double now) const;
  // sacctmgr's answer to kQosCommand, asked at `asked_at`: the view's QOS table, or, when
  // it failed or cannot be read, the last table read stays (none: no limit known, growth
  // not held back by a QOS). Returns a line for the log when that changes (the first
  // answer, the first failure, answered again), else empty: a cluster without slurmdbd
  // logs one line, not one per ask.
  std::string set_qos(const slurm::Command& answer, double asked_at);
  // A request of `uid` (authenticated by the shell). `changed`: the ledger or the recent
  // decisions changed (the journal is to be written before the reply goes out); not for a
  // refusal (kept with the decisions, written with the next change).
  Reply handle(const Request& r, std::uint32_t uid, double now, bool& changed);
  // A refusal the shell decided (a bad frame, a bad credential): kept with the decisions.
  void note_refusal(std::uint32_t uid, const std::string& why, double now);
  // What the shell did to connections since the daemon started (not journalled), shown by
  // status: closed at accept over --max-connections-per-uid (per uid, or per address for
  // TCP) and over --max-connections (every connection authenticated); unauthenticated ones
  // closed to make room (Admission) or past the first-frame deadline; requests refused
  // over the per-uid cap of authenticated ones.
  struct Connections {
    std::size_t over_client_cap = 0, over_total_cap = 0, evicted = 0, first_frame_late = 0, over_uid_cap = 0;
  };
  void set_connections(const Connections& c) { conns_ = c; }
  // --extend-limits: the raises due (give-backs of the arbiter's decisions that the view
  // shows done), each once; the shell runs them and reports each one's answer.
  std::vector<LimitUpdate> take_limit_updates();
  // The answers: one journal line per raise (job, old and new limit, why, capped or not)
  // with the decisions; a refusal logged once (returned) and said in the status. `changed`:
  // the journal is to be written.
  std::vector<std::string> limit_updates_done(const std::vector<std::pair<LimitUpdate, slurm::Command>>& done, double now,
                                              bool& changed);
  // --extend-limits at a start (start_limit.hpp): the jobs whose start is to be read (at
  // most kStartReadsPerView a view), each marked as being read; the shell runs the
  // commands and hands the answers back to start_reads_done: a raise due (made with the
  // next view and journalled by limit_updates_done, "at": "start-below-range"), a read
  // again later (sacct not there yet, at most kStartTries views), or nothing (a line
  // "limit-start-kept" with the decisions, saying why); a refusal returned as a line for
  // the log and kept with the decisions ("limit-start-refused"). A start is judged once:
  // its check is journalled (done once Slurm answered its raise), and a raise is never
  // made twice (the record's TimeLimit above the book's: raised already).
  std::vector<std::string> take_start_reads();
  std::vector<std::string> start_reads_done(const std::vector<StartRead>& reads, double now, bool& changed);
  static constexpr std::size_t kStartReadsPerView = 8;
  // At most this many jobs are followed for their limits (one entry per job of the recipe
  // in the view; a job that leaves the view is forgotten).
  static constexpr std::size_t kMaxLimitJobs = 65536;
  std::string journal() const;
  void restore(const std::string& journal_text);  // throws Error naming what is malformed
  // What `viewer` may see, at most max_bytes: root, SlurmUser and the operators everything;
  // any other uid its own jobs (Slurm's owner in the view), their ledger entries and
  // decisions, its own refusals, and what is no user's (idle nodes, QOS limits, counts).
  // The oldest recent decisions are left out to fit ("recent_left_out": how many); a
  // state too large even without them says so instead ("error").
  std::string status_json(double now, std::uint32_t viewer, std::size_t max_bytes = kMaxStatus) const;
  bool sees_all(std::uint32_t uid) const;
  const slurm::Ledger& ledger() const { return ledger_; }
  const slurm::ClusterView& view() const { return view_; }
  // Every uid's recent decisions, oldest first (the order they were made in).
  std::deque<std::string> recent() const;
  // The recent decisions kept under `uid` (its jobs' and its refusals), oldest first.
  std::deque<std::string> recent_of(std::uint32_t uid) const;
  // At most this many uids have decisions kept; past it, the uid whose newest decision is
  // the oldest loses its list (a uid is MUNGE's, not chosen by a request).
  static constexpr std::size_t kMaxRecentUids = 4096;
  // The key of a refusal whose uid munged did not say.
  static constexpr std::uint32_t kUnknownUid = 0xffffffffu;

 private:
  StateOptions opt_;
  slurm::ClusterView view_;
  bool have_view_ = false;
  std::map<std::string, std::uint32_t> owners_;
  slurm::Ledger ledger_;
  // The recent decisions per uid (state.hpp, StateOptions::recent), each a JSON object a
  // line with its place in the order they were made in.
  struct Noted {
    std::uint64_t seq = 0;
    std::string line;
  };
  std::map<std::uint32_t, std::deque<Noted>> recent_;
  std::uint64_t seq_ = 0;
  std::vector<const Noted*> recent_in_order() const;
  Connections conns_;
  double qos_asked_at_ = 0, qos_known_at_ = 0;  // 0: never
  bool qos_asked_ = false;
  std::string qos_error_;  // the last ask's failure (empty: it answered)
  // Jobs whose claim expired unused (neither settled nor fulfilled: its nodes still idle):
  // no new claim before the time given (a claim's lifetime after the expiry).
  std::map<std::string, double> barred_;
  // The expander jobs each job reported in its last arbitrate request (Request::expanders),
  // for jobs in the view; an id counts (ClusterView::expanders: no waiting job) only while
  // the view names the same owner for it as for the job that reported it, so a user can
  // take only its own jobs off the waiting lists.
  std::map<std::string, std::vector<std::string>> expander_reports_;
  // --extend-limits: per job of the recipe, Slurm's record at its first request (the
  // limit as submitted, its nodes), the give-back decided and not yet seen done, and the
  // nodes after the last one raised for (a give-back is raised for once).
  struct LimitJob {
    limits::LimitBook book;
    struct Pending {
      int nodes_after = 0;
      double t_from = -1, t_to = -1, cost_s = 0;
      int from_ranks = 0, to_ranks = 0;
      double decided_at = 0;
    };
    std::optional<Pending> pending;
    int raised_to = 0;  // nodes after the last give-back raised for (0: none)
    // Its start (start_limit.hpp): to read, being read, its raise due or made and not yet
    // answered, judged (journalled as judged only then); how many reads came back early;
    // the last request's model and the nodes its ranks ran on, until it is judged.
    enum class Start { ToRead, Reading, Raising, Done } start = Start::ToRead;
    int start_tries = 0;
    std::map<int, slurm::Growth> growth;
    int rank_nodes = 0;
    // Raised by the daemon (either raise, Slurm said yes): its expanders then follow its end,
    // each to the minutes queued for it last (raise_expanders).
    bool raised = false;
    std::map<std::string, long> expanders_to;
  };
  std::map<std::string, LimitJob> limit_jobs_;
  std::vector<LimitUpdate> limit_due_;
  std::size_t limits_raised_ = 0, limits_failed_ = 0;
  std::string limits_refused_;  // Slurm's last refusal (empty: the last raise was made, or none tried)
  bool limits_refusal_said_ = false;
  void follow_limit(const slurm::Snapshot& s, const Request& r);
  std::optional<std::string> start_read_done(const StartRead& read, double now);
  void note_give_back(const Request& r, const slurm::Snapshot& s, const slurm::Arbitration& a, double now);
  void limits_from_view();
  void raise_expanders(const std::string& id, LimitJob& j, const std::map<std::string, const slurm::Job*>& listed);
  void mark_expanders();
  void bar_expired_claims(double now);
  void remember(std::uint32_t uid, std::string line);
  std::uint32_t key_of(const std::string& job, std::uint32_t asking) const;  // the owner, else the asking uid
  std::string owned(const std::string& line, const std::string& job) const;
  Reply arbitrate_for(const Request& r, std::uint32_t uid, double now);
};

}  // namespace cluster::arbiter
