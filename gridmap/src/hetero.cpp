// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/gridmap/hetero.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/limits.hpp"
#include "malleable/redist/layout.hpp"

namespace gridmap {

HeteroOptions HeteroOptions::thesis() {
  HeteroOptions o;
  o.svd_columns = SvdColumns::Feasible;
  o.coordinate_ascent = false;
  o.swap_search = false;
  return o;
}

void ProcessorPowers::validate(const char* what) const {
  if (values.empty()) fail(what, ": the list of processing powers is empty");
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!(values[k] > 0) || !std::isfinite(values[k]))
      fail(what, ": processing power must be positive and finite, got ", what, "[", k, "] = ",
           values[k]);
}

ProcessorPowers parse_powers(const std::string& text) {
  ProcessorPowers out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    while (end && (*end == ' ' || *end == '\t')) ++end;
    if (item.empty() || end == item.c_str() || *end != '\0')
      fail("powers: \"", item, "\" is not a number (in \"", text, "\")");
    out.values.push_back(v);
  }
  return out;
}

std::string to_string(HeteroMethod m) {
  return m == HeteroMethod::Svd ? "svd" : "natural-block";
}

namespace {

using Matrix = std::vector<double>;  // row-major p x q

double bottleneck(const Matrix& s, Topology g, const std::vector<double>& r,
                  const std::vector<double>& c) {
  double t = 0;
  for (int i = 0; i < g.rows; ++i)
    for (int j = 0; j < g.cols; ++j)
      t = std::max(t, r[static_cast<std::size_t>(i)] * c[static_cast<std::size_t>(j)] /
                          s[static_cast<std::size_t>(i) * g.cols + j]);
  return t;
}

double obj2(const Matrix& s, Topology g, const std::vector<double>& r, const std::vector<double>& c) {
  const double sr = std::accumulate(r.begin(), r.end(), 0.0);
  const double sc = std::accumulate(c.begin(), c.end(), 0.0);
  const double t = bottleneck(s, g, r, c);
  return t > 0 ? sr * sc / t : 0.0;
}

// §6.2.1.2: the best rank-1 approximation sigma * a * b^T of S (s_ij = 1/t_ij); r_i =
// sigma * a_i, c_j = b_j. S is positive, so the leading singular vectors have one sign
// (Perron-Frobenius) and their absolute values are the answer.
void svd_rank1(const Matrix& s, Topology g, std::vector<double>& r, std::vector<double>& c) {
  const int p = g.rows, q = g.cols, k = std::min(p, q);
  Matrix a = s, u(static_cast<std::size_t>(p) * k), vt(static_cast<std::size_t>(k) * q);
  std::vector<double> sv(static_cast<std::size_t>(k)), superb(static_cast<std::size_t>(std::max(1, k - 1)));
  const lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'S', 'S', p, q, a.data(), q, sv.data(),
                                         u.data(), k, vt.data(), q, superb.data());
  if (info != 0) fail("heterogeneous mapping: LAPACKE_dgesvd failed, info = ", info);
  r.assign(static_cast<std::size_t>(p), 0);
  c.assign(static_cast<std::size_t>(q), 0);
  for (int i = 0; i < p; ++i) r[static_cast<std::size_t>(i)] = sv[0] * std::fabs(u[static_cast<std::size_t>(i) * k]);
  for (int j = 0; j < q; ++j) c[static_cast<std::size_t>(j)] = std::fabs(vt[static_cast<std::size_t>(j)]);
}

// The columns the thesis's tables show (SvdColumns::Feasible): for rows r, the widest
// c_j with r_i c_j / s_ij <= 1 for every i.
std::vector<double> feasible_columns(const Matrix& s, Topology g, const std::vector<double>& r) {
  std::vector<double> c(static_cast<std::size_t>(g.cols), std::numeric_limits<double>::infinity());
  for (int i = 0; i < g.rows; ++i)
    for (int j = 0; j < g.cols; ++j)
      c[static_cast<std::size_t>(j)] = std::min(c[static_cast<std::size_t>(j)],
                                                 s[static_cast<std::size_t>(i) * g.cols + j] / r[static_cast<std::size_t>(i)]);
  return c;
}

// §3.5.2: each dimension distributed by the relative performance along it, here the row
// and column sums of the power matrix (exact for a rank-1 arrangement).
void natural_block(const Matrix& s, Topology g, std::vector<double>& r, std::vector<double>& c) {
  r.assign(static_cast<std::size_t>(g.rows), 0);
  c.assign(static_cast<std::size_t>(g.cols), 0);
  for (int i = 0; i < g.rows; ++i)
    for (int j = 0; j < g.cols; ++j) {
      r[static_cast<std::size_t>(i)] += s[static_cast<std::size_t>(i) * g.cols + j];
      c[static_cast<std::size_t>(j)] += s[static_cast<std::size_t>(i) * g.cols + j];
    }
}

double int_time(const Matrix& s, Topology g, const std::vector<std::int64_t>& rows,
                const std::vector<std::int64_t>& cols) {
  double t = 0;
  for (int i = 0; i < g.rows; ++i)
    for (int j = 0; j < g.cols; ++j)
      t = std::max(t, static_cast<double>(rows[static_cast<std::size_t>(i)]) *
                          static_cast<double>(cols[static_cast<std::size_t>(j)]) /
                          s[static_cast<std::size_t>(i) * g.cols + j]);
  return t;
}

// Rounding leaves slack the real solution did not have; move single rows/columns off the
// bottleneck lines while the iteration time strictly drops. Only a line holding a
// bottleneck cell can lower the maximum, which keeps a round O((p+q)^2 pq). Sizes stay >= 1.
void polish(const Matrix& s, Topology g, std::vector<std::int64_t>& rows,
            std::vector<std::int64_t>& cols) {
  double best = int_time(s, g, rows, cols);
  for (int round = 0; round < 8 * (g.rows + g.cols); ++round) {
    std::vector<char> hot_row(rows.size(), 0), hot_col(cols.size(), 0);
    for (int i = 0; i < g.rows; ++i)
      for (int j = 0; j < g.cols; ++j)
        if (static_cast<double>(rows[static_cast<std::size_t>(i)]) *
                static_cast<double>(cols[static_cast<std::size_t>(j)]) /
                s[static_cast<std::size_t>(i) * g.cols + j] >= best * (1 - 1e-12))
          hot_row[static_cast<std::size_t>(i)] = hot_col[static_cast<std::size_t>(j)] = 1;
    double cand_best = best;
    int kind = -1, from = -1, to = -1;
    for (int dim = 0; dim < 2; ++dim) {
      auto& v = dim == 0 ? rows : cols;
      const auto& hot = dim == 0 ? hot_row : hot_col;
      for (std::size_t a = 0; a < v.size(); ++a) {
        if (!hot[a] || v[a] <= 1) continue;
        for (std::size_t b = 0; b < v.size(); ++b) {
          if (a == b) continue;
          --v[a];
          ++v[b];
          const double t = int_time(s, g, rows, cols);
          ++v[a];
          --v[b];
          if (t < cand_best - 1e-12 * best) {
            cand_best = t;
            kind = dim;
            from = static_cast<int>(a);
            to = static_cast<int>(b);
          }
        }
      }
    }
    if (kind < 0) break;
    auto& v = kind == 0 ? rows : cols;
    --v[static_cast<std::size_t>(from)];
    ++v[static_cast<std::size_t>(to)];
    best = cand_best;
  }
}

struct Evaluated {
  std::vector<double> need_r, need_c;  // the method's own r, c: they drive the refinement
  std::vector<double> r, c;            // after the ascent (if on), scaled to m and n
  std::vector<std::int64_t> rows, cols;
  double time = 0, obj = 0;
};

Evaluated evaluate(const Matrix& s, Topology g, std::int64_t m, std::int64_t n,
                   const HeteroOptions& opt) {
  Evaluated e;
  if (opt.method == HeteroMethod::Svd) {
    svd_rank1(s, g, e.need_r, e.need_c);
    if (opt.svd_columns == SvdColumns::Feasible) e.need_c = feasible_columns(s, g, e.need_r);
  } else
    natural_block(s, g, e.need_r, e.need_c);
  e.r = e.need_r;
  e.c = e.need_c;
  if (opt.coordinate_ascent) e.r = ascend_obj2(s, g, e.c);
  e.obj = obj2(s, g, e.r, e.c);
  const double sr = std::accumulate(e.r.begin(), e.r.end(), 0.0);
  const double sc = std::accumulate(e.c.begin(), e.c.end(), 0.0);
  for (double& x : e.r) x *= static_cast<double>(m) / sr;
  for (double& x : e.c) x *= static_cast<double>(n) / sc;
  e.rows = proportional_sizes(e.r, m);
  e.cols = proportional_sizes(e.c, n);
  if (opt.coordinate_ascent) polish(s, g, e.rows, e.cols);
  e.time = int_time(s, g, e.rows, e.cols);
  return e;
}

Matrix powers_of(const ProcessorPowers& pw, const std::vector<int>& ids) {
  Matrix s(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) s[k] = pw.values[static_cast<std::size_t>(ids[k])];
  return s;
}

void check_inputs(const ProcessorPowers& powers, Topology grid, std::int64_t m, std::int64_t n) {
  powers.validate();
  check_grid_size("heterogeneous mapping", grid.rows, grid.cols);
  if (powers.size() > static_cast<std::size_t>(kMaxHeteroProcessors))
    fail("heterogeneous mapping: ", powers.size(), " processors are more than the limit of ",
         kMaxHeteroProcessors);
  if (static_cast<std::size_t>(grid.size()) != powers.size())
    fail("heterogeneous mapping: a ", to_string(grid), " grid needs ", grid.size(),
         " processing powers, got ", powers.size());
  if (m < grid.rows) fail("heterogeneous mapping: m = ", m, " rows cannot give each of ", grid.rows, " process rows one row");
  if (n < grid.cols) fail("heterogeneous mapping: n = ", n, " columns cannot give each of ", grid.cols, " process columns one column");
}

}  // namespace

std::vector<double> ascend_obj2(const std::vector<double>& s, Topology g, std::vector<double>& c) {
  const auto P = static_cast<std::size_t>(g.rows), Q = static_cast<std::size_t>(g.cols);
  const auto rows_for = [&](const std::vector<double>& cc) {
    std::vector<double> r(P, std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < P; ++i)
      for (std::size_t j = 0; j < Q; ++j) r[i] = std::min(r[i], s[i * Q + j] / cc[j]);
    return r;
  };
  const auto f = [&](const std::vector<double>& cc) {
    const auto r = rows_for(cc);
    return std::accumulate(r.begin(), r.end(), 0.0) * std::accumulate(cc.begin(), cc.end(), 0.0);
  };
  double best = f(c);
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool moved = false;
    for (std::size_t j = 0; j < Q; ++j) {
      // m_i: row i's bound from the other columns; the breakpoints of f along c_j are where
      // column j starts to bind row i: c_j = s_ij / m_i.
      std::vector<double> cand;
      for (std::size_t i = 0; i < P; ++i) {
        double mi = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < Q; ++k)
          if (k != j) mi = std::min(mi, s[i * Q + k] / c[k]);
        if (std::isfinite(mi)) cand.push_back(s[i * Q + j] / mi);
      }
      const double keep = c[j];
      double best_cj = keep;
      for (double v : cand) {
        c[j] = v;
        const double val = f(c);
        if (val > best * (1 + 1e-12)) {
          best = val;
          best_cj = v;
          moved = true;
        }
      }
      c[j] = best_cj;
    }
    if (!moved) break;
  }
  return rows_for(c);
}

std::vector<std::int64_t> proportional_sizes(const std::vector<double>& w, std::int64_t total) {
  if (w.empty()) fail("sizes: no weights");
  const auto parts = static_cast<std::int64_t>(w.size());
  if (total < parts) fail("sizes: total ", total, " cannot give each of ", parts, " parts at least 1");
  double sum = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    if (!(w[k] >= 0) || !std::isfinite(w[k])) fail("sizes: weight[", k, "] = ", w[k], " is not >= 0");
    sum += w[k];
  }
  if (!(sum > 0)) fail("sizes: weights sum to ", sum);
  // Largest remainder, then every part raised to >= 1 (redist rejects empty blocks) at the
  // expense of the largest parts.
  std::vector<std::int64_t> out(w.size());
  std::vector<std::pair<double, std::size_t>> rem;
  std::int64_t given = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    const double exact = w[k] / sum * static_cast<double>(total);
    out[k] = static_cast<std::int64_t>(std::floor(exact + 1e-9));
    given += out[k];
    rem.emplace_back(exact - static_cast<double>(out[k]), k);
  }
  std::stable_sort(rem.begin(), rem.end(), [](auto a, auto b) { return a.first > b.first; });
  for (std::int64_t k = 0; k < total - given; ++k) ++out[rem[static_cast<std::size_t>(k) % rem.size()].second];
  for (auto& v : out)
    if (v < 1) {
      v = 1;
      --*std::max_element(out.begin(), out.end());
    }
  return out;
}

double HeteroMapping::iteration_time() const {
  double t = 0;
  for (int i = 0; i < grid.rows; ++i)
    for (int j = 0; j < grid.cols; ++j)
      t = std::max(t, static_cast<double>(rows[static_cast<std::size_t>(i)]) *
                          static_cast<double>(cols[static_cast<std::size_t>(j)]) / power_at(i, j));
  return t;
}

double HeteroMapping::throughput() const { return obj2(power, grid, r, c); }

std::vector<double> HeteroMapping::utilisation() const {
  const double t = iteration_time();
  std::vector<double> u(power.size());
  for (int i = 0; i < grid.rows; ++i)
    for (int j = 0; j < grid.cols; ++j)
      u[static_cast<std::size_t>(i) * grid.cols + j] =
          static_cast<double>(rows[static_cast<std::size_t>(i)]) *
          static_cast<double>(cols[static_cast<std::size_t>(j)]) / power_at(i, j) / t;
  return u;
}

std::vector<double> HeteroMapping::t_opt() const {
  const auto u = utilisation();
  std::vector<double> t(power.size());
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = u[k] * power[k];
  return t;
}

double HeteroMapping::total_power() const { return std::accumulate(power.begin(), power.end(), 0.0); }

namespace {
// Beyond the thesis: the T_opt refinement can stop at an arrangement that pairwise swaps
// still improve (Table 6.1's rank-1 powers, sorted row-major, are such a case). Swap
// pairs of movable processors of different power while the iteration time drops.
// A grid with one row or one column balances any arrangement perfectly: nothing to swap.
// Returns the passes made; `best` and `best_ids` hold the best arrangement found.
int swap_search(const ProcessorPowers& powers, Topology grid, std::int64_t m, std::int64_t n,
                const HeteroOptions& opt, Evaluated& best, std::vector<int>& best_ids) {
  const std::size_t S = static_cast<std::size_t>(grid.size());
  int passes = 0;
  for (int pass = 0; pass < std::min(opt.max_iterations, 8); ++pass) {
    bool improved = false;  // one pass tries every pair once, keeping each improvement
    for (std::size_t a = 0; a < S; ++a) {
      if (!opt.fixed.empty() && opt.fixed[a]) continue;
      for (std::size_t b = a + 1; b < S; ++b) {
        if (!opt.fixed.empty() && opt.fixed[b]) continue;
        if (powers.values[static_cast<std::size_t>(best_ids[a])] ==
            powers.values[static_cast<std::size_t>(best_ids[b])])
          continue;
        std::vector<int> trial = best_ids;
        std::swap(trial[a], trial[b]);
        Evaluated te = evaluate(powers_of(powers, trial), grid, m, n, opt);
        if (te.time < best.time * (1 - 1e-9)) {
          best = std::move(te);
          best_ids = std::move(trial);
          improved = true;
        }
      }
    }
    ++passes;
    if (!improved) break;
  }
  return passes;
}

void check_arrangement(const ProcessorPowers& powers, Topology grid, const std::vector<int>& ids0, std::int64_t m,
                       std::int64_t n, const HeteroOptions& opt) {
  check_inputs(powers, grid, m, n);
  const std::size_t S = static_cast<std::size_t>(grid.size());
  if (ids0.size() != S) fail("heterogeneous mapping: arrangement has ", ids0.size(), " ids, the grid ", S, " slots");
  if (std::set<int>(ids0.begin(), ids0.end()).size() != S ||
      *std::min_element(ids0.begin(), ids0.end()) < 0 ||
      *std::max_element(ids0.begin(), ids0.end()) >= static_cast<int>(S))
    fail("heterogeneous mapping: the arrangement must be a permutation of 0..", S - 1);
  if (!opt.fixed.empty() && opt.fixed.size() != S)
    fail("heterogeneous mapping: fixed mask has ", opt.fixed.size(), " entries, the grid ", S, " slots");
  if (opt.max_iterations < 1) fail("heterogeneous mapping: max_iterations must be >= 1, got ", opt.max_iterations);
}

// §6.2.1.3: T_opt_ij ~ r_i c_j is the power each slot should have; give the fastest
// movable processors the movable slots that need the most. The next arrangement after
// `ids`, evaluated as `e`.
std::vector<int> topt_arrangement(const ProcessorPowers& powers, Topology grid, const std::vector<int>& ids,
                                  const Evaluated& e, const HeteroOptions& opt) {
  const std::size_t S = static_cast<std::size_t>(grid.size());
  std::vector<std::size_t> slots;
  for (std::size_t k = 0; k < S; ++k)
    if (opt.fixed.empty() || !opt.fixed[k]) slots.push_back(k);
  std::vector<int> procs;
  for (std::size_t k : slots) procs.push_back(ids[k]);
  // The rank-1 (or natural block) r, c say which slots need power, as in the thesis;
  // the ascent only changes how much data each slot finally gets.
  const auto need = [&](std::size_t k) {
    return e.need_r[k / static_cast<std::size_t>(grid.cols)] * e.need_c[k % static_cast<std::size_t>(grid.cols)];
  };
  std::vector<std::size_t> by_need = slots;
  std::stable_sort(by_need.begin(), by_need.end(), [&](auto a, auto b) { return need(a) > need(b); });
  std::stable_sort(procs.begin(), procs.end(), [&](int a, int b) {
    const double pa = powers.values[static_cast<std::size_t>(a)], pb = powers.values[static_cast<std::size_t>(b)];
    return pa != pb ? pa > pb : a < b;
  });
  std::vector<int> next = ids;
  for (std::size_t k = 0; k < by_need.size(); ++k) next[by_need[k]] = procs[k];
  return next;
}

// The T_opt refinement (topt_arrangement) from `best_ids` (evaluated as `best`) until an
// arrangement repeats (converged, or a cycle) or max_iterations; `best` and `best_ids`
// hold the best arrangement found. Returns the iterations made.
int refine_by_topt(const ProcessorPowers& powers, Topology grid, std::int64_t m, std::int64_t n,
                   const HeteroOptions& opt, Evaluated& best, std::vector<int>& best_ids) {
  std::vector<int> ids = best_ids;
  Evaluated e = best;
  int iterations = 0;
  std::set<std::vector<int>> seen{ids};
  while (opt.refine_arrangement && iterations < opt.max_iterations) {
    ++iterations;
    std::vector<int> next = topt_arrangement(powers, grid, ids, e, opt);
    if (!seen.insert(next).second) break;  // converged, or a cycle
    ids = next;
    e = evaluate(powers_of(powers, ids), grid, m, n, opt);
    if (e.time < best.time - 1e-12 * best.time ||
        (e.time <= best.time * (1 + 1e-12) && e.obj > best.obj * (1 + 1e-12))) {
      best = e;
      best_ids = ids;
    }
  }
  return iterations;
}

// The ascent flattens the landscape the swaps search (Table 6.1 again), so the thesis's
// own path (pure sizes) is followed too and its arrangement sized with the ascent; the
// faster of the two is kept in `best`, `best_ids`.
void follow_thesis_path(const ProcessorPowers& powers, Topology grid, const std::vector<int>& ids0, std::int64_t m,
                        std::int64_t n, const HeteroOptions& opt, Evaluated& best, std::vector<int>& best_ids) {
  HeteroOptions pure = opt;
  pure.coordinate_ascent = false;
  const HeteroMapping other = map_arranged(powers, grid, ids0, m, n, pure);
  Evaluated oe = evaluate(powers_of(powers, other.ids), grid, m, n, opt);
  if (oe.time < best.time * (1 - 1e-9)) {
    best = std::move(oe);
    best_ids = other.ids;
  }
}

HeteroMapping mapping_of(const ProcessorPowers& powers, Topology grid, const Evaluated& best,
                         const std::vector<int>& best_ids, std::int64_t m, std::int64_t n, int iterations) {
  HeteroMapping out;
  out.grid = grid;
  out.ids = best_ids;
  out.power = powers_of(powers, best_ids);
  out.r = best.r;
  out.c = best.c;
  out.rows = best.rows;
  out.cols = best.cols;
  out.m = m;
  out.n = n;
  out.iterations = iterations;
  return out;
}

}  // namespace

HeteroMapping map_arranged(const ProcessorPowers& powers, Topology grid, const std::vector<int>& ids0,
                           std::int64_t m, std::int64_t n, const HeteroOptions& opt) {
  check_arrangement(powers, grid, ids0, m, n, opt);
  const std::size_t S = static_cast<std::size_t>(grid.size());
  std::vector<int> best_ids = ids0;
  Evaluated best = evaluate(powers_of(powers, best_ids), grid, m, n, opt);
  int iterations = refine_by_topt(powers, grid, m, n, opt, best, best_ids);

  // Beyond the thesis: pairwise swaps after the T_opt refinement (swap_search).
  if (opt.swap_search && grid.rows > 1 && grid.cols > 1 && S <= static_cast<std::size_t>(kMaxSwapSearchSlots))
    iterations += swap_search(powers, grid, m, n, opt, best, best_ids);

  if (opt.coordinate_ascent && (opt.refine_arrangement || opt.swap_search) && grid.rows > 1 &&
      grid.cols > 1)
    follow_thesis_path(powers, grid, ids0, m, n, opt, best, best_ids);
  return mapping_of(powers, grid, best, best_ids, m, n, iterations);
}

HeteroMapping map_heterogeneous(const ProcessorPowers& powers, Topology grid, std::int64_t m,
                                std::int64_t n, const HeteroOptions& opt) {
  check_inputs(powers, grid, m, n);
  // §6.2.1.1: cycle times ascending (powers descending) into the p x q matrix row by row.
  std::vector<int> ids(powers.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
    return powers.values[static_cast<std::size_t>(a)] > powers.values[static_cast<std::size_t>(b)];
  });
  HeteroOptions o = opt;
  o.fixed.clear();  // a fresh mapping has nothing to keep in place
  return map_arranged(powers, grid, ids, m, n, o);
}

HeteroMapping search_topology(const ProcessorPowers& powers, std::int64_t m, std::int64_t n,
                              AspectRatio aspect, const HeteroOptions& opt) {
  powers.validate();
  aspect.validate();
  if (powers.size() > static_cast<std::size_t>(kMaxHeteroProcessors))
    fail("topology search: ", powers.size(), " processors are more than the limit of ", kMaxHeteroProcessors);
  const int P = static_cast<int>(powers.size());
  bool found = false;
  HeteroMapping best;
  for (int p = 1; p <= P; ++p) {
    if (P % p) continue;
    const Topology g{p, P / p};
    if (!aspect.admits(g) || m < g.rows || n < g.cols) continue;
    HeteroMapping h = map_heterogeneous(powers, g, m, n, opt);
    const double t = h.iteration_time(), bt = found ? best.iteration_time() : 0;
    if (!found || t < bt * (1 - 1e-12) ||
        (t <= bt * (1 + 1e-12) && std::abs(g.rows - g.cols) < std::abs(best.grid.rows - best.grid.cols))) {
      best = std::move(h);
      found = true;
    }
  }
  if (!found)
    fail("topology search: no p x q with p*q = ", P, " satisfies c <= p*r and r <= q*c with p = ",
         aspect.p, ", q = ", aspect.q, " (and fits a ", m, "x", n, " matrix)");
  return best;
}

Topology squarest_factorization(int P, AspectRatio aspect) {
  if (P < 1) fail("factorisation: number of processes P must be >= 1, got P = ", P);
  if (P > kMaxProcesses) fail("factorisation: P = ", P, " is more than the limit of ", kMaxProcesses);
  aspect.validate();
  bool found = false;
  Topology best;
  for (int p = 1; p <= P; ++p) {
    if (P % p) continue;
    const Topology g{p, P / p};
    if (!aspect.admits(g)) continue;
    const int d = std::abs(g.rows - g.cols), bd = std::abs(best.rows - best.cols);
    if (!found || d < bd || (d == bd && g.cols > best.cols)) best = g;
    found = true;
  }
  if (!found)
    fail("factorisation: no p x q with p*q = ", P, " satisfies c <= p*r and r <= q*c with p = ",
         aspect.p, ", q = ", aspect.q);
  return best;
}

redist::Layout to_layout(const HeteroMapping& h, const std::vector<int>& ranks) {
  try {
    return redist::Layout::from_blocks(h.rows, h.cols, h.grid.rows, h.grid.cols, 0, 0, ranks);
  } catch (const redist::Error& e) {
    throw Error(e, "heterogeneous layout: ");  // redist's code and part kept
  }
}

namespace {

// Splits each process line's share over `cycles` cycles; cycle k holds one block per line,
// in line order, so the layout is block-cyclic with unequal blocks and exact shares.
std::vector<std::int64_t> cyclic_blocks(const std::vector<std::int64_t>& share, std::int64_t cycle) {
  const std::int64_t total = std::accumulate(share.begin(), share.end(), std::int64_t{0});
  if (cycle < static_cast<std::int64_t>(share.size()))
    fail("block-cyclic layout: cycle length ", cycle, " must be >= the ", share.size(), " process lines");
  std::int64_t cycles = std::max<std::int64_t>(1, total / cycle);
  cycles = std::min(cycles, *std::min_element(share.begin(), share.end()));  // blocks >= 1
  if (cycles > kMaxLayoutBlocks / static_cast<std::int64_t>(share.size()))
    fail("block-cyclic layout: cycle length ", cycle, " gives ", cycles, " cycles of ", share.size(),
         " blocks, more than the limit of ", kMaxLayoutBlocks, " blocks (give a longer cycle)");
  std::vector<std::int64_t> blocks;
  for (std::int64_t k = 0; k < cycles; ++k)
    for (std::int64_t s : share) blocks.push_back(s * (k + 1) / cycles - s * k / cycles);
  return blocks;
}

}  // namespace

redist::Layout to_layout_cyclic(const HeteroMapping& h, std::int64_t row_cycle, std::int64_t col_cycle,
                                const std::vector<int>& ranks) {
  const auto rb = cyclic_blocks(h.rows, row_cycle), cb = cyclic_blocks(h.cols, col_cycle);
  try {
    return redist::Layout::from_blocks(rb, cb, h.grid.rows, h.grid.cols, 0, 0, ranks);
  } catch (const redist::Error& e) {
    throw Error(e, "heterogeneous layout: ");  // redist's code and part kept
  }
}

}  // namespace gridmap
