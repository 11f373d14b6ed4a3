// SPDX-License-Identifier: BSD-3-Clause
// A process's departure (Leave, leave.hpp): one a shrink or a respawn dropped ends now or
// waits parked for rank 0's release; either way MPI is finalized and the launcher's PMIx
// server is given time to see it go.
#include "runtime/leave.hpp"

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/messages.hpp"
#include "protocol/pmix_link.hpp"

namespace blacs_dyn {

using namespace detail;

namespace {

std::string file_text(const char* path) {
  std::ifstream f(path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<pmix_link::TcpRow> tcp_rows() {
  std::vector<pmix_link::TcpRow> rows = pmix_link::parse_tcp_table(file_text("/proc/net/tcp"));
  const std::vector<pmix_link::TcpRow> v6 = pmix_link::parse_tcp_table(file_text("/proc/net/tcp6"));
  rows.insert(rows.end(), v6.begin(), v6.end());
  return rows;
}

std::vector<unsigned long> own_socket_inodes() {
  std::vector<unsigned long> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code lec;
    const auto target = std::filesystem::read_symlink(e.path(), lec);
    if (lec) continue;
    if (const auto inode = pmix_link::socket_inode(target.native())) out.push_back(*inode);
  }
  return out;
}

// This process's connection to the launcher's PMIx server, looked up before MPI_Finalize
// closes it (pmix_link.hpp says why); nullopt when there is none to wait for (no PMIx over
// TCP, the wait switched off, the tables not readable).
std::optional<pmix_link::TcpRow> pmix_connection(const Config& env) {
  if (pmix_link::wait_seconds(env.leave_wait) <= 0 || !env.pmix_server_uri) return std::nullopt;
  const auto port = pmix_link::server_port(*env.pmix_server_uri);
  if (!port) return std::nullopt;
  return pmix_link::client_link(tcp_rows(), own_socket_inodes(), *port);
}

// After MPI_Finalize: stay until the server has closed its end of `link` (its progress
// thread has handled our departure), at most `seconds`. Returns whether it did.
bool await_server_close(const pmix_link::TcpRow& link, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (pmix_link::server_end_open(tcp_rows(), link)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    sleep_for(2000000L);
  }
  return true;
}

}  // namespace


void Leave::exit_process() {
  Runtime& rt = rt_;
  PhaseTrace trace(true);
  rt.dog_.arm("process " + std::to_string(rt.me_) + " (leaving)", "leaving: MPI_Finalize", join_timeout_seconds(),
           "another process of its spawn group died or hangs");
  rt.free_all_comms();
  trace.mark("leaving: communicators freed");
  const Config env = read_config();
  const std::optional<pmix_link::TcpRow> pmix = pmix_connection(env);
  rt.join_.ticker.stop();  // a joined launch's lifeline: it ends with its processes
  rt.finalized_ = true;
  PMPI_Finalize();
  rt.dog_.disarm();
  trace.mark("leaving: MPI_Finalize");
  // Exit only once the launcher's PMIx server has seen this process go (the spawn hang of
  // Open MPI 4.1 + PMIx 4.2, docs/reference/blacs-dyn.md): bounded, never an error.
  if (pmix) {
    const double limit = pmix_link::wait_seconds(env.leave_wait);
    if (await_server_close(*pmix, limit)) {
      trace.mark("leaving: PMIx server closed");
    } else {
      trace.mark("leaving: PMIx server still open");
      if (env.verbose)
        std::fprintf(stderr,
                     "blacs-dyn: process %d leaves before its PMIx server closed the connection (waited %g s, "
                     "BLACS_DYN_LEAVE_WAIT)\n",
                     rt.me_, limit);
    }
  }
  std::fflush(nullptr);
  std::exit(0);
}

// A parked process waits for rank 0's release with a posted receive tested twenty
// times a second and nanosleep in between: Open MPI's blocking calls would busy-poll a
// core for the rest of the job.
void Leave::park() {
  Runtime& rt = rt_;
  const bool original = rt.stack_->group_of(rt.me_) == 0;
  const MPI_Comm chan = original ? rt.comms_[0].priv : rt.link_;
  std::vector<char> cmd(release_bytes());
  MPI_Request req = MPI_REQUEST_NULL;
  check(MPI_Irecv(cmd.data(), static_cast<int>(cmd.size()), MPI_BYTE, 0, kTagRelease, chan, &req), "MPI_Irecv (park)");
  int flag = 0;
  while (true) {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) break;
    sleep_for(50000000L);
  }
  if (rt.link_ != MPI_COMM_NULL) MPI_Comm_disconnect(&rt.link_);
  // Release::Exit and Release::Finalize end the same way here: the difference is on rank
  // 0's side (exit: now, alone; finalize: at the end, with all). A release of another
  // build is said, and ends the same way.
  try {
    decode_release(cmd);
  } catch (const malleable::wire::Error& e) {
    std::fprintf(stderr, "blacs-dyn: process %d, parked: %s; leaving\n", rt.me_, e.what());
  }
  exit_process();
}

void Leave::run() {
  if (rt_.departure_ == Departure::Exit) exit_process();
  if (rt_.departure_ == Departure::Park) park();
  throw Error(BLACS_DYN_ERR_STATE, "blacs_dyn_leave: this process is still in the world (no shrink dropped it)");
}

}  // namespace blacs_dyn
