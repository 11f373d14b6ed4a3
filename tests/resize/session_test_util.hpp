// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by the session's MPI test programs: a quiet session's options, an
// element's value from its global indices and extended-descriptor block sizes that follow
// the session's powers (the regrid tests), the verdict over every process, and the checks
// that end the job at once when a phase went wrong (the resize tests).
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "core_test_util.hpp"
#include "malleable/resize/session.hpp"

namespace session_test {

// A session that prints no progress and keeps its resize history in memory only.
inline resize::SessionOptions quiet_options() {
  resize::SessionOptions o;
  o.progress = false;
  o.persist_history = false;
  return o;
}

inline double value(long long i, long long j) { return 1000.0 * static_cast<double>(i) + static_cast<double>(j); }

// Row (column) blocks of an n x n matrix on grid `g`, in proportion to Session::powers() of
// each grid row's (column's) first process (1 for a rank without a power); the last block
// takes what rounding leaves.
inline void proportional(const resize::Session& s, const resize::Grid& g, std::vector<long long>& rows,
                         std::vector<long long>& cols, long long n) {
  const auto& p = s.powers();
  auto pw = [&](int r) { return r < static_cast<int>(p.size()) ? p[static_cast<std::size_t>(r)] : 1.0; };
  auto split = [&](int parts, auto rank_of) {
    std::vector<long long> out;
    double total = 0;
    for (int k = 0; k < parts; ++k) total += pw(rank_of(k));
    long long given = 0;
    for (int k = 0; k < parts; ++k) {
      const long long v = k + 1 == parts ? n - given : std::llround(static_cast<double>(n) * pw(rank_of(k)) / total);
      out.push_back(v);
      given += v;
    }
    return out;
  };
  rows = split(g.nprow, [&](int i) { return g.rank_at(i, 0); });
  cols = split(g.npcol, [&](int j) { return g.rank_at(0, j); });
}

// Every process's `ok` combined: a process that failed prints its `log`; world rank 0
// prints PASS or FAILED. Ends MPI; returns the program's exit status.
inline int verdict(bool ok, const std::string& log) {
  int rank = 0, all = ok ? 1 : 0, every = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) std::fprintf(stderr, "rank %d:\n%s", rank, log.c_str());
  if (rank == 0) std::printf("%s\n", every ? "PASS" : "FAILED");
  MPI_Finalize();
  return every ? 0 : 1;
}

// A decision to resize to an nprow x npcol grid of `procs` processes (0: a regrid keeps
// the world), placed Local2 (core_test_util.hpp).
using resize_test::decision;

// After a phase: the faults every process counted (`errors`), summed over the world; any
// ends the job (MPI_Abort) with "<program>: FAILED <phase>: N <what>", none prints
// "<program>: <phase>: <fine>" on world rank 0.
inline void all_right(resize::Session& s, long long errors, const char* program, const std::string& phase,
                      const char* what, const char* fine) {
  long long all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_LONG_LONG, MPI_SUM, s.world());
  if (all != 0) {
    if (s.world_rank() == 0) std::fprintf(stderr, "%s: FAILED %s: %lld %s\n", program, phase.c_str(), all, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (s.world_rank() == 0 && fine) std::printf("%s: %s: %s\n", program, phase.c_str(), fine);
}

// A resize that must have succeeded: a world of `procs` processes and the grid `shape`
// ("1x2", which may leave processes out), or without a shape a grid of all `procs`;
// otherwise the job ends (MPI_Abort) with the result's message.
inline void reached(resize::Session& s, const resize::RemapResult& r, int procs, const char* program, const char* what,
                    const char* shape = nullptr) {
  if (!r.ok || s.world_size() != procs || (shape ? s.grid().shape() != shape : s.grid().size() != procs)) {
    if (s.world_rank() == 0)
      std::fprintf(stderr, "%s: FAILED: %s did not reach %s%s%d processes (%s; grid %s)\n", program, what, shape ? shape : "",
                   shape ? " on " : "", procs, r.message.c_str(), s.grid().shape().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace session_test
