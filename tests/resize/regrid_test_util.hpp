// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by the regrid test programs (session_regrid.cpp, session_matrix_regrid.cpp):
// their session's options, an element's value from its global indices, extended-descriptor
// block sizes that follow the session's powers, and the verdict over every process.
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "malleable/resize/session.hpp"

namespace regrid_test {

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

}  // namespace regrid_test
