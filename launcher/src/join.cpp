// SPDX-License-Identifier: BSD-3-Clause
// malleable-run --join DIR: one launch of the job's program on one host, joining the job
// of DIR (docs/guide/joining.md). Another host is reached through a remote shell, whose one
// command line is quoted word by word (shell_line); --while-job J ends the launch once
// Slurm job J no longer runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>

#include "malleable/cluster/slurm.hpp"
#include "malleable_internal/job_dir_layout.hpp"
#include "run.hpp"

namespace launcher {

namespace jd = malleable::job_dir;

namespace {

std::string this_host() {
  char b[256] = {};
  ::gethostname(b, sizeof b - 1);
  return b;
}

// The launch's mpiexec, watched: the watcher may end it until the main thread reaped it.
struct Watched {
  std::mutex mu;
  std::condition_variable cv;
  pid_t pid = -1;
  bool ended = false;
};

void signal_unless_ended(Watched& w, int sig) {
  std::lock_guard<std::mutex> l(w.mu);
  if (!w.ended) ::kill(w.pid, sig);
}

// --while-job J: Slurm asked every 5 s whether J still runs; once not, TERM, 10 s, KILL.
void watch_job(Watched& w, const std::string& job, const std::string& id) {
  const auto run = cluster::slurm::process_runner({30, 1u << 20, {}});
  for (;;) {
    {
      std::unique_lock<std::mutex> l(w.mu);
      if (w.cv.wait_for(l, std::chrono::seconds(5), [&] { return w.ended; })) return;
    }
    const cluster::slurm::Command c = run({"squeue", "-h", "-j", job, "-o", "%T"});
    if (c.status < 0 && c.out.empty() && c.err.empty()) continue;  // no squeue: ask again
    std::string shown;
    const std::string line = trimmed(first_line(c.out.empty() ? c.err : c.out));
    if (while_job_state(line, &shown) != JobState::Gone) continue;
    warn("launch " + id + ": job " + job + " no longer runs (" + shown + "): ending the launch");
    signal_unless_ended(w, SIGTERM);
    std::unique_lock<std::mutex> l(w.mu);
    if (!w.cv.wait_for(l, std::chrono::seconds(10), [&] { return w.ended; })) ::kill(w.pid, SIGKILL);
    return;
  }
}

// The launch on another host: this launcher there, through the remote shell, with the
// environment the launch needs (no shell reads any word but the quoted command line).
[[noreturn]] void exec_remote(Run& r, const jd::JoinLaunch& l) {
  std::vector<std::string> argv;
  const std::string* agent = r.env.get("MALLEABLE_RSH");
  if (!agent) agent = r.env.get("OMPI_MCA_plm_rsh_agent");
  argv = split_words(agent ? *agent : std::string("ssh"));
  if (argv.empty()) argv = {"ssh"};
  std::vector<std::string> cmd{"env"};
  for (const auto& [k, v] : r.env.items())
    if (forwarded_variable(k)) cmd.push_back(k + "=" + v);
  for (const auto& w : jd::join_argv(r.self, l)) cmd.push_back(w);
  if (!r.o.program.empty()) {
    cmd.emplace_back("--");
    cmd.insert(cmd.end(), r.o.program.begin(), r.o.program.end());
  }
  argv.push_back(l.host);
  argv.push_back(shell_line(cmd));
  std::vector<char*> a;
  for (auto& w : argv) a.push_back(w.data());
  a.push_back(nullptr);
  std::vector<std::string> envw = r.env.envp();
  std::vector<char*> e;
  for (auto& w : envw) e.push_back(w.data());
  e.push_back(nullptr);
  restore_signals();
  ::execvpe(a[0], a.data(), e.data());
  throw Failure(127, "cannot run " + argv[0] + ": " + std::strerror(errno));
}

// Checks DIR (trusted only as this user's own: trust.hpp; it must hold a private secret),
// the host and the id; fills `l`. Throws Failure(2, ...).
jd::JoinLaunch join_target(Run& r, const TrustedDir& dir) {
  const std::string& given = r.o.join_dir;
  const auto secret = dir.read(jd::kSecret, 4096, true);
  if (!secret || secret->empty())
    throw Failure(2, "'" + given + "' is no job directory: it holds no secret (malleable-run --job-dir makes one)");
  jd::JoinLaunch l;
  l.dir = dir.path();
  l.procs = r.o.np_set ? r.o.np : 1;
  const std::string here = this_host(), short_here = here.substr(0, here.find('.'));
  l.host = r.o.join_host.empty() ? here : r.o.join_host;
  if (!jd::valid_host(l.host)) throw Failure(2, "--host '" + l.host + "' is not one host name (a launch runs on one node)");
  l.id = r.o.launch_id;
  if (l.id.empty()) {
    unsigned short rnd = 0;
    if (::getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd = static_cast<unsigned short>(::getpid());
    l.id = short_here + "-" + std::to_string(::getpid()) + "-" + std::to_string(rnd % 32768);
  }
  if (!jd::valid_launch_id(l.id)) throw Failure(2, "--id '" + l.id + "' is no launch id ([A-Za-z0-9._-], at most 64)");
  l.at_start = r.o.at_start;
  l.while_job = r.o.while_job;
  if (l.host != here && l.host != short_here) exec_remote(r, l);
  return l;
}

// An expander's launch: the MPI runtime's variables dropped, the job's saved ones restored
// (only those the launcher saves, each once: a file holding anything else is refused).
void restore_environment(Run& r, const TrustedDir& dir) {
  if (r.o.while_job.empty()) return;
  const auto text = dir.read(jd::kEnvironment, 1u << 20);
  if (!text) return;
  std::string why;
  const auto vars = parse_environment(*text, &why);
  if (!vars)
    throw Failure(2, jd::path(dir.path(), jd::kEnvironment) + " is not what malleable-run --job-dir wrote: " + why +
                         "; nothing was run (start the job again to write it anew)");
  for (const auto& [k, v] : r.env.items())
    if (runtime_variable(k)) r.env.unset(k);
  for (const auto& [k, v] : *vars) r.env.set(k, v);
}

int run_join(Run& r, const jd::JoinLaunch& l, const std::vector<std::string>& program) {
  std::vector<std::string> argv = r.mpiexec;
  for (const std::string& w : {std::string("--ompi-server"), "file:" + jd::path(l.dir, jd::kServerUri), std::string("-n"),
                               std::to_string(l.procs), std::string("--host"), l.host + ":" + std::to_string(l.procs)})
    argv.push_back(w);
  argv.insert(argv.end(), program.begin(), program.end());
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Failure(1, std::string("cannot make a pipe: ") + std::strerror(errno));
  std::string why;
  Watched w;
  w.pid = spawn({argv, &r.env, false, -1, -1, fds[1]}, &why);
  ::close(fds[1]);
  auto filter = std::make_shared<BannerFilter>();
  Pump pump(fds[0], [filter](const std::string& s) { write_out(2, filter->feed(s)); });
  if (w.pid < 0) {
    pump.join();
    throw Failure(127, "cannot run " + argv[0] + ": " + why);
  }
  r.current = w.pid;
  std::thread watcher;
  if (!l.while_job.empty()) watcher = std::thread(watch_job, std::ref(w), l.while_job, l.id);
  const int rc = wait_status(w.pid);
  {
    std::lock_guard<std::mutex> g(w.mu);
    w.ended = true;
  }
  r.current = -1;
  w.cv.notify_all();
  if (watcher.joinable()) watcher.join();
  pump.join();
  write_out(2, filter->finish());
  return rc;
}

}  // namespace

int join_launch(Run& r) {
  // Nothing of the directory is read before it is trusted as this user's own; then every
  // file through its descriptor, no link followed (trust.hpp). mpiexec is given the path of
  // server.uri inside it: no other user can change a path below a trusted directory.
  const TrustedDir dir = TrustedDir::open(r.o.join_dir, "--join", ::getuid());
  const jd::JoinLaunch l = join_target(r, dir);
  const auto uri = dir.read(jd::kServerUri, 1u << 16);
  if (!uri || trimmed(*uri).empty())
    throw Failure(2, jd::path(l.dir, jd::kServerUri) + " is missing: is the job running under malleable-run --job-dir (with Open MPI)?");
  std::vector<std::string> program = r.o.program;
  if (program.empty())
    if (const auto words = dir.read(jd::kCommand, 1u << 20)) program = nul_words_of(*words);
  if (program.empty()) throw Failure(2, "no program given and none in " + jd::path(l.dir, jd::kCommand));
  restore_environment(r, dir);
  if (!l.while_job.empty() && r.env.value("MALLEABLE_RUN_FAULT") == "silent-expander") {
    // Test hook (tests/cluster/slurm_join.sh): an expander's launch that never asks to join.
    warn("fault injection - launch " + l.id + " of expander for job " + l.while_job + " never asks to join");
    std::vector<char*> a{const_cast<char*>("sleep"), const_cast<char*>("100000"), nullptr};
    restore_signals();
    ::execvp(a[0], a.data());
    throw Failure(127, std::string("cannot run sleep: ") + std::strerror(errno));
  }
  r.env.set("BLACS_DYN_JOB_DIR", l.dir);
  r.env.set("BLACS_DYN_JOIN_LAUNCH", l.id);
  if (l.at_start) r.env.set("BLACS_DYN_JOIN_AT_START", "1");
  say("launch " + l.id + ": " + std::to_string(l.procs) + " processes on " + l.host + " join the job in " + l.dir);
  const int rc = run_join(r, l, program);
  if (rc == 0) say("launch " + l.id + " ended (it left the job, or the job ended)");
  else if (rc == 3) warn("launch " + l.id + " did not join (refused, sent away or not taken in time; " + jd::path(l.dir, jd::kJoinLog) + ")");
  else warn("launch " + l.id + " ended with status " + std::to_string(rc));
  return rc;
}

}  // namespace launcher
