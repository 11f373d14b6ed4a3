// SPDX-License-Identifier: BSD-3-Clause
// Old and new processes on one node: the bandwidth and latency between rank 0 and rank 1
// of the world, either a world started with two processes ("fresh") or one process grown
// by a spawn of one ("grow": rank 0 an original, rank 1 the newcomer). Open MPI's ob1 sends
// between an original and a newcomer over TCP (btl/vader serves one job's processes only);
// BLACS_DYN_PML=ucx sends through shared memory (scripts/bench/spawn_shm.sh runs the
// arms side by side; tests/blacs-dyn/spawn_shm.sh checks that no network path is used).
//   pingpong_grown fresh|grow [MiB] [rounds]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "fresh";
  const int mib = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if ((mode != "fresh" && mode != "grow" && mode != "child") || mib < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: pingpong_grown fresh|grow [MiB >= 1] [rounds >= 1]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (mode == "grow") {
    char child[] = "child";
    std::string m = std::to_string(mib), n = std::to_string(rounds);
    char* cargv[] = {child, m.data(), n.data(), nullptr};
    if (int rc = blacs_dyn_expand(1, argv[0], cargv, nullptr, MPI_INFO_NULL)) return fail("blacs_dyn_expand", rc);
  } else if (mode == "child") {
    blacs_dyn_clear_new();
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
  if (rank == 0)
    std::printf("pingpong %s: 8 B round trip %.2f us, %d MiB %.2f GB/s (median of %d rounds)\n",
                mode == "grow" ? "original<->newcomer" : "two originals", lat * 1e6, mib, 2.0 * big / bw / 1e9,
                rounds);
  MPI_Finalize();
  return 0;
}
