// SPDX-License-Identifier: BSD-3-Clause
// Per-dimension schedules (the circulant closed form, or a König colouring
// of the dimension's pairs) and the grouping of a plan's transfers into steps. Pure C++.
#include <algorithm>
#include <numeric>

#include "edge_colouring.hpp"
#include "plan_detail.hpp"

namespace redist::plan_detail {

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
  // The processes that occur, numbered 0, 1, ... in increasing order: the colouring only
  // indexes by them, so this monotone renumbering gives the same colours, and nothing here
  // is sized by Pa or Pb (O(pairs), not O(Pa x degree) tables for the whole dimension).
  std::vector<int> as, bs;
  d.pairs.reserve(all->size());
  as.reserve(all->size());
  bs.reserve(all->size());
  for (const auto& p : *all) {
    d.pairs.emplace_back(p.a, p.b);  // sorted: dim_pairs sorts by (a, b)
    as.push_back(p.a);
    bs.push_back(p.b);
  }
  for (auto* v : {&as, &bs}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  auto index = [](const std::vector<int>& v, int x) {
    return static_cast<int>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
  };
  std::vector<std::pair<int, int>> edges;
  edges.reserve(d.pairs.size());
  std::vector<int> da(as.size(), 0), db(bs.size(), 0);
  for (const auto& [a, b] : d.pairs) {
    edges.emplace_back(index(as, a), index(bs, b));
    d.max_a = std::max(d.max_a, ++da[static_cast<std::size_t>(edges.back().first)]);
    d.max_b = std::max(d.max_b, ++db[static_cast<std::size_t>(edges.back().second)]);
  }
  auto col = colour_bipartite_edges(static_cast<int>(as.size()), static_cast<int>(bs.size()), edges);
  d.nsteps = col.colours;
  d.colour = std::move(col.colour);
  return d;
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

}  // namespace redist::plan_detail
