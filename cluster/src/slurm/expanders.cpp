// SPDX-License-Identifier: BSD-3-Clause
// Expander jobs (expanders.hpp), pure: their sbatch argv, Slurm's answers read, their book.
#include "malleable/cluster/expander.hpp"

#include "malleable_internal/job_dir_layout.hpp"
#include "slurm/number.hpp"
#include "slurm/text.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace cluster::slurm {

namespace {

constexpr const char* kNamePrefix = "malleable-expand-";
constexpr const char* kCommentPrefix = "malleable-expander-of=";

bool digits(const std::string& s, std::size_t most) {
  return !s.empty() && s.size() <= most && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A Slurm name (node, partition, account, QOS): [A-Za-z0-9._-], not starting with '-' (it
// would read as an option), at most 128 characters.
bool plain_name(const std::string& s) {
  return !s.empty() && s.size() <= 128 && s[0] != '-' &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; });
}

// A path or argument of plain characters ([A-Za-z0-9._/+=:-], not starting with '-').
bool plain_word(const std::string& s) {
  return !s.empty() && s.size() <= 4096 && s[0] != '-' &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '.' || c == '_' || c == '/' || c == '+' || c == '=' || c == ':' || c == '-';
         });
}

void need(bool ok, const std::string& what, const std::string& value) {
  if (!ok) throw Error("expander job: " + what + " '" + value.substr(0, 200) + "' is not allowed");
}

}  // namespace

std::string expander_name(const std::string& job_id) { return kNamePrefix + job_id; }
std::string expander_comment(const std::string& job_id) { return kCommentPrefix + job_id; }

std::string expander_of(const std::string& name) {
  const std::string p = kNamePrefix;
  if (name.rfind(p, 0) != 0) return {};
  const std::string id = name.substr(p.size());
  return digits(id, 18) ? id : std::string();
}

std::vector<std::string> expander_submit_argv(const ExpanderRequest& r) {
  need(digits(r.job_id, 18), "job id", r.job_id);
  need(plain_name(r.node), "node", r.node);
  need(plain_name(r.launch) && malleable::job_dir::valid_launch_id(r.launch), "launch", r.launch);
  need(r.procs >= 1 && r.procs <= 4096, "process count", std::to_string(r.procs));
  need(r.time_limit_min > 0 && r.time_limit_min <= 525600 * 10, "time limit", std::to_string(r.time_limit_min));
  need(r.launcher.size() > 1 && r.launcher[0] == '/' && plain_word(r.launcher), "launcher", r.launcher);
  need(r.dir.size() > 1 && r.dir[0] == '/' && plain_word(r.dir), "job directory", r.dir);
  std::vector<std::string> argv{"sbatch",
                                "--parsable",
                                "--nodes=1",
                                "--nodelist=" + r.node,
                                "--exclusive",
                                "--ntasks=" + std::to_string(r.procs),
                                "--job-name=" + expander_name(r.job_id),
                                "--comment=" + expander_comment(r.job_id),
                                "--time=" + std::to_string(r.time_limit_min),
                                "--no-requeue",
                                "--output=" + malleable::job_dir::expander_output(r.dir)};
  if (!r.partition.empty()) {
    need(plain_name(r.partition), "partition", r.partition);
    argv.push_back("--partition=" + r.partition);
  }
  if (!r.account.empty()) {
    need(plain_name(r.account), "account", r.account);
    argv.push_back("--account=" + r.account);
  }
  if (!r.qos.empty()) {
    need(plain_name(r.qos), "QOS", r.qos);
    argv.push_back("--qos=" + r.qos);
  }
  // the batch script: the launcher's joining launch, its command line from the shared layout
  // (--wrap: the launcher may be a program, and sbatch runs only scripts)
  malleable::job_dir::JoinLaunch l;
  l.dir = r.dir;
  l.host = r.node;
  l.id = r.launch;
  l.procs = r.procs;
  l.while_job = r.job_id;
  argv.push_back("--wrap=" + malleable::job_dir::join_wrap(r.launcher, l));
  return argv;
}

std::string parse_sbatch_id(const std::string& out) {
  const std::string t = trim(out);
  const std::string id = t.substr(0, t.find(';'));
  if (!digits(id, 18)) throw Error("sbatch --parsable: no job id in '" + t.substr(0, 200) + "'");
  return id;
}

long parse_time_left_min(const std::string& text) {
  const std::string s = trim(text);
  if (s == "UNLIMITED" || s == "NOT_SET" || s == "INFINITE") return -1;
  long days = 0;
  std::string hms = s;
  if (const auto dash = s.find('-'); dash != std::string::npos) {
    const std::string d = s.substr(0, dash);
    const auto v = whole_number(d, 99999);
    if (!v) throw Error("squeue: time left '" + s.substr(0, 40) + "' is not [D-]HH:MM:SS");
    days = static_cast<long>(*v);
    hms = s.substr(dash + 1);
  }
  std::vector<long> parts;
  std::stringstream in(hms);
  for (std::string p; std::getline(in, p, ':');) {
    const auto v = p.size() <= 2 ? whole_number(p, 99) : std::nullopt;
    if (!v) throw Error("squeue: time left '" + s.substr(0, 40) + "' is not [D-]HH:MM:SS");
    parts.push_back(static_cast<long>(*v));
  }
  if (parts.size() < 2 || parts.size() > 3 || (days > 0 && parts.size() != 3))
    throw Error("squeue: time left '" + s.substr(0, 40) + "' is not [D-]HH:MM:SS");
  const long h = parts.size() == 3 ? parts[0] : 0, m = parts[parts.size() - 2];
  return days * 1440 + h * 60 + m;
}

long expander_time_limit(long left_min, long margin_min, long cap_min) {
  if (left_min < 0) return cap_min;
  return left_min > margin_min ? std::min(left_min, cap_min) : 0;
}

const char* to_string(Expander::State s) {
  switch (s) {
    case Expander::State::Pending: return "pending";
    case Expander::State::Running: return "running";
    case Expander::State::Joined: return "joined";
    case Expander::State::Leaving: return "leaving";
  }
  return "?";
}

std::vector<ExpanderSeen> parse_expanders(const std::string& text) {
  std::vector<ExpanderSeen> out;
  std::set<std::string> ids;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty()) continue;
    const auto a = line.find('|'), b = a == std::string::npos ? a : line.find('|', a + 1);
    if (b == std::string::npos || line.find('|', b + 1) != std::string::npos)
      throw Error("squeue: cannot read the expander line '" + line.substr(0, 200) + "' (ID|STATE|NODE)");
    ExpanderSeen e{line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)};
    const bool state_ok = !e.state.empty() && e.state.size() <= 32 &&
                          std::all_of(e.state.begin(), e.state.end(), [](unsigned char c) { return std::isupper(c) || c == '_'; });
    if (!digits(e.id, 18) || !state_ok || (!e.node.empty() && !plain_name(e.node)))
      throw Error("squeue: cannot read the expander line '" + line.substr(0, 200) + "' (ID|STATE|NODE)");
    if (!ids.insert(e.id).second) throw Error("squeue: expander " + e.id + " listed twice");
    out.push_back(std::move(e));
  }
  return out;
}

ExpanderUpdate update_expanders(std::vector<Expander>& book, const std::vector<ExpanderSeen>& seen, double now,
                                double start_deadline_s) {
  ExpanderUpdate u;
  std::vector<Expander> kept;
  for (Expander& e : book) {
    const auto it = std::find_if(seen.begin(), seen.end(), [&](const ExpanderSeen& s) { return s.id == e.id; });
    const bool ended = it == seen.end() || it->state == "COMPLETED" || it->state == "CANCELLED" ||
                       it->state == "FAILED" || it->state == "TIMEOUT" || it->state == "NODE_FAIL" ||
                       it->state == "PREEMPTED" || it->state == "OUT_OF_MEMORY" || it->state == "BOOT_FAIL" ||
                       it->state == "DEADLINE";
    if (ended) {
      u.vanished.push_back(e.id);
      u.why.push_back("expander " + e.id + " on " + e.node + " (" + to_string(e.state) + ") ended" +
                      (it == seen.end() ? "" : " (" + it->state + ")"));
      continue;
    }
    if (it->state == "PENDING" || it->state == "CONFIGURING") {
      if (e.state == Expander::State::Pending && now - e.submitted_at > start_deadline_s) {
        u.cancel.push_back(e.id);
        u.why.push_back("expander " + e.id + " for " + e.node + " did not start within " +
                        std::to_string(static_cast<long>(start_deadline_s)) + " s: cancelled");
      }
    } else if (it->state == "RUNNING") {
      if (!it->node.empty() && it->node != e.node) {
        u.cancel.push_back(e.id);
        u.why.push_back("expander " + e.id + " runs on " + it->node + ", not on " + e.node + " as asked: cancelled");
      } else if (e.state == Expander::State::Pending) {
        e.state = Expander::State::Running;
        e.running_at = now;
        u.started.push_back(e.id);
      }
    }
    kept.push_back(e);
  }
  book = std::move(kept);
  return u;
}

}  // namespace cluster::slurm
