// SPDX-License-Identifier: BSD-3-Clause
// The arbitration between malleable jobs under one Slurm, pure: the shared
// cluster view and the ledger as text, and arbitrate() (slurm_arbiter.hpp has the rules).
#include "malleable/cluster/arbitration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace cluster::slurm {

namespace {


std::string num(double v) {
  std::ostringstream o;
  o << std::setprecision(15) << v;
  return o.str();
}

double to_double(const std::string& s, const std::string& what) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(what + ": '" + s + "' is not a number");
}

bool is_machinery(const Job& j) { return j.name.rfind("malleable-", 0) == 0; }

// Pending for nodes (and not for a dependency, a begin time, a hold, a limit ...).
bool waits_for_nodes(const Job& j) {
  return j.reason.empty() || j.reason == "Resources" || j.reason == "Priority" || j.reason == "None";
}

}  // namespace

// ---- the cluster view -----------------------------------------------------------------

ClusterView make_view(double taken_at, const std::string& squeue_out, const std::string& sinfo_out) {
  ClusterView v;
  v.taken_at = taken_at;
  v.jobs = parse_squeue(squeue_out);
  v.idle = idle_nodes(sinfo_out);
  v.partitions = parse_partitions(sinfo_out);
  return v;
}

std::string format_view(const ClusterView& v) {
  std::string out = "taken " + num(v.taken_at) + "\nidle " + (v.idle.empty() ? "-" : compress_hostlist(v.idle)) + "\n";
  for (const Partition& p : v.partitions)
    out += "partition " + p.name + " " + std::to_string(p.max_nodes) + " " +
           (p.nodes.empty() ? "-" : compress_hostlist(p.nodes)) + "\n";
  const auto whole = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", x);
    return std::string(x > 0 ? b : "");
  };
  const auto limit = [](const std::optional<std::int64_t>& n) { return n ? std::to_string(*n) : std::string("-"); };
  for (const auto& [name, q] : v.qos)
    out += "qos " + name + " " + limit(q.per_job) + " " + limit(q.per_user) + " " + limit(q.group) + "\n";
  for (const Job& j : v.jobs)
    out += j.id + "|" + j.state + "|" + std::to_string(j.nodes) + "|" + compress_hostlist(j.node_list) + "|" + j.name + "|" +
           j.reason + "|prio=" + whole(j.priority) + "|submit=" + whole(j.submit) + "|part=" + j.partition +
           "|start=" + whole(j.planned_start) + "|plan=" + compress_hostlist(j.planned_nodes) + "|qos=" + j.qos +
           "|uid=" + j.uid + "|\n";
  return out;
}

ClusterView parse_view(const std::string& text) {
  std::istringstream in(text);
  std::string taken, idle, line;
  if (!std::getline(in, taken) || taken.rfind("taken ", 0) != 0) throw Error("cluster view: no 'taken' line first");
  if (!std::getline(in, idle) || idle.rfind("idle ", 0) != 0) throw Error("cluster view: no 'idle' line second");
  ClusterView v;
  v.taken_at = to_double(trim(taken.substr(6)), "cluster view, taken");
  const std::string list = trim(idle.substr(5));
  if (list != "-") v.idle = expand_hostlist(list);
  std::string rest;
  while (std::getline(in, line)) {
    if (line.rfind("partition ", 0) == 0) {
      std::istringstream f(line.substr(10));
      std::string name, max, nodes, extra;
      if (!(f >> name >> max >> nodes) || (f >> extra) || max.empty() || max.size() > 9 ||
          !std::all_of(max.begin(), max.end(), [](unsigned char c) { return std::isdigit(c); }))
        throw Error("cluster view: cannot read the line '" + trim(line) + "' (expected partition NAME MAX NODES)");
      v.partitions.push_back(Partition{name, std::stoi(max), nodes == "-" ? std::vector<std::string>{} : expand_hostlist(nodes)});
      continue;
    }
    if (line.rfind("qos ", 0) == 0) {
      std::istringstream f(line.substr(4));
      std::string name, job, user, group, extra;
      const auto limit = [&](const std::string& t) -> std::optional<std::int64_t> {
        if (t == "-") return std::nullopt;
        if (t.empty() || t.size() > 18 || !std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); }))
          throw Error("cluster view: cannot read the line '" + trim(line) + "' (a limit '" + t + "' is not a whole number or '-')");
        return std::stoll(t);
      };
      if (!(f >> name >> job >> user >> group) || (f >> extra))
        throw Error("cluster view: cannot read the line '" + trim(line) + "' (expected qos NAME PER_JOB PER_USER GROUP)");
      v.qos[name] = QosLimits{limit(job), limit(user), limit(group)};
      continue;
    }
    rest += line + "\n";
  }
  v.jobs = parse_squeue(rest);
  return v;
}

Snapshot snapshot_of(const ClusterView& v, const std::string& id) {
  Snapshot s;
  bool found = false;
  for (const Job& j : v.jobs)
    if (j.id == id) {
      s.mine = j;
      found = true;
    }
  if (!found) throw Error("the cluster view does not list job " + id);
  for (const Job& j : v.jobs)
    if (j.id != id && j.state == "PENDING" && !is_machinery(j) && waits_for_nodes(j) &&
        competes(v.partitions, s.mine, j.partition))
      s.pending.push_back(j);
  sort_slurm_order(s.pending);
  s.idle = v.idle;
  s.partitions = v.partitions;
  return s;
}

bool view_stale(double taken_at, double now, double interval_s) { return now - taken_at >= interval_s || now < taken_at - 60; }

double jittered_interval(double base_s, double jitter, const std::string& job_id, std::uint64_t round) {
  // splitmix64 of (FNV-1a of the id, round): a fixed, well-spread u per job and round.
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : job_id) h = (h ^ c) * 1099511628211ull;
  std::uint64_t z = h + round * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) / 9007199254740992.0 * 2 - 1;  // [-1, 1)
  return std::max(0.0, base_s * (1 + jitter * u));
}

// ---- the ledger -------------------------------------------------------------------------

std::string to_string(LedgerEntry::Kind k) {
  switch (k) {
    case LedgerEntry::Kind::Bid: return "bid";
    case LedgerEntry::Kind::Claim: return "claim";
    case LedgerEntry::Kind::Offer: return "offer";
    case LedgerEntry::Kind::Promise: return "promise";
  }
  return "?";
}

std::string format_ledger(const Ledger& l) {
  std::string out;
  for (const auto& e : l.entries)
    out += to_string(e.kind) + " " + e.job + " " + (e.for_job.empty() ? "-" : e.for_job) + " " +
           std::to_string(e.count) + " " + num(e.score) + " " + num(e.since) + " " + num(e.expires) + " " +
           (e.nodes.empty() ? "-" : compress_hostlist(e.nodes)) + "\n";
  return out;
}

Ledger parse_ledger(const std::string& text) {
  Ledger l;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (trim(line).empty()) continue;
    std::istringstream f(line);
    std::string kind, job, for_job, count, score, since, expires, nodes, extra;
    if (!(f >> kind >> job >> for_job >> count >> score >> since >> expires >> nodes) || (f >> extra))
      throw Error("ledger: cannot read the line '" + trim(line) + "' (expected KIND JOB FOR COUNT SCORE SINCE EXPIRES NODES)");
    LedgerEntry e;
    if (kind == "bid") e.kind = LedgerEntry::Kind::Bid;
    else if (kind == "claim") e.kind = LedgerEntry::Kind::Claim;
    else if (kind == "offer") e.kind = LedgerEntry::Kind::Offer;
    else if (kind == "promise") e.kind = LedgerEntry::Kind::Promise;
    else throw Error("ledger: unknown kind '" + kind + "' in '" + trim(line) + "'");
    e.job = job;
    e.for_job = for_job == "-" ? "" : for_job;
    const double c = to_double(count, "ledger, count");
    if (c < 0 || c != std::floor(c)) throw Error("ledger: count '" + count + "' is not a non-negative integer");
    e.count = static_cast<int>(c);
    e.score = to_double(score, "ledger, score");
    e.since = to_double(since, "ledger, since");
    e.expires = to_double(expires, "ledger, expires");
    if (nodes != "-") e.nodes = expand_hostlist(nodes);
    l.entries.push_back(std::move(e));
  }
  return l;
}

Ledger settle(const Ledger& l, const std::string& job, bool promises_too) {
  Ledger out;
  for (const auto& e : l.entries)
    if (!(e.job == job && (e.kind == LedgerEntry::Kind::Claim || e.kind == LedgerEntry::Kind::Bid ||
                           (promises_too && e.kind == LedgerEntry::Kind::Promise))))
      out.entries.push_back(e);
  return out;
}

bool expansion_permitted(const std::string& show_config) {
  std::istringstream in(show_config);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || trim(line.substr(0, eq)) != "SchedulerParameters") continue;
    std::istringstream params(trim(line.substr(eq + 1)));
    for (std::string p; std::getline(params, p, ',');)
      if (trim(p) == "permit_job_expansion") return true;
  }
  return false;
}

bool updates_once(const std::string& show_config) {
  std::istringstream in(show_config);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && trim(line.substr(0, eq)) == "AccountingStorageType")
      return trim(line.substr(eq + 1)) == "accounting_storage/none";
  }
  return true;  // not listed: none
}

std::string decision_json(const Arbitration& a, const std::string& job, double now) {
  const auto q = [](const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\', o += c;
      else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        o += buf;
      } else o += c;
    }
    return o + "\"";
  };
  static const char* kinds[] = {"none", "give-back", "use-held", "acquire"};
  std::string nodes;
  for (const auto& n : a.plan.nodes) {
    if (!nodes.empty()) nodes += ',';
    nodes += q(n);
  }
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", now);
  return std::string("{\"t\":") + t + ",\"job\":" + q(job) + ",\"rule\":" + q(a.rule) + ",\"plan\":" +
         q(kinds[static_cast<int>(a.plan.kind)]) + ",\"nodes\":[" + nodes + "],\"for\":" + q(a.for_job) +
         ",\"by_restart\":" + (a.by_restart ? "true" : "false") + ",\"why\":" + q(a.plan.why) + "}";
}

}  // namespace cluster::slurm
