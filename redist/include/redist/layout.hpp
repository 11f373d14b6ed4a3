// The extended descriptor as a plain value: ScaLAPACK's DESC with per-row/column block
// sizes (seed 002 §3.4.4). Pure C++: no MPI, no BLACS.
//
// Row block k (0-based) has row_blocks[k] rows and lives on process row
// (rsrc + k) mod nprow; likewise columns from csrc. Uniform sizes are exactly ScaLAPACK's
// block-cyclic DESC; one block per process row/column with sizes proportional to power is
// the thesis's heterogeneous block distribution; several unequal blocks per process is
// heterogeneous block-cyclic.
//
// `ranks` places the grid inside an enclosing communicator: ranks[pr * npcol + pc] is the
// rank (in the communicator that the redistribution runs on) of the process at grid
// coordinate (pr, pc). Two layouts on different grids of one communicator (old grid and
// new grid after an expansion) are therefore directly comparable.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace redist {

// Thrown by validation and planning; the message names the argument and value at fault.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Layout {
  std::int64_t m = 0, n = 0;            // global rows, columns
  std::vector<std::int64_t> row_blocks; // sizes of the row blocks, sum == m
  std::vector<std::int64_t> col_blocks; // sizes of the column blocks, sum == n
  int nprow = 1, npcol = 1;             // process grid
  int rsrc = 0, csrc = 0;               // process row/column owning block 0
  std::vector<int> ranks;               // nprow*npcol, row-major grid -> communicator rank

  // ScaLAPACK block-cyclic: blocks of mb x nb (the last ones possibly shorter).
  // `ranks` empty means row-major 0..nprow*npcol-1 (BLACS "Row" order).
  static Layout block_cyclic(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb,
                             int nprow, int npcol, int rsrc = 0, int csrc = 0,
                             std::vector<int> ranks = {});
  // General form; validates. Throws redist::Error naming the bad field.
  static Layout from_blocks(std::vector<std::int64_t> row_blocks,
                            std::vector<std::int64_t> col_blocks, int nprow, int npcol,
                            int rsrc = 0, int csrc = 0, std::vector<int> ranks = {});

  void validate() const;  // throws redist::Error

  // Generalised numroc: local rows held by process row pr / local columns by pc.
  std::int64_t local_rows(int pr) const;
  std::int64_t local_cols(int pc) const;
  // Owner and local index of global row i (0-based): process row, local row.
  int row_owner(std::int64_t i) const;
  std::int64_t row_to_local(std::int64_t i) const;
  int col_owner(std::int64_t j) const;
  std::int64_t col_to_local(std::int64_t j) const;
  // Inverse map: local row il on process row pr -> global row.
  std::int64_t local_to_row(int pr, std::int64_t il) const;
  std::int64_t local_to_col(int pc, std::int64_t jl) const;
  // Grid coordinate of a communicator rank, or false if the rank is not in the grid.
  bool coords_of(int rank, int& pr, int& pc) const;
  int rank_at(int pr, int pc) const { return ranks[static_cast<std::size_t>(pr) * npcol + pc]; }
  bool uniform() const;  // every block but the last of each dimension has one size
};

}  // namespace redist
