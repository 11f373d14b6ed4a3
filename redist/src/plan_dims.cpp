// SPDX-License-Identifier: BSD-3-Clause
// One dimension of a plan: the region's rows (or columns) cut at every
// block edge of A and of B into segments, grouped by (A process, B process) pair into
// strided runs; by periods of the block-cyclic pattern, and for one process's own blocks
// only when a rank plans for itself. Pure C++.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "plan_detail.hpp"

namespace redist::plan_detail {
namespace {


// Where each (A process, B process) pair's DimPair is in the pair list (-1: none yet),
// indexed by a key below `n`: a table of n entries while n is small, a hash map of the
// pairs met beyond that, so that cutting a dimension of a Pa x Pb pattern never allocates
// Pa x Pb slots (at 256 x 257 processes a dimension, 263 KiB per cut).
class PairSlots {
 public:
  explicit PairSlots(std::size_t n) : sparse_(n > kDense), dense_(sparse_ ? 0 : n, -1) {}
  int& operator[](std::size_t k) { return sparse_ ? map_.try_emplace(k, -1).first->second : dense_[k]; }

 private:
  static constexpr std::size_t kDense = std::size_t{1} << 12;
  bool sparse_;
  std::vector<int> dense_;
  std::unordered_map<std::size_t, int> map_;
};

// Adds the segment [s, s + len) of A-space, whose local starts are la in A and lb in B, to
// pair p: it lengthens the last run when adjacent to it (possible only where both sides
// have one process in this dimension, so local storage is contiguous too), or, when
// `strided`, becomes the next piece of the last run if it has the run's length and steps
// (global, A-local and B-local): a periodic pattern then costs one run, not one per block.
void append(DimPair& p, std::int64_t s, std::int64_t len, std::int64_t la, std::int64_t lb, bool strided) {
  p.count += len;
  if (!p.runs.empty()) {
    Run& r = p.runs.back();
    const std::int64_t last = r.piece(r.count - 1);
    if (r.count == 1 && last + r.len == s) {
      r.len += len;
      return;
    }
    if (strided && r.len == len) {
      if (r.count == 1 && la > p.last_la && lb > p.last_lb) {
        r.count = 2;
        r.stride = s - last;
        r.a_stride = la - p.last_la;
        r.b_stride = lb - p.last_lb;
        p.last_la = la;
        p.last_lb = lb;
        return;
      }
      if (r.count > 1 && s - last == r.stride && la - p.last_la == r.a_stride && lb - p.last_lb == r.b_stride) {
        ++r.count;
        p.last_la = la;
        p.last_lb = lb;
        return;
      }
    }
  }
  p.runs.push_back(Run{s, len});
  p.last_la = la;
  p.last_lb = lb;
}

// The segment [ia + at, ia + at + len) of A-space, in A's block ka and B's block kb
// (owners pa, pb), appended to the pair in slot `sl` (made first when -1).
void add_segment(std::vector<DimPair>& pairs, int& sl, const Axis& A, const Axis& B, std::size_t ka, std::size_t kb,
                 std::int64_t ia, std::int64_t ib, std::int64_t at, std::int64_t len, bool strided) {
  if (sl < 0) {
    sl = static_cast<int>(pairs.size());
    pairs.push_back(DimPair{A.block_owner(ka), B.block_owner(kb), {}, 0, 0, 0});
  }
  const std::int64_t la = A.block_local_start(ka) + (ia + at - A.block_start(ka));
  const std::int64_t lb = B.block_local_start(kb) + (ib + at - B.block_start(kb));
  append(pairs[static_cast<std::size_t>(sl)], ia + at, len, la, lb, strided);
}

// Cuts region offsets [r, end) at every block edge of A and of B and hands each segment,
// with its owners and local starts, to the pairs.
void cut(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib, std::int64_t r, std::int64_t end,
         std::vector<DimPair>& pairs, PairSlots& slot, bool strided) {
  if (r >= end) return;
  const int Pb = B.nprocs();
  std::size_t ka = A.block_of(ia + r), kb = B.block_of(ib + r);
  while (r < end) {
    const std::int64_t end_a = A.block_start(ka) + A.block_size(ka) - ia;  // region offsets
    const std::int64_t end_b = B.block_start(kb) + B.block_size(kb) - ib;
    const std::int64_t e = std::min({end_a, end_b, end});
    const int pa = A.block_owner(ka), pb = B.block_owner(kb);
    int& sl = slot[static_cast<std::size_t>(pa) * static_cast<std::size_t>(Pb) + static_cast<std::size_t>(pb)];
    add_segment(pairs, sl, A, B, ka, kb, ia, ib, r, e - r, strided);
    r = e;
    if (r == end_a) ++ka;
    if (r == end_b) ++kb;
  }
}

// Length of one period of the (A owner, B owner, local step) pattern of a uniform
// (block-cyclic) dimension pair: lcm(Pa·mb_a, Pb·mb_b), or 0 when a side is not uniform or
// the lcm does not fit. Shifting a region offset by the period moves A's local index by
// period/Pa and B's by period/Pb on the same owners (ScaLAPACK's INDXG2L is linear in
// whole cycles), so every segment of the first period recurs in each later one.
std::int64_t period_of(const Axis& A, const Axis& B) {
  if (A.uniform_block() == 0 || B.uniform_block() == 0) return 0;
  std::int64_t ca = 0, cb = 0, l = 0;
  if (__builtin_mul_overflow(A.uniform_block(), A.nprocs(), &ca) ||
      __builtin_mul_overflow(B.uniform_block(), B.nprocs(), &cb))
    return 0;
  const std::int64_t g = std::gcd(ca, cb);
  if (__builtin_mul_overflow(ca / g, cb, &l)) return 0;
  return l;
}

// Adds to `pairs` the segments of region offsets [r, end) whose owner on one side is
// fixed: `fix_a` true keeps only segments in A blocks of process `owner` (every B owner),
// false only those in B blocks of `owner`. It visits that owner's blocks only and cuts
// each at the other side's block edges, so its cost is O(the owner's blocks + the other
// side's blocks overlapping them), not O(blocks of the dimension). For each pair it hands
// append() the same segments in the same order as cut() over the whole range does, so
// the runs are identical. slot is indexed by the other side's process.
void cut_owned(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib, std::int64_t r, std::int64_t end,
               bool fix_a, int owner, std::vector<DimPair>& pairs, PairSlots& slot, bool strided) {
  if (r >= end) return;
  const Axis& F = fix_a ? A : B;
  const Axis& O = fix_a ? B : A;
  const std::int64_t f0 = fix_a ? ia : ib, o0 = fix_a ? ib : ia;
  const int Pf = F.nprocs();
  const std::size_t first = F.block_of(f0 + r);
  std::size_t kf = first + static_cast<std::size_t>(pmod(static_cast<std::int64_t>(owner) - F.block_owner(first), Pf));
  for (; kf < F.nblocks(); kf += static_cast<std::size_t>(Pf)) {
    const std::int64_t bs = F.block_start(kf) - f0;
    if (bs >= end) break;
    std::int64_t s = std::max(r, bs);
    const std::int64_t e_f = std::min(end, bs + F.block_size(kf));
    std::size_t ko = O.block_of(o0 + s);
    while (s < e_f) {
      const std::int64_t e_o = O.block_start(ko) + O.block_size(ko) - o0;
      const std::int64_t e = std::min(e_f, e_o);
      const std::size_t ka = fix_a ? kf : ko, kb = fix_a ? ko : kf;
      const int pa = A.block_owner(ka), pb = B.block_owner(kb);
      int& sl = slot[static_cast<std::size_t>(fix_a ? pb : pa)];
      add_segment(pairs, sl, A, B, ka, kb, ia, ib, s, e - s, strided);
      s = e;
      if (s == e_o) ++ko;
    }
  }
}

}  // namespace

// The pairs of one dimension: all of them (fix < 0), or only those whose A process is
// `owner` (fix == 0) or whose B process is `owner` (fix == 1). Sorted by (A, B) process.
std::vector<DimPair> dim_pairs(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib,
                               std::int64_t len, int fix, int owner) {
  std::vector<DimPair> pairs;
  if (len <= 0) return pairs;
  const int Pa = A.nprocs(), Pb = B.nprocs();
  PairSlots slot(fix < 0 ? static_cast<std::size_t>(Pa) * static_cast<std::size_t>(Pb)
                         : static_cast<std::size_t>(fix == 0 ? Pb : Pa));
  auto run_cut = [&](std::int64_t r, std::int64_t end, bool strided) {
    if (fix < 0)
      cut(A, ia, B, ib, r, end, pairs, slot, strided);
    else
      cut_owned(A, ia, B, ib, r, end, fix == 0, owner, pairs, slot, strided);
  };
  const std::int64_t L = period_of(A, B);
  if (L > 0 && len / L >= 2) {
    // Plan by periods, not by blocks: cut the first period only (adjacent segments merged,
    // nothing strided yet), turn each of its runs into a run of K = len / L pieces one
    // period apart, then cut the remainder, whose segments extend those runs where they
    // fit. O(blocks per period + blocks in the remainder) instead of O(blocks).
    run_cut(0, L, false);
    const std::int64_t K = len / L;
    for (auto& p : pairs) {
      for (auto& r : p.runs) {
        if (r.len == L) {  // one process on both sides: the whole range is contiguous
          r.len = K * L;
          continue;
        }
        r.count = K;
        r.stride = L;
        r.a_stride = L / Pa;
        r.b_stride = L / Pb;
      }
      p.count *= K;
      // Local starts of the last piece of the last run, for cut() to extend it.
      const Run& last = p.runs.back();
      p.last_la = A.to_local(last.start) + (last.count - 1) * last.a_stride;
      p.last_lb = B.to_local(last.start - ia + ib) + (last.count - 1) * last.b_stride;
    }
    run_cut(K * L, len, true);
  } else {
    run_cut(0, len, true);
  }
  std::sort(pairs.begin(), pairs.end(), [](const DimPair& x, const DimPair& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  return pairs;
}

}  // namespace redist::plan_detail
