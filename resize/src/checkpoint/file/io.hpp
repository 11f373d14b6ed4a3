// SPDX-License-Identifier: BSD-3-Clause
// Internal: the parallel HDF5 shell of checkpoint and restart (file/write.cpp, file/read.cpp, shared helpers in file/h5.hpp).
// Every function is collective over `comm`; a failure on any process throws the same
// resize::Error on every process (the message of the lowest failing rank).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/matrix.hpp"
#include "checkpoint/file/format.hpp"
#include "common/config.hpp"
#include "common/scalar.hpp"
#include "move/mover.hpp"

namespace resize::detail {

// One registered matrix as this process holds it, a view of its buffer: its record
// (spec.mb, spec.nb its blocks on the current grid), its layout on that grid, this
// process's grid coordinate in it (-1 off the grid) and its column-major local buffer.
struct CheckpointMatrix {
  redist::MatrixSpec spec;
  redist::Layout layout;
  int pr = -1, pc = -1;
  void* local = nullptr;
  std::int64_t lld = 1;
};

// The checkpoint file's record of a matrix, from the session's record and (an
// extended-descriptor matrix's block sizes) its layout on the current grid, if it has one;
// its checksum still to compute (session_checkpoint.cpp).
checkpoint::MatrixInfo file_record(const redist::MatrixSpec& d, const redist::Layout* layout);

// The order-independent checksum of a matrix (checkpoint::local_checksum summed over
// `comm`) as files of format `version` store it: the same value on every process.
std::uint64_t global_checksum(MPI_Comm comm, const CheckpointMatrix& m, int version = checkpoint::kFormatVersion);

// Writes one checkpoint file at `path`: room checked, written under `path`.tmp, closed
// and fsynced on every process, read back and compared, then renamed by rank 0 (and the
// directory fsynced). A failure anywhere throws the same Error on every process, removes
// the .tmp and leaves every other file alone. `h` and `state` must be the same on every process; the checksums
// in h.matrices are computed here. `cfg`: the checkpoint switches the session read at its
// start (format version, I/O mode, block I/O, trace, test-only faults).
void write_checkpoint(MPI_Comm comm, const std::string& path, checkpoint::Header h, const std::vector<char>& state,
                      const std::vector<CheckpointMatrix>& mats, const config::Checkpoint& cfg);

// A checkpoint file opened for reading with the MPI-IO driver, its I/O as `cfg` (the
// session's configuration) says.
class CheckpointReader {
 public:
  CheckpointReader(MPI_Comm comm, const std::string& path, const config::Checkpoint& cfg);  // throws on every rank
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;
  const checkpoint::Header& header() const { return header_; }
  const std::vector<char>& state() const { return state_; }
  // Reads matrix `k` of the header into `m`'s local buffer (hyperslabs of m.layout) and
  // verifies its checksum.
  void read(std::size_t k, const CheckpointMatrix& m);
  // Reads this process's blocks of matrix `k` as `m`'s layout places them into a
  // block-sized scratch buffer (m's local buffer untouched) and throws `differs` on every
  // process unless the checksum summed over all processes is the file's.
  void verify(std::size_t k, const CheckpointMatrix& m, const std::string& differs);

 private:
  MPI_Comm comm_;
  std::string path_;
  config::Checkpoint cfg_;
  std::int64_t file_ = -1;
  checkpoint::Header header_;
  std::vector<char> state_;
};

}  // namespace resize::detail
