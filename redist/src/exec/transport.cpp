// SPDX-License-Identifier: BSD-3-Clause
// Datatypes and the packing choice (transport.hpp).
#include "transport.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "../mpi_guard.hpp"

namespace redist::exec {

using detail::check_mpi;

int narrow(std::int64_t v, const char* what) {
  if (v > INT_MAX) throw Error(ErrorCode::Internal, std::string(what) + " = " + std::to_string(v) + " exceeds MPI's int");
  return static_cast<int>(v);
}

namespace {

// A datatype for the pieces of `runs` over `elem` (whose extent is one step of the local
// index): the single pieces as one indexed type, each strided run as one vector, joined
// by a struct in run order (both ends build theirs from the same runs, so the n-th
// element sent is the n-th received). O(runs) entries, never one per block.
MPI_Datatype runs_type(const std::vector<LocalRun>& runs, MPI_Datatype elem, MPI_Aint extent) {
  std::vector<MPI_Datatype> parts;
  std::vector<MPI_Aint> displ;
  std::vector<int> single_len, single_at;
  auto flush_singles = [&] {
    if (single_len.empty()) return;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_indexed(static_cast<int>(single_len.size()), single_len.data(), single_at.data(), elem, &t),
              "MPI_Type_indexed");
    parts.push_back(t);
    displ.push_back(0);
    single_len.clear();
    single_at.clear();
  };
  for (const auto& r : runs) {
    if (r.count == 1) {
      single_len.push_back(narrow(r.len, "run length"));
      single_at.push_back(narrow(r.start, "local index"));
      continue;
    }
    flush_singles();
    MPI_Datatype v = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_vector(narrow(r.count, "run pieces"), narrow(r.len, "run length"), narrow(r.stride, "run stride"),
                              elem, &v),
              "MPI_Type_vector");
    parts.push_back(v);
    displ.push_back(static_cast<MPI_Aint>(r.start) * extent);
  }
  flush_singles();
  if (parts.size() == 1 && displ[0] == 0) return parts[0];
  MPI_Datatype t = MPI_DATATYPE_NULL;
  std::vector<int> ones(parts.size(), 1);
  check_mpi(MPI_Type_create_struct(static_cast<int>(parts.size()), ones.data(), displ.data(), parts.data(), &t),
            "MPI_Type_create_struct");
  for (auto& x : parts) MPI_Type_free(&x);
  return t;
}

}  // namespace

PieceType::PieceType(MPI_Datatype base, std::size_t esize, const Side& s, const Transfer& t) {
  MPI_Datatype col = runs_type(local_runs(t.rows, s.rows, s.row_shift, s.is_b), base, static_cast<MPI_Aint>(esize));
  MPI_Datatype col_ld = MPI_DATATYPE_NULL;
  const MPI_Aint col_bytes = static_cast<MPI_Aint>(s.ld) * static_cast<MPI_Aint>(esize);
  check_mpi(MPI_Type_create_resized(col, 0, col_bytes, &col_ld), "MPI_Type_create_resized");
  type_ = runs_type(local_runs(t.cols, s.cols, s.col_shift, s.is_b), col_ld, col_bytes);
  check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  MPI_Type_free(&col);
  if (col_ld != type_) MPI_Type_free(&col_ld);
}

PieceType::~PieceType() {
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

// Under Transport::Auto a transfer is packed when its contiguous pieces are short: MPI's
// datatype engine then walks a vector of vectors element by element, slower than redist's
// own copy loops (docs/reference/redist.md, "Execution"). Both ends decide from the transfer's runs,
// which they share, so they always agree on the message format.
namespace {

constexpr std::int64_t kAutoPackBelowBytes = 256;

// Transfers whose columns hold one element each (a long row: 1 x N, or one row of a
// region) are packed when both sides' column pieces are short: a run of them is one
// strided loop (copy_pieces), 3.4 ms against 7.7 ms as a datatype for 1 x 4,194,304 on 2
// ranks, blocks 1 -> 2. When one side's pieces are long stretches (column blocks of 3
// gathered onto one process: the sender's columns are all its own), the datatype reads or
// writes that side in place and saves the copy into staging: 3.1 against 4.0 ms for blocks
// 3 -> 1 across 1x2 -> 2x1. Before runs went in one call, such rows always went as datatypes.
std::int64_t col_pieces(const Transfer& t, bool b_side) {  // touching pieces counted as one
  std::int64_t n = 0;
  for (const auto& c : t.cols) n += c.count == 1 || (b_side ? c.b_stride : c.a_stride) == c.len ? 1 : c.count;
  return n;
}

}  // namespace

bool packs(const Transfer& t, Transport tr, std::size_t esize) {
  if (tr != Transport::Auto) return tr == Transport::Packed;
  std::int64_t pieces = 0, elems = 0;
  for (const auto& r : t.rows) pieces += r.count, elems += r.len * r.count;
  if (elems == 1) {
    std::int64_t cols = 0;
    for (const auto& c : t.cols) cols += c.len * c.count;
    const std::int64_t fewest = std::min(col_pieces(t, false), col_pieces(t, true));
    return cols * static_cast<std::int64_t>(esize) < kAutoPackBelowBytes * fewest;
  }
  return pieces > 0 && elems * static_cast<std::int64_t>(esize) < kAutoPackBelowBytes * pieces;
}

}  // namespace redist::exec
