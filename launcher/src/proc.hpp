// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's processes: started from argument vectors (posix_spawnp, never a shell),
// optionally in a session (and process group) of their own, with an explicit environment;
// waited for with bash's status convention (128 + N for signal N); output pumped through a
// filter on a thread; the launcher's own signals taken on a thread of their own.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace launcher {

// The environment the launcher exports to what it starts (bash's exported variables).
class Env {
 public:
  static Env from_process();
  const std::string* get(const std::string& name) const;
  std::string value(const std::string& name) const;  // "" when unset
  void set(const std::string& name, const std::string& value) { vars_[name] = value; }
  void unset(const std::string& name) { vars_.erase(name); }
  std::vector<std::string> envp() const;  // NAME=VALUE
  std::vector<std::pair<std::string, std::string>> items() const { return {vars_.begin(), vars_.end()}; }

 private:
  std::map<std::string, std::string> vars_;
};

struct SpawnSpec {
  std::vector<std::string> argv;
  const Env* env = nullptr;  // nullptr: the launcher's own
  bool new_session = false;  // setsid: the child leads a process group of its own
  int in_fd = -1;            // -1: /dev/null
  int out_fd = -1;           // -1: the launcher's
  int err_fd = -1;
};
// The child's pid; -1 with `why` set when it could not be started.
pid_t spawn(const SpawnSpec& s, std::string* why);
// Its status: the exit status, 128 + N when signal N ended it.
int wait_status(pid_t pid);
// Opens `p` for appending (0600), -1 when it cannot.
int open_append(const std::string& p);

// Reads fd until its end on a thread, hands every chunk to `sink`; join() waits.
class Pump {
 public:
  Pump(int fd, std::function<void(const std::string&)> sink);
  ~Pump() { join(); }
  void join();

 private:
  std::thread t_;
};

// The signals that end the launcher (TERM, INT, HUP) are blocked in every thread and
// taken by one thread of their own: the first one is recorded and `on_signal` called there
// (it ends the launches); the main thread finds it in caught(). Started before any thread.
void take_signals(std::function<void(int)> on_signal);
int caught();
// Before this process execs another program: the signals unblocked, SIGPIPE's default back
// (spawn() does so for every child).
void restore_signals();

// Sleeps `seconds`, waking early when `stop` becomes true (checked every 20 ms).
void nap(double seconds, const std::atomic<bool>& stop);

}  // namespace launcher
