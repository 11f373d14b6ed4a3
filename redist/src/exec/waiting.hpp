// SPDX-License-Identifier: BSD-3-Clause
// Waiting for requests and the MPI quirks that decide how: whether this node is so
// oversubscribed that waiters must sleep instead of spin (asked once per communicator),
// and which MPI library runs. Internal to redist.
#pragma once

#include <mpi.h>

#include <vector>

namespace redist::exec {

// MPI_Get_library_version names MPICH (or a derivative: Intel MPI, MVAPICH).
bool mpi_is_mpich();

// Whether ranks of `comm` on this node so far outnumber the CPUs this process may run on
// that spinning waiters starve the ranks doing the copies; cached on `user_comm`.
bool oversubscribed(MPI_Comm user_comm, MPI_Comm comm);

// MPI_Waitall, or (sleep) MPI_Testall with sleeps of sleep_us between tries.
void wait_all(std::vector<MPI_Request>& req, bool sleep, int sleep_us, const char* what);

// MPI_Waitsome over req (MPI_REQUEST_NULL entries allowed, at least one active), or
// (sleep) MPI_Testsome with sleeps between tries; the indices of the completed requests
// in done (resized to their count).
void wait_some(std::vector<MPI_Request>& req, std::vector<int>& done, bool sleep, int sleep_us, const char* what);

}  // namespace redist::exec
