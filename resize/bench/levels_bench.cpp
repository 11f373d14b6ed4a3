// SPDX-License-Identifier: BSD-3-Clause
// Cost of the checkpoint levels beside a raw memcpy of the same bytes and
// the global parallel HDF5 checkpoint of the same matrix, measured side by side in one run:
// an N x N double matrix in NB x NB blocks on a PxQ grid; each repetition times (slowest
// process, after a barrier) a memcpy of each process's local matrix into a buffer
// allocated for it (fresh pages, as a new file in /dev/shm gets) and into one already
// touched, the local level, the local + partner level, and the global checkpoint; the
// levels' first checkpoints (which create their files) before that, timed on their own.
// Nodes: as the session finds them (MALLEABLE_NODE_MAP emulates several on one machine).
// Prints one line per measurement (median of the repetitions) and the ratios.
// Usage: malleable-resize-bench levels N NB PxQ LEVEL_DIR GLOBAL_DIR [repeats]
#include "cases.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "malleable/redist/node_map.hpp"
#include "malleable/resize/session.hpp"
#include "bench_timing.hpp"

using resize_bench::median;
using resize_bench::timed;

namespace {

}  // namespace

// The case `levels` of malleable-resize-bench (main.cpp): argv[0] is the case's name.
int resize::bench::case_levels(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 6) {
    std::fprintf(stderr, "usage: malleable-resize-bench levels N NB PxQ LEVEL_DIR GLOBAL_DIR [repeats]\n");
    MPI_Finalize();
    return 2;
  }
  const int n = std::stoi(argv[1]), nb = std::stoi(argv[2]);
  const std::string grid = argv[3], ldir = argv[4], gdir = argv[5];
  const int reps = argc > 6 ? std::stoi(argv[6]) : 5;
  const int P = std::stoi(grid.substr(0, grid.find('x'))), Q = std::stoi(grid.substr(grid.find('x') + 1));
  {
    resize::Session S(argc, argv, resize_bench::quiet_options("levels_bench"));
    int desc[9];
    std::vector<double> a;
    S.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, desc, a);
    S.start(resize::Grid{P, Q, {}});
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k % 1000) * 0.5 + S.world_rank();
    resize::LevelCadence c;
    c.dir = ldir;
    c.keep = 2;  // the default: the oldest version's pages are reused in place (levels/write.cpp)
    S.set_level_checkpointing(c);
    const std::size_t bytes = a.size() * sizeof(double);
    std::vector<double> ring_recv;  // this process's receives in each ring transfer
    std::vector<double> t_fresh, t_warm, t_warm_all, t_local, t_partner, t_global, t_ring;
    // The raw transfer the partner level makes: every process sends its bytes to the same
    // local index one node further (processes per node: MALLEABLE_NODE_MAP=every=K, else
    // the ranks on this host), measured beside the level as its practical bound.
    int ppn = 1;
    if (const char* m = std::getenv("MALLEABLE_NODE_MAP"); m && std::string(m).rfind("every=", 0) == 0) {
      ppn = std::stoi(std::string(m).substr(6));
    } else {
      ppn = static_cast<int>(redist::node_ranks(S.world()).size());  // by host name: works on a merged world
    }
    const int np = S.world_size(), me = S.world_rank();
    const int ring_to = (me + ppn) % np, ring_from = (me - ppn + np) % np;
    unsigned long long mine_len = bytes, their_len = 0;  // processes hold different block counts
    MPI_Sendrecv(&mine_len, 1, MPI_UNSIGNED_LONG_LONG, ring_to, 8, &their_len, 1, MPI_UNSIGNED_LONG_LONG, ring_from, 8,
                 S.world(), MPI_STATUS_IGNORE);
    std::vector<char> inbox(np > ppn ? static_cast<std::size_t>(their_len) : 0);
    auto pieces_of = [](std::size_t n) { return (n + (4 << 20) - 1) / (4 << 20); };
    std::vector<char> warm(bytes, 1);
    // The first `keep` checkpoints of each level create their files (the later ones
    // overwrite the oldest version in place, its pages mapped and touched): made before
    // the timed repetitions, the first of each timed on its own.
    double first_local = 0, first_partner = 0;
    bool one_node = false;
    for (int k = 0; k < c.keep; ++k) {
      S.begin_iteration();
      S.end_iteration();
      const double tl = timed(S.world(), [&] { S.checkpoint_levels(false); });
      if (k == 0) first_local = tl;
      S.begin_iteration();
      S.end_iteration();
      try {
        const double tp = timed(S.world(), [&] { S.checkpoint_levels(true); });
        if (k == 0) first_partner = tp;
      } catch (const resize::CheckpointFailed&) {
        one_node = true;
      }
    }
    for (int r = 0; r < reps; ++r) {
      S.begin_iteration();
      S.end_iteration();
      t_fresh.push_back(timed(S.world(), [&] {
        // Pages the kernel zeroes on first touch, whatever malloc's threshold (a vector of
        // 14 MB reuses freed heap pages once glibc raised its mmap threshold).
        void* fresh = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (fresh == MAP_FAILED) throw std::bad_alloc();
        std::memcpy(fresh, a.data(), bytes);
        munmap(fresh, bytes);
      }));
      t_warm.push_back(timed(S.world(), [&] { std::memcpy(warm.data(), a.data(), bytes); }));
      // The same until every process has copied (a barrier after it, as the level ends
      // with its collectives): with more processes than cores, they take turns.
      t_warm_all.push_back(timed(S.world(), [&] {
        std::memcpy(warm.data(), a.data(), bytes);
        MPI_Barrier(S.world());
      }));
      t_local.push_back(timed(S.world(), [&] { S.checkpoint_levels(false); }));
      // The partner level at the next iteration (as a job's cadence has it: one level per
      // iteration), so that it does not replace the version just written.
      S.begin_iteration();
      S.end_iteration();
      try {  // one node: no partner level (refused on every process alike)
        t_partner.push_back(timed(S.world(), [&] { S.checkpoint_levels(true); }));
      } catch (const resize::CheckpointFailed&) {
      }
      t_global.push_back(timed(S.world(), [&] { S.checkpoint_in(gdir, 1); }));
      if (np > ppn)
        t_ring.push_back(timed(S.world(), [&] {
          std::vector<MPI_Request> r(pieces_of(bytes) + pieces_of(inbox.size()));
          std::size_t k = 0;
          for (std::size_t at = 0; at < inbox.size(); at += 4 << 20)
            MPI_Irecv(inbox.data() + at, static_cast<int>(std::min<std::size_t>(4 << 20, inbox.size() - at)), MPI_BYTE,
                      ring_from, 9, S.world(), &r[k++]);
          for (std::size_t at = 0; at < bytes; at += 4 << 20)
            MPI_Isend(reinterpret_cast<const char*>(a.data()) + at,
                      static_cast<int>(std::min<std::size_t>(4 << 20, bytes - at)), MPI_BYTE, ring_to, 9, S.world(),
                      &r[k++]);
          // Receives first (posted first), so that the time they took is known per
          // direction (MALLEABLE_LEVELS_TRACE).
          const std::size_t nrecv = pieces_of(inbox.size());
          const double r0 = MPI_Wtime();
          MPI_Waitall(static_cast<int>(nrecv), r.data(), MPI_STATUSES_IGNORE);
          ring_recv.push_back(MPI_Wtime() - r0);
          MPI_Waitall(static_cast<int>(k - nrecv), r.data() + nrecv, MPI_STATUSES_IGNORE);
        }));
    }
    if (std::getenv("MALLEABLE_LEVELS_TRACE") && !ring_recv.empty()) {
      // Each process's median time until its partner's bytes had arrived.
      const double mine_recv = median(ring_recv);
      std::vector<double> all(static_cast<std::size_t>(np));
      MPI_Gather(&mine_recv, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, S.world());
      if (me == 0)
        for (int q = 0; q < np; ++q)
          std::printf("mpi_ring_recv rank %d from rank %d: %.4f s\n", q, (q - ppn + np) % np, all[static_cast<std::size_t>(q)]);
    }
    long long mine = static_cast<long long>(bytes), most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, S.world());
    if (S.world_rank() == 0) {
      const double f = median(t_fresh), w = median(t_warm), l = median(t_local), p = median(t_partner),
                   g = median(t_global);
      const auto& rec = S.level_records();
      std::printf("levels N=%d NB=%d grid %s, %d processes, %lld bytes on the busiest process, %d repetitions "
                  "(medians, slowest process)\n",
                  n, nb, grid.c_str(), S.world_size(), most, reps);
      std::printf("local_first_s %.4f (the first checkpoint: creates the files)\n", first_local);
      if (!one_node) std::printf("local_partner_first_s %.4f (the first: creates the files)\n", first_partner);
      std::printf("memcpy_fresh_s %.4f\nmemcpy_warm_s %.4f\nlocal_s %.4f\nlocal_partner_s %.4f\nglobal_s %.4f\n", f, w,
                  l, p, g);
      std::printf("node_bytes_local_partner %lld\n", rec.empty() ? 0LL : static_cast<long long>(rec.back().node_bytes));
      std::printf("ratio local/memcpy_fresh %.2f (memcpy speed / level speed; 1/ratio = %.2fx a raw memcpy)\n", l / f,
                  f / l);
      std::printf("ratio local/memcpy_warm %.2f (%.2fx a raw memcpy into touched pages)\n", l / w, w / l);
      std::printf("memcpy_warm_all_s %.4f (until every process has copied)\nratio local/memcpy_warm_all %.2f (%.2fx)\n",
                  median(t_warm_all), l / median(t_warm_all), median(t_warm_all) / l);
      if (t_partner.empty())
        std::printf("ratio local+partner/local n/a (one node: no partner level)\n");
      else
        std::printf("ratio local+partner/local %.2f\n", p / l);
      std::printf("ratio global/local %.2f\n", g / l);
      if (!t_ring.empty())
        std::printf("mpi_ring_s %.4f (%d processes per node, each sends its bytes one node on)\n"
                    "ratio local+partner/mpi_ring %.2f\n", median(t_ring), ppn, p / median(t_ring));
    }
  }
  MPI_Finalize();
  return 0;
}
