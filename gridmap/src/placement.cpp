// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/gridmap/placement.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "malleable/gridmap/assignment.hpp"
#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/limits.hpp"
#include "malleable/redist/layout.hpp"

namespace gridmap {

Placement Placement::row_major(Topology grid, int first_id) {
  check_grid_size("placement", grid.rows, grid.cols);
  if (first_id < 0) fail("placement: first id must be >= 0, got ", first_id);
  if (first_id > kMaxProcessId + 1 - grid.size())
    fail("placement: ids from ", first_id, " on a ", to_string(grid), " grid exceed the id limit of ", kMaxProcessId);
  Placement p{grid, std::vector<int>(static_cast<std::size_t>(grid.size()))};
  std::iota(p.slots.begin(), p.slots.end(), first_id);
  return p;
}

int Placement::max_id() const {
  return slots.empty() ? -1 : *std::max_element(slots.begin(), slots.end());
}

void Placement::validate() const {
  check_grid_size("placement", grid.rows, grid.cols);
  if (slots.size() != static_cast<std::size_t>(grid.size()))
    fail("placement: ", to_string(grid), " grid needs ", grid.size(), " slots, got ", slots.size());
  std::set<int> seen;
  for (int id : slots) {
    if (id < 0) fail("placement: process id must be >= 0, got ", id);
    if (id > kMaxProcessId) fail("placement: process id ", id, " is above the limit of ", kMaxProcessId);
    if (!seen.insert(id).second) fail("placement: process id ", id, " appears twice");
  }
}

std::string to_string(const Placement& p) {
  std::ostringstream out;
  for (int i = 0; i < p.grid.rows; ++i) {
    for (int j = 0; j < p.grid.cols; ++j) out << (j ? " " : "") << p.at(i, j);
    out << '\n';
  }
  return out.str();
}

std::string to_string(PlacementStrategy s) {
  switch (s) {
    case PlacementStrategy::Global: return "global";
    case PlacementStrategy::Local1: return "local1";
    case PlacementStrategy::Local2: return "local2";
    case PlacementStrategy::Optimal: return "optimal";
  }
  return "?";
}

PlacementStrategy parse_placement_strategy(const std::string& t) {
  if (t == "global") return PlacementStrategy::Global;
  if (t == "local1") return PlacementStrategy::Local1;
  if (t == "local2") return PlacementStrategy::Local2;
  if (t == "optimal") return PlacementStrategy::Optimal;
  fail("placement strategy: expected global, local1, local2 or optimal, got \"", t, "\"");
}

namespace {

void check_counts(int old_count, int added) {
  if (old_count < 1) fail("placement: old grid dimension must be >= 1, got ", old_count);
  if (added < 0) fail("placement: added rows/columns must be >= 0, got ", added);
}

// Grown-dimension index -> old index (or -1 for a new line), given the new lines' indices.
std::vector<int> old_index_map(int old_count, const std::vector<int>& new_positions) {
  const int total = old_count + static_cast<int>(new_positions.size());
  std::vector<int> map(static_cast<std::size_t>(total), 0);
  for (int pos : new_positions) map[static_cast<std::size_t>(pos)] = -1;
  int next_old = 0;
  for (int& v : map)
    if (v == 0) v = next_old++;
  return map;
}

}  // namespace

std::vector<int> local1_positions(int old_count, int added) {
  check_counts(old_count, added);
  std::vector<int> pos(static_cast<std::size_t>(added));
  std::iota(pos.begin(), pos.end(), old_count);
  return pos;
}

std::vector<int> local2_positions(int old_count, int added) {
  check_counts(old_count, added);
  // §4.5: "p is divided into r divisions and the new set is placed at the centre of each
  // division": the k-th new line (k = 0-based) follows floor((2k+1)p / 2r) old lines. For
  // r > p the divisions are narrower than one line and several new lines share a gap.
  std::vector<int> pos(static_cast<std::size_t>(added));
  for (int k = 0; k < added; ++k) {
    const long before = (2L * k + 1) * old_count / (2L * added);
    pos[static_cast<std::size_t>(k)] = static_cast<int>(before) + k;
  }
  return pos;
}

Placement place_global(Topology new_grid) { return Placement::row_major(new_grid, 0); }

Placement place_local(const Placement& old, int add_rows, int add_cols, PlacementStrategy rule,
                      int first_new_id) {
  old.validate();
  if (rule != PlacementStrategy::Local1 && rule != PlacementStrategy::Local2)
    fail("local placement: rule must be local1 or local2, got ", to_string(rule));
  const bool two = rule == PlacementStrategy::Local2;
  const auto rows = two ? local2_positions(old.grid.rows, add_rows)
                        : local1_positions(old.grid.rows, add_rows);
  const auto cols = two ? local2_positions(old.grid.cols, add_cols)
                        : local1_positions(old.grid.cols, add_cols);
  const auto row_map = old_index_map(old.grid.rows, rows);
  const auto col_map = old_index_map(old.grid.cols, cols);
  int next = first_new_id < 0 ? old.max_id() + 1 : first_new_id;
  if (next <= old.max_id())
    fail("local placement: first new id ", next, " is not above the old grid's largest id ",
         old.max_id());

  Placement out{Topology{old.grid.rows + add_rows, old.grid.cols + add_cols}, {}};
  out.slots.resize(static_cast<std::size_t>(out.grid.size()));
  for (int i = 0; i < out.grid.rows; ++i)
    for (int j = 0; j < out.grid.cols; ++j) {
      const int oi = row_map[static_cast<std::size_t>(i)], oj = col_map[static_cast<std::size_t>(j)];
      out.slots[static_cast<std::size_t>(i) * out.grid.cols + j] =
          (oi >= 0 && oj >= 0) ? old.at(oi, oj) : next++;
    }
  return out;
}

void check_matrix(const redist::MatrixSpec& shape) {
  const std::int64_t m = shape.m, n = shape.n, mb = shape.mb, nb = shape.nb;
  const bool block = shape.dist == redist::Distribution::Block;
  if (shape.extended())
    fail("matrix: ", shape.name.empty() ? std::string("it") : "'" + shape.name + "'",
         " has per-process block sizes (an extended descriptor); gridmap plans block-cyclic and block matrices");
  if (m < 1) fail("matrix: rows m must be >= 1, got m = ", m);
  if (n < 1) fail("matrix: columns n must be >= 1, got n = ", n);
  if (!block && mb < 1) fail("matrix: row block size mb must be >= 1, got mb = ", mb);
  if (!block && nb < 1) fail("matrix: column block size nb must be >= 1, got nb = ", nb);
  // Element counts (and redist's plan over them) are 64-bit: m x n must fit.
  std::int64_t elements = 0;
  if (__builtin_mul_overflow(m, n, &elements))
    fail("matrix: m x n = ", m, " x ", n, " elements does not fit in a 64-bit count (limit ",
         std::numeric_limits<std::int64_t>::max(), ")");
  if (!block) {
    const std::int64_t row_blocks = m / mb + (m % mb != 0), col_blocks = n / nb + (n % nb != 0);
    if (row_blocks > kMaxLayoutBlocks)
      fail("matrix: m = ", m, " in blocks of mb = ", mb, " gives ", row_blocks,
           " row blocks, more than the limit of ", kMaxLayoutBlocks, " (give a larger mb)");
    if (col_blocks > kMaxLayoutBlocks)
      fail("matrix: n = ", n, " in blocks of nb = ", nb, " gives ", col_blocks,
           " column blocks, more than the limit of ", kMaxLayoutBlocks, " (give a larger nb)");
  }
}

namespace {

// One balanced block per process line: sizes differ by at most one (§4.5's n/p). With
// fewer indices than lines the last lines hold nothing (redist blocks must be non-empty).
std::vector<std::int64_t> balanced_blocks(std::int64_t total, int parts) {
  const std::int64_t used = std::min<std::int64_t>(parts, total);
  std::vector<std::int64_t> b(static_cast<std::size_t>(used), total / used);
  for (std::int64_t k = 0; k < total % used; ++k) ++b[static_cast<std::size_t>(k)];
  return b;
}

// Which process line of a layout dimension owns each block, walked as runs of indices.
struct Dim {
  const redist::BlockSizes* blocks;
  int nproc, src;
};

// overlap[a][b] = indices owned by line a of `x` and line b of `y`: a merge of both block
// boundary lists, O(#blocks of x + #blocks of y).
std::vector<std::vector<std::int64_t>> line_overlap(Dim x, Dim y) {
  std::vector<std::vector<std::int64_t>> ov(static_cast<std::size_t>(x.nproc),
                                            std::vector<std::int64_t>(static_cast<std::size_t>(y.nproc), 0));
  std::size_t kx = 0, ky = 0;
  std::int64_t left_x = x.blocks->empty() ? 0 : (*x.blocks)[0];
  std::int64_t left_y = y.blocks->empty() ? 0 : (*y.blocks)[0];
  while (kx < x.blocks->size() && ky < y.blocks->size()) {
    if (left_x == 0) { if (++kx < x.blocks->size()) left_x = (*x.blocks)[kx]; continue; }
    if (left_y == 0) { if (++ky < y.blocks->size()) left_y = (*y.blocks)[ky]; continue; }
    const std::int64_t step = std::min(left_x, left_y);
    const auto a = static_cast<std::size_t>((x.src + static_cast<std::int64_t>(kx)) % x.nproc);
    const auto b = static_cast<std::size_t>((y.src + static_cast<std::int64_t>(ky)) % y.nproc);
    ov[a][b] += step;
    left_x -= step;
    left_y -= step;
  }
  return ov;
}

std::vector<int> ranks_of(const redist::Layout& l) { return l.rank_list(); }

// Refuses, before the slots x candidates overlap matrix is even allocated, an assignment
// whose Hungarian solution would exceed kMaxAssignmentWork (holders^2 x slots). Holders
// are the candidates of `before` whose process row and column both own indices.
void check_assignment_work(const redist::Layout& before, const redist::Layout& after,
                           const std::vector<int>& candidates) {
  const auto owns = [](const redist::BlockSizes& blocks, int nproc, int src) {
    std::vector<char> has(static_cast<std::size_t>(nproc), 0);
    for (std::size_t k = 0; k < blocks.size(); ++k)
      if (blocks[k] > 0) has[static_cast<std::size_t>((src + static_cast<std::int64_t>(k)) % nproc)] = 1;
    return has;
  };
  const auto row_has = owns(before.row_blocks, before.nprow, before.rsrc);
  const auto col_has = owns(before.col_blocks, before.npcol, before.csrc);
  const auto ranks = ranks_of(before);
  const std::set<int> wanted(candidates.begin(), candidates.end());
  double holders = 0;
  for (std::size_t idx = 0; idx < ranks.size(); ++idx)
    if (wanted.count(ranks[idx]) && row_has[idx / static_cast<std::size_t>(before.npcol)] &&
        col_has[idx % static_cast<std::size_t>(before.npcol)])
      ++holders;
  const double slots = static_cast<double>(after.nprow) * after.npcol;
  const double small = std::min(holders, slots), large = std::max(holders, slots);
  const double work = small * small * large;
  if (work > kMaxAssignmentWork)
    fail("optimal placement: ", holders, " processes holding data and ", slots,
         " slots need about ", work, " assignment steps, more than the limit of ", kMaxAssignmentWork,
         " (about a 24x24 grid); use local2 or global");
}

}  // namespace

redist::Layout layout_for(const Placement& placement, const redist::MatrixSpec& shape) {
  placement.validate();
  check_matrix(shape);
  const Topology g = placement.grid;
  try {
    if (shape.dist == redist::Distribution::Block)
      return redist::Layout::from_blocks(balanced_blocks(shape.m, g.rows),
                                         balanced_blocks(shape.n, g.cols), g.rows, g.cols, 0, 0,
                                         placement.slots);
    return redist::Layout::block_cyclic(shape.m, shape.n, shape.mb, shape.nb, g.rows, g.cols, 0, 0,
                                        placement.slots);
  } catch (const redist::Error& e) {
    throw Error(e, "layout: ");  // redist's code and part kept
  }
}

std::vector<std::vector<std::int64_t>> overlap_matrix(const redist::Layout& before,
                                                      const redist::Layout& after,
                                                      const std::vector<int>& candidates) {
  if (before.m != after.m || before.n != after.n)
    fail("overlap: matrices differ, before is ", before.m, "x", before.n, ", after is ", after.m,
         "x", after.n);
  const auto rows = line_overlap({&before.row_blocks, before.nprow, before.rsrc},
                                 {&after.row_blocks, after.nprow, after.rsrc});
  const auto cols = line_overlap({&before.col_blocks, before.npcol, before.csrc},
                                 {&after.col_blocks, after.npcol, after.csrc});
  const auto before_ranks = ranks_of(before);
  const std::size_t slots = static_cast<std::size_t>(after.nprow) * after.npcol;
  std::vector<std::vector<std::int64_t>> w(slots, std::vector<std::int64_t>(candidates.size(), 0));
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const auto it = std::find(before_ranks.begin(), before_ranks.end(), candidates[k]);
    if (it == before_ranks.end()) continue;  // a new process holds nothing yet
    const auto idx = static_cast<std::size_t>(it - before_ranks.begin());
    const std::size_t pr = idx / static_cast<std::size_t>(before.npcol);
    const std::size_t pc = idx % static_cast<std::size_t>(before.npcol);
    for (std::size_t s = 0; s < slots; ++s)
      w[s][k] = rows[pr][s / static_cast<std::size_t>(after.npcol)] *
                cols[pc][s % static_cast<std::size_t>(after.npcol)];
  }
  return w;
}

Placement place_optimal(const redist::Layout& before, const redist::Layout& after,
                        const std::vector<int>& candidates) {
  const std::size_t slots = static_cast<std::size_t>(after.nprow) * after.npcol;
  if (candidates.size() < slots)
    fail("optimal placement: ", slots, " slots but only ", candidates.size(), " candidate processes");
  if (std::set<int>(candidates.begin(), candidates.end()).size() != candidates.size())
    fail("optimal placement: candidate process ids must be distinct");
  check_assignment_work(before, after, candidates);
  const auto w = overlap_matrix(before, after, candidates);

  // Only candidates that hold data matter to the objective; the Hungarian algorithm runs
  // on them (rows) against the slots (columns), so P^2 * slots work instead of slots^3.
  std::vector<std::size_t> holders;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    bool any = false;
    for (std::size_t s = 0; s < slots && !any; ++s) any = w[s][k] > 0;
    if (any) holders.push_back(k);
  }
  Placement out{Topology{after.nprow, after.npcol}, std::vector<int>(slots, -1)};
  std::vector<char> slot_taken(slots, 0), cand_used(candidates.size(), 0);
  if (holders.size() <= slots) {
    std::vector<std::vector<std::int64_t>> hw(holders.size(), std::vector<std::int64_t>(slots));
    for (std::size_t h = 0; h < holders.size(); ++h)
      for (std::size_t s = 0; s < slots; ++s) hw[h][s] = w[s][holders[h]];
    const auto slot_of = max_weight_assignment(hw);
    for (std::size_t h = 0; h < holders.size(); ++h) {
      out.slots[static_cast<std::size_t>(slot_of[h])] = candidates[holders[h]];
      slot_taken[static_cast<std::size_t>(slot_of[h])] = 1;
      cand_used[holders[h]] = 1;
    }
  } else {  // shrinking: more holders than slots, so the unassigned holders leave
    std::vector<std::vector<std::int64_t>> sw(slots, std::vector<std::int64_t>(holders.size()));
    for (std::size_t s = 0; s < slots; ++s)
      for (std::size_t h = 0; h < holders.size(); ++h) sw[s][h] = w[s][holders[h]];
    const auto holder_of = max_weight_assignment(sw);
    for (std::size_t s = 0; s < slots; ++s) {
      const std::size_t k = holders[static_cast<std::size_t>(holder_of[s])];
      out.slots[s] = candidates[k];
      slot_taken[s] = 1;
      cand_used[k] = 1;
    }
  }
  // Empty slots take the remaining candidates in id order (new processes, row-major).
  std::vector<int> rest;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (!cand_used[k]) rest.push_back(candidates[k]);
  std::sort(rest.begin(), rest.end());
  std::size_t next = 0;
  for (std::size_t s = 0; s < slots; ++s)
    if (!slot_taken[s]) out.slots[s] = rest[next++];
  return out;
}

Placement place_optimal(const Placement& old, Topology new_grid, int added, const redist::MatrixSpec& shape) {
  old.validate();
  if (added < 0) fail("optimal placement: added processes must be >= 0, got ", added);
  if (new_grid.size() > old.grid.size() + added)
    fail("optimal placement: ", to_string(new_grid), " needs ", new_grid.size(),
         " processes, only ", old.grid.size() + added, " available");
  std::vector<int> candidates = old.slots;
  for (int k = 0; k < added; ++k) candidates.push_back(old.max_id() + 1 + k);
  const auto before = layout_for(old, shape);
  const auto after = layout_for(Placement::row_major(new_grid, 0), shape);
  return place_optimal(before, after, candidates);
}

// ---- shrinking ----

std::string to_string(ShrinkRule r) {
  switch (r) {
    case ShrinkRule::InverseLocal2: return "inverse-local2";
    case ShrinkRule::InverseLocal1: return "inverse-local1";
    case ShrinkRule::Optimal: return "optimal";
  }
  return "?";
}

ShrinkRule parse_shrink_rule(const std::string& t) {
  if (t == "inverse-local2" || t == "local2") return ShrinkRule::InverseLocal2;
  if (t == "inverse-local1" || t == "local1") return ShrinkRule::InverseLocal1;
  if (t == "optimal") return ShrinkRule::Optimal;
  fail("shrink rule: expected inverse-local2, inverse-local1 or optimal, got \"", t, "\"");
}

ShrinkPlan plan_shrink(const Placement& cur, int k, AspectRatio aspect, AspectScope scope,
                       ShrinkRule rule, const redist::MatrixSpec* shape) {
  cur.validate();
  aspect.validate();
  const int r = cur.grid.rows, c = cur.grid.cols, total = cur.grid.size();
  if (k < 1) fail("shrink: processes to give back must be >= 1, got ", k);
  if (k >= total) fail("shrink: cannot give back ", k, " of ", total, " processes (one must stay)");
  if (rule == ShrinkRule::Optimal && !shape) fail("shrink: the optimal rule needs the matrix shape");

  int best_x = -1, best_y = -1, best_removed = 0;
  for (int x = 0; x < r; ++x)
    for (int y = 0; y < c; ++y) {
      const int removed = total - (r - x) * (c - y);
      if (removed < k) continue;
      const bool ok = scope == AspectScope::Increment ? (x + y > 0 && aspect.admits_increment(x, y))
                                                      : aspect.admits(Topology{r - x, c - y});
      if (!ok) continue;
      const Topology g{r - x, c - y};
      const bool better =
          best_x < 0 || removed < best_removed ||
          (removed == best_removed &&
           std::abs(g.rows - g.cols) < std::abs((r - best_x) - (c - best_y)));
      if (better) { best_x = x; best_y = y; best_removed = removed; }
    }
  if (best_x < 0)
    fail("shrink: no admissible grid removes at least ", k, " of ", to_string(cur.grid),
         "'s processes under p = ", aspect.p, ", q = ", aspect.q);

  ShrinkPlan plan;
  plan.from = cur;
  plan.remove_rows = best_x;
  plan.remove_cols = best_y;
  const Topology g{r - best_x, c - best_y};
  if (rule == ShrinkRule::Optimal) {
    const auto before = layout_for(cur, *shape);
    const auto after = layout_for(Placement::row_major(g, 0), *shape);
    plan.to = place_optimal(before, after, cur.slots);
  } else {
    // The removed lines are those Local1/Local2 would insert growing g back to the current
    // grid, so a shrink undoes the matching expansion and moves the same data (§4.5).
    const bool two = rule == ShrinkRule::InverseLocal2;
    const auto rows = two ? local2_positions(g.rows, best_x) : local1_positions(g.rows, best_x);
    const auto cols = two ? local2_positions(g.cols, best_y) : local1_positions(g.cols, best_y);
    const std::set<int> drop_r(rows.begin(), rows.end()), drop_c(cols.begin(), cols.end());
    plan.to.grid = g;
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j)
        if (!drop_r.count(i) && !drop_c.count(j)) plan.to.slots.push_back(cur.at(i, j));
  }
  const std::set<int> stay(plan.to.slots.begin(), plan.to.slots.end());
  for (int id : cur.slots)
    if (!stay.count(id)) plan.leaving.push_back(id);
  std::sort(plan.leaving.begin(), plan.leaving.end());
  std::ostringstream why;
  why << "remove " << best_x << " row(s) and " << best_y << " column(s): " << to_string(cur.grid)
      << " -> " << to_string(g) << " releases " << best_removed << " process(es) for " << k
      << " requested (" << to_string(rule) << ")";
  plan.reason = why.str();
  return plan;
}

ShrinkPlan plan_shrink_to_level(const std::vector<Placement>& levels, std::size_t level) {
  if (levels.empty()) fail("shrink to level: the stack of levels is empty");
  if (level >= levels.size() - 1)
    fail("shrink to level: level must be below the current level ", levels.size() - 1, ", got ", level);
  for (const auto& p : levels) p.validate();
  ShrinkPlan plan;
  plan.from = levels.back();
  plan.to = levels[level];
  const std::set<int> now(plan.from.slots.begin(), plan.from.slots.end());
  const std::set<int> then(plan.to.slots.begin(), plan.to.slots.end());
  for (int id : then)
    if (!now.count(id)) fail("shrink to level: process ", id, " of level ", level, " is not in the current grid");
  for (int id : now)
    if (!then.count(id)) plan.leaving.push_back(id);
  plan.remove_rows = plan.from.grid.rows - plan.to.grid.rows;
  plan.remove_cols = plan.from.grid.cols - plan.to.grid.cols;
  std::ostringstream why;
  why << "back to level " << level << ": " << to_string(plan.from.grid) << " -> "
      << to_string(plan.to.grid) << ", " << plan.leaving.size() << " process(es) leave";
  plan.reason = why.str();
  return plan;
}

std::vector<Placement> expansion_stack(const Placement& initial, const std::vector<Topology>& grids,
                                       PlacementStrategy strategy, const redist::MatrixSpec* shape) {
  initial.validate();
  std::vector<Placement> stack{initial};
  for (const Topology g : grids) {
    const Placement& cur = stack.back();
    const int added = g.size() - cur.grid.size();
    if (added <= 0)
      fail("expansion stack: ", to_string(g), " is not larger than ", to_string(cur.grid));
    switch (strategy) {
      case PlacementStrategy::Global: stack.push_back(place_global(g)); break;
      case PlacementStrategy::Local1:
      case PlacementStrategy::Local2:
        if (g.rows < cur.grid.rows || g.cols < cur.grid.cols)
          fail("expansion stack: ", to_string(cur.grid), " -> ", to_string(g),
               " drops rows or columns, not a local expansion");
        stack.push_back(place_local(cur, g.rows - cur.grid.rows, g.cols - cur.grid.cols, strategy));
        break;
      case PlacementStrategy::Optimal:
        if (!shape) fail("expansion stack: the optimal strategy needs the matrix shape");
        stack.push_back(place_optimal(cur, g, added, *shape));
        break;
    }
  }
  return stack;
}

}  // namespace gridmap
