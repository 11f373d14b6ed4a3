// SPDX-License-Identifier: BSD-3-Clause
// A registered matrix on its grid is its record (redist::MatrixSpec) and its form there:
// {its layout (redist::Layout), the grid's BLACS context, its leading dimension} (the last
// two a Placement, held in the matrix's state: resize/matrix.hpp's MatrixState). The
// ScaLAPACK descriptor that an application, PBLAS or PDGEMR2D reads is derived from the
// form by the one function here, at the edge: where the session hands the application its
// descriptor (Registered::publish, registry.hpp; make_desc) and where PDGEMR2D is called.
// Pure (resize_core): no BLACS call, the context is the caller's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/matrix.hpp"

namespace resize::detail {

// This rank's local rows and columns in `l`; 0 x 0 where it has no place there.
std::pair<std::int64_t, std::int64_t> local_extent(const redist::Layout& l, int rank);

// The leading dimension of this rank's part of a matrix laid out as `l`: its local rows,
// at least 1 (1 where it has no place). The one rule: the descriptor's LLD, the buffers
// the session stages, an extended matrix's lld() and the moves' source all read it.
std::int64_t leading_dimension(const redist::Layout& l, int rank);

// A matrix's form on its grid besides its layout, on one rank: the grid's BLACS context
// where the rank has a place in the layout (-1 elsewhere: what PDGEMR2D asks of a process
// outside a grid) and its local buffer's leading dimension (leading_dimension; 1 without
// a place).
struct Placement {
  int context = -1;
  int lld = 1;
};

// `mat` laid out as `l` on this `rank`, `context` the grid's context here. Throws
// resize::Error where a block-cyclic matrix's leading dimension does not fit a ScaLAPACK
// descriptor's int.
Placement placement(const redist::MatrixSpec& mat, const redist::Layout& l, int context, int rank);

// The descriptor of block-cyclic matrix `mat` in the form {on, p.context, p.lld}: {1,
// CTXT, M, N, MB, NB, RSRC, CSRC, LLD}, with MB x NB the record's blocks on on's grid,
// RSRC and CSRC on's first process row and column (on.rsrc, on.csrc), CTXT p.context,
// LLD p.lld. Without a layout (registered, not placed yet, or a newcomer before its first
// move): off every grid ({-1, 1}) with the record's MB x NB and source (0, 0).
// Throws resize::Error for an extended-descriptor matrix (no descriptor describes it).
std::array<int, 9> descriptor(const redist::MatrixSpec& mat, const redist::Layout* on, Placement p);
// The same of `mat` laid out as `on` on this `rank` (the placement computed here).
std::array<int, 9> descriptor(const redist::MatrixSpec& mat, const redist::Layout* on, int context, int rank);

// The local buffer such a descriptor's matrix needs on `rank`: LLD x max(1, local
// columns), or 0 where it has no place (ScaLAPACK's convention, Session::local_size).
std::size_t descriptor_elements(const redist::Layout& on, int rank);

}  // namespace resize::detail
