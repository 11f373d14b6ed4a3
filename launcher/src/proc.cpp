// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's processes (proc.hpp).
#include "proc.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace launcher {

Env Env::from_process() {
  Env e;
  for (char** p = environ; p && *p; ++p) {
    const std::string kv = *p;
    const auto eq = kv.find('=');
    if (eq != std::string::npos && eq > 0) e.vars_.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return e;
}

const std::string* Env::get(const std::string& name) const {
  const auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : &it->second;
}

std::string Env::value(const std::string& name) const {
  const std::string* v = get(name);
  return v ? *v : std::string();
}

std::vector<std::string> Env::envp() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : vars_) out.push_back(k + "=" + v);
  return out;
}

pid_t spawn(const SpawnSpec& s, std::string* why) {
  if (s.argv.empty()) return *why = "no program", -1;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  if (s.in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, s.in_fd, 0);
  else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (s.out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, s.out_fd, 1);
  if (s.err_fd >= 0) posix_spawn_file_actions_adddup2(&fa, s.err_fd, 2);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (s.new_session) flags |= POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&at, flags);
  std::vector<char*> argv, envp;
  for (const auto& a : s.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_words;
  if (s.env) env_words = s.env->envp();
  for (auto& e : env_words) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv.data(), s.env ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) {
    *why = std::string(std::strerror(rc));
    return -1;
  }
  return pid;
}

int wait_status(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 127;
}

int open_append(const std::string& p) { return ::open(p.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600); }

Pump::Pump(int fd, std::function<void(const std::string&)> sink)
    : t_([fd, sink = std::move(sink)] {
        char buf[65536];
        for (;;) {
          const ssize_t n = ::read(fd, buf, sizeof buf);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) break;
          sink(std::string(buf, static_cast<std::size_t>(n)));
        }
        ::close(fd);
      }) {}

void Pump::join() {
  if (t_.joinable()) t_.join();
}

namespace {
std::atomic<int> g_caught{0};
}

void take_signals(std::function<void(int)> on_signal) {
  sigset_t set;
  sigemptyset(&set);
  for (const int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  std::thread([set, on_signal = std::move(on_signal)] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      int none = 0;
      if (g_caught.compare_exchange_strong(none, sig)) on_signal(sig);
    }
  }).detach();
}

int caught() { return g_caught.load(); }

void restore_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
}

void nap(double seconds, const std::atomic<bool>& stop) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!stop.load() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::min<std::chrono::duration<double>>(std::chrono::milliseconds(20),
                                                                        end - std::chrono::steady_clock::now()));
}

}  // namespace launcher
