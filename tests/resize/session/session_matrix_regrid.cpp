// SPDX-License-Identifier: BSD-3-Clause
// A Matrix<T> handle's cached index map through a resize that changes only the block
// sizes: on 4 processes, 2x2, an extended-descriptor matrix whose row/column blocks follow
// Session::powers() and a block-cyclic one; Action::Regrid onto the same 2x2 grid (every
// process keeps its place) with new powers re-sizes the extended matrix's blocks. After
// start and after the regrid every process checks, through the handle: local_rows() x
// local_cols() are its blocks' sizes, for_each_local visits exactly its elements with the
// values their global indices give, at(i, j) on the owner is local(local_row(i),
// local_col(j)), and the world holds every element once. Prints PASS on world rank 0.
//   mpiexec -n 4 session_matrix_regrid
#include <mpi.h>

#include <string>
#include <vector>

#include "malleable/resize/session.hpp"
#include "session_test_util.hpp"

namespace {

using session_test::proportional;
using session_test::value;

// Everything the handle says about `a` on the current grid; the number of faults (world).
long long check(resize::Session& s, resize::Matrix<double>& a, double sign, std::string& log) {
  long long bad = 0, held = 0;
  const int n = a.rows();
  if (s.in_grid()) {
    if (a.extended()) {
      std::vector<long long> rows, cols;
      proportional(s, s.grid(), rows, cols, n);
      if (a.local_rows() != rows[static_cast<std::size_t>(s.myrow())] ||
          a.local_cols() != cols[static_cast<std::size_t>(s.mycol())]) {
        ++bad;
        log += a.name() + ": local " + std::to_string(a.local_rows()) + " x " + std::to_string(a.local_cols()) +
               ", the blocks say " + std::to_string(rows[static_cast<std::size_t>(s.myrow())]) + " x " +
               std::to_string(cols[static_cast<std::size_t>(s.mycol())]) + "\n";
      }
    }
    a.for_each_local([&](int i, int j, double& v) {
      ++held;
      bad += v != sign * value(i, j);
    });
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (a.owns(i, j)) bad += &a.at(i, j) != &a.local(a.local_row(i), a.local_col(j)) || a.at(i, j) != sign * value(i, j);
  }
  long long v[2] = {bad, held}, t[2] = {0, 0};
  MPI_Allreduce(v, t, 2, MPI_LONG_LONG, MPI_SUM, s.world());
  if (t[1] != static_cast<long long>(n) * n) {
    ++t[0];
    log += a.name() + ": the world holds " + std::to_string(t[1]) + " elements, not " + std::to_string(n * n) + "\n";
  }
  return t[0];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = 48;
  bool ok = true;
  std::string log;
  {
    resize::Session s(argc, argv, session_test::quiet_options());
    auto e = s.register_matrix<double>(
        "E", n, n, [&](const resize::Grid& g, std::vector<long long>& r, std::vector<long long>& c) {
          proportional(s, g, r, c, n);
        });
    auto a = s.register_matrix<double>("A", n, n, 5, 7);
    s.start(resize::Grid{2, 2, {}});
    e.for_each_local([](int i, int j, double& v) { v = -value(i, j); });
    a.for_each_local([](int i, int j, double& v) { v = value(i, j); });
    const auto sweep = [&](const std::string& when) {
      const long long bad = check(s, e, -1.0, log) + check(s, a, 1.0, log);
      if (bad) {
        ok = false;
        log += std::to_string(bad) + " faults " + when + "\n";
      }
    };
    sweep("after start");
    const int row0 = e.local_rows();
    resize::Decision d;  // the same 2x2 grid, every process in its place; new block sizes
    d.action = resize::Action::Regrid;
    d.nprow = d.npcol = 2;
    d.powers = {1.0, 3.0, 2.0, 1.0};
    const auto r = s.resize_now(d);
    if (!r.ok || s.grid().shape() != "2x2" || !s.in_grid()) {
      ok = false;
      log += "the regrid failed: " + r.message + "\n";
    }
    // Process row 0 now holds a third of the rows instead of half: the map must follow.
    if (s.myrow() == 0 && e.local_rows() == row0) {
      ok = false;
      log += "E: local rows unchanged (" + std::to_string(row0) + ") by the regrid\n";
    }
    sweep("after the regrid to new block sizes");
  }
  return session_test::verdict(ok, log);
}
