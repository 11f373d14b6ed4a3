// SPDX-License-Identifier: BSD-3-Clause
// Session::start is collective and checks that every process starts the same grid with
// the same registered matrices (class 2): one process that differs makes every
// process throw the same message naming it, before any grid or buffer exists, instead of
// hanging at the first remap point. Cases (argv[1]):
//   same       every process agrees: start succeeds, buffers are sized
//   size       world rank 1 registers B with another size
//   missing    the last rank registers one matrix fewer
//   grid       world rank 1 asks for another grid
//   empty      every process asks for a 0x2 grid
// Prints PASS on world rank 0 when every process saw the expected outcome.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/resize/session.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mode = argc > 1 ? argv[1] : "same";
  bool ok = true;
  std::string message;
  {
    resize::SessionOptions o;
    o.progress = false;
    resize::Session s(argc, argv, std::move(o));
    int da[9] = {}, db[9] = {};
    std::vector<double> a, b;
    s.register_matrix("A", 40, 40, 8, 8, resize::Distribution::BlockCyclic, da, a);
    const int bn = mode == "size" && rank == 1 ? 41 : 40;
    if (!(mode == "missing" && rank == size - 1))
      s.register_matrix("B", bn, 40, 8, 8, resize::Distribution::BlockCyclic, db, b);
    resize::Grid g{2, 2, {}};
    if (mode == "grid" && rank == 1) g = {1, 4, {}};
    if (mode == "empty") g = {0, 2, {}};
    try {
      s.start(g);
      message = "started";
    } catch (const resize::Error& e) {
      message = e.what();
    }
    std::string want;
    if (mode == "same") {
      want = "started";
      ok = !a.empty() && !b.empty() && da[2] == 40;
    } else if (mode == "size") {
      want = "world rank 1 has [grid 2x2; A 40x40 double block-cyclic 8x8; B 41x40";
    } else if (mode == "missing") {
      want = "world rank " + std::to_string(size - 1) + " has [grid 2x2; A 40x40 double block-cyclic 8x8]";
    } else if (mode == "grid") {
      want = "world rank 1 has [grid 1x4;";
    } else if (mode == "empty") {
      want = "grid 0x2 must be at least 1x1";
    }
    if (message.find(want) == std::string::npos) ok = false;
    if (mode != "same" && (!a.empty() || !b.empty())) ok = false;  // nothing sized on error
    // the same message on every process
    int len = static_cast<int>(message.size()), minlen = 0, maxlen = 0;
    MPI_Allreduce(&len, &minlen, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&len, &maxlen, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (minlen != maxlen) ok = false;
    if (!ok) std::printf("FAILED (%s) on rank %d: got '%s', wanted '%s'\n", mode.c_str(), rank, message.c_str(), want.c_str());
  }
  int all = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s: %s\n", every ? "PASS" : "FAILED", mode.c_str());
  MPI_Finalize();
  return every ? 0 : 1;
}
