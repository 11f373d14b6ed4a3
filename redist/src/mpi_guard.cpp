// SPDX-License-Identifier: BSD-3-Clause
// Bodies of mpi_guard.hpp: redist's one check_mpi, communicator checks, the private
// duplicate and the names messages give to ranks.
#include "mpi_guard.hpp"

#include <string>
#include <utility>

namespace redist::detail {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(ErrorCode::Mpi, std::string("redist: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}


void check_comm(MPI_Comm comm, const char* name) {
  if (comm == MPI_COMM_NULL)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + " is MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) throw Error(ErrorCode::InvalidArgument, std::string(name) + " is an intercommunicator; redist needs an intracommunicator");
}

DupComm::DupComm(MPI_Comm c) {
  check_comm(c, "comm");
  check_mpi(MPI_Comm_dup(c, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}
DupComm::~DupComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

namespace {
thread_local const RankNames* g_rank_names = nullptr;
}

RankNames::RankNames(std::vector<int> names, std::string of)
    : prev_(g_rank_names), names_(std::move(names)), of_(std::move(of)) {
  g_rank_names = this;
}
RankNames::~RankNames() { g_rank_names = prev_; }

std::string rank_name(int r) {
  const RankNames* n = g_rank_names;
  if (!n || r < 0 || r >= static_cast<int>(n->names_.size())) return "rank " + std::to_string(r);
  return "rank " + std::to_string(n->names_[static_cast<std::size_t>(r)]) + " of " + n->of_;
}

}  // namespace redist::detail
