// SPDX-License-Identifier: BSD-3-Clause
// Reading another process's state and CPU time from /proc (Linux), for the tests that
// check that leaving processes are gone and parked ones sleep.
#ifndef BLACS_DYN_TESTS_PROC_STAT_HPP
#define BLACS_DYN_TESTS_PROC_STAT_HPP

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace blacs_dyn_test {

struct ProcStat {
  bool exists = false;
  char state = '?';
  long ticks = 0;  // utime + stime, in clock ticks
};

inline ProcStat proc_stat(int pid) {
  ProcStat s;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return s;
  // The command name (field 2) may contain spaces; fields resume after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return s;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  rest >> s.state;
  for (int f = 4; f <= 13; ++f) rest >> field;
  long utime = 0, stime = 0;
  rest >> utime >> stime;
  s.ticks = utime + stime;
  s.exists = true;
  return s;
}

// Gone: no /proc entry, or a zombie waiting for its launcher to reap it.
inline bool gone_within(int pid, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const auto s = proc_stat(pid);
    if (!s.exists || s.state == 'Z' || s.state == 'X') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

inline long ticks_per_second() { return sysconf(_SC_CLK_TCK); }

}  // namespace blacs_dyn_test
#endif
