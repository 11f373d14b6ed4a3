// SPDX-License-Identifier: BSD-3-Clause
// redist benchmark (SLATE-style tester): grid expansions 2x2->3x3, 3x3->4x4, 4x4->5x5 of
// an N x N double matrix with Global, Local1 and Local2 placement of the new processes
// (thesis §4.2-§4.5), every schedule timed beside ScaLAPACK's PDGEMR2D in the same
// run, bytes moved, and the single-core memcpy floor of those bytes. With --split, the
// per-process waiting vs transferring table of the thesis §4.6.2 (Tables 4.4-4.6) for the
// caterpillar and matching schedules.
//
//   mpiexec --oversubscribe --bind-to none -n 25 malleable-redist-bench redist --n 4000,8000
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"

#include "bench_cli.hpp"
#include "calibration.hpp"
#include "shapes_bench.hpp"

using redist::Layout;
using redist::ScheduleKind;

namespace {

using redist::calib::Grid;
using redist::calib::parse_grid;
using redist::calib::placement;

std::string grid_picture(const std::vector<int>& ranks, Grid g) {
  std::ostringstream s;
  for (int i = 0; i < g.r; ++i) {
    s << (i ? " / " : "");
    for (int j = 0; j < g.c; ++j) s << (j ? " " : "") << ranks[static_cast<std::size_t>(i * g.c + j)];
  }
  return s.str();
}

// Waits for everyone without spinning, so a single process can measure memcpy while the
// oversubscribed others sleep.
void sleepy_barrier(MPI_Comm comm) { redist::calib::sleepy_barrier(comm, 500); }

// Single-core memcpy bandwidth (bytes/s) on buffers far larger than the caches.
double memcpy_bandwidth() {
  const std::size_t bytes = std::size_t{128} << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(bytes) / s);
    src[static_cast<std::size_t>(rep)] = dst[bytes - 1 - static_cast<std::size_t>(rep)];  // keep the copies live
  }
  return best;
}

using redist::calib::allocate;
using redist::calib::Local;
using redist::calib::max_over;

}  // namespace

namespace redist::bench {
int case_redist(int wrank, int world, int argc, char** argv) {
  CLI::App app{"redist benchmark: schedules vs ScaLAPACK PDGEMR2D on grid expansions"};
  std::vector<std::int64_t> sizes{4000, 8000};
  std::vector<std::string> changes{"2x2:3x3", "3x3:4x4", "4x4:5x5"};
  std::vector<std::string> placements{"global", "local1", "local2"};
  std::vector<std::string> schedules{"caterpillar", "circulant", "matching", "allatonce"};
  std::string dist = "block", json_path, transport = "datatype";
  std::vector<std::string> waits{"auto"};
  std::int64_t nb = 64;
  int reps = 3;
  bool split = false, packed_too = false;
  app.add_option("--n", sizes, "matrix orders")->delimiter(',');
  app.add_option("--changes", changes, "grid changes old:new")->delimiter(',');
  app.add_option("--placements", placements, "global, local1, local2")->delimiter(',');
  app.add_option("--schedules", schedules, "caterpillar, circulant, matching, allatonce, default")->delimiter(',');
  app.add_option("--dist", dist, "block (one block per process row/column, as thesis §4.5) or cyclic");
  app.add_option("--nb", nb, "block size for --dist cyclic");
  app.add_option("--reps", reps, "repetitions; the fastest is reported (--shapes: redist's median too, redist_med_s)");
  app.add_option("--transport", transport, "datatype or packed");
  app.add_option("--wait", waits, "auto, spin (MPI_Waitall), sleep (test + sleep); a list times each")
      ->delimiter(',');
  app.add_flag("--packed-too", packed_too, "also time every schedule with the packed transport");
  app.add_flag("--split", split, "per-process waiting vs transferring (thesis Tables 4.4-4.6)");
  app.add_option("--json", json_path, "write all results to this JSON file");
  std::vector<std::string> shapes, variants;
  bool tiny = false, suite = false;
  std::string costa;
  app.add_option("--shapes", shapes, "only these cases, MxN:mbxnb@PxQ:mbxnb@PxQ (A's blocks and grid, then B's)")
      ->delimiter(',');
  app.add_flag("--tiny", tiny, "only the tiny-block and long-thin cases (2-4 ranks)");
  app.add_flag("--suite", suite,
               "the shape cases (expansion, shrink 9->4, block size 64->100, reshapes, panels, tiny "
               "blocks, long thin; up to 9 ranks) beside PDGEMR2D, COSTA and the parallel memcpy floor");
  app.add_option("--costa", costa,
                 "with --suite/--tiny/--shapes: a COSTA build or install directory whose ScaLAPACK wrapper "
                 "(libcosta_prefixed_scalapack.so, costa_pdgemr2d) is timed in the costa_wr column where it applies: "
                 "A and B on one grid shape. The project never downloads COSTA");
  std::string costa_native;
  std::string costa_layout = "block-cyclic";
  double costa_budget = 30;
  app.add_option("--costa-native", costa_native,
                 "with --suite/--tiny/--shapes: a shared object built from redist/bench/costa_native.cpp against a "
                 "COSTA build (redist.sh shapes --costa builds it): COSTA's own API, timed in COSTA's column");
  app.add_option("--costa-layout", costa_layout,
                 "block-cyclic (costa::block_cyclic_layout where the rank map allows) or custom "
                 "(costa::custom_layout always)");
  app.add_option("--costa-budget", costa_budget, "seconds after which COSTA's repetitions stop (one always runs)");
  double link_bits = 0;
  app.add_option("--link-rate", link_bits,
                 "with --suite/--tiny/--shapes: bits/s of each node's link (emulated cluster); adds the busiest "
                 "node link's bound and redist's time over it (0 = one node, no bound)");
  int only_case = -1;
  bool list = false;
  app.add_option("--case", only_case, "with --suite/--tiny: only the case of this index (see --list)");
  app.add_flag("--list", list, "with --suite/--tiny: print index, ranks, shape and kind of every case and exit");
  app.add_option("--variants", variants,
                 "with --suite/--tiny/--shapes: also time redist with these transports (datatype, packed, auto; "
                 "auto-unfused: auto with the local copy as a pass of its own; single-copy: every transfer within a node in one copy (process_vm_readv or process_vm_writev); window: every transfer within a node through the node window, never read in one copy), "
                 "split into plan, check, local copies "
                 "and transfers")
      ->delimiter(',');
  bool plan_scaling = false;
  app.add_flag("--plan-scaling", plan_scaling,
               "only time planning (rank 0, no data) for large grids: N=100000, nb=64, PxP -> QxQ");
  if (const auto rc = redist::calib::parse_or_exit(app, argc, argv, wrank)) return *rc;

  auto wait_mode_of = [](const std::string& w) {
    if (w == "spin") return redist::WaitMode::Spin;
    if (w == "sleep") return redist::WaitMode::Sleep;
    if (w == "auto") return redist::WaitMode::Auto;
    throw std::runtime_error("--wait " + w + " is not auto, spin or sleep");
  };
  const redist::WaitMode split_wait = wait_mode_of(waits.front());
  if (plan_scaling) {
    if (wrank == 0) {
      std::printf("%6s %6s %-12s %10s %10s %10s %8s\n", "P", "Q", "schedule", "stats_ms", "plan_ms", "transfers", "steps");
      for (auto [p, q] : std::vector<std::pair<int, int>>{{4, 5}, {8, 10}, {16, 20}, {32, 40}}) {
        std::vector<int> ra(static_cast<std::size_t>(p * p)), rb(static_cast<std::size_t>(q * q));
        std::iota(ra.begin(), ra.end(), 0);
        std::iota(rb.begin(), rb.end(), 0);
        const Layout a = Layout::block_cyclic(100000, 100000, 64, 64, p, p, 0, 0, ra);
        const Layout b = Layout::block_cyclic(100000, 100000, 64, 64, q, q, 0, 0, rb);
        for (const char* sname : {"caterpillar", "circulant", "matching", "allatonce"}) {
          auto t0 = std::chrono::steady_clock::now();
          const auto st = redist::plan_stats(a, b, q * q);
          auto t1 = std::chrono::steady_clock::now();
          const auto plan = redist::make_plan(a, b, redist::Region::whole(a), q * q, redist::parse_schedule(sname), 0);
          auto t2 = std::chrono::steady_clock::now();
          std::printf("%6d %6d %-12s %10.2f %10.2f %10zu %8d\n", p * p, q * q, sname,
                      std::chrono::duration<double, std::milli>(t1 - t0).count(),
                      std::chrono::duration<double, std::milli>(t2 - t1).count(), plan.transfers.size(),
                      plan.stats.steps);
          (void)st;
        }
      }
    }
    MPI_Finalize();
    return 0;
  }

  if (tiny || suite || !shapes.empty()) {
    std::vector<redist::bench::ShapeCase> cases;
    try {
      if (suite) cases = redist::bench::suite_cases();
      else if (tiny) cases = redist::bench::tiny_cases();
      for (const auto& t : shapes) cases.push_back(redist::bench::parse_shape(t, "--shapes"));
      if (only_case >= 0) {
        if (only_case >= static_cast<int>(cases.size()))
          throw std::runtime_error("--case " + std::to_string(only_case) + " is past the last case (" +
                                   std::to_string(cases.size() - 1) + ")");
        cases = {cases[static_cast<std::size_t>(only_case)]};
      }
    } catch (const std::exception& e) {
      if (wrank == 0) std::fprintf(stderr, "redist: %s\n", e.what());
      MPI_Finalize();
      return 2;
    }
    if (list) {
      if (wrank == 0)
        for (std::size_t k = 0; k < cases.size(); ++k)
          std::printf("%zu\t%d\t%s\t%s\n", k, cases[k].ranks(), cases[k].text.c_str(), cases[k].kind.c_str());
      MPI_Finalize();
      return 0;
    }
    redist::bench::ShapeOptions so;
    so.reps = reps;
    so.variants = variants;
    so.costa_dir = costa;
    so.link_bits = link_bits;
    so.costa_budget_s = costa_budget;
    try {
      if (costa_layout != "block-cyclic" && costa_layout != "custom")
        throw std::runtime_error("--costa-layout " + costa_layout + " is not block-cyclic or custom");
      so.costa_layout_mode = costa_layout == "custom" ? 1 : 0;
      so.costa = redist::bench::load_costa(costa);
      so.costa_native = redist::bench::load_costa_native(costa_native);
    } catch (const std::exception& e) {
      if (wrank == 0) std::fprintf(stderr, "redist: %s\n", e.what());
      MPI_Finalize();
      return 2;
    }
    if (wrank == 0)
      std::printf("# %d MPI ranks on %u CPUs; reps=%d (fastest shown, round robin); COSTA native (%s): %s; "
                  "COSTA wrapper: %s; OMP_NUM_THREADS=%s; vader single copy: %s\n"
                  "# x_floor = redist / floor (floor: each rank memcpy's the bytes it receives, all at once); "
                  "gemr2d/r, costa/r = their time / redist's (above 1: redist faster); costa_wr = costa_pdgemr2d, "
                  "only where A and B share a grid shape\n",
                  world, std::thread::hardware_concurrency(), reps, costa_layout.c_str(),
                  costa_native.empty() ? "not built (no --costa-native)" : costa_native.c_str(),
                  costa.empty() ? "not built (no --costa)" : costa.c_str(),
                  std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "unset",
                  std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism")
                      ? std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism")
                      : "Open MPI's default");
    nlohmann::json results = nlohmann::json::array();
    redist::bench::run_shapes(cases, so, results);
    if (wrank == 0 && !json_path.empty()) std::ofstream(json_path) << results.dump(2) << "\n";
    MPI_Finalize();
    return 0;
  }

  // The floor: one core copying the moved bytes, measured while everyone else sleeps.
  double bw = 0;
  if (wrank == 0) bw = memcpy_bandwidth();
  sleepy_barrier(MPI_COMM_WORLD);
  MPI_Bcast(&bw, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (wrank == 0)
    std::printf("# %d MPI ranks on %u CPUs; single-core memcpy %.2f GB/s; dist=%s; wait=%s; reps=%d (fastest shown)\n",
                world, std::thread::hardware_concurrency(), bw / 1e9, dist.c_str(), waits.front().c_str(), reps);

  nlohmann::json results = nlohmann::json::array();
  if (wrank == 0)
    std::printf("%6s %8s %7s %-14s %9s %9s %8s %9s %9s %8s %6s %6s %8s\n", "N", "change", "place", "schedule",
                "time_s", "gemr2d_s", "speedup", "moved_MiB", "floor_s", "x_floor", "steps", "msgs", "plan_ms");

  for (const auto& change : changes) {
    const auto colon = change.find(':');
    const Grid go = parse_grid(change.substr(0, colon)), gn = parse_grid(change.substr(colon + 1));
    const int P = std::max(go.size(), gn.size());
    if (P > world) {
      if (wrank == 0) std::printf("# skipping %s: needs %d ranks\n", change.c_str(), P);
      continue;
    }
    MPI_Comm comm = redist::calib::case_comm(P, wrank);
    if (comm == MPI_COMM_NULL) continue;  // not needed for this change (it slept meanwhile)
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const int sys = Csys2blacs_handle(comm);
    int gctxt = sys;
    Cblacs_gridinit(&gctxt, "R", 1, P);
    for (const auto N : sizes) {
      for (const auto& place : placements) {
        std::vector<int> old_ranks(static_cast<std::size_t>(go.size()));
        std::iota(old_ranks.begin(), old_ranks.end(), 0);
        const auto new_ranks = placement(place, go, gn);
        auto block = [&](std::int64_t n, int p) { return dist == "block" ? (n + p - 1) / p : nb; };
        const Layout a = Layout::block_cyclic(N, N, block(N, go.r), block(N, go.c), go.r, go.c, 0, 0, old_ranks);
        const Layout b = Layout::block_cyclic(N, N, block(N, gn.r), block(N, gn.c), gn.r, gn.c, 0, 0, new_ranks);
        const auto A = allocate(a, me, true);
        auto B = allocate(b, me, false);
        auto Bref = allocate(b, me, false);

        // ScaLAPACK PDGEMR2D on the same two grids (BLACS grids mapped to the same ranks).
        const auto stats = redist::plan_stats(a, b, P);
        const double moved_bytes = static_cast<double>(stats.elements_moved) * sizeof(double);
        const double floor_s = moved_bytes / bw;

        struct Variant {
          std::string schedule;
          redist::Transport transport;
          std::string wait;
          redist::RedistPlan plan;
          double plan_s = 0, best = 1e30;
          int identical = 1;
        };
        std::vector<Variant> variants;
        for (const auto& s : schedules)
          for (const auto& w : waits) {
            variants.push_back({s, transport == "packed" ? redist::Transport::Packed : redist::Transport::Datatype, w, {}});
            if (packed_too && transport != "packed") variants.push_back({s, redist::Transport::Packed, w, {}});
          }
        for (auto& v : variants) {
          const double tp0 = MPI_Wtime();
          v.plan = redist::make_plan(a, b, redist::Region::whole(a), P, redist::parse_schedule(v.schedule));
          v.plan_s = max_over(comm, MPI_Wtime() - tp0);
        }
        // Repetitions go round robin over PDGEMR2D and every variant, so a burst of load
        // from other jobs on the shared machine hits all of them alike; fastest is kept.
        double t_ref = 1e30;
        {
          redist::BlacsGrid ga(sys, a), gb(sys, b);
          const auto da = a.to_desc(ga.ctxt(), static_cast<int>(A.ld));
          const auto db = b.to_desc(gb.ctxt(), static_cast<int>(Bref.ld));
          for (int rep = 0; rep < reps; ++rep) {
            MPI_Barrier(comm);
            const double t0 = MPI_Wtime();
            Cpdgemr2d(static_cast<int>(N), static_cast<int>(N), A.in ? A.data.data() : nullptr, 1, 1, da.data(),
                      Bref.in ? Bref.data.data() : nullptr, 1, 1, db.data(), gctxt);
            t_ref = std::min(t_ref, max_over(comm, MPI_Wtime() - t0));
            for (auto& v : variants) {
              redist::ExecOptions opt;
              opt.transport = v.transport;
              opt.wait = wait_mode_of(v.wait);
              std::fill(B.data.begin(), B.data.end(), 0.0);
              MPI_Barrier(comm);
              const double t1 = MPI_Wtime();
              redist::redistribute<double>(comm, v.plan, A.in ? A.data.data() : nullptr, A.ld,
                                           B.in ? B.data.data() : nullptr, B.ld, opt);
              v.best = std::min(v.best, max_over(comm, MPI_Wtime() - t1));
              int same = B.data == Bref.data ? 1 : 0, all_same = 0;
              MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, comm);
              v.identical = std::min(v.identical, all_same);
            }
          }
        }
        for (const auto& v : variants) {
          const std::string label = v.schedule + (v.transport == redist::Transport::Packed ? "/pk" : "") +
                                    (waits.size() > 1 ? "/" + v.wait : "");
          const double t = v.best;
          if (me == 0) {
            std::printf("%6lld %8s %7s %-14s %9.5f %9.5f %8.2f %9.1f %9.5f %8.2f %6d %6lld %8.3f%s\n",
                        static_cast<long long>(N), change.c_str(), place.c_str(), label.c_str(), t, t_ref, t_ref / t,
                        moved_bytes / 1048576.0, floor_s, t / floor_s, v.plan.stats.steps,
                        static_cast<long long>(v.plan.stats.messages), v.plan_s * 1e3,
                        v.identical ? "" : "  MISMATCH vs PDGEMR2D");
            std::fflush(stdout);
            results.push_back({{"n", N}, {"change", change}, {"placement", place}, {"schedule", label},
                               {"time_s", t}, {"pdgemr2d_s", t_ref}, {"plan_s", v.plan_s},
                               {"moved_bytes", moved_bytes}, {"local_bytes", stats.elements_local * 8.0},
                               {"floor_s", floor_s}, {"steps", v.plan.stats.steps},
                               {"messages", v.plan.stats.messages}, {"identical_to_pdgemr2d", v.identical == 1}});
          }
        }

        if (split && (N == sizes.front())) {
          // Thesis Tables 4.4-4.6: per process, time waiting for partners vs moving data.
          for (auto kind : {ScheduleKind::Caterpillar, ScheduleKind::Matching}) {
            const auto plan = redist::make_plan(a, b, redist::Region::whole(a), P, kind);
            redist::ExecOptions opt;
            opt.split_wait_transfer = true;
            opt.wait = split_wait;
            // The repetition with the smallest slowest-process time is shown.
            std::vector<double> all(static_cast<std::size_t>(3 * P));
            double best = 1e30;
            for (int rep = 0; rep < reps; ++rep) {
              redist::ExecStats st;
              MPI_Barrier(comm);
              redist::redistribute<double>(comm, plan, A.in ? A.data.data() : nullptr, A.ld,
                                           B.in ? B.data.data() : nullptr, B.ld, opt, &st);
              double mine[3] = {st.total_s, st.wait_s, st.transfer_s};
              std::vector<double> got(static_cast<std::size_t>(3 * P));
              MPI_Gather(mine, 3, MPI_DOUBLE, got.data(), 3, MPI_DOUBLE, 0, comm);
              const double slowest = max_over(comm, st.total_s);
              if (slowest < best) {
                best = slowest;
                all = got;
              }
            }
            if (me == 0) {
              std::printf("## split N=%lld %s %s %s: rank total_s wait_s transfer_s\n", static_cast<long long>(N),
                          change.c_str(), place.c_str(), redist::to_string(kind));
              double tw = 0, tt = 0;
              for (int r = 0; r < P; ++r) {
                std::printf("##   %3d %8.4f %8.4f %8.4f\n", r, all[static_cast<std::size_t>(3 * r)],
                            all[static_cast<std::size_t>(3 * r + 1)], all[static_cast<std::size_t>(3 * r + 2)]);
                tw += all[static_cast<std::size_t>(3 * r + 1)];
                tt += all[static_cast<std::size_t>(3 * r + 2)];
              }
              std::printf("##   sum wait %.4f s, sum transfer %.4f s\n", tw, tt);
              results.push_back({{"split", true}, {"n", N}, {"change", change}, {"placement", place},
                                 {"schedule", redist::to_string(kind)}, {"per_rank_total_wait_transfer", all}});
            }
          }
        }
        if (me == 0 && N == sizes.front())
          std::printf("# %s %s new grid (ranks row by row): %s\n", change.c_str(), place.c_str(),
                      grid_picture(new_ranks, gn).c_str());
      }
    }
    Cblacs_gridexit(gctxt);
    MPI_Comm_free(&comm);
    sleepy_barrier(MPI_COMM_WORLD);
  }
  if (wrank == 0 && !json_path.empty()) std::ofstream(json_path) << results.dump(2) << "\n";
  MPI_Finalize();
  return 0;
}
}  // namespace redist::bench
