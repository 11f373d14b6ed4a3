// SPDX-License-Identifier: BSD-3-Clause
// The raw-MPI baseline that the blacs-dyn benchmarks (expand_bench.cpp,
// expand_nodes_bench.cpp) and the endurance test (tests/blacs-dyn/runtime/endurance.cpp) measure
// blacs-dyn against: the child side of MPI_Comm_spawn + MPI_Intercomm_merge.
#pragma once

#include <mpi.h>

namespace blacs_dyn_bench {

// A child of a raw spawn (MPI is initialised): merge with the parents, take part in
// `barriers` barriers on the merged communicator (as many as the parents make), free it,
// disconnect from the parents and finalize. Returns the program's exit status (0).
inline int raw_child(int barriers) {
  MPI_Comm parent = MPI_COMM_NULL, merged = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  MPI_Intercomm_merge(parent, 1, &merged);
  for (int b = 0; b < barriers; ++b) MPI_Barrier(merged);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}

}  // namespace blacs_dyn_bench
