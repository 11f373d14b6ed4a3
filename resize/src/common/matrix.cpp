// SPDX-License-Identifier: BSD-3-Clause
// The index maps behind resize::Matrix<T> (matrix.hpp): redist's Axis of each dimension
// of the matrix's redist::Layout and this process's grid coordinate. Pure: unit-tested
// without MPI against Layout's own maps (tests/resize/common/resize_matrix_map_test.cpp).
#include "malleable/resize/matrix.hpp"

#include <utility>

namespace resize {

IndexMap::IndexMap(redist::Layout layout, int myrow, int mycol)
    : layout_(std::move(layout)), rows_(layout_.row_axis()), cols_(layout_.col_axis()) {
  // A coordinate outside the grid (or either one negative) is "not on the grid".
  const bool on = myrow >= 0 && mycol >= 0 && myrow < layout_.nprow && mycol < layout_.npcol;
  myrow_ = on ? myrow : -1;
  mycol_ = on ? mycol : -1;
}

}  // namespace resize
