// SPDX-License-Identifier: BSD-3-Clause
// malleable-run --job-dir: the job directory, the ompi-server, the launches of the job's
// start, the order agent (a thread: DIR/orders polled every 20 ms, each order started as a
// launch of its own session, a call-off ending its process group) and, at the end, every
// launch started here ended (a grace of 10 s, then TERM, then KILL).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "malleable/cluster/slurm.hpp"
#include "malleable_internal/job_dir_layout.hpp"
#include "run.hpp"

namespace launcher {

namespace jd = malleable::job_dir;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A process group from a .started file: digits, more than 1 (never 0, 1 or -1: everyone).
pid_t group_in(const std::string& path) {
  const auto s = read_file(path, 64);
  if (!s) return -1;
  const std::string t = trimmed(*s);
  if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); })) return -1;
  const pid_t pg = static_cast<pid_t>(std::stol(t));
  return pg > 1 ? pg : -1;
}

// A launch of this launcher that joins the job, in a session of its own, its output into
// DIR/join/<id>.log; its process group (its pid), or -1.
pid_t start_launch(Run& r, const Env& env, const jd::JoinLaunch& l) {
  const int log = open_append(jd::join_file(r.jobdir.dir, l.id, jd::kLaunchLog));
  std::string why;
  const pid_t pid = spawn({jd::join_argv(r.self, l), &env, true, -1, log, log}, &why);
  if (log >= 0) ::close(log);
  if (pid < 0) warn("cannot start launch " + l.id + ": " + why);
  if (pid > 0) {
    std::lock_guard<std::mutex> g(r.jobdir.mu);
    r.jobdir.started.push_back(pid);
  }
  return pid;
}

// One order: called off, started, or ignored.
void handle_order(Run& r, const Env& env, const std::string& id) {
  const std::string f = jd::order_file(r.jobdir.dir, id);
  if (exists(f + std::string(jd::kCancel))) {
    if (exists(f + std::string(jd::kStarted)) && !exists(f + std::string(jd::kDone))) {
      if (const pid_t pg = group_in(f + std::string(jd::kStarted)); pg > 1) ::kill(-pg, SIGTERM);
      try {
        write_private(f + std::string(jd::kDone), "");
      } catch (const Failure& e) {
        warn(e.what());
      }
      warn("launch " + id + " called off by the job");
    }
    return;
  }
  if (exists(f + std::string(jd::kStarted))) return;
  const Order o = parse_order(read_file(f, 4096).value_or(""));
  pid_t pid = -1;
  if (!o.valid()) {
    warn("ignoring the job's order " + id + " (host '" + cluster::slurm::escaped(o.host.substr(0, 300)) + "', procs '" +
         cluster::slurm::escaped(o.procs.substr(0, 40)) + "')");
  } else {
    jd::JoinLaunch l;
    l.dir = r.jobdir.dir;
    l.host = o.host;
    l.id = id;
    l.procs = std::stoi(o.procs);
    pid = start_launch(r, env, l);
  }
  try {
    write_private(f + std::string(jd::kStarted), pid > 0 ? std::to_string(pid) + "\n" : std::string());
  } catch (const Failure& e) {
    warn(e.what());
  }
}

void agent_loop(Run& r, Env env) {
  while (!r.jobdir.agent_stop.load()) {
    for (const auto& id : list_dir(jd::path(r.jobdir.dir, jd::kOrders), 4096)) {
      if (ends_with(id, jd::kCancel) || ends_with(id, jd::kStarted) || ends_with(id, jd::kDone) ||
          id.find(".tmp.") != std::string::npos || !jd::valid_launch_id(id))
        continue;
      handle_order(r, env, id);
    }
    std::vector<pid_t> mine;
    {
      std::lock_guard<std::mutex> g(r.jobdir.mu);
      mine = r.jobdir.started;
    }
    for (const pid_t p : mine) ::waitpid(p, nullptr, WNOHANG);  // reap those that ended
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool on_path(const std::string& name, const Env& env) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0;
  const std::string path = env.value("PATH");
  std::size_t from = 0;
  while (from <= path.size()) {
    std::size_t c = path.find(':', from);
    if (c == std::string::npos) c = path.size();
    const std::string d = path.substr(from, c - from);
    if (!d.empty() && ::access((d + "/" + name).c_str(), X_OK) == 0) return true;
    from = c + 1;
  }
  return false;
}

// The ompi-server of the job's launches, its URI in DIR/server.uri (10 s to write it).
void start_server(Run& r) {
  const std::string uri = jd::path(r.jobdir.dir, jd::kServerUri);
  if (!on_path("ompi-server", r.env))
    throw Failure(2, "--job-dir needs Open MPI's ompi-server (growing by joining connects launches through it)");
  ::unlink(uri.c_str());
  std::string why;
  r.jobdir.server_pid = spawn({{"ompi-server", "--no-daemonize", "--report-uri", uri}, &r.env, false, -1, -1, -1}, &why);
  for (int i = 0; i < 100 && r.jobdir.server_pid > 0 && !non_empty(uri); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!non_empty(uri)) throw Failure(2, "ompi-server did not start (no " + uri + ")");
}

}  // namespace

void job_dir_prepare(Run& r) {
  r.jobdir.held.emplace(prepare_job_dir(r.o.job_dir));
  r.jobdir.dir = r.jobdir.held->path();
  std::vector<std::string> command{r.prog};
  command.insert(command.end(), r.args.begin(), r.args.end());
  write_command(r.jobdir.dir, command);
  write_environment(r.jobdir.dir, r.env.items());
  r.env.set("BLACS_DYN_JOB_DIR", r.jobdir.dir);
  const auto run = cluster::slurm::process_runner({30, 1u << 20, {}});
  const cluster::slurm::Command v = run({r.mpiexec[0], "--version"});
  const std::string said = v.out + v.err;
  if (said.find("Open MPI") == std::string::npos && said.find("OpenRTE") == std::string::npos) {
    // Another MPI (MPICH's hydra has no --ompi-server): the job says whether it can be joined.
    warn(first_line(trimmed(said), 300) + " is no Open MPI mpiexec: no ompi-server started, the job joins no launch");
    return;
  }
  start_server(r);
  r.mpiexec.insert(r.mpiexec.end(), {"--ompi-server", "file:" + jd::path(r.jobdir.dir, jd::kServerUri)});
  // MALLEABLE_RUN: this launcher, for the expander jobs the Slurm policy submits.
  r.env.set("BLACS_DYN_JOIN_AGENT", "1");
  r.env.set("MALLEABLE_RUN", r.self);
  r.jobdir.agent = std::thread(agent_loop, std::ref(r), r.env);
}

std::string start_launches(Run& r, const std::string& run_id, int launch) {
  std::string ids;
  Env env = r.env;
  env.set("BLACS_DYN_JOIN_INCARNATION", run_id);
  for (std::size_t i = 1; i < r.hosts.size(); ++i) {
    jd::JoinLaunch l;
    l.dir = r.jobdir.dir;
    l.host = r.hosts[i];
    l.id = 's' + run_id.substr(0, 8);
    l.id += '-' + std::to_string(launch) + '-' + std::to_string(i);
    l.procs = r.ppn;
    l.at_start = true;
    start_launch(r, env, l);
    if (!ids.empty()) ids += ',';
    ids += l.id;
  }
  return ids;
}

void end_launches(Run& r) {
  std::set<pid_t> groups;
  {
    std::lock_guard<std::mutex> g(r.jobdir.mu);
    groups.insert(r.jobdir.started.begin(), r.jobdir.started.end());
  }
  const std::string orders = jd::path(r.jobdir.dir, jd::kOrders);
  for (const auto& n : list_dir(orders, 4096))
    if (ends_with(n, jd::kStarted))
      if (const pid_t pg = group_in(orders + "/" + n); pg > 1) groups.insert(pg);
  if (groups.empty()) return;
  for (int i = 0; i < 100; ++i) {
    bool alive = false;
    for (const pid_t pg : groups) {
      ::waitpid(pg, nullptr, WNOHANG);
      if (::kill(-pg, 0) == 0) alive = true;
    }
    if (!alive) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool termed = false;
  for (const pid_t pg : groups)
    if (::kill(-pg, SIGTERM) == 0) {
      termed = true;
      warn("ended launch group " + std::to_string(pg) + " (still running after the job)");
    }
  if (termed) std::this_thread::sleep_for(std::chrono::seconds(1));
  for (const pid_t pg : groups) {
    ::kill(-pg, SIGKILL);
    ::waitpid(pg, nullptr, WNOHANG);
  }
  {
    std::lock_guard<std::mutex> g(r.jobdir.mu);
    r.jobdir.started.clear();
  }
  for (const auto& n : list_dir(orders, 4096)) ::unlink((orders + "/" + n).c_str());
  for (const auto& n : list_dir(jd::path(r.jobdir.dir, jd::kJoin), 4096))
    if (ends_with(n, jd::kRequest)) ::unlink((jd::path(r.jobdir.dir, jd::kJoin) + "/" + n).c_str());
}

void job_dir_end(Run& r) {
  if (r.jobdir.dir.empty()) return;
  r.jobdir.agent_stop = true;
  if (r.jobdir.agent.joinable()) r.jobdir.agent.join();
  end_launches(r);
  if (r.jobdir.server_pid > 0) {
    ::kill(r.jobdir.server_pid, SIGTERM);
    int i = 0;
    while (::waitpid(r.jobdir.server_pid, nullptr, WNOHANG) == 0 && ++i < 250) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (i >= 250) {
      ::kill(r.jobdir.server_pid, SIGKILL);
      ::waitpid(r.jobdir.server_pid, nullptr, 0);
    }
    r.jobdir.server_pid = -1;
  }
  ::unlink(jd::path(r.jobdir.dir, jd::kServerUri).c_str());
}

}  // namespace launcher
