// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy: Slurm's output parsed and the decision taken (pure), and
// the commands run by a Runner (popen). The Policy that ties them to the session is
// slurm_policy.cpp.
#include "policy/slurm.hpp"
#include "common/config.hpp"

#include "policy/grid_choice.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace resize::slurm {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Splits at commas outside brackets.
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string pad(long v, std::size_t width) {
  std::string s = std::to_string(v);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  const std::string text = trim(list);
  if (text.empty() || text == "(null)") return out;
  for (const std::string& raw : split_top(text)) {
    const std::string item = trim(raw);
    if (item.empty()) throw Error("hostlist '" + list + "': empty entry");
    const auto open = item.find('[');
    if (open == std::string::npos) {
      if (item.find(']') != std::string::npos) throw Error("hostlist '" + list + "': ']' without '['");
      out.push_back(item);
      continue;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos) throw Error("hostlist '" + list + "': '[' without ']'");
    const std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    std::stringstream ranges(item.substr(open + 1, close - open - 1));
    for (std::string r; std::getline(ranges, r, ',');) {
      r = trim(r);
      const auto dash = r.find('-');
      const std::string a = r.substr(0, dash), b = dash == std::string::npos ? a : r.substr(dash + 1);
      if (!all_digits(a) || !all_digits(b))
        throw Error("hostlist '" + list + "': range '" + r + "' is not NUMBER or NUMBER-NUMBER");
      const long lo = std::stol(a), hi = std::stol(b);
      if (hi < lo || hi - lo > 100000) throw Error("hostlist '" + list + "': bad range '" + r + "'");
      for (long v = lo; v <= hi; ++v) out.push_back(prefix + pad(v, a.size()) + suffix);
    }
  }
  return out;
}

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  // Split names into prefix + trailing number. Per prefix, numbers written with a leading
  // zero fix a width (n08 n09 n10 -> n[08-10]); the others are unpadded (node9 node10 ->
  // node[9-10]). Names without a trailing number stay as they are.
  struct Name {
    std::string prefix, digits;
  };
  std::vector<Name> names;
  std::map<std::string, std::size_t> padded_width;  // prefix -> width of its padded numbers
  std::vector<std::string> plain;
  for (const auto& h : hosts) {
    std::size_t d = h.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(h[d - 1]))) --d;
    if (d == h.size()) {
      plain.push_back(h);
      continue;
    }
    names.push_back(Name{h.substr(0, d), h.substr(d)});
    if (names.back().digits.size() > 1 && names.back().digits[0] == '0')
      padded_width[names.back().prefix] = names.back().digits.size();
  }
  std::map<std::pair<std::string, std::size_t>, std::set<long>> groups;
  std::vector<std::pair<std::string, std::size_t>> order;
  for (const auto& n : names) {
    const auto pw = padded_width.find(n.prefix);
    const std::size_t width = pw != padded_width.end() && pw->second == n.digits.size() ? n.digits.size() : 0;
    const auto key = std::make_pair(n.prefix, width);
    if (!groups.count(key)) order.push_back(key);
    groups[key].insert(std::stol(n.digits));
  }
  std::string out;
  const auto add = [&](const std::string& s) {
    if (!out.empty()) out += ',';
    out += s;
  };
  for (const auto& key : order) {
    const auto& nums = groups[key];
    std::string inner;
    for (auto it = nums.begin(); it != nums.end();) {
      const long lo = *it;
      long hi = lo;
      while (++it != nums.end() && *it == hi + 1) hi = *it;
      if (!inner.empty()) inner += ',';
      inner += pad(lo, key.second);
      if (hi > lo) {
        inner += '-';
        inner += pad(hi, key.second);
      }
    }
    add(nums.size() == 1 ? key.first + inner : key.first + "[" + inner + "]");
  }
  for (const auto& p : plain) add(p);
  return out;
}

std::vector<Job> parse_squeue(const std::string& text) {
  std::vector<Job> jobs;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty()) continue;
    std::vector<std::string> f;  // split keeping empty fields (an empty NODELIST is last)
    for (std::size_t at = 0;;) {
      const auto bar = line.find('|', at);
      f.push_back(trim(line.substr(at, bar == std::string::npos ? std::string::npos : bar - at)));
      if (bar == std::string::npos) break;
      at = bar + 1;
    }
    // Slurm's order (kSqueueFormat): six tagged fields before the comment, eight with the
    // QOS and the owner (qos=, uid=; a view recorded before them has six).
    const bool ordered = f.size() >= 11 && f[6].rfind("prio=", 0) == 0;
    const bool with_qos = ordered && f.size() >= 13 && f[11].rfind("qos=", 0) == 0 && f[12].rfind("uid=", 0) == 0;
    const std::size_t comment = with_qos ? 13 : ordered ? 11 : 6;
    if (f.size() > comment + 1) {  // a '|' inside the comment, the last field
      for (std::size_t k = comment + 1; k < f.size(); ++k) f[comment] += "|" + f[k];
      f.resize(comment + 1);
    }
    if (f.size() < 4 || f[0].empty() || !all_digits(f[2]) || f[2].size() > 9)
      throw Error("squeue: cannot read the line '" + line +
                  "' (expected ID|STATE|NODES|NODELIST[|NAME[|REASON[|COMMENT]]] or the fields of " + kSqueueFormat +
                  ")");
    Job j{f[0], f[1], std::stoi(f[2]), expand_hostlist(f[3]), f.size() >= 5 ? f[4] : std::string(),
          f.size() >= 6 ? f[5] : std::string()};
    if (ordered) {
      const auto field = [&](std::size_t k, const char* tag) {
        const std::string t = tag;
        if (f[k].rfind(t, 0) != 0)
          throw Error("squeue: field " + std::to_string(k + 1) + " of the line '" + line + "' does not start with '" + t +
                      "' (" + kSqueueFormat + ")");
        return f[k].substr(t.size());
      };
      try {
        const std::string prio = field(6, "prio=");
        if (!prio.empty() && (!all_digits(prio) || prio.size() > 15))
          throw Error("squeue: priority '" + prio + "' is not a number");
        j.priority = prio.empty() ? 0 : std::stod(prio);
        j.submit = parse_slurm_time(field(7, "submit="));
        j.partition = field(8, "part=");
        j.planned_start = parse_slurm_time(field(9, "start="));
        j.planned_nodes = expand_hostlist(field(10, "plan="));
        j.qos = with_qos && field(11, "qos=") != "(null)" ? field(11, "qos=") : "";  // (null): no accounting
        j.uid = with_qos ? field(12, "uid=") : "";
        if (!j.uid.empty() && (!all_digits(j.uid) || j.uid.size() > 10)) throw Error("squeue: uid '" + j.uid + "' is not a number");
      } catch (const Error& e) {
        const std::string what = e.what();
        throw Error(what.find(line) != std::string::npos ? what : what + " in the line '" + line + "'");
      }
      if (j.state != "PENDING") {  // %S and %Y of a running job: its start, no plan
        j.planned_start = 0;
        j.planned_nodes.clear();
      }
    }
    if (f.size() == comment + 1 && j.state == "PENDING") {
      const std::string& c = f[comment];
      const auto at = c.find("min_nodes=");
      const std::size_t from = at == std::string::npos ? 0 : at + 10;
      const std::string k = at == std::string::npos ? "" : c.substr(from, c.find_first_not_of("0123456789", from) - from);
      if (all_digits(k) && k.size() < 9 && std::stoi(k) > 0) j.nodes = std::min(j.nodes, std::stoi(k));
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

Job parse_scontrol_job(const std::string& text) {
  Job j;
  std::stringstream in(text);
  bool have_id = false;
  for (std::string tok; in >> tok;) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
    if (key == "JobId") {
      j.id = value;
      have_id = true;
    } else if (key == "JobState") {
      j.state = value;
    } else if (key == "NumNodes") {
      const std::string n = value.substr(0, value.find('-'));
      j.nodes = all_digits(n) ? std::stoi(n) : 0;
    } else if (key == "NodeList") {
      j.node_list = expand_hostlist(value);
    } else if (key == "Partition") {
      j.partition = value;
    } else if (key == "QOS") {
      j.qos = value == "(null)" ? "" : value;  // (null): Slurm without accounting
    }
  }
  if (!have_id) throw Error("scontrol show job: no JobId in '" + trim(text).substr(0, 120) + "'");
  return j;
}

namespace {

// Median steady-state iteration time of the last segment with `procs` processes.
std::optional<double> measured_time(const Metrics* m, int procs, bool dedicated) {
  if (!m) return std::nullopt;
  std::optional<double> t;
  for (const auto& s : m->segments())
    if (s.procs == procs) t = dedicated ? (s.median_compute > 0 ? s.median_compute : s.median_dedicated) : s.median_wall;
  return t;
}

// Does growing to `procs` processes pay before the job ends? The payoff rule: the
// predicted gain (iteration time now - measured there before) x
// iterations left must exceed the predicted resize time: spawn and other from the history
// of resizes (ResizeHistory, this run and earlier ones), redistribution as the latest
// expansion's (predicted by the cost model if calibrated, else measured). Unknown length
// or no measurement on that size yet: try it (the thesis's sweet-spot search).
bool growing_pays(const PolicyInput& in, const Options& o, int procs, Plan& p, std::string& why,
                  double* saving = nullptr) {
  if (o.total_iterations <= 0) {
    why = "job length unknown";
    return true;
  }
  const int left = o.total_iterations - in.iteration;
  if (left <= 1) {
    why = std::to_string(left) + " iteration(s) left";
    return false;
  }
  const auto now = measured_time(in.metrics, in.world_size, o.use_dedicated);
  const auto then = measured_time(in.metrics, procs, o.use_dedicated);
  if (!now || !then) {
    why = "no measurement on " + std::to_string(procs) + " processes yet";
    return true;
  }
  // The latest expansion, for what the history cannot say.
  const ResizeRecord* last = nullptr;
  if (in.metrics)
    for (const auto& r : in.metrics->resizes())
      if (r.ok && r.action == Action::Expand) last = &r;
  double t_spawn = last ? last->t_spawn : 0, t_other = last ? last->t_other : 0;
  double t_redist = last ? (last->predicted.t_redist >= 0 ? last->predicted.t_redist : last->t_redist) : 0;
  if (in.history) {
    if (const auto t = in.history->predict_spawn(Action::Expand, in.world_size, procs)) t_spawn = *t;
    if (const auto t = in.history->predict_other(Action::Expand, in.world_size, procs)) t_other = *t;
  }
  const auto pred = predict_payoff(*now, *then, t_spawn, t_redist, t_other, left);
  p.predicted_iteration = *then;
  p.measured_iteration = *now;
  p.predicted_resize = pred.t_resize;
  if (*then >= *now) {
    why = "measured slower on " + std::to_string(procs) + " processes";
    return false;
  }
  why = pred.why;
  if (saving) *saving = pred.gain - pred.t_resize;
  return pred.pays;
}

}  // namespace

Growth growth_from_metrics(const PolicyInput& in, const Options& o, int extra_nodes, int per_node) {
  Growth g;
  Plan p;
  double saving = 0;
  g.pays = growing_pays(in, o, in.world_size + extra_nodes * per_node, p, g.why, &saving);
  g.saving_s = g.pays ? std::max(0.0, saving) : 0;
  g.predicted_iteration = p.predicted_iteration;
  g.predicted_resize = p.predicted_resize;
  g.measured_iteration = p.measured_iteration;
  // The iteration time on the current size, also when the other size was never measured
  // (a give-back weighs what fewer nodes would cost from it).
  if (g.measured_iteration < 0)
    if (const auto t = measured_time(in.metrics, in.world_size, o.use_dedicated)) g.measured_iteration = *t;
  if (o.total_iterations > 0) g.iterations_left = std::max(0, o.total_iterations - in.iteration);
  return g;
}

Plan decide(const Snapshot& s, const std::vector<std::string>& rank_hosts, const Options& o,
            const PolicyInput& in) {
  Plan p;
  if (rank_hosts.empty()) {
    p.why = "the nodes of the ranks are unknown";
    return p;
  }
  const std::string& root = rank_hosts.front();
  const std::set<std::string> used(rank_hosts.begin(), rank_hosts.end());
  const auto& held = s.mine.node_list;
  std::vector<std::string> unused;
  for (const auto& h : held)
    if (!used.count(h)) unused.push_back(h);
  const int per_node = o.procs_per_node > 0
                           ? o.procs_per_node
                           : static_cast<int>(std::count(rank_hosts.begin(), rank_hosts.end(), root));

  // 1. Give back what a waiting job needs beyond the idle nodes: nodes running nothing
  // first, then the nodes joined last (whole spawn groups), never rank 0's.
  // Waiting jobs in Slurm's order (s.pending); the idle nodes each can start on: those of
  // its partition.
  const auto idle_for = [&](const Job& w) {
    return static_cast<int>(std::count_if(s.idle.begin(), s.idle.end(),
                                          [&](const std::string& h) { return in_partition(s.partitions, w.partition, h); }));
  };
  for (const Job& w : s.pending) {
    const int idle_w = idle_for(w);
    const int need = w.nodes - idle_w;
    if (need <= 0) break;  // it starts without us
    std::vector<std::string> candidates = unused;
    for (auto it = rank_hosts.rbegin(); it != rank_hosts.rend(); ++it)
      if (*it != root && std::find(candidates.begin(), candidates.end(), *it) == candidates.end() &&
          std::find(held.begin(), held.end(), *it) != held.end())
        candidates.push_back(*it);
    const int can = std::min<int>(static_cast<int>(candidates.size()), static_cast<int>(held.size()) - o.min_nodes);
    if (need > can) {
      p.why = "job " + w.id + " waits for " + std::to_string(w.nodes) + " nodes; giving back " + std::to_string(need) +
              " would leave fewer than " + std::to_string(o.min_nodes);
      return p;
    }
    p.kind = Plan::Kind::GiveBack;
    p.nodes.assign(candidates.begin(), candidates.begin() + need);
    p.why = "job " + w.id + " waits for " + std::to_string(w.nodes) + " node(s), " + std::to_string(idle_w) +
            " idle";
    return p;
  }
  if (!s.pending.empty()) {
    p.why = "jobs are waiting; not growing";
    return p;
  }
  // 2. Nodes the job holds but runs nothing on: grow onto them.
  if (!unused.empty()) {
    p.kind = Plan::Kind::UseHeld;
    p.nodes = unused;
    p.why = std::to_string(unused.size()) + " node(s) of the allocation run nothing";
    return p;
  }
  // 3. Idle nodes of its partition that the backfill plan starts no waiting job on: ask
  // for them if growing pays, within the partition's MaxNodes.
  std::string left_out;
  const std::vector<std::string> free = growable_idle(s, s.idle, &left_out);
  const int part_max = partition_max_nodes(s.partitions, s.mine.partition);
  const int cap = part_max > 0 && (o.max_nodes <= 0 || part_max < o.max_nodes) ? part_max : o.max_nodes;
  const int room = std::min<int>(static_cast<int>(free.size()), cap - static_cast<int>(held.size()));
  if (room <= 0) {
    p.why = s.idle.empty() ? "no idle node"
            : free.empty() ? "no idle node to grow onto (" + left_out + ")"
                           : "at the node limit (" + std::to_string(cap) + (cap == part_max ? ", the partition's" : "") + ")";
    return p;
  }
  std::string why;
  if (!growing_pays(in, o, in.world_size + room * per_node, p, why)) {
    p.why = std::to_string(room) + " idle node(s), but growing does not pay: " + why;
    return p;
  }
  p.kind = Plan::Kind::Acquire;
  p.acquire = room;
  // Named when Slurm must not choose among all idle nodes (salloc -w): some are of
  // another partition or planned for a waiting job.
  if (!left_out.empty()) p.nodes.assign(free.begin(), free.begin() + room);
  p.why = std::to_string(room) + " idle node(s); " + why + (left_out.empty() ? "" : " (" + left_out + ": left out)");
  return p;
}

// ---- commands ------------------------------------------------------------------------

Client::Client(Runner run, std::string job_id) : run_(std::move(run)), job_(std::move(job_id)) {
  if (job_.empty()) throw Error("slurm policy: not inside a Slurm job ($SLURM_JOB_ID is unset)");
  if (!all_digits(job_)) throw Error("slurm policy: job id '" + job_ + "' is not a number");
}

Command Client::run_checked(const std::string& cmd, const std::string& what) {
  Command c = run_(cmd);
  // Slurm answers some updates with "try again in a bit" while it records the job.
  for (int k = 0; k < 10 && c.status != 0 && c.out.find("try again") != std::string::npos; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    c = run_(cmd);
  }
  if (c.status != 0)
    throw Error(what + " failed (`" + cmd + "` exited " + std::to_string(c.status) + ": " + trim(c.out) + ")");
  return c;
}

std::vector<std::string> Client::held() {
  return parse_scontrol_job(run_checked("scontrol show job -o " + job_, "reading the job").out).node_list;
}

Snapshot Client::snapshot() {
  Snapshot s;
  s.mine = parse_scontrol_job(run_checked("scontrol show job -o " + job_, "reading the job").out);
  const std::string sinfo = run_checked(kIdleCommand, "reading idle nodes").out;
  s.idle = idle_nodes(sinfo);
  s.partitions = parse_partitions(sinfo);
  // with name, reason and comment: a waiting malleable job's comment names its minimum
  // (parse_squeue), which is what it waits for; Slurm's own %D estimate may be its
  // maximum. Priority, submit time, partition and the backfill plan: Slurm's order.
  std::vector<Job> waiting = parse_squeue(
      run_checked(std::string("squeue -h -t PD --sort=V -o '") + kSqueueFormat + "'", "reading waiting jobs").out);
  sort_slurm_order(waiting);
  for (Job& j : waiting)
    if (j.id != job_ && competes(s.partitions, s.mine, j.partition)) s.pending.push_back(std::move(j));
  return s;
}

void Client::release(const std::vector<std::string>& keep) {
  if (keep.empty()) throw Error("slurm: refusing to release every node of the job");
  run_checked("scontrol update JobId=" + job_ + " NodeList=" + compress_hostlist(keep), "giving nodes back");
  auto now = held();
  std::sort(now.begin(), now.end());
  auto want = keep;
  std::sort(want.begin(), want.end());
  if (now != want)
    throw Error("giving nodes back: Slurm still lists " + compress_hostlist(now) + " for job " + job_ +
                ", expected " + compress_hostlist(keep));
}

std::vector<std::string> Client::acquire(int nodes) { return acquire_with(nodes, ""); }

std::vector<std::string> Client::acquire(const std::vector<std::string>& nodes) {
  if (nodes.empty()) throw Error("slurm: asking for no node");
  return acquire_with(static_cast<int>(nodes.size()), " -w " + compress_hostlist(nodes));
}

std::vector<std::string> Client::acquire_with(int nodes, const std::string& which) {
  const Job me = parse_scontrol_job(run_checked("scontrol show job -o " + job_, "reading the job").out);
  const auto& before = me.node_list;
  // Slurm 22.05's expansion: a step-less allocation that depends on this job, handed over;
  // in the job's partition and QOS (salloc's defaults are the default ones; another QOS is
  // refused, "Job dependency problem", seen with slurmdbd on the emulated cluster).
  const auto opt = [](const char* flag, const std::string& v) {
    return v.empty() || v.find_first_of(" '\"$`;|&") != std::string::npos ? std::string() : flag + v;
  };
  const std::string part = opt(" -p ", me.partition) + opt(" --qos=", me.qos);
  const Command got = run_checked("salloc -N " + std::to_string(nodes) + which +
                                      " --no-shell --immediate=10 -J malleable-expand" + " --dependency=expand:" + job_ +
                                      part,
                                  "asking Slurm for " + std::to_string(nodes) + " node(s)");
  const auto at = got.out.find("Granted job allocation ");
  if (at == std::string::npos) throw Error("asking Slurm for nodes: no allocation in '" + trim(got.out) + "'");
  std::string other;
  for (std::size_t k = at + 23; k < got.out.size() && std::isdigit(static_cast<unsigned char>(got.out[k])); ++k)
    other += got.out[k];
  const auto gained = [&] {
    std::vector<std::string> added;
    for (const auto& h : held())
      if (std::find(before.begin(), before.end(), h) == before.end()) added.push_back(h);
    return added;
  };
  try {
    run_checked("scontrol update JobId=" + other + " NumNodes=0", "handing the new allocation over");
  } catch (const Error&) {
    run_("scancel " + other);
    throw;
  }
  // Without an accounting database Slurm 22.05 answers this update with "the DB index is
  // being set, try again" for as long as the job runs, yet performs it: what counts is
  // whether the job holds the nodes afterwards.
  const Command merge = run_("scontrol update JobId=" + job_ + " NumNodes=ALL");
  std::vector<std::string> added = gained();
  for (int k = 0; k < 10 && static_cast<int>(added.size()) < nodes; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    added = gained();
  }
  if (static_cast<int>(added.size()) != nodes) {
    run_("scancel " + other);
    throw Error("merging " + std::to_string(nodes) + " new node(s) into job " + job_ + " failed: the job gained " +
                std::to_string(added.size()) + " (`scontrol update JobId=" + job_ + " NumNodes=ALL` said: " +
                trim(merge.out) + ")");
  }
  return added;
}

namespace {
int env_int(const config::Text& v, const char* name, int fallback) {
  if (!v || v->empty()) return fallback;
  if (!all_digits(*v)) throw Error(std::string(name) + " must be a non-negative integer, got '" + *v + "'");
  return std::stoi(*v);
}
double env_seconds(const config::Text& v, const char* name, double fallback) {
  if (!v || v->empty()) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  if (*end || !(x >= 0)) throw Error(std::string(name) + " must be a number >= 0, got '" + *v + "'");
  return x;
}
}  // namespace

std::unique_ptr<Policy> make_slurm_policy(int total_iterations) {
  const config::Slurm env = config::read().slurm;
  Options o;
  o.procs_per_node = env_int(env.procs_per_node, "RESIZE_SLURM_PROCS_PER_NODE", 0);
  o.min_nodes = std::max(1, env_int(env.min_nodes, "RESIZE_SLURM_MIN_NODES", 1));
  o.max_nodes = env_int(env.max_nodes, "RESIZE_SLURM_MAX_NODES", 0);
  o.total_iterations = env_int(env.iterations, "RESIZE_SLURM_ITERATIONS", total_iterations);
  o.verbose = true;
  o.interval_s = env_seconds(env.interval, "RESIZE_SLURM_INTERVAL", o.interval_s);
  if (env.backoff && !env.backoff->empty()) {
    o.refused_backoff_s = env_seconds(env.backoff, "RESIZE_SLURM_BACKOFF", 0);
    o.refused_backoff_max_s = std::max(o.refused_backoff_max_s, o.refused_backoff_s);
  }
  o.jitter = std::min(0.9, env_seconds(env.jitter, "RESIZE_SLURM_JITTER", o.jitter));
  if (env.launched_hosts && !env.launched_hosts->empty()) o.launch.on = expand_hostlist(*env.launched_hosts);
  auto client = std::make_unique<Client>(shell_runner(), env.job_id.value_or(""));
  o.arbiter.socket = env.arbiter.value_or("");
  o.arbiter.munge_socket = env.arbiter_munge.value_or("");
  // With an arbiter, no shared directory: its default needs no cluster name then.
  const std::string shared = o.arbiter.socket.empty() ? env.shared.value_or("") : "off";
  const std::string exp = env.expansion && !env.expansion->empty() ? *env.expansion : "auto";
  if (exp != "auto" && exp != "on" && exp != "off")
    throw Error("RESIZE_SLURM_EXPANSION must be auto, on or off, got '" + exp + "'");
  const std::string late = env.late_daemons && !env.late_daemons->empty() ? *env.late_daemons : "off";
  if (late != "on" && late != "off") throw Error("RESIZE_SLURM_LATE_DAEMONS must be on or off, got '" + late + "'");
  o.launch.late_daemons = late == "on";
  const std::string home = env.home.value_or(""), job = client->job_id();
  // At the first decision, on world rank 0 only: one query of the configuration per job
  // start, for the cluster's name (the shared directory's default) and whether it
  // permits job expansion.
  o.configure = [shared, exp, home, job](Options& o) {
    std::string config;
    if (exp == "auto" || shared.empty()) {
      const Command c = shell_runner()("scontrol show config");
      if (c.status != 0) throw Error("`scontrol show config` failed: " + trim(c.out));
      config = c.out;
    }
    o.expansion = exp == "auto" ? expansion_permitted(config) : exp == "on";
    if (!config.empty()) o.one_update = updates_once(config);
    o.shared_group = false;
    if (shared == "off") {
      o.shared_dir.clear();
    } else if (!shared.empty()) {
      o.shared_dir = shared;
      o.shared_group = true;
    } else {
      std::string cluster = "cluster";
      std::istringstream in(config);
      for (std::string line; std::getline(in, line);)
        if (line.rfind("ClusterName", 0) == 0 && line.find('=') != std::string::npos)
          cluster = trim(line.substr(line.find('=') + 1));
      if (home.empty()) throw Error("$HOME is unset; set RESIZE_SLURM_SHARED to a shared directory");
      o.shared_dir = home + "/.malleable/slurm/" + cluster;
    }
    // The mode it runs in, said once: per-user (this user's directory, 0700, files 0600),
    // shared-group (RESIZE_SLURM_SHARED, files 0660 in the directory's group) or alone.
    const std::string mode = !o.arbiter.socket.empty() ? "mode arbiter: " + o.arbiter.socket + " (RESIZE_ARBITER; MUNGE-authenticated, one per cluster)"
                             : o.shared_dir.empty() ? "alone (RESIZE_SLURM_SHARED=off)"
                             : o.shared_group
                                 ? "mode shared-group: directory " + o.shared_dir +
                                       " (RESIZE_SLURM_SHARED; files 0660 in its group: every member can write any entry)"
                                 : "mode per-user: directory " + o.shared_dir +
                                       " (0700, files 0600; jobs of other users are not arbitrated with)";
    std::printf("[slurm] job %s: %s; growth %s; %s\n", job.c_str(), mode.c_str(),
                o.expansion ? "by job expansion (permit_job_expansion)"
                            : "by restart into a new allocation (no permit_job_expansion)",
                exp == "auto" ? "from scontrol show config" : "RESIZE_SLURM_EXPANSION set");
    std::fflush(stdout);
  };
  return std::make_unique<SlurmPolicy>(std::move(client), o);
}

}  // namespace resize::slurm
