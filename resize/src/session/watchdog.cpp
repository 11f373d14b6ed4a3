// SPDX-License-Identifier: BSD-3-Clause
// The resize watchdog's report (watchdog.hpp, Watchdog): this process's rank and node,
// every rank's node and pid, and which of them are gone or stopped.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "session/watchdog.hpp"
#include "session/world.hpp"

namespace resize {
namespace detail {

namespace {
// 'R', 'S', 'T' (stopped), 'Z' (zombie: it died) ... from /proc/PID/stat; 0 if no such process.
char proc_state(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return 0;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '?';
}
}  // namespace

malleable::watchdog::PhaseWatchdog::Report Watchdog::report() {
  int rank = -1, size = 0;
  const MPI_Comm w = World::comm();
  if (w != MPI_COMM_NULL) {
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &size);
  }
  return [rank, size, hosts = World::known_hosts(), pids = World::known_pids()](
             const malleable::watchdog::PhaseWatchdog::Status& s) {
    const std::string host = malleable::watchdog::host_name();
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", s.seconds);
    return "resize: FAILED - " + s.who + " did not finish within " + seconds + " s on world rank " +
           std::to_string(rank) + " (pid " + std::to_string(::getpid()) + ", host " + host + "), stuck in phase '" +
           s.phase + "'; " + lost_processes(hosts, pids, host, rank, size) + ". Ending the job.";
  };
}

std::string lost_processes(const std::vector<std::string>& hosts, const std::vector<int>& pids,
                           const std::string& host, int my_rank, int world_size) {
  if (hosts.empty() || hosts.size() != pids.size()) return "the processes of the world are not known here";
  std::ostringstream lost, elsewhere;
  int nlocal = 0, nlost = 0, nelse = 0;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] != host) {
      elsewhere << (nelse++ ? "," : "") << r;
      continue;
    }
    ++nlocal;
    if (static_cast<int>(r) == my_rank) continue;
    const char st = proc_state(pids[r]);
    if (st == 0 || st == 'Z' || st == 'X' || st == 'T' || st == 't')
      lost << (nlost++ ? "; " : "") << "world rank " << r << " (pid " << pids[r] << ") on host " << host << " is "
           << (st == 'T' || st == 't' ? "stopped" : "gone");
  }
  std::string out;
  if (nlost) out = "lost: " + lost.str();
  else
    out = "the " + std::to_string(nlocal) + " processes of the world on host " + host +
          " are all running (one of them or a newcomer stopped answering)";
  if (nelse) out += "; world ranks " + elsewhere.str() + " on other hosts are not checked from here";
  if (world_size > static_cast<int>(hosts.size()))
    out += "; world ranks " + std::to_string(hosts.size()) + "-" + std::to_string(world_size - 1) +
           " (newcomers of this resize, not yet known) are not checked";
  return out;
}

}  // namespace detail
}  // namespace resize
