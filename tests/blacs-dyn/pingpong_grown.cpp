// SPDX-License-Identifier: BSD-3-Clause
// Old and new processes on one node: the bandwidth and latency between rank 0 and rank 1
// of the world, either a world started with two processes ("fresh"), one process grown
// by a spawn of one ("grow": rank 0 an original, rank 1 the newcomer), or that grown job
// after a respawn ("respawn": the two spawned at once replace it, blacs_dyn_retire, so
// ranks 0 and 1 are of one launch again). Open MPI's ob1 sends between an original and a
// newcomer over TCP (btl/vader serves one job's processes only); BLACS_DYN_PML=ucx sends
// through shared memory (scripts/bench/spawn_shm.sh runs the arms side by side;
// tests/blacs-dyn/spawn_shm.sh checks that no network path is used).
// After the measurement, Open MPI's own view of the pair is printed: each process's name
// (the job id and rank the launcher gave it, OMPI_MCA_ess_base_jobid/_vpid), whether
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) puts them in one communicator, and whether a
// TCP connection joins the two processes (the kernel's table: an ob1 pair of two launches
// has one after exchanging messages, a pair of one launch none):
//   "launch: rank 0 job J0, rank 1 job J1: same|different; shared-memory split: together|apart; tcp between them: yes|no;
//    yield when idle: Y0, Y1" (Open MPI's mpi_yield_when_idle in each, read through MPI_T)
//   pingpong_grown fresh|grow|respawn [MiB] [rounds]
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
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"

namespace {
int fail(const char* what, int rc) {
  std::fprintf(stderr, "rank %d: %s failed: %s: %s\n", blacs_dyn_rank(), what, blacs_dyn_status_string(rc),
               blacs_dyn_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

// Seconds per round trip of `bytes` between ranks 0 and 1 of w, median of `rounds` runs of
// `reps` round trips each (the other ranks idle).
double round_trip(MPI_Comm w, std::vector<char>& buf, std::size_t bytes, int reps, int rounds) {
  int r = 0;
  MPI_Comm_rank(w, &r);
  std::vector<double> t;
  for (int k = 0; k < rounds; ++k) {
    MPI_Barrier(w);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < reps; ++i) {
      if (r == 0) {
        MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, w);
        MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, w, MPI_STATUS_IGNORE);
      } else if (r == 1) {
        MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, w, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, w);
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
  long long job[2] = {-1, -1};
  const char* j = std::getenv("OMPI_MCA_ess_base_jobid");
  long long mine = j ? std::atoll(j) : -1;
  MPI_Gather(&mine, 1, MPI_LONG_LONG, job, 1, MPI_LONG_LONG, 0, w);  // ranks 0, 1 (w has 2 or more)
  // Whether Open MPI yields the core while polling (mpi_yield_when_idle, read through
  // MPI_T: it turns it on for a job it sees oversubscribed): -1 not readable.
  int yield_mine = yield_when_idle(), yield[2] = {-1, -1};
  MPI_Gather(&yield_mine, 1, MPI_INT, yield, 1, MPI_INT, 0, w);
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
  std::printf("launch: rank 0 job %lld, rank 1 job %lld: %s; shared-memory split: %s; tcp between them: %s; "
              "yield when idle: %d, %d\n",
              job[0], job[1], job[0] == job[1] ? "same" : "different", together ? "together" : "apart", tcp ? "yes" : "no",
              yield[0], yield[1]);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "fresh";
  const int mib = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  const bool known = mode == "fresh" || mode == "grow" || mode == "respawn" || mode == "child" ||
                     mode == "child-respawn" || mode == "respawned";
  if (!known || mib < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: pingpong_grown fresh|grow|respawn [MiB >= 1] [rounds >= 1]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::string m = std::to_string(mib), n = std::to_string(rounds);
  if (mode == "grow" || mode == "respawn") {
    std::string child = mode == "grow" ? "child" : "child-respawn";
    char* cargv[] = {child.data(), m.data(), n.data(), nullptr};
    if (int rc = blacs_dyn_expand(1, argv[0], cargv, nullptr, MPI_INFO_NULL)) return fail("blacs_dyn_expand", rc);
  } else if (mode == "child" || mode == "child-respawn" || mode == "respawned") {
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
    std::printf("pingpong %s: 8 B round trip %.2f us, %d MiB %.2f GB/s (median of %d rounds)\n",
                respawned ? "respawned pair" : mode == "grow" ? "original<->newcomer" : "two originals", lat * 1e6,
                mib, 2.0 * big / bw / 1e9, rounds);
  launch_view(w);
  MPI_Finalize();
  return 0;
}
