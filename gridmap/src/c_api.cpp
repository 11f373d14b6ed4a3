// SPDX-License-Identifier: BSD-3-Clause
// The C API (include/malleable/gridmap/gridmap.h): each entry point converts arguments, calls the
// C++ planner, and maps gridmap::Error to GRIDMAP_EINVAL with the message kept per
// thread. No exception crosses the C boundary.
#include "malleable/gridmap/gridmap.h"

#include <algorithm>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/hetero.hpp"
#include "malleable/gridmap/limits.hpp"
#include "malleable/gridmap/movement.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/gridmap/selection.hpp"
#include "malleable/gridmap/topology.hpp"

namespace {

thread_local std::string last_error;

// Impossible-but-valid requests are told apart from bad input by what the planner says.
struct Impossible : gridmap::Error {
  explicit Impossible(const std::string& what) : gridmap::Error(what, malleable::Errc::Impossible) {}
};

template <class F>
int guarded(F&& body) {
  try {
    body();
    last_error.clear();
    return GRIDMAP_OK;
  } catch (const Impossible& e) {
    last_error = e.what();
    return GRIDMAP_EIMPOSSIBLE;
  } catch (const malleable::Error& e) {  // gridmap::Error and redist::Error
    last_error = e.what();
    return GRIDMAP_EINVAL;
  } catch (const std::bad_alloc&) {
    // The limits (limits.hpp) keep every allocation bounded by the inputs' sizes, so this
    // is a machine without the memory for an accepted request, not a bad argument.
    last_error = "out of memory for a request within gridmap's limits";
    return GRIDMAP_EINTERNAL;
  } catch (const std::exception& e) {
    last_error = e.what();
    return GRIDMAP_EINTERNAL;
  }
}

void need(const void* ptr, const char* name) {
  if (!ptr) gridmap::fail(name, ": pointer is NULL");
}

gridmap::AspectRatio aspect(double p, double q) {
  const double inf = std::numeric_limits<double>::infinity();
  return {p <= 0 ? inf : p, q <= 0 ? inf : q};
}

gridmap::Placement placement_of(int rows, int cols, const int* slots) {
  gridmap::check_grid_size("grid", rows, cols);
  gridmap::Placement p = gridmap::Placement::row_major({rows, cols});
  if (slots) p.slots.assign(slots, slots + static_cast<std::size_t>(rows) * cols);
  p.validate();
  return p;
}

redist::MatrixSpec shape_of(long long m, long long n, long long mb, long long nb, int block) {
  redist::MatrixSpec s = redist::MatrixSpec::block_cyclic(m, n, mb, nb);
  if (block != 0) s.dist = redist::Distribution::Block;
  gridmap::check_matrix(s);
  return s;
}

gridmap::ProcessorPowers powers_of(const double* v, int count, const char* name) {
  if (count < 1) gridmap::fail(name, ": count must be >= 1, got ", count);
  need(v, name);
  gridmap::ProcessorPowers p{{v, v + count}};
  p.validate(name);
  return p;
}

}  // namespace

extern "C" {

const char* gridmap_last_error(void) { return last_error.c_str(); }

int gridmap_choose_topology(int nprocs, double p, double q, int* rows, int* cols) {
  return guarded([&] {
    need(rows, "rows");
    need(cols, "cols");
    const auto t = gridmap::choose_topology(nprocs, aspect(p, q)).grid;
    *rows = t.rows;
    *cols = t.cols;
  });
}

int gridmap_local_expansion(int rows, int cols, int offered, double p, double q, int final_grid,
                                 int* add_rows, int* add_cols) {
  return guarded([&] {
    need(add_rows, "add_rows");
    need(add_cols, "add_cols");
    const auto e = gridmap::plan_local_expansion(
        {rows, cols}, offered, aspect(p, q),
        final_grid ? gridmap::AspectScope::FinalGrid : gridmap::AspectScope::Increment);
    *add_rows = e.add_rows;
    *add_cols = e.add_cols;
    if (!e.possible) throw Impossible(e.reason);
  });
}

int gridmap_place(int strategy, int old_rows, int old_cols, const int* old_slots, int new_rows,
                       int new_cols, long long m, long long n, long long mb, long long nb, int block,
                       int* slots) {
  return guarded([&] {
    need(slots, "slots");
    const auto old = placement_of(old_rows, old_cols, old_slots);
    gridmap::check_grid_size("new grid", new_rows, new_cols);
    const gridmap::Topology grid{new_rows, new_cols};
    gridmap::Placement out;
    switch (strategy) {
      case GRIDMAP_GLOBAL: out = gridmap::place_global(grid); break;
      case GRIDMAP_LOCAL1:
      case GRIDMAP_LOCAL2:
        if (new_rows < old_rows || new_cols < old_cols)
          gridmap::fail("local placement: new grid ", new_rows, "x", new_cols, " is smaller than ", old_rows, "x", old_cols);
        out = gridmap::place_local(old, new_rows - old_rows, new_cols - old_cols,
                                   strategy == GRIDMAP_LOCAL1 ? gridmap::PlacementStrategy::Local1
                                                                   : gridmap::PlacementStrategy::Local2);
        break;
      case GRIDMAP_OPTIMAL:
        if (grid.size() < old.grid.size())
          gridmap::fail("optimal placement: new grid ", new_rows, "x", new_cols, " is smaller than the old one");
        out = gridmap::place_optimal(old, grid, grid.size() - old.grid.size(), shape_of(m, n, mb, nb, block));
        break;
      default: gridmap::fail("placement strategy: expected 0..3, got ", strategy);
    }
    std::copy(out.slots.begin(), out.slots.end(), slots);
  });
}

int gridmap_moved_elements(int old_rows, int old_cols, const int* old_slots, int new_rows, int new_cols,
                                const int* new_slots, long long m, long long n, long long mb, long long nb,
                                int block, long long* moved, long long* kept) {
  return guarded([&] {
    need(moved, "moved");
    need(new_slots, "new_slots");
    const auto mv = gridmap::account(placement_of(old_rows, old_cols, old_slots),
                                     placement_of(new_rows, new_cols, new_slots), shape_of(m, n, mb, nb, block));
    *moved = mv.elements_moved;
    if (kept) *kept = mv.elements_kept;
  });
}

int gridmap_hetero_map(int method, int thesis_only, int rows, int cols, const double* powers, int nprocs,
                            long long m, long long n, int* ids, long long* row_sizes, long long* col_sizes,
                            double* t_opt, double* iteration_time) {
  return guarded([&] {
    need(ids, "ids");
    need(row_sizes, "row_sizes");
    need(col_sizes, "col_sizes");
    gridmap::HeteroOptions o = thesis_only ? gridmap::HeteroOptions::thesis() : gridmap::HeteroOptions{};
    if (method == GRIDMAP_SVD) o.method = gridmap::HeteroMethod::Svd;
    else if (method == GRIDMAP_NATURAL_BLOCK) o.method = gridmap::HeteroMethod::NaturalBlock;
    else gridmap::fail("method: expected 0 (SVD) or 1 (natural block), got ", method);
    const auto h = gridmap::map_heterogeneous(powers_of(powers, nprocs, "powers"), {rows, cols}, m, n, o);
    std::copy(h.ids.begin(), h.ids.end(), ids);
    std::copy(h.rows.begin(), h.rows.end(), row_sizes);
    std::copy(h.cols.begin(), h.cols.end(), col_sizes);
    if (t_opt) {
      const auto t = h.t_opt();
      std::copy(t.begin(), t.end(), t_opt);
    }
    if (iteration_time) *iteration_time = h.iteration_time();
  });
}

int gridmap_select(int strategy, int rows, int cols, const double* powers, const double* free_powers,
                        int nfree, double tpp, long long m, long long n, int* chosen, int* nchosen,
                        int* new_rows, int* new_cols, int slot_capacity, int* ids, int line_capacity,
                        long long* row_sizes, long long* col_sizes, double* iteration_time) {
  return guarded([&] {
    need(chosen, "chosen");
    need(nchosen, "nchosen");
    need(new_rows, "new_rows");
    need(new_cols, "new_cols");
    gridmap::check_grid_size("grid", rows, cols);
    const auto cur = powers_of(powers, rows * cols, "powers");
    const auto offer = powers_of(free_powers, nfree, "free");
    gridmap::HeteroOptions fixed;
    fixed.refine_arrangement = fixed.swap_search = false;
    std::vector<int> order(cur.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
    const auto current = gridmap::map_arranged(cur, {rows, cols}, order, m, n, fixed);
    gridmap::SelectionStrategy s;
    switch (strategy) {
      case GRIDMAP_SELECT_GLOBAL: s = gridmap::SelectionStrategy::Global; break;
      case GRIDMAP_SELECT_LOCAL: s = gridmap::SelectionStrategy::Local; break;
      case GRIDMAP_SELECT_MIXED: s = gridmap::SelectionStrategy::Mixed; break;
      case GRIDMAP_SELECT_ADAPTIVE: s = gridmap::SelectionStrategy::Adaptive; break;
      default: gridmap::fail("selection strategy: expected 0..3, got ", strategy);
    }
    const auto sel = gridmap::select_processors(current, offer, tpp, s);
    const auto& h = sel.mapping;
    // Capacities are checked before anything is written: on error no output changes.
    if (ids || row_sizes || col_sizes) {
      if (slot_capacity < h.grid.size())
        gridmap::fail("slot_capacity: the new grid has ", h.grid.size(), " slots, capacity is ", slot_capacity);
      if (line_capacity < std::max(h.grid.rows, h.grid.cols))
        gridmap::fail("line_capacity: the new grid is ", h.grid.rows, "x", h.grid.cols, ", capacity is ", line_capacity);
    }
    *nchosen = static_cast<int>(sel.chosen.size());
    std::copy(sel.chosen.begin(), sel.chosen.end(), chosen);
    *new_rows = h.grid.rows;
    *new_cols = h.grid.cols;
    if (iteration_time) *iteration_time = h.iteration_time();
    if (ids || row_sizes || col_sizes) {
      if (ids) std::copy(h.ids.begin(), h.ids.end(), ids);
      if (row_sizes) std::copy(h.rows.begin(), h.rows.end(), row_sizes);
      if (col_sizes) std::copy(h.cols.begin(), h.cols.end(), col_sizes);
    }
  });
}

}  // extern "C"
