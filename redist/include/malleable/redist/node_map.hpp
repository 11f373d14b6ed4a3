// SPDX-License-Identifier: BSD-3-Clause
// Which ranks of a communicator share this process's node: what the on-node transports
// of the redistribution (node window, single copy) and the waiting mode ask. Grouped by
// host name, not by MPI_Comm_split_type(SHARED): on a world made of several jobs (after an
// expansion by MPI_Comm_spawn and a merge) Open MPI's locality data differs between the
// processes of different jobs, so the split misgroups them, fails (MPI_ERR_TRUNCATE) or
// hangs; every process's name, gathered, gives the same grouping everywhere.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace redist {

// The ranks of `comm` on this process's host, sorted (this rank included). Collective the
// first time it is asked for a communicator (one MPI_Allgather of the host names), then
// cached on the communicator as an attribute: every rank of `comm` asks at the same calls.
const std::vector<int>& node_ranks(MPI_Comm comm);

// Pure: the indices k with names[k] == names[me], ascending.
std::vector<int> ranks_named_alike(const std::vector<std::string>& names, int me);

// The ranks of `comm` in this process's MPI job (its MPI_COMM_WORLD: the originals, or
// the processes of one spawn), sorted, this rank included. Local (the groups of `comm`
// and MPI_COMM_WORLD compared, no message), cached on the communicator. Symmetric: a peer
// is in this rank's job exactly when this rank is in the peer's.
const std::vector<int>& job_ranks(MPI_Comm comm);

// Pure: the indices k with world_rank_of[k] >= 0 (the ranks found in this job's world).
std::vector<int> ranks_in_world(const std::vector<int>& world_rank_of);

}  // namespace redist
