// SPDX-License-Identifier: BSD-3-Clause
// A program that links resize's pure core (resize_core) and nothing else of the project:
// CMake puts the core's whole link interface on its link line, which
// tests/structure/check_pure_core.py reads (with ldd of this program) to prove that no MPI, HDF5,
// ScaLAPACK or BLACS library comes with the core. It calls the payoff rule, the one core
// call the cluster simulator makes.
#include "malleable/resize/predict.hpp"

int main() {
  const auto p = resize::predict_payoff(2.0, 1.0, 0.5, 0.25, 0.25, 10);
  return p.t_resize > 0 ? 0 : 1;
}
