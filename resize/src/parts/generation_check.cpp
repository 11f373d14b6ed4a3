// SPDX-License-Identifier: BSD-3-Clause
// The generation check's MPI side (generation_check.hpp).
#include "parts/generation_check.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/broadcast.hpp"
#include "common/fault.hpp"
#include "parts/watchdog.hpp"

namespace resize::detail {

namespace {
// Waits for `req` until `deadline` (MPI_Wtime); false with `err` set on an error or past it.
bool wait_until(MPI_Request& req, double deadline, std::string& err) {
  for (int done = 0; !done;) {
    if (const int rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, text, &len);
      err = std::string("MPI_Test: ") + text;
      return false;
    }
    if (!done && MPI_Wtime() > deadline) {
      MPI_Cancel(&req);
      MPI_Request_free(&req);
      err = "no answer within the check's deadline";
      return false;
    }
  }
  return true;
}

// One side of a ping-pong of `bytes`, `rounds` times after one warm-up; the fastest
// round's one-way seconds on the leader (the transport's capability: the other processes
// and builds on the node slow single rounds down, never speed them up). `peer` may address no process (the
// fault): MPI returns the error.
bool exchange(MPI_Comm c, int peer, bool lead, int bytes, int rounds, double deadline, double& one_way,
              std::string& err) {
  std::vector<char> buf(static_cast<std::size_t>(bytes), 'g');
  std::vector<double> t;
  for (int k = 0; k <= rounds; ++k) {
    const double t0 = MPI_Wtime();
    for (int leg = 0; leg < 2; ++leg) {
      MPI_Request req = MPI_REQUEST_NULL;
      const bool send = (leg == 0) == lead;
      const int rc = send ? MPI_Isend(buf.data(), bytes, MPI_CHAR, peer, 77, c, &req)
                          : MPI_Irecv(buf.data(), bytes, MPI_CHAR, peer, 77, c, &req);
      if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        err = std::string(send ? "MPI_Isend: " : "MPI_Irecv: ") + text;
        return false;
      }
      if (!wait_until(req, deadline, err)) return false;
    }
    if (k > 0) t.push_back((MPI_Wtime() - t0) / 2);
  }
  one_way = t.empty() ? 0 : *std::min_element(t.begin(), t.end());
  return true;
}

// The pair (rank 0, peer) on `c`: 8 B x 50 and 4 MiB x 8 (the leader's times).
PairTimes pair_times(MPI_Comm c, int peer, bool lead, double deadline_s) {
  PairTimes p;
  p.measured = true;
  const double deadline = MPI_Wtime() + deadline_s;
  p.reached = exchange(c, peer, lead, kSmallBytes, 200, deadline, p.small_s, p.error) &&
              exchange(c, peer, lead, kMidBytes, 50, deadline, p.mid_s, p.error) &&
              exchange(c, peer, lead, kLargeBytes, 10, deadline, p.large_s, p.error);
  return p;
}
}  // namespace

namespace {
// This process's established TCP connections, "LOCAL-REMOTE" as /proc/net/tcp{,6} write
// them (the sockets among its descriptors); empty where /proc cannot be read.
std::vector<std::string> tcp_links() {
  std::vector<std::string> inodes, out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code lec;
    const std::string t = std::filesystem::read_symlink(e.path(), lec).native();
    if (!lec && t.rfind("socket:[", 0) == 0 && t.size() > 9) inodes.push_back(t.substr(8, t.size() - 9));
  }
  for (const char* f : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(f);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream ss(line);
      std::string sl, local, remote, state, q, tr, retr, uid, timeout, inode;
      ss >> sl >> local >> remote >> state >> q >> tr >> retr >> uid >> timeout >> inode;
      if (state == "01" && std::find(inodes.begin(), inodes.end(), inode) != inodes.end()) out.push_back(local + "-" + remote);
    }
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream ss(s);
  for (std::string l; std::getline(ss, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

// Rank 0's partners on its node: the first original (-1: none) and the first newcomer.
std::pair<int, int> partners(const std::vector<std::string>& hosts, const std::vector<int>& is_new) {
  int fresh = -1, mixed = -1;
  for (std::size_t r = 1; r < hosts.size(); ++r) {
    if (hosts[r] != hosts[0]) continue;
    int& slot = is_new[r] ? mixed : fresh;
    if (slot < 0) slot = static_cast<int>(r);
  }
  return {fresh, mixed};
}
}  // namespace

void check_generations(SessionWorld& job, const SessionOptions& opt, const config::Text& fault, double deadline_s) {
  const double t0 = MPI_Wtime();
  const std::vector<std::string> hosts = survey_world();
  const int me = job.rank(), mine_new = blacs_dyn::World::is_new() ? 1 : 0;
  std::vector<int> is_new(hosts.size(), 0);
  MPI_Allgather(&mine_new, 1, MPI_INT, is_new.data(), 1, MPI_INT, job.world);
  if (is_new[0]) return;  // rank 0 a newcomer (not a merge): nothing to compare
  const auto [fresh, mixed] = partners(hosts, is_new);
  if (mixed < 0) return;  // no newcomer beside rank 0: a later expansion checks
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_dup(job.world, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  PairTimes f, m;
  if (fresh >= 0 && (me == 0 || me == fresh)) f = pair_times(c, me == 0 ? fresh : 0, me == 0, deadline_s);
  const bool cut = fault::armed(fault, fault::Point::GenerationUnreachable).has_value();
  if (cut && me == 0) std::fprintf(stderr, "resize: fault injection - the generation check's newcomer pair addresses no process\n");
  if (me == 0 || me == mixed) m = pair_times(c, cut ? job.size() : me == 0 ? mixed : 0, me == 0, deadline_s);
  MPI_Comm_free(&c);
  // The TCP witness: the newcomer's connections to rank 0 (collective: every process takes part).
  std::string links;
  if (me == mixed)
    for (const auto& l : tcp_links()) links += l + "\n";
  links = broadcast_text(links, mixed, job.world);
  if (me == 0 && m.reached) m.tcp = joined_by_tcp(tcp_links(), split_lines(links)) ? 1 : 0;
  std::string text;
  if (me == 0) {
    const ReachVerdict v = decide_reach(f, m, job.reach.pml, hosts[0]);
    char head[64];
    std::snprintf(head, sizeof head, "%d %.17g ", static_cast<int>(v.reach), v.factor);
    text = head + v.line;
    std::printf("[%s] %s (the check took %.1f ms)\n", opt.app.c_str(), v.line.c_str(), (MPI_Wtime() - t0) * 1e3);
    std::fflush(stdout);
  }
  text = broadcast_text(text, 0, job.world);
  int reach = 0;
  double factor = -1;
  int used = 0;
  std::sscanf(text.c_str(), "%d %lg %n", &reach, &factor, &used);
  job.reach.decided = true;
  job.reach.factor = factor;
  if (reach == static_cast<int>(Reach::Unreachable)) throw Error(text.substr(static_cast<std::size_t>(used)));
}

}  // namespace resize::detail
