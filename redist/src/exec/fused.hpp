// SPDX-License-Identifier: BSD-3-Clause
// Fused passes of redist's executor: a step's local copy done in the same pass over B as
// the unpacking of the messages received (Target), or over A as the packing of the
// messages sent (Source), so each column (or, for 1 x N matrices, the one row) is walked
// once instead of twice. Pure: no MPI, unit-tested against an element-by-element copy
// (tests/redist/local_copy_test.cpp). Internal to redist.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "local_copy.hpp"

namespace redist::exec {

// Which pass, if any, takes a step's local copy along (the caller has checked the rest:
// one message per transfer, all in flight at once, one local transfer). Target: every
// transfer received here writes the same local columns of B as the local copy, so the
// copy and the unpacking write each column in one pass after the messages arrived (blocks
// of 1-3 rows interleave the two within a column, and apart each pass writes every cache
// line of B). Source: every transfer sent from here reads the same local columns of A as
// the local copy, so the packing and the copy read each column once. TargetRow and
// SourceRow: the same along one local row (1 x N matrices in column blocks of 1-3, where
// the pieces interleave along the row).
enum class Fuse { None, Target, Source, TargetRow, SourceRow };
constexpr std::int64_t kFuseMinRows = 64;  // per column; below, per-column calls cost more than they save

// The local index of a walk's only row (rows_per_col == 1).
inline std::int64_t only_row(const Walk& w) {
  for (const auto& r : w.rows)
    if (r.len * r.count > 0) return r.start;
  return 0;
}

// The pass for the local copy's walks la (on A) and lb (on B), given the walks of the
// packed transfers sent (outs, on A) and received (ins, on B).
inline Fuse choose_fuse(const Walk& la, const Walk& lb, const std::vector<const Walk*>& outs,
                        const std::vector<const Walk*>& ins) {
  if (lb.rows_per_col == 1 && lb.ncols >= kFuseMinRows) {
    auto all_on_row = [](const std::vector<const Walk*>& ws, const Walk& w) {
      return !ws.empty() && std::all_of(ws.begin(), ws.end(), [&](const Walk* x) {
        return x->rows_per_col == 1 && only_row(*x) == only_row(w);
      });
    };
    if (all_on_row(ins, lb)) return Fuse::TargetRow;
    if (all_on_row(outs, la)) return Fuse::SourceRow;
    return Fuse::None;
  }
  if (lb.rows_per_col < kFuseMinRows) return Fuse::None;
  auto all_same = [](const std::vector<const Walk*>& ws, const Walk& w) {
    return !ws.empty() && std::all_of(ws.begin(), ws.end(), [&](const Walk* x) { return same_columns(*x, w); });
  };
  if (all_same(ins, lb)) return Fuse::Target;
  if (all_same(outs, la)) return Fuse::Source;
  return Fuse::None;
}

// One packed transfer a fused pass takes along: its walk on this side, packed_runs of the
// walk's rows, and the staging buffer of its one message (read for Target, written for
// Source), ncols x rows_per_col elements.
template <class T>
struct FusedChan {
  const Walk* w = nullptr;
  const std::vector<LocalRun>* packed = nullptr;
  T* pre = nullptr;
};

// Target / Source: the local copy `lt` (A side sa, B side sb) with the unpacking of `chans`
// into b (Target) or their packing from a (Source), column by column of the shared side;
// within a column, copy_merged tiles all of them.
template <class T>
void fused_pass(Fuse how, const Side& sa, const T* a, const Side& sb, T* b, const Transfer& lt,
                const std::vector<FusedChan<T>>& chans) {
  const Walk la(sa, lt), lb(sb, lt);
  const bool target = how == Fuse::Target;
  ColCursor xa(la), xb(lb);
  std::vector<RowStream<T>> streams(chans.size() + 1);
  streams[0].src = &la.rows;
  streams[0].dst = &lb.rows;
  for (std::size_t q = 0; q < chans.size(); ++q) {
    streams[q + 1].src = target ? chans[q].packed : &chans[q].w->rows;
    streams[q + 1].dst = target ? &chans[q].w->rows : chans[q].packed;
  }
  for (std::int64_t o = 0; o < la.ncols;) {
    const auto [ca, na] = xa.at();
    const auto [cb, nb] = xb.at();
    const std::int64_t w = std::min({na, nb, la.ncols - o});
    for (std::int64_t j = 0; j < w; ++j) {
      const T* acol = a + (ca + j) * sa.ld;
      T* bcol = b + (cb + j) * sb.ld;
      streams[0].s = acol;
      streams[0].d = bcol;
      for (std::size_t q = 0; q < chans.size(); ++q) {
        T* packed_col = chans[q].pre + (o + j) * chans[q].w->rows_per_col;
        streams[q + 1].s = target ? packed_col : acol;
        streams[q + 1].d = target ? bcol : packed_col;
      }
      copy_merged<T>(streams);
    }
    xa.next(w);
    xb.next(w);
    o += w;
  }
}

// Column runs as runs of elements along one row: scaled by the leading dimension, and
// when it is not 1 (or the partner side's is not), split into runs of single elements
// so that the pieces stay contiguous; both sides of a stream split alike.
inline std::vector<LocalRun> along_row(const std::vector<LocalRun>& cols, std::int64_t ld, bool split) {
  if (!split) return cols;
  std::vector<LocalRun> out;
  for (const auto& c : cols)
    for (std::int64_t e = 0; e < c.len; ++e) out.push_back({(c.start + e) * ld, 1, c.count, c.stride * ld});
  return out;
}

// TargetRow / SourceRow: the local copy and the unpacking of `chans` (or their packing)
// along the one local row they share, in one tiled pass (copy_merged).
template <class T>
void fused_row_pass(Fuse how, const Side& sa, const T* a, const Side& sb, T* b, const Transfer& lt,
                    const std::vector<FusedChan<T>>& chans) {
  const Walk la(sa, lt), lb(sb, lt);
  const bool target = how == Fuse::TargetRow;
  std::vector<std::vector<LocalRun>> runs;
  runs.reserve(2 * (chans.size() + 1));
  std::vector<RowStream<T>> streams;
  auto add = [&](const std::vector<LocalRun>& src, std::int64_t src_ld, const T* s, const std::vector<LocalRun>& dst,
                 std::int64_t dst_ld, T* d) {
    const bool split = src_ld != 1 || dst_ld != 1;
    runs.push_back(along_row(src, src_ld, split));
    runs.push_back(along_row(dst, dst_ld, split));
    streams.push_back({&runs[runs.size() - 2], s, &runs.back(), d});
  };
  add(la.cols, sa.ld, a + only_row(la), lb.cols, sb.ld, b + only_row(lb));
  for (const FusedChan<T>& c : chans) {
    const auto packed = packed_runs(c.w->cols);
    if (target)
      add(packed, 1, c.pre, c.w->cols, sb.ld, b + only_row(*c.w));
    else
      add(c.w->cols, sa.ld, a + only_row(*c.w), packed, 1, c.pre);
  }
  copy_merged<T>(streams);
}

// Either pass, by `how` (not None).
template <class T>
void run_fused(Fuse how, const Side& sa, const T* a, const Side& sb, T* b, const Transfer& lt,
               const std::vector<FusedChan<T>>& chans) {
  if (how == Fuse::Target || how == Fuse::Source)
    fused_pass(how, sa, a, sb, b, lt, chans);
  else
    fused_row_pass(how, sa, a, sb, b, lt, chans);
}

}  // namespace redist::exec
