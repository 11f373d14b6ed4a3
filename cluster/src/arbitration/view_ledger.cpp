// SPDX-License-Identifier: BSD-3-Clause
// The arbitration between malleable jobs under one Slurm, pure: the shared
// cluster view and the ledger as text, and arbitrate() (slurm_arbiter.hpp has the rules).
#include "malleable/cluster/arbitration.hpp"
#include "malleable/cluster/expander.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "slurm/number.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

namespace {


std::string num(double v) {
  std::ostringstream o;
  o << std::setprecision(15) << v;
  return o.str();
}

double to_double(const std::string& s, const std::string& what) {
  char* end = nullptr;
  const double v = s.empty() || s.size() > 64 ? 0 : std::strtod(s.c_str(), &end);
  if (end && *end == 0 && std::isfinite(v)) return v;
  throw Error(what + ": '" + escaped(s.substr(0, 40)) + "' is not a number");
}

// Pending for nodes (and not for a dependency, a begin time, a hold, a limit ...).
bool waits_for_nodes(const Job& j) {
  return j.reason.empty() || j.reason == "Resources" || j.reason == "Priority" || j.reason == "None";
}

}  // namespace

// ---- the cluster view -----------------------------------------------------------------

ClusterView make_view(double taken_at, const std::string& squeue_out, const std::string& sinfo_out) {
  ClusterView v;
  v.taken_at = taken_at;
  v.idle = idle_nodes(sinfo_out);
  v.partitions = parse_partitions(sinfo_out);
  // No job holds or is planned onto more nodes than the cluster has.
  std::set<std::string> nodes(v.idle.begin(), v.idle.end());
  for (const Partition& p : v.partitions) nodes.insert(p.nodes.begin(), p.nodes.end());
  JobList l = read_squeue(squeue_out, v.partitions.empty() ? kMaxHostlist : std::max<std::size_t>(nodes.size(), 1));
  v.jobs = std::move(l.jobs);
  v.unreadable = std::move(l.unreadable);
  return v;
}

namespace {
// The view file's fields (format_view): percent-encoded, '-' for empty.
std::string enc(const std::string& s) {
  if (s.empty()) return "-";
  if (s == "-") return "%2D";
  static const std::string safe = "._,:()[]/+=@*-";
  std::string out;
  for (const unsigned char c : s) {
    if (std::isalnum(c) || safe.find(static_cast<char>(c)) != std::string::npos) {
      out += static_cast<char>(c);
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    }
  }
  return out;
}
std::string dec(const std::string& s, const std::string& line) {
  if (s == "-") return "";
  std::string out;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] != '%') {
      out += s[k];
      continue;
    }
    const auto hex = [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return std::isdigit(u) ? u - '0' : std::isxdigit(u) ? (std::tolower(u) - 'a' + 10) : -1;
    };
    if (k + 2 >= s.size() || hex(s[k + 1]) < 0 || hex(s[k + 2]) < 0)
      throw Error("cluster view: a bad %-escape in the line '" + escaped(line.substr(0, 120)) + "'");
    out += static_cast<char>(hex(s[k + 1]) * 16 + hex(s[k + 2]));
    k += 2;
  }
  return out;
}
std::string whole(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", x);
  return x > 0 ? std::string(b) : std::string("-");
}
// A whole number of the view file ('-': 0, or `none`).
double number_of(const std::string& t, const std::string& line, double none = 0) {
  if (t == "-") return none;
  const auto n = whole_number(t, 1ULL << 53);
  if (!n) throw Error("cluster view: '" + escaped(t.substr(0, 40)) + "' is not a whole number in '" + escaped(line.substr(0, 120)) + "'");
  return static_cast<double>(*n);
}
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

Job job_of(const std::vector<std::string>& w, const std::string& line) {
  if (w.size() != 15)
    throw Error("cluster view: cannot read the line '" + escaped(line.substr(0, 120)) +
                "' (expected job ID STATE NODES NODELIST PRIO SUBMIT START LEFT UID PLAN PARTITION QOS REASON NAME)");
  Job j;
  j.id = dec(w[1], line);
  j.state = dec(w[2], line);
  j.nodes = static_cast<int>(std::min(number_of(w[3], line), 16777216.0));
  j.node_list = expand_hostlist(dec(w[4], line));
  j.priority = number_of(w[5], line);
  j.submit = number_of(w[6], line);
  j.planned_start = number_of(w[7], line);
  j.time_left = number_of(w[8], line, -1);
  j.uid = dec(w[9], line);
  if (!j.uid.empty() && !whole_number(j.uid, 0xffffffffULL)) throw Error("cluster view: uid '" + escaped(j.uid) + "' is not a 32-bit number");
  j.planned_nodes = expand_hostlist(dec(w[10], line));
  j.partition = dec(w[11], line);
  j.qos = dec(w[12], line);
  j.reason = dec(w[13], line);
  j.name = dec(w[14], line);
  return j;
}
}  // namespace

std::string format_view(const ClusterView& v) {
  std::string out = "taken " + num(v.taken_at) + "\nidle " + (v.idle.empty() ? "-" : compress_hostlist(v.idle)) + "\n";
  for (const Partition& p : v.partitions)
    out += "partition " + enc(p.name) + " " + std::to_string(p.max_nodes) + " " +
           (p.nodes.empty() ? "-" : compress_hostlist(p.nodes)) + "\n";
  const auto limit = [](const std::optional<std::int64_t>& n) { return n ? std::to_string(*n) : std::string("-"); };
  for (const auto& [name, q] : v.qos)
    out += "qos " + enc(name) + " " + limit(q.per_job) + " " + limit(q.per_user) + " " + limit(q.group) + "\n";
  for (const Job& j : v.jobs)
    out += "job " + enc(j.id) + " " + enc(j.state) + " " + std::to_string(j.nodes) + " " + enc(compress_hostlist(j.node_list)) +
           " " + whole(j.priority) + " " + whole(j.submit) + " " + whole(j.planned_start) + " " +
           (j.time_left >= 0 ? whole(std::max(j.time_left, 0.0)) : "-") + " " + enc(j.uid) + " " +
           enc(compress_hostlist(j.planned_nodes)) + " " + enc(j.partition) + " " + enc(j.qos) + " " + enc(j.reason) + " " +
           enc(j.name) + "\n";
  for (const auto& [id, why] : v.unreadable) out += "unreadable " + enc(id) + " " + enc(why) + "\n";
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
  while (std::getline(in, line)) {
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (w[0] == "partition") {
      const auto max = w.size() == 4 ? whole_number(w[2], 999999999) : std::nullopt;
      if (!max) throw Error("cluster view: cannot read the line '" + escaped(trim(line).substr(0, 120)) + "' (expected partition NAME MAX NODES)");
      v.partitions.push_back(Partition{dec(w[1], line), static_cast<int>(*max), w[3] == "-" ? std::vector<std::string>{} : expand_hostlist(w[3])});
    } else if (w[0] == "qos") {
      const auto limit = [&](const std::string& t) -> std::optional<std::int64_t> {
        if (t == "-") return std::nullopt;
        const auto n = whole_number(t, 999999999999999999ULL);
        if (!n)
          throw Error("cluster view: cannot read the line '" + escaped(trim(line).substr(0, 120)) + "' (a limit '" +
                      escaped(t.substr(0, 40)) + "' is not a whole number or '-')");
        return static_cast<std::int64_t>(*n);
      };
      if (w.size() != 5)
        throw Error("cluster view: cannot read the line '" + escaped(trim(line).substr(0, 120)) + "' (expected qos NAME PER_JOB PER_USER GROUP)");
      v.qos[dec(w[1], line)] = QosLimits{limit(w[2]), limit(w[3]), limit(w[4])};
    } else if (w[0] == "job") {
      v.jobs.push_back(job_of(w, line));
    } else if (w[0] == "unreadable" && w.size() == 3) {
      v.unreadable[dec(w[1], line)] = dec(w[2], line);
    } else {
      throw Error("cluster view: cannot read the line '" + escaped(trim(line).substr(0, 120)) + "'");
    }
  }
  std::map<std::string, int> seen;
  for (const Job& j : v.jobs)
    if (++seen[j.id] == 2) throw Error("cluster view: job " + escaped(j.id) + " is listed twice");
  return v;
}

Snapshot snapshot_of(const ClusterView& v, const std::string& id) {
  Snapshot s;
  if (const auto bad = v.unreadable.find(id); bad != v.unreadable.end())
    throw Error("the cluster view cannot read job " + id + ": " + bad->second);
  bool found = false;
  for (const Job& j : v.jobs)
    if (j.id == id) {
      s.mine = j;
      found = true;
    }
  if (!found) throw Error("the cluster view does not list job " + id);
  // The nodes of its running expander jobs (expander.hpp) are the job's too: the owner's
  // own jobs only (a name is the user's to choose; another user's job of that name adds
  // nothing).
  for (const Job& j : v.jobs)
    if (j.id != id && j.state == "RUNNING" && expander_of(j.name) == id && !j.uid.empty() && j.uid == s.mine.uid)
      for (const auto& n : j.node_list)
        if (std::find(s.mine.node_list.begin(), s.mine.node_list.end(), n) == s.mine.node_list.end()) {
          s.mine.node_list.push_back(n);
          ++s.mine.nodes;
        }
  for (const Job& j : v.jobs)
    if (j.id != id && j.state == "PENDING" && v.expanders.count(j.id) == 0 && waits_for_nodes(j) &&
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
    if (c < 0 || c > 16777216 || c != std::floor(c)) throw Error("ledger: count '" + escaped(count) + "' is not a whole number up to 2^24");
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

std::optional<std::string> cluster_name(const std::string& show_config) {
  std::optional<std::string> name;
  std::istringstream in(show_config);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("ClusterName", 0) == 0 && line.find('=') != std::string::npos)
      name = trim(line.substr(line.find('=') + 1));
  return name;
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
