// SPDX-License-Identifier: BSD-3-Clause
#include "session/blacs_grid.hpp"

#include <vector>

#include "malleable/redist/scalapack_api.h"

namespace resize::detail {

BlacsGrid::BlacsGrid(MPI_Comm world, const Grid& g) : grid_(g) {
  sys_ = Csys2blacs_handle(world);
  int ctxt = sys_;
  // BLACS usermap is column-major with leading dimension nprow: usermap[i + j*nprow].
  std::vector<int> map(static_cast<std::size_t>(g.size()));
  for (int i = 0; i < g.nprow; ++i)
    for (int j = 0; j < g.npcol; ++j) map[static_cast<std::size_t>(i + j * g.nprow)] = g.rank_at(i, j);
  Cblacs_gridmap(&ctxt, map.data(), g.nprow, g.nprow, g.npcol);
  // The grid has its own communicators now; the system handle is not needed any more
  // (and one handle per communicator is shared by every grid made from it).
  Cfree_blacs_system_handle(sys_);
  sys_ = -1;
  int nr = 0, nc = 0;
  Cblacs_gridinfo(ctxt, &nr, &nc, &myrow_, &mycol_);
  if (myrow_ < 0 || myrow_ >= g.nprow) {
    ctxt_ = -1;
    myrow_ = mycol_ = -1;
  } else {
    ctxt_ = ctxt;
  }
}

BlacsGrid& BlacsGrid::operator=(BlacsGrid&& o) noexcept {
  if (this != &o) {
    release();
    ctxt_ = o.ctxt_;
    sys_ = o.sys_;
    myrow_ = o.myrow_;
    mycol_ = o.mycol_;
    grid_ = o.grid_;
    o.ctxt_ = o.sys_ = -1;
  }
  return *this;
}

void BlacsGrid::release() {
  // A Session destroyed after the program's MPI_Finalize (e.g. at the end of main's
  // scope) must not free communicators: MPI took them down already, and calling into it
  // now would abort the job.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    if (ctxt_ >= 0) Cblacs_gridexit(ctxt_);
    if (sys_ >= 0) Cfree_blacs_system_handle(sys_);
  }
  ctxt_ = sys_ = -1;
}

}  // namespace resize::detail
