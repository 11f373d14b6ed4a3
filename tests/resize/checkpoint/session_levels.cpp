// SPDX-License-Identifier: BSD-3-Clause
// checkpoint levels in node-local storage and the recovery from what survived,
// on one machine with emulated nodes (MALLEABLE_NODE_MAP). Matrices: float and double
// block-cyclic, complex double in an extended-descriptor layout; every element depends on
// the iteration, so the version recovered is checked element by element. Modes:
//   write DIR ITERS [GDIR]  every iteration: local level; every 2nd: local + partner;
//                           GDIR: also a global HDF5 checkpoint every 2nd iteration
//   read DIR PxQ IT [GDIR]  restart_from_levels onto PxQ: every element, the state and the
//                           iteration must be those of iteration IT
//   partner1 DIR            a partner level on one node: refused on every rank
// Prints PASS or FAILED lines; a refusal prints "refused (rank R): ..." and exits 3.
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

int g_iter = 0;  // the iteration the values belong to
double value(int tag, std::int64_t i, std::int64_t j) {
  return tag * 1000.0 + static_cast<double>(i) + 0.001 * static_cast<double>(j) + 1e5 * g_iter + 1.0 / 3.0;
}
template <class T> T make(int tag, std::int64_t i, std::int64_t j);
template <> float make<float>(int t, std::int64_t i, std::int64_t j) { return static_cast<float>(value(t, i, j) * 1e-3); }
template <> double make<double>(int t, std::int64_t i, std::int64_t j) { return value(t, i, j); }
template <> std::complex<double> make<std::complex<double>>(int t, std::int64_t i, std::int64_t j) {
  return {value(t, i, j), -value(t, j, i)};
}

using test_util::each;
using test_util::from_desc;
using test_util::sizes;

struct Job {
  int ds[9]{}, dd[9]{};
  std::vector<float> s;
  std::vector<double> d;
  std::vector<std::complex<double>> z;
  int lldz = 1;
  std::string state;

  void setup(resize::Session& S) {
    S.set_app_state([this] { return std::vector<char>(state.begin(), state.end()); },
                    [this](const std::vector<char>& b) { state.assign(b.begin(), b.end()); });
    S.register_matrix("S", 37, 29, 4, 3, resize::Distribution::BlockCyclic, ds, s);
    S.register_matrix("D", 50, 43, 3, 5, resize::Distribution::BlockCyclic, dd, d);
    S.register_matrix_blocks("Z", 41, 26, sizes, z, &lldz);
  }
  redist::Layout zlayout(const resize::Grid& g) const {
    std::vector<long long> r, c;
    sizes(g, r, c);
    return redist::Layout::from_blocks(std::vector<std::int64_t>(r.begin(), r.end()),
                                       std::vector<std::int64_t>(c.begin(), c.end()), g.nprow, g.npcol, 0, 0,
                                       g.rank_map());
  }
  template <class T, class F>
  void over(resize::Session& S, std::vector<T>& v, const redist::Layout& l, std::int64_t lld, int tag, F&& f) {
    each(l, lld, S.world_rank(),
         [&](std::int64_t k, std::int64_t i, std::int64_t j) { f(v[static_cast<std::size_t>(k)], make<T>(tag, i, j)); });
  }
  template <class F>
  void all(resize::Session& S, F&& f) {
    const auto& g = S.grid();
    over(S, s, from_desc(ds, g), ds[8], 1, f);
    over(S, d, from_desc(dd, g), dd[8], 2, f);
    over(S, z, zlayout(g), lldz, 4, f);
  }
};

resize::Grid parse(const std::string& t) {
  const auto x = t.find('x');
  return resize::Grid{std::stoi(t.substr(0, x)), std::stoi(t.substr(x + 1)), {}};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "", dir = argc > 2 ? argv[2] : "";
  int rc = 0;
  {
    resize::SessionOptions o;
    o.app = "levels";
    o.progress = true;
    o.persist_history = false;
    resize::Session S(argc, argv, std::move(o));
    Job job;
    job.setup(S);
    try {
      if (mode == "write" || mode == "partner1") {
        const int iters = mode == "write" && argc > 3 ? std::stoi(argv[3]) : 2;
        const std::string gdir = argc > 4 ? argv[4] : "";
        int P = 1, Q = S.world_size();
        for (int p = 1; p * p <= S.world_size(); ++p)
          if (S.world_size() % p == 0) P = p, Q = S.world_size() / p;
        S.start(resize::Grid{P, Q, {}});
        resize::LevelCadence c;
        c.dir = dir;
        c.local_every = "1";
        c.partner_every = "2";
        c.keep = 2;
        S.set_level_checkpointing(c);
        for (int it = 1; it <= iters; ++it) {
          S.begin_iteration();
          g_iter = it;
          job.all(S, [](auto& x, auto want) { x = want; });
          job.state = "state of iteration " + std::to_string(it);
          S.end_iteration();
          if (mode == "partner1" && it == 2)
            S.checkpoint_levels(true);  // asked for explicitly: refused on one node
          else
            S.level_checkpoint_if_due();
          if (!gdir.empty() && it % 2 == 0) S.checkpoint_in(gdir, 0);
        }
        if (S.world_rank() == 0) {
          const auto& r = S.level_records();
          std::printf("PASS: %d iterations on %dx%d, %zu level checkpoints, the last %lld bytes on the busiest node\n",
                      iters, P, Q, r.size(), r.empty() ? 0LL : static_cast<long long>(r.back().node_bytes));
        }
      } else if (mode == "read") {
        const resize::Grid g = parse(argc > 3 ? argv[3] : "2x2");
        const int want = argc > 4 ? std::stoi(argv[4]) : -1;
        const std::string gdir = argc > 5 ? argv[5] : "";
        const int it = S.restart_from_levels(dir, g, gdir);
        g_iter = want;
        long long bad = 0, total = 0;
        job.all(S, [&](auto& x, auto w) {
          bad += std::memcmp(&x, &w, sizeof w) != 0;
          ++total;
        });
        long long loc[2] = {bad, total}, sum[2] = {0, 0};
        MPI_Allreduce(loc, sum, 2, MPI_LONG_LONG, MPI_SUM, S.world());
        const bool ok = sum[0] == 0 && sum[1] == 37 * 29 + 50 * 43 + 41 * 26 && it == want &&
                        job.state == "state of iteration " + std::to_string(want);
        if (S.world_rank() == 0)
          std::printf("%s: restart from levels on %s: %lld of %lld elements differ, iteration %d (expected %d), "
                      "state '%s'\n",
                      ok ? "PASS" : "FAILED", g.shape().c_str(), sum[0], sum[1], it, want, job.state.c_str());
        rc = ok ? 0 : 1;
      } else {
        if (S.world_rank() == 0) std::printf("FAILED: unknown mode '%s'\n", mode.c_str());
        rc = 2;
      }
    } catch (const resize::Error& e) {
      std::printf("refused (rank %d): %s\n", S.world_rank(), e.what());
      std::fflush(stdout);
      rc = 3;
    }
  }
  MPI_Finalize();
  return rc;
}
