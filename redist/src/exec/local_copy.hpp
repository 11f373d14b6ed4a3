// SPDX-License-Identifier: BSD-3-Clause
// The local-copy kernels of redist's executor: a transfer's pieces in one local
// column-major array (Walk, ColCursor) and the loops that copy them between two arrays or
// a packed buffer (copy_*). Pure: no MPI, unit-tested against an element-by-element copy
// (tests/redist/local_copy_test.cpp). Internal to redist.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"

namespace redist::exec {

// One side (A or B) of the redistribution as seen from the local array.
struct Side {
  Axis rows, cols;
  std::int64_t row_shift = 0, col_shift = 0;  // A-space index + shift = this side's index
  std::int64_t ld = 0;
  bool is_b = false;  // which of a run's local strides applies
};

// Where one send's pieces of A are on this rank: an array and its side. A rank that holds
// several coordinates of A (RankMap::holding_several) has one array per coordinate, so the
// on-node steps take one per send (empty: every send from the step's own A).
struct SendFrom {
  const Side* sa = nullptr;
  const void* a = nullptr;
  bool mapped = false;  // the array is a mapped one (redist_alloc): the receiver copies out of it (Route::MappedRead)
  bool huge = false;    // the send's pieces lie in huge pages: the receiver reads them with the kernel (Route::HugeRead)
};

// A run in one local array: count pieces of len indices, the first at start, stride apart.
struct LocalRun {
  std::int64_t start = 0, len = 0, count = 1, stride = 0;
};

// A transfer's runs of one axis as runs of local indices of one side.
std::vector<LocalRun> local_runs(const std::vector<Run>& runs, const Axis& ax, std::int64_t shift, bool is_b);

// A transfer's pieces on one side in the order they travel: columns in run order, and in
// each column the row pieces in run order. Columns are walked from the runs by ColCursor
// (never expanded into a list: a 1 x 4,194,304 matrix in column blocks of 1 would need
// one entry per column).
struct Walk {
  std::vector<LocalRun> rows, cols;
  std::int64_t ncols = 0, rows_per_col = 0;
  Walk(const Side& s, const Transfer& t)
      : rows(local_runs(t.rows, s.rows, s.row_shift, s.is_b)), cols(local_runs(t.cols, s.cols, s.col_shift, s.is_b)) {
    for (const auto& c : cols) ncols += c.len * c.count;
    for (const auto& r : rows) rows_per_col += r.len * r.count;
  }
};


// Walks the columns of a Walk piece by piece without a search or a division per step:
// at() is the current local column and how many consecutive local columns follow from
// it (the rest of its piece; a run whose pieces touch is one piece), next(n) moves on by
// n <= at().second columns.
class ColCursor {
 public:
  explicit ColCursor(const Walk& w, std::int64_t o = 0) : w_(w) {  // at the o-th column
    for (; k_ < w_.cols.size(); ++k_) {
      const std::int64_t n = w_.cols[k_].len * w_.cols[k_].count;
      if (o < n) break;
      o -= n;
    }
    enter();
    if (len_ > 0) {
      piece_ = o / len_;
      off_ = o % len_;
    }
  }
  std::pair<std::int64_t, std::int64_t> at() const { return {start_ + piece_ * stride_ + off_, len_ - off_}; }
  void next(std::int64_t n) {
    off_ += n;
    if (off_ < len_) return;
    off_ = 0;
    if (++piece_ < count_) return;
    piece_ = 0;
    ++k_;
    enter();
  }
  // Whole pieces from here on at one stride: {first local column, piece length, stride,
  // pieces left in the run}; pieces left 0 when the cursor is inside a piece.
  struct Pieces {
    std::int64_t first, len, stride, left;
  };
  Pieces pieces() const {
    return {start_ + piece_ * stride_, len_, stride_, off_ == 0 ? count_ - piece_ : 0};
  }
  void skip_pieces(std::int64_t k) {  // k <= pieces().left
    piece_ += k;
    if (piece_ < count_) return;
    piece_ = 0;
    ++k_;
    enter();
  }
  // Runs of whole pieces at a stride go in one call, without a cursor step per piece
  // (blocks of 1-3 columns are millions of pieces).
  // Calls f(first local column, width, stride, k) for k pieces of `width` consecutive local
  // columns at `stride` covering the next n columns: a run of whole pieces in one call.
  template <class F>
  void walk(std::int64_t n, F&& f) {
    while (n > 0) {
      const Pieces p = pieces();
      const std::int64_t k = p.left > 1 ? std::min(p.left, n / p.len) : 0;
      if (k > 1) {
        f(p.first, p.len, p.stride, k);
        skip_pieces(k);
        n -= k * p.len;
        continue;
      }
      const auto [c, w0] = at();
      const std::int64_t w = std::min(w0, n);
      f(c, w, std::int64_t{0}, std::int64_t{1});
      next(w);
      n -= w;
    }
  }

 private:
  void enter() {  // the run k_ as pieces: touching pieces merged into one; empty runs skipped
    while (k_ < w_.cols.size() && w_.cols[k_].len * w_.cols[k_].count == 0) ++k_;
    if (k_ >= w_.cols.size()) return;
    const LocalRun& c = w_.cols[k_];
    const bool merged = c.stride == c.len || c.count == 1;
    start_ = c.start;
    len_ = merged ? c.len * c.count : c.len;
    count_ = merged ? 1 : c.count;
    stride_ = merged ? 0 : c.stride;
  }
  const Walk& w_;
  std::size_t k_ = 0;
  std::int64_t start_ = 0, len_ = 1, count_ = 0, stride_ = 0, piece_ = 0, off_ = 0;
};


// Whether two walks visit the same local columns in the same order (a run of equal pieces
// at a time, so equal run structures cost O(runs), not O(columns)).
bool same_columns(const Walk& x, const Walk& y);

// Whether `runs` are one contiguous piece of local rows [0, ld): then consecutive local
// columns are one contiguous stretch of ld elements each.
bool whole_columns(const std::vector<LocalRun>& runs, std::int64_t ld);


// `count` pieces of L elements (L a compile-time 1-4): the loop a memcpy call per 8-32
// byte piece would cost several times over (blocks of 1-3 elements make millions of them).
template <class T, int L>
void copy_short(const T* s, std::int64_t ss, T* d, std::int64_t ds, std::int64_t count) {
  for (std::int64_t t = 0; t < count; ++t)
    for (int e = 0; e < L; ++e) d[t * ds + e] = s[t * ss + e];
}

// `count` pieces of `len` elements, the t-th at s + t * ss (source) and d + t * ds.
template <class T>
void copy_strided(const T* s, std::int64_t ss, T* d, std::int64_t ds, std::int64_t len, std::int64_t count) {
  switch (len) {
    case 1: return copy_short<T, 1>(s, ss, d, ds, count);
    case 2: return copy_short<T, 2>(s, ss, d, ds, count);
    case 3: return copy_short<T, 3>(s, ss, d, ds, count);
    case 4: return copy_short<T, 4>(s, ss, d, ds, count);
    default: break;
  }
  const auto bytes = static_cast<std::size_t>(len) * sizeof(T);
  for (std::int64_t t = 0; t < count; ++t) std::memcpy(d + t * ds, s + t * ss, bytes);
}

// Row pieces of one column: `src` and `dst` walk the same runs (same order, same lengths),
// each with its own local starts and strides.
//
// Several runs of one periodic pattern interleave (blocks 2 -> 3 on 2 ranks: a period of 12
// rows holds pieces of 3 runs), and each run alone touches every cache line of the column.
// Run by run, a long column would be read from memory once per run; in tiles of
// kTilePieces pieces of every run it is read once (4,194,304 x 1, blocks 2 -> 3: the local
// copy went from 2.4 ms to 1.4 ms, the whole redistribution from 6.9 ms to 4.8 ms).
constexpr std::int64_t kTilePieces = 512;

template <class T>
void copy_rows(const std::vector<LocalRun>& src_runs, const T* src, const std::vector<LocalRun>& dst_runs, T* dst) {
  std::int64_t most = 0;
  for (const auto& r : src_runs) most = std::max(most, r.count);
  if (src_runs.size() == 1 || most <= kTilePieces) {
    for (std::size_t k = 0; k < src_runs.size(); ++k) {
      const LocalRun& s = src_runs[k];
      const LocalRun& d = dst_runs[k];
      copy_strided(src + s.start, s.stride, dst + d.start, d.stride, s.len, s.count);
    }
    return;
  }
  for (std::int64_t t0 = 0; t0 < most; t0 += kTilePieces)
    for (std::size_t k = 0; k < src_runs.size(); ++k) {
      const LocalRun& s = src_runs[k];
      const LocalRun& d = dst_runs[k];
      const std::int64_t n = std::min(kTilePieces, s.count - t0);
      if (n > 0) copy_strided(src + s.start + t0 * s.stride, s.stride, dst + d.start + t0 * d.stride, d.stride, s.len, n);
    }
}

// Several transfers' row pieces of one column each, tiled together like copy_rows' runs:
// stream q copies rows *src of column s to rows *dst of column d (same runs, in order).
// Streams writing one column of B (the local copy and the unpacking) or reading one column
// of A (the local copy and the packing) then touch each cache line once.
template <class T>
struct RowStream {
  const std::vector<LocalRun>* src = nullptr;
  const T* s = nullptr;
  const std::vector<LocalRun>* dst = nullptr;
  T* d = nullptr;
};

template <class T>
void copy_merged(const std::vector<RowStream<T>>& streams) {
  // The first tile of every run, then the further tiles of the runs that have them only:
  // irregular layouts (per-block sizes) give many runs of few pieces, which must not be
  // visited once per tile of the long ones.
  auto tile = [](const RowStream<T>& x, std::size_t k, std::int64_t t0) {
    const LocalRun& s = (*x.src)[k];
    const LocalRun& d = (*x.dst)[k];
    const std::int64_t n = std::min(kTilePieces, s.count - t0);
    if (n > 0) copy_strided(x.s + s.start + t0 * s.stride, s.stride, x.d + d.start + t0 * d.stride, d.stride, s.len, n);
  };
  std::vector<std::pair<std::size_t, std::size_t>> long_runs;  // stream, run
  std::int64_t most = 0;
  for (std::size_t q = 0; q < streams.size(); ++q)
    for (std::size_t k = 0; k < streams[q].src->size(); ++k) {
      tile(streams[q], k, 0);
      const std::int64_t c = (*streams[q].src)[k].count;
      if (c > kTilePieces) long_runs.emplace_back(q, k);
      most = std::max(most, c);
    }
  for (std::int64_t t0 = kTilePieces; t0 < most; t0 += kTilePieces)
    for (auto [q, k] : long_runs) tile(streams[q], k, t0);
}

// `width` consecutive local columns: rows `src_runs` of the columns from `src` (leading
// dimension src_ld) to rows `dst_runs` of those from `dst` (dst_ld); one memcpy when both
// sides are whole columns.
template <class T>
void copy_cols(const std::vector<LocalRun>& src_runs, const T* src, std::int64_t src_ld, const std::vector<LocalRun>& dst_runs,
               T* dst, std::int64_t dst_ld, std::int64_t width) {
  if (src_ld == dst_ld && whole_columns(src_runs, src_ld) && whole_columns(dst_runs, dst_ld)) {
    copy_strided(src, 0, dst, 0, width * src_ld, 1);
    return;
  }
  if (src_runs.size() == 1 && src_runs[0].count == 1 && dst_runs[0].count == 1) {  // one piece a column
    copy_strided(src + src_runs[0].start, src_ld, dst + dst_runs[0].start, dst_ld, src_runs[0].len, width);
    return;
  }
  for (std::int64_t c = 0; c < width; ++c) copy_rows<T>(src_runs, src + c * src_ld, dst_runs, dst + c * dst_ld);
}

// `k` pieces of `len` consecutive local columns each, the q-th at src + q * src_step and
// dst + q * dst_step (elements): one call for a whole run of column pieces, so a 1 x N row
// in column blocks of 1-3 costs a loop iteration per piece, not a call and its checks.
template <class T>
void copy_pieces(const std::vector<LocalRun>& src_runs, const T* src, std::int64_t src_ld, std::int64_t src_step,
                 const std::vector<LocalRun>& dst_runs, T* dst, std::int64_t dst_ld, std::int64_t dst_step,
                 std::int64_t len, std::int64_t k) {
  if (src_ld == dst_ld && whole_columns(src_runs, src_ld) && whole_columns(dst_runs, dst_ld)) {
    copy_strided(src, src_step, dst, dst_step, len * src_ld, k);  // each piece one stretch
    return;
  }
  if (len == 1 && src_runs.size() == 1 && src_runs[0].count == 1 && dst_runs[0].count == 1) {  // one piece a column
    copy_strided(src + src_runs[0].start, src_step, dst + dst_runs[0].start, dst_step, src_runs[0].len, k);
    return;
  }
  for (std::int64_t q = 0; q < k; ++q)
    copy_cols<T>(src_runs, src + q * src_step, src_ld, dst_runs, dst + q * dst_step, dst_ld, len);
}

// The runs of a walk's rows as they lie packed in a staging buffer (one column after
// another, rows_per_col elements each, the pieces of a column back to back).
std::vector<LocalRun> packed_runs(const std::vector<LocalRun>& runs);

// Packs columns [first, first + nc) of the walk w (in walk order) from the local array a
// (leading dimension ld) into dst, rows_per_col elements a column; `packed` =
// packed_runs(w.rows). Runs of whole column pieces go in one copy_pieces call.
template <class T>
void pack_columns(const Walk& w, const std::vector<LocalRun>& packed, const T* a, std::int64_t ld, std::int64_t first,
                  std::int64_t nc, T* dst) {
  ColCursor(w, first).walk(nc, [&](std::int64_t lc, std::int64_t wd, std::int64_t stride, std::int64_t k) {
    const std::int64_t step = wd * w.rows_per_col;
    copy_pieces<T>(w.rows, a + lc * ld, ld, stride * ld, packed, dst, w.rows_per_col, step, wd, k);
    dst += k * step;
  });
}

// The inverse of pack_columns: columns [first, first + nc) of w from src into the local
// array b (leading dimension ld).
template <class T>
void unpack_columns(const Walk& w, const std::vector<LocalRun>& packed, const T* src, std::int64_t first,
                    std::int64_t nc, T* b, std::int64_t ld) {
  ColCursor(w, first).walk(nc, [&](std::int64_t lc, std::int64_t wd, std::int64_t stride, std::int64_t k) {
    const std::int64_t step = wd * w.rows_per_col;
    copy_pieces<T>(packed, src, w.rows_per_col, step, w.rows, b + lc * ld, ld, stride * ld, wd, k);
    src += k * step;
  });
}

// A transfer from this rank to itself: its pieces straight from the local array of A (side
// sa) to that of B (side sb). Both sides are walked column by column; where both (or one
// side and a long stretch of the other) are runs of equal pieces, a whole run goes in one
// copy_pieces call (1 x N matrices in column blocks of 1-3 are millions of pieces).
template <class T>
void copy_transfer(const Side& sa, const T* a, const Side& sb, T* b, const Transfer& t) {
  const Walk wa(sa, t), wb(sb, t);
  ColCursor xa(wa), xb(wb);
  for (std::int64_t o = 0; o < wa.ncols;) {
    // Both sides at the start of pieces of one length: a run of pieces in one loop.
    const auto pa = xa.pieces(), pb = xb.pieces();
    if (pa.len == pb.len && pa.left > 1 && pb.left > 1) {
      const std::int64_t k = std::min({pa.left, pb.left, (wa.ncols - o) / pa.len});
      if (k > 1) {
        copy_pieces<T>(wa.rows, a + pa.first * sa.ld, sa.ld, pa.stride * sa.ld, wb.rows, b + pb.first * sb.ld, sb.ld,
                       pb.stride * sb.ld, pa.len, k);
        xa.skip_pieces(k);
        xb.skip_pieces(k);
        o += k * pa.len;
        continue;
      }
    }
    const auto [ca, na] = xa.at();
    const auto [cb, nb] = xb.at();
    // One side a run of short pieces, the other inside one long stretch (column blocks
    // of 3 gathered onto one process: 1 x N, 1x2 -> 2x1): the stretch taken as pieces of
    // the same length, so the run still goes in one call.
    if (pb.left > 1 && na >= 2 * pb.len) {
      const std::int64_t k = std::min({pb.left, na / pb.len, (wa.ncols - o) / pb.len});
      if (k > 1) {
        copy_pieces<T>(wa.rows, a + ca * sa.ld, sa.ld, pb.len * sa.ld, wb.rows, b + pb.first * sb.ld, sb.ld,
                       pb.stride * sb.ld, pb.len, k);
        xa.next(k * pb.len);
        xb.skip_pieces(k);
        o += k * pb.len;
        continue;
      }
    }
    if (pa.left > 1 && nb >= 2 * pa.len) {
      const std::int64_t k = std::min({pa.left, nb / pa.len, (wa.ncols - o) / pa.len});
      if (k > 1) {
        copy_pieces<T>(wa.rows, a + pa.first * sa.ld, sa.ld, pa.stride * sa.ld, wb.rows, b + cb * sb.ld, sb.ld,
                       pa.len * sb.ld, pa.len, k);
        xa.skip_pieces(k);
        xb.next(k * pa.len);
        o += k * pa.len;
        continue;
      }
    }
    const std::int64_t w = std::min({na, nb, wa.ncols - o});
    copy_cols<T>(wa.rows, a + ca * sa.ld, sa.ld, wb.rows, b + cb * sb.ld, sb.ld, w);
    xa.next(w);
    xb.next(w);
    o += w;
  }
}

}  // namespace redist::exec
