// SPDX-License-Identifier: BSD-3-Clause
// The pure part of single-copy transfers (single_copy.hpp): which transfers are worth a
// cross-memory read, and a transfer's pieces as contiguous segments of the two local
// arrays. No MPI; unit-tested against an element-by-element map
// (tests/redist/segments_test.cpp). Internal to redist.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "local_copy.hpp"
#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

// Contiguous pieces shorter than this many bytes on average make a transfer between two
// ranks of one node go through the node window (pack, unpack) instead of one kernel read
// (ExecOptions::single_copy = Auto). Each piece is one entry of the read's scatter-gather
// list, and the kernel pins the pages of each entry. Measured here (malleable-redist-bench cma:
// pieces read with process_vm_readv against the same pieces packed into a staging area
// and unpacked; docs/data/single_copy.txt, docs/reference/redist.md "Single copy on a node"): ~1 us
// a piece, so 512-byte pieces read 4-6x slower than pack + unpack; up to 256 KiB the read
// was slower in most of five runs (a kernel read costs 1.6-3.5x a memcpy a byte here, pack +
// unpack 2x); from 1 MiB on it was 0.86-1.14x pack + unpack: even, and then the read wins
// on memory (the sender stages nothing: its window segment is that much smaller).
constexpr std::int64_t kSingleCopyMinPieceBytes = std::int64_t{1} << 20;

// The pieces of transfer t in one local column of one side (A: a_stride, B: b_stride), a
// run whose pieces touch on that side counted as one. O(row runs).
inline std::int64_t side_pieces(const Transfer& t, bool b_side) {
  std::int64_t n = 0;
  for (const auto& r : t.rows) n += r.count == 1 || (b_side ? r.b_stride : r.a_stride) == r.len ? 1 : r.count;
  return n;
}

// Which array a single copy of transfer t takes in the other process: the sender's A (the
// receiver reads it: true) or the receiver's B (the sender writes into it: false). The
// kernel pins the other process's memory of each contiguous stretch page by page, and a
// stretch costs a fixed ~1 us (malleable-redist-bench cma), while this process's own side
// may be scattered at little cost; so the side with fewer pieces per column is the other
// process's (A on a tie). Block runs whatever the block sizes: a change from row blocks to
// whole columns (1x2 -> 2x1) is written by the sender into the receiver's contiguous
// columns, the reverse read by the receiver. Both ends decide alike from the transfer.
inline bool copy_reads(const Transfer& t) { return side_pieces(t, false) <= side_pieces(t, true); }

// The mean bytes of transfer t's contiguous row pieces on the side a single copy takes in
// the other process (copy_reads; 0 when it has none). O(row runs).
inline std::int64_t mean_piece_bytes(const Transfer& t, std::size_t esize) {
  std::int64_t elements = 0;
  for (const auto& r : t.rows) elements += r.len * r.count;
  const std::int64_t pieces = std::min(side_pieces(t, false), side_pieces(t, true));
  return pieces > 0 ? elements * static_cast<std::int64_t>(esize) / pieces : 0;
}

// Whether transfer t is worth a single-copy read: its row pieces average at least
// kSingleCopyMinPieceBytes. Both ends decide alike from the transfer alone.
inline bool single_copy_pays(const Transfer& t, std::size_t esize) {
  return mean_piece_bytes(t, esize) >= kSingleCopyMinPieceBytes;
}

// Whether a transfer between two distinct ranks of one node is read in one copy (else it
// goes through the node window, or by message): the choice of ExecOptions::single_copy
// under transport `tr`. A function of the transfer and the options only, which both ends
// share, so the sender knows whether to pack or to expose its array.
inline bool reads_in_place(const Transfer& t, std::size_t esize, SingleCopy mode, Transport tr) {
  if (mode == SingleCopy::On) return true;
  if (mode == SingleCopy::Off || tr != Transport::Auto) return false;
  return single_copy_pays(t, esize);
}

// Pieces at least this long on average on the sender's side make a window send read by
// its receiver in one copy (process_vm_readv) when the sender's array of A lies in huge
// pages: there the kernel pins the other process's memory 2 MiB at a time, and the read
// (15.9 GB/s here) beats the window's pack and unpack (9.8 GB/s) from pieces of ~16 KiB
// (malleable-redist-bench mapped --huge: 0.44-1.07x the window's time); on 4 KiB pages it
// pins page by page (7.8 GB/s: 1.2-2.2x the window's time) and the window stays.
constexpr std::int64_t kHugeReadMinPieceBytes = std::int64_t{16} << 10;

// The bytes of transfer t in one local column (its row pieces, elements of esize bytes): an
// upper bound of the mean stretch on either side. O(row runs).
inline std::int64_t column_bytes(const Transfer& t, std::size_t esize) {
  std::int64_t elements = 0;
  for (const auto& r : t.rows) elements += r.len * r.count;
  return elements * static_cast<std::int64_t>(esize);
}

// One contiguous stretch: `len` elements at element offset `src` of the source's local
// array and `dst` of the destination's.
struct Segment {
  std::int64_t src = 0, dst = 0, len = 0;
};

// Calls f(s, d, len) for the pieces of the parallel runs `s` and `d` (one axis's runs of one
// transfer on its two sides: the same lengths and counts, local starts and strides of each
// side) in ascending order of their start on side s: a k-way merge of the runs, whose own
// pieces ascend; an f that returns bool stops the walk by returning false. O(pieces x log runs) time, O(runs) memory. Within a transfer an index's
// local order on one side is its order on the other (both ascend with the global index),
// so the pieces ascend on both sides.
template <class F>
void for_each_piece_ascending(const std::vector<LocalRun>& s, const std::vector<LocalRun>& d, F&& f) {
  using Next = std::pair<std::int64_t, std::size_t>;  // the next piece's start on side s, its run
  std::vector<Next> heap;
  std::vector<std::int64_t> done(s.size(), 0);  // pieces of each run given
  heap.reserve(s.size());
  for (std::size_t k = 0; k < s.size(); ++k)
    if (s[k].count > 0 && s[k].len > 0) heap.emplace_back(s[k].start, k);
  auto later = [](const Next& x, const Next& y) { return x.first > y.first; };  // the earliest on top
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const std::size_t k = heap.back().second;
    const std::int64_t p = done[k]++;
    if constexpr (std::is_same_v<std::invoke_result_t<F&, std::int64_t, std::int64_t, std::int64_t>, bool>) {
      if (!f(s[k].start + p * s[k].stride, d[k].start + p * d[k].stride, s[k].len)) return;  // f says stop
    } else {
      f(s[k].start + p * s[k].stride, d[k].start + p * d[k].stride, s[k].len);
    }
    if (done[k] == s[k].count) {
      heap.pop_back();
      continue;
    }
    heap.back().first = s[k].start + done[k] * s[k].stride;
    std::push_heap(heap.begin(), heap.end(), later);
  }
}

// Whether the row pieces of one local column of a side (`rows`: its walk's rows), joined
// where they touch in that side's array, average at least `bytes` (elements of esize
// bytes): the stretches a kernel read pins there per column, counted in ascending order
// (for_each_piece_ascending), so the pieces of runs whose blocks differ (64 -> 100 rows)
// join as the read joins them. Stops once there are too many: O(min(row pieces, column
// bytes / `bytes`) x log row runs) time, O(row runs) memory.
inline bool column_stretches_average(const std::vector<LocalRun>& rows, std::size_t esize, std::int64_t bytes) {
  std::int64_t elements = 0;
  for (const auto& r : rows) elements += r.len * r.count;
  const std::int64_t most = bytes > 0 ? elements * static_cast<std::int64_t>(esize) / bytes : 0;  // stretches allowed
  std::int64_t stretches = 0, end = -1;
  for_each_piece_ascending(rows, rows, [&](std::int64_t s, std::int64_t, std::int64_t n) {
    stretches += s == end ? 0 : 1;
    end = s + n;
    return stretches <= most;
  });
  return most >= 1 && stretches <= most;
}

// Whether a send that reads_in_place leaves to the node window is read by its receiver in
// one copy instead: under SingleCopy::Auto and Transport::Auto, when the sender's A holding
// it lies in huge pages (`huge`: the sender's fact, told to the receiver in the window's
// word) and its row pieces there (`a_rows`: the send's walk in A), joined where they touch,
// average at least kHugeReadMinPieceBytes. On and Off keep their routes (every transfer
// read; none). The sender alone decides. Pure.
inline bool reads_huge(const std::vector<LocalRun>& a_rows, std::size_t esize, SingleCopy mode, Transport tr, bool huge) {
  return huge && mode == SingleCopy::Auto && tr == Transport::Auto &&
         column_stretches_average(a_rows, esize, kHugeReadMinPieceBytes);
}

// Calls f(Segment) for the transfer's pieces in ascending order of their offsets in both
// arrays (columns, and in each column its row pieces, by local index: for_each_piece_ascending),
// source walk `ws` in an array of leading dimension `lds`, destination walk `wd` in one of
// `ldd` (both walks of the same transfer), merging stretches that continue each other on
// both sides (whole columns of equal leading dimension become one segment). In ascending
// order, and not in the runs' order (which interleaves the pieces of runs whose blocks
// differ, 64 -> 100 rows), every stretch that touches the previous one on a side is
// joined to it in a single copy's scatter-gather list of that side (SegmentReader), so the
// other process's memory is pinned in as few stretches as its layout allows. The row
// pieces of one column, in order, are kept (the same for every column) when there are at
// most kKeptRowPieces of them, else merged again for each column: memory O(runs +
// kKeptRowPieces); time O(columns x row pieces x (1, or log row runs) + column pieces x
// log column runs).
inline constexpr std::int64_t kKeptRowPieces = 512;
template <class F>
void for_each_segment(const Walk& ws, std::int64_t lds, const Walk& wd, std::int64_t ldd, F&& f) {
  Segment cur;
  auto emit = [&](std::int64_t s, std::int64_t d, std::int64_t n) {
    if (n <= 0) return;
    if (cur.len > 0 && cur.src + cur.len == s && cur.dst + cur.len == d) {
      cur.len += n;
      return;
    }
    if (cur.len > 0) f(cur);
    cur = {s, d, n};
  };
  std::int64_t pieces = 0;
  for (const LocalRun& r : ws.rows) pieces += r.count;
  const bool keep = pieces <= kKeptRowPieces;
  std::vector<Segment> rows;  // kept: one column's row pieces in ascending order, offsets within the column
  if (keep)
    for_each_piece_ascending(ws.rows, wd.rows, [&](std::int64_t s, std::int64_t d, std::int64_t n) {
      if (!rows.empty() && rows.back().src + rows.back().len == s && rows.back().dst + rows.back().len == d)
        rows.back().len += n;
      else
        rows.push_back({s, d, n});
    });
  for_each_piece_ascending(ws.cols, wd.cols, [&](std::int64_t cs, std::int64_t cd, std::int64_t w) {
    for (std::int64_t j = 0; j < w; ++j) {
      const std::int64_t s0 = (cs + j) * lds, d0 = (cd + j) * ldd;
      if (keep)
        for (const Segment& r : rows) emit(s0 + r.src, d0 + r.dst, r.len);
      else
        for_each_piece_ascending(ws.rows, wd.rows, [&](std::int64_t s, std::int64_t d, std::int64_t n) { emit(s0 + s, d0 + d, n); });
    }
  });
  if (cur.len > 0) f(cur);
}

}  // namespace redist::exec
