// SPDX-License-Identifier: BSD-3-Clause
// The one description of a matrix inside the session (pure: no MPI): what was registered
// (name, element type, global shape, distribution and blocks) and its layout on the
// current grid. The registry's entries, the checkpoint and level writers and readers and
// the hand-over to newcomers describe their matrices with it; the file and wire records
// (checkpoint::MatrixInfo, levels::LevelMatrix, ExpansionState::Matrix) are
// made from it at their boundary, the element type's letter by scalar_letter alone.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "common/scalar.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/resize/session.hpp"

namespace resize::detail {

struct MatrixDesc {
  std::string name;
  Scalar type = Scalar::D;
  Distribution dist = Distribution::BlockCyclic;
  int m = 0, n = 0, mb = 1, nb = 1;  // global shape and the block-cyclic block
  Session::BlockSizes sizes;         // set: an extended-descriptor matrix (no ScaLAPACK descriptor)
  // Its layout on the current grid. Extended-descriptor matrices keep it in the registry
  // (a regrid may change the powers their block sizes follow, so the source of the next
  // move is this, not sizes() again); the checkpoint shell's descriptions always set it.
  std::optional<redist::Layout> layout;

  bool extended() const { return static_cast<bool>(sizes); }
  // Its block sizes on grid `g`: a block distribution's one block per process (at least
  // 1), or the block-cyclic block itself.
  int row_block_on(const Grid& g) const {
    return dist == Distribution::Block ? std::max(1, (m + g.nprow - 1) / g.nprow) : mb;
  }
  int col_block_on(const Grid& g) const {
    return dist == Distribution::Block ? std::max(1, (n + g.npcol - 1) / g.npcol) : nb;
  }
};

// ScaLAPACK's prefix letter of an element type (s, d, c, z): the one conversion to the
// checkpoint and level files' spelling of it.
constexpr char scalar_letter(Scalar t) {
  switch (t) {
    case Scalar::S: return 's';
    case Scalar::D: return 'd';
    case Scalar::C: return 'c';
    case Scalar::Z: return 'z';
  }
  return '?';
}

}  // namespace resize::detail
