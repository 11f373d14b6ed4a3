// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench mapped: the routes between ranks of one node against the
// single-copy bound, interleaved in one run (scripts/bench/redist.sh mapped-bound runs it):
//   window       A in ordinary memory, the node window (pack into the sender's segment,
//                unpack by the receiver: two copies), SingleCopy::Off;
//   single-copy  A in ordinary memory, every transfer read by the kernel (SingleCopy::On);
//   mapped       A in a mapped array (redist_alloc): the receiver copies straight out of it
//                (one copy in user space), the default options (SingleCopy::Auto: a
//                transfer the kernel would copy goes mapped too); the receiver maps the
//                sender's array in each call (its pages as it reads them);
//   mapped-kept  the same with ExecOptions::mapped_keep: the mappings kept from call to call.
// Each repetition runs a copy probe (every rank memcpy's its local matrix, all at once; the
// copy rate is the best repetition's) and then the routes, in the table's order in odd
// repetitions and in the reverse order in even ones (so no route always follows another). The
// single-copy bound of a change is max over ranks of (kept_r + moved_r) / copy rate (no
// redistribution between distinct arrays can beat it; malleable/redist/bound.hpp); the
// fraction of a route is bound / its time (best, and median of the repetitions). The first
// call of each route (not counted) is printed apart: fresh arrays, so it includes what a
// route sets up (the window's segment and its mapping, a mapped array's mapping). With
// --huge two more routes run in the same repetitions, after the four: window-huge and
// single-copy-huge, the window and the kernel's single copy again with A and B in mappings
// of their own at 2 MiB alignment, madvise(MADV_HUGEPAGE) before the first touch
// (transparent huge pages: the kernel then pins the other process's pages of a single copy
// per 2 MiB instead of per 4 KiB), then auto and auto-huge: the default options
// (SingleCopy::Auto: a window send out of huge pages with pieces of 16 KiB and more read by
// its receiver with the kernel, reads_huge) on the ordinary arrays and on the huge ones, so
// auto-huge against window-huge is the default before and after that choice on huge pages,
// and auto against window the same on ordinary pages (where nothing should change); the row
// then also gives rank 0's memory in huge pages.
// Every route's B is compared bit for bit with the window's, and the window's with the
// values every element must have. One line per change and size; the load average before and after
// each, and whether it stayed within the job's ranks (quiet: yes; else **no**, and the row's
// times say little about the bound on a shared machine).
//   mpiexec -n 2 malleable-redist-bench mapped --mib 64,256 --reps 5 [--huge] --out TABLE.md
#include <mpi.h>
#include <sys/mman.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "malleable/redist/bound.hpp"
#include "malleable/redist/mapped.hpp"
#include "malleable/redist/redistribute.hpp"

#include "bench_cli.hpp"
#include "bound_bench.hpp"
#include "local_part.hpp"

namespace {

using redist::bench::bound::Change;
using redist::bench::bound::Times;
using redist::bench::bound::timed;

constexpr int kRoutes = 8;  // window, single-copy, mapped, mapped-kept; with --huge window-huge, single-copy-huge, auto, auto-huge
constexpr int kPlainRoutes = 4;
constexpr int kAuto = 6;  // the default options on the ordinary arrays (its own B)
const char* const kRouteNames[kRoutes] = {"window",           "single-copy", "mapped", "mapped-kept", "window-huge",
                                          "single-copy-huge", "auto",        "auto-huge"};

double value(std::int64_t i, std::int64_t j) { return static_cast<double>(i) * 1e-3 + static_cast<double>(j) * 7.0; }

struct Row {
  std::string change;
  int mib = 0, routes = kPlainRoutes;
  std::int64_t n = 0;
  double kept_mib = 0, moved_mib = 0, copy_gbs = 0, bound_s = 0, load_before = 0, load_after = 0, huge_mib = -1;
  Times t[kRoutes];
  double first[kRoutes] = {};
  double read[kRoutes] = {};  // of the bytes received (all ranks, all timed calls), those read by the kernel
  bool same = true;
  int ranks = 0;
};

// n doubles (at least one) in an anonymous mapping of their own at 2 MiB alignment, advised
// for transparent huge pages (madvise(MADV_HUGEPAGE)) before the first touch, then filled
// from `from` (its first n elements; the rest zeros). Unmapped on destruction.
class HugeArray {
 public:
  HugeArray(std::size_t n, const std::vector<double>& from);
  ~HugeArray() {
    if (map_ != MAP_FAILED) munmap(map_, len_);
  }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;
  double* data() { return p_; }
  bool same(const std::vector<double>& x) const { return std::memcmp(p_, x.data(), x.size() * sizeof(double)) == 0; }

 private:
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t len_ = 0;
  void* map_ = MAP_FAILED;
  double* p_ = nullptr;
};

HugeArray::HugeArray(std::size_t n, const std::vector<double>& from) {
  n = std::max<std::size_t>(n, 1);
  const std::size_t bytes = (n * sizeof(double) + kHuge - 1) / kHuge * kHuge;
  len_ = bytes + kHuge;
  map_ = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) throw std::runtime_error("mapped --huge: mmap failed");
  const std::uintptr_t at = (reinterpret_cast<std::uintptr_t>(map_) + kHuge - 1) / kHuge * kHuge;
  p_ = reinterpret_cast<double*>(at);
  (void)madvise(p_, bytes, MADV_HUGEPAGE);  // where the kernel allows them; else 4 KiB pages
  std::memset(p_, 0, n * sizeof(double));
  std::memcpy(p_, from.data(), std::min(n, from.size()) * sizeof(double));
}

// MiB of this process's anonymous memory in transparent huge pages (-1: not known).
double anon_huge_mib() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string key;
  double kib = 0;
  while (in >> key)
    if (key == "AnonHugePages:" && in >> kib) return kib / 1024.0;
  return -1;
}

// The routes' options, in the table's order.
void route_options(redist::ExecOptions (&opt)[kRoutes]) {
  opt[0].single_copy = redist::SingleCopy::Off;
  opt[1].single_copy = redist::SingleCopy::On;
  opt[3].mapped_keep = true;
  opt[4].single_copy = redist::SingleCopy::Off;
  opt[5].single_copy = redist::SingleCopy::On;  // 6 and 7: the default options
}

// Each route's arrays on this rank: its A (null off A's grid) and its B (null off B's grid).
struct RouteArrays {
  const double* a[kRoutes] = {};
  double* b[kRoutes] = {};
  std::int64_t lda = 1, ldb = 1;
};

// The copy probe's and the routes' repetitions (the first, untimed, warms up: maps, faults);
// returns the probe's times; row.read: each route's share of the received bytes the kernel read.
Times repeat(const redist::RedistPlan& plan, const redist::bench::LocalPart& a, const RouteArrays& x, int reps, Row& row) {
  redist::ExecOptions opt[kRoutes];
  route_options(opt);
  std::vector<double> copy(a.data.size());
  Times probe;
  double single[kRoutes] = {}, received[kRoutes] = {};
  for (int r = 0; r < reps + 1; ++r) {
    const double tp = timed(MPI_COMM_WORLD, [&] {
      if (!copy.empty()) std::memcpy(copy.data(), a.data.data(), copy.size() * sizeof(double));
    });
    if (r > 0) probe.add(tp);
    for (int i = 0; i < row.routes; ++i) {
      const int k = r % 2 == 0 ? row.routes - 1 - i : i;
      redist::ExecStats st;
      const double s = timed(MPI_COMM_WORLD, [&] {
        redist::redistribute<double>(MPI_COMM_WORLD, plan, x.a[k], x.lda, x.b[k], x.ldb, opt[k], &st);
      });
      if (r > 0)
        row.t[k].add(s), single[k] += static_cast<double>(st.bytes_single_copy), received[k] += static_cast<double>(st.bytes_received);
      else
        row.first[k] = s;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, single, kRoutes, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, received, kRoutes, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < kRoutes; ++k) row.read[k] = received[k] > 0 ? single[k] / received[k] : 0;
  return probe;
}

// The huge routes' arrays (empty without --huge): A, and B for each route past the plain
// ones but auto (whose arrays are ordinary).
struct HugeArrays {
  std::unique_ptr<HugeArray> a, b[kRoutes - kPlainRoutes];
};

// Each route's arrays: the plain routes' A (mapped: am), their B's (b), the huge ones' (h).
RouteArrays route_arrays(const redist::bench::LocalPart& a, const double* am, std::vector<redist::bench::LocalPart>& b,
                         HugeArrays& h, int routes) {
  RouteArrays x;
  x.lda = a.ld;
  x.ldb = b[0].ld;
  for (int k = 0; k < routes; ++k) {
    const bool huge = k >= kPlainRoutes && k != kAuto;
    x.a[k] = !a.in ? nullptr : huge ? h.a->data() : k >= 2 && k < kPlainRoutes ? am : a.ptr();
    x.b[k] = !b[0].in                ? nullptr
             : huge                  ? h.b[k - kPlainRoutes]->data()
             : k == kAuto            ? b[kPlainRoutes].ptr()
                                     : b[static_cast<std::size_t>(k)].ptr();
  }
  return x;
}

// Whether every route's B equals the window's and the window's holds every element's value,
// on every rank.
bool all_same(const redist::Layout& lb, int me, const std::vector<redist::bench::LocalPart>& b, const HugeArrays& h,
              int routes) {
  int ok = redist::bench::wrong_elements(lb, me, b[0], value) == 0;
  for (std::size_t k = 1; k < b.size(); ++k) ok = ok && b[k].data == b[0].data;
  for (int k = kPlainRoutes; k < routes; ++k) ok = ok && (k == kAuto || h.b[k - kPlainRoutes]->same(b[0].data));
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return ok == 1;
}

Row run_case(const Change& c, int mib, int reps, int me, int P, bool huge) {
  Row row;
  row.change = c.text;
  row.mib = mib;
  row.ranks = P;
  row.routes = huge ? kRoutes : kPlainRoutes;
  row.n = static_cast<std::int64_t>(std::sqrt(static_cast<double>(mib) * 1048576.0 * P / 8.0));
  const auto la = redist::Layout::block_cyclic(row.n, row.n, c.nba, c.nba, c.ga.r, c.ga.c);
  const auto lb = redist::Layout::block_cyclic(row.n, row.n, c.nbb, c.nbb, c.gb.r, c.gb.c);
  const auto plan = redist::make_plan(la, lb, redist::Region{row.n, row.n, 0, 0, 0, 0}, P);
  const auto a = redist::bench::local_part(la, me, true, value);
  redist::MappedArray<double> am(std::max<std::size_t>(1, a.data.size()));
  std::copy(a.data.begin(), a.data.end(), am.data());
  std::vector<redist::bench::LocalPart> b(huge ? kPlainRoutes + 1 : kPlainRoutes, redist::bench::sized_part(lb, me, 0.0));
  HugeArrays h;
  if (huge) {
    h.a = std::make_unique<HugeArray>(a.data.size(), a.data);
    for (int k = kPlainRoutes; k < kRoutes; ++k)
      if (k != kAuto) h.b[k - kPlainRoutes] = std::make_unique<HugeArray>(b[0].data.size(), b[0].data);
  }
  row.load_before = redist::bench::bound::load_average();
  const Times probe = repeat(plan, a, route_arrays(a, am.data(), b, h, row.routes), reps, row);
  row.load_after = redist::bench::bound::load_average();
  if (huge) row.huge_mib = anon_huge_mib();
  row.same = all_same(lb, me, b, h, row.routes);
  std::vector<double> kept, moved;
  redist::bench::bound::kept_moved(la, lb, P, kept, moved);
  double bytes = static_cast<double>(a.data.size() * sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double copy_Bps = bytes / probe.best();
  row.kept_mib = *std::max_element(kept.begin(), kept.end()) / 1048576.0;
  row.moved_mib = *std::max_element(moved.begin(), moved.end()) / 1048576.0;
  row.copy_gbs = copy_Bps / 1e9;
  row.bound_s = redist::bound_seconds(kept, moved, redist::BoundRates{copy_Bps, copy_Bps});
  return row;
}

void print(FILE* f, const Row& r) {
  std::fprintf(f, "| `%s` | %d | %lld | %.2f | %.2f | %.2f | %.5f |", r.change.c_str(), r.mib, static_cast<long long>(r.n),
               r.kept_mib, r.moved_mib, r.copy_gbs, r.bound_s);
  for (int k = 0; k < r.routes; ++k) {
    const Times& t = r.t[k];
    std::fprintf(f, " %.5f | %.5f | %.2f | %.2f |", t.best(), t.median(), r.bound_s / t.best(), r.bound_s / t.median());
  }
  for (int k = 0; k < r.routes; ++k) std::fprintf(f, " %.5f |", r.first[k]);
  if (r.routes > kPlainRoutes) std::fprintf(f, " %.0f | %.2f | %.2f |", r.huge_mib, r.read[kAuto], r.read[kAuto + 1]);
  const bool quiet = r.load_before >= 0 && r.load_before <= r.ranks && r.load_after >= 0 && r.load_after <= r.ranks;
  std::fprintf(f, " %s | %.2f-%.2f | %s |\n", r.same ? "yes" : "NO", r.load_before, r.load_after, quiet ? "yes" : "**no**");
}

// The table's head for `routes` routes.
std::string head(int routes) {
  std::string h = "| change | MiB/rank | N | kept MiB | moved MiB | copy GB/s | single-copy bound s |";
  int cols = 7;
  for (int k = 0; k < routes; ++k) {
    const std::string n = kRouteNames[k];
    h += " " + n + " best s | " + n + " median s | " + n + " / bound best | " + n + " / bound median |";
    cols += 4;
  }
  for (int k = 0; k < routes; ++k) h += " " + std::string(kRouteNames[k]) + " first s |", ++cols;
  if (routes > kPlainRoutes) h += " rank 0 huge-page MiB | auto read by the kernel | auto-huge read by the kernel |", cols += 3;
  h += " identical | load1 | quiet |\n|";
  for (cols += 3; cols > 0; --cols) h += "---|";
  return h + "\n";
}

// The changes parsed; every grid at most the job's P ranks.
std::vector<Change> parse_changes(const std::vector<std::string>& texts, int P) {
  std::vector<Change> out;
  for (const auto& t : texts) {
    out.push_back(redist::bench::bound::parse_change(t));
    if (out.back().ga.size() > P || out.back().gb.size() > P)
      throw std::runtime_error("--changes " + t + ": a grid of more than the job's " + std::to_string(P) + " ranks");
  }
  return out;
}

}  // namespace

namespace redist::bench {

int case_mapped(int me, int P, int argc, char** argv) {
  CLI::App app{"the routes within a node (window, kernel single copy, mapped arrays) against the single-copy bound"};
  std::vector<int> mibs{64, 256};
  std::vector<std::string> texts{"64@1x2:64@2x1", "64@1x2:100@1x2", "64@2x1:100@1x2"};
  int reps = 5;
  std::string out;
  app.add_option("--mib", mibs, "MiB per rank of the matrix (sizes swept)")->delimiter(',')->check(CLI::Range(1, 65536));
  app.add_option("--changes", texts, "grid changes NB@RxC:NB@RxC (square blocks), grids of at most the job's ranks")
      ->delimiter(',');
  app.add_option("--reps", reps, "repetitions after an uncounted first call, the routes interleaved")->check(CLI::Range(1, 1000));
  app.add_option("--out", out, "also write the table to this file (rank 0)");
  bool huge = false;
  app.add_flag("--huge", huge, "also the window, the single copy and the default options with A and B in transparent huge pages, and the default options on ordinary arrays");
  if (auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  std::vector<Change> changes;
  try {
    changes = parse_changes(texts, P);
  } catch (const std::exception& e) {
    if (me == 0) std::fprintf(stderr, "malleable-redist-bench mapped: %s\n", e.what());
    MPI_Finalize();
    return 2;
  }
  FILE* f = me == 0 && !out.empty() ? std::fopen(out.c_str(), "w") : nullptr;
  const std::string h = head(huge ? kRoutes : kPlainRoutes);
  if (me == 0) std::fputs(h.c_str(), stdout);
  if (f) std::fputs(h.c_str(), f);
  int bad = 0;
  for (const int mib : mibs)
    for (const Change& c : changes) {
      const Row r = run_case(c, mib, reps, me, P, huge);
      bad += r.same ? 0 : 1;
      if (me == 0) print(stdout, r), std::fflush(stdout);
      if (f) print(f, r), std::fflush(f);
    }
  if (f) std::fclose(f);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}

}  // namespace redist::bench
