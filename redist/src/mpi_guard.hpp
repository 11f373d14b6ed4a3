// SPDX-License-Identifier: BSD-3-Clause
// Internal to redist's MPI layer (execute.cpp, exec/, c_api*.cpp): redist's one check_mpi,
// communicator handles checked before use, a private duplicate that returns errors instead
// of aborting, and the names that messages give to ranks. Bodies in mpi_guard.cpp. Not
// installed.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"

namespace redist::detail {

// Throws Error(Mpi) "redist: <what> failed: <MPI's error text>" unless rc is MPI_SUCCESS.
void check_mpi(int rc, const char* what);

// Throws Error(InvalidArgument) for MPI_COMM_NULL or an intercommunicator, before any MPI
// call on it could reach MPI's fatal error handler and end the job.
// A handle that is neither null nor a communicator cannot be recognised portably.
void check_comm(MPI_Comm comm, const char* name);

// A duplicate of the caller's communicator, so redist's messages never match the
// application's, with MPI_ERRORS_RETURN so an MPI failure becomes a redist::Error.
// Freed on every path.
class DupComm {
 public:
  explicit DupComm(MPI_Comm c);
  ~DupComm();
  DupComm(const DupComm&) = delete;
  DupComm& operator=(const DupComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// How messages name rank r of the communicator a call runs on: "rank r", unless a
// RankNames scope says which rank of the caller's communicator it is (redist_Cpdgemr2d
// runs on a BLACS grid's own communicator, whose numbering the caller never sees).
std::string rank_name(int r);

class RankNames {
 public:
  // names[r] = the caller's number for rank r; `of` says whose numbering it is.
  RankNames(std::vector<int> names, std::string of);
  ~RankNames();
  RankNames(const RankNames&) = delete;
  RankNames& operator=(const RankNames&) = delete;

 private:
  const RankNames* prev_;
  std::vector<int> names_;
  std::string of_;
  friend std::string rank_name(int r);
};

}  // namespace redist::detail
