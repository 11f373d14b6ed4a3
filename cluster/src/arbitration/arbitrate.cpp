// SPDX-License-Identifier: BSD-3-Clause
// arbitrate(): one job's decision among many malleable jobs, from the shared cluster view
// and ledger (the rules are listed in slurm_arbiter.hpp). Pure.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <unordered_set>

#include "malleable/cluster/arbitration.hpp"

namespace cluster::slurm {

namespace {

using Kind = LedgerEntry::Kind;

bool id_less(const std::string& a, const std::string& b) {
  const auto digits = [](const std::string& s) { return std::all_of(s.begin(), s.end(), ::isdigit); };
  if (a.size() != b.size() && digits(a) && digits(b)) return a.size() < b.size();
  return a < b;
}

// The state the rules share.
struct Ctx {
  const JobState& me;
  const Snapshot& s;
  const ClusterView& v;  // every job (the QOS sums)
  Ledger& ledger;  // the live entries; the rules edit this job's
  double now;
  const ArbiterOptions& a;
  std::vector<std::string> pool;  // idle nodes nobody claimed or was promised
  std::set<std::string> counted;  // pool nodes counted for a waiting job
  std::unordered_set<std::string> ranks;  // the nodes of this job's ranks (hashed once)
};

// Drops expired entries, claims the view shows fulfilled (taken after the claim, none of
// its nodes idle any more: the nodes are the job's, or another's if Slurm refused), and
// offers and promises for jobs that no longer wait.
Ledger live(const Ledger& l, const ClusterView& v, double now) {
  std::set<std::string> waiting;
  for (const Job& j : v.jobs)
    if (j.state == "PENDING") waiting.insert(j.id);
  // the idle nodes as a set, made at the first claim that asks (a sorted copy of every idle
  // node per call was most of a decision's time at thousands of idle nodes)
  std::unordered_set<std::string_view> idle;
  bool idle_made = false;
  const auto is_idle = [&](const std::string& h) {
    if (!idle_made) idle.insert(v.idle.begin(), v.idle.end()), idle_made = true;
    return idle.count(h) > 0;
  };
  Ledger out;
  for (const auto& e : l.entries) {
    if (e.expires <= now) continue;
    if (e.kind == Kind::Claim && v.taken_at > e.since && std::none_of(e.nodes.begin(), e.nodes.end(), is_idle))
      continue;
    if ((e.kind == Kind::Offer || e.kind == Kind::Promise) && !waiting.count(e.for_job)) continue;
    out.entries.push_back(e);
  }
  return out;
}

void erase_mine(Ledger& l, const std::string& me, Kind k, const std::string& for_job = {}) {
  auto& v = l.entries;
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const LedgerEntry& e) {
                           return e.job == me && e.kind == k && (for_job.empty() || e.for_job == for_job);
                         }),
          v.end());
}

LedgerEntry* find_mine(Ledger& l, const std::string& me, Kind k, const std::string& for_job = {}) {
  for (auto& e : l.entries)
    if (e.job == me && e.kind == k && (for_job.empty() || e.for_job == for_job)) return &e;
  return nullptr;
}

Arbitration stay(Ctx& c, std::string rule, std::string why, std::string for_job = {}) {
  Arbitration r;
  r.rule = std::move(rule);
  r.plan.why = std::move(why);
  r.for_job = std::move(for_job);
  r.ledger = c.ledger;
  return r;
}

// The nodes this job can give back, in order: held and running nothing, then the nodes
// joined last; never rank 0's.
std::vector<std::string> give_candidates(const Ctx& c) {
  const auto& held = c.s.mine.node_list;
  const auto& ranks = c.me.rank_hosts;
  const std::unordered_set<std::string> held_set(held.begin(), held.end());
  std::vector<std::string> out;
  std::unordered_set<std::string> in_out;
  for (const auto& h : held)
    if (!c.ranks.count(h) && in_out.insert(h).second) out.push_back(h);
  for (auto it = ranks.rbegin(); it != ranks.rend(); ++it)
    if (*it != ranks.front() && held_set.count(*it) && in_out.insert(*it).second) out.push_back(*it);
  const int can = std::max(0, std::min<int>(static_cast<int>(out.size()),
                                            static_cast<int>(held.size()) - std::max(1, c.me.min_nodes)));
  out.resize(can);
  return out;
}

Arbitration give(Ctx& c, const Job& w, std::vector<std::string> nodes, std::string rule, std::string why) {
  erase_mine(c.ledger, c.me.id, Kind::Offer, w.id);
  erase_mine(c.ledger, c.me.id, Kind::Bid);
  c.ledger.entries.push_back(LedgerEntry{Kind::Promise, c.me.id, w.id, nodes, static_cast<int>(nodes.size()), 0, c.now,
                                         c.now + c.a.promise_ttl_s});
  Arbitration r = stay(c, std::move(rule), std::move(why), w.id);
  r.plan.kind = Plan::Kind::GiveBack;
  r.plan.nodes = std::move(nodes);
  return r;
}

// What giving `n` nodes costs this job and what it buys the waiting job, in seconds of
// turnaround: the loss is the rest of its run on fewer nodes (the model's iteration time
// there, else perfect scaling, the dearest case) plus the shrink; the gain is what the
// waiting job saves by starting now instead of when nodes come free, at most this job's
// own rest of run (its nodes cover what is missing), counted at gain_share of that (the
// view does not say when the other jobs end). Nothing known, or gain_share 0: no
// objection (0, 0).
std::pair<double, double> give_weighed(const Ctx& c, const GrowthModel& growth, int n) {
  const int from = static_cast<int>(c.ranks.size());  // nodes, as n
  if (!growth || n <= 0 || from - n < 1 || c.a.give_gain_share <= 0) return {0, 0};
  const Growth g = growth(-n);
  if (g.measured_iteration <= 0 || g.iterations_left < 0) return {0, 0};
  const double t_to = g.predicted_iteration > 0 ? g.predicted_iteration
                                                : g.measured_iteration * from / static_cast<double>(from - n);
  const double rest = g.measured_iteration * g.iterations_left;
  const double loss = std::max(0.0, t_to - g.measured_iteration) * g.iterations_left + std::max(0.0, g.predicted_resize);
  return {loss, c.a.give_gain_share * rest};
}

// How many nodes job `w` still misses after the nodes promised to it and the free idle
// nodes it can start on (of its partition), those the backfill plan starts it on first;
// the idle ones are counted for it (c.counted), in Slurm's order of the waiting jobs.
// `need`: the reason, when some are missing. `pool`: c.pool as a set.
int still_missing(Ctx& c, const std::unordered_set<std::string_view>& pool, const Job& w, std::string& need) {
  std::set<std::string> promised;
  for (const auto& e : c.ledger.entries)
    if (e.kind == Kind::Promise && e.for_job == w.id) promised.insert(e.nodes.begin(), e.nodes.end());
  int missing = w.nodes - static_cast<int>(promised.size());
  std::vector<std::string> can;
  std::unordered_set<std::string_view> in_can;  // what `can` holds
  for (const auto& h : w.planned_nodes)
    if (!c.counted.count(h) && pool.count(h)) can.push_back(h), in_can.insert(h);
  // Only the first `missing` of `can` are taken: the pool is searched no further (at
  // thousands of idle nodes and hundreds of waiting jobs, a search of the whole pool per
  // waiting job was the simulator's whole run time).
  for (const auto& h : c.pool) {
    if (static_cast<int>(can.size()) >= missing) break;
    if (!c.counted.count(h) && in_partition(c.s.partitions, w.partition, h) && in_can.insert(h).second)
      can.push_back(h);
  }
  const int take = std::max(0, std::min<int>(missing, static_cast<int>(can.size())));
  c.counted.insert(can.begin(), can.begin() + take);
  missing -= take;
  if (missing > 0)
    need = "job " + w.id + " waits for " + std::to_string(w.nodes) + " node(s): " + std::to_string(take) + " idle, " +
           std::to_string(promised.size()) + " promised, " + std::to_string(missing) + " missing";
  return missing;
}

// Only as many nodes as cost this job no more than they buy the waiting job: drops
// candidates from the back until the weighing (give_weighed) agrees. Returns why some
// were dropped (empty: none).
std::string trim_to_payoff(const Ctx& c, const GrowthModel& growth, std::vector<std::string>& cand) {
  std::string dear;
  while (!cand.empty()) {
    const auto [loss, gain] = give_weighed(c, growth, static_cast<int>(cand.size()));
    if (loss <= gain) break;
    if (dear.empty())
      dear = "; giving " + std::to_string(cand.size()) + " would cost this job " + std::to_string(loss) + " s against ~" +
             std::to_string(gain) + " s the waiting job gains";
    cand.pop_back();
  }
  if (!dear.empty() && !cand.empty()) dear += ", " + std::to_string(cand.size()) + " would not";
  return dear;
}

// Never so many candidates that the job's predicted end passes its time limit (Slurm
// kills it there): drops them from the back. Returns why some were dropped (empty: none).
std::string trim_to_time_limit(const Ctx& c, const GrowthModel& growth, std::vector<std::string>& cand) {
  std::string over;
  const int from = static_cast<int>(c.ranks.size());
  while (!cand.empty() && growth) {
    // only the candidates running ranks shorten its run (held nodes running nothing go free)
    const int k = static_cast<int>(std::count_if(cand.begin(), cand.end(), [&](const std::string& h) { return c.ranks.count(h) > 0; }));
    std::string w_over;
    if (k <= 0 || from - k < 1 || keeps_time_limit(growth(-k), from, k, c.s.mine.time_left, &w_over)) break;
    if (over.empty()) over = "; " + w_over;
    cand.pop_back();
  }
  return over;
}

// This job can give some of the `missing` nodes, not all: it offers them (the offer
// renewed), and once the offers of all jobs cover the waiting job, gives its share, the
// offers taken in job id order.
Arbitration offer_or_share(Ctx& c, const Job& w, const std::vector<std::string>& cand, int missing, const std::string& why) {
  if (auto* e = find_mine(c.ledger, c.me.id, Kind::Offer, w.id)) {
    e->count = static_cast<int>(cand.size());
    e->expires = c.now + c.a.offer_ttl_s;
  } else {
    c.ledger.entries.push_back(LedgerEntry{Kind::Offer, c.me.id, w.id, {}, static_cast<int>(cand.size()), 0, c.now,
                                           c.now + c.a.offer_ttl_s});
  }
  std::vector<const LedgerEntry*> offers;
  int total = 0;
  for (const auto& e : c.ledger.entries)
    if (e.kind == Kind::Offer && e.for_job == w.id) offers.push_back(&e), total += e.count;
  if (total < missing)
    return stay(c, "offer", why + "; offered " + std::to_string(cand.size()) + ", offers cover " + std::to_string(total),
                w.id);
  std::sort(offers.begin(), offers.end(), [](auto* x, auto* y) { return id_less(x->job, y->job); });
  int left = missing, share = 0;
  for (const auto* e : offers) {
    const int part = std::min(left, e->count);
    if (e->job == c.me.id) share = part;
    left -= part;
  }
  if (share <= 0) return stay(c, "waiting", why + "; the offers of jobs before this one cover it", w.id);
  return give(c, w, {cand.begin(), cand.begin() + share}, "give-share",
              why + "; offers cover it, this job's share " + std::to_string(share));
}

// The first waiting job that idle nodes and promises do not cover: give, share or offer.
// Empty rule: every waiting job is covered.
Arbitration waiting_rules(Ctx& c, const GrowthModel& growth) {
  // The pool as a set for the membership tests (the pool does not change in this loop;
  // at 10,000 nodes a linear search per planned node made the arbitration quadratic).
  const std::unordered_set<std::string_view> pool(c.pool.begin(), c.pool.end());
  for (const Job& w : c.s.pending) {
    std::string need;
    const int missing = still_missing(c, pool, w, need);
    if (missing <= 0) continue;
    // The most it gives or offers: what the weighing and the time limit leave.
    auto cand = give_candidates(c);
    const int could = static_cast<int>(cand.size());
    std::string dear = trim_to_payoff(c, growth, cand);
    const std::string over = trim_to_time_limit(c, growth, cand);
    if (cand.empty() && !over.empty()) {
      erase_mine(c.ledger, c.me.id, Kind::Offer, w.id);
      return stay(c, "time-limit", need + over, w.id);
    }
    dear += over;
    if (static_cast<int>(cand.size()) >= missing)
      return give(c, w, {cand.begin(), cand.begin() + missing}, "give-back", need + dear);
    if (cand.empty() && could > 0) {
      erase_mine(c.ledger, c.me.id, Kind::Offer, w.id);
      return stay(c, "keep", need + dear, w.id);
    }
    if (cand.empty()) {
      erase_mine(c.ledger, c.me.id, Kind::Offer, w.id);
      return stay(c, "cannot-give", need + "; this job has no node to give (min " + std::to_string(c.me.min_nodes) + ")",
                  w.id);
    }
    return offer_or_share(c, w, cand, missing, need + dear);
  }
  return {};
}

// The parallel efficiency of the nodes a growth adds: the speed-up it predicts over the
// one the added nodes would give at perfect scaling; 1 when the prediction is unknown.
double growth_efficiency(const Growth& g, int held, int extra) {
  if (g.measured_iteration <= 0 || g.predicted_iteration <= 0 || held <= 0 || extra <= 0) return 1;
  const double speedup = g.measured_iteration / g.predicted_iteration - 1;
  return speedup / (static_cast<double>(extra) / held);
}

// The most of `want` nodes the job's QOS lets it add (qos_cap): the nodes it holds, its
// user's and the QOS's over the view's jobs that hold nodes (not pending), plus the nodes
// of live claims (an acquisition under way, of this job or another job of the QOS: two
// growths in a row do not each take the same room). `held`: the sums, for the reason.
QosCap qos_room(const Ctx& c, int want, std::string& held) {
  const std::string& qos = c.s.mine.qos;
  if (c.v.qos.empty() || qos.empty() || !c.v.qos.count(qos)) return QosCap{want, ""};
  std::int64_t job = static_cast<std::int64_t>(c.s.mine.node_list.size()), user = 0, all = 0;
  std::map<std::string, const Job*> by_id;
  for (const Job& j : c.v.jobs) by_id[j.id] = &j;
  const auto count = [&](const Job& j, std::int64_t n) {
    if (j.qos != qos) return;
    all += n;
    if (j.id == c.s.mine.id || (!j.uid.empty() && j.uid == c.s.mine.uid)) user += n;
  };
  for (const Job& j : c.v.jobs)
    if (j.state != "PENDING") count(j, static_cast<std::int64_t>(j.node_list.size()));
  for (const auto& e : c.ledger.entries) {
    const auto it = by_id.find(e.job);
    if (e.kind != Kind::Claim || it == by_id.end()) continue;
    count(*it->second, static_cast<std::int64_t>(e.nodes.size()));
    if (e.job == c.s.mine.id) job += static_cast<std::int64_t>(e.nodes.size());
  }
  held = "this job " + std::to_string(job) + ", its user's jobs " + std::to_string(user) + ", the QOS's " +
         std::to_string(all) + " node(s)";
  return qos_cap(c.v.qos, qos, job, user, all, want);
}

// `room` capped at the job's QOS (qos_room), `why` the reason when it binds. False: the
// QOS leaves no room (`why` says which limit).
bool cap_at_qos(const Ctx& c, int& room, std::string& why) {
  std::string held;
  const QosCap q = qos_room(c, room, held);
  if (q.extra >= room) return true;
  if (q.extra <= 0) {
    why = std::to_string(room) + " free idle node(s), but " + q.why + " leaves no room (" + held + ")";
    return false;
  }
  why = "; " + std::to_string(q.extra) + " of " + std::to_string(room) + " free node(s): " + q.why + " (" + held + ")";
  room = static_cast<int>(q.extra);
  return true;
}

// The free nodes this job's bid gets: the bids best first (higher score; tie: lower job
// id), each given what it asks of what is left; while jobs of two or more users bid, each
// user's jobs together at most their fair share. `before`: the better bids that took
// nodes; `shared`: why the fair share bound this job (empty: it did not).
std::vector<std::string> hand_out(const Ctx& c, std::string& before, std::string& shared) {
  std::vector<LedgerEntry> bids;
  for (const auto& e : c.ledger.entries)
    if (e.kind == Kind::Bid) bids.push_back(e);
  std::sort(bids.begin(), bids.end(), [](const LedgerEntry& x, const LedgerEntry& y) {
    return x.score != y.score ? x.score > y.score : id_less(x.job, y.job);
  });
  std::map<std::string, std::string> uid_of;
  for (const Job& j : c.v.jobs) uid_of[j.id] = j.uid;
  std::set<std::string> users;
  for (const auto& b : bids)
    if (!uid_of[b.job].empty()) users.insert(uid_of[b.job]);
  const std::size_t fair = users.size() > 1 ? (c.pool.size() + users.size() - 1) / users.size() : c.pool.size();
  std::map<std::string, std::size_t> given;
  std::size_t at = 0;
  for (const auto& b : bids) {
    std::size_t n = std::min<std::size_t>(b.count, c.pool.size() - at);
    const std::string& uid = uid_of[b.job];
    if (users.size() > 1 && !uid.empty()) {
      const std::size_t share = fair - std::min(fair, given[uid]);
      if (share < n && b.job == c.me.id)
        shared = "; " + std::to_string(share) + " of them: its user's fair share of " + std::to_string(c.pool.size()) +
                 " free node(s) while " + std::to_string(users.size()) + " users bid";
      n = std::min(n, share);
      given[uid] += n;
    }
    if (b.job == c.me.id) return {c.pool.begin() + at, c.pool.begin() + at + n};
    if (n > 0) before += (before.empty() ? "" : ", ") + b.job + " (" + std::to_string(b.score) + " s/node)";
    at += n;
  }
  return {};
}

// How many free nodes this job can grow by (`room`): only idle nodes of its partition that
// the backfill plan starts no waiting job on (a growth request is a new job, behind every
// pending one), within the partition's MaxNodes and the job's QOS (Slurm would refuse, or
// hold, an expansion beyond it; `qos_capped`: why it binds). Narrows c.pool to them. A
// value: no room, the decision.
std::optional<Arbitration> growth_room(Ctx& c, int& room, std::string& qos_capped) {
  std::string left_out;
  c.pool = growable_idle(c.s, c.pool, &left_out);
  const int held = static_cast<int>(c.s.mine.node_list.size());
  const int part_max = partition_max_nodes(c.s.partitions, c.s.mine.partition);
  const int max_nodes = part_max > 0 && (c.me.max_nodes <= 0 || part_max < c.me.max_nodes) ? part_max : c.me.max_nodes;
  const int cap = max_nodes > 0 ? max_nodes - held : static_cast<int>(c.pool.size());
  room = std::min<int>(static_cast<int>(c.pool.size()), cap);
  if (room <= 0) {
    erase_mine(c.ledger, c.me.id, Kind::Bid);
    return stay(c, "no-idle",
                c.pool.empty() ? "no free idle node (" + std::to_string(c.s.idle.size()) + " idle" +
                                     (left_out.empty() ? "" : "; " + left_out) + ")"
                               : "at the node limit (" + std::to_string(max_nodes) +
                                     (max_nodes == part_max ? ", the partition's MaxNodes" : "") + ")");
  }
  if (!cap_at_qos(c, room, qos_capped)) {
    erase_mine(c.ledger, c.me.id, Kind::Bid);
    return stay(c, "qos-limit", qos_capped);
  }
  return std::nullopt;
}

// The growth by `room` nodes if it pays; nodes that would barely speed this job up are
// worth more to the next job that comes: growth by fewer nodes (halving) until the added
// nodes' efficiency reaches the floor. `g`: the growth by the `room` left, `trimmed`: why
// it is less than asked. A value: no growth pays, the decision.
std::optional<Arbitration> paying_growth(Ctx& c, const GrowthModel& growth, int& room, Growth& g, std::string& trimmed) {
  g = growth(room);
  if (!g.pays) {
    erase_mine(c.ledger, c.me.id, Kind::Bid);
    return stay(c, "no-payoff", std::to_string(room) + " free idle node(s), but growing does not pay: " + g.why);
  }
  const int held = static_cast<int>(c.s.mine.node_list.size());
  const int asked = room;
  while (c.a.min_growth_efficiency > 0 && room > 0 && growth_efficiency(g, held, room) < c.a.min_growth_efficiency) {
    room /= 2;
    if (room > 0) g = growth(room);
    if (room > 0 && !g.pays) room = 0;
  }
  if (room <= 0) {
    erase_mine(c.ledger, c.me.id, Kind::Bid);
    return stay(c, "no-payoff", std::to_string(asked) + " free idle node(s), but no growth by them reaches " +
                                    std::to_string(c.a.min_growth_efficiency) + " efficiency: " + g.why);
  }
  if (room < asked)
    trimmed = "; " + std::to_string(room) + " of " + std::to_string(asked) + " free node(s): more would run below " +
              std::to_string(c.a.min_growth_efficiency) + " efficiency";
  return std::nullopt;
}

// This job's bid for `room` nodes at `score` seconds saved per node, placed or renewed.
// Returns when it was first placed.
double place_bid(Ctx& c, int room, double score) {
  LedgerEntry* bid = find_mine(c.ledger, c.me.id, Kind::Bid);
  if (!bid) {
    c.ledger.entries.push_back(LedgerEntry{Kind::Bid, c.me.id, {}, {}, room, score, c.now, 0});
    bid = &c.ledger.entries.back();
  }
  bid->count = room;
  bid->score = score;
  bid->expires = c.now + c.a.bid_ttl_s;
  return bid->since;
}

// The bid won `mine`: the bid becomes a claim (it takes no more nodes) and the plan
// acquires them, by expansion or by restart.
Arbitration acquire_won(Ctx& c, const std::vector<std::string>& mine, const Growth& g, double score, std::string why) {
  erase_mine(c.ledger, c.me.id, Kind::Bid);
  c.ledger.entries.push_back(LedgerEntry{Kind::Claim, c.me.id, {}, mine, static_cast<int>(mine.size()), score, c.now,
                                         c.now + c.a.claim_ttl_s});
  Arbitration r = stay(c, "acquire", std::move(why));
  r.plan.kind = Plan::Kind::Acquire;
  r.plan.nodes = mine;
  r.plan.acquire = static_cast<int>(mine.size());
  r.plan.predicted_iteration = g.predicted_iteration;
  r.plan.predicted_resize = g.predicted_resize;
  r.plan.measured_iteration = g.measured_iteration;
  r.by_restart = !c.a.expansion;
  return r;
}

// Growth onto free idle nodes: bid, and acquire when this job's bid wins.
Arbitration growth_rules(Ctx& c, const GrowthModel& growth) {
  int room = 0;
  std::string qos_capped;
  if (auto r = growth_room(c, room, qos_capped)) return *r;
  Growth g;
  std::string trimmed;
  if (auto r = paying_growth(c, growth, room, g, trimmed)) return *r;
  // What a job says it saves is bounded by what it can: the time Slurm leaves it to run.
  const double can_save = c.s.mine.time_left > 0 ? c.s.mine.time_left : c.a.max_saving_s;
  const double score = std::min(g.saving_s, can_save) / room;
  const double since = place_bid(c, room, score);
  const std::string offer = std::to_string(room) + " free idle node(s), saving " + std::to_string(g.saving_s) + " s; " +
                            g.why + qos_capped + trimmed;
  if (c.now - since < c.a.bid_window_s) return stay(c, "bid", offer + "; the bid stands until others have bid");
  std::string before, shared;
  const std::vector<std::string> mine = hand_out(c, before, shared);
  if (mine.empty())
    return stay(c, "outbid", offer + (shared.empty() ? "; better bids take the free nodes: " + before
                                                     : shared + ", taken by its user's better bids"));
  if (static_cast<int>(mine.size()) < room) {
    g = growth(static_cast<int>(mine.size()));
    if (!g.pays) return stay(c, "outbid", "better bids (" + before + ") leave " + std::to_string(mine.size()) +
                                              " node(s), and growing by those does not pay: " + g.why);
  }
  return acquire_won(c, mine, g, score, offer + (before.empty() ? "; the best bid" : "; after " + before) + shared);
}

// `r` turned into running on the held nodes that run nothing (`unused`), when there are
// any: the nodes a job holds do not stand idle while it gives nothing or waits.
Arbitration run_on_unused(Arbitration r, const std::vector<std::string>& unused) {
  if (unused.empty()) return r;
  r.plan.why = std::to_string(unused.size()) + " node(s) of the allocation run nothing; " + r.rule + ": " + r.plan.why;
  r.rule = "use-held";
  r.plan.kind = Plan::Kind::UseHeld;
  r.plan.nodes = unused;
  return r;
}

// Rule 1: a promise `e` of this job to a job still waiting: no growth until it runs (held
// nodes not promised are used).
Arbitration keep_promise(Ctx& c, const LedgerEntry e, std::vector<std::string> unused) {
  std::unordered_set<std::string> promised;
  for (const auto& p : c.ledger.entries)
    if (p.kind == Kind::Promise && p.job == c.me.id) promised.insert(p.nodes.begin(), p.nodes.end());
  unused.erase(std::remove_if(unused.begin(), unused.end(), [&](const std::string& h) { return promised.count(h) > 0; }),
               unused.end());
  erase_mine(c.ledger, c.me.id, Kind::Bid);
  return run_on_unused(
      stay(c, "promised", "gave " + compress_hostlist(e.nodes) + " for job " + e.for_job + ", which still waits", e.for_job),
      unused);
}

// Rule 2: jobs wait. Those idle nodes and promises do not cover come first; when all are
// covered, the idle nodes none of them needs would stand idle: they are free to grow onto
// (bid as usual; a node joined last is the first given when another job comes to wait).
Arbitration waiting_first(Ctx& c, const GrowthModel& growth, const std::vector<std::string>& unused) {
  Arbitration r = waiting_rules(c, growth);
  if (r.plan.kind == Plan::Kind::GiveBack) return r;
  if (r.rule.empty()) {
    const std::size_t leftover = c.pool.size() - c.counted.size();
    if (leftover > 0 && unused.empty()) {
      const std::string covered = std::to_string(c.s.pending.size()) + " job(s) wait, covered by idle nodes and promises; ";
      c.pool.erase(std::remove_if(c.pool.begin(), c.pool.end(), [&](const std::string& h) { return c.counted.count(h) > 0; }),
                   c.pool.end());
      c.counted.clear();
      Arbitration g = growth_rules(c, growth);
      g.plan.why = covered + std::to_string(leftover) + " idle node(s) left over: " + g.plan.why;
      return g;
    }
    erase_mine(c.ledger, c.me.id, Kind::Bid);
    r = stay(c, "waiting", std::to_string(c.s.pending.size()) + " job(s) wait (covered by idle nodes and promises); not growing");
  }
  // 3. While jobs wait and this job gives nothing now, the nodes it holds do not stand
  //    idle: it runs on them. They stay on offer (a node joined last is given first).
  return run_on_unused(r, unused);
}

}  // namespace

Arbitration arbitrate(const ClusterView& v, const Ledger& l, const JobState& me, const GrowthModel& growth,
                      double now, const ArbiterOptions& a) {
  Ledger ledger = live(l, v, now);
  const Snapshot s = snapshot_of(v, me.id);
  Ctx c{me, s, v, ledger, now, a, {}, {}, {me.rank_hosts.begin(), me.rank_hosts.end()}};
  if (me.rank_hosts.empty()) return stay(c, "unknown", "the nodes of the ranks are unknown");
  std::vector<std::string> unused;  // held, running none of this job's processes
  for (const auto& h : s.mine.node_list)
    if (!c.ranks.count(h)) unused.push_back(h);
  // 1. A promise of this job to a job still waiting (a copy: the ledger changes).
  if (const LedgerEntry* first = find_mine(ledger, me.id, Kind::Promise)) return keep_promise(c, *first, unused);
  // The free pool: idle nodes nobody claimed (this job's own claim too: its acquisition
  // is under way or done and the view older), none promised to a waiting job.
  std::set<std::string> taken;
  for (const auto& e : ledger.entries)
    if (e.kind == Kind::Claim || e.kind == Kind::Promise) taken.insert(e.nodes.begin(), e.nodes.end());
  for (const auto& h : s.idle)
    if (!taken.count(h)) c.pool.push_back(h);
  // 2. Waiting jobs first.
  if (!s.pending.empty()) return waiting_first(c, growth, unused);
  // 3. Nodes held that run nothing.
  if (!unused.empty()) {
    Arbitration r = stay(c, "use-held", std::to_string(unused.size()) + " node(s) of the allocation run nothing");
    r.plan.kind = Plan::Kind::UseHeld;
    r.plan.nodes = unused;
    return r;
  }
  // 4. Idle nodes.
  return growth_rules(c, growth);
}

}  // namespace cluster::slurm
