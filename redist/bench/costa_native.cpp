// SPDX-License-Identifier: BSD-3-Clause
// COSTA's own API for malleable-redist-bench's COSTA column: each matrix described on
// its own grid with costa::block_cyclic_layout (or costa::custom_layout when the grid's
// rank mapping is neither row- nor column-major over the communicator), then
// costa::transform(a, b, comm), the path CP2K and COSMA take.
//
// NOT part of the project's build: COSTA is never a dependency. The shapes bench script
// compiles this file against the COSTA build the user names (its headers and libcosta) into
// a shared object that malleable-redist-bench dlopens (see redist/bench/shapes_bench.cpp, load_costa):
//
//   mpicxx -std=c++17 -O2 -fPIC -shared redist/bench/costa_native.cpp -I<costa-src>/src
//          -I<costa-build>/src -L<costa-build>/src/costa -lcosta -Wl,-rpath,... -o costa_native.so
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <costa/grid2grid/transform.hpp>
#include <costa/layout.hpp>
#include <cstdio>
#include <exception>
#include <vector>

namespace {

// One matrix of the bench: m x n in blocks mb x nb on a pr x pc grid whose process (i, j)
// is communicator rank ranks[i * pc + j]; blocks start at process (0, 0); this rank's local
// array is column-major with leading dimension ld.
template <class T>
struct Side {
  int mb, nb, pr, pc;
  const int* ranks;
  T* data;
  int ld;
};

// 'R' or 'C' when ranks is 0..pr*pc-1 in row- or column-major grid order, else 0.
template <class T>
char grid_order(const Side<T>& s) {
  bool row = true, col = true;
  for (int i = 0; i < s.pr; ++i)
    for (int j = 0; j < s.pc; ++j) {
      const int r = s.ranks[i * s.pc + j];
      row = row && r == i * s.pc + j;
      col = col && r == j * s.pr + i;
    }
  return row ? 'R' : col ? 'C' : 0;
}

template <class T>
costa::grid_layout<T> layout_of(int m, int n, const Side<T>& s, int me, bool force_custom) {
  const char order = grid_order(s);
  if (order && !force_custom)
    return costa::block_cyclic_layout<T>(m, n, s.mb, s.nb, 1, 1, m, n, s.pr, s.pc, order, 0, 0, s.data, s.ld, 'C',
                                              me);
  // Any rank mapping: the block grid, every block's owner and this rank's blocks by hand.
  const int rb = (m + s.mb - 1) / s.mb, cb = (n + s.nb - 1) / s.nb;
  std::vector<int> rsplit(static_cast<std::size_t>(rb) + 1), csplit(static_cast<std::size_t>(cb) + 1);
  for (int i = 0; i <= rb; ++i) rsplit[static_cast<std::size_t>(i)] = std::min(m, i * s.mb);
  for (int j = 0; j <= cb; ++j) csplit[static_cast<std::size_t>(j)] = std::min(n, j * s.nb);
  std::vector<int> owners(static_cast<std::size_t>(rb) * static_cast<std::size_t>(cb));
  std::vector<costa::block_t> mine;  // (block_t holds void* data)
  for (int i = 0; i < rb; ++i)
    for (int j = 0; j < cb; ++j) {
      const int owner = s.ranks[(i % s.pr) * s.pc + j % s.pc];
      owners[static_cast<std::size_t>(i) * static_cast<std::size_t>(cb) + static_cast<std::size_t>(j)] = owner;
      if (owner == me)
        mine.push_back({s.data + static_cast<std::size_t>(i / s.pr) * static_cast<std::size_t>(s.mb) +
                            static_cast<std::size_t>(j / s.pc) * static_cast<std::size_t>(s.nb) *
                                static_cast<std::size_t>(s.ld),
                        s.ld, i, j});
    }
  return costa::custom_layout<T>(rb, cb, rsplit.data(), csplit.data(), owners.data(),
                                      static_cast<int>(mine.size()), mine.data(), 'C');
}

template <class T>
int transform(int m, int n, int mba, int nba, int pra, int pca, const int* ranks_a, const void* a, int lda, int mbb,
              int nbb, int prb, int pcb, const int* ranks_b, void* b, int ldb, MPI_Comm comm, int layout_mode, char* err,
              int errlen) {
  try {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const Side<T> sa{mba, nba, pra, pca, ranks_a, static_cast<T*>(const_cast<void*>(a)), lda};
    const Side<T> sb{mbb, nbb, prb, pcb, ranks_b, static_cast<T*>(b), ldb};
    auto la = layout_of<T>(m, n, sa, me, layout_mode == 1);
    auto lb = layout_of<T>(m, n, sb, me, layout_mode == 1);
    costa::transform<T>(la, lb, comm);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(err, static_cast<std::size_t>(errlen), "%s", e.what());
    return 1;
  }
}

}  // namespace

// B := A (m x n doubles) with costa::transform; collective over comm, which holds every
// rank of both grids (ranks outside a grid pass that grid's data as nullptr). layout_mode
// 0: block_cyclic_layout where the rank mapping allows (else custom_layout), 1: always
// custom_layout. Returns 0, or 1 with the error in err.
extern "C" int malleable_bench_costa_transform(int m, int n, int mba, int nba, int pra, int pca, const int* ranks_a,
                                               const double* a, int lda, int mbb, int nbb, int prb, int pcb,
                                               const int* ranks_b, double* b, int ldb, MPI_Comm comm,
                                               int layout_mode, char* err, int errlen) {
  return transform<double>(m, n, mba, nba, pra, pca, ranks_a, a, lda, mbb, nbb, prb, pcb, ranks_b, b, ldb, comm,
                           layout_mode, err, errlen);
}

// The same for float, complex float and complex double (malleable-redist-bench exec --type s|c|z).
#define MALL_COSTA_TYPED(suffix, T)                                                                                  \
  extern "C" int malleable_bench_costa_transform_##suffix(int m, int n, int mba, int nba, int pra, int pca,        \
                                                          const int* ranks_a, const void* a, int lda, int mbb,     \
                                                          int nbb, int prb, int pcb, const int* ranks_b, void* b,  \
                                                          int ldb, MPI_Comm comm, int layout_mode, char* err,      \
                                                          int errlen) {                                            \
    return transform<T>(m, n, mba, nba, pra, pca, ranks_a, a, lda, mbb, nbb, prb, pcb, ranks_b, b, ldb, comm,       \
                        layout_mode, err, errlen);                                                                 \
  }
MALL_COSTA_TYPED(s, float)
MALL_COSTA_TYPED(d, double)
MALL_COSTA_TYPED(c, std::complex<float>)
MALL_COSTA_TYPED(z, std::complex<double>)
