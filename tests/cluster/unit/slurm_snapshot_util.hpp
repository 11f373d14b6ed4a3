// SPDX-License-Identifier: BSD-3-Clause
// Helpers of the Slurm policy's and the arbiter's snapshot tests: the ranks' hosts, a
// scripted stand-in for Slurm, a cluster view from squeue/sinfo
// text, a job on named nodes, the arbiter's options and the nodes a ledger's claims hold.
#pragma once

#include <cstddef>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "malleable/cluster/cluster.hpp"
#include "squeue_render_util.hpp"

namespace slurm_snapshot {

using cluster::slurm::ArbiterOptions;
using cluster::slurm::ClusterView;
using cluster::slurm::JobState;
using cluster::slurm::Ledger;
using cluster::slurm::LedgerEntry;

// The hosts of the job's ranks in rank order: `n` ranks on each named node in turn.
inline std::vector<std::string> ranks_on(std::vector<std::pair<std::string, int>> per_node) {
  std::vector<std::string> r;
  for (const auto& [h, n] : per_node) r.insert(r.end(), static_cast<std::size_t>(n), h);
  return r;
}

// Slurm's answers, in order; records every command. A command that does not start as the
// next answer expects, or one past the script, gets an error naming it.
struct ScriptedSlurm {
  std::deque<std::pair<std::string, cluster::slurm::Command>> script;  // expected command prefix -> answer
  std::vector<std::string> seen;
  cluster::slurm::Runner runner() {
    return [this](const cluster::slurm::Argv& argv) {
      const std::string cmd = cluster::slurm::command_line(argv);
      seen.push_back(cmd);
      if (script.empty()) return cluster::slurm::Command{1, "unexpected command"};
      auto [want, answer] = script.front();
      script.pop_front();
      if (cmd.rfind(want, 0) != 0) return cluster::slurm::Command{1, "expected '" + want + "', got '" + cmd + "'"};
      return answer;
    };
  }
};

// squeue's records (kSqueueFormat, as squeue_render_util.hpp prints them) of jobs written the
// short way, one a line: "ID|STATE|NODES|NODELIST[|NAME[|REASON[|COMMENT]]]", or with
// Slurm's order "ID|STATE|NODES|NODELIST|NAME|REASON|prio=Q|submit=V|part=P|start=S|
// plan=Y[|qos=q|uid=U]|COMMENT" (what the views' squeue format was before its named
// fields moved to the end, at fixed widths). Only for tests' own text: '|' and line ends
// split it.
inline std::string records(const std::string& lines) {
  std::string out;
  std::size_t from = 0;
  while (from < lines.size()) {
    std::size_t end = lines.find('\n', from);
    if (end == std::string::npos) end = lines.size();
    const std::string raw = lines.substr(from, end - from);  // blanks around a line dropped
    const auto first = raw.find_first_not_of(" \t\r\n");
    const std::string line = first == std::string::npos ? std::string() : raw.substr(first, raw.find_last_not_of(" \t\r\n") - first + 1);
    from = end + 1;
    if (line.empty()) continue;
    std::vector<std::string> f;
    for (std::size_t at = 0;;) {
      const auto bar = line.find('|', at);
      f.push_back(line.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
      if (bar == std::string::npos) break;
      at = bar + 1;
    }
    const auto tag = [&](std::size_t k, const std::string& t) { return f.size() > k && f[k].rfind(t, 0) == 0; };
    const bool ordered = f.size() >= 11 && tag(6, "prio=");
    const bool with_qos = ordered && tag(11, "qos=") && tag(12, "uid=");
    const std::size_t comment = with_qos ? 13 : ordered ? 11 : 6;
    squeue_render::Fields x{{'i', f[0]}, {'T', f.size() > 1 ? f[1] : ""}, {'D', f.size() > 2 ? f[2] : ""},
                            {'N', f.size() > 3 ? f[3] : ""}, {'j', f.size() > 4 ? f[4] : ""},
                            {'r', f.size() > 5 ? f[5] : ""}, {'k', "(null)"}};
    for (std::size_t k = comment; k < f.size(); ++k) x['k'] = (k == comment ? "" : x['k'] + "|") + f[k];
    if (ordered) {
      x['Q'] = f[6].substr(5), x['V'] = f[7].substr(7), x['P'] = f[8].substr(5), x['S'] = f[9].substr(6);
      x['Y'] = f[10].substr(5);
    }
    if (with_qos) x['q'] = f[11].substr(4), x['U'] = f[12].substr(4);
    out += squeue_render::render(cluster::slurm::kSqueueFormat, x) + "\n";
  }
  return out;
}

// The job's own record as `squeue -h -j ID -o kSqueueFormat` prints it.
inline std::string own_record(const std::string& id, const std::string& node_list, const std::string& partition = "",
                              const std::string& qos = "", const std::string& state = "RUNNING") {
  const std::size_t n = cluster::slurm::expand_hostlist(node_list).size();
  return squeue_render::render(cluster::slurm::kSqueueFormat, {{'i', id}, {'T', state}, {'D', std::to_string(n)},
                                                               {'N', node_list}, {'P', partition}, {'q', qos},
                                                               {'j', "job"}, {'r', "None"}, {'k', "(null)"}}) +
         "\n";
}

// The view at time `t` of squeue's jobs written the short way (records()) and sinfo's idle list.
inline ClusterView view(const std::string& squeue, const std::string& idle, double t = 100) {
  return cluster::slurm::make_view(t, records(squeue), idle + "\n");
}

// Job `id` running 2 ranks on each of `nodes`, its node range [min_nodes, max_nodes].
inline JobState job(const std::string& id, std::vector<std::string> nodes, int min_nodes = 1, int max_nodes = 0) {
  JobState j;
  j.id = id;
  for (const auto& n : nodes) j.rank_hosts.insert(j.rank_hosts.end(), 2, n);
  j.per_node = 2;
  j.min_nodes = min_nodes;
  j.max_nodes = max_nodes;
  return j;
}

inline ArbiterOptions opts() {
  ArbiterOptions a;
  a.bid_window_s = 4;
  return a;
}

inline std::set<std::string> claimed(const Ledger& l) {
  std::set<std::string> out;
  for (const auto& e : l.entries)
    if (e.kind == LedgerEntry::Kind::Claim) out.insert(e.nodes.begin(), e.nodes.end());
  return out;
}

}  // namespace slurm_snapshot
