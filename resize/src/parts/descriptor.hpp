// SPDX-License-Identifier: BSD-3-Clause
// A registered matrix on its grid is its record (redist::MatrixSpec) and its layout there
// (redist::Layout); the ScaLAPACK descriptor that an application, PBLAS or PDGEMR2D reads
// is derived from the two by the one function here, whenever the session places a matrix
// (Registered::place, registry.hpp) and where it hands a descriptor out (make_desc).
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

// The descriptor of block-cyclic matrix `mat` laid out as `on`: {1, CTXT, M, N, MB, NB,
// RSRC, CSRC, LLD}, with MB x NB the record's blocks on on's grid, RSRC and CSRC on's
// first process row and column (on.rsrc, on.csrc), CTXT `context` where `rank` has a
// place in `on` and -1 elsewhere (what PDGEMR2D asks of a process outside a grid), LLD
// leading_dimension(on, rank). Without a layout (registered, not placed
// yet, or a newcomer before its first move): off every grid with the record's MB x NB.
// Throws resize::Error for an extended-descriptor matrix (no descriptor describes it).
std::array<int, 9> descriptor(const redist::MatrixSpec& mat, const redist::Layout* on, int context, int rank);

// The local buffer such a descriptor's matrix needs on `rank`: LLD x max(1, local
// columns), or 0 where it has no place (ScaLAPACK's convention, Session::local_size).
std::size_t descriptor_elements(const redist::Layout& on, int rank);

}  // namespace resize::detail
