// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's restart loop (docs/guide/checkpoint.md "Resize by restart", "When a node
// is lost"): a launch under mpiexec; status 4 (or a died expansion by spawn) launches the
// program again as its .next file says, on the hosts it names (under Slurm: those the job
// holds, the others given back); with --on-failure restart a failed launch starts again
// from the newest checkpoint on the hosts mpiexec did not lose.
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "malleable/cluster/slurm.hpp"
#include "run.hpp"

namespace launcher {

namespace {

constexpr std::size_t kMaxLog = 16u << 20;

bool failed(int rc) { return rc != 0 && rc != 2 && rc != 3 && rc != 4; }

std::string random_run_id() {
  unsigned char b[8] = {};
  if (::getrandom(b, sizeof b, 0) != sizeof b) throw Failure(2, "cannot read random bytes");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : b) out += std::string{hex[c >> 4], hex[c & 15]};
  return out;
}

// The .next files of the checkpoint folder, sorted by name.
std::vector<std::string> next_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& n : list_dir(dir, 100000))
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".next") == 0) out.push_back(dir + "/" + n);
  std::sort(out.begin(), out.end());
  return out;
}

void remove_next_files(const std::string& dir) {
  if (dir.empty()) return;
  for (const auto& f : next_files(dir)) ::unlink(f.c_str());
}

// The launch's mpiexec, its output through the banner filter (and into the log).
int run_mpiexec(Run& r, const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Failure(1, std::string("cannot make a pipe: ") + std::strerror(errno));
  const bool tee = r.o.restart_on_failure;
  std::string why;
  const pid_t pid = spawn({argv, &r.env, false, -1, tee ? fds[1] : -1, fds[1]}, &why);
  ::close(fds[1]);
  r.log.clear();
  auto filter = std::make_shared<BannerFilter>();
  auto sink = [&r, filter, tee](const std::string& s) {
    const std::string shown = filter->feed(s);
    write_out(tee ? 1 : 2, shown);
    if (tee) r.log += shown;
    if (r.log.size() > kMaxLog) r.log.erase(0, r.log.size() - kMaxLog / 2);
  };
  Pump pump(fds[0], sink);
  int rc = 127;
  if (pid < 0) {
    warn("cannot run " + argv[0] + ": " + why);
  } else {
    r.current = pid;
    if (caught()) ::kill(pid, SIGTERM);
    rc = wait_status(pid);
    r.current = -1;
  }
  pump.join();
  sink(filter->finish());
  return rc;
}

// One launch: its placement in the environment, the start's other launches, mpiexec.
int one_launch(Run& r, int launch) {
  std::vector<std::string> place;
  int launch_np = r.np;
  if (!r.hosts.empty()) place = {"--host", host_arg(r.hosts, r.ppn)};
  for (const auto& [k, v] : placement_env(r.hosts, r.ppn, r.np, r.slurm, r.cpus_per_node)) r.env.set(k, v);
  if (!r.jobdir.dir.empty()) {
    const std::string run_id = random_run_id();
    r.env.set("BLACS_DYN_JOB_INCARNATION", run_id);
    r.env.unset("BLACS_DYN_JOIN_START");
    if (r.hosts.size() > 1) {
      place = {"--host", r.hosts[0] + ":" + std::to_string(r.ppn)};
      launch_np = r.ppn;
      if (const std::string ids = start_launches(r, run_id, launch); !ids.empty()) r.env.set("BLACS_DYN_JOIN_START", ids);
    }
  }
  const std::string start = r.env.value("BLACS_DYN_JOIN_START");
  say("launch " + std::to_string(launch) + ": " + std::to_string(r.np) + " processes" + (place.empty() ? "" : " on " + place[1]) +
      (r.extra.empty() ? "" : ", " + joined(r.extra, " ")) +
      (start.empty() ? "" : " (joined at its start by the launches " + start + ")"));
  std::vector<std::string> argv = r.mpiexec;
  argv.insert(argv.end(), {"-n", std::to_string(launch_np)});
  argv.insert(argv.end(), place.begin(), place.end());
  argv.push_back(r.prog);
  argv.insert(argv.end(), r.args.begin(), r.args.end());
  argv.insert(argv.end(), r.extra.begin(), r.extra.end());
  return run_mpiexec(r, argv);
}

// An expansion by spawn that died is a resize by restart (the .next file's "spawn-fallback").
int spawn_fallback(Run& r, int launch, int rc) {
  if (r.dir.empty()) return rc;
  std::string with;
  for (const auto& f : next_files(r.dir))
    if (const auto t = read_file(f, 65536); t && has_spawn_fallback(*t)) {
      with = *t;
      break;
    }
  if (with.empty()) return rc;
  if (rc != 0 && rc != 3 && rc != 4 && rc != 130) {
    std::string from = next_from(with);
    if (from == "levels") from = "the checkpoint levels";
    say("launch " + std::to_string(launch) + " ended with status " + std::to_string(rc) +
        " during an expansion by spawn: a resize by restart from " + from);
    return 4;
  }
  if (rc == 4) say("launch " + std::to_string(launch) + ": the expansion by spawn did not complete by its deadline: a resize by restart");
  return rc;
}

// After a failure: the newest complete checkpoint (or the levels: r.file empty).
void restart_point(Run& r, int rc) {
  r.file.clear();
  if (r.levels) return;
  const std::string f = newest_checkpoint(list_dir(r.dir, 100000));
  if (f.empty()) throw Failure(rc, "no complete checkpoint in " + r.dir + " to restart from");
  r.file = r.dir + "/" + f;
}

std::string restart_from(const Run& r) {
  return r.file.empty() ? std::string("the checkpoint levels") : r.file + " (the newest complete checkpoint)";
}

void restart_same(Run& r, int launch, int rc) {
  say("launch " + std::to_string(launch) + " failed (status " + std::to_string(rc) + "): restarting on the same host" +
      (r.hosts.empty() ? "" : " " + joined(r.hosts, " ")));
  restart_point(r, rc);
  std::tie(r.p, r.q) = squarest(r.np);
  say("restarting from " + restart_from(r) + ": " + std::to_string(r.np) + " processes, grid " + grid_text(r.p, r.q));
  remove_next_files(r.dir);
}

double probe_timeout(const Env& env) {
  const std::string v = env.value("MALLEABLE_PROBE_TIMEOUT");
  if (v.empty() || v.size() > 6 || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); })) return 30;
  const int s = std::stoi(v);
  return s >= 1 ? s : 30;
}

// Hosts that do not answer `mpiexec -n 1 --host H:1 true` (32 at once): host -> status.
std::vector<std::pair<std::string, int>> probe(const Run& r, const std::vector<std::string>& hosts) {
  std::vector<int> status(hosts.size(), 0);
  const double limit = probe_timeout(r.env);
  for (std::size_t from = 0; from < hosts.size(); from += 32) {
    std::vector<std::thread> ts;
    for (std::size_t k = from; k < std::min(hosts.size(), from + 32); ++k)
      ts.emplace_back([&, k] {
        std::vector<std::string> argv = r.mpiexec;
        argv.insert(argv.end(), {"-n", "1", "--host", hosts[k] + ":1", "true"});
        const cluster::slurm::Command c = cluster::slurm::process_runner({limit, 1u << 20, r.env.envp()})(argv);
        status[k] = c.timed_out ? 124 : c.status < 0 ? 127 : c.status;
      });
    for (auto& t : ts) t.join();
  }
  std::vector<std::pair<std::string, int>> out;
  for (std::size_t k = 0; k < hosts.size(); ++k)
    if (status[k] != 0) out.emplace_back(hosts[k], status[k]);
  return out;
}

bool among(const std::vector<std::string>& v, const std::string& h) { return std::find(v.begin(), v.end(), h) != v.end(); }

// Which hosts did the launch lose: named by mpiexec, reported by Slurm, or not answering.
std::vector<std::string> lost_hosts(const Run& r, int rc, std::string* why) {
  std::vector<std::string> lost, rest;
  for (const auto& h : r.hosts) {
    std::string st = r.slurm ? slurm_node_state(h) : std::string();
    if (!lost_state(st)) st.clear();
    const std::string w = lost_line(r.log, h);
    if (st.empty() && w.empty()) {
      rest.push_back(h);
      continue;
    }
    lost.push_back(h);
    if (!st.empty()) *why += (why->empty() ? "" : "; ") + std::string("Slurm reports ") + h + " " + st;
    if (!w.empty()) *why += (why->empty() ? "" : "; ") + std::string("mpiexec: ") + cluster::slurm::escaped(w.substr(0, 500));
  }
  for (const auto& [h, s] : probe(r, rest)) {
    lost.push_back(h);
    *why += (why->empty() ? "" : "; ") + h + " does not answer (mpiexec -n 1 --host " + h + " true: status " + std::to_string(s) + ")";
  }
  (void)rc;
  std::vector<std::string> ordered;
  for (const auto& h : r.hosts)
    if (among(lost, h)) ordered.push_back(h);
  return ordered;
}

// A failed launch on two or more hosts: restart on those not lost; false: end with rc.
bool restart_without_lost(Run& r, int launch, int rc) {
  std::string why;
  const std::vector<std::string> lost = lost_hosts(r, rc, &why);
  if (lost.empty()) {
    warn("launch " + std::to_string(launch) + " failed (status " + std::to_string(rc) + "); mpiexec names no lost node among " +
         r.o.hosts + " and every one answers: not restarting");
    return false;
  }
  std::vector<std::string> kept;
  for (const auto& h : r.hosts)
    if (!among(lost, h)) kept.push_back(h);
  say("lost node " + joined(lost, " ") + " (status " + std::to_string(rc) + "; " + why + ")");
  if (kept.empty()) throw Failure(rc, "no host left to restart on");
  restart_point(r, rc);
  r.hosts = kept;
  r.np = r.ppn * static_cast<int>(kept.size());
  std::tie(r.p, r.q) = squarest(r.np);
  say("restarting from " + restart_from(r) + " on " + joined(kept, ",") + ": " + std::to_string(r.np) + " processes, grid " +
      grid_text(r.p, r.q));
  remove_next_files(r.dir);
  return true;
}

// Under Slurm: the relaunch runs on named nodes the job still holds and may use; the
// job's other nodes go back to Slurm. Returns the hosts of the next launch.
std::vector<std::string> slurm_relaunch_hosts(Run& r, std::vector<std::string> wanted, const std::string& next_hosts) {
  const std::string job = r.env.value("SLURM_JOB_ID");
  const std::vector<std::string> held = slurm_held(job, 4);
  const std::string alloc = cluster::slurm::compress_hostlist(held);
  std::vector<std::string> usable, gone;
  for (const auto& h : wanted) {
    const std::string st = slurm_node_state(h);
    if (among(held, h) && !lost_state(st)) usable.push_back(h);
    else gone.push_back(h + (st.empty() ? "" : " (" + st + ")"));
  }
  if (!gone.empty()) {
    if (usable.empty())
      throw Failure(4, "the job asks to run on " + next_hosts + ", none of which Slurm job " + job + " holds and may use now (" +
                           alloc + "): not restarting");
    if (r.np % static_cast<int>(wanted.size()) != 0)
      throw Failure(4, std::to_string(r.np) + " processes do not divide evenly over the hosts " + next_hosts);
    r.np = r.np / static_cast<int>(wanted.size()) * static_cast<int>(usable.size());
    const auto [p, q] = squarest(r.np);
    say("Slurm took " + joined(gone, " ") + " back from job " + job + " during the resize (it holds " + alloc + "): relaunching on " +
        joined(usable, ",") + " with " + std::to_string(r.np) + " processes, grid " + grid_text(p, q) + ", instead of " +
        grid_text(r.p, r.q));
    r.p = p, r.q = q;
    wanted = usable;
  }
  bool back = false;
  for (const auto& h : held) back = back || !among(wanted, h);
  if (back) slurm_give_back(job, held, wanted);
  else if (alloc != r.env.value("SLURM_JOB_NODELIST")) say("Slurm job " + job + " now holds " + alloc);
  return wanted;
}

// Status 4: the .next file (the newest) says the next launch.
void next_resize(Run& r) {
  std::string app_next;
  struct timespec newest{};
  for (const auto& f : next_files(r.dir)) {
    struct stat st{};
    if (::stat(f.c_str(), &st) != 0) continue;
    if (app_next.empty() || st.st_mtim.tv_sec > newest.tv_sec ||
        (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec))
      app_next = f, newest = st.st_mtim;
  }
  if (app_next.empty()) throw Failure(4, "status 4 but no " + r.dir + "/<app>.next");
  std::string why;
  const auto text = read_file(app_next, 65 * 1024);
  const auto next = text ? parse_next(*text, &why) : std::nullopt;
  ::unlink(app_next.c_str());
  if (!next) throw Failure(4, "cannot read " + app_next + ": " + (text ? why : std::string("not a readable file")));
  r.p = next->p, r.q = next->q, r.file = next->file;
  r.np = r.p * r.q;
  if (next->new_allocation) {
    if (!r.slurm || next->hosts.empty())
      throw Failure(4, "the job asks for a new allocation, which needs --hosts slurm and named hosts");
    submit_successor(r, next->hosts);
    throw Failure(0, "");
  }
  if (!next->hosts.empty() && !r.hosts.empty()) {
    std::vector<std::string> wanted = *host_list(next->hosts);
    if (r.slurm) wanted = slurm_relaunch_hosts(r, wanted, next->hosts);
    r.hosts = wanted;
  }
  if (!r.hosts.empty()) {
    if (r.np % static_cast<int>(r.hosts.size()) != 0)
      throw Failure(4, std::to_string(r.np) + " processes do not divide evenly over the hosts " + joined(r.hosts, ","));
    r.ppn = r.np / static_cast<int>(r.hosts.size());
  }
}

// The one recipe under Slurm: --job-dir inside a Slurm job without --hosts runs on what
// Slurm gave (--hosts slurm), without -n on its tasks per node on every node.
void slurm_default(Run& r) {
  if (r.o.job_dir.empty() || !r.o.hosts.empty() || r.env.value("SLURM_JOB_ID").empty() ||
      r.env.value("SLURM_JOB_NODELIST").empty())
    return;
  r.o.hosts = "slurm";
  if (r.o.np_set) return;
  const std::string* t = r.env.get("SLURM_TASKS_PER_NODE");
  if (!t || t->empty()) t = r.env.get("SLURM_JOB_CPUS_PER_NODE");
  const std::string per = t ? first_count(*t) : std::string();
  const bool ok = !per.empty() && per.size() <= 5 && per[0] != '0' &&
                  std::all_of(per.begin(), per.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!ok)
    throw Failure(2, "no -n and no tasks per node from Slurm (SLURM_TASKS_PER_NODE '" +
                         cluster::slurm::escaped(r.env.value("SLURM_TASKS_PER_NODE").substr(0, 100)) + "', SLURM_JOB_CPUS_PER_NODE '" +
                         cluster::slurm::escaped(r.env.value("SLURM_JOB_CPUS_PER_NODE").substr(0, 100)) + "')");
  const long np = std::stol(per) * static_cast<long>(slurm_hostnames(r.env.value("SLURM_JOB_NODELIST")).size());
  if (np > 999999) throw Failure(2, "Slurm's " + per + " tasks per node on every node are more than 999999 processes");
  r.np = static_cast<int>(np);
}

void placement(Run& r) {
  if (r.o.hosts == "slurm") {
    const std::string list = r.env.value("SLURM_JOB_NODELIST");
    if (list.empty()) throw Failure(2, "--hosts slurm outside a Slurm job (no SLURM_JOB_NODELIST)");
    r.hosts = slurm_hostnames(list);
    r.o.hosts = joined(r.hosts, ",");
    r.slurm = true;
  } else if (!r.o.hosts.empty()) {
    const auto l = host_list(r.o.hosts);
    if (!l || l->empty()) throw Failure(2, "--hosts '" + cluster::slurm::escaped(r.o.hosts.substr(0, 200)) + "' is no list of host names");
    r.hosts = *l;
  }
  if (!r.hosts.empty()) {
    if (r.np % static_cast<int>(r.hosts.size()) != 0)
      throw Failure(2, std::to_string(r.np) + " processes do not divide evenly over the " + std::to_string(r.hosts.size()) +
                           " hosts " + r.o.hosts);
    r.ppn = r.np / static_cast<int>(r.hosts.size());
  }
}

// The recipe (--job-dir in a Slurm job, on its nodes) needs no export line: the program
// gets RESIZE_POLICY=slurm and the node range the job asked for (sbatch -N MIN-MAX, read
// back from Slurm: node_range.hpp), each unless the user set it.
void export_recipe_settings(Run& r) {
  const std::string job = r.env.value("SLURM_JOB_ID");
  if (r.o.job_dir.empty() || !r.slurm || job.empty()) return;
  auto is_set = [&r](const std::string& k) { return r.env.get(k) != nullptr; };
  std::optional<cluster::slurm::NodeRange> range;
  std::string from;
  if (!is_set("RESIZE_SLURM_MIN_NODES") || !is_set("RESIZE_SLURM_MAX_NODES")) {
    const cluster::slurm::JobRange j = slurm_node_range(job);
    if (j.read.kind == cluster::slurm::RangeRead::Kind::Found) {
      range = j.read.range;
      from = " (-N " + cluster::slurm::range_text(*range) + ", " + j.from + ")";
    } else {
      warn("cannot read the node range Slurm job " + job + " asked for (" +
           (j.read.kind == cluster::slurm::RangeRead::Kind::Bad ? j.read.why : "no -N in its batch script or command line") +
           "): set RESIZE_SLURM_MIN_NODES and RESIZE_SLURM_MAX_NODES in the job script (unset, the job keeps "
           "at least 1 node and grows to no more than it held)");
    }
  }
  std::vector<std::string> said;
  for (const auto& [k, v] : recipe_settings(range, is_set)) {
    r.env.set(k, v);
    said.push_back(k + "=" + v);
  }
  if (!said.empty()) say("Slurm job " + job + from + ": " + joined(said, " ") + " for the program");
}

// A successor job (no job expansion) continues from MALLEABLE_RUN_RESUME's checkpoint.
void resume(Run& r) {
  const std::string* v = r.env.get("MALLEABLE_RUN_RESUME");
  if (!r.slurm || !v || v->empty()) return;
  const auto res = parse_resume(*v);
  if (!res) throw Failure(2, "MALLEABLE_RUN_RESUME must be 'P Q FILE', got '" + cluster::slurm::escaped(v->substr(0, 300)) + "'");
  r.p = res->p, r.q = res->q, r.file = res->file;
  r.np = r.p * r.q;
  if (r.np % static_cast<int>(r.hosts.size()) != 0)
    throw Failure(2, std::to_string(r.np) + " processes do not divide evenly over the hosts " + r.o.hosts);
  r.ppn = r.np / static_cast<int>(r.hosts.size());
  r.args = drop_grid_args(r.args);
  r.extra = {"-g", grid_text(r.p, r.q), "--restart", r.file};
  say("job " + r.env.value("SLURM_JOB_ID") + " continues from " + r.file + " in its new allocation " + r.o.hosts);
  r.env.unset("MALLEABLE_RUN_RESUME");
}

void setup(Run& r) {
  r.np = r.o.np;
  slurm_default(r);
  placement(r);
  export_recipe_settings(r);
  r.prog = r.o.program[0];
  r.args.assign(r.o.program.begin() + 1, r.o.program.end());
  const CheckpointArgs c = checkpoint_args(r.args);
  r.dir = c.dir, r.levels = c.levels;
  resume(r);
  r.cpus_per_node = first_count(r.env.value("SLURM_JOB_CPUS_PER_NODE"));
  if (!r.o.job_dir.empty()) job_dir_prepare(r);
}

// What follows a launch that ended with rc: false to end the loop with rc.
bool after_launch(Run& r, int launch, int rc) {
  const bool restartable = r.o.restart_on_failure && failed(rc) && (!r.dir.empty() || r.levels);
  if (restartable && r.hosts.size() <= 1) {
    restart_same(r, launch, rc);
  } else if (restartable) {
    if (!restart_without_lost(r, launch, rc)) return false;
  } else {
    if (rc != 4 || r.dir.empty()) {
      if (rc != 0) warn("the job ended with status " + std::to_string(rc) + " (launch " + std::to_string(launch) + ")");
      return false;
    }
    next_resize(r);
  }
  r.args = drop_grid_args(r.args);
  if (!r.file.empty()) r.extra = {"-g", grid_text(r.p, r.q), "--restart", r.file};
  else r.extra = {"-g", grid_text(r.p, r.q), "--restart-levels"};
  return true;
}

}  // namespace

int run_loop(Run& r) {
  setup(r);
  for (int launch = 1; launch <= r.o.max_restarts + 1; ++launch) {
    int rc = one_launch(r, launch);
    if (!r.jobdir.dir.empty()) end_launches(r);
    if (const int sig = caught()) return 128 + sig;
    rc = spawn_fallback(r, launch, rc);
    if (!after_launch(r, launch, rc)) return rc;
  }
  warn("more than " + std::to_string(r.o.max_restarts) + " restarts, giving up");
  return 4;
}

}  // namespace launcher
