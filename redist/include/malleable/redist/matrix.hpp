// SPDX-License-Identifier: BSD-3-Clause
// What a distributed matrix is apart from any grid (pure C++, no MPI): its element type,
// its distribution kind and the record that names a matrix with its global shape and the
// rule that lays it out on whatever grid it lives on. The one vocabulary of the libraries:
// gridmap plans placements for a MatrixSpec, the resize session registers its matrices as
// MatrixSpecs, and the checkpoint and level files and the hand-over to newcomers encode
// and decode one at their boundary. Its layout on a grid is a Layout (layout.hpp), as
// DLA-Future keeps one Distribution and COSTA one layout.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"

namespace redist {

// The element type, by ScaLAPACK's prefix letter.
enum class Scalar { S, D, C, Z };

template <class T> constexpr Scalar scalar_of();
template <> constexpr Scalar scalar_of<float>() { return Scalar::S; }
template <> constexpr Scalar scalar_of<double>() { return Scalar::D; }
template <> constexpr Scalar scalar_of<std::complex<float>>() { return Scalar::C; }
template <> constexpr Scalar scalar_of<std::complex<double>>() { return Scalar::Z; }

constexpr std::size_t scalar_bytes(Scalar t) {
  switch (t) {
    case Scalar::S: return sizeof(float);
    case Scalar::D: return sizeof(double);
    case Scalar::C: return sizeof(std::complex<float>);
    case Scalar::Z: return sizeof(std::complex<double>);
  }
  return 0;
}

constexpr const char* scalar_name(Scalar t) {
  switch (t) {
    case Scalar::S: return "float";
    case Scalar::D: return "double";
    case Scalar::C: return "complex<float>";
    case Scalar::Z: return "complex<double>";
  }
  return "?";
}

// ScaLAPACK's prefix letter (s, d, c, z): how the checkpoint and level files spell it.
constexpr char scalar_letter(Scalar t) {
  switch (t) {
    case Scalar::S: return 's';
    case Scalar::D: return 'd';
    case Scalar::C: return 'c';
    case Scalar::Z: return 'z';
  }
  return '?';
}
// The element type of a letter; false for anything but s, d, c, z.
constexpr bool scalar_from_letter(char letter, Scalar& t) {
  switch (letter) {
    case 's': t = Scalar::S; return true;
    case 'd': t = Scalar::D; return true;
    case 'c': t = Scalar::C; return true;
    case 'z': t = Scalar::Z; return true;
  }
  return false;
}

// How a matrix is laid out on every grid it lives on.
enum class Distribution {
  BlockCyclic,  // ScaLAPACK's: the MB x NB block on every grid
  Block,        // one block per process row/column (MB = ceil(M/nprow), NB = ceil(N/npcol))
  Extended,     // the extended descriptor: block sizes per grid from the matrix's BlockRule
};

// An extended-descriptor matrix's rule: the sizes of its row blocks and column blocks on a
// grid of nprow x npcol processes placed on `ranks` (row-major communicator ranks; empty:
// 0..nprow*npcol-1).
using BlockRule = std::function<void(int nprow, int npcol, const std::vector<int>& ranks,
                                     std::vector<long long>& row_blocks, std::vector<long long>& col_blocks)>;

// A matrix before it has a grid: its name, element type, global shape and layout rule
// (distribution kind and blocks). Its Layout on a grid is layout_on(); the records of the
// files and the wire are made from it at their boundary.
struct MatrixSpec {
  std::string name;
  Scalar type = Scalar::D;
  Distribution dist = Distribution::BlockCyclic;
  std::int64_t m = 0, n = 0;    // global rows and columns
  std::int64_t mb = 1, nb = 1;  // BlockCyclic: the block (Block, Extended: unused)
  BlockRule sizes;              // Extended: the block sizes on a grid

  // ScaLAPACK's block-cyclic matrix of mb x nb blocks; the block distribution (unnamed,
  // element type double until set).
  static MatrixSpec block_cyclic(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb) {
    MatrixSpec s;
    s.m = m;
    s.n = n;
    s.mb = mb;
    s.nb = nb;
    return s;
  }
  static MatrixSpec block(std::int64_t m, std::int64_t n) {
    MatrixSpec s = block_cyclic(m, n, 1, 1);
    s.dist = Distribution::Block;
    return s;
  }

  bool extended() const { return dist == Distribution::Extended; }
  // The row (column) block on a grid of nprow (npcol) process lines: a block distribution's
  // one block per line (at least 1), or the block-cyclic block itself.
  std::int64_t row_block_on(int nprow) const {
    return dist == Distribution::Block ? std::max<std::int64_t>(1, (m + nprow - 1) / nprow) : mb;
  }
  std::int64_t col_block_on(int npcol) const {
    return dist == Distribution::Block ? std::max<std::int64_t>(1, (n + npcol - 1) / npcol) : nb;
  }
  // Its layout on a grid of nprow x npcol processes on `ranks` (row-major; empty:
  // 0..nprow*npcol-1), the first block on process (0, 0): block-cyclic with the blocks
  // above, or (Extended) the blocks its rule gives. Throws redist::Error naming the
  // matrix for an Extended one without a rule or whose blocks do not add up to m x n,
  // and what Layout's validation finds.
  Layout layout_on(int nprow, int npcol, const std::vector<int>& ranks = {}) const;
};

}  // namespace redist
