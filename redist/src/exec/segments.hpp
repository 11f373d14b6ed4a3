// SPDX-License-Identifier: BSD-3-Clause
// The pure part of single-copy transfers (single_copy.hpp): which transfers are worth a
// cross-memory read, and a transfer's pieces as contiguous segments of the two local
// arrays. No MPI; unit-tested against an element-by-element map
// (tests/redist/segments_test.cpp). Internal to redist.
#pragma once

#include <algorithm>
#include <cstdint>

#include "local_copy.hpp"

namespace redist::exec {

// Contiguous pieces shorter than this many bytes on average make a transfer go by
// message instead: each piece is one entry of the read's scatter-gather list, and the
// kernel pins the pages of each entry. Measured here (redist_cma_probe,
// docs/data/single_copy.txt): 1.7 us a piece, so 512-byte pieces read at 0.3 GB/s (14x a
// memcpy), while from 8 KiB on a read costs ~3 memcpys of its bytes, what by message
// costs (pack, the MPI's copy, unpack).
constexpr std::int64_t kSingleCopyMinPieceBytes = 8192;

// Whether transfer t is worth a single-copy read: its row pieces (the contiguous stretches
// of one column, the same on both sides) average at least kSingleCopyMinPieceBytes. Both
// ends decide alike from the transfer alone.
inline bool single_copy_pays(const Transfer& t, std::size_t esize) {
  std::int64_t elements = 0, pieces = 0;
  for (const auto& r : t.rows) {
    elements += r.len * r.count;
    pieces += r.count;
  }
  return pieces > 0 && elements * static_cast<std::int64_t>(esize) >= kSingleCopyMinPieceBytes * pieces;
}

// One contiguous stretch: `len` elements at element offset `src` of the source's local
// array and `dst` of the destination's.
struct Segment {
  std::int64_t src = 0, dst = 0, len = 0;
};

// Calls f(Segment) for the transfer's pieces in order, source walk `ws` in an array of
// leading dimension `lds`, destination walk `wd` in one of `ldd` (both walks of the same
// transfer), merging stretches that continue each other on both sides (whole columns of
// equal leading dimension become one segment). O(columns x row pieces per column).
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
  ColCursor xs(ws), xd(wd);
  for (std::int64_t o = 0; o < ws.ncols;) {
    const auto [cs, ns] = xs.at();
    const auto [cd, nd] = xd.at();
    const std::int64_t w = std::min({ns, nd, ws.ncols - o});
    for (std::int64_t j = 0; j < w; ++j)
      for (std::size_t k = 0; k < ws.rows.size(); ++k) {
        const LocalRun& rs = ws.rows[k];
        const LocalRun& rd = wd.rows[k];
        for (std::int64_t p = 0; p < rs.count; ++p)
          emit((cs + j) * lds + rs.start + p * rs.stride, (cd + j) * ldd + rd.start + p * rd.stride, rs.len);
      }
    xs.next(w);
    xd.next(w);
    o += w;
  }
  if (cur.len > 0) f(cur);
}

}  // namespace redist::exec
