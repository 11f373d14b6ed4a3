// SPDX-License-Identifier: BSD-3-Clause
#include "swf.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

namespace clustersim {

namespace {

constexpr const char* kFieldNames[18] = {
    "job number",        "submit time",         "wait time",        "run time",       "allocated processors",
    "average CPU time",  "used memory",         "requested processors", "requested time", "requested memory",
    "status",            "user",                "group",            "executable",     "queue",
    "partition",         "preceding job",       "think time"};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

[[noreturn]] void bad(int line, int field, const std::string& what) {
  throw Error("line " + std::to_string(line) + ", field " + std::to_string(field + 1) + " (" + kFieldNames[field] +
              "): " + what);
}

double number(const std::string& tok, int line, int field) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(tok.c_str(), &end);
  if (end == tok.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    bad(line, field, "'" + tok + "' is not a number");
  if (v < -1) bad(line, field, tok + " is below -1 (the format's 'unknown')");
  return v;
}

void header_line(SwfHeader& h, const std::string& body) {
  const auto colon = body.find(':');
  if (colon == std::string::npos) {
    if (!trim(body).empty()) h.notes.push_back(trim(body));
    return;
  }
  const std::string key = trim(body.substr(0, colon)), value = trim(body.substr(colon + 1));
  auto as_long = [&](long& out) {
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (end != value.c_str()) out = v;  // "UNKNOWN" leaves -1
  };
  if (key == "Version" || key == "SWFversion") h.version = value;
  else if (key == "Computer") h.computer = value;
  else if (key == "Installation") h.installation = value;
  else if (key == "Acknowledge") h.acknowledge = value;
  else if (key == "Information") h.information = value;
  else if (key == "Conversion") h.conversion = value;
  else if (key == "UnixStartTime") as_long(h.unix_start);
  else if (key == "TimeZone") as_long(h.time_zone);
  else if (key == "TimeZoneString") h.time_zone_name = value;
  else if (key == "MaxNodes") as_long(h.max_nodes);
  else if (key == "MaxProcs") as_long(h.max_procs);
  else h.notes.push_back(trim(body));
}

}  // namespace

SwfTrace parse_swf(const std::string& text) {
  SwfTrace t;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = trim(raw);
    if (s.empty()) continue;
    if (s[0] == ';') {
      header_line(t.header, s.substr(1));
      continue;
    }
    std::istringstream fields(s);
    std::vector<std::string> tok;
    for (std::string f; fields >> f;) tok.push_back(f);
    if (tok.size() != 18)
      throw Error("line " + std::to_string(line) + ": " + std::to_string(tok.size()) +
                  " fields, a Standard Workload Format record has 18");
    double v[18];
    for (int k = 0; k < 18; ++k) v[k] = number(tok[k], line, k);
    if (v[1] < 0) bad(line, 1, "a submit time must be known (>= 0)");
    if (v[10] > 5) bad(line, 10, tok[10] + " is not a status (-1, 0-5)");
    SwfRecord r;
    r.line = line;
    r.job = static_cast<long>(v[0]);
    r.submit_s = v[1];
    r.wait_s = v[2];
    r.run_s = v[3];
    r.alloc_procs = static_cast<long>(v[4]);
    r.avg_cpu_s = v[5];
    r.used_mem_kb = v[6];
    r.req_procs = static_cast<long>(v[7]);
    r.req_time_s = v[8];
    r.req_mem_kb = v[9];
    r.status = static_cast<int>(v[10]);
    r.user = static_cast<long>(v[11]);
    r.group = static_cast<long>(v[12]);
    r.executable = static_cast<long>(v[13]);
    r.queue = static_cast<long>(v[14]);
    r.partition = static_cast<long>(v[15]);
    r.preceding = static_cast<long>(v[16]);
    r.think_s = v[17];
    t.records.push_back(r);
  }
  return t;
}

TraceJobs clean_swf(const SwfTrace& t, const SwfCleaning& c) {
  if (c.cores_per_node < 1) throw Error("cores per node must be at least 1");
  TraceJobs out;
  out.machine_nodes = c.machine_nodes;
  const auto& h = t.header;
  if (out.machine_nodes <= 0 && h.max_nodes > 0 && h.max_procs > 0 && h.max_procs / c.cores_per_node != h.max_nodes)
    throw Error(std::to_string(c.cores_per_node) + " processors per node make the header's MaxProcs " +
                std::to_string(h.max_procs) + " into " + std::to_string(h.max_procs / c.cores_per_node) +
                " nodes, but its MaxNodes is " + std::to_string(h.max_nodes) +
                ": give the machine's size (--nodes) or the processors per node that match");
  if (out.machine_nodes <= 0 && t.header.max_nodes > 0) out.machine_nodes = static_cast<int>(t.header.max_nodes);
  if (out.machine_nodes <= 0 && t.header.max_procs > 0)
    out.machine_nodes = static_cast<int>(t.header.max_procs / c.cores_per_node);
  if (out.machine_nodes <= 0) throw Error("the machine's size is unknown: no MaxNodes or MaxProcs in the header, none given");
  std::vector<const SwfRecord*> sorted;
  for (const auto& r : t.records) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const SwfRecord* a, const SwfRecord* b) { return a->submit_s < b->submit_s; });
  SwfCounts& n = out.counts;
  n.records = t.records.size();
  std::size_t kept = 0;
  double origin = -1;
  for (const SwfRecord* r : sorted) {
    const long procs = r->alloc_procs > 0 ? r->alloc_procs : r->req_procs;
    double run = r->run_s;
    if (run <= 0 && r->avg_cpu_s > 0) {
      ++n.cpu_only;
      n.cpu_only_proc_s += r->avg_cpu_s * static_cast<double>(std::max(1L, procs));
      if (c.cpu_as_run) run = r->avg_cpu_s;
    }
    if (run <= 0) {
      ++(r->status == 5 ? n.cancelled : n.no_run_time);
      continue;
    }
    if (run > kMaxPlausibleS || r->req_time_s > kMaxPlausibleS) {
      ++n.implausible;
      continue;
    }
    const long named = r->alloc_nodes > 0 ? r->alloc_nodes : r->req_nodes;
    if ((named <= 0 || c.nodes_from_procs) && procs <= 0) {
      ++n.zero_procs;
      continue;
    }
    const long nodes = named > 0 && !c.nodes_from_procs ? named : (procs + c.cores_per_node - 1) / c.cores_per_node;
    if (nodes > out.machine_nodes) {
      ++n.too_large;
      continue;
    }
    const std::size_t index = kept++;
    if (index < c.first || (c.count > 0 && index >= c.first + c.count)) {
      ++n.outside_window;
      continue;
    }
    if (origin < 0) out.origin_s = origin = r->submit_s;
    TraceJob j;
    if (!r->id.empty()) {
      j.id = r->id;
    } else {
      j.id.assign(1, 'j');  // (not "j" + to_string: GCC 12's false -Wrestrict)
      j.id += std::to_string(r->job);
    }
    j.submit_s = r->submit_s - origin;
    j.wait_s = r->wait_s;
    j.run_s = run;
    j.nodes = static_cast<int>(nodes);
    j.requested_s = r->req_time_s > 0 ? r->req_time_s : -1;
    j.user = r->user;
    j.queue = r->queue;
    j.partition = r->partition;
    j.status = r->status;
    out.jobs.push_back(std::move(j));
  }
  n.kept = out.jobs.size();
  return out;
}

RecordedMetrics recorded_metrics(const TraceJobs& t) {
  RecordedMetrics m;
  if (t.jobs.empty()) throw Error("no jobs in the trace's window");
  m.waits_known = std::all_of(t.jobs.begin(), t.jobs.end(), [](const TraceJob& j) { return j.wait_s >= 0; });
  double first = t.jobs.front().submit_s, last = 0, wait = 0, turn = 0, node_s = 0;
  std::vector<double> waits;
  for (const auto& j : t.jobs) {
    const double w = std::max(0.0, j.wait_s);
    waits.push_back(w);
    if (j.requested_s > 0 && j.run_s >= j.requested_s) ++m.reached_limit;
    first = std::min(first, j.submit_s);
    last = std::max(last, j.submit_s + w + j.run_s);
    wait += w;
    turn += w + j.run_s;
    node_s += j.nodes * j.run_s;
  }
  const double n = static_cast<double>(t.jobs.size());
  m.makespan_s = last - first;
  m.mean_wait_s = m.waits_known ? wait / n : -1;
  std::sort(waits.begin(), waits.end());
  const std::size_t mid = waits.size() / 2;
  if (m.waits_known) m.median_wait_s = waits.size() % 2 ? waits[mid] : (waits[mid - 1] + waits[mid]) / 2;
  m.mean_turnaround_s = turn / n;
  m.utilisation = m.makespan_s > 0 ? node_s / (t.machine_nodes * m.makespan_s) : 0;
  return m;
}

Workload trace_workload(const TraceJobs& t, const TraceModel& m) {
  if (!(m.malleable_share >= 0 && m.malleable_share <= 1)) throw Error("the malleable share must be in [0, 1]");
  if (!(m.serial_lo >= 0 && m.serial_lo <= m.serial_hi && m.serial_hi < 1))
    throw Error("the serial fractions must satisfy 0 <= lo <= hi < 1");
  if (!(m.iteration_s > 0)) throw Error("the iteration length must be > 0");
  if (!(m.arrival_scale > 0)) throw Error("the arrival scale must be > 0");
  Workload w;
  w.model = "swf";
  w.seed = static_cast<long>(m.seed);
  w.nodes = t.machine_nodes;
  w.malleable_share = m.malleable_share;
  for (const auto& c : m.apps)
    if (!(c.serial >= 0 && c.serial < 1 && c.comm >= 0 && c.comm < 1))
      throw Error("speedup curve " + c.app + ": serial and comm must be in [0, 1)");
  std::mt19937_64 rng(m.seed);
  std::mt19937_64 app_rng(m.seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const auto& tj : t.jobs) {
    Job j;
    j.id = tj.id;
    j.submit_s = tj.submit_s * m.arrival_scale;
    j.nodes = tj.nodes;
    // Both draws for every job, so that the share changes which jobs are malleable and
    // nothing else: the same serial fractions in every arm.
    const double pick = unit(rng), s = m.serial_lo + (m.serial_hi - m.serial_lo) * unit(rng);
    j.malleable = pick < m.malleable_share;
    j.min_nodes = j.malleable ? (tj.nodes + 1) / 2 : tj.nodes;
    j.max_nodes = j.malleable ? std::min(t.machine_nodes, 2 * tj.nodes) : tj.nodes;
    j.program = "trace";
    j.user = tj.user;
    j.serial_fraction = s;
    if (!m.apps.empty()) {
      const auto& c = m.apps[std::min(m.apps.size() - 1, static_cast<std::size_t>(unit(app_rng) * m.apps.size()))];
      j.program = c.app;
      j.serial_fraction = c.serial;
      j.comm_fraction = c.comm;
    }
    j.work_node_s = 1;
    j.work_node_s = tj.run_s / j.runtime_s(tj.nodes);  // its recorded time on its recorded nodes
    j.iterations = std::max(1, static_cast<int>(std::lround(tj.run_s / m.iteration_s)));
    if (m.requested_estimates && tj.requested_s > 0) j.limit_s = std::max(tj.requested_s, tj.run_s);
    w.jobs.push_back(std::move(j));
  }
  return w;
}

}  // namespace clustersim

namespace clustersim {

std::vector<TraceModel::Curve> parse_speedup_curves(const std::string& json_text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("speedup file: not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("curves") || !doc["curves"].is_array() || doc["curves"].empty())
    throw Error("speedup file: 'curves' must be a non-empty array");
  std::vector<TraceModel::Curve> out;
  for (const auto& c : doc["curves"]) {
    TraceModel::Curve k;
    try {
      k.app = c.at("app").get<std::string>() + (c.contains("size") ? " " + c.at("size").get<std::string>() : "");
      k.serial = c.at("serial").get<double>();
      k.comm = c.at("comm").get<double>();
    } catch (const nlohmann::json::exception&) {
      throw Error("speedup file: a curve needs app (string), serial and comm (numbers)");
    }
    if (!(k.serial >= 0 && k.serial < 1 && k.comm >= 0 && k.comm < 1))
      throw Error("speedup file: curve " + k.app + ": serial and comm must be in [0, 1)");
    out.push_back(std::move(k));
  }
  return out;
}

UserLimitEvidence infer_user_limits(const TraceJobs& t) {
  UserLimitEvidence e;
  struct Event {
    double t;
    int order;  // at one instant: ends (0), then starts (1), then submissions (2)
    int jobs, nodes, waiting;
  };
  std::map<long, std::vector<Event>> by_user;
  std::map<long, UserPeak> peaks;
  for (const auto& j : t.jobs) {
    if (j.user < 0) {
      ++e.no_user;
      continue;
    }
    if (j.wait_s < 0) {
      ++e.no_wait;
      continue;
    }
    ++e.jobs_used;
    const double start = j.submit_s + j.wait_s, end = start + j.run_s;
    auto& ev = by_user[j.user];
    ev.push_back({j.submit_s, 2, 0, 0, +1});
    ev.push_back({start, 1, +1, j.nodes, -1});
    ev.push_back({end, 0, -1, -j.nodes, 0});
    UserPeak& p = peaks[j.user];
    p.user = j.user;
    ++p.jobs;
    p.wait_s += j.wait_s;
  }
  for (auto& [user, ev] : by_user) {
    std::sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
      return a.t != b.t ? a.t < b.t : a.order < b.order;
    });
    UserPeak& p = peaks[user];
    int jobs = 0, nodes = 0;
    for (const auto& x : ev) {
      jobs += x.jobs;
      nodes += x.nodes;
      p.peak_jobs = std::max(p.peak_jobs, jobs);
      p.peak_nodes = std::max(p.peak_nodes, nodes);
    }
    jobs = 0;
    int waiting = 0;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      jobs += ev[i].jobs;
      waiting += ev[i].waiting;
      if (i + 1 < ev.size() && jobs == p.peak_jobs) p.wait_at_peak_s += waiting * (ev[i + 1].t - ev[i].t);
    }
  }
  for (auto& [user, p] : peaks) {
    e.max_jobs = std::max(e.max_jobs, p.peak_jobs);
    e.max_nodes = std::max(e.max_nodes, p.peak_nodes);
    e.users.push_back(p);
  }
  for (const auto& p : e.users) {
    e.users_at_max_jobs += p.peak_jobs == e.max_jobs;
    e.users_at_max_nodes += p.peak_nodes == e.max_nodes;
  }
  std::sort(e.users.begin(), e.users.end(), [](const UserPeak& a, const UserPeak& b) {
    if (a.peak_jobs != b.peak_jobs) return a.peak_jobs > b.peak_jobs;
    if (a.peak_nodes != b.peak_nodes) return a.peak_nodes > b.peak_nodes;
    return a.user < b.user;
  });
  return e;
}

}  // namespace clustersim
