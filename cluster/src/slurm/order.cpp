// SPDX-License-Identifier: BSD-3-Clause
// Slurm's order, pure: squeue's times, waiting jobs sorted as Slurm serves them, sinfo's
// idle nodes and partitions, and the idle nodes a job may grow onto (its partition's, none
// the backfill plan starts a waiting job on). slurm.hpp says what each does.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <limits>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "malleable/cluster/slurm.hpp"
#include "slurm/number.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

double parse_slurm_time(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty() || s == "N/A" || s == "Unknown" || s == "None" || s == "0") return 0;
  if (const auto epoch = whole_number(s, 1ULL << 40)) return static_cast<double>(*epoch);
  int Y = 0, M = 0, D = 0, h = 0, m = 0, sec = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &Y, &M, &D, &h, &m, &sec, &tail) != 6 || M < 1 || M > 12 ||
      D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
    throw Error("squeue: '" + escaped(s.substr(0, 40)) + "' is not a time (YYYY-MM-DDTHH:MM:SS, epoch seconds or N/A)");
  std::tm tm{};
  tm.tm_year = Y - 1900;
  tm.tm_mon = M - 1;
  tm.tm_mday = D;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = sec;
  return static_cast<double>(timegm(&tm));
}

void sort_slurm_order(std::vector<Job>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    // a submit time not listed (0) counts as the latest: such jobs keep their order
    const double inf = std::numeric_limits<double>::infinity();
    return (a.submit > 0 ? a.submit : inf) < (b.submit > 0 ? b.submit : inf);
  });
}

namespace {

// sinfo's line as (partition, state, size, nodes); partition and size empty when not listed.
struct SinfoLine {
  std::string partition, state, size, nodes;
};

// sinfo's %s: "1-4", "4", "1-infinite", "infinite", "UNLIMITED"; 0: no limit.
int max_job_size(const std::string& size, const std::string& partition) {
  const std::string max = size.substr(size.find('-') == std::string::npos ? 0 : size.find('-') + 1);
  if (max.empty() || max == "infinite" || max == "UNLIMITED" || max == "unlimited" || max == "n/a") return 0;
  const auto n = whole_number(max, 999999999);
  if (!n) throw Error("sinfo: partition " + escaped(partition) + ": job size '" + escaped(size) + "' is not N, M-N or M-infinite");
  return static_cast<int>(*n);
}

std::vector<SinfoLine> sinfo_lines(const std::string& sinfo_out) {
  std::vector<SinfoLine> out;
  std::istringstream in(sinfo_out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    if (w.size() == 3 || w.size() > 4)
      throw Error("sinfo: expected 'PARTITION STATE SIZE NODELIST' or 'STATE NODELIST', got '" + escaped(trim(line).substr(0, 200)) + "'");
    SinfoLine l;
    if (w.size() == 1) {
      l.state = "idle";  // a node list alone: sinfo -t idle -o %N
      l.nodes = w[0];
    } else if (w.size() == 2) {
      l.state = w[0], l.nodes = w[1];
    } else {
      l.partition = w[0];
      if (!l.partition.empty() && l.partition.back() == '*') l.partition.pop_back();  // the default
      l.state = w[1];
      l.size = w[2];
      l.nodes = w[3];
      max_job_size(l.size, l.partition);  // throws on a size that is not one
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> split_partitions(const std::string& field) {
  std::vector<std::string> out;
  std::istringstream in(field);
  for (std::string p; std::getline(in, p, ',');)
    if (!trim(p).empty()) out.push_back(trim(p));
  return out;
}

}  // namespace

std::vector<std::string> idle_nodes(const std::string& sinfo_out) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& l : sinfo_lines(sinfo_out)) {
    if (l.state != "idle") continue;  // drain, idle* (not responding), idle~ (powered down), resv, plnd, ...
    for (auto& h : expand_hostlist(l.nodes))
      if (seen.insert(h).second) out.push_back(std::move(h));
  }
  return out;
}

std::vector<Partition> parse_partitions(const std::string& sinfo_out) {
  std::vector<Partition> out;
  for (const auto& l : sinfo_lines(sinfo_out)) {
    if (l.partition.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const Partition& p) { return p.name == l.partition; });
    if (it == out.end()) {
      out.push_back(Partition{l.partition, 0, {}});
      it = out.end() - 1;
    }
    if (!l.size.empty()) it->max_nodes = max_job_size(l.size, l.partition);
    for (auto& h : expand_hostlist(l.nodes))
      if (std::find(it->nodes.begin(), it->nodes.end(), h) == it->nodes.end()) it->nodes.push_back(std::move(h));
  }
  return out;
}

namespace {
// The partitions the field names that sinfo listed; empty: unknown.
std::vector<const Partition*> named(const std::vector<Partition>& parts, const std::string& partition) {
  std::vector<const Partition*> out;
  for (const auto& name : split_partitions(partition))
    for (const auto& p : parts)
      if (p.name == name) out.push_back(&p);
  return out;
}
}  // namespace

bool in_partition(const std::vector<Partition>& parts, const std::string& partition, const std::string& node) {
  if (parts.empty()) return true;  // the snapshot knows no partitions
  const auto ps = named(parts, partition);
  if (ps.empty()) return true;
  return std::any_of(ps.begin(), ps.end(), [&](const Partition* p) {
    return std::find(p->nodes.begin(), p->nodes.end(), node) != p->nodes.end();
  });
}

int partition_max_nodes(const std::vector<Partition>& parts, const std::string& partition) {
  int most = 0;
  for (const Partition* p : named(parts, partition)) {
    if (p->max_nodes == 0) return 0;
    most = std::max(most, p->max_nodes);
  }
  return most;
}

bool competes(const std::vector<Partition>& parts, const Job& mine, const std::string& partition) {
  const auto theirs = named(parts, partition);
  const auto ours = named(parts, mine.partition);
  if (theirs.empty() || ours.empty()) return true;
  for (const Partition* a : theirs)
    for (const Partition* b : ours)
      for (const auto& h : a->nodes)
        if (std::find(b->nodes.begin(), b->nodes.end(), h) != b->nodes.end()) return true;
  return false;
}

std::vector<std::string> growable_idle(const Snapshot& s, const std::vector<std::string>& idle, std::string* why) {
  std::set<std::string> planned;
  for (const Job& w : s.pending) planned.insert(w.planned_nodes.begin(), w.planned_nodes.end());
  // in_partition's answer for every idle node at once: the partitions named once, their
  // nodes as a set (per node, a search of the partition's list made a decision quadratic
  // in the machine's nodes: the simulator's run time at 5,832 nodes)
  const auto ps = named(s.partitions, s.mine.partition);
  std::unordered_set<std::string_view> mine;
  for (const Partition* p : ps) mine.insert(p->nodes.begin(), p->nodes.end());
  std::vector<std::string> out, other, kept;
  for (const auto& h : idle) {
    if (!ps.empty() && !mine.count(h)) other.push_back(h);
    else if (planned.count(h)) kept.push_back(h);
    else out.push_back(h);
  }
  if (why) {
    why->clear();
    if (!other.empty()) *why = compress_hostlist(other) + " not in partition " + s.mine.partition;
    if (!kept.empty())
      *why += (why->empty() ? "" : "; ") + compress_hostlist(kept) +
              " planned by the backfill plan for a waiting job";
  }
  return out;
}

}  // namespace cluster::slurm
