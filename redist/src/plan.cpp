// SPDX-License-Identifier: BSD-3-Clause
// Communication plans and schedules. Pure C++.
// One dimension's pairs are cut in plan_dims.cpp, its schedule and the grouping into
// steps are in plan_steps.cpp; this file checks the inputs, combines the dimensions into
// transfers (all of them, or one rank's) and numbers their steps.
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

#include "edge_colouring.hpp"
#include "plan_detail.hpp"

namespace redist {
namespace {

using plan_detail::DimPair;
using plan_detail::DimSchedule;
using plan_detail::dim_pairs;
using plan_detail::dim_schedule;
using plan_detail::group_steps;
using plan_detail::pmod;

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
  // examined, whatever they are (docs/reference/redist.md, "Error contract").
  if (g.m == 0 || g.n == 0) return;
  nonneg(g.ia, "region.ia");
  nonneg(g.ja, "region.ja");
  nonneg(g.ib, "region.ib");
  nonneg(g.jb, "region.jb");
  // off + len > ext written as len > ext - off: off and ext are non-negative here, so the
  // subtraction cannot overflow where the sum could.
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


// Matching colours the whole rank graph (König, exactly max-degree steps) while
// (A ranks) x (B ranks) is at most this; above it every process evaluates the product of
// the per-dimension colourings for its own transfers (see make_plan).
constexpr std::int64_t kMatchingWholeGraphPairs = std::int64_t{1} << 14;

std::int64_t grid_pairs(const Layout& a, const Layout& b) {
  return static_cast<std::int64_t>(a.nprow) * a.npcol * static_cast<std::int64_t>(b.nprow) * b.npcol;
}
}  // namespace

std::int64_t Transfer::elements() const {
  std::int64_t r = 0, c = 0;
  for (const auto& x : rows) r += x.elements();
  for (const auto& x : cols) c += x.elements();
  return r * c;
}

ScheduleKind default_schedule() {
  // Measured on Open MPI 4.1 shared memory, docs/reference/redist.md: posting every transfer at once
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

// make_plan's transfers as they are made, each with its dimension pairs where the step
// number needs them (Circulant, and Matching above the whole-graph size).
struct Builder {
  RedistPlan& plan;
  bool by_dims = false;
  std::vector<Combo> combo;
  void add(const DimPair& rp, const DimPair& cp) {
    Transfer& t = plan.transfers.emplace_back();
    t.src = plan.a.rank_at(rp.a, cp.a);
    t.dst = plan.b.rank_at(rp.b, cp.b);
    t.rows = rp.runs;
    t.cols = cp.runs;
    if (by_dims) combo.push_back({rp.a, rp.b, cp.a, cp.b});
  }
  void reserve(std::size_t n) {
    plan.transfers.reserve(n);
    if (by_dims) combo.reserve(n);
  }
};

struct Axes {
  Axis Ar, Ac, Br, Bc;
};

// One rank's transfers (a region that is not empty): as a sender at (ra, ca) of A, the row
// pairs of A process row ra times the column pairs of A process column ca; as a receiver at
// (rb, cb) of B likewise. Each dimension cuts only this rank's own blocks (dim_pairs'
// fix/owner).
void add_rank_transfers(Builder& out, const Axes& x, const Region& g, int for_rank) {
  const Layout &a = out.plan.a, &b = out.plan.b;
  const Axis &Ar = x.Ar, &Ac = x.Ac, &Br = x.Br, &Bc = x.Bc;
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
  out.reserve(nsend + nrecv);
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
        out.add(rp, cp);
        ++ri;
        continue;
      }
    }
    out.add(rows_a[si / ncs], cols_a[si % ncs]);
    ++si;
  }
}

using StepIds = std::vector<std::pair<std::int64_t, int>>;  // (global step number, transfer index)

// Every cross transfer (src != dst) with the step number step_of(k) of transfer k.
template <class StepOf>
void number_cross(const RedistPlan& plan, StepIds& id, StepOf&& step_of) {
  for (std::size_t k = 0; k < plan.transfers.size(); ++k)
    if (plan.transfers[k].src != plan.transfers[k].dst) id.emplace_back(step_of(k), static_cast<int>(k));
}

// Matching: colour the sender/receiver bipartite graph of the ranks; each colour is a
// matching = a step; König gives exactly max-degree steps.
void colour_rank_graph(const RedistPlan& plan, StepIds& id) {
  std::vector<std::pair<int, int>> edges;
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < plan.transfers.size(); ++k)
    if (plan.transfers[k].src != plan.transfers[k].dst) {
      edges.emplace_back(plan.transfers[k].src, plan.transfers[k].dst);
      which.push_back(k);
    }
  const auto col = colour_bipartite_edges(plan.comm_size, plan.comm_size, edges);
  for (std::size_t e = 0; e < which.size(); ++e) id.emplace_back(col.colour[e], static_cast<int>(which[e]));
}

// Matching beyond kMatchingWholeGraphPairs takes the per-dimension product only when its
// step count is the 2-D maximum degree (one side has the most partners in both dimensions).
void check_product_is_minimal(const RedistPlan& plan, const DimSchedule& rs, const DimSchedule& cs) {
  const std::int64_t product = static_cast<std::int64_t>(rs.nsteps) * cs.nsteps;
  const std::int64_t degree = std::max(static_cast<std::int64_t>(rs.max_a) * cs.max_a,
                                       static_cast<std::int64_t>(rs.max_b) * cs.max_b);
  if (product != degree)
    throw Error(ErrorCode::InvalidArgument,
                "schedule matching: " + std::to_string(grid_pairs(plan.a, plan.b)) + " (A rank, B rank) pairs exceed the " +
                    std::to_string(kMatchingWholeGraphPairs) +
                    " up to which one process colours the whole rank graph, and the per-dimension product "
                    "takes " + std::to_string(product) + " steps for a maximum degree of " +
                    std::to_string(degree) + "; use schedule circulant (contention free, " +
                    std::to_string(product) + " steps)");
}

// Product of per-dimension contention-free schedules: an A process (pr, pc) sends once per
// row step and once per column step, so once per product step (a rank has one place in
// each grid), and the step count Sr*Sc equals the 2-D maximum degree Δr*Δc when one side
// (senders or receivers) has the most partners in both dimensions. Matching above
// kMatchingWholeGraphPairs takes it only then.
void product_steps(const RedistPlan& plan, const std::vector<Combo>& combo, const Axes& x, const DimPlan& d,
                   int for_rank, StepIds& id) {
  const Region& g = plan.region;
  if (g.m == 0 || g.n == 0) return;
  const auto rs = dim_schedule(x.Ar, g.ia, x.Br, g.ib, g.m, for_rank < 0 ? &d.rows : nullptr);
  const auto cs = dim_schedule(x.Ac, g.ja, x.Bc, g.jb, g.n, for_rank < 0 ? &d.cols : nullptr);
  if (plan.schedule == ScheduleKind::Matching) check_product_is_minimal(plan, rs, cs);
  number_cross(plan, id, [&](std::size_t k) {
    const Combo& c = combo[k];
    return static_cast<std::int64_t>(rs.step(c.ra, c.rb)) * cs.nsteps + cs.step(c.ca, c.cb);
  });
}

// Every cross transfer's global step number under plan.schedule, grouped into plan.steps
// (group_steps). combo: the transfers' dimension pairs (Circulant, Matching by dimension);
// d: the whole plan's dimension pairs (for_rank < 0).
void number_steps(RedistPlan& plan, const std::vector<Combo>& combo, const Axes& x, const DimPlan& d, bool whole_graph,
                  int for_rank) {
  StepIds id;
  id.reserve(plan.transfers.size());
  switch (plan.schedule) {
    case ScheduleKind::AllAtOnce:
      number_cross(plan, id, [](std::size_t) { return std::int64_t{0}; });
      break;
    case ScheduleKind::Caterpillar:
      // Caterpillar: in step d process i exchanges with (p - i - d) mod p, i.e.
      // i + j + d ≡ 0 (mod p); both directions of a pair share the step.
      number_cross(plan, id, [&](std::size_t k) {
        return static_cast<std::int64_t>(
            pmod(-(static_cast<std::int64_t>(plan.transfers[k].src) + plan.transfers[k].dst), plan.comm_size));
      });
      break;
    case ScheduleKind::Matching:
      if (whole_graph) {
        colour_rank_graph(plan, id);
        break;
      }
      [[fallthrough]];
    case ScheduleKind::Circulant:
      product_steps(plan, combo, x, d, for_rank, id);
      break;
    case ScheduleKind::Default:
      throw Error(ErrorCode::Internal, "unresolved default schedule");
  }
  group_steps(plan, id);
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
  if (b.ranks.holds_several())
    throw Error(ErrorCode::InvalidLayout, "b's ranks list a rank more than once (only A's may: RankMap::holding_several)");
  // A rank holding several coordinates of A: its transfers from every one of them.
  if (for_rank >= 0 && (whole_graph || a.ranks.holds_several()))
    return restrict_to(make_plan(a, b, region, comm_size, schedule, -1), for_rank);

  const Region& g = region;
  const Axes x{a.row_axis(), a.col_axis(), b.row_axis(), b.col_axis()};
  Builder out{plan, plan.schedule == ScheduleKind::Circulant || plan.schedule == ScheduleKind::Matching, {}};
  DimPlan d;
  if (for_rank < 0) {
    // The whole plan: every combination of a row pair and a column pair, in (row pair,
    // column pair) order. O(row pairs x column pairs): for tests, tools and small P.
    d = build_dims(a, b, region);
    plan.stats = stats_of(a, b, region, d, comm_size);
    out.reserve(d.rows.size() * d.cols.size());
    for (const auto& rp : d.rows)
      for (const auto& cp : d.cols) out.add(rp, cp);
  } else if (g.m > 0 && g.n > 0) {
    add_rank_transfers(out, x, g, for_rank);
  }
  number_steps(plan, out.combo, x, d, whole_graph, for_rank);
  if (for_rank >= 0)
    plan.stats = local_stats(plan, for_rank);
  else
    plan.stats.steps = static_cast<int>(plan.steps.size());
  return plan;
}

}  // namespace redist
