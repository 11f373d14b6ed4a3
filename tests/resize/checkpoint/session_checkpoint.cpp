// SPDX-License-Identifier: BSD-3-Clause
// Session::checkpoint / Session::restart for s, d, c and z matrices in block-cyclic,
// block and extended-descriptor layouts. Modes:
//   write FILE          (4 processes) 2x2, two iterations, then one checkpoint (refused: exit 3)
//   read FILE PxQ       restart on PxQ: every element, the state and the iteration exact
//   wrong FILE          restart with matrix Z registered as complex float: refused
//   corrupt FILE NAME   (1 process, serial HDF5) changes element (1, 1) of matrix NAME
// Prints PASS or FAILED lines.
#include <hdf5.h>
#include <mpi.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/resize/session.hpp"
#include "layout_test_util.hpp"

namespace {

double value(int tag, std::int64_t i, std::int64_t j) { return tag * 1000.0 + static_cast<double>(i) + 0.001 * static_cast<double>(j) + 1.0 / 3.0; }
template <class T> T make(int tag, std::int64_t i, std::int64_t j);
template <> float make<float>(int t, std::int64_t i, std::int64_t j) { return static_cast<float>(value(t, i, j)); }
template <> double make<double>(int t, std::int64_t i, std::int64_t j) { return value(t, i, j); }
template <> std::complex<float> make<std::complex<float>>(int t, std::int64_t i, std::int64_t j) {
  return {static_cast<float>(value(t, i, j)), static_cast<float>(-value(t, j, i))};
}
template <> std::complex<double> make<std::complex<double>>(int t, std::int64_t i, std::int64_t j) {
  return {value(t, i, j), -value(t, j, i)};
}

using test_util::each;
using test_util::from_desc;
using test_util::sizes;

struct Job {
  int ds[9]{}, dd[9]{}, dc[9]{};
  std::vector<float> s;
  std::vector<double> d;
  std::vector<std::complex<float>> c;
  std::vector<std::complex<double>> z;
  std::vector<std::complex<float>> zwrong;
  int lldz = 1;
  std::string state = "application state 42";

  void setup(resize::Session& S, bool wrong) {
    S.set_app_state([this] { return std::vector<char>(state.begin(), state.end()); },
                    [this](const std::vector<char>& b) { state.assign(b.begin(), b.end()); });
    S.register_matrix("S", 37, 29, 4, 3, resize::Distribution::BlockCyclic, ds, s);
    S.register_matrix("D", 40, 33, 1, 1, resize::Distribution::Block, dd, d);
    S.register_matrix("C", 23, 31, 5, 2, resize::Distribution::BlockCyclic, dc, c);
    if (wrong)
      S.register_matrix_blocks("Z", 41, 26, sizes, zwrong, &lldz);
    else
      S.register_matrix_blocks("Z", 41, 26, sizes, z, &lldz);
  }
  redist::Layout zlayout(const resize::Grid& g) const {
    std::vector<long long> r, c;
    sizes(g, r, c);
    return redist::Layout::from_blocks(std::vector<std::int64_t>(r.begin(), r.end()), std::vector<std::int64_t>(c.begin(), c.end()),
                                       g.nprow, g.npcol, 0, 0, g.rank_map());
  }
  template <class T, class F>
  void over(resize::Session& S, std::vector<T>& v, const redist::Layout& l, std::int64_t lld, int tag, F&& f) {
    each(l, lld, S.world_rank(), [&](std::int64_t k, std::int64_t i, std::int64_t j) { f(v[static_cast<std::size_t>(k)], make<T>(tag, i, j)); });
  }
  template <class F>
  void all(resize::Session& S, F&& f) {
    const auto& g = S.grid();
    over(S, s, from_desc(ds, g), ds[8], 1, f);
    over(S, d, from_desc(dd, g), dd[8], 2, f);
    over(S, c, from_desc(dc, g), dc[8], 3, f);
    over(S, z, zlayout(g), lldz, 4, f);
  }
};

resize::Grid parse(const std::string& t) {
  const auto x = t.find('x');
  return resize::Grid{std::stoi(t.substr(0, x)), std::stoi(t.substr(x + 1)), {}};
}

int corrupt(const std::string& file, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) return 1;
  const hid_t ds = H5Dopen2(f, ("matrices/" + name).c_str(), H5P_DEFAULT);
  const hid_t fs = H5Dget_space(ds);
  const hsize_t start[2] = {1, 1}, count[2] = {1, 1}, one = 1;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr);
  const hid_t ms = H5Screate_simple(1, &one, nullptr);
  const hid_t t = H5Dget_type(ds);
  unsigned char buf[16] = {};
  H5Dread(ds, t, ms, fs, H5P_DEFAULT, buf);
  buf[0] ^= 1;  // the last bit of the mantissa (little-endian)
  const herr_t rc = H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, buf);
  H5Tclose(t);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  H5Fclose(f);
  std::printf("%s: element (1,1) of %s changed\n", rc < 0 ? "FAILED" : "corrupted", name.c_str());
  return rc < 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "", file = argc > 2 ? argv[2] : "";
  if (mode == "corrupt") {
    const int rc = corrupt(file, argc > 3 ? argv[3] : "D");
    MPI_Finalize();
    return rc;
  }
  int rc = 0;
  {
    resize::SessionOptions o;
    o.app = "sdcz";
    o.progress = false;
    o.persist_history = false;
    resize::Session S(argc, argv, std::move(o));
    Job job;
    job.setup(S, mode == "wrong");
    if (mode == "write") {
      S.start(resize::Grid{2, 2, {}});
      job.all(S, [](auto& x, auto want) { x = want; });
      for (int k = 0; k < 2; ++k) {
        S.begin_iteration();
        S.end_iteration();
      }
      try {
        S.checkpoint(file);
        if (S.world_rank() == 0) std::printf("PASS: written %s\n", file.c_str());
      } catch (const resize::Error& e) {
        std::printf("refused (rank %d): %s\n", S.world_rank(), e.what());
        rc = 3;
      }
    } else {
      const resize::Grid g = parse(argc > 3 ? argv[3] : "2x2");
      try {
        job.state.clear();
        const int it = S.restart(file, g);
        long long bad = 0, total = 0;
        job.all(S, [&](auto& x, auto want) {
          bad += std::memcmp(&x, &want, sizeof want) != 0;
          ++total;
        });
        long long loc[2] = {bad, total}, sum[2] = {0, 0};
        MPI_Allreduce(loc, sum, 2, MPI_LONG_LONG, MPI_SUM, S.world());
        const bool ok = sum[0] == 0 && sum[1] == 37 * 29 + 40 * 33 + 23 * 31 + 41 * 26 && it == 2 &&
                        job.state == "application state 42";
        if (S.world_rank() == 0)
          std::printf("%s: restart on %s: %lld of %lld elements differ, iteration %d, state '%s'\n",
                      ok ? "PASS" : "FAILED", g.shape().c_str(), sum[0], sum[1], it, job.state.c_str());
        rc = ok ? 0 : 1;
      } catch (const resize::Error& e) {
        std::printf("refused (rank %d): %s\n", S.world_rank(), e.what());
        rc = 3;
      }
    }
  }
  MPI_Finalize();
  return rc;
}
