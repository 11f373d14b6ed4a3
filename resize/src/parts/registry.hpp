// SPDX-License-Identifier: BSD-3-Clause
// The session's registered matrices (a part of the session, parts/): each entry's state
// (its record, a redist::MatrixSpec, shared with its handle where it has one) and the
// buffers that hold it here (storage.hpp), and the registry of them with the
// application's own state. Internal to the session's MPI shell.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/matrix.hpp"
#include "malleable/resize/matrix.hpp"
#include "malleable/resize/session_options.hpp"
#include "common/scalar.hpp"
#include "parts/descriptor.hpp"
#include "parts/storage.hpp"

namespace resize {

namespace detail {
// Why register_matrix and make_desc refuse Distribution::Extended.
inline constexpr const char* kExtendedNeedsBlocks =
    "Distribution::Extended is a matrix registered with its block sizes (register_matrix_blocks, "
    "register_matrix<T>(name, m, n, sizes))";
// The record's rule (redist::BlockRule) of an application's block sizes function
// (Session::BlockSizes): asked for a grid, it hands the function that grid as the session
// names grids.
inline redist::BlockRule block_rule(std::function<void(const Grid&, std::vector<long long>&, std::vector<long long>&)> f) {
  return [f = std::move(f)](int nprow, int npcol, const std::vector<int>& ranks, std::vector<long long>& rows,
                            std::vector<long long>& cols) {
    Grid g;
    g.nprow = nprow;
    g.npcol = npcol;
    g.ranks = ranks;
    f(g, rows, cols);
  };
}
}  // namespace detail

// A registered matrix: its state (its description, mat()) and the buffers and handles
// that hold its elements on this process.
struct Registered {
  Registered() : state(std::make_shared<detail::MatrixState>()) {}
  // Registered through a handle: the state the handle reads (app_desc points into it).
  explicit Registered(std::shared_ptr<detail::MatrixState> st) : state(std::move(st)) {}
  // Its record, the session's one (in the state a handle shares), and its layout on the
  // current grid (none before its first placement): the matrix on its grid is these two.
  redist::MatrixSpec& mat() { return state->mat; }
  const redist::MatrixSpec& mat() const { return state->mat; }
  const std::optional<redist::Layout>& layout() const { return state->layout; }
  // The rest of its form on the current grid: the grid's BLACS context here (-1: no place
  // on it) and its local buffer's leading dimension, set with the layout by place().
  int context() const { return state->context; }
  int lld() const { return state->lld; }
  // Where the application reads the form, derived from it by publish(): a block-cyclic
  // matrix's ScaLAPACK descriptor (the handle's, or the caller's array of the C API), an
  // extended-descriptor matrix's leading dimension (the caller's int of the C API; a
  // handle reads the state's). Written, never read, by the library.
  int* app_desc = nullptr;             // its ScaLAPACK descriptor (none: an extended-descriptor matrix)
  std::unique_ptr<detail::Storage> store;
  int* app_lld = nullptr;              // its leading dimension, for the application
  // Background resizes: constant between remap points (Session::mark_constant), so a resize may move
  // it in the background; `moved_in_background`: its staged buffer already holds its data
  // on the target grid (move_all commits it instead of moving it).
  bool constant = false;
  bool moved_in_background = false;
  // The matrix placed as `l` (its buffer already sized for it): its form there, {l, the
  // grid's context `context` where `rank` has a place, its leading dimension (its local
  // rows, at least 1)}, kept and published. Its handle's cached index map is rebuilt.
  void place(redist::Layout l, int context, int rank) {
    const detail::Placement p = detail::placement(mat(), l, context, rank);
    place(std::move(l), p);
  }
  // The same with the placement already derived (detail::placement of `l`: a move's target).
  void place(redist::Layout l, detail::Placement p) {
    state->context = p.context;
    state->lld = p.lld;
    relayout(std::move(l));
    publish();
  }
  // The same placement described anew (the ranks renumbered after a shrink: the
  // context follows when the grid is made again, recontext).
  void relayout(redist::Layout l) {
    state->layout = std::move(l);
    ++state->blocks_version;
  }
  // The grid made anew under the same placement: its context here (-1 off it), the
  // application's descriptor told so.
  void recontext(int context) {
    state->context = context;
    if (app_desc) app_desc[1] = context;
  }
  // Not placed on any grid (a newcomer before its first move): no layout, no context, the
  // application's descriptor off every grid with the record's blocks.
  void unplace() {
    state->layout.reset();
    state->context = -1;
    state->lld = 1;
    publish();
  }
  // The form written where the application reads it (descriptor.hpp derives the descriptor).
  void publish() const {
    if (mat().extended()) {
      if (app_lld) *app_lld = state->lld;
    } else if (app_desc) {
      const std::array<int, 9> d = detail::descriptor(mat(), state->layout ? &*state->layout : nullptr,
                                                      detail::Placement{state->context, state->lld});
      std::copy(d.begin(), d.end(), app_desc);
    }
  }
  // Not laid out on the current grid (the next move lays it out from its record).
  void drop_layout() { state->layout.reset(); }
  const void* data() const { return store->data(); }
  std::int64_t bytes(std::int64_t elements) const {
    return elements * static_cast<std::int64_t>(detail::scalar_bytes(mat().type));
  }
  // The memory a buffer of `elements` holds (Storage::held_bytes: huge pages round it up).
  std::int64_t held(std::int64_t elements) const { return store->held_bytes(bytes(elements)); }
  // The buffer on a new grid (reset) or the one a move writes into (stage). A size that
  // does not fit in memory is named with the matrix, not as std::bad_alloc.
  void reset(std::size_t elements, detail::ArrayFor use) {
    sized("its buffer", elements, [&] { store->reset(elements, use); });
  }
  // A buffer staged ahead of the move (prestage, move/pages.hpp) of that very size is
  // taken as it is (zero, its pages faulted in); any other size is staged anew.
  void* stage(std::size_t elements) {
    void* p = prestaged;
    if (p && prestaged_elements == elements) {
      prestaged = nullptr;
      return p;
    }
    prestaged = nullptr;
    sized("the buffer it moves into", elements, [&] { p = store->stage(elements); });
    return p;
  }
  // The buffer a later move of `elements` will take (the prefault thread's task): staged
  // now, its length in bytes returned with it. Throws std::bad_alloc where it does not fit.
  std::pair<void*, std::size_t> prestage(std::size_t elements) {
    prestaged = nullptr;
    void* p = store->stage(elements);
    prestaged_elements = elements;
    prestaged = p;
    return {p, static_cast<std::size_t>(bytes(static_cast<std::int64_t>(elements)))};
  }
  // A staged buffer that will not be committed (a background resize cancelled, an
  // expansion that failed after its buffers were staged ahead): freed.
  void unstage() {
    prestaged = nullptr;
    store->unstage();
  }
  bool holds_prestaged() const { return prestaged != nullptr; }

 private:
  std::shared_ptr<detail::MatrixState> state;  // never null (made here, or the handle's)
  void* prestaged = nullptr;  // staged ahead of the move, not yet taken by stage()
  std::size_t prestaged_elements = 0;
  template <class F>
  void sized(const char* what, std::size_t elements, F&& allocate) {
    try {
      allocate();
    } catch (const std::bad_alloc&) {
      throw Error(out_of_memory(what, elements));
    } catch (const std::length_error&) {
      throw Error(out_of_memory(what, elements));
    }
  }
  std::string out_of_memory(const char* what, std::size_t elements) const {
    char gib[32];
    const redist::MatrixSpec& d = mat();
    std::snprintf(gib, sizeof gib, "%.1f", static_cast<double>(elements) * detail::scalar_bytes(d.type) / 1073741824.0);
    return "session: matrix '" + d.name + "' (" + std::to_string(d.m) + " x " + std::to_string(d.n) + "): " + what +
           " of " + std::to_string(elements) + " elements (" + gib + " GiB) on this process does not fit in memory";
  }
};

namespace detail {
// The registered matrices, in registration order (every process the same), and the
// application's own state handed to newcomers (Session::set_app_state).
struct MatrixRegistry {
  std::vector<Registered> mats;
  std::function<std::vector<char>()> pack;
  std::function<void(const std::vector<char>&)> unpack;
  // The matrix `name` is constant between remap points (Session::mark_constant).
  void mark_constant(const std::string& name) {
    for (auto& r : mats)
      if (r.mat().name == name) {
        r.constant = true;
        return;
      }
    throw Error("mark_constant: no registered matrix is named '" + name + "'");
  }
};
}  // namespace detail
}  // namespace resize
