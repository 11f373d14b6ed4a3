// SPDX-License-Identifier: BSD-3-Clause
// squeue's records read, pure (slurm.hpp, kSqueueFormat): the trusted fields split at '|'
// and checked one by one, the named fields taken at their fixed widths, whatever bytes
// they hold. A record that cannot be read is an error for its job; text that is not such
// records at all is an Error.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "malleable/cluster/slurm.hpp"
#include "slurm/number.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

namespace {

constexpr int kTrusted = 10;  // %i|%T|%D|%Q|%V|%S|%L|%U|%N|%Y|
constexpr std::size_t kFixed = SqueueWidth::partition + SqueueWidth::qos + SqueueWidth::reason + SqueueWidth::name +
                               SqueueWidth::comment;

bool only(const std::string& s, const char* extra, std::size_t most) {
  return !s.empty() && s.size() <= most && std::all_of(s.begin(), s.end(), [&](unsigned char c) {
           return std::isalnum(c) || std::strchr(extra, c) != nullptr;
         });
}

// A job id as Slurm writes one: "123", an array's "123_4" or "123_[1-5%2]", a
// heterogeneous job's "123+0".
bool job_id(const std::string& s) {
  return only(s, "_+[]-,%", 64) && std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::none_of(s.begin(), s.end(), [](unsigned char c) { return std::isalpha(c); });
}

// A hostlist field: letters, digits and the list's own punctuation, or "(null)".
bool hostlist_text(const std::string& s) { return s.empty() || s == "(null)" || only(s, "[]-,._", 1 << 20); }

// A fixed-width field: its bytes with the padding's blanks (and any other leading and
// trailing blanks) removed; `full`: the value fills the width (it may have been cut).
std::string fixed(const std::string& rec, std::size_t at, std::size_t width, bool& full) {
  const std::string f = rec.substr(at, width);
  full = !f.empty() && f.back() != ' ';
  return trim(f);
}

// The trusted fields and the named ones of one record into a Job; throws Error with the
// reason (the caller names the job).
Job read_record(const std::vector<std::string>& t, const std::string& named, std::size_t max_hosts) {
  Job j;
  j.id = t[0];
  j.state = t[1];
  if (!only(j.state, "_", 32) || std::any_of(j.state.begin(), j.state.end(), [](unsigned char c) { return std::islower(c); }))
    throw Error("state '" + escaped(t[1].substr(0, 40)) + "' is not a job state");
  const auto nodes = whole_number(t[2], 1 << 24);
  if (!nodes) throw Error("node count '" + escaped(t[2].substr(0, 40)) + "' is not a number");
  j.nodes = static_cast<int>(*nodes);
  if (!t[3].empty()) {
    const auto prio = whole_number(t[3], 1ULL << 53);
    if (!prio) throw Error("priority '" + escaped(t[3].substr(0, 40)) + "' is not a number");
    j.priority = static_cast<double>(*prio);
  }
  j.submit = parse_slurm_time(t[4]);
  j.planned_start = parse_slurm_time(t[5]);
  j.time_left = parse_time_left(t[6]);
  if (!t[7].empty()) {
    if (!whole_number(t[7], 0xffffffffULL)) throw Error("uid '" + escaped(t[7].substr(0, 40)) + "' is not a 32-bit number");
    j.uid = t[7];
  }
  if (!hostlist_text(t[8])) throw Error("node list '" + escaped(t[8].substr(0, 80)) + "' is not a hostlist");
  if (!hostlist_text(t[9])) throw Error("planned nodes '" + escaped(t[9].substr(0, 80)) + "' are not a hostlist");
  j.node_list = expand_hostlist(t[8], max_hosts);
  j.planned_nodes = expand_hostlist(t[9], max_hosts);
  if (j.state != "PENDING") {  // %S and %Y of a running job: its start, no plan
    j.start = j.planned_start;
    j.planned_start = 0;
    j.planned_nodes.clear();
  }
  std::size_t at = 0;
  bool full = false;
  j.partition = fixed(named, at, SqueueWidth::partition, full);
  if (full) throw Error("its partition list fills the " + std::to_string(SqueueWidth::partition) + " bytes squeue prints: it may be cut");
  at += SqueueWidth::partition;
  j.qos = fixed(named, at, SqueueWidth::qos, full);
  if (full) throw Error("its QOS fills the " + std::to_string(SqueueWidth::qos) + " bytes squeue prints: it may be cut");
  if (j.qos == "(null)") j.qos.clear();  // no accounting
  at += SqueueWidth::qos;
  j.reason = fixed(named, at, SqueueWidth::reason, full);
  at += SqueueWidth::reason;
  j.name = fixed(named, at, SqueueWidth::name, full);
  at += SqueueWidth::name;
  const std::string comment = fixed(named, at, SqueueWidth::comment, full);
  // A pending malleable job waits for the minimum its comment names (its own field: it
  // can lower its own count only, never below one, never above Slurm's).
  if (j.state == "PENDING" && comment != "(null)") {
    const auto k = comment.find("min_nodes=");
    if (k != std::string::npos) {
      const std::size_t from = k + 10, to = comment.find_first_not_of("0123456789", from);
      const auto n = whole_number(comment.substr(from, to == std::string::npos ? std::string::npos : to - from), 1 << 24);
      if (n && *n > 0) j.nodes = std::min<int>(j.nodes, static_cast<int>(*n));
    }
  }
  return j;
}

}  // namespace

JobList read_squeue(const std::string& text, std::size_t max_hosts) {
  JobList out;
  std::map<std::string, int> seen;
  std::size_t pos = 0;
  for (int record = 1; pos < text.size(); ++record) {
    if (text[pos] == '\n') {  // a blank line between records
      ++pos;
      --record;
      continue;
    }
    const auto where = [&] {
      return "squeue: record " + std::to_string(record) + " ('" + escaped(text.substr(pos, 60)) + "...')";
    };
    std::vector<std::string> t;
    std::size_t at = pos;
    for (int k = 0; k < kTrusted; ++k) {
      const std::size_t bar = text.find('|', at), end = text.find('\n', at);
      if (bar == std::string::npos || (end != std::string::npos && end < bar))
        throw Error(where() + ": a line ends before its " + std::to_string(kTrusted) + " fields that Slurm writes (" +
                    kSqueueFormat + ")");
      t.push_back(text.substr(at, bar - at));
      at = bar + 1;
    }
    if (text.size() - at < kFixed)
      throw Error(where() + ": cut short: its named fields are not the " + std::to_string(kFixed) + " bytes of " + kSqueueFormat);
    const std::string named = text.substr(at, kFixed);
    at += kFixed;
    if (at < text.size() && text[at] != '\n')
      throw Error(where() + ": does not end after its named fields (" + kSqueueFormat + ")");
    pos = at + 1;
    if (!job_id(t[0])) throw Error(where() + ": '" + escaped(t[0].substr(0, 40)) + "' is not a job id");
    ++seen[t[0]];
    try {
      out.jobs.push_back(read_record(t, named, max_hosts));
    } catch (const Error& e) {
      out.unreadable[t[0]] = e.what();
    }
  }
  // A job listed twice: neither record is believed.
  for (const auto& [id, n] : seen)
    if (n > 1) out.unreadable[id] = n == 2 ? "listed twice by squeue" : "listed " + std::to_string(n) + " times by squeue";
  std::erase_if(out.jobs, [&](const Job& j) { return out.unreadable.count(j.id) > 0; });
  return out;
}

std::vector<Job> parse_squeue(const std::string& text, std::size_t max_hosts) {
  JobList l = read_squeue(text, max_hosts);
  if (!l.unreadable.empty())
    throw Error("squeue: job " + l.unreadable.begin()->first + ": " + l.unreadable.begin()->second);
  return std::move(l.jobs);
}

double parse_time_left(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty() || s == "UNLIMITED" || s == "NOT_SET" || s == "INVALID" || s == "N/A") return -1;
  std::string rest = s;
  std::uint64_t days = 0;
  if (const auto dash = rest.find('-'); dash != std::string::npos) {
    const auto d = whole_number(rest.substr(0, dash), 100000);
    if (!d) throw Error("squeue: time left '" + escaped(s.substr(0, 40)) + "' is not [D-]HH:MM:SS");
    days = *d;
    rest = rest.substr(dash + 1);
  }
  std::vector<std::uint64_t> parts;
  for (std::size_t at = 0;;) {
    const auto colon = rest.find(':', at);
    const auto v = whole_number(rest.substr(at, colon == std::string::npos ? std::string::npos : colon - at), 1000000);
    if (!v || parts.size() >= 3) throw Error("squeue: time left '" + escaped(s.substr(0, 40)) + "' is not [D-]HH:MM:SS");
    parts.push_back(*v);
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  std::uint64_t secs = 0;
  for (const auto p : parts) secs = secs * 60 + p;
  return static_cast<double>(days * 86400 + secs);
}

}  // namespace cluster::slurm
