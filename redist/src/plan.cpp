// SPDX-License-Identifier: BSD-3-Clause
// Communication plans and schedules (seed 002 §3.4.1-§3.4.3, §4.6.2, §7.2.1). Pure C++.
//
// A 2-D block layout is the product of a row distribution and a column distribution, so
// the plan is built per dimension: the row range of the region is cut at every block
// boundary of A and of B into segments owned by one (A process row, B process row) pair
// (O(row blocks) work, never per element). Every combination of a row pair and a column
// pair is one transfer between two ranks.
#include "malleable/redist/plan.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "malleable/redist/edge_colouring.hpp"

namespace redist {
namespace {

int pmod(std::int64_t x, std::int64_t m) { return static_cast<int>(((x % m) + m) % m); }

// All rows (or columns) that go from one A process row to one B process row.
struct DimPair {
  int a = 0, b = 0;
  std::vector<Run> runs;  // A-space; each piece contiguous locally in A and in B
  std::int64_t count = 0;
  // Local starts (in A, in B) of the last piece of runs.back(), to extend it.
  std::int64_t last_la = 0, last_lb = 0;
};

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
    if (sl < 0) {
      sl = static_cast<int>(pairs.size());
      pairs.push_back(DimPair{pa, pb, {}, 0, 0, 0});
    }
    const std::int64_t la = A.block_local_start(ka) + (ia + r - A.block_start(ka));
    const std::int64_t lb = B.block_local_start(kb) + (ib + r - B.block_start(kb));
    append(pairs[static_cast<std::size_t>(sl)], ia + r, e - r, la, lb, strided);
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
      if (sl < 0) {
        sl = static_cast<int>(pairs.size());
        pairs.push_back(DimPair{pa, pb, {}, 0, 0, 0});
      }
      const std::int64_t la = A.block_local_start(ka) + (ia + s - A.block_start(ka));
      const std::int64_t lb = B.block_local_start(kb) + (ib + s - B.block_start(kb));
      append(pairs[static_cast<std::size_t>(sl)], ia + s, e - s, la, lb, strided);
      s = e;
      if (s == e_o) ++ko;
    }
  }
}

// The pairs of one dimension: all of them (fix < 0), or only those whose A process is
// `owner` (fix == 0) or whose B process is `owner` (fix == 1). Sorted by (A, B) process.
std::vector<DimPair> dim_pairs(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib,
                               std::int64_t len, int fix = -1, int owner = 0) {
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

void check_inputs(const Layout& a, const Layout& b, const Region& g, int comm_size) {
  a.validate();
  b.validate();
  if (comm_size <= 0)
    throw Error(ErrorCode::InvalidLayout, "comm_size = " + std::to_string(comm_size) + " must be positive");
  auto ranks_in = [&](const Layout& l, const char* name) {  // O(1): the map knows its largest rank
    const int r = l.ranks.max_rank(l.nprow, l.npcol);
    if (r >= comm_size)
      throw Error(ErrorCode::InvalidLayout, std::string(name) + ".ranks contains " + std::to_string(r) +
                                                " but the communicator has " + std::to_string(comm_size) + " ranks");
  };
  ranks_in(a, "a");
  ranks_in(b, "b");
  auto nonneg = [](std::int64_t v, const char* what) {
    if (v < 0) throw Error(ErrorCode::RegionOutOfRange, std::string(what) + " = " + std::to_string(v) + " is negative");
  };
  nonneg(g.m, "region.m");
  nonneg(g.n, "region.n");
  // As PDGEMR2D: an empty region (m or n zero) moves nothing, and its offsets are not
  // examined, whatever they are (docs/redist.md, "Error contract").
  if (g.m == 0 || g.n == 0) return;
  nonneg(g.ia, "region.ia");
  nonneg(g.ja, "region.ja");
  nonneg(g.ib, "region.ib");
  nonneg(g.jb, "region.jb");
  // off + len > ext written as len > ext - off: off and ext are non-negative here, so the
  // subtraction cannot overflow where the sum could (issue 14, class 1).
  auto fits = [](std::int64_t off, std::int64_t len, std::int64_t ext, const char* what, const char* ext_name) {
    if (len > ext - off)
      throw Error(ErrorCode::RegionOutOfRange,
                  std::string(what) + " = " + std::to_string(off) + " plus " + std::to_string(len) +
                      " exceeds " + ext_name + " = " + std::to_string(ext));
  };
  fits(g.ia, g.m, a.m, "region.ia", "a.m");
  fits(g.ja, g.n, a.n, "region.ja", "a.n");
  fits(g.ib, g.m, b.m, "region.ib", "b.m");
  fits(g.jb, g.n, b.n, "region.jb", "b.n");
}

struct DimPlan {
  std::vector<DimPair> rows, cols;
};

DimPlan build_dims(const Layout& a, const Layout& b, const Region& g) {
  DimPlan d;
  if (g.m == 0 || g.n == 0) return d;
  d.rows = dim_pairs(a.row_axis(), g.ia, b.row_axis(), g.ib, g.m);
  d.cols = dim_pairs(a.col_axis(), g.ja, b.col_axis(), g.jb, g.n);
  return d;
}

PlanStats stats_of(const Layout& a, const Layout& b, const Region& g, const DimPlan& d, int comm_size) {
  PlanStats s;
  s.elements_total = g.m * g.n;
  s.sent_by_rank.assign(static_cast<std::size_t>(comm_size), 0);
  s.recv_by_rank.assign(static_cast<std::size_t>(comm_size), 0);
  std::vector<int> deg_out(static_cast<std::size_t>(comm_size), 0), deg_in(static_cast<std::size_t>(comm_size), 0);
  for (const auto& rp : d.rows) {
    for (const auto& cp : d.cols) {
      const int src = a.rank_at(rp.a, cp.a), dst = b.rank_at(rp.b, cp.b);
      const std::int64_t e = rp.count * cp.count;
      if (src == dst) {
        s.elements_local += e;
        continue;
      }
      s.elements_moved += e;
      ++s.messages;
      s.sent_by_rank[static_cast<std::size_t>(src)] += e;
      s.recv_by_rank[static_cast<std::size_t>(dst)] += e;
      ++deg_out[static_cast<std::size_t>(src)];
      ++deg_in[static_cast<std::size_t>(dst)];
    }
  }
  s.max_sent_by_one = *std::max_element(s.sent_by_rank.begin(), s.sent_by_rank.end());
  s.max_recv_by_one = *std::max_element(s.recv_by_rank.begin(), s.recv_by_rank.end());
  s.steps = std::max(*std::max_element(deg_out.begin(), deg_out.end()),
                     *std::max_element(deg_in.begin(), deg_in.end()));
  return s;
}


// Per-dimension step of each (A process, B process) pair, contention free (no A process
// and no B process twice in one step) and minimal (as many steps as the maximum degree).
//
// Block-cyclic with aligned blocks (same block size, region offsets congruent modulo it)
// sends region block k from A process (k+α) mod Pa to B process (k+β) mod Pb, so A process
// i talks exactly to the B processes j with j - i ≡ c (mod g), g = gcd(Pa, Pb): the
// circulant pattern of Park, Prasanna and Raghavendra (seed 002 §3.4.3). Step s then pairs
// i with j = (i + c + s·g) mod Pb when Pa <= Pb (symmetrically otherwise): max(Pa,Pb)/g
// steps, a closed form any process evaluates for its own pairs in O(1). When the region
// spans at least lcm(Pa, Pb) blocks every pair of the pattern occurs and the closed form
// is minimal; that is decided from the layouts alone, so every rank decides alike. Other
// patterns (unaligned blocks, heterogeneous sizes, short regions) colour the small
// Pa x Pb graph of the whole dimension (König): O(blocks of one period of the dimension).
struct DimSchedule {
  bool closed = false;
  int Pa = 1, Pb = 1, g = 1, c = 0;
  int nsteps = 0;            // step numbers are in [0, nsteps)
  int max_a = 0, max_b = 0;  // most partners of one A process, of one B process
  std::vector<std::pair<int, int>> pairs;  // colouring fallback: every pair, sorted
  std::vector<int> colour;
  int step(int a, int b) const {
    if (closed) return Pa <= Pb ? pmod(b - a - c, Pb) / g : pmod(a - b + c, Pa) / g;
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::make_pair(a, b));
    if (it == pairs.end() || *it != std::make_pair(a, b))
      throw Error(ErrorCode::Internal, "dimension pair (" + std::to_string(a) + "," + std::to_string(b) + ") unscheduled");
    return colour[static_cast<std::size_t>(it - pairs.begin())];
  }
};

// `all`: the dimension's pairs when the caller has them (whole plans); otherwise they are
// cut here if the closed form does not apply.
DimSchedule dim_schedule(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib, std::int64_t len,
                         const std::vector<DimPair>* all) {
  DimSchedule d;
  d.Pa = A.nprocs();
  d.Pb = B.nprocs();
  d.g = std::gcd(d.Pa, d.Pb);
  if (len <= 0) return d;
  const std::int64_t nb = A.uniform_block();
  if (nb > 0 && B.uniform_block() == nb && (ia - ib) % nb == 0) {
    const std::size_t ka = A.block_of(ia), kb = B.block_of(ib);
    const auto nblk = static_cast<std::int64_t>(A.block_of(ia + len - 1) - ka) + 1;
    if (nblk >= static_cast<std::int64_t>(d.Pa / d.g) * d.Pb) {
      d.closed = true;
      d.c = pmod(static_cast<std::int64_t>(B.block_owner(kb)) - A.block_owner(ka), d.g);
      d.nsteps = std::max(d.Pa, d.Pb) / d.g;
      d.max_a = d.Pb / d.g;
      d.max_b = d.Pa / d.g;
      return d;
    }
  }
  std::vector<DimPair> own;
  if (all == nullptr) {
    own = dim_pairs(A, ia, B, ib, len);
    all = &own;
  }
  std::vector<int> da(static_cast<std::size_t>(d.Pa), 0), db(static_cast<std::size_t>(d.Pb), 0);
  d.pairs.reserve(all->size());
  for (const auto& p : *all) {
    d.pairs.emplace_back(p.a, p.b);  // sorted: dim_pairs sorts by (a, b)
    d.max_a = std::max(d.max_a, ++da[static_cast<std::size_t>(p.a)]);
    d.max_b = std::max(d.max_b, ++db[static_cast<std::size_t>(p.b)]);
  }
  auto col = colour_bipartite_edges(d.Pa, d.Pb, d.pairs);
  d.nsteps = col.colours;
  d.colour = std::move(col.colour);
  return d;
}

// Matching colours the whole rank graph (König, exactly max-degree steps) while
// (A ranks) x (B ranks) is at most this; above it every process evaluates the product of
// the per-dimension colourings for its own transfers (see make_plan).
constexpr std::int64_t kMatchingWholeGraphPairs = std::int64_t{1} << 14;

std::int64_t grid_pairs(const Layout& a, const Layout& b) {
  return static_cast<std::int64_t>(a.nprow) * a.npcol * static_cast<std::int64_t>(b.nprow) * b.npcol;
}

// Groups the cross transfers by global step number (local copies are in no step), steps in
// increasing number, each step's transfers in plan order. For a rank-local plan these are
// the rank's own steps: two partners share a transfer, hence its number, and both take
// their steps in increasing number, so they meet in the same relative order.
void group_steps(RedistPlan& plan, std::vector<std::pair<std::int64_t, int>>& order) {
  // (step number, transfer) of every cross transfer, transfers in increasing index: a
  // stable sort by step number (a merge sort, quick on the long ordered runs the closed
  // forms produce). Already in order (all-at-once: every number 0) is not sorted again.
  const auto by_step = [](const auto& x, const auto& y) { return x.first < y.first; };
  if (!std::is_sorted(order.begin(), order.end(), by_step)) std::stable_sort(order.begin(), order.end(), by_step);
  plan.steps.clear();
  plan.step_ids.clear();
  for (std::size_t k = 0; k < order.size();) {
    std::size_t e = k;
    while (e < order.size() && order[e].first == order[k].first) ++e;
    plan.step_ids.push_back(order[k].first);
    std::vector<int>& step = plan.steps.emplace_back();
    step.reserve(e - k);
    for (; k < e; ++k) step.push_back(order[k].second);
  }
}

}  // namespace

std::int64_t Transfer::elements() const {
  std::int64_t r = 0, c = 0;
  for (const auto& x : rows) r += x.elements();
  for (const auto& x : cols) c += x.elements();
  return r * c;
}

ScheduleKind default_schedule() {
  // Measured on Open MPI 4.1 shared memory, docs/redist.md: posting every transfer at once
  // lets the transport overlap them; the step-wise schedules pay a wait per step.
  return ScheduleKind::AllAtOnce;
}

ScheduleKind resolve(ScheduleKind k) { return k == ScheduleKind::Default ? default_schedule() : k; }

const char* to_string(ScheduleKind k) {
  switch (k) {
    case ScheduleKind::Caterpillar: return "caterpillar";
    case ScheduleKind::Circulant: return "circulant";
    case ScheduleKind::Matching: return "matching";
    case ScheduleKind::AllAtOnce: return "allatonce";
    case ScheduleKind::Default: return "default";
  }
  return "?";
}

ScheduleKind parse_schedule(const std::string& name) {
  if (name == "caterpillar") return ScheduleKind::Caterpillar;
  if (name == "circulant") return ScheduleKind::Circulant;
  if (name == "matching") return ScheduleKind::Matching;
  if (name == "allatonce" || name == "all") return ScheduleKind::AllAtOnce;
  if (name == "default") return ScheduleKind::Default;
  throw Error(ErrorCode::InvalidLayout, "schedule = \"" + name +
                                            "\" is not one of caterpillar, circulant, matching, allatonce, default");
}

std::uint64_t fingerprint(const Layout& a, const Layout& b, const Region& g) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over every field
  auto mix = [&](std::int64_t v) {
    for (int k = 0; k < 8; ++k) {
      h ^= static_cast<std::uint64_t>(v >> (8 * k)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  for (const Layout* l : {&a, &b}) {
    mix(l->m); mix(l->n); mix(l->nprow); mix(l->npcol); mix(l->rsrc); mix(l->csrc);
    for (const BlockSizes* b : {&l->row_blocks, &l->col_blocks}) {
      mix(static_cast<std::int64_t>(b->size()));
      // Uniform sizes are determined by the first and last (a function of the values, so
      // a list and the compact form of the same sizes hash alike); others entry by entry.
      if (b->is_uniform()) {
        mix(-1);
        if (!b->empty()) {
          mix(b->front());
          mix(b->back());
        }
      } else {
        for (auto x : *b) mix(x);
      }
    }
    // The rank map's canonical form: O(1), an explicit list's hash computed when given.
    mix(static_cast<std::int64_t>(l->ranks.hash(l->nprow, l->npcol)));
  }
  mix(g.m); mix(g.n); mix(g.ia); mix(g.ja); mix(g.ib); mix(g.jb);
  return h;
}

PlanStats plan_stats(const Layout& a, const Layout& b, const Region& region, int comm_size) {
  check_inputs(a, b, region, comm_size);
  return stats_of(a, b, region, build_dims(a, b, region), comm_size);
}

PlanStats plan_stats(const Layout& a, const Layout& b, int comm_size) {
  if (a.m != b.m || a.n != b.n)
    throw Error(ErrorCode::SizeMismatch, "a is " + std::to_string(a.m) + " x " + std::to_string(a.n) +
                                             " but b is " + std::to_string(b.m) + " x " + std::to_string(b.n));
  return plan_stats(a, b, Region::whole(a), comm_size);
}

RedistPlan make_plan(const Layout& a, const Layout& b, const Region& region, int comm_size,
                     ScheduleKind schedule) {
  return make_plan(a, b, region, comm_size, schedule, -1);
}

void check_schedule(ScheduleKind k) {
  const int v = static_cast<int>(k);
  if (v < static_cast<int>(ScheduleKind::Caterpillar) || v > static_cast<int>(ScheduleKind::Default))
    throw Error(ErrorCode::InvalidArgument,
                "schedule = " + std::to_string(v) +
                    " is not a schedule (0 caterpillar, 1 circulant, 2 matching, 3 allatonce, 4 default)");
}

namespace {

// The dimension pairs a transfer combines: rows (ra -> rb), columns (ca -> cb).
struct Combo {
  int ra = 0, rb = 0, ca = 0, cb = 0;
};

// A rank-local plan's statistics: this rank's own figures (PlanStats' comment).
PlanStats local_stats(const RedistPlan& plan, int me) {
  PlanStats s;
  s.rank = me;
  s.elements_total = plan.region.m * plan.region.n;
  for (const auto& t : plan.transfers) {
    const std::int64_t e = t.elements();
    if (t.src == t.dst) {
      s.elements_local += e;
      continue;
    }
    ++s.messages;
    (t.src == me ? s.sent : s.received) += e;
  }
  s.elements_moved = s.sent + s.received;
  s.max_sent_by_one = s.sent;
  s.max_recv_by_one = s.received;
  s.steps = static_cast<int>(plan.steps.size());
  return s;
}

// The transfers of `me` out of a whole plan, in the same order and steps.
RedistPlan restrict_to(RedistPlan full, int me) {
  RedistPlan out;
  out.a = std::move(full.a);
  out.b = std::move(full.b);
  out.region = full.region;
  out.schedule = full.schedule;
  out.comm_size = full.comm_size;
  out.materialized_for = me;
  std::vector<int> remap(full.transfers.size(), -1);
  for (std::size_t k = 0; k < full.transfers.size(); ++k) {
    if (full.transfers[k].src != me && full.transfers[k].dst != me) continue;
    remap[k] = static_cast<int>(out.transfers.size());
    out.transfers.push_back(std::move(full.transfers[k]));
  }
  for (std::size_t s = 0; s < full.steps.size(); ++s) {
    std::vector<int> mine;
    for (int k : full.steps[s])
      if (remap[static_cast<std::size_t>(k)] >= 0) mine.push_back(remap[static_cast<std::size_t>(k)]);
    if (mine.empty()) continue;
    out.steps.push_back(std::move(mine));
    out.step_ids.push_back(full.step_ids[s]);
  }
  out.stats = local_stats(out, me);
  return out;
}

}  // namespace

RedistPlan make_plan(const Layout& a, const Layout& b, const Region& region, int comm_size,
                     ScheduleKind schedule, int for_rank) {
  check_schedule(schedule);
  check_inputs(a, b, region, comm_size);
  if (for_rank < -1 || for_rank >= comm_size)
    throw Error(ErrorCode::InvalidLayout, "for_rank = " + std::to_string(for_rank) + " is outside [-1, " +
                                              std::to_string(comm_size) + ")");
  RedistPlan plan;
  plan.a = a;
  plan.b = b;
  plan.region = region;
  plan.schedule = resolve(schedule);
  plan.comm_size = comm_size;
  plan.materialized_for = for_rank;
  const bool whole_graph = plan.schedule == ScheduleKind::Matching && grid_pairs(a, b) <= kMatchingWholeGraphPairs;
  if (for_rank >= 0 && whole_graph) return restrict_to(make_plan(a, b, region, comm_size, schedule, -1), for_rank);

  const Region& g = region;
  const bool empty = g.m == 0 || g.n == 0;
  const Axis Ar = a.row_axis(), Ac = a.col_axis(), Br = b.row_axis(), Bc = b.col_axis();
  // The dimension pairs of each transfer, kept only where the step number needs them
  // (Circulant, and Matching above the whole-graph size).
  const bool by_dims = plan.schedule == ScheduleKind::Circulant || plan.schedule == ScheduleKind::Matching;
  std::vector<Combo> combo;
  auto add = [&](const DimPair& rp, const DimPair& cp) {
    Transfer& t = plan.transfers.emplace_back();
    t.src = a.rank_at(rp.a, cp.a);
    t.dst = b.rank_at(rp.b, cp.b);
    t.rows = rp.runs;
    t.cols = cp.runs;
    if (by_dims) combo.push_back({rp.a, rp.b, cp.a, cp.b});
  };
  DimPlan d;
  if (for_rank < 0) {
    // The whole plan: every combination of a row pair and a column pair, in (row pair,
    // column pair) order. O(row pairs x column pairs): for tests, tools and small P.
    d = build_dims(a, b, region);
    plan.stats = stats_of(a, b, region, d, comm_size);
    plan.transfers.reserve(d.rows.size() * d.cols.size());
    if (by_dims) combo.reserve(d.rows.size() * d.cols.size());
    for (const auto& rp : d.rows)
      for (const auto& cp : d.cols) add(rp, cp);
  } else if (!empty) {
    // One rank's transfers: as a sender at (ra, ca) of A, the row pairs of A process row
    // ra times the column pairs of A process column ca; as a receiver at (rb, cb) of B
    // likewise. Each dimension cuts only this rank's own blocks (dim_pairs' fix/owner).
    int ra = 0, ca = 0, rb = 0, cb = 0;
    const bool in_a = a.coords_of(for_rank, ra, ca), in_b = b.coords_of(for_rank, rb, cb);
    std::vector<DimPair> rows_a, cols_a, rows_b, cols_b;
    if (in_a) {
      rows_a = dim_pairs(Ar, g.ia, Br, g.ib, g.m, 0, ra);
      cols_a = dim_pairs(Ac, g.ja, Bc, g.jb, g.n, 0, ca);
    }
    if (in_b) {
      rows_b = dim_pairs(Ar, g.ia, Br, g.ib, g.m, 1, rb);
      cols_b = dim_pairs(Ac, g.ja, Bc, g.jb, g.n, 1, cb);
    }
    // The whole plan's order is by (row pair, column pair). The sends come in that order
    // (row and column pairs of one A process, each sorted by B process), so do the
    // receives (sorted by A process): merged as they are generated, nothing sorted or
    // held twice. A receive from this rank itself is already a send.
    const std::size_t ncs = cols_a.size(), ncr = cols_b.size();
    const std::size_t nsend = rows_a.size() * ncs, nrecv = rows_b.size() * ncr;
    plan.transfers.reserve(nsend + nrecv);
    if (by_dims) combo.reserve(nsend + nrecv);
    auto key = [](const DimPair& rp, const DimPair& cp) { return std::make_tuple(rp.a, rp.b, cp.a, cp.b); };
    std::size_t si = 0, ri = 0;
    while (si < nsend || ri < nrecv) {
      if (ri < nrecv) {
        const DimPair& rp = rows_b[ri / ncr];
        const DimPair& cp = cols_b[ri % ncr];
        if (in_a && rp.a == ra && cp.a == ca) {
          ++ri;
          continue;
        }
        if (si == nsend || key(rp, cp) < key(rows_a[si / ncs], cols_a[si % ncs])) {
          add(rp, cp);
          ++ri;
          continue;
        }
      }
      add(rows_a[si / ncs], cols_a[si % ncs]);
      ++si;
    }
  }

  // Every cross transfer's global step number with its index, grouped by group_steps().
  std::vector<std::pair<std::int64_t, int>> id;
  id.reserve(plan.transfers.size());
  auto cross = [&](std::size_t k) { return plan.transfers[k].src != plan.transfers[k].dst; };
  auto each_cross = [&](auto&& step_of) {
    for (std::size_t k = 0; k < plan.transfers.size(); ++k)
      if (cross(k)) id.emplace_back(step_of(k), static_cast<int>(k));
  };
  switch (plan.schedule) {
    case ScheduleKind::AllAtOnce:
      each_cross([](std::size_t) { return std::int64_t{0}; });
      break;
    case ScheduleKind::Caterpillar:
      // Seed 002 §3.4.1: in step d process i exchanges with (p - i - d) mod p, i.e.
      // i + j + d ≡ 0 (mod p); both directions of a pair share the step.
      each_cross([&](std::size_t k) {
        return static_cast<std::int64_t>(
            pmod(-(static_cast<std::int64_t>(plan.transfers[k].src) + plan.transfers[k].dst), comm_size));
      });
      break;
    case ScheduleKind::Matching:
      if (whole_graph) {
        // Seed 002 §3.4.2/§4.6.2: colour the sender/receiver bipartite graph of the ranks;
        // each colour is a matching = a step; König gives exactly max-degree steps.
        std::vector<std::pair<int, int>> edges;
        std::vector<std::size_t> which;
        for (std::size_t k = 0; k < plan.transfers.size(); ++k)
          if (cross(k)) {
            edges.emplace_back(plan.transfers[k].src, plan.transfers[k].dst);
            which.push_back(k);
          }
        const auto col = colour_bipartite_edges(comm_size, comm_size, edges);
        for (std::size_t e = 0; e < which.size(); ++e) id.emplace_back(col.colour[e], static_cast<int>(which[e]));
        break;
      }
      [[fallthrough]];
    case ScheduleKind::Circulant: {
      // Product of per-dimension contention-free schedules: an A process (pr, pc) sends
      // once per row step and once per column step, so once per product step (a rank has
      // one place in each grid), and the step count Sr*Sc equals the 2-D maximum degree
      // Δr*Δc when one side (senders or receivers) has the most partners in both
      // dimensions. Matching above kMatchingWholeGraphPairs takes it only then.
      if (empty) break;
      const auto rs = dim_schedule(Ar, g.ia, Br, g.ib, g.m, for_rank < 0 ? &d.rows : nullptr);
      const auto cs = dim_schedule(Ac, g.ja, Bc, g.jb, g.n, for_rank < 0 ? &d.cols : nullptr);
      if (plan.schedule == ScheduleKind::Matching) {
        const std::int64_t product = static_cast<std::int64_t>(rs.nsteps) * cs.nsteps;
        const std::int64_t degree = std::max(static_cast<std::int64_t>(rs.max_a) * cs.max_a,
                                             static_cast<std::int64_t>(rs.max_b) * cs.max_b);
        if (product != degree)
          throw Error(ErrorCode::InvalidArgument,
                      "schedule matching: " + std::to_string(grid_pairs(a, b)) + " (A rank, B rank) pairs exceed the " +
                          std::to_string(kMatchingWholeGraphPairs) +
                          " up to which one process colours the whole rank graph, and the per-dimension product "
                          "takes " + std::to_string(product) + " steps for a maximum degree of " +
                          std::to_string(degree) + "; use schedule circulant (contention free, " +
                          std::to_string(product) + " steps)");
      }
      each_cross([&](std::size_t k) {
        const Combo& x = combo[k];
        return static_cast<std::int64_t>(rs.step(x.ra, x.rb)) * cs.nsteps + cs.step(x.ca, x.cb);
      });
      break;
    }
    case ScheduleKind::Default:
      throw Error(ErrorCode::Internal, "unresolved default schedule");
  }
  group_steps(plan, id);
  if (for_rank >= 0)
    plan.stats = local_stats(plan, for_rank);
  else
    plan.stats.steps = static_cast<int>(plan.steps.size());
  return plan;
}

}  // namespace redist
