// SPDX-License-Identifier: BSD-3-Clause
// Where redist's time goes on one shape: redist under several execution
// options, COSTA's native transform, ScaLAPACK's PxGEMR2D and the memcpy floor (every rank
// copies the bytes it receives from other ranks, all at once), interleaved rep by rep in one
// run so they share the machine's state, each with its wall time (slowest rank), the CPU
// time its ranks spent (summed; a spinning waiter counts too) and redist's phases. Element
// type s, d, c or z. Every variant's result is compared element for element with
// PxGEMR2D's. Nothing here is a pass/fail target.
//   mpiexec -n P malleable-redist-bench exec --shape 4000x4000:64x64@1x2:64x64@2x1 [--reps 15] [--type d]
//       [--variants datatype,packed,auto,shm,no-shm] [--costa-native costa_native.so]
#include <mpi.h>

#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "calibration.hpp"
#include "malleable/redist/blacs.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"
#include "shapes_bench.hpp"

namespace {

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

redist::ExecOptions options_of(const std::string& v) {
  redist::ExecOptions o;
  if (v == "datatype") o.transport = redist::Transport::Datatype;
  else if (v == "packed") o.transport = redist::Transport::Packed;
  else if (v == "auto") o.transport = redist::Transport::Auto;
  else if (v == "spin") o.wait = redist::WaitMode::Spin;
  else if (v == "sleep") o.wait = redist::WaitMode::Sleep;
  else if (v == "packed-spin") o.transport = redist::Transport::Packed, o.wait = redist::WaitMode::Spin;
  else if (v == "shm") o.node_window = true;
  else if (v == "shm-spin") o.node_window = true, o.wait = redist::WaitMode::Spin;
  else if (v == "no-shm") o.node_window = false;
  else if (v == "shm-only") o.single_copy = redist::SingleCopy::Off;  // the window, never a single-copy read
  else if (v == "single-copy") o.single_copy = redist::SingleCopy::On;  // every same-node transfer read in one copy
  else throw std::runtime_error("--variants: unknown " + v);
  return o;
}

struct Acc {
  std::vector<double> wall, cpu;
  redist::ExecStats st;
  int same = 1;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// COSTA's native transform for element type T (costa_native.cpp's typed entry points).
using CostaTyped = int(int m, int n, int mba, int nba, int pra, int pca, const int* ranks_a, const void* a, int lda,
                       int mbb, int nbb, int prb, int pcb, const int* ranks_b, void* b, int ldb, MPI_Comm comm,
                       int layout_mode, char* err, int errlen);

template <class T> const char* letter();
template <> const char* letter<float>() { return "s"; }
template <> const char* letter<double>() { return "d"; }
template <> const char* letter<std::complex<float>>() { return "c"; }
template <> const char* letter<std::complex<double>>() { return "z"; }

void gemr2d(int m, int n, const float* a, const int* da, float* b, const int* db, int ctxt) {
  Cpsgemr2d(m, n, a, 1, 1, da, b, 1, 1, db, ctxt);
}
void gemr2d(int m, int n, const double* a, const int* da, double* b, const int* db, int ctxt) {
  Cpdgemr2d(m, n, a, 1, 1, da, b, 1, 1, db, ctxt);
}
void gemr2d(int m, int n, const std::complex<float>* a, const int* da, std::complex<float>* b, const int* db, int ctxt) {
  Cpcgemr2d(m, n, a, 1, 1, da, b, 1, 1, db, ctxt);
}
void gemr2d(int m, int n, const std::complex<double>* a, const int* da, std::complex<double>* b, const int* db,
            int ctxt) {
  Cpzgemr2d(m, n, a, 1, 1, da, b, 1, 1, db, ctxt);
}

// This rank's local array of l (leading dimension max(1, rows)); element (i, j) holds
// 1 + i + j*m (and its negative as the imaginary part) when `fill`, else 0.
template <class T>
std::vector<T> local_of(const redist::Layout& l, int me, bool fill, std::int64_t& ld, bool& in) {
  int pr = 0, pc = 0;
  in = l.coords_of(me, pr, pc);
  if (!in) return {};
  const std::int64_t rows = l.local_rows(pr), cols = l.local_cols(pc);
  ld = std::max<std::int64_t>(1, rows);
  std::vector<T> x(static_cast<std::size_t>(ld * std::max<std::int64_t>(1, cols)), T(0));
  if (fill) {
    const auto ra = l.row_axis(), ca = l.col_axis();
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) {
        const double v = 1.0 + static_cast<double>(ra.to_global(pr, i)) + static_cast<double>(ca.to_global(pc, j)) * static_cast<double>(l.m);
        if constexpr (std::is_floating_point_v<T>)
          x[static_cast<std::size_t>(j * ld + i)] = static_cast<T>(v);
        else
          x[static_cast<std::size_t>(j * ld + i)] = T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(-v));
      }
  }
  return x;
}

// Rank 0: the table of every variant and the ratios (COSTA / each redist variant, each
// over the floor; medians of wall time).
void print_results(const std::string& shape, const char* type, int np, int reps, const std::vector<std::string>& names,
                   const std::vector<Acc>& acc, std::uint64_t checksum, bool costa, std::size_t variants) {
  std::printf("# %s, type %s, P=%d, reps=%d round robin; wall = slowest rank, cpu = summed over ranks; rank 0's "
              "phases; same = identical to PxGEMR2D's result\n",
              shape.c_str(), type, np, reps);
  std::printf("%-12s %9s %9s %9s %9s | %8s %8s %8s %8s %6s %6s %s\n", "variant", "wall_min", "wall_med", "cpu_min",
              "cpu_med", "local", "transfer", "pack", "unpack", "msgs", "steps", "same");
  for (std::size_t v = 0; v < names.size(); ++v) {
    const auto& a = acc[v];
    std::printf("%-12s %9.4f %9.4f %9.4f %9.4f | %8.4f %8.4f %8.4f %8.4f %6lld %6d %s\n", names[v].c_str(),
                *std::min_element(a.wall.begin(), a.wall.end()), median(a.wall),
                *std::min_element(a.cpu.begin(), a.cpu.end()), median(a.cpu), a.st.local_copy_s, a.st.transfer_s,
                a.st.pack_s, a.st.unpack_s, static_cast<long long>(a.st.messages), a.st.steps,
                names[v] == "floor" ? "-" : a.same ? "ok" : "DIFFERENT");
  }
  // COSTA / each redist variant and each over the floor (medians of wall time).
  const auto at = [&](const char* n) {
    for (std::size_t v = 0; v < names.size(); ++v)
      if (names[v] == n) return median(acc[v].wall);
    return 0.0;
  };
  std::printf("checksum of PxGEMR2D's result %016llx\n", static_cast<unsigned long long>(checksum));
  if (costa)
    std::printf("ratio %-12s COSTA/PxGEMR2D %.2fx (with the drop-in preloaded: COSTA / the drop-in)\n", "PxGEMR2D",
                at("COSTA") / at("PxGEMR2D"));
  for (std::size_t v = 0; v < variants; ++v) {
    const double t = median(acc[v].wall);
    std::printf("ratio %-12s COSTA/redist %s  PxGEMR2D/redist %.2fx  redist/floor %.1fx\n", names[v].c_str(),
                costa ? (std::to_string(at("COSTA") / t).substr(0, 5) + "x").c_str() : "-", at("PxGEMR2D") / t,
                t / std::max(1e-9, at("floor")));
  }
}

template <class T>
void run(const redist::bench::ShapeCase& s, const std::string& shape, int reps, const std::vector<std::string>& variants,
         void* costa_so) {
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  CostaTyped* cn = nullptr;
  if (costa_so) {
    const std::string sym = std::string("malleable_bench_costa_transform_") + letter<T>();
    cn = reinterpret_cast<CostaTyped*>(dlsym(costa_so, sym.c_str()));
    if (!cn && me == 0) std::fprintf(stderr, "--costa-native has no %s (rebuild it from costa_native.cpp)\n", sym.c_str());
  }
  std::vector<int> ra(static_cast<std::size_t>(s.ga.size())), rb(static_cast<std::size_t>(s.gb.size()));
  for (std::size_t k = 0; k < ra.size(); ++k) ra[k] = static_cast<int>(k);
  for (std::size_t k = 0; k < rb.size(); ++k) rb[k] = static_cast<int>(k);
  const auto la = redist::Layout::block_cyclic(s.m, s.n, s.mba, s.nba, s.ga.r, s.ga.c);
  const auto lb = redist::Layout::block_cyclic(s.m, s.n, s.mbb, s.nbb, s.gb.r, s.gb.c);
  std::int64_t lda = 1, ldb = 1;
  bool ina = false, inb = false;
  const auto A = local_of<T>(la, me, true, lda, ina);
  auto B = local_of<T>(lb, me, false, ldb, inb);
  // PxGEMR2D's result, the reference for every variant.
  const int sys = Csys2blacs_handle(MPI_COMM_WORLD);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, np);
  std::vector<T> ref;
  {
    redist::BlacsGrid ga(sys, la), gb(sys, lb);
    const auto da = la.to_desc(ga.ctxt(), static_cast<int>(lda));
    const auto db = lb.to_desc(gb.ctxt(), static_cast<int>(ldb));
    std::vector<std::string> names = variants;
    if (cn) names.push_back("COSTA");
    names.push_back("PxGEMR2D");
    names.push_back("floor");
    const auto plan = redist::make_plan(la, lb, redist::Region::whole(la), np, redist::ScheduleKind::Default);
    const auto floor_bytes = static_cast<std::size_t>(plan.stats.recv_by_rank[static_cast<std::size_t>(me)]) * sizeof(T);
    std::vector<char> fsrc(floor_bytes, 1), fdst(floor_bytes, 2);
    std::vector<Acc> acc(names.size());
    std::uint64_t checksum = 0;
    for (int r = -1; r < reps; ++r)  // r = -1: PxGEMR2D's reference, untimed
      for (std::size_t v = 0; v < names.size(); ++v) {
        if (r < 0 && names[v] != "PxGEMR2D") continue;
        std::fill(B.begin(), B.end(), T(0));
        redist::ExecStats st;
        MPI_Barrier(MPI_COMM_WORLD);
        const double c0 = cpu_now(), t0 = MPI_Wtime();
        if (names[v] == "COSTA") {
          char err[256] = "";
          if (cn(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.mba), static_cast<int>(s.nba), s.ga.r,
                 s.ga.c, ra.data(), ina ? A.data() : nullptr, static_cast<int>(lda), static_cast<int>(s.mbb),
                 static_cast<int>(s.nbb), s.gb.r, s.gb.c, rb.data(), inb ? B.data() : nullptr, static_cast<int>(ldb),
                 MPI_COMM_WORLD, 0, err, sizeof err))
            std::fprintf(stderr, "COSTA: %s\n", err);
        } else if (names[v] == "PxGEMR2D") {
          gemr2d(static_cast<int>(s.m), static_cast<int>(s.n), ina ? A.data() : nullptr, da.data(),
                 inb ? B.data() : nullptr, db.data(), gctxt);
        } else if (names[v] == "floor") {
          if (floor_bytes) std::memcpy(fdst.data(), fsrc.data(), floor_bytes);
        } else {
          redist::redistribute<T>(MPI_COMM_WORLD, la, ina ? A.data() : nullptr, lda, lb, inb ? B.data() : nullptr, ldb,
                                  redist::ScheduleKind::Default, options_of(names[v]), &st);
        }
        double t[2] = {MPI_Wtime() - t0, cpu_now() - c0}, w = 0, c = 0;
        MPI_Reduce(&t[0], &w, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&t[1], &c, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (r < 0) {
          ref = B;
          // A checksum of PxGEMR2D's result over all ranks, so runs with the drop-in preloaded
          // (PxGEMR2D served by redist) can be compared with stock ones.
          std::uint64_t h = 1469598103934665603ull;
          const auto* p = reinterpret_cast<const unsigned char*>(B.data());
          for (std::size_t k = 0; k < B.size() * sizeof(T); ++k) h = (h ^ p[k]) * 1099511628211ull;
          h ^= static_cast<std::uint64_t>(me + 1) * 0x9E3779B97F4A7C15ull;
          MPI_Reduce(&h, &checksum, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
          continue;
        }
        if (floor_bytes) fsrc[0] = fdst[floor_bytes - 1];
        acc[v].wall.push_back(w);
        acc[v].cpu.push_back(c);
        if (r == reps - 1) acc[v].st = st;
        if (names[v] == "floor") continue;
        int same = std::memcmp(ref.data(), B.data(), B.size() * sizeof(T)) == 0, all = 0;
        MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        acc[v].same = std::min(acc[v].same, all);
      }
    if (me == 0) print_results(shape, letter<T>(), np, reps, names, acc, checksum, cn != nullptr, variants.size());
  }
  Cblacs_gridexit(gctxt);
  Cfree_blacs_system_handle(sys);
}

}  // namespace

namespace redist::bench {
int case_exec(int me, int np, int argc, char** argv) {
  CLI::App app{"malleable-redist-bench exec"};
  std::string shape = "4000x4000:64x64@1x2:64x64@2x1", costa, type = "d";
  std::vector<std::string> variants{"no-shm", "shm"};
  int reps = 15;
  app.add_option("--shape", shape, "MxN:mbxnb@PxQ:mbxnb@PxQ");
  app.add_option("--reps", reps);
  app.add_option("--type", type, "element type: s, d, c or z");
  app.add_option("--variants", variants)->delimiter(',');
  app.add_option("--costa-native", costa, "COSTA's native transform (redist/bench/costa_native.cpp built)");
  if (const auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  const auto s = redist::bench::parse_shape(shape);
  if (s.ranks() != np) {
    if (me == 0) std::fprintf(stderr, "run on exactly %d ranks\n", s.ranks());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  void* so = nullptr;
  if (!costa.empty() && !(so = dlopen(costa.c_str(), RTLD_NOW | RTLD_LOCAL))) {
    if (me == 0) std::fprintf(stderr, "--costa-native %s: %s\n", costa.c_str(), dlerror());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (type == "s") run<float>(s, shape, reps, variants, so);
  else if (type == "d") run<double>(s, shape, reps, variants, so);
  else if (type == "c") run<std::complex<float>>(s, shape, reps, variants, so);
  else if (type == "z") run<std::complex<double>>(s, shape, reps, variants, so);
  else if (me == 0) std::fprintf(stderr, "--type: s, d, c or z, not %s\n", type.c_str());
  MPI_Finalize();
  return 0;
}
}  // namespace redist::bench
