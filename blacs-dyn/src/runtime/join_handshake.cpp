// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the job's rank 0's side of one hand-shake over MPI (join_handshake.hpp).
#include "runtime/join_handshake.hpp"

#include <algorithm>

#include "malleable/blacs_dyn/error.hpp"
#include "runtime/join_dir.hpp"
#include "runtime/runtime_detail.hpp"

namespace blacs_dyn::detail {

// An MPI_Send that gives up after `seconds` (a receiver that died must not block the job):
// true if it completed.
bool send_bounded(const std::vector<char>& m, int dest, int tag, MPI_Comm c, double seconds) {
  MPI_Request q = MPI_REQUEST_NULL;
  if (MPI_Isend(m.data(), static_cast<int>(m.size()), MPI_BYTE, dest, tag, c, &q) != MPI_SUCCESS) return false;
  const double until = now() + seconds;
  for (int flag = 0;;) {
    if (MPI_Test(&q, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (flag) return true;
    if (now() > until) {
      MPI_Request_free(&q);
      return false;
    }
    sleep_for(2000000L);
  }
}

// One message of `tag` from each remote rank of `c` (sizes unknown), until `deadline`:
// got[i] empty where none came.
std::vector<std::vector<char>> gather_from(MPI_Comm c, int n, int tag, double deadline, std::vector<bool>& came) {
  std::vector<std::vector<char>> got(static_cast<std::size_t>(n));
  came.assign(static_cast<std::size_t>(n), false);
  int left = n;
  while (left > 0) {
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (came[static_cast<std::size_t>(i)]) continue;
      int flag = 0;
      MPI_Status st;
      check(MPI_Iprobe(i, tag, c, &flag, &st), "MPI_Iprobe (join)");
      if (!flag) continue;
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      auto& b = got[static_cast<std::size_t>(i)];
      b.resize(static_cast<std::size_t>(std::max(count, 0)));
      check(MPI_Recv(b.data(), count, MPI_BYTE, i, tag, c, MPI_STATUS_IGNORE), "MPI_Recv (join)");
      came[static_cast<std::size_t>(i)] = true;
      --left;
      any = true;
    }
    if (left == 0 || now() > deadline) break;
    if (!any) sleep_for(5000000L);
  }
  return got;
}

std::string ranks_missing(const std::vector<bool>& came) {
  std::string s;
  for (std::size_t i = 0; i < came.size(); ++i)
    if (!came[i]) {
      if (!s.empty()) s += ',';
      s += std::to_string(i);
    }
  return s;
}

std::string not_in_time(const std::string& who, const std::vector<bool>& came, const char* what,
                        const std::string& in_time) {
  return who + ": process(es) " + ranks_missing(came) + " of it did not " + what + " within " + in_time +
         ": killed, crashed, hung, or not a launch of this job";
}

// The hand-shake's first step, rank 0's side: every process's challenge by `end` (the
// proof deadline), each nonce paired with a fresh one of ours. "" or why the launch is
// refused.
std::string read_challenges(MPI_Comm inter, int remote, const std::string& launch, const std::string& who, double end,
                            const std::string& in_time, std::vector<join::ProofNonces>& nonces,
                            std::vector<bool>& came, bool& all_came) {
  const auto challenges = gather_from(inter, remote, kTagJoinChallenge, end, came);
  all_came = std::find(came.begin(), came.end(), false) == came.end();
  if (!all_came) return not_in_time(who, came, "open the hand-shake (its challenge)", in_time);
  for (int i = 0; i < remote; ++i) {
    try {
      const join::JoinChallenge c = join::decode_join_challenge(challenges[static_cast<std::size_t>(i)]);
      if (c.launch != launch || c.rank != i)
        return who + ", process " + std::to_string(i) + ": its challenge names launch " + c.launch + ", process " +
               std::to_string(c.rank);
      nonces[static_cast<std::size_t>(i)] = {c.nonce, join::random_hex(16)};
    } catch (const malleable::wire::Error& e) {
      return who + ", process " + std::to_string(i) + ": no challenge: " + e.what();
    }
  }
  return {};
}

// Every process's hello by `end`, checked (its proof first) by the lobby. "" or why not.
std::string read_hellos(join::JoinLobby& lobby, const std::string& launch, MPI_Comm inter, const std::string& who,
                        const std::string& secret, const std::vector<join::ProofNonces>& nonces, double end,
                        const std::string& in_time, std::vector<bool>& came, bool& all_came) {
  const int remote = static_cast<int>(nonces.size());
  const auto hellos = gather_from(inter, remote, kTagJoinHello, end, came);
  if (std::find(came.begin(), came.end(), false) != came.end()) {
    all_came = false;
    return not_in_time(who, came, "say hello", in_time);
  }
  for (int i = 0; i < remote; ++i) {
    try {
      const std::string why = lobby.hello(launch, join::decode_join_hello(hellos[static_cast<std::size_t>(i)]),
                                          secret, nonces[static_cast<std::size_t>(i)]);
      if (!why.empty()) return why;
    } catch (const malleable::wire::Error& e) {
      return who + ", process " + std::to_string(i) + ": " + e.what();
    }
  }
  return {};
}

// The job's proof to each process of the launch (sends bounded by `end`).
std::string send_proofs(MPI_Comm inter, const std::string& who, const std::string& secret, const std::string& launch,
                        const std::string& incarnation, const std::vector<join::ProofNonces>& nonces, double end) {
  for (std::size_t i = 0; i < nonces.size(); ++i) {
    join::JoinAnswer proof{join::Answer::Proof, "", 0, 0, 0, {}, nonces[i].job, ""};
    proof.mac = join::job_proof(secret, launch, incarnation, static_cast<int>(i), nonces[i]);
    if (!send_bounded(join::encode(proof), static_cast<int>(i), kTagJoinAnswer, inter, std::max(0.0, end - now())))
      return who + ", process " + std::to_string(i) + " did not take the job's proof in time";
  }
  return {};
}

}  // namespace blacs_dyn::detail
