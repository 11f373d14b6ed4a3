// SPDX-License-Identifier: BSD-3-Clause
// The session's one description of a registered matrix (pure: no MPI): what was
// registered (name, element type, global shape, distribution and blocks) and its layout
// on the current grid. It lives in the state a registry entry shares with the matrix's
// handle (detail::MatrixState, matrix.hpp), so the handle's name(), rows(), cols() and
// block sizes read it and nothing repeats it; the checkpoint and level writers and
// readers and the hand-over to newcomers describe their matrices with it, and the file
// and wire records (checkpoint::MatrixInfo, levels::LevelMatrix, ExpansionState::Matrix)
// are made from it at their boundary. In the public headers only because the handle's
// inline accessors read it: not part of the API (namespace detail).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/resize/types.hpp"

namespace resize::detail {

// The element type of a registered matrix, by ScaLAPACK's prefix letter (its size, name
// and letter: the library's common/scalar.hpp).
enum class Scalar { S, D, C, Z };

struct MatrixDesc {
  std::string name;
  Scalar type = Scalar::D;
  Distribution dist = Distribution::BlockCyclic;
  int m = 0, n = 0, mb = 1, nb = 1;  // global shape and the block-cyclic block
  // Set: an extended-descriptor matrix (no ScaLAPACK descriptor), its block sizes on a
  // grid (Session::BlockSizes, the same type).
  std::function<void(const Grid&, std::vector<long long>&, std::vector<long long>&)> sizes;
  // Its layout on the current grid. Extended-descriptor matrices keep it in the registry
  // (a regrid may change the powers their block sizes follow, so the source of the next
  // move is this, not sizes() again; their handles read their block sizes from it); the
  // checkpoint shell's descriptions always set it.
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

}  // namespace resize::detail
