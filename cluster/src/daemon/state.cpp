// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's state and request handling, pure (state.hpp).
#include "daemon/state.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace cluster::arbiter {

using json = nlohmann::json;

namespace {
// A ledger entry in the journal and the status, times at full precision (the shared
// directory's text keeps 15 digits: a restart must give back the same entry).
json entry_json(const slurm::LedgerEntry& e) {
  return {{"kind", slurm::to_string(e.kind)}, {"job", e.job},     {"for", e.for_job},   {"nodes", e.nodes},
          {"count", e.count},                 {"score", e.score}, {"since", e.since},   {"expires", e.expires}};
}
slurm::LedgerEntry entry_from_json(const json& j) {
  slurm::LedgerEntry e;
  try {
    const std::string kind = j.at("kind").get<std::string>();
    bool known = false;
    for (auto k : {slurm::LedgerEntry::Kind::Bid, slurm::LedgerEntry::Kind::Claim, slurm::LedgerEntry::Kind::Offer,
                   slurm::LedgerEntry::Kind::Promise})
      if (kind == slurm::to_string(k)) e.kind = k, known = true;
    if (!known) throw Error("the journal's ledger holds an entry of unknown kind '" + kind + "'");
    e.job = j.at("job").get<std::string>();
    e.for_job = j.at("for").get<std::string>();
    e.nodes = j.at("nodes").get<std::vector<std::string>>();
    e.count = j.at("count").get<int>();
    e.score = j.at("score").get<double>();
    e.since = j.at("since").get<double>();
    e.expires = j.at("expires").get<double>();
  } catch (const json::exception& x) {
    throw Error(std::string("the journal's ledger holds a malformed entry: ") + x.what());
  }
  return e;
}

// The recent decisions `viewer` sees: all of them (a line that is not JSON as a string),
// or, for a user, its own: decisions about its jobs (their owner recorded with them), its
// refusals.
template <class Lines>
std::vector<json> recent_seen(const Lines& lines, bool all, std::uint32_t viewer) {
  std::vector<json> recent;
  for (const auto* n : lines) {
    const std::string& l = n->line;
    json d = json::parse(l, nullptr, false);
    const bool own = !d.is_discarded() && d.is_object() &&
                     ((d.contains("owner") && d["owner"] == viewer) || (d.contains("refused") && d.contains("uid") && d["uid"] == viewer));
    if (all) recent.push_back(d.is_discarded() ? json(l) : d);
    else if (own) recent.push_back(d);
  }
  return recent;
}

// The status `j` with the newest of the `recent` decisions that fit in max_bytes (binary
// search; the size grows with their number); `head`, with an error, when none fit.
std::string fit_recent(const json& j, json head, const std::vector<json>& recent, std::size_t max_bytes) {
  const auto dump = [](const json& x) { return x.dump(-1, ' ', false, json::error_handler_t::replace); };
  // The newest `keep` decisions.
  const auto with = [&](std::size_t keep) {
    json k = j;
    k["recent"] = json::array();
    for (std::size_t i = recent.size() - keep; i < recent.size(); ++i) k["recent"].push_back(recent[i]);
    if (keep < recent.size()) k["recent_left_out"] = recent.size() - keep;
    return dump(k);
  };
  std::string out = with(recent.size());
  if (out.size() <= max_bytes) return out;
  std::size_t lo = 0, hi = recent.size();  // with(lo) may fit, with(hi) does not
  if (with(0).size() > max_bytes) {
    head["error"] = "the state (" + std::to_string(out.size()) + " bytes) does not fit a reply of " +
                    std::to_string(max_bytes) + " bytes even without its recent decisions";
    return dump(head);
  }
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (with(mid).size() <= max_bytes ? lo : hi) = mid;
  }
  return with(lo);
}
}  // namespace

ArbiterState::ArbiterState(StateOptions o) : opt_(std::move(o)) {}

bool ArbiterState::view_stale(double now) const {
  return !have_view_ || slurm::view_stale(view_.taken_at, now, opt_.interval_s);
}

void ArbiterState::set_view(slurm::ClusterView v, std::map<std::string, std::uint32_t> owners) {
  v.qos = std::move(view_.qos);  // asked less often than the view (set_qos)
  view_ = std::move(v);
  owners_ = std::move(owners);
  have_view_ = true;
  std::erase_if(expander_reports_, [&](const auto& r) { return owners_.count(r.first) == 0; });
  mark_expanders();
  limits_from_view();
}

void ArbiterState::mark_expanders() {
  view_.expanders.clear();
  for (const auto& [job, ids] : expander_reports_) {
    const auto owner = owners_.find(job);
    if (owner == owners_.end()) continue;
    for (const auto& id : ids)
      if (const auto o = owners_.find(id); o != owners_.end() && o->second == owner->second) view_.expanders.insert(id);
  }
}

bool ArbiterState::qos_due(double now) const {
  return opt_.qos_interval_s > 0 && (!qos_asked_ || now - qos_asked_at_ >= opt_.qos_interval_s || now < qos_asked_at_);
}

std::string ArbiterState::set_qos(const slurm::Command& answer, double asked_at) {
  const bool first = !qos_asked_, failed_before = !qos_error_.empty();
  qos_asked_ = true;
  qos_asked_at_ = asked_at;
  std::string why;
  std::map<std::string, slurm::QosLimits> table;
  if (answer.status != 0) {
    std::string said = answer.said().substr(0, 300);
    std::replace(said.begin(), said.end(), '\n', ' ');  // one log line (sacctmgr prints several)
    why = "sacctmgr failed (status " + std::to_string(answer.status) + "): " + said;
  } else {
    try {
      table = slurm::parse_qos(answer.out);
    } catch (const Error& e) {
      why = std::string("sacctmgr's answer cannot be read: ") + e.what();
    }
  }
  if (!why.empty()) {
    qos_error_ = why;
    if (failed_before) return "";
    const bool kept = qos_known_at_ > 0;
    return "QOS limits " + std::string(kept ? "not read again" : "unknown") + ": " + why + "; " +
           (kept ? "the table read before stays applied" : "no QOS limit is applied") + "; asked again every " +
           std::to_string(static_cast<long>(opt_.qos_interval_s)) + " s, logged again when it answers";
  }
  qos_error_.clear();
  qos_known_at_ = asked_at;
  const bool changed = table != view_.qos;
  view_.qos = std::move(table);
  if (!first && !failed_before && !changed) return "";
  std::string names;
  for (const auto& [name, q] : view_.qos)
    if (q.per_job || q.per_user || q.group) names += (names.empty() ? "" : ", ") + name;
  return std::string(failed_before ? "sacctmgr answers again: " : "") + "QOS limits: " +
         std::to_string(view_.qos.size()) + " QOS, node limits in " + (names.empty() ? std::string("none") : names);
}

// A decision kept under `uid`, within that uid's bound; a uid new past kMaxRecentUids
// takes the place of the uid whose newest decision is the oldest.
void ArbiterState::remember(std::uint32_t uid, std::string line) {
  auto it = recent_.find(uid);
  if (it == recent_.end()) {
    if (recent_.size() >= kMaxRecentUids) {
      auto stalest = recent_.begin();
      for (auto k = recent_.begin(); k != recent_.end(); ++k)
        if (k->second.empty() || (!stalest->second.empty() && k->second.back().seq < stalest->second.back().seq)) stalest = k;
      recent_.erase(stalest);
    }
    it = recent_.emplace(uid, std::deque<Noted>{}).first;
  }
  it->second.push_back(Noted{++seq_, std::move(line)});
  while (it->second.size() > opt_.recent) it->second.pop_front();
}

std::uint32_t ArbiterState::key_of(const std::string& job, std::uint32_t asking) const {
  const auto o = owners_.find(job);
  return o == owners_.end() ? asking : o->second;
}

std::vector<const ArbiterState::Noted*> ArbiterState::recent_in_order() const {
  std::vector<const Noted*> all;
  for (const auto& [uid, lines] : recent_)
    for (const Noted& n : lines) all.push_back(&n);
  std::sort(all.begin(), all.end(), [](const Noted* a, const Noted* b) { return a->seq < b->seq; });
  return all;
}

std::deque<std::string> ArbiterState::recent() const {
  std::deque<std::string> out;
  for (const Noted* n : recent_in_order()) out.push_back(n->line);
  return out;
}

std::deque<std::string> ArbiterState::recent_of(std::uint32_t uid) const {
  std::deque<std::string> out;
  if (const auto it = recent_.find(uid); it != recent_.end())
    for (const Noted& n : it->second) out.push_back(n.line);
  return out;
}

void ArbiterState::note_refusal(std::uint32_t uid, const std::string& why, double now) {
  remember(uid, json{{"t", now}, {"uid", uid}, {"refused", why}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

// A claim that expires with its nodes still idle in a view taken after it was neither
// used nor settled: its job holds nodes from the others and may not do so again at once.
void ArbiterState::bar_expired_claims(double now) {
  std::set<std::string> idle(view_.idle.begin(), view_.idle.end());
  for (const auto& e : ledger_.entries)
    if (e.kind == slurm::LedgerEntry::Kind::Claim && e.expires <= now && view_.taken_at > e.since &&
        std::any_of(e.nodes.begin(), e.nodes.end(), [&](const std::string& h) { return idle.count(h) > 0; }))
      barred_[e.job] = std::max(barred_[e.job], e.expires + opt_.arbiter.claim_ttl_s);
  std::erase_if(barred_, [&](const auto& b) { return b.second <= now; });
}

Reply ArbiterState::arbitrate_for(const Request& r, std::uint32_t uid, double now) {
  Reply out;
  bar_expired_claims(now);
  slurm::Snapshot s;
  try {
    s = slurm::snapshot_of(view_, r.job.id);
  } catch (const Error& e) {
    out.error = std::string("not in the arbiter's view yet, ask again later: ") + e.what();
    return out;
  }
  // Its expander jobs, as it reports them (the owner's own only: mark_expanders).
  if (r.expanders.empty()) expander_reports_.erase(r.job.id);
  else expander_reports_[r.job.id] = r.expanders;
  mark_expanders();
  slurm::ArbiterOptions a = opt_.arbiter;
  a.bid_ttl_s = std::min(std::max(a.bid_ttl_s, r.bid_ttl_s), opt_.max_bid_ttl_s);
  a.offer_ttl_s = std::max(a.offer_ttl_s, a.bid_ttl_s);
  // --extend-limits: the job's give-backs judged against its limit as the rule may raise it
  // (the cap for one node fewer, the least it allows), while Slurm takes the raises.
  double* left = nullptr;
  double left_was = 0;
  if (opt_.extend_limits) {
    follow_limit(s, r);
    const auto lj = limit_jobs_.find(r.job.id);
    if (lj != limit_jobs_.end() && limits_refused_.empty() && s.mine.time_left >= 0 && s.mine.node_list.size() > 1)
      for (auto& j : view_.jobs)
        if (j.id == r.job.id) {
          left = &j.time_left;
          left_was = j.time_left;
          const int fewer = static_cast<int>(s.mine.node_list.size()) - 1;
          j.time_left = std::max(j.time_left, limits::limit_cap(lj->second.book, fewer, 0) - now);
        }
  }
  slurm::Arbitration res = slurm::arbitrate(view_, ledger_, r.job, growth_model(r.growth), now, a);
  if (left) *left = left_was;
  if (opt_.extend_limits) note_give_back(r, s, res, now);
  // While Slurm's last refusal holds for the job, it neither bids nor claims; nor while its
  // last claim, left to expire unused, is barred.
  const auto barred = barred_.find(r.job.id);
  if (res.plan.kind == slurm::Plan::Kind::Acquire && (r.hold || barred != barred_.end())) {
    res.ledger = slurm::settle(res.ledger, r.job.id);
    res.plan = slurm::Plan{};
    res.rule = r.hold ? "backoff" : "claim-expired";
    res.plan.why = r.hold ? "the job does not ask Slurm for nodes now (its last request was refused)"
                          : "its last claim expired unused (neither acquired nor settled): no claim for " +
                                std::to_string(static_cast<long>(barred->second - now)) + " s more";
  }
  ledger_ = res.ledger;
  res.ledger = {};
  remember(key_of(r.job.id, uid), owned(slurm::decision_json(res, r.job.id, now), r.job.id));
  out.ok = true;
  out.arbitration = std::move(res);
  out.held = s.mine.node_list;
  out.idle = view_.idle;
  return out;
}

bool ArbiterState::sees_all(std::uint32_t uid) const {
  return uid == 0 || uid == opt_.slurm_user || opt_.operators.count(uid) > 0;
}

// A decision's line with its job's owner ("owner": the status shows a user the lines of
// its own jobs, also once they have left the view).
std::string ArbiterState::owned(const std::string& line, const std::string& job) const {
  json d = json::parse(line, nullptr, false);
  const auto o = owners_.find(job);
  if (d.is_discarded() || !d.is_object() || o == owners_.end()) return line;
  d["owner"] = o->second;
  return d.dump(-1, ' ', false, json::error_handler_t::replace);
}

Reply ArbiterState::handle(const Request& r, std::uint32_t uid, double now, bool& changed) {
  changed = false;
  Reply out;
  if (r.kind != Request::Kind::Status)
    if (const auto bad = view_.unreadable.find(r.job.id); bad != view_.unreadable.end()) {
      // Its owner cannot be known: nobody may act for it until squeue's record reads again.
      out.error = "refused: job " + r.job.id + ": its record in Slurm's view cannot be read (" + bad->second + ")";
      note_refusal(uid, to_string(r.kind) + " " + r.job.id + ": unreadable in the view", now);
      return out;
    }
  if (const std::string no = refusal(r, uid, owners_, opt_.slurm_user); !no.empty()) {
    out.error = "refused: " + no;
    note_refusal(uid, to_string(r.kind) + " " + r.job.id + ": " + no, now);
    // Kept with the decisions, but no journal write of its own: the ledger did not change,
    // and a write (fsync) per refusal let one user's flood of requests about others' jobs
    // hold the daemon ~14 ms each (the log has every refusal; the journal gets it with the
    // next change or the stop).
    return out;
  }
  switch (r.kind) {
    case Request::Kind::Status:
      out.ok = true;
      out.status_json = status_json(now, uid);
      return out;
    case Request::Kind::Settle:
      bar_expired_claims(now);  // a claim left to expire is not undone by a late settle
      ledger_ = slurm::settle(ledger_, r.job.id, r.promises_too);
      remember(key_of(r.job.id, uid),
               owned(json{{"t", now}, {"job", r.job.id}, {"rule", "settle"}, {"promises_too", r.promises_too}, {"uid", uid}}
                         .dump(),
                     r.job.id));
      changed = true;
      out.ok = true;
      return out;
    case Request::Kind::Arbitrate:
      out = arbitrate_for(r, uid, now);
      changed = out.ok;
      return out;
  }
  return out;
}

std::string ArbiterState::journal() const {
  json j{{"version", 1}, {"ledger", json::array()}, {"recent", json::array()}};
  for (const auto& e : ledger_.entries) j["ledger"].push_back(entry_json(e));
  for (const Noted* n : recent_in_order()) j["recent"].push_back(n->line);
  // --extend-limits: each followed job's book (the limit as submitted must survive a restart)
  if (!limit_jobs_.empty()) {
    j["limits"] = json::array();
    for (const auto& [id, l] : limit_jobs_)
      j["limits"].push_back({{"job", id},
                             {"start", l.book.start_s},
                             {"submitted", l.book.submitted_s},
                             {"start_nodes", l.book.start_nodes},
                             {"costs", l.book.costs_s},
                             {"raised_to", l.raised_to},
                             {"raised", l.raised},
                             {"start_done", l.start == LimitJob::Start::Done}});
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

void ArbiterState::restore(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error("the journal is not a JSON object");
  if (!j.contains("version") || j["version"] != 1) throw Error("the journal's version is not 1");
  if (!j.contains("ledger") || !j["ledger"].is_array()) throw Error("the journal has no ledger");
  if (!j.contains("recent") || !j["recent"].is_array()) throw Error("the journal has no list of recent decisions");
  slurm::Ledger l;
  for (const auto& e : j["ledger"]) l.entries.push_back(entry_from_json(e));
  for (const auto& e : j["recent"])
    if (!e.is_string()) throw Error("the journal's recent decisions hold a non-string");
  std::map<std::string, LimitJob> followed;
  if (j.contains("limits")) {
    if (!j["limits"].is_array() || j["limits"].size() > kMaxLimitJobs) throw Error("the journal's limits are not a list");
    try {
      for (const auto& e : j["limits"]) {
        LimitJob lj;
        lj.book = limits::LimitBook{e.at("start").get<double>(), e.at("submitted").get<double>(),
                                    e.at("start_nodes").get<int>(), e.at("costs").get<double>()};
        lj.raised_to = e.at("raised_to").get<int>();
        // judged (its start's raise answered), else read again: a raise made before the stop
        // shows in its record (its TimeLimit above the book's) and is not made twice
        if (e.contains("start_done") && e.at("start_done").get<bool>()) lj.start = LimitJob::Start::Done;
        lj.raised = e.contains("raised") && e.at("raised").get<bool>();
        followed[e.at("job").get<std::string>()] = lj;
      }
    } catch (const json::exception& x) {
      throw Error(std::string("the journal's limits hold a malformed entry: ") + x.what());
    }
  }
  limit_jobs_ = std::move(followed);
  ledger_ = std::move(l);
  // Each line back under its uid: a decision's job owner ("owner"), else the uid it names
  // ("uid": a refusal, a settle), else kUnknownUid; in the journal's order.
  recent_.clear();
  seq_ = 0;
  for (const auto& e : j["recent"]) {
    const std::string& line = e.get_ref<const std::string&>();
    const json d = json::parse(line, nullptr, false);
    std::uint32_t key = kUnknownUid;
    for (const char* k : {"uid", "owner"})  // "owner" wins
      if (d.is_object() && d.contains(k) && d[k].is_number_unsigned() && d[k].get<std::uint64_t>() <= 0xffffffffULL)
        key = static_cast<std::uint32_t>(d[k].get<std::uint64_t>());
    remember(key, line);
  }
}

namespace {
// --extend-limits in the status: the raises made and refused, and Slurm's last refusal.
json limits_status(bool extend, std::size_t followed, std::size_t raised, std::size_t refused,
                   const std::string& error) {
  return {{"extend", extend},
          {"followed", followed},
          {"raised", raised},
          {"refused", refused},
          {"error", error.empty() ? json(nullptr)
                                  : json(error + "; the daemon's user needs AdminLevel=Operator (sacctmgr): give-backs "
                                                 "are judged against the limits as they stand")}};
}
}  // namespace

std::string ArbiterState::status_json(double now, std::uint32_t viewer, std::size_t max_bytes) const {
  const bool all = sees_all(viewer);
  const auto mine = [&](const std::string& job) {
    const auto o = owners_.find(job);
    return all || (o != owners_.end() && o->second == viewer);
  };
  json j;
  j["now"] = now;
  j["scope"] = all ? "every job (root, SlurmUser or an operator)" : "the jobs of uid " + std::to_string(viewer);
  j["view_taken_at"] = have_view_ ? json(view_.taken_at) : json(nullptr);
  j["interval_s"] = opt_.interval_s;
  j["connections_refused_per_client_cap"] = conns_.over_client_cap;
  j["connections_refused_total_cap"] = conns_.over_total_cap;
  j["connections_closed_to_make_room"] = conns_.evicted;
  j["connections_past_first_frame_deadline"] = conns_.first_frame_late;
  j["requests_refused_per_uid_cap"] = conns_.over_uid_cap;
  // The QOS table applied to growth (sacctmgr), when it was asked and read, and why not.
  json qos{{"every_s", opt_.qos_interval_s},
           {"asked_at", qos_asked_ ? json(qos_asked_at_) : json(nullptr)},
           {"read_at", qos_known_at_ > 0 ? json(qos_known_at_) : json(nullptr)},
           {"error", qos_error_.empty() ? json(nullptr) : json(qos_error_)},
           {"applied", !view_.qos.empty()}};
  if (opt_.qos_interval_s <= 0) qos["error"] = "not asked (--qos-interval 0): no QOS limit applied";
  else if (qos_asked_ && qos_known_at_ <= 0) qos["error"] = qos_error_ + "; no QOS limit applied";
  j["qos"] = qos;
  j["limits"] = limits_status(opt_.extend_limits, limit_jobs_.size(), limits_raised_, limits_failed_, limits_refused_);
  json head = j;
  j["idle"] = view_.idle;
  const auto limit = [](const std::optional<std::int64_t>& n) { return n ? json(*n) : json(nullptr); };
  j["qos"]["limits"] = json::object();
  for (const auto& [name, q] : view_.qos)
    j["qos"]["limits"][name] = {{"MaxTRESPerJob", limit(q.per_job)}, {"MaxTRESPerUser", limit(q.per_user)},
                                {"GrpTRES", limit(q.group)}};
  j["jobs"] = json::array();
  for (const auto& job : view_.jobs) {
    if (!mine(job.id)) continue;
    const auto o = owners_.find(job.id);
    j["jobs"].push_back({{"id", job.id}, {"state", job.state}, {"nodes", job.node_list}, {"count", job.nodes},
                         {"name", job.name}, {"reason", job.reason}, {"qos", job.qos},
                         {"uid", o == owners_.end() ? json(nullptr) : json(o->second)}});
  }
  j["ledger"] = json::array();
  for (const auto& e : ledger_.entries)
    if (mine(e.job)) j["ledger"].push_back(entry_json(e));
  // A user's own decisions are kept under its uid (remember): only that list is read.
  std::vector<const Noted*> lines;
  if (all) {
    lines = recent_in_order();
  } else if (const auto it = recent_.find(viewer); it != recent_.end()) {
    for (const Noted& n : it->second) lines.push_back(&n);
  }
  return fit_recent(j, std::move(head), recent_seen(lines, all, viewer), max_bytes);
}

}  // namespace cluster::arbiter
