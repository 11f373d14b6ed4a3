// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench redist's shape mode: PDGEMR2D, redist, COSTA and the memcpy floor
// side by side on one case at a time, round robin, results checked element for element.
#include "shapes_bench.hpp"

#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"
#include "malleable/redist/traffic.hpp"

namespace redist::bench {

using calib::max_over;

ShapeCase parse_shape(const std::string& t, const std::string& kind) {
  ShapeCase s;
  s.text = t;
  s.kind = kind;
  long long m = 0, n = 0, mba = 0, nba = 0, mbb = 0, nbb = 0;
  if (std::sscanf(t.c_str(), "%lldx%lld:%lldx%lld@%dx%d:%lldx%lld@%dx%d", &m, &n, &mba, &nba, &s.ga.r, &s.ga.c, &mbb,
                  &nbb, &s.gb.r, &s.gb.c) != 10 || m <= 0 || n <= 0 || mba <= 0 || nba <= 0 || mbb <= 0 || nbb <= 0 ||
      s.ga.r <= 0 || s.ga.c <= 0 || s.gb.r <= 0 || s.gb.c <= 0)
    throw std::runtime_error("--shapes \"" + t + "\" is not MxN:mbxnb@PxQ:mbxnb@PxQ");
  s.m = m, s.n = n, s.mba = mba, s.nba = nba, s.mbb = mbb, s.nbb = nbb;
  return s;
}

const std::vector<ShapeCase>& tiny_cases() {
  // Blocks of 1, 2, 3 and long thin matrices, where per-block costs used to dominate (the
  // 4,194,304 x 1 vector, blocks 1 -> 2 on 2 processes, was 15x slower than PDGEMR2D), and
  // the nb = 64 -> 100 reference.
  static const std::vector<ShapeCase> v = [] {
    std::vector<ShapeCase> c;
    for (const auto& [t, k] : std::vector<std::pair<const char*, const char*>>{
             {"4194304x1:1x1@2x1:2x1@2x1", "thin, blocks 1->2"},
             {"4194304x1:2x1@2x1:3x1@2x1", "thin, blocks 2->3"},
             {"4194304x1:3x1@2x1:1x1@2x1", "thin, blocks 3->1"},
             {"4194304x1:64x1@2x1:100x1@2x1", "thin, blocks 64->100"},
             {"1x4194304:1x1@1x2:1x2@1x2", "thin row, blocks 1->2"},
             {"1x4194304:1x3@1x2:1x1@2x1", "thin row, 3->1, 1x2->2x1"},
             {"2000x2000:1x1@1x2:2x2@2x1", "tiny blocks 1->2, 1x2->2x1"},
             {"2000x2000:2x2@2x1:3x3@1x2", "tiny blocks 2->3, 2x1->1x2"},
             {"2000x2000:3x3@1x2:1x1@2x1", "tiny blocks 3->1, 1x2->2x1"},
             {"1000000x4:1x1@2x1:3x2@2x1", "thin 4 cols, 1x1->3x2"},
             {"4194304x1:1x1@4x1:2x1@2x2", "thin, 4x1->2x2"},
             {"2000x2000:1x1@2x2:3x3@4x1", "tiny blocks 1->3, 2x2->4x1"}})
      c.push_back(parse_shape(t, k));
    return c;
  }();
  return v;
}

const std::vector<ShapeCase>& suite_cases() {
  static const std::vector<ShapeCase> v = [] {
    std::vector<ShapeCase> c;
    for (const auto& [t, k] : std::vector<std::pair<const char*, const char*>>{
             {"4000x4000:64x64@2x2:64x64@3x3", "expansion 4->9"},
             {"4000x4000:64x64@1x2:64x64@2x2", "expansion 2->4"},
             {"4000x4000:64x64@3x3:64x64@2x2", "shrink 9->4"},
             {"4000x4000:64x64@2x2:64x64@1x1", "shrink 4->1"},
             {"4000x4000:64x64@3x3:100x100@3x3", "block size 64->100 on 3x3"},
             {"4000x4000:64x64@2x4:64x64@4x2", "reshape 2x4->4x2"},
             {"4000x4000:64x64@1x9:64x64@9x1", "reshape 1x9->9x1"},
             {"4000x4000:64x64@1x2:64x64@2x1", "reshape 1x2->2x1"},
             {"4000x4000:4000x1000@1x4:1000x4000@4x1", "panels: columns->rows, 4"},
             {"4000x4000:4000x2000@1x2:2000x4000@2x1", "panels: columns->rows, 2"},
             {"8000x500:64x64@2x2:64x64@4x1", "tall 8000x500, 2x2->4x1"}})
      c.push_back(parse_shape(t, k));
    for (const auto& t : tiny_cases()) c.push_back(t);
    return c;
  }();
  return v;
}

CostaGemr2d* load_costa(const std::string& dir) {
  if (dir.empty()) return nullptr;
  std::string tried;
  for (const char* sub : {"/lib/", "/lib64/", "/", "/src/costa/"}) {
    const std::string path = dir + sub + "libcosta_prefixed_scalapack.so";
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      if (void* f = dlsym(h, "costa_pdgemr2d")) return reinterpret_cast<CostaGemr2d*>(f);
      throw std::runtime_error("--costa: " + path + " has no costa_pdgemr2d");
    }
    tried += " " + path;
  }
  throw std::runtime_error("--costa " + dir + ": no libcosta_prefixed_scalapack.so (build COSTA as a shared "
                           "library with COSTA_SCALAPACK set); tried" + tried);
}

CostaNative* load_costa_native(const std::string& path) {
  if (path.empty()) return nullptr;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error("--costa-native " + path + ": " + dlerror());
  if (void* f = dlsym(h, "malleable_bench_costa_transform")) return reinterpret_cast<CostaNative*>(f);
  throw std::runtime_error("--costa-native " + path + " has no malleable_bench_costa_transform "
                           "(build it from redist/bench/costa_native.cpp)");
}

namespace {

// This rank's local array of layout l, element (i, j) of the global matrix holding
// 1 + i + j*m when `fill` (distinct for every element, exact in a double), else 0.
calib::Local allocate_unique(const Layout& l, int rank, bool fill) {
  calib::Local x = calib::allocate(l, rank, false);
  if (!fill || !x.in) return x;
  int pr = 0, pc = 0;
  l.coords_of(rank, pr, pc);
  const Axis rows = l.row_axis(), cols = l.col_axis();
  std::vector<std::int64_t> gi(static_cast<std::size_t>(x.rows));
  for (std::int64_t i = 0; i < x.rows; ++i) gi[static_cast<std::size_t>(i)] = rows.to_global(pr, i);
  for (std::int64_t j = 0; j < x.cols; ++j) {
    const std::int64_t gj = cols.to_global(pc, j);
    double* col = x.data.data() + j * x.ld;
    for (std::int64_t i = 0; i < x.rows; ++i)
      col[i] = 1.0 + static_cast<double>(gi[static_cast<std::size_t>(i)]) + static_cast<double>(gj) * static_cast<double>(l.m);
  }
  return x;
}

ExecOptions options_of(const std::string& v) {
  ExecOptions o;
  if (v == "datatype")
    o.transport = Transport::Datatype;
  else if (v == "packed")
    o.transport = Transport::Packed;
  else if (v == "auto")
    o.transport = Transport::Auto;
  else if (v == "auto-unfused")  // the local copy as a pass of its own (ExecOptions::fuse_local off)
    o.fuse_local = false;
  else if (v == "single-copy")  // every transfer within the node read in one copy (ExecOptions::single_copy On)
    o.single_copy = SingleCopy::On;
  else if (v == "window")  // every transfer within the node through the window (single_copy Off)
    o.single_copy = SingleCopy::Off;
  else if (v == "node-window")  // the same node's transfers through a shared window (ExecOptions::node_window)
    o.node_window = true;
  else if (v == "no-node-window")
    o.node_window = false;
  else
    throw std::runtime_error("--variants " + v +
                             " is not datatype, packed, auto, auto-unfused, single-copy, window, node-window or no-node-window");
  return o;
}

// The node of every rank of `comm` (its processor name), numbered by first appearance.
std::vector<int> nodes_of_ranks(MPI_Comm comm) {
  int size = 0, len = 0;
  MPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  return node_ids(hosts);
}

struct Phases {
  double plan = 1e30, check = 0, local = 0, transfer = 0, total = 1e30, pack = 0, unpack = 0;
};

void print_header() {
  std::printf("%-40s %-28s %2s %8s %8s %8s %8s %8s %9s %9s %7s %8s %8s %s\n", "case", "shape", "P", "moved_MB",
              "floor_s", "gemr2d_s", "redist_s", "c_api_s", "costa_s", "costa_wr_s", "x_floor", "gemr2d/r", "costa/r",
              "check");
}

}  // namespace

namespace {

// One case's arrays and descriptors on the ranks of `comm` (the case's P ranks).
struct CaseEnv {
  const ShapeCase& s;
  MPI_Comm comm;
  int me, P, sys, gctxt;
  Layout a, b;
  calib::Local A, R, B, C, K;
  std::vector<int> ranks_a, ranks_b;  // both grids' rank maps (row-major grid -> rank), as COSTA takes them
  bool same_grid_shape;
  template <class F>
  double timed(F&& f) const {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    f();
    return max_over(comm, MPI_Wtime() - t0);
  }
  int all_same(const calib::Local& x) const {  // every rank's x equals PDGEMR2D's result R
    int ok = x.data == R.data ? 1 : 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
  }
};

// What one case measured (fastest repetition of each; same_*: identical to PDGEMR2D's).
struct CaseRun {
  double moved = 0, link_bound = 0;
  int nodes = 1;
  NodeTraffic traffic;
  double t_floor = 1e30, t_floor_all = 1e30, t_ref = 1e30, t_cpp = 1e30, t_c = 1e30, t_costa = 1e30,
         t_native = 1e30, native_spent = 0;
  double t_cold = 0;  // redist's first call of the case into a B nobody has touched
  double t_touched = 0;  // a first call on a new communicator into a B faulted in ahead, caches flushed
  std::vector<double> cpp_runs;  // every warm repetition of redist (C++), for their median
  std::vector<double> cold_b;  // its result, compared with PDGEMR2D's once that ran
  int same_cpp = 1, same_c = 1, same_costa = 1, same_native = 1, native_reps = 0;
  std::string native_error;
  std::vector<Phases> phases;
  std::vector<int> same_var;
};

// One repetition of COSTA's native transform, while its time budget lasts.
void time_native(CaseEnv& e, const ShapeOptions& opt, CaseRun& r) {
  if (!opt.costa_native || !r.native_error.empty() || (r.native_reps > 0 && r.native_spent >= opt.costa_budget_s))
    return;
  const ShapeCase& s = e.s;
  calib::Local& K = e.K;
  std::fill(K.data.begin(), K.data.end(), 0.0);
  char err[256] = "";
  int rc = 0;
  const double t = e.timed([&] {
    rc = opt.costa_native(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.mba), static_cast<int>(s.nba),
                          s.ga.r, s.ga.c, e.ranks_a.data(), e.A.in ? e.A.data.data() : nullptr, static_cast<int>(e.A.ld),
                          static_cast<int>(s.mbb), static_cast<int>(s.nbb), s.gb.r, s.gb.c, e.ranks_b.data(),
                          K.in ? K.data.data() : nullptr, static_cast<int>(K.ld), e.comm, opt.costa_layout_mode, err,
                          static_cast<int>(sizeof err));
  });
  int bad = rc != 0, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, e.comm);
  if (any_bad) {
    r.native_error = rc ? err : "failed on another rank";
  } else {
    r.t_native = std::min(r.t_native, t);
    r.native_spent += t;
    ++r.native_reps;
    r.same_native = std::min(r.same_native, e.all_same(K));
  }
  // Everyone agrees on whether to go on (the budget is measured as the slowest rank's).
  MPI_Bcast(&r.native_spent, 1, MPI_DOUBLE, 0, e.comm);
}

// One repetition of every redist variant (ExecOptions by name), with its phases.
void time_variants(CaseEnv& e, const ShapeOptions& opt, CaseRun& r) {
  for (std::size_t v = 0; v < opt.variants.size(); ++v) {
    const ExecOptions eo = options_of(opt.variants[v]);
    Phases& ph = r.phases[v];
    std::fill(e.B.data.begin(), e.B.data.end(), 0.0);
    RedistPlan plan;
    ph.plan = std::min(ph.plan, e.timed([&] { plan = make_plan(e.a, e.b, Region::whole(e.a), e.P, ScheduleKind::Default, e.me); }));
    ExecStats st;
    const double t = e.timed([&] {
      redist::redistribute<double>(e.comm, plan, e.A.in ? e.A.data.data() : nullptr, e.A.ld,
                                   e.B.in ? e.B.data.data() : nullptr, e.B.ld, eo, &st);
    });
    const double check = max_over(e.comm, st.check_s), local = max_over(e.comm, st.local_copy_s),
                 transfer = max_over(e.comm, st.transfer_s), pack = max_over(e.comm, st.pack_s),
                 unpack = max_over(e.comm, st.unpack_s);
    if (t < ph.total) ph = {ph.plan, check, local, transfer, t, pack, unpack};
    r.same_var[v] = std::min(r.same_var[v], e.all_same(e.B));
  }
}

// Cold, as a resize's move runs: redist's first call of the case, once, into a B of fresh
// anonymous pages (its first touch is the call's, as a resize's new local arrays are),
// before any warm repetition; the process's first case also makes the node window's
// segment and the communicator's node map in it. Its result is checked with the others'.
void measure_cold(CaseEnv& e, CaseRun& r) {
  const std::size_t bytes = std::max<std::size_t>(e.B.data.size(), 1) * sizeof(double);
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::runtime_error("redist: mmap of the cold B failed");
  auto* b = static_cast<double*>(m);
  r.t_cold = e.timed([&] {
    redist::redistribute<double>(e.comm, e.a, e.A.in ? e.A.data.data() : nullptr, e.A.ld, e.b, e.B.in ? b : nullptr, e.B.ld);
  });
  if (e.B.in) r.cold_b.assign(b, b + e.B.data.size());
  munmap(m, bytes);
}

// As a resize's move meets its arrays when the prefault thread has faulted them in: a first
// call on a new communicator (its node map made anew) into a B of pages written before (no
// fault in the call), after 64 MiB of other writes have pushed A and B out of the caches, as
// the iteration before a resize does. Unlike the move, the node window's segments of the
// other ranks are already mapped here (made by the earlier calls). Timed after the warm
// repetitions; its result is checked.
void measure_touched(CaseEnv& e, CaseRun& r) {
  std::vector<double> b(e.B.data.size(), 0.0);  // written (faulted in); zero as the warm calls' B, padding included
  std::vector<char> flush(std::size_t{64} << 20);
  std::memset(flush.data(), 3, flush.size());
  MPI_Comm d = MPI_COMM_NULL;
  MPI_Comm_dup(e.comm, &d);
  MPI_Barrier(d);
  const double t0 = MPI_Wtime();
  redist::redistribute<double>(d, e.a, e.A.in ? e.A.data.data() : nullptr, e.A.ld, e.b, e.B.in ? b.data() : nullptr, e.B.ld);
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, d);
  MPI_Comm_free(&d);
  r.t_touched = t;
  int ok = !e.B.in || b == e.R.data ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, e.comm);
  r.same_cpp = std::min(r.same_cpp, ok);
}

// All repetitions of one case, round robin: the floors, PDGEMR2D, redist (C++ and C API),
// COSTA (native, and the wrapper where A and B share a grid shape), the variants.
void measure(CaseEnv& e, const ShapeOptions& opt, CaseRun& r) {
  const ShapeCase& s = e.s;
  const auto stats = redist::plan_stats(e.a, e.b, e.P);
  r.moved = static_cast<double>(stats.elements_moved) * sizeof(double);
  // The floor: every rank copies the bytes it receives from other ranks, all at once
  // (no redistribution can land them with fewer copies).
  const auto floor_bytes = static_cast<std::size_t>(stats.recv_by_rank[static_cast<std::size_t>(e.me)]) * sizeof(double);
  // On a cluster no schedule beats the busiest node link: its inter-node bytes / rate.
  const auto node_of = nodes_of_ranks(e.comm);
  r.traffic = node_traffic(e.a, e.b, Region::whole(e.a), e.P, node_of);
  r.nodes = 1 + *std::max_element(node_of.begin(), node_of.end());
  r.link_bound = opt.link_bits > 0 ? static_cast<double>(r.traffic.max_link_elements()) * sizeof(double) * 8.0 / opt.link_bits : 0.0;
  std::vector<char> fsrc(floor_bytes, 1), fdst(floor_bytes, 2);
  // A second floor that counts the copies a rank makes of its own elements too: every
  // element of B is written, from another rank or from the rank's own A, so each rank
  // copying its whole local B is a floor for any redistribution between distinct
  // arrays (the first floor leaves the local copies out).
  const auto floor_all_bytes = static_cast<std::size_t>(e.R.rows * e.R.cols) * sizeof(double);
  std::vector<char> asrc(floor_all_bytes, 1), adst(floor_all_bytes, 2);
  redist::BlacsGrid ga(e.sys, e.a), gb(e.sys, e.b);
  const auto da = e.a.to_desc(ga.ctxt(), static_cast<int>(e.A.ld));
  const auto db = e.b.to_desc(gb.ctxt(), static_cast<int>(e.R.ld));
  r.phases.assign(opt.variants.size(), Phases{});
  r.same_var.assign(opt.variants.size(), 1);
  const double* a = e.A.in ? e.A.data.data() : nullptr;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n);
  measure_cold(e, r);
  for (int rep = 0; rep < opt.reps; ++rep) {
    r.t_floor = std::min(r.t_floor, e.timed([&] {
      if (floor_bytes) std::memcpy(fdst.data(), fsrc.data(), floor_bytes);
    }));
    if (floor_bytes) fsrc[0] = fdst[floor_bytes - 1];  // keep the copy live
    r.t_floor_all = std::min(r.t_floor_all, e.timed([&] {
      if (floor_all_bytes) std::memcpy(adst.data(), asrc.data(), floor_all_bytes);
    }));
    if (floor_all_bytes) asrc[0] = adst[floor_all_bytes - 1];
    r.t_ref = std::min(r.t_ref, e.timed([&] {
      Cpdgemr2d(m, n, a, 1, 1, da.data(), e.R.in ? e.R.data.data() : nullptr, 1, 1, db.data(), e.gctxt);
    }));
    std::fill(e.B.data.begin(), e.B.data.end(), 0.0);
    r.cpp_runs.push_back(e.timed([&] {
      redist::redistribute<double>(e.comm, e.a, a, e.A.ld, e.b, e.B.in ? e.B.data.data() : nullptr, e.B.ld);
    }));
    r.t_cpp = std::min(r.t_cpp, r.cpp_runs.back());
    r.same_cpp = std::min(r.same_cpp, e.all_same(e.B));
    if (rep == 0) {  // the cold call's result, now that PDGEMR2D's is known
      int ok = !e.B.in || r.cold_b == e.R.data ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, e.comm);
      r.same_cpp = std::min(r.same_cpp, ok);
      std::vector<double>().swap(r.cold_b);
    }
    std::fill(e.C.data.begin(), e.C.data.end(), 0.0);
    int rc = REDIST_SUCCESS;
    r.t_c = std::min(r.t_c, e.timed([&] {
      rc = redist_Cpdgemr2d(m, n, a, 1, 1, da.data(), e.C.in ? e.C.data.data() : nullptr, 1, 1, db.data(), e.gctxt,
                            REDIST_DEFAULT);
    }));
    r.same_c = std::min(r.same_c, rc == REDIST_SUCCESS ? e.all_same(e.C) : 0);
    time_native(e, opt, r);
    if (opt.costa && e.same_grid_shape) {
      std::fill(e.K.data.begin(), e.K.data.end(), 0.0);
      const int one = 1;
      // COSTA's wrapper describes both matrices with ICTXT's grid dimensions
      // (costa_pxgemr2d.cpp passes Cblacs_gridinfo(ctxt) to both layouts): it is meant for
      // two matrices on one grid shape, so it runs only there, with A's own context (same
      // ranks, same shape). Grid changes go through COSTA's native API above.
      const int costa_ctxt = ga.ctxt();
      r.t_costa = std::min(r.t_costa, e.timed([&] {
        opt.costa(&m, &n, a, &one, &one, da.data(), e.K.in ? e.K.data.data() : nullptr, &one, &one, db.data(),
                  &costa_ctxt);
      }));
      r.same_costa = std::min(r.same_costa, e.all_same(e.K));
    }
    time_variants(e, opt, r);
  }
  measure_touched(e, r);
}

// Rank 0: the case's line (and its ## lines) and its JSON object.
void report(const ShapeCase& s, int P, unsigned cores, const ShapeOptions& opt, bool same_grid_shape, const CaseRun& r,
            nlohmann::json& results) {
  const bool native_ran = opt.costa_native && r.native_error.empty();
  const bool wrapper_ran = opt.costa && same_grid_shape;
  char costa_col[32] = "not built", costa_ratio[32] = "-", wrapper_col[32] = "-";
  if (native_ran) {
    std::snprintf(costa_col, sizeof costa_col, "%.4f", r.t_native);
    std::snprintf(costa_ratio, sizeof costa_ratio, "%.2fx", r.t_native / r.t_cpp);
  } else if (opt.costa_native) {
    std::snprintf(costa_col, sizeof costa_col, "error");
  }
  if (wrapper_ran) std::snprintf(wrapper_col, sizeof wrapper_col, "%.4f", r.t_costa);
  std::string check = r.same_cpp && r.same_c ? "ok" : "MISMATCH(redist)";
  if (native_ran && !r.same_native) check += " COSTA-DIFFERS";
  if (wrapper_ran && !r.same_costa) check += " costa-wrapper-differs";
  std::printf("%-40s %-28s %2d %8.1f %8.4f %8.4f %8.4f %8.4f %9s %9s %6.2fx %7.2fx %8s %s%s\n",
              ("\"" + s.kind + "\"").c_str(), s.text.c_str(), P, r.moved / 1e6, r.t_floor, r.t_ref, r.t_cpp, r.t_c,
              costa_col, wrapper_col, r.t_cpp / std::max(r.t_floor, 1e-9), r.t_ref / r.t_cpp, costa_ratio, check.c_str(),
              static_cast<unsigned>(P) > cores ? " (P>cores)" : "");
  if (!r.native_error.empty()) std::printf("##   COSTA transform failed: %s\n", r.native_error.c_str());
  if (native_ran && r.native_reps < opt.reps)
    std::printf("##   COSTA: %d of %d repetitions (stopped after %.1f s, --costa-budget)\n", r.native_reps, opt.reps,
                r.native_spent);
  nlohmann::json row = {{"case", s.kind},
                        {"shape", s.text},
                        {"ranks", P},
                        {"cores", cores},
                        {"moved_bytes", r.moved},
                        {"floor_s", r.t_floor},
                        {"floor_with_local_s", r.t_floor_all},
                        {"pdgemr2d_s", r.t_ref},
                        {"redist_s", r.t_cpp},
                        {"redist_med_s", calib::median(r.cpp_runs)},
                        {"redist_cold_s", r.t_cold},
                        {"redist_touched_s", r.t_touched},
                        {"redist_c_api_s", r.t_c},
                        {"costa_s", native_ran          ? nlohmann::json(r.t_native)
                                    : opt.costa_native ? nlohmann::json("error: " + r.native_error)
                                                       : nlohmann::json("not built")},
                        {"costa_api", opt.costa_layout_mode == 1 ? "custom_layout + transform"
                                                                  : "block_cyclic_layout + transform"},
                        {"costa_reps", r.native_reps},
                        {"costa_identical_to_pdgemr2d", native_ran ? nlohmann::json(r.same_native == 1) : nlohmann::json()},
                        {"costa_wrapper_s", wrapper_ran ? nlohmann::json(r.t_costa)
                                            : opt.costa ? nlohmann::json("unsupported: A and B on different grid shapes")
                                                        : nlohmann::json("not built")},
                        {"costa_wrapper_identical_to_pdgemr2d",
                         wrapper_ran ? nlohmann::json(r.same_costa == 1) : nlohmann::json()},
                        {"redist_identical_to_pdgemr2d", r.same_cpp == 1 && r.same_c == 1},
                        {"reps", opt.reps}};
  if (opt.link_bits > 0) {
    const double inter = static_cast<double>(r.traffic.elements_inter_node) * sizeof(double);
    char costa_part[48] = "";
    if (native_ran && r.link_bound > 0) std::snprintf(costa_part, sizeof costa_part, ", COSTA %.2fx", r.t_native / r.link_bound);
    std::printf("##   link: %d nodes, %.1f MB between nodes, busiest link %.1f MB, bound %.4f s at %.3g bit/s;"
                " redist %.2fx the bound%s\n",
                r.nodes, inter / 1e6, static_cast<double>(r.traffic.max_link_elements()) * sizeof(double) / 1e6,
                r.link_bound, opt.link_bits, r.link_bound > 0 ? r.t_cpp / r.link_bound : 0.0, costa_part);
    row["nodes"] = r.nodes;
    row["bytes_inter_node"] = inter;
    row["link_bits_per_s"] = opt.link_bits;
    row["link_bound_s"] = r.link_bound;
  }
  std::printf("##   floor with local copies (every rank copies its whole B): %.4f s; redist %.2fx it\n", r.t_floor_all,
              r.t_cpp / std::max(r.t_floor_all, 1e-9));
  std::printf("##   redist cold (first call, B of fresh pages): %.4f s, %.2fx warm (best of %d; their median %.4f s)\n",
              r.t_cold, r.t_cold / std::max(r.t_cpp, 1e-9), opt.reps, calib::median(r.cpp_runs));
  std::printf("##   redist first call on a new communicator, B faulted in ahead, caches flushed: %.4f s, %.2fx warm\n",
              r.t_touched, r.t_touched / std::max(r.t_cpp, 1e-9));
  for (std::size_t v = 0; v < opt.variants.size(); ++v) {
    const Phases& ph = r.phases[v];
    std::printf("##   %-12s total %8.4f  plan %8.4f  check %8.4f  local %8.4f  transfer %8.4f"
                " (pack %6.4f  unpack %6.4f)%s\n",
                opt.variants[v].c_str(), ph.total, ph.plan, ph.check, ph.local, ph.transfer, ph.pack, ph.unpack,
                r.same_var[v] ? "" : "  MISMATCH");
    row["variants"][opt.variants[v]] = {{"total_s", ph.total},   {"plan_s", ph.plan},         {"check_s", ph.check},
                                        {"local_s", ph.local},   {"transfer_s", ph.transfer}, {"pack_s", ph.pack},
                                        {"unpack_s", ph.unpack}, {"identical", r.same_var[v] == 1}};
  }
  std::fflush(stdout);
  results.push_back(row);
}

}  // namespace

void run_shapes(const std::vector<ShapeCase>& cases, const ShapeOptions& opt, nlohmann::json& results) {
  int world = 0, wrank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  const unsigned cores = std::thread::hardware_concurrency();
  if (wrank == 0) print_header();
  for (const auto& s : cases) {
    const int P = s.ranks();
    if (P > world) {
      if (wrank == 0) std::printf("# skipping %s: needs %d ranks\n", s.text.c_str(), P);
      continue;
    }
    MPI_Comm comm = calib::case_comm(P, wrank);
    if (comm == MPI_COMM_NULL) continue;
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const int sys = Csys2blacs_handle(comm);
    int gctxt = sys;
    Cblacs_gridinit(&gctxt, "R", 1, P);
    {
      const Layout a = Layout::block_cyclic(s.m, s.n, s.mba, s.nba, s.ga.r, s.ga.c);
      const Layout b = Layout::block_cyclic(s.m, s.n, s.mbb, s.nbb, s.gb.r, s.gb.c);
      auto R = calib::allocate(b, me, false);
      CaseEnv e{s, comm, me, P, sys, gctxt, a, b, allocate_unique(a, me, true), R, R, R, R,
                a.rank_list(), b.rank_list(), s.ga.r == s.gb.r && s.ga.c == s.gb.c};
      CaseRun r;
      measure(e, opt, r);
      if (me == 0) report(s, P, cores, opt, e.same_grid_shape, r, results);
    }
    Cblacs_gridexit(gctxt);
    Cfree_blacs_system_handle(sys);
    MPI_Comm_free(&comm);
    calib::sleepy_barrier(MPI_COMM_WORLD, 500);
  }
}

}  // namespace redist::bench
