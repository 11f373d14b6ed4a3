// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench bound: redist, ScaLAPACK's PDGEMR2D and (given a build)
// COSTA's native transform against the copy/shared-memory bound of the same
// redistribution, measured by this program on the same cores in the same run:
//   copy: every rank memcpy's its local matrix (the size's bytes per rank) into another
//         array, all ranks at once (STREAM copy, best of --reps, slowest rank's time);
//   shm:  ranks (0,1), (2,3), ... exchange their local matrix with MPI_Sendrecv through
//         the MPI the job uses, all pairs at once (bytes received per rank per second).
// The bound of a redistribution (malleable/redist/bound.hpp): the slowest rank's
//   kept_r / copy_Bps + moved_r / shm_Bps,   kept_r: the elements that stay on rank r
// (copied from its old array into its new one), moved_r: the larger of what it sends and
// receives. A fraction of the bound is bound / time (1: at the bound).
// Sizes are MiB per rank of the N x N double matrix (N from the size and the ranks); the
// grid changes use every rank of the job (ranks <= cores is the caller's choice).
//   mpiexec -n 2 malleable-redist-bench bound --mib 1,4,16,64,256 --json bound.json
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "malleable/redist/bound.hpp"
#include "malleable/redist/blacs.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"

#include "bench_cli.hpp"
#include "bound_bench.hpp"
#include "calibration.hpp"
#include "shapes_bench.hpp"

namespace {

using redist::Layout;
using redist::bench::bound::Change;
using redist::bench::bound::load_average;
using redist::bench::bound::parse_change;
using redist::bench::bound::Times;
using redist::bench::bound::timed;

// MPI_Sendrecv of `bytes` with `peer` in chunks below INT_MAX.
void exchange(const char* src, char* dst, std::size_t bytes, int peer, MPI_Comm comm) {
  const std::size_t chunk = std::size_t{1} << 30;
  for (std::size_t off = 0; off < bytes; off += chunk) {
    const int n = static_cast<int>(std::min(chunk, bytes - off));
    MPI_Sendrecv(src + off, n, MPI_BYTE, peer, 79, dst + off, n, MPI_BYTE, peer, 79, comm, MPI_STATUS_IGNORE);
  }
}

struct Row {
  Times copy, shm, redist, gemr2d, costa;
  int same_redist = 1, same_costa = 1;
  std::string costa_error;
  double load_before = -1, load_after = -1;
  Times runnable;  // /proc/stat procs_running, sampled by rank 0 before each repetition
};

// The kernel's count of runnable tasks now (procs_running in /proc/stat), -1 if unread.
double procs_running() {
  double n = -1;
  if (FILE* f = std::fopen("/proc/stat", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "procs_running %lf", &n) == 1) break;
    std::fclose(f);
  }
  return n;
}

int all_equal(MPI_Comm comm, const std::vector<double>& x, const std::vector<double>& y) {
  int ok = x == y ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok;
}


// The row's line on stdout and its JSON (rank 0): best and median of each arm, their
// fractions of the copy/shared-memory bound and of the single-copy bound, the load.
nlohmann::json report_row(const std::string& change, double mib, std::int64_t n, int P, const std::vector<double>& kept,
                          const std::vector<double>& moved, std::size_t probe, const redist::BoundRates& rates, const Row& row,
                          bool costa_given, int reps) {
  const bool costa_ran = costa_given && row.costa_error.empty();
  const double bound = rates.valid() ? redist::bound_seconds(kept, moved, rates) : 0;
  // The single-copy bound: every byte a rank keeps or lands costs one memcpy at best.
  const redist::BoundRates copy_only{rates.copy_Bps, rates.copy_Bps};
  const double bound1 = rates.valid() ? redist::bound_seconds(kept, moved, copy_only) : 0;
  const double kept_max = *std::max_element(kept.begin(), kept.end());
  const double moved_max = *std::max_element(moved.begin(), moved.end());
  auto f1 = [&](double t) { return redist::fraction_of_bound(bound1, t); };
  char cs[32] = "-", cf[32] = "-", cfm[32] = "-";
  if (costa_ran) {
    std::snprintf(cs, sizeof cs, "%.5f", row.costa.best());
    std::snprintf(cf, sizeof cf, "%.2f", f1(row.costa.best()));
    std::snprintf(cfm, sizeof cfm, "%.2f", f1(row.costa.median()));
  } else if (costa_given) {
    std::snprintf(cs, sizeof cs, "error");
  }
  std::string check = row.same_redist ? "ok" : "REDIST-DIFFERS";
  if (costa_ran && !row.same_costa) check += ",COSTA-DIFFERS";
  const int cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const double others = std::max(0.0, row.runnable.median() - P);
  const bool quiet = row.runnable.median() >= 0 && others <= std::max(0, cores - P);
  std::printf("%-18s %7g %6lld %8.2f %8.2f %8.2f %8.2f %9.5f %9.5f %9.5f %6.2f %6.2f %6.2f %9.5f %6.2f %6.2f %9s %6s %6s %s %.2f %.2f "
              "%.1f %s\n",
              change.c_str(), mib, static_cast<long long>(n), kept_max / 1048576, moved_max / 1048576, rates.copy_Bps / 1e9,
              rates.shm_Bps / 1e9, bound, row.redist.best(), row.redist.median(), redist::fraction_of_bound(bound, row.redist.best()),
              f1(row.redist.best()), f1(row.redist.median()), row.gemr2d.best(), f1(row.gemr2d.best()), f1(row.gemr2d.median()), cs,
              cf, cfm, check.c_str(), row.load_before, row.load_after, others, quiet ? "quiet" : "LOADED");
  std::fflush(stdout);
  auto costa_or = [&](double v) {
    return costa_ran ? nlohmann::json(v) : costa_given ? nlohmann::json("error: " + row.costa_error) : nlohmann::json(nullptr);
  };
  return {{"change", change}, {"mib_per_rank", mib}, {"n", n}, {"ranks", P}, {"cores", cores},
          {"kept_bytes_by_rank", kept}, {"moved_bytes_by_rank", moved}, {"copy_Bps", rates.copy_Bps},
          {"shm_Bps", rates.shm_Bps}, {"probe_bytes", probe}, {"bound_s", bound},
          {"redist_s", row.redist.best()}, {"redist_median_s", row.redist.median()}, {"redist_times_s", row.redist.t},
          {"redist_fraction", redist::fraction_of_bound(bound, row.redist.best())},
          {"single_copy_bound_s", bound1}, {"redist_fraction_single_copy", f1(row.redist.best())},
          {"redist_fraction_single_copy_median", f1(row.redist.median())},
          {"pdgemr2d_s", row.gemr2d.best()}, {"pdgemr2d_median_s", row.gemr2d.median()}, {"pdgemr2d_times_s", row.gemr2d.t},
          {"pdgemr2d_fraction", redist::fraction_of_bound(bound, row.gemr2d.best())},
          {"pdgemr2d_fraction_single_copy", f1(row.gemr2d.best())},
          {"pdgemr2d_fraction_single_copy_median", f1(row.gemr2d.median())},
          {"costa_s", costa_or(row.costa.best())}, {"costa_median_s", costa_or(row.costa.median())},
          {"costa_times_s", costa_ran ? nlohmann::json(row.costa.t) : nlohmann::json(nullptr)},
          {"costa_fraction", costa_ran ? nlohmann::json(redist::fraction_of_bound(bound, row.costa.best())) : nlohmann::json(nullptr)},
          {"costa_fraction_single_copy", costa_ran ? nlohmann::json(f1(row.costa.best())) : nlohmann::json(nullptr)},
          {"costa_fraction_single_copy_median", costa_ran ? nlohmann::json(f1(row.costa.median())) : nlohmann::json(nullptr)},
          {"redist_identical_to_pdgemr2d", row.same_redist == 1},
          {"costa_identical_to_pdgemr2d", costa_ran ? nlohmann::json(row.same_costa == 1) : nlohmann::json(nullptr)},
          {"reps", reps}, {"load_average", row.load_after}, {"load1_before", row.load_before}, {"load1_after", row.load_after},
          {"procs_running", row.runnable.t}, {"runnable_others", others}, {"quiet", quiet}};
}

}  // namespace

namespace redist::bench::bound {

Change parse_change(const std::string& t) {
  Change c;
  c.text = t;
  const auto colon = t.find(':');
  auto side = [&](const std::string& s, int& nb, redist::calib::Grid& g) {
    const auto at = s.find('@');
    if (at == std::string::npos) throw std::runtime_error("--changes " + t + ": expected NB@RxC:NB@RxC");
    nb = std::stoi(s.substr(0, at));
    g = redist::calib::parse_grid(s.substr(at + 1));
    if (nb < 1) throw std::runtime_error("--changes " + t + ": block size < 1");
  };
  if (colon == std::string::npos) throw std::runtime_error("--changes " + t + ": expected NB@RxC:NB@RxC");
  side(t.substr(0, colon), c.nba, c.ga);
  side(t.substr(colon + 1), c.nbb, c.gb);
  return c;
}

double load_average() {
  double l = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = -1;
    std::fclose(f);
  }
  return l;
}

void kept_moved(const Layout& a, const Layout& b, int P, std::vector<double>& kept, std::vector<double>& moved) {
  const auto stats = redist::plan_stats(a, b, P);
  kept.assign(static_cast<std::size_t>(P), 0.0);
  moved.assign(static_cast<std::size_t>(P), 0.0);
  for (int r = 0; r < P; ++r) {
    int pr = 0, pc = 0;
    const auto u = static_cast<std::size_t>(r);
    if (b.coords_of(r, pr, pc))
      kept[u] = (static_cast<double>(b.local_rows(pr) * b.local_cols(pc)) - static_cast<double>(stats.recv_by_rank[u])) *
                sizeof(double);
    moved[u] = static_cast<double>(std::max(stats.recv_by_rank[u], stats.sent_by_rank[u])) * sizeof(double);
  }
}

}  // namespace redist::bench::bound

namespace redist::bench {

int case_bound(int me, int P, int argc, char** argv) {
  CLI::App app{"redist, PDGEMR2D and COSTA against the copy/shared-memory bound measured in the same run"};
  std::vector<double> mibs{1, 4, 16, 64, 256};
  double max_mib = 256;
  std::vector<std::string> changes{"64@1x2:64@2x1", "64@1x2:100@1x2", "64@2x1:100@1x2"};
  int reps = 5;
  std::string json_path, costa_native;
  if (const char* c = std::getenv("MALLEABLE_COSTA_NATIVE")) costa_native = c;
  app.add_option("--mib", mibs, "MiB per rank of the matrix (sizes swept)")->delimiter(',');
  app.add_option("--max-mib", max_mib, "sizes above this many MiB per rank are skipped (memory: about 3x per rank, 4x with COSTA)");
  app.add_option("--changes", changes, "grid changes NB@RxC:NB@RxC (square blocks); every grid's size must be the job's ranks")
      ->delimiter(',');
  app.add_option("--reps", reps, "repetitions, round robin; the fastest of each is reported");
  app.add_option("--costa-native", costa_native,
                 "shared object built from redist/bench/costa_native.cpp against a COSTA build (costa_native in scripts/bench/redist.sh; "
                 "env MALLEABLE_COSTA_NATIVE): COSTA's own API timed too (run it with OMP_NUM_THREADS=1)");
  app.add_option("--json", json_path, "write every row to this JSON file");
  if (auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  CostaNative* costa = nullptr;
  try {
    costa = load_costa_native(costa_native);
  } catch (const std::exception& e) {
    if (me == 0) std::fprintf(stderr, "%s\n", e.what());
    MPI_Finalize();
    return 2;
  }
  std::vector<Change> cases;
  for (const auto& t : changes) {
    const Change c = parse_change(t);
    if (c.ga.size() != P || c.gb.size() != P) {
      if (me == 0) std::printf("# skipping %s: its grids are not %d ranks\n", t.c_str(), P);
      continue;
    }
    cases.push_back(c);
  }
  const int cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (me == 0) {
    std::printf("## bound = max over ranks (kept_r / copy + moved_r / shm); kept_r: bytes rank r keeps (copied from its\n"
                "## old array into its new one), moved_r: the larger of the bytes it sends and receives. copy: a memcpy\n"
                "## of each rank's local matrix, all %d ranks at once; shm: MPI_Sendrecv of it between rank pairs, all at\n"
                "## once, through this job's MPI; both per rank, best of %d, measured per size in this run. fraction =\n"
                "## bound / time (1 = at the bound). frac1: redist against the single-copy bound max_r (kept_r + moved_r)\n"
                "## / copy (redist lands a node's bytes through a shared window, one memcpy each, no MPI message: the\n"
                "## MPI exchange's rate is no bound for it); frac1 of PDGEMR2D and COSTA against the same. Times: the\n"
                "## best of %d interleaved repetitions (every arm once per repetition), _md their median. Load: load1\n"
                "## before and after the row; runnable_others: the median of /proc/stat's procs_running over the\n"
                "## repetitions less the %d ranks (which spin, so count); quiet: no more others than the %d cores\n"
                "## leave free (else LOADED: compare such a row's figures with care). COSTA: %s. load1 at start %.2f\n",
                P, reps, reps, P, cores, costa ? costa_native.c_str() : "not given (--costa-native)", load_average());
    std::printf("%-18s %7s %6s %8s %8s %8s %8s %9s %9s %9s %6s %6s %6s %9s %6s %6s %9s %6s %6s %s\n", "change", "MiB/rk", "N",
                "kept_MiB", "moved_MiB", "copy_GBs", "shm_GBs", "bound_s", "redist_s", "redist_md", "frac", "frac1", "frac1md",
                "gemr2d_s", "frac1", "frac1md", "costa_s", "frac1", "frac1md", "check load_before load_after runnable_others quiet");
  }
  nlohmann::json rows = nlohmann::json::array();
  bool differs = false;  // a result unlike PDGEMR2D's: the exit status says so
  const int sys = Csys2blacs_handle(MPI_COMM_WORLD);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, P);
  for (const double mib : mibs) {
    if (mib > max_mib) {
      if (me == 0) std::printf("# skipping %g MiB per rank: above --max-mib %g\n", mib, max_mib);
      continue;
    }
    const auto n = static_cast<std::int64_t>(std::sqrt(mib * 1048576.0 / 8.0 * P));
    for (const Change& c : cases) {
      const Layout a = Layout::block_cyclic(n, n, c.nba, c.nba, c.ga.r, c.ga.c);
      const Layout b = Layout::block_cyclic(n, n, c.nbb, c.nbb, c.gb.r, c.gb.c);
      calib::Local A = calib::allocate(a, me, true), B = calib::allocate(b, me, false), R = B, K;
      if (costa) K = B;
      std::vector<double> kept, moved;
      bound::kept_moved(a, b, P, kept, moved);
      // The probes' bytes: the smallest local matrix of any rank (A and B differ by a few
      // elements, the ranks by a block); the same on every rank, so the pairs' messages match.
      unsigned long long probe_elems = std::min(A.data.size(), B.data.size());
      MPI_Allreduce(MPI_IN_PLACE, &probe_elems, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
      const std::size_t probe = static_cast<std::size_t>(probe_elems) * sizeof(double);
      redist::BlacsGrid ga(sys, a), gb(sys, b);
      const auto da = a.to_desc(ga.ctxt(), static_cast<int>(A.ld));
      const auto db = b.to_desc(gb.ctxt(), static_cast<int>(B.ld));
      const int m = static_cast<int>(n);
      const std::vector<int> ranks_a = a.rank_list(), ranks_b = b.rank_list();
      Row row;
      row.load_before = load_average();
      const int peer = (me ^ 1) < P ? (me ^ 1) : -1;
      // Interleaved: each repetition runs every arm once (copy, shm, PDGEMR2D, redist, COSTA),
      // so a busy spell of the machine falls on all arms alike, not on one arm's repetitions.
      for (int rep = 0; rep < reps; ++rep) {
        if (me == 0) row.runnable.add(procs_running());  // the other ranks spin in the barrier: runnable
        row.copy.add(timed(MPI_COMM_WORLD, [&] { std::memcpy(B.data.data(), A.data.data(), probe); }));
        row.shm.add(timed(MPI_COMM_WORLD, [&] {
          if (peer >= 0)
            exchange(reinterpret_cast<const char*>(A.data.data()), reinterpret_cast<char*>(B.data.data()), probe, peer,
                     MPI_COMM_WORLD);
        }));
        row.gemr2d.add(timed(MPI_COMM_WORLD, [&] {
          Cpdgemr2d(m, m, A.data.data(), 1, 1, da.data(), R.data.data(), 1, 1, db.data(), gctxt);
        }));
        std::fill(B.data.begin(), B.data.end(), 0.0);
        row.redist.add(timed(MPI_COMM_WORLD, [&] {
          redist::redistribute<double>(MPI_COMM_WORLD, a, A.data.data(), A.ld, b, B.data.data(), B.ld);
        }));
        row.same_redist = std::min(row.same_redist, all_equal(MPI_COMM_WORLD, B.data, R.data));
        if (costa && row.costa_error.empty()) {
          std::fill(K.data.begin(), K.data.end(), 0.0);
          char err[256] = "";
          int rc = 0;
          const double t = timed(MPI_COMM_WORLD, [&] {
            rc = costa(m, m, c.nba, c.nba, c.ga.r, c.ga.c, ranks_a.data(), A.data.data(), static_cast<int>(A.ld), c.nbb,
                       c.nbb, c.gb.r, c.gb.c, ranks_b.data(), K.data.data(), static_cast<int>(K.ld), MPI_COMM_WORLD, 0, err,
                       static_cast<int>(sizeof err));
          });
          int bad = rc != 0;
          MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
          if (bad) {
            row.costa_error = rc ? err : "failed on another rank";
          } else {
            row.costa.add(t);
            row.same_costa = std::min(row.same_costa, all_equal(MPI_COMM_WORLD, K.data, R.data));
          }
        }
      }
      row.load_after = load_average();
      const redist::BoundRates rates{static_cast<double>(probe) / row.copy.best(),
                                     P > 1 ? static_cast<double>(probe) / row.shm.best() : 0};
      if (me == 0) {
        const bool costa_ran = costa && row.costa_error.empty();
        differs = differs || !row.same_redist || (costa_ran && !row.same_costa);
        rows.push_back(report_row(c.text, mib, n, P, kept, moved, probe, rates, row, costa != nullptr, reps));
      }
    }
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
  if (me == 0 && !json_path.empty()) {
    std::ofstream f(json_path);
    f << nlohmann::json{{"bench", "bound"}, {"ranks", P}, {"costa_native", costa ? costa_native : ""}, {"rows", rows}}.dump(1)
      << "\n";
  }
  MPI_Finalize();
  return differs ? 1 : 0;
}

}  // namespace redist::bench
