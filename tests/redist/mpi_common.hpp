// SPDX-License-Identifier: BSD-3-Clause
// Shared helpers of the redist MPI tests: BLACS grids on a communicator, deterministic
// matrix contents, ScaLAPACK's PxGEMR2D for each element type.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/scalapack_api.h"

namespace redist_test {

// This process's rank in MPI_COMM_WORLD and the world's size (the tests' ranks).
inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &r);
  return r;
}

// Bits of a value that depends only on the global position, so every rank can say what
// any element of the global matrix is (the oracle) and no two elements look alike.
inline double value_at(std::int64_t i, std::int64_t j, int salt) {
  std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^
                    (static_cast<std::uint64_t>(j) + 0x1234567ull * static_cast<std::uint64_t>(salt + 1)) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  return static_cast<double>(h % 1000000007ull) / 7.0 - 5e7;
}
template <class T> T make(std::int64_t i, std::int64_t j);
template <> inline double make<double>(std::int64_t i, std::int64_t j) { return value_at(i, j, 0); }
template <> inline float make<float>(std::int64_t i, std::int64_t j) { return static_cast<float>(value_at(i, j, 0)); }
template <> inline std::complex<double> make<std::complex<double>>(std::int64_t i, std::int64_t j) {
  return {value_at(i, j, 0), value_at(i, j, 1)};
}
template <> inline std::complex<float> make<std::complex<float>>(std::int64_t i, std::int64_t j) {
  return {static_cast<float>(value_at(i, j, 0)), static_cast<float>(value_at(i, j, 1))};
}
template <class T> T sentinel() { return T(-12345.0f); }

// Local column-major array of `l` on `rank` (empty if not in the grid), with lld >= rows.
template <class T>
struct LocalMatrix {
  std::vector<T> data;
  std::int64_t rows = 0, cols = 0, ld = 1;
  bool in_grid = false;
};

template <class T>
LocalMatrix<T> fill_local(const redist::Layout& l, int rank, bool with_values, std::int64_t extra_ld = 0) {
  LocalMatrix<T> x;
  int pr = 0, pc = 0;
  if (!l.coords_of(rank, pr, pc)) return x;
  x.in_grid = true;
  x.rows = l.local_rows(pr);
  x.cols = l.local_cols(pc);
  x.ld = std::max<std::int64_t>(1, x.rows) + extra_ld;
  x.data.assign(static_cast<std::size_t>(x.ld * std::max<std::int64_t>(1, x.cols)), sentinel<T>());
  if (with_values) {
    const auto ra = l.row_axis(), ca = l.col_axis();
    for (std::int64_t jl = 0; jl < x.cols; ++jl)
      for (std::int64_t il = 0; il < x.rows; ++il)
        x.data[static_cast<std::size_t>(jl * x.ld + il)] = make<T>(ra.to_global(pr, il), ca.to_global(pc, jl));
  }
  return x;
}

// A BLACS grid whose process (pr, pc) is communicator rank ranks[pr*npcol+pc]
// (Cblacs_gridmap's usermap is column-major). Collective over the system context.
class BlacsGrid {
 public:
  BlacsGrid(int sys, const redist::Layout& l) {
    std::vector<int> usermap(static_cast<std::size_t>(l.nprow * l.npcol));
    for (int pr = 0; pr < l.nprow; ++pr)
      for (int pc = 0; pc < l.npcol; ++pc) usermap[static_cast<std::size_t>(pr + pc * l.nprow)] = l.rank_at(pr, pc);
    ctxt_ = sys;
    Cblacs_gridmap(&ctxt_, usermap.data(), l.nprow, l.nprow, l.npcol);
  }
  ~BlacsGrid() {
    if (ctxt_ >= 0) Cblacs_gridexit(ctxt_);
  }
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;
  int ctxt() const { return ctxt_; }  // -1 where this process is not in the grid

 private:
  int ctxt_ = -1;
};

inline void pxgemr2d(int m, int n, const double* a, int ia, int ja, const int* da, double* b, int ib, int jb,
                     const int* db, int ctxt) {
  Cpdgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctxt);
}
inline void pxgemr2d(int m, int n, const float* a, int ia, int ja, const int* da, float* b, int ib, int jb,
                     const int* db, int ctxt) {
  Cpsgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctxt);
}
inline void pxgemr2d(int m, int n, const std::complex<double>* a, int ia, int ja, const int* da,
                     std::complex<double>* b, int ib, int jb, const int* db, int ctxt) {
  Cpzgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctxt);
}
inline void pxgemr2d(int m, int n, const std::complex<float>* a, int ia, int ja, const int* da,
                     std::complex<float>* b, int ib, int jb, const int* db, int ctxt) {
  Cpcgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, ctxt);
}

}  // namespace redist_test
