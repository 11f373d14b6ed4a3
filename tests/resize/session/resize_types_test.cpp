// SPDX-License-Identifier: BSD-3-Clause
// The session registers and moves float, double, complex<float> and complex<double>
// matrices (redist moves s/d/c/z, so must the session), bit for bit, at an
// expansion 2x2 -> 2x3 (two spawned processes) and a shrink back to 2x2, with the mover
// named by argv[1] (redist, the default, or pdgemr2d). Every matrix has its own size,
// block size and distribution; one is an extended-descriptor (register_matrix_blocks)
// matrix. After start, the expansion and the shrink every process compares every local
// element with a formula of its global indices (memcmp: bit-identical) and the local
// sizes must add up to M x N; any difference ends the job with a non-zero status.
// With a second argument "mismatch" the spawned processes register S as double: the
// newcomers must refuse to join (the job then ends with the message).
//   mpiexec -n 4 resize_types_test [redist|pdgemr2d] [mismatch]
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "malleable/resize/session.hpp"
#include "session_test_util.hpp"

extern "C" int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);

namespace {

// Values with full mantissas (quotients, square roots), different for every (i, j) and
// every matrix, computed the same way on every process.
double d_entry(int i, int j) { return 1.0 / (1.0 + i + 97.0 * j) - 0.001 * j; }
float s_entry(int i, int j) { return 1.0f / (3.0f + static_cast<float>(i) + 51.0f * static_cast<float>(j)); }
std::complex<float> c_entry(int i, int j) {
  return {1.0f / (1.0f + static_cast<float>(i + j)), -static_cast<float>(i) - 0.25f * static_cast<float>(j)};
}
std::complex<double> z_entry(int i, int j) { return {std::sqrt(i + 2.0) + j, 1.0 / (j + 1.0) - i}; }
std::complex<float> blocks_entry(int i, int j) {
  return {static_cast<float>(i) + 0.5f, 1.0f / (7.0f + static_cast<float>(j) * static_cast<float>(i + 1))};
}

// Row and column blocks of the extended-descriptor matrix: block k is (k + 1) parts of
// the dimension, so every grid gives uneven blocks.
void uneven(long long total, int parts, std::vector<long long>& out) {
  out.assign(static_cast<std::size_t>(parts), 0);
  const long long weight = static_cast<long long>(parts) * (parts + 1) / 2;
  long long given = 0;
  for (int k = 0; k < parts; ++k) {
    out[static_cast<std::size_t>(k)] = total * (k + 1) / weight;
    given += out[static_cast<std::size_t>(k)];
  }
  out.back() += total - given;
}

int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

struct Checker {
  resize::Session& s;
  std::string phase;
  long long errors = 0;

  void count(const std::string& name, long long m, long long n, long long local) {
    long long all = 0;
    MPI_Allreduce(&local, &all, 1, MPI_LONG_LONG, MPI_SUM, s.world());
    if (all != m * n) {
      if (s.world_rank() == 0)
        std::fprintf(stderr, "%s: matrix %s: the local parts hold %lld elements, M x N = %lld\n", phase.c_str(),
                     name.c_str(), all, m * n);
      ++errors;
    }
  }

  // A descriptor-described matrix: local (il, jl) is global (global_index(il), ...).
  template <class T, class F>
  void desc_matrix(const std::string& name, const int* desc, const std::vector<T>& buf, F entry) {
    long long local = 0;
    if (s.in_grid()) {
      const int zero = 0, nprow = s.grid().nprow, npcol = s.grid().npcol, myrow = s.myrow(), mycol = s.mycol();
      const int ml = numroc_(&desc[2], &desc[4], &myrow, &zero, &nprow);
      const int nl = numroc_(&desc[3], &desc[5], &mycol, &zero, &npcol);
      if (desc[1] != s.context() || desc[8] < std::max(1, ml) ||
          buf.size() < static_cast<std::size_t>(desc[8]) * static_cast<std::size_t>(std::max(nl, 1))) {
        std::fprintf(stderr, "%s: rank %d: matrix %s: descriptor (ctxt %d, lld %d) or buffer (%zu) wrong\n",
                     phase.c_str(), s.world_rank(), name.c_str(), desc[1], desc[8], buf.size());
        ++errors;
        return;
      }
      for (int jl = 0; jl < nl; ++jl)
        for (int il = 0; il < ml; ++il) {
          const int i = global_index(il, desc[4], myrow, nprow), j = global_index(jl, desc[5], mycol, npcol);
          const T want = entry(i, j);
          if (std::memcmp(&buf[il + static_cast<std::size_t>(jl) * desc[8]], &want, sizeof(T)) != 0) {
            if (++errors <= 5)
              std::fprintf(stderr, "%s: rank %d: matrix %s (%d, %d) differs from the formula\n", phase.c_str(),
                           s.world_rank(), name.c_str(), i, j);
          }
        }
      local = static_cast<long long>(ml) * nl;
    }
    count(name, desc[2], desc[3], local);
  }

  template <class T, class F>
  void blocks_matrix(const std::string& name, int m, int n, const std::vector<T>& buf, int lld, F entry) {
    long long local = 0;
    if (s.in_grid()) {
      std::vector<long long> rows, cols;
      uneven(m, s.grid().nprow, rows);
      uneven(n, s.grid().npcol, cols);
      const auto r0 = std::accumulate(rows.begin(), rows.begin() + s.myrow(), 0LL);
      const auto c0 = std::accumulate(cols.begin(), cols.begin() + s.mycol(), 0LL);
      const auto ml = rows[static_cast<std::size_t>(s.myrow())], nl = cols[static_cast<std::size_t>(s.mycol())];
      if (lld < std::max(1LL, ml) || static_cast<long long>(buf.size()) < ml * nl) {
        std::fprintf(stderr, "%s: rank %d: matrix %s: lld %d or buffer %zu too small\n", phase.c_str(),
                     s.world_rank(), name.c_str(), lld, buf.size());
        ++errors;
        return;
      }
      for (long long jl = 0; jl < nl; ++jl)
        for (long long il = 0; il < ml; ++il) {
          const T want = entry(static_cast<int>(r0 + il), static_cast<int>(c0 + jl));
          if (std::memcmp(&buf[static_cast<std::size_t>(il + jl * lld)], &want, sizeof(T)) != 0 && ++errors <= 5)
            std::fprintf(stderr, "%s: rank %d: matrix %s (%lld, %lld) differs from the formula\n", phase.c_str(),
                         s.world_rank(), name.c_str(), r0 + il, c0 + jl);
        }
      local = ml * nl;
    }
    count(name, m, n, local);
  }
};

template <class T, class F>
void fill(const resize::Session& s, const int* desc, std::vector<T>& buf, F entry) {
  if (!s.in_grid()) return;
  const int zero = 0, nprow = s.grid().nprow, npcol = s.grid().npcol, myrow = s.myrow(), mycol = s.mycol();
  const int ml = numroc_(&desc[2], &desc[4], &myrow, &zero, &nprow);
  const int nl = numroc_(&desc[3], &desc[5], &mycol, &zero, &npcol);
  for (int jl = 0; jl < nl; ++jl)
    for (int il = 0; il < ml; ++il)
      buf[il + static_cast<std::size_t>(jl) * desc[8]] =
          entry(global_index(il, desc[4], myrow, nprow), global_index(jl, desc[5], mycol, npcol));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    resize::SessionOptions o;
    o.app = "resize_types_test";
    o.progress = true;
    o.resize_timeout = 120;
    if (argc > 1) o.mover = resize::parse_mover(argv[1]);
    resize::Session s(argc, argv, std::move(o));

    constexpr int kBm = 33, kBn = 27;
    int dd[9], ds[9], dc[9], dz[9], blld = 0;
    std::vector<double> d;
    std::vector<float> sf;
    std::vector<double> sf_wrong;  // "mismatch": a newcomer's S of the wrong type
    std::vector<std::complex<float>> c, cb;
    std::vector<std::complex<double>> z;
    s.register_matrix("D", 37, 29, 4, 3, resize::Distribution::BlockCyclic, dd, d);
    if (argc > 2 && std::string(argv[2]) == "mismatch" && s.is_newcomer())
      s.register_matrix("S", 50, 23, 5, 7, resize::Distribution::BlockCyclic, ds, sf_wrong);
    else
      s.register_matrix("S", 50, 23, 5, 7, resize::Distribution::BlockCyclic, ds, sf);
    s.register_matrix("C", 31, 41, 1, 1, resize::Distribution::Block, dc, c);
    s.register_matrix("Z", 45, 38, 8, 2, resize::Distribution::BlockCyclic, dz, z);
    s.register_matrix_blocks(
        "CB", kBm, kBn,
        [](const resize::Grid& g, std::vector<long long>& rows, std::vector<long long>& cols) {
          uneven(kBm, g.nprow, rows);
          uneven(kBn, g.npcol, cols);
        },
        cb, &blld);

    Checker chk{s, {}, 0};
    const auto check_all = [&](const std::string& phase) {
      chk.phase = phase + " (" + s.grid().shape() + ", " + s.mover_name() + ")";
      chk.desc_matrix("D", dd, d, d_entry);
      chk.desc_matrix("S", ds, sf, s_entry);
      chk.desc_matrix("C", dc, c, c_entry);
      chk.desc_matrix("Z", dz, z, z_entry);
      chk.blocks_matrix("CB", kBm, kBn, cb, blld, blocks_entry);
      session_test::all_right(s, chk.errors, "resize_types_test", chk.phase, "differences", "all elements exact");
    };
    const auto require = [&](const resize::RemapResult& r, int procs, const char* what) {
      session_test::reached(s, r, procs, "resize_types_test", what);
    };

    if (s.is_newcomer()) {
      s.join();
    } else {
      s.start(resize::Grid{2, 2, {}});
      fill(s, dd, d, d_entry);
      fill(s, ds, sf, s_entry);
      fill(s, dc, c, c_entry);
      fill(s, dz, z, z_entry);
      if (s.in_grid()) {
        std::vector<long long> rows, cols;
        uneven(kBm, 2, rows);
        uneven(kBn, 2, cols);
        const auto r0 = std::accumulate(rows.begin(), rows.begin() + s.myrow(), 0LL);
        const auto c0 = std::accumulate(cols.begin(), cols.begin() + s.mycol(), 0LL);
        for (long long jl = 0; jl < cols[static_cast<std::size_t>(s.mycol())]; ++jl)
          for (long long il = 0; il < rows[static_cast<std::size_t>(s.myrow())]; ++il)
            cb[static_cast<std::size_t>(il + jl * blld)] = blocks_entry(static_cast<int>(r0 + il), static_cast<int>(c0 + jl));
      }
      check_all("after start");
      require(s.resize_now(session_test::decision(resize::Action::Expand, 6, 2, 3)), 6, "the expansion");
    }
    check_all("after the expansion");
    require(s.resize_now(session_test::decision(resize::Action::Shrink, 4, 2, 2)), 4, "the shrink");  // the two newcomers leave inside
    check_all("after the shrink");
    if (s.world_rank() == 0) std::printf("PASS\n");
  }
  MPI_Finalize();
  return 0;
}
