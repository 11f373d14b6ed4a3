// SPDX-License-Identifier: BSD-3-Clause
// The registration of a matrix (session_impl.hpp: register_vector, register_blocks,
// register_handle; the Session's register_matrix* forward to them, session.cpp): its
// checked shape, its record and storage into the registry. A matrix registered through a
// handle (Session::register_matrix<T>, matrix.hpp): the registry entry's MatrixState (its
// record and its form on the grid) is the handle's; the entry publishes the handle's
// descriptor into it and an OwnedStorage publishes the buffer there.
#include "session/session_impl.hpp"
#include "session/cached_map.hpp"
#include "session/shared_alloc.hpp"

#include <complex>

namespace resize {

using namespace detail;

namespace detail {

void MatrixState::check_alive() const {
  if (!session) throw Error("matrix '" + mat.name + "': its session is gone (the handle outlived it)");
}

MapKey MatrixState::key() const {
  check_alive();
  MapKey k;
  k.nprow = std::max(1, session->grid().nprow);
  k.npcol = std::max(1, session->grid().npcol);
  if (session->in_grid()) {
    k.myrow = session->myrow();
    k.mycol = session->mycol();
  }
  // the matrix's layout on the grid, placed anew at each resize (Registered::place)
  k.blocks = blocks_version;
  return k;
}

const IndexMap& MatrixState::map() const {
  if (!cache) cache = std::make_shared<CachedMap>();
  return cache->get(key(), [&] { return build_map(); });
}

IndexMap MatrixState::build_map() const {
  const MapKey k = key();
  // Before the first layout every index is off the grid (a 0 x 0 map: owns() is false
  // everywhere); then the matrix's layout on the session's grid, of either distribution.
  if (!layout) return IndexMap();
  if (!mat.extended())
    return IndexMap(redist::Layout::from_blocks(layout->row_blocks, layout->col_blocks, k.nprow, k.npcol), k.myrow,
                    k.mycol);
  // an extended matrix: one block per process row/column (the sizes function's contract)
  const redist::BlockSizes &rows = layout->row_blocks, &cols = layout->col_blocks;
  if (static_cast<int>(rows.size()) != k.nprow || static_cast<int>(cols.size()) != k.npcol)
    throw Error("matrix '" + mat.name + "': its block sizes give " + std::to_string(rows.size()) + " x " +
                std::to_string(cols.size()) + " blocks on a " + session->grid().shape() +
                " grid; the index maps need one block per process row and column");
  return IndexMap(redist::Layout::from_blocks(rows, cols, k.nprow, k.npcol), k.myrow, k.mycol);
}

void MatrixState::not_owner(int i, int j) const {
  check_alive();
  if (i < 0 || i >= mat.m || j < 0 || j >= mat.n)
    throw Error("matrix '" + mat.name + "' (" + std::to_string(mat.m) + " x " + std::to_string(mat.n) + "): element (" +
                std::to_string(i) + ", " + std::to_string(j) + ") is outside the matrix (0-based indices)");
  const IndexMap& mp = map();
  if (mp.rows() != mat.m || mp.cols() != mat.n)
    throw Error("matrix '" + mat.name + "': element (" + std::to_string(i) + ", " + std::to_string(j) +
                ") is on no process yet: the matrix has no layout before start() or join()");
  const std::string where = !mp.in_grid() ? std::string("off the grid")
                                          : "at grid (" + std::to_string(mp.myrow()) + ", " +
                                                std::to_string(mp.mycol()) + ")";
  throw Error("matrix '" + mat.name + "': element (" + std::to_string(i) + ", " + std::to_string(j) +
              ") is held by grid process (" + std::to_string(mp.row_owner(i)) + ", " +
              std::to_string(mp.col_owner(j)) + "), not by world rank " + std::to_string(session->world_rank()) +
              " (" + where + "); ask owns(i, j) first");
}

int MatrixState::row_block() const {
  return static_cast<int>(layout ? mat.row_block_on(layout->nprow) : mat.mb);
}

int MatrixState::col_block() const {
  return static_cast<int>(layout ? mat.col_block_on(layout->npcol) : mat.nb);
}

void MatrixState::no_desc() const {
  throw Error("matrix '" + mat.name +
              "' has per-process block sizes (an extended descriptor): no ScaLAPACK descriptor describes it; "
              "use data(), lld(), row_blocks() and col_blocks()");
}

}  // namespace detail

namespace {
void check_shape(const std::string& name, int m, int n, int mb, int nb, Distribution dist) {
  if (dist == Distribution::Extended) throw Error("register_matrix " + name + ": " + detail::kExtendedNeedsBlocks);
  if (m < 0 || n < 0 || mb < 1 || nb < 1)
    throw Error("register_matrix " + name + ": need M, N >= 0 and MB, NB >= 1 (got " +
                std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(mb) + ", " +
                std::to_string(nb) + ")");
}
}  // namespace

Registered uniform_registration(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                                int* desc) {
  check_shape(name, m, n, mb, nb, dist);
  if (!desc) throw Error("register_matrix " + name + ": desc must not be null");
  Registered r;
  r.mat().name = name;
  r.app_desc = desc;
  r.mat().dist = dist;
  r.mat().m = m;
  r.mat().n = n;
  r.mat().mb = mb;
  r.mat().nb = nb;
  return r;
}

template <class T>
void detail::register_vector(MatrixRegistry& registry, const std::string& name, int m, int n, int mb, int nb,
                             Distribution dist, int* desc, std::vector<T>& buf) {
  Registered r = uniform_registration(name, m, n, mb, nb, dist, desc);
  r.store = std::make_unique<VectorStorage<T>>(buf);
  r.mat().type = detail::scalar_of<T>();
  registry.mats.push_back(std::move(r));
}

template <class T>
void detail::register_blocks(MatrixRegistry& registry, const std::string& name, int m, int n, Session::BlockSizes sizes,
                             std::vector<T>& buf, int* lld) {
  if (!sizes || !lld) throw Error("register_matrix_blocks " + name + ": sizes and lld must be given");
  Registered r;
  r.mat().name = name;
  r.store = std::make_unique<VectorStorage<T>>(buf);
  r.mat().type = detail::scalar_of<T>();
  r.mat().m = m;
  r.mat().n = n;
  r.mat().dist = Distribution::Extended;
  r.mat().sizes = detail::block_rule(std::move(sizes));
  r.app_lld = lld;
  registry.mats.push_back(std::move(r));
}

template <class T>
std::shared_ptr<MatrixState> detail::register_handle(SessionState& s, const Session* session, const std::string& name, int m,
                                                     int n, int mb, int nb, Distribution dist, Session::BlockSizes sizes) {
  const bool extended = static_cast<bool>(sizes);
  if (dist == Distribution::Extended && !extended)
    throw Error("register_matrix " + name + ": " + detail::kExtendedNeedsBlocks);
  if (m < 0 || n < 0 || (!extended && (mb < 1 || nb < 1)))
    throw Error("register_matrix " + name + ": need M, N >= 0 and MB, NB >= 1 (got " + std::to_string(m) + ", " +
                std::to_string(n) + ", " + std::to_string(mb) + ", " + std::to_string(nb) + ")");
  if (s.life.started) throw Error("register_matrix " + name + ": register before start() or join()");
  auto st = std::make_shared<MatrixState>();
  st->mat.name = name;
  st->mat.m = m;
  st->mat.n = n;
  st->mat.mb = extended ? 1 : mb;
  st->mat.nb = extended ? 1 : nb;
  st->mat.dist = extended ? Distribution::Extended : dist;
  st->mat.type = detail::scalar_of<T>();
  if (extended) st->mat.sizes = detail::block_rule(std::move(sizes));
  st->session = session;
  Registered r(st);
  if (!extended) {
    r.app_desc = st->desc.data();
    r.publish();  // off every grid until start
  }
  r.store = std::make_unique<OwnedStorage<T>>(st, s.cfg.session.hugepages, shared_alloc(s.cfg.session));
  s.registry.mats.push_back(std::move(r));
  return st;
}

#define RESIZE_REGISTER_FOR(T)                                                                                 \
  template void detail::register_vector<T>(MatrixRegistry&, const std::string&, int, int, int, int, Distribution, \
                                           int*, std::vector<T>&);                                             \
  template void detail::register_blocks<T>(MatrixRegistry&, const std::string&, int, int, Session::BlockSizes,         \
                                           std::vector<T>&, int*);                                             \
  template std::shared_ptr<MatrixState> detail::register_handle<T>(SessionState&, const Session*, const std::string&, \
                                                                   int, int, int, int, Distribution, Session::BlockSizes);
RESIZE_REGISTER_FOR(float)
RESIZE_REGISTER_FOR(double)
RESIZE_REGISTER_FOR(std::complex<float>)
RESIZE_REGISTER_FOR(std::complex<double>)
#undef RESIZE_REGISTER_FOR

}  // namespace resize
