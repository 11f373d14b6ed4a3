// SPDX-License-Identifier: BSD-3-Clause
// Old and new processes on one node: the bandwidth and latency between rank 0 and rank 1
// of the world, either a world started with two processes ("fresh"), one process grown
// by a spawn of one ("grow": rank 0 an original, rank 1 the newcomer), or that grown job
// after a respawn ("respawn": the two spawned at once replace it, blacs_dyn_retire, so
// ranks 0 and 1 are of one launch again); "merge": one process grown by a spawn of two
// (rank 0 the original, ranks 1 and 2 the newcomers, one launch): ranks 0 and 1, then
// ranks 1 and 2 (the idle third sleeps between MPI_Test calls, leaving the cores to the
// pair; PINGPONG_IDLE=spin: it polls in MPI_Wait). PINGPONG_SPAWN_YIELD=0|1 passes OMPI_MCA_mpi_yield_when_idle=<it> through the
// "env" key of grow's and merge's spawn (unset: Open MPI chooses). Open MPI's ob1 sends between an original and a
// newcomer over TCP (btl/vader serves one job's processes only); BLACS_DYN_PML=ucx sends
// through shared memory (scripts/bench/spawn.sh shm runs the arms side by side;
// tests/blacs-dyn/runtime/spawn_shm.sh checks that no network path is used).
// After the measurement, Open MPI's own view of the pair is printed: each process's name
// (the job id and rank the launcher gave it, OMPI_MCA_ess_base_jobid/_vpid), whether
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) puts them in one communicator, and whether a
// TCP connection joins the two processes (the kernel's table: an ob1 pair of two launches
// has one after exchanging messages, a pair of one launch none):
//   "launch: rank 0 job J0, rank 1 job J1: same|different; shared-memory split: together|apart; tcp between them: yes|no;
//    yield when idle: Y0, Y1[, Y2...]" (Open MPI's mpi_yield_when_idle in each rank, read through MPI_T)
//   pingpong_grown fresh|grow|respawn|merge [MiB] [rounds]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <time.h>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"

namespace {
int fail(const char* what, int rc) {
  std::fprintf(stderr, "rank %d: %s failed: %s: %s\n", blacs_dyn_rank(), what, blacs_dyn_status_string(rc),
               blacs_dyn_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

// A barrier (MPI_Ibarrier on every rank: a blocking one would not match it); the ranks
// outside the measured pair wait asleep, MPI_Test every millisecond (PINGPONG_IDLE=spin:
// in MPI_Wait, polling as Open MPI's yield setting has it).
void pair_barrier(MPI_Comm w, bool in_pair) {
  static const bool spin = [] {
    const char* e = std::getenv("PINGPONG_IDLE");
    return e && std::strcmp(e, "spin") == 0;
  }();
  MPI_Request req;
  MPI_Ibarrier(w, &req);
  if (in_pair || spin) {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return;
  }
  for (int done = 0; !done;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      const timespec ms{0, 1000000};
      nanosleep(&ms, nullptr);
    }
  }
}

// Seconds per round trip of `bytes` between ranks a and b of w, median of `rounds` runs of
// `reps` round trips each (the other ranks idle, asleep in pair_barrier).
double round_trip(MPI_Comm w, std::vector<char>& buf, std::size_t bytes, int reps, int rounds, int a = 0, int b = 1) {
  int r = 0;
  MPI_Comm_rank(w, &r);
  std::vector<double> t;
  for (int k = 0; k <= rounds; ++k) {  // the last barrier only holds the idle ranks until the pair is done
    pair_barrier(w, r == a || r == b);
    if (k == rounds) break;
    const double t0 = MPI_Wtime();
    for (int i = 0; i < reps; ++i) {
      if (r == a) {
        MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, b, 0, w);
        MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, b, 0, w, MPI_STATUS_IGNORE);
      } else if (r == b) {
        MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, a, 0, w, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, a, 0, w);
      }
    }
    t.push_back((MPI_Wtime() - t0) / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// This process's established TCP connections as "localaddr:port-remoteaddr:port" (the
// kernel's hex), from /proc/net/tcp{,6} and the sockets among its descriptors.
std::vector<std::string> tcp_connections() {
  std::vector<std::string> inodes;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code lec;
    const std::string t = std::filesystem::read_symlink(e.path(), lec).native();
    if (!lec && t.rfind("socket:[", 0) == 0) inodes.push_back(t.substr(8, t.size() - 9));
  }
  std::vector<std::string> out;
  for (const char* f : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(f);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream ss(line);
      std::string sl, local, remote, state, q, tr, retr, uid, timeout, inode;
      ss >> sl >> local >> remote >> state >> q >> tr >> retr >> uid >> timeout >> inode;
      if (state == "01" && std::find(inodes.begin(), inodes.end(), inode) != inodes.end())
        out.push_back(local + "-" + remote);
    }
  }
  return out;
}

// Open MPI's mpi_yield_when_idle as this process runs with it (MPI_T); -1 when not found.
int yield_when_idle() {
  int provided = 0, n = 0, out = -1;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return -1;
  MPI_T_cvar_get_num(&n);
  for (int i = 0; i < n && out < 0; ++i) {
    char name[256], desc[8];
    int nl = sizeof name, dl = sizeof desc, verb = 0, bind = 0, scope = 0;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) != MPI_SUCCESS) continue;
    if (std::strcmp(name, "mpi_yield_when_idle") != 0 || bind != MPI_T_BIND_NO_OBJECT) continue;
    MPI_T_cvar_handle h;
    int count = 0;
    alignas(8) unsigned char v[16] = {};
    if (MPI_T_cvar_handle_alloc(i, nullptr, &h, &count) == MPI_SUCCESS) {
      if (count == 1 && (dt == MPI_INT || dt == MPI_C_BOOL) && MPI_T_cvar_read(h, v) == MPI_SUCCESS) {
        int iv = 0;
        std::memcpy(&iv, v, sizeof iv);
        out = dt == MPI_C_BOOL ? (v[0] != 0 ? 1 : 0) : iv;
      }
      MPI_T_cvar_handle_free(&h);
    }
  }
  MPI_T_finalize();
  return out;
}

// Open MPI's view of ranks 0 and 1 (collective over w; rank 0 prints).
void launch_view(MPI_Comm w) {
  int r = 0;
  MPI_Comm_rank(w, &r);
  int size = 0;
  MPI_Comm_size(w, &size);
  std::vector<long long> job(static_cast<std::size_t>(size), -1);  // every rank's (w has 2 or more)
  const char* j = std::getenv("OMPI_MCA_ess_base_jobid");
  long long mine = j ? std::atoll(j) : -1;
  MPI_Gather(&mine, 1, MPI_LONG_LONG, job.data(), 1, MPI_LONG_LONG, 0, w);
  // Whether Open MPI yields the core while polling (mpi_yield_when_idle, read through
  // MPI_T: it turns it on for a job it sees oversubscribed): -1 not readable.
  int yield_mine = yield_when_idle();
  std::vector<int> yield(static_cast<std::size_t>(size), -1);
  MPI_Gather(&yield_mine, 1, MPI_INT, yield.data(), 1, MPI_INT, 0, w);
  // Together when the node communicator of each of ranks 0 and 1 holds both.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(w, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
  MPI_Group g, gw;
  MPI_Comm_group(node, &g);
  MPI_Comm_group(w, &gw);
  const int zero_one[2] = {0, 1};
  int t[2] = {MPI_UNDEFINED, MPI_UNDEFINED};
  MPI_Group_translate_ranks(gw, 2, zero_one, g, t);
  int both = r > 1 || (t[0] != MPI_UNDEFINED && t[1] != MPI_UNDEFINED) ? 1 : 0, together = 0;
  MPI_Group_free(&g);
  MPI_Group_free(&gw);
  MPI_Comm_free(&node);
  MPI_Allreduce(&both, &together, 1, MPI_INT, MPI_MIN, w);
  // TCP between the two: rank 1's connections reversed among rank 0's.
  std::string mine_c;
  for (const auto& c : tcp_connections()) mine_c += c + "\n";
  int len = r == 1 ? static_cast<int>(mine_c.size()) : 0;
  if (r == 1) MPI_Send(&len, 1, MPI_INT, 0, 7, w);
  std::string other;
  if (r == 0) {
    MPI_Recv(&len, 1, MPI_INT, 1, 7, w, MPI_STATUS_IGNORE);
    other.resize(static_cast<std::size_t>(len));
    MPI_Recv(other.data(), len, MPI_CHAR, 1, 8, w, MPI_STATUS_IGNORE);
  } else if (r == 1) {
    MPI_Send(mine_c.data(), len, MPI_CHAR, 0, 8, w);
  }
  if (r != 0) return;
  bool tcp = false;
  std::istringstream theirs(other);
  std::string c;
  const auto own = tcp_connections();
  while (std::getline(theirs, c)) {
    const auto dash = c.find('-');
    const std::string reversed = c.substr(dash + 1) + "-" + c.substr(0, dash);
    tcp = tcp || std::find(own.begin(), own.end(), reversed) != own.end();
  }
  std::string ys;
  for (int y : yield) ys += (ys.empty() ? "" : ", ") + std::to_string(y);
  std::printf("launch: rank 0 job %lld, rank 1 job %lld: %s; shared-memory split: %s; tcp between them: %s; "
              "yield when idle: %s\n",
              job[0], job[1], job[0] == job[1] ? "same" : "different", together ? "together" : "apart", tcp ? "yes" : "no",
              ys.c_str());
}
// The "env" info of grow's and merge's spawn: PINGPONG_SPAWN_YIELD=0|1 as Open MPI's
// mpi_yield_when_idle for the newcomers (MPI_INFO_NULL when unset: Open MPI chooses).
MPI_Info spawn_yield_info() {
  const char* y = std::getenv("PINGPONG_SPAWN_YIELD");
  if (!y || (std::strcmp(y, "0") != 0 && std::strcmp(y, "1") != 0)) return MPI_INFO_NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "env", (std::string("OMPI_MCA_mpi_yield_when_idle=") + y).c_str());
  return info;
}

void print_pair(const char* what, double lat, double bw, std::size_t big, int mib, int rounds) {
  std::printf("pingpong %s: 8 B round trip %.2f us, %d MiB %.2f GB/s (median of %d rounds)\n", what, lat * 1e6, mib,
              2.0 * big / bw / 1e9, rounds);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "fresh";
  const int mib = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  const bool merge = mode == "merge" || mode == "child-merge";
  const bool known = mode == "fresh" || mode == "grow" || mode == "respawn" || mode == "child" ||
                     mode == "child-respawn" || mode == "respawned" || merge;
  if (!known || mib < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: pingpong_grown fresh|grow|respawn|merge [MiB >= 1] [rounds >= 1]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string m = std::to_string(mib), n = std::to_string(rounds);
  if (mode == "grow" || mode == "respawn" || mode == "merge") {
    std::string child = mode == "grow" ? "child" : mode == "merge" ? "child-merge" : "child-respawn";
    char* cargv[] = {child.data(), m.data(), n.data(), nullptr};
    MPI_Info info = mode == "respawn" ? MPI_INFO_NULL : spawn_yield_info();
    const int rc = blacs_dyn_expand(mode == "merge" ? 2 : 1, argv[0], cargv, nullptr, info);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    if (rc) return fail("blacs_dyn_expand", rc);
  } else if (mode == "child" || mode == "child-respawn" || mode == "respawned" || mode == "child-merge") {
    blacs_dyn_clear_new();
  }
  if (mode == "respawn" || mode == "child-respawn" || mode == "respawned") {
    // The grown world of two (an original and a newcomer) spawns two processes at once
    // and lets them replace it.
    if (mode != "respawned") {
      std::string child = "respawned";
      char* cargv[] = {child.data(), m.data(), n.data(), nullptr};
      // As the session's respawn does (resize's respawn_spawn_env): two processes on a node
      // of two cores or more poll without yielding, though Open MPI sees the spawn
      // oversubscribed while the old pair still runs.
      MPI_Info info = MPI_INFO_NULL;
      if (!std::getenv("OMPI_MCA_mpi_yield_when_idle") && std::thread::hardware_concurrency() >= 2) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "env", "OMPI_MCA_mpi_yield_when_idle=0");
      }
      const int rc = blacs_dyn_expand(2, argv[0], cargv, nullptr, info);
      if (info != MPI_INFO_NULL) MPI_Info_free(&info);
      if (rc) return fail("blacs_dyn_expand", rc);
    }
    int leaving = 0;
    if (int rc = blacs_dyn_retire(&leaving)) return fail("blacs_dyn_retire", rc);
    if (leaving) blacs_dyn_leave();
  }
  const MPI_Comm w = blacs_dyn_world();
  int size = 0, rank = 0;
  MPI_Comm_size(w, &size);
  MPI_Comm_rank(w, &rank);
  if (size < 2) {
    if (rank == 0) std::fprintf(stderr, "pingpong_grown: the world has %d process(es), 2 needed\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::size_t big = static_cast<std::size_t>(mib) << 20;
  std::vector<char> buf(big, static_cast<char>(rank));
  round_trip(w, buf, big, 2, 1);  // warm-up: connections, registrations
  const double lat = round_trip(w, buf, 8, 1000, rounds);
  const double bw = round_trip(w, buf, big, 10, rounds);
  const bool respawned = mode == "respawned";
  if (rank == 0)
    print_pair(respawned ? "respawned pair" : mode == "grow" || merge ? "original<->newcomer" : "two originals", lat, bw,
               big, mib, rounds);
  if (merge) {  // the two newcomers, one launch
    round_trip(w, buf, big, 2, 1, 1, 2);
    const double lat2 = round_trip(w, buf, 8, 1000, rounds, 1, 2);
    const double bw2 = round_trip(w, buf, big, 10, rounds, 1, 2);
    if (rank == 1) print_pair("newcomer<->newcomer", lat2, bw2, big, mib, rounds);
    std::fflush(stdout);
    MPI_Barrier(w);
  }
  launch_view(w);
  MPI_Finalize();
  return 0;
}
