// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the job's rank 0's side of one hand-shake over MPI (runtime_join.cpp
// drives it): bounded sends and receives from a launch's processes, their challenges, the
// job's proofs and their hellos (join_protocol.hpp holds the messages and the checks).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "protocol/join_protocol.hpp"

namespace blacs_dyn::detail {

// An MPI_Send that gives up after `seconds` (a receiver that died must not block the job):
// true if it completed.
bool send_bounded(const std::vector<char>& m, int dest, int tag, MPI_Comm c, double seconds);
// One message of `tag` from each remote rank of `c` (sizes unknown), until `deadline`:
// got[i] empty where none came.
std::vector<std::vector<char>> gather_from(MPI_Comm c, int n, int tag, double deadline, std::vector<bool>& came);
// The ranks that did not come, "1,3".
std::string ranks_missing(const std::vector<bool>& came);
// "<who>: process(es) R of it did not <what> within <in_time>: killed, ..." (in_time: "3 s
// of the connection (the proof deadline, BLACS_DYN_JOIN_PROOF_TIMEOUT)").
std::string not_in_time(const std::string& who, const std::vector<bool>& came, const char* what,
                        const std::string& in_time);
// The hand-shake's first step: every process's challenge by `end` (the proof deadline),
// each nonce paired with a fresh one of ours. "" or why the launch is refused.
std::string read_challenges(MPI_Comm inter, int remote, const std::string& launch, const std::string& who, double end,
                            const std::string& in_time, std::vector<join::ProofNonces>& nonces,
                            std::vector<bool>& came, bool& all_came);
// The job's proof to each process of the launch (sends bounded by `end`).
std::string send_proofs(MPI_Comm inter, const std::string& who, const std::string& secret, const std::string& launch,
                        const std::string& incarnation, const std::vector<join::ProofNonces>& nonces, double end);
// Every process's hello by `end`, checked (its proof first) by the lobby. "" or why not.
std::string read_hellos(join::JoinLobby& lobby, const std::string& launch, MPI_Comm inter, const std::string& who,
                        const std::string& secret, const std::vector<join::ProofNonces>& nonces, double end,
                        const std::string& in_time, std::vector<bool>& came, bool& all_came);

}  // namespace blacs_dyn::detail
