// SPDX-License-Identifier: BSD-3-Clause
// Slurm's commands run as argument vectors (slurm.hpp, process_runner): posix_spawnp, no
// shell, stdout and stderr captured apart, a timeout that kills the command's process
// group. Used on world rank 0 (the job's agent) and by the arbiter daemon (its views, on a
// thread of their own: posix_spawn and pipes made close-on-exec are safe there).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/cluster/slurm.hpp"
#include "slurm/text.hpp"

extern char** environ;

namespace cluster::slurm {

namespace {

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

double clock_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The environment the command gets: ours, with o.env's NAME=VALUE set over it.
std::vector<std::string> environment(const std::vector<std::string>& over) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const std::string name = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const auto& o : over) replaced = replaced || o.substr(0, o.find('=')) == name;
    if (!replaced) out.push_back(kv);
  }
  out.insert(out.end(), over.begin(), over.end());
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_end(int k) {
    if (fd[k] >= 0) ::close(fd[k]);
    fd[k] = -1;
  }
};

// The child's pid spawned, or an error in c.err (status -1).
pid_t spawn(const Argv& argv, const RunOptions& o, Pipe& out, Pipe& err, Command& c) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawnattr_init(&at);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
  ::posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
  // Its own process group (killed whole at the timeout), no signal blocked, and the
  // signals a daemon ignores or catches (SIGPIPE, SIGTERM, SIGINT) at their defaults.
  sigset_t none, dflt;
  sigemptyset(&none);
  sigemptyset(&dflt);
  for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT}) sigaddset(&dflt, s);
  ::posix_spawnattr_setpgroup(&at, 0);
  ::posix_spawnattr_setsigmask(&at, &none);
  ::posix_spawnattr_setsigdefault(&at, &dflt);
  ::posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args(argv.begin(), argv.end()), env = environment(o.env);
  std::vector<char*> ap = pointers(args), ep = pointers(env);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &at, ap.data(), ep.data());
  ::posix_spawn_file_actions_destroy(&fa);
  ::posix_spawnattr_destroy(&at);
  if (rc != 0) {
    c.err = "cannot run " + command_line(argv) + ": " + std::strerror(rc);
    return -1;
  }
  return pid;
}

// Has the child ended? Asked without reaping it (WNOWAIT): while it is a zombie its pid,
// and so its process group's id, cannot be taken by another process, so the group can
// still be killed safely.
bool ended(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Reads both pipes until they close, the deadline, or a second after the child ended (a
// child of its may hold them open); false when the output passed max_output.
bool drain(const pid_t pid, Pipe& out, Pipe& err, Command& c, double deadline, std::size_t max_output) {
  double until = deadline;
  bool gone = false;
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    const double now = clock_s();
    if (now >= until) break;
    pollfd p[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    const int n = ::poll(p, 2, static_cast<int>(std::min(until - now, 0.05) * 1000) + 1);
    if (n < 0 && errno != EINTR) break;
    for (int k = 0; k < 2 && n > 0; ++k) {
      if (p[k].fd < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t got = ::read(p[k].fd, buf, sizeof buf);
      if (got > 0) {
        (k == 0 ? c.out : c.err).append(buf, static_cast<std::size_t>(got));
        if (c.out.size() + c.err.size() > max_output) return false;
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        (k == 0 ? out : err).close_end(0);
      }
    }
    if (!gone && ended(pid)) {
      gone = true;
      until = std::min(deadline, clock_s() + 1);
    }
  }
  return true;
}

Command run_argv(const Argv& argv, const RunOptions& o) {
  Command c;
  if (argv.empty() || argv[0].empty()) {
    c.err = "no command to run";
    return c;
  }
  Pipe out, err;
  if (::pipe2(out.fd, O_CLOEXEC) != 0 || ::pipe2(err.fd, O_CLOEXEC) != 0) {
    c.err = std::string("cannot run ") + command_line(argv) + ": pipe: " + std::strerror(errno);
    return c;
  }
  const double deadline = clock_s() + o.timeout_s;
  const pid_t pid = spawn(argv, o, out, err, c);
  out.close_end(1);
  err.close_end(1);
  if (pid < 0) return c;
  const bool within = drain(pid, out, err, c, deadline, o.max_output);
  // Its output is closed: it ends (or has), up to the deadline.
  while (within && !ended(pid) && clock_s() < deadline) ::usleep(2000);
  const bool finished = within && ended(pid);
  ::kill(-pid, SIGKILL);  // its group: what it left behind, or the command itself (not reaped yet: its id is still ours)
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    c.timed_out = within;
    c.status = -1;
    std::string why = command_line(argv);
    if (within) why += ": ended after " + seconds(o.timeout_s) + " s (its timeout)";
    else why += ": ended: it printed more than " + std::to_string(o.max_output) + " bytes";
    if (!c.err.empty() && c.err.back() != '\n') c.err += '\n';
    c.err += why;
    return c;
  }
  c.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return c;
}

}  // namespace

Runner process_runner(RunOptions o) {
  return [o](const Argv& argv) { return run_argv(argv, o); };
}

std::string Command::said() const { return trim(out + (out.empty() || err.empty() ? "" : "\n") + err); }

std::string command_line(const Argv& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\n\r'\"\\$`|&;<>(){}*?!#~") == std::string::npos;
    if (plain) {
      out += escaped(a);
      continue;
    }
    out += '\'';
    for (const char ch : a) out += ch == '\'' ? std::string("'\\''") : escaped(std::string_view(&ch, 1));
    out += '\'';
  }
  return out;
}

}  // namespace cluster::slurm
