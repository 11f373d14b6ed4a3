// SPDX-License-Identifier: BSD-3-Clause
// resize::Matrix<T> handles (Session::register_matrix<T>) through an
// expansion 2x2 -> 2x3 (two spawned processes) and a shrink back to 2x2: one matrix per
// element type (float, double, complex<float>, complex<double>) and distribution (block-
// cyclic MB x NB, block), plus an extended-descriptor matrix with uneven blocks. After
// start, the expansion and the shrink every process checks, for every matrix:
//   - every local element, bit for bit, against a formula of its global indices
//     (for_each_local), and the local parts add up to M x N over the world;
//   - the descriptor (context of the current grid, M, N, MB x NB, lld >= local rows) and
//     that data()/lld()/local_rows()/local_cols() agree with numroc;
//   - at(i, j) on the owner is the element at (local_row(i), local_col(j)), global_row/
//     global_col invert local_row/local_col, and at(i, j) on a non-owner throws
//     resize::Error naming the matrix;
//   - register_matrix and make_desc refuse Distribution::Extended (before start).
// Any difference ends the job with a non-zero status. Prints PASS on world rank 0.
//   mpiexec -n 4 session_matrix_handle
#include <mpi.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/resize/session.hpp"
#include "session_test_util.hpp"

extern "C" int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);

namespace {

// Full-mantissa values, different for every (i, j) and every matrix (k).
template <class T>
T entry(int k, int i, int j) {
  const double a = 1.0 / (1.0 + i + 97.0 * j + 13.0 * k), b = -0.5 * i + 1.0 / (j + 2.0 + k);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return static_cast<T>(a + b);
  else return T(static_cast<typename T::value_type>(a), static_cast<typename T::value_type>(b));
}

void uneven(long long total, int parts, std::vector<long long>& out) {
  out.assign(static_cast<std::size_t>(parts), 0);
  const long long weight = static_cast<long long>(parts) * (parts + 1) / 2;
  long long given = 0;
  for (int k = 0; k < parts; ++k) given += out[static_cast<std::size_t>(k)] = total * (k + 1) / weight;
  out.back() += total - given;
}

struct Checker {
  resize::Session& s;
  std::string phase;
  long long errors = 0;

  void fail(const std::string& what) {
    if (++errors <= 8) std::fprintf(stderr, "%s: rank %d: %s\n", phase.c_str(), s.world_rank(), what.c_str());
  }

  template <class T>
  void check(resize::Matrix<T>& a, int k) {
    const std::string nm = "matrix " + a.name();
    long long local = 0;
    a.for_each_local([&](int i, int j, T& v) {
      const T want = entry<T>(k, i, j);
      if (std::memcmp(&v, &want, sizeof(T)) != 0) fail(nm + " (" + std::to_string(i) + ", " + std::to_string(j) + ") differs");
      ++local;
    });
    if (s.in_grid()) {
      const int ml = a.local_rows(), nl = a.local_cols();
      if (local != static_cast<long long>(ml) * nl) fail(nm + ": for_each_local visited a wrong count");
      if (a.lld() < std::max(1, ml) || a.size() < static_cast<std::size_t>(a.lld()) * static_cast<std::size_t>(nl))
        fail(nm + ": lld " + std::to_string(a.lld()) + " or buffer " + std::to_string(a.size()) + " too small");
      if (!a.extended()) {
        const int* d = a.desc();
        const int zero = 0, nprow = s.grid().nprow, npcol = s.grid().npcol, myrow = s.myrow(), mycol = s.mycol();
        if (d[1] != s.context() || d[2] != a.rows() || d[3] != a.cols() || d[8] != a.lld() ||
            numroc_(&d[2], &d[4], &myrow, &zero, &nprow) != ml || numroc_(&d[3], &d[5], &mycol, &zero, &npcol) != nl)
          fail(nm + ": descriptor and local sizes disagree with numroc");
      } else {
        bool threw = false;
        try {
          (void)a.desc();
        } catch (const resize::Error&) {
          threw = true;
        }
        if (!threw) fail(nm + ": desc() of an extended-descriptor matrix did not throw");
        std::vector<long long> rows, cols;
        uneven(a.rows(), s.grid().nprow, rows);
        uneven(a.cols(), s.grid().npcol, cols);
        if (a.row_blocks() != std::vector<std::int64_t>(rows.begin(), rows.end()) ||
            a.col_blocks() != std::vector<std::int64_t>(cols.begin(), cols.end()))
          fail(nm + ": row_blocks/col_blocks are not the grid's block sizes");
      }
      // Global access on the owner, the inverse maps, and a refusal off the owner.
      bool refused = false, tried = false;
      for (int j = 0; j < a.cols(); j += 3)
        for (int i = 0; i < a.rows(); i += 2) {
          if (a.owns(i, j)) {
            const int il = a.local_row(i), jl = a.local_col(j);
            if (&a.at(i, j) != &a.local(il, jl) || &a(i, j) != &a.at(i, j) || a.global_row(il) != i ||
                a.global_col(jl) != j)
              fail(nm + ": at/local/global maps disagree at (" + std::to_string(i) + ", " + std::to_string(j) + ")");
          } else if (!tried) {
            tried = true;
            try {
              (void)a.at(i, j);
            } catch (const resize::Error& e) {
              refused = std::string(e.what()).find(a.name()) != std::string::npos;
            }
            if (!refused) fail(nm + ": at() on a non-owner did not throw an error naming the matrix");
          }
        }
    } else if (local != 0 || a.local_rows() != 0) {
      fail(nm + ": a process off the grid holds elements");
    }
    long long all = 0;
    MPI_Allreduce(&local, &all, 1, MPI_LONG_LONG, MPI_SUM, s.world());
    if (all != static_cast<long long>(a.rows()) * a.cols())
      fail(nm + ": the local parts hold " + std::to_string(all) + " elements");
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    resize::SessionOptions o;
    o.app = "session_matrix_handle";
    o.resize_timeout = 120;
    o.persist_history = false;
    resize::Session s(argc, argv, std::move(o));
    using resize::Distribution;
    auto fc = s.register_matrix<float>("Fc", 37, 29, 4, 3);
    auto dc = s.register_matrix<double>("Dc", 50, 23, 5, 7, Distribution::BlockCyclic);
    auto cc = s.register_matrix<std::complex<float>>("Cc", 31, 41, 2, 5);
    auto zc = s.register_matrix<std::complex<double>>("Zc", 45, 38, 8, 2);
    auto fb = s.register_matrix<float>("Fb", 33, 26, 1, 1, Distribution::Block);
    auto db = s.register_matrix<double>("Db", 29, 40, 1, 1, Distribution::Block);
    auto cb = s.register_matrix<std::complex<float>>("Cb", 44, 21, 1, 1, Distribution::Block);
    auto zb = s.register_matrix<std::complex<double>>("Zb", 25, 35, 1, 1, Distribution::Block);
    auto xe = s.register_matrix<double>("Xe", 34, 27, [](const resize::Grid& g, std::vector<long long>& r,
                                                          std::vector<long long>& c) {
      uneven(34, g.nprow, r);
      uneven(27, g.npcol, c);
    });
    // Distribution::Extended is a matrix registered with its block sizes: the uniform
    // registration and make_desc refuse it, naming register_matrix_blocks.
    for (int k = 0; k < 2; ++k) {
      std::string said;
      try {
        if (k == 0) (void)s.register_matrix<double>("Ex", 10, 10, 2, 2, Distribution::Extended);
        else {
          int d[9];
          s.make_desc(10, 10, 2, 2, Distribution::Extended, d);
        }
      } catch (const resize::Error& e) {
        said = e.what();
      }
      if (said.find("register_matrix_blocks") == std::string::npos) {
        std::fprintf(stderr, "session_matrix_handle: FAILED: %s with Distribution::Extended was not refused (%s)\n",
                     k == 0 ? "register_matrix" : "make_desc", said.c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    bool threw = false;
    try {
      (void)fc.at(0, 0);  // before start: nobody owns anything
    } catch (const resize::Error&) {
      threw = true;
    }
    if (!threw) {
      std::fprintf(stderr, "session_matrix_handle: FAILED: at() before start did not throw\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }

    Checker chk{s, {}, 0};
    const auto check_all = [&](const std::string& phase) {
      chk.phase = phase + " (" + s.grid().shape() + ")";
      chk.check(fc, 0);
      chk.check(dc, 1);
      chk.check(cc, 2);
      chk.check(zc, 3);
      chk.check(fb, 4);
      chk.check(db, 5);
      chk.check(cb, 6);
      chk.check(zb, 7);
      chk.check(xe, 8);
      session_test::all_right(s, chk.errors, "session_matrix_handle", chk.phase, "errors", "every element and map right");
    };
    const auto require = [&](const resize::RemapResult& r, int procs, const char* what) {
      session_test::reached(s, r, procs, "session_matrix_handle", what);
    };
    if (s.is_newcomer()) {
      s.join();
    } else {
      s.start(resize::Grid{2, 2, {}});
      const auto fill = [](auto& a, int k) {
        a.for_each_local([k](int i, int j, auto& v) { v = entry<std::decay_t<decltype(v)>>(k, i, j); });
      };
      fill(fc, 0), fill(dc, 1), fill(cc, 2), fill(zc, 3), fill(fb, 4), fill(db, 5), fill(cb, 6), fill(zb, 7);
      fill(xe, 8);
      check_all("after start");
      require(s.resize_now(session_test::decision(resize::Action::Expand, 6, 2, 3)), 6, "the expansion");
    }
    check_all("after the expansion");
    require(s.resize_now(session_test::decision(resize::Action::Shrink, 4, 2, 2)), 4, "the shrink");
    check_all("after the shrink");
    if (s.world_rank() == 0) std::printf("PASS\n");
  }
  MPI_Finalize();
  return 0;
}
