// SPDX-License-Identifier: BSD-3-Clause
// Action::Regrid through Session::resize_now on 4 processes:
//   - bad decisions (a rank twice, a rank outside the world, a grid of the wrong size,
//     powers of the wrong length or not > 0, powers on a shrink) are refused on every
//     process with a message naming the fault, and the data and layout stay as they were;
//   - a regrid that takes world rank 3 off the grid (1x3 of ranks 2, 0, 1) with new powers
//     moves a block-cyclic matrix and an extended-descriptor matrix whose block sizes
//     follow Session::powers(); every element lands where the new layout says;
//   - after a regrid onto ranks {0, 3, 2} an expansion is refused (the grid must hold
//     ranks 0..P-1 for new ranks to follow), the data untouched;
//   - a regrid back onto all four (2x2) with equal powers restores the first layout.
// Every element is checked against its global index. Prints PASS on world rank 0.
#include <mpi.h>

#include <string>
#include <vector>

#include "malleable/resize/session.hpp"
#include "session_test_util.hpp"

using session_test::proportional;
using session_test::value;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = 60;
  bool ok = true;
  std::string log;
  {
    resize::Session s(argc, argv, session_test::quiet_options());
    int da[9] = {};
    std::vector<double> a, e;
    int lld_e = 1;
    s.register_matrix("A", n, n, 7, 5, resize::Distribution::BlockCyclic, da, a);
    s.register_matrix_blocks(
        "E", n, n, [&](const resize::Grid& g, std::vector<long long>& r, std::vector<long long>& c) { proportional(s, g, r, c, n); },
        e, &lld_e);
    s.start(resize::Grid{2, 2, {}});

    // Fill / check both matrices against their global indices on the current grid.
    auto sweep = [&](bool fill) -> long long {
      long long bad = 0;
      const resize::Grid& g = s.grid();
      if (s.in_grid()) {
        for (int jl = 0, j = 0; j < n; ++j) {  // block-cyclic A
          if ((j / 5) % g.npcol != s.mycol()) continue;
          for (int il = 0, i = 0; i < n; ++i) {
            if ((i / 7) % g.nprow != s.myrow()) continue;
            double& x = a[static_cast<std::size_t>(il) + static_cast<std::size_t>(jl) * da[8]];
            if (fill) x = value(i, j);
            else bad += x != value(i, j);
            ++il;
          }
          ++jl;
        }
        std::vector<long long> rows, cols;
        proportional(s, g, rows, cols, n);
        long long r0 = 0, c0 = 0;
        for (int k = 0; k < s.myrow(); ++k) r0 += rows[static_cast<std::size_t>(k)];
        for (int k = 0; k < s.mycol(); ++k) c0 += cols[static_cast<std::size_t>(k)];
        for (long long jl = 0; jl < cols[static_cast<std::size_t>(s.mycol())]; ++jl)
          for (long long il = 0; il < rows[static_cast<std::size_t>(s.myrow())]; ++il) {
            double& x = e[static_cast<std::size_t>(il + jl * lld_e)];
            if (fill) x = -value(r0 + il, c0 + jl);
            else bad += x != -value(r0 + il, c0 + jl);
          }
      }
      long long tot = 0;
      MPI_Allreduce(&bad, &tot, 1, MPI_LONG_LONG, MPI_SUM, s.world());
      return tot;
    };
    sweep(true);

    auto refused = [&](const std::string& name, resize::Decision d, const std::string& want) {
      const auto r = s.resize_now(d);
      const bool good = !r.ok && r.message.find(want) != std::string::npos && s.grid().shape() == "2x2" && sweep(false) == 0;
      if (!good) {
        ok = false;
        log += "case " + name + ": ok=" + std::to_string(r.ok) + " message '" + r.message + "'\n";
      }
    };
    resize::Decision d;
    d.action = resize::Action::Regrid;
    d.nprow = 1;
    d.npcol = 3;
    d.ranks = {0, 1, 1};
    refused("duplicate", d, "distinct world ranks");
    d.ranks = {0, 1, 4};
    refused("outside", d, "distinct world ranks 0..3");
    d.ranks = {0, 1};
    refused("size", d, "2 ranks for a 1x3 grid");
    d.ranks = {2, 0, 1};
    d.powers = {1, 2, 3};
    refused("powers length", d, "gives 3 powers, the world has 4");
    d.powers = {1, 2, -1, 1};
    refused("negative power", d, "power of world rank 2");
    resize::Decision sh;
    sh.action = resize::Action::Shrink;
    sh.procs = 2;
    sh.powers = {1, 1, 1, 1};
    refused("powers on a shrink", sh, "cannot set powers");

    // Rank 3 off the grid, unequal powers.
    d.powers = {1.0, 2.0, 0.5, 0.1};
    const auto r1 = s.resize_now(d);
    if (!r1.ok || s.grid().shape() != "1x3" || s.powers().size() != 4 || (rank == 3) == s.in_grid()) {
      ok = false;
      log += "regrid to 1x3 failed: " + r1.message + "\n";
    }
    if (const long long bad = sweep(false); bad) {
      ok = false;
      log += std::to_string(bad) + " elements wrong after the regrid to 1x3\n";
    }
    // Without rank 1: the grid no longer holds ranks 0..2, so an expansion (which adds
    // ranks after the grid's) is refused and nothing moves.
    resize::Decision skip = d;
    skip.ranks = {0, 3, 2};
    const auto r3 = s.resize_now(skip);
    if (!r3.ok || (rank == 1) == s.in_grid()) {
      ok = false;
      log += "regrid without rank 1 failed: " + r3.message + "\n";
    }
    resize::Decision grow;
    grow.action = resize::Action::Expand;
    grow.procs = 6;
    const auto r4 = s.resize_now(grow);
    if (r4.ok || r4.message.find("regrid onto those first") == std::string::npos || s.grid().shape() != "1x3" ||
        sweep(false) != 0) {
      ok = false;
      log += "expansion after a regrid without rank 1: ok=" + std::to_string(r4.ok) + " '" + r4.message + "'\n";
    }
    // Back to 2x2, equal powers.
    resize::Decision back;
    back.action = resize::Action::Regrid;
    back.nprow = back.npcol = 2;
    back.powers = {1, 1, 1, 1};
    const auto r2 = s.resize_now(back);
    if (!r2.ok || s.grid().shape() != "2x2" || !s.in_grid()) {
      ok = false;
      log += "regrid back to 2x2 failed: " + r2.message + "\n";
    }
    if (const long long bad = sweep(false); bad) {
      ok = false;
      log += std::to_string(bad) + " elements wrong after the regrid back\n";
    }
    if (rank == 0 && s.metrics().resizes().size() != 10) {
      ok = false;
      log += "expected 10 records (7 refused, 3 done), got " + std::to_string(s.metrics().resizes().size()) + "\n";
    }
  }
  return session_test::verdict(ok, log);
}
