// SPDX-License-Identifier: BSD-3-Clause
// BLACS bridge of redist (MPI/BLACS layer): descriptors that name a BLACS context become
// Layouts on an enclosing communicator, and a Layout can get a BLACS grid so ScaLAPACK
// routines run on it. RAII: a BlacsGrid releases its context on every path (Elemental's
// habit, docs/STYLE).
#pragma once

#include <mpi.h>

#include <utility>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/redist.h"

namespace redist {

// The communicator of a BLACS grid context: every process of the grid, ranked as the
// grid's BLACS process numbers. Valid while the context lives; not to be freed.
// (Cblacs_get(ctxt, 10) registers the grid's own communicator as a system handle, which
// Cblacs2sys_handle turns back into the MPI_Comm; BLACS/SRC/blacs_get_.c.)
MPI_Comm blacs_grid_comm(int ctxt);

// Both descriptors as Layouts on `comm` (MPI_COMM_NULL or an intercommunicator: Error
// InvalidArgument on this process), agreed by all ranks of comm in one allgather:
// each process reports its grid coordinates and descriptor fields; processes outside a
// grid learn it from those inside. Collective; throws redist::Error (same on all ranks)
// for a context invalid on this process, descriptors that disagree between processes,
// or invalid fields. Also returns each side's local leading dimension on this process
// (1 outside the grid).
struct DescPair {
  Layout a, b;
  std::int64_t lld_a = 1, lld_b = 1;
  // Submatrix origins (1-based) as the processes of each grid passed them; the C API's
  // PDGEMR2D forms use these, so a process outside a grid need not know them.
  std::int64_t ia = 1, ja = 1, ib = 1, jb = 1;
};
DescPair layouts_from_descs(MPI_Comm comm, const redist_desc& a, const redist_desc& b);

// A BLACS grid with process (pr, pc) on rank layout.rank_at(pr, pc) of the system context
// `sys` (a handle from Csys2blacs_handle whose communicator the layout's ranks refer to).
// Collective over that communicator. ctxt() is -1 on processes outside the grid.
class BlacsGrid {
 public:
  BlacsGrid(int sys, const Layout& layout);
  ~BlacsGrid();
  BlacsGrid(BlacsGrid&& o) noexcept : ctxt_(std::exchange(o.ctxt_, -1)) {}
  BlacsGrid& operator=(BlacsGrid&& o) noexcept;
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;
  int ctxt() const { return ctxt_; }

 private:
  int ctxt_ = -1;
};

}  // namespace redist
