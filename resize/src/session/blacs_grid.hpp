// SPDX-License-Identifier: BSD-3-Clause
// A BLACS process grid on an arbitrary MPI communicator (the session's current world),
// owned RAII-style. Internal to the session's MPI shell.
#pragma once

#include <mpi.h>

#include "malleable/resize/types.hpp"

namespace resize::detail {

class BlacsGrid {
 public:
  BlacsGrid() = default;
  // Collective over `world`: every process calls it; those outside `g` get ctxt -1.
  BlacsGrid(MPI_Comm world, const Grid& g);
  ~BlacsGrid() { release(); }
  BlacsGrid(BlacsGrid&& o) noexcept { *this = static_cast<BlacsGrid&&>(o); }
  BlacsGrid& operator=(BlacsGrid&& o) noexcept;
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;

  void release();
  int ctxt() const { return ctxt_; }
  bool member() const { return ctxt_ >= 0; }
  int myrow() const { return myrow_; }
  int mycol() const { return mycol_; }
  const Grid& grid() const { return grid_; }

 private:
  int ctxt_ = -1, sys_ = -1, myrow_ = -1, mycol_ = -1;
  Grid grid_;
};

}  // namespace resize::detail
