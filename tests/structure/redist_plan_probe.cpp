// SPDX-License-Identifier: BSD-3-Clause
// A program that links redist's planning library (redist_plan) and nothing else of the
// project: CMake puts the library's whole link interface on its link line, which
// tests/structure/check_pure_core.py reads (with ldd of this program) to prove that no MPI,
// HDF5, ScaLAPACK or BLACS library comes with the planner. It plans a 2 x 2 -> 1 x 4
// redistribution, the call gridmap and resize's pure core make.
#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"

int main() {
  const auto a = redist::Layout::block_cyclic(16, 16, 2, 2, 2, 2);
  const auto b = redist::Layout::block_cyclic(16, 16, 4, 4, 1, 4);
  const auto plan = redist::make_plan(a, b, redist::Region::whole(a), 4);
  return plan.stats.elements_total == 256 ? 0 : 1;
}
