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
#include <numeric>

#include "malleable/redist/edge_colouring.hpp"

namespace redist {
namespace {

// All rows (or columns) that go from one A process row to one B process row.
struct DimPair {
  int a = 0, b = 0;
  std::vector<Run> runs;  // A-space; each piece contiguous locally in A and in B
  std::int64_t count = 0;
  // Local starts (in A, in B) of the last piece of runs.back(), to extend it.
  std::int64_t last_la = 0, last_lb = 0;
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
         std::vector<DimPair>& pairs, std::vector<int>& slot, bool strided) {
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

std::vector<DimPair> dim_pairs(const Axis& A, std::int64_t ia, const Axis& B, std::int64_t ib,
                               std::int64_t len) {
  std::vector<DimPair> pairs;
  if (len <= 0) return pairs;
  const int Pa = A.nprocs(), Pb = B.nprocs();
  std::vector<int> slot(static_cast<std::size_t>(Pa) * static_cast<std::size_t>(Pb), -1);
  const std::int64_t L = period_of(A, B);
  if (L > 0 && len / L >= 2) {
    // Plan by periods, not by blocks: cut the first period only (adjacent segments merged,
    // nothing strided yet), turn each of its runs into a run of K = len / L pieces one
    // period apart, then cut the remainder, whose segments extend those runs where they
    // fit. O(blocks per period + blocks in the remainder) instead of O(blocks).
    cut(A, ia, B, ib, 0, L, pairs, slot, false);
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
    cut(A, ia, B, ib, K * L, len, pairs, slot, true);
  } else {
    cut(A, ia, B, ib, 0, len, pairs, slot, true);
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
  auto ranks_in = [&](const Layout& l, const char* name) {
    for (int r : l.ranks)
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

int gcd_int(int x, int y) { return std::gcd(x, y); }
int pmod(std::int64_t x, std::int64_t m) { return static_cast<int>(((x % m) + m) % m); }

// Per-dimension step of each (A process, B process) pair, contention free: no A process
// and no B process twice in one step, with as many steps as the maximum degree.
//
// Block-cyclic with aligned blocks (same block size, same offset inside a block) sends
// row block k from A process (k+α) mod Pa to B process (k+β) mod Pb, so A process i talks
// exactly to the B processes j with j - i ≡ c (mod g), g = gcd(Pa, Pb): the circulant
// pattern of Park, Prasanna and Raghavendra (seed 002 §3.4.3). Step s then pairs i with
// j = (i + c + s·g) mod Pb when Pa <= Pb (symmetrically otherwise): max(Pa,Pb)/g steps,
// computed in O(pairs) with no search. Other patterns (unaligned blocks, heterogeneous
// sizes, small submatrices) get the same guarantee from a bipartite edge colouring of the
// small Pa x Pb graph.
std::vector<int> dim_steps(const std::vector<DimPair>& pairs, int Pa, int Pb, int& nsteps) {
  std::vector<int> step(pairs.size(), 0);
  nsteps = 0;
  if (pairs.empty()) return step;
  std::vector<int> da(static_cast<std::size_t>(Pa), 0), db(static_cast<std::size_t>(Pb), 0);
  for (const auto& p : pairs) {
    ++da[static_cast<std::size_t>(p.a)];
    ++db[static_cast<std::size_t>(p.b)];
  }
  const int delta = std::max(*std::max_element(da.begin(), da.end()), *std::max_element(db.begin(), db.end()));
  const int g = gcd_int(Pa, Pb);
  const int c = pmod(pairs[0].b - pairs[0].a, g);
  bool circulant = true;
  for (const auto& p : pairs) circulant = circulant && pmod(p.b - p.a, g) == c;
  if (circulant) {
    const int span = std::max(Pa, Pb) / g;
    std::vector<int> used(static_cast<std::size_t>(span), -1);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const auto& p = pairs[k];
      step[k] = Pa <= Pb ? pmod(p.b - p.a - c, Pb) / g : pmod(p.a - p.b + c, Pa) / g;
    }
    // A subset of the full pattern may leave steps empty; renumber densely.
    int next = 0;
    for (std::size_t k = 0; k < pairs.size(); ++k) used[static_cast<std::size_t>(step[k])] = 0;
    for (auto& u : used)
      if (u == 0) u = next++;
    for (auto& s : step) s = used[static_cast<std::size_t>(s)];
    nsteps = next;
    if (nsteps == delta) return step;  // minimal; otherwise colour
  }
  std::vector<std::pair<int, int>> edges;
  edges.reserve(pairs.size());
  for (const auto& p : pairs) edges.emplace_back(p.a, p.b);
  auto col = colour_bipartite_edges(Pa, Pb, edges);
  nsteps = col.colours;
  return col.colour;
}

std::vector<std::vector<int>> compact(std::vector<std::vector<int>> steps) {
  steps.erase(std::remove_if(steps.begin(), steps.end(), [](const auto& s) { return s.empty(); }), steps.end());
  return steps;
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
    for (auto x : l->ranks) mix(x);
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
  plan.materialized_for = for_rank;
  const DimPlan d = build_dims(a, b, region);
  plan.stats = stats_of(a, b, region, d, comm_size);

  // Transfers in (row pair, column pair) order; remember each one's pair indices for the
  // circulant product schedule.
  std::vector<std::pair<int, int>> pair_of;
  plan.transfers.reserve(d.rows.size() * d.cols.size());
  for (std::size_t r = 0; r < d.rows.size(); ++r) {
    for (std::size_t c = 0; c < d.cols.size(); ++c) {
      Transfer t;
      t.src = a.rank_at(d.rows[r].a, d.cols[c].a);
      t.dst = b.rank_at(d.rows[r].b, d.cols[c].b);
      if (for_rank < 0 || t.src == for_rank || t.dst == for_rank) {
        t.rows = d.rows[r].runs;
        t.cols = d.cols[c].runs;
      }
      plan.transfers.push_back(std::move(t));
      pair_of.emplace_back(static_cast<int>(r), static_cast<int>(c));
    }
  }
  std::vector<int> cross;
  for (std::size_t k = 0; k < plan.transfers.size(); ++k)
    if (plan.transfers[k].src != plan.transfers[k].dst) cross.push_back(static_cast<int>(k));

  switch (plan.schedule) {
    case ScheduleKind::AllAtOnce:
      if (!cross.empty()) plan.steps.push_back(cross);
      break;
    case ScheduleKind::Caterpillar: {
      // Seed 002 §3.4.1: in step d process i exchanges with (p - i - d) mod p, i.e.
      // i + j + d ≡ 0 (mod p); both directions of a pair share the step.
      const int p = comm_size;
      std::vector<std::vector<int>> steps(static_cast<std::size_t>(p));
      for (int k : cross) {
        const auto& t = plan.transfers[static_cast<std::size_t>(k)];
        steps[static_cast<std::size_t>(pmod(-(static_cast<std::int64_t>(t.src) + t.dst), p))].push_back(k);
      }
      plan.steps = compact(std::move(steps));
      break;
    }
    case ScheduleKind::Circulant: {
      // Product of per-dimension contention-free schedules: an A process (pr, pc) sends
      // once per row step and once per column step, so once per product step, and the
      // step count Sr*Sc equals the 2-D maximum degree Δr*Δc.
      int sr = 0, sc = 0;
      const auto rs = dim_steps(d.rows, a.nprow, b.nprow, sr);
      const auto cs = dim_steps(d.cols, a.npcol, b.npcol, sc);
      std::vector<std::vector<int>> steps(static_cast<std::size_t>(sr) * static_cast<std::size_t>(sc));
      for (int k : cross) {
        const auto [r, c] = pair_of[static_cast<std::size_t>(k)];
        steps[static_cast<std::size_t>(rs[static_cast<std::size_t>(r)]) * static_cast<std::size_t>(sc) +
              static_cast<std::size_t>(cs[static_cast<std::size_t>(c)])]
            .push_back(k);
      }
      plan.steps = compact(std::move(steps));
      break;
    }
    case ScheduleKind::Matching: {
      // Seed 002 §3.4.2/§4.6.2: colour the sender/receiver bipartite graph of the ranks;
      // each colour is a matching = a step; König gives exactly max-degree steps.
      std::vector<std::pair<int, int>> edges;
      edges.reserve(cross.size());
      for (int k : cross)
        edges.emplace_back(plan.transfers[static_cast<std::size_t>(k)].src, plan.transfers[static_cast<std::size_t>(k)].dst);
      const auto col = colour_bipartite_edges(comm_size, comm_size, edges);
      std::vector<std::vector<int>> steps(static_cast<std::size_t>(col.colours));
      for (std::size_t e = 0; e < cross.size(); ++e)
        steps[static_cast<std::size_t>(col.colour[e])].push_back(cross[e]);
      plan.steps = compact(std::move(steps));
      break;
    }
    case ScheduleKind::Default:
      throw Error(ErrorCode::Internal, "unresolved default schedule");
  }
  plan.stats.steps = static_cast<int>(plan.steps.size());
  return plan;
}

}  // namespace redist
