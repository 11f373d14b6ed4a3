// SPDX-License-Identifier: BSD-3-Clause
// The expansion's hand-over, collective (blacs_dyn_share_state): rank 0's bytes (the
// application's state) reach every process of the grown world, the newcomers included,
// each rank's buffer checked first. One HandOver per call, on the world its caller sees
// (`bg`: the background expansion the caller runs, whose pending world it is).
#ifndef BLACS_DYN_RUNTIME_HANDOVER_HPP
#define BLACS_DYN_RUNTIME_HANDOVER_HPP

#include <mpi.h>

#include <cstddef>

namespace blacs_dyn {
class BackgroundExpansion;
class Runtime;

class HandOver {
 public:
  HandOver(Runtime& rt, const BackgroundExpansion* bg);
  void share(void* buf, std::size_t* len, std::size_t cap);

 private:
  const BackgroundExpansion* bg_;
  MPI_Comm world_ = MPI_COMM_NULL;  // the library's private dup of that world
  int rank_ = -1;
};

}  // namespace blacs_dyn
#endif
