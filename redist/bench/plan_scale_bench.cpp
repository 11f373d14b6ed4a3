// SPDX-License-Identifier: BSD-3-Clause
// One rank's planning cost against the job's size: time and heap of
// redist::make_plan(a, b, region, P, schedule, rank) for P from 4 to 65,536, grid pairs
// sharing a divisor (k x k -> 2k x 2k) and coprime ones (k x k -> k+1 x k+1, 45x45 ->
// 64x64), blocks of 1, 64 and 1,000 (and 64 -> 1,000), with the growth exponent in P
// fitted by least squares on log-log. Pure code, one process, no MPI.
//
// Memory is counted by plan_scale_heap.cpp, which replaces the global operator new/delete
// in this program: the peak of live bytes during make_plan minus those live before it (the
// two layouts are built before, so this is the plan's cost beyond its inputs, the plan
// itself included).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/plan.hpp"
#include "plan_scale_heap.hpp"

namespace {

struct Case {
  const char* family;  // "divisor" or "coprime": fitted separately
  int pa, pb;          // square grids pa x pa -> pb x pb
  std::int64_t nb_a, nb_b;
};

struct Sample {
  double ms = 0, first_ms = 0;  // fastest repetition; the first one
  std::size_t bytes = 0, transfers = 0;
  int steps = 0;
};

// Repeats `work` (at least 3 times, at most 200, until budget_s is spent): the fastest time
// and the heap `work` allocated beyond what was live before it. What `work` returns lives
// until both are read, so freeing it is neither timed nor missed in the heap.
template <class F>
Sample best_of(double budget_s, F&& work) {
  Sample s;
  double best = 1e30, spent = 0;
  for (int rep = 0; rep < 200 && (rep < 3 || spent < budget_s); ++rep) {
    double dt = 0;
    s.bytes = redist_heap::peak_of([&] {
      const auto t0 = std::chrono::steady_clock::now();
      auto kept = work(s);
      dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return kept;
    });
    if (rep == 0) s.first_ms = dt * 1e3;
    best = std::min(best, dt);
    spent += dt;
  }
  s.ms = best * 1e3;
  return s;
}

// What every plan pays for its inputs whatever it plans: validating the two layouts and
// copying them into the plan. With implicit rank maps (grids in BLACS order, as here) this
// is O(1); it was O(P) while every layout carried a list of its ranks.
Sample measure_layouts(const redist::Layout& a, const redist::Layout& b, double budget_s) {
  return best_of(budget_s, [&](Sample&) {
    a.validate();
    b.validate();
    return std::pair<redist::Layout, redist::Layout>(a, b);
  });
}

Sample measure(const redist::Layout& a, const redist::Layout& b, int P, redist::ScheduleKind kind, int rank,
               double budget_s) {
  return best_of(budget_s, [&](Sample& s) {
    auto plan = redist::make_plan(a, b, redist::Region::whole(a), P, kind, rank);
    s.transfers = plan.transfers.size();
    s.steps = static_cast<int>(plan.steps.size());
    return plan;
  });
}

// Least-squares slope of log(y) on log(x).
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double lx = std::log(x[k]), ly = std::log(y[k]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t N = 100000;
  int max_p = 65536;
  double budget = 0.05;
  int min_p = 0;
  std::string only_family, only_blocks;  // filters, e.g. --family coprime --blocks 1
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    auto val = [&] { return k + 1 < argc ? std::string(argv[++k]) : std::string(); };
    if (arg == "--n") N = std::stoll(val());
    else if (arg == "--max-p") max_p = std::stoi(val());
    else if (arg == "--budget-s") budget = std::stod(val());
    else if (arg == "--min-p") min_p = std::stoi(val());
    else if (arg == "--family") only_family = val();
    else if (arg == "--blocks") only_blocks = val();
    else {
      std::fprintf(stderr, "usage: %s [--n N] [--max-p P] [--min-p P] [--budget-s seconds per case]\n"
                           "  [--family divisor|coprime] [--blocks 1|64|1000|64->1000]\n", argv[0]);
      return 2;
    }
  }
  // The heap stays with the process between repetitions, as in a process that keeps
  // running: without this glibc hands the plan's pages back to the kernel after each one
  // and the next repetition times the kernel zeroing them again. first_ms is each case's
  // first repetition (caches and heap as the case before left them), beside the fastest.
  mallopt(M_MMAP_THRESHOLD, 1 << 26);
  mallopt(M_TRIM_THRESHOLD, 1 << 28);
  double load[3] = {0, 0, 0};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::printf("# one rank's make_plan(..., rank), N = %lld, load average %.2f (2 shared cores: times are noisy)\n",
              static_cast<long long>(N), load[0]);
  std::vector<Case> cases;
  const std::pair<std::int64_t, std::int64_t> blocks[] = {{1, 1}, {64, 64}, {1000, 1000}, {64, 1000}};
  for (const auto& [ba, bb] : blocks) {
    for (int k = 1; 4 * k * k <= max_p; k *= 2) cases.push_back({"divisor", k, 2 * k, ba, bb});
    for (int k = 2; k * k <= max_p; k *= 2) cases.push_back({"coprime", k, k + 1, ba, bb});
    if (4096 <= max_p) cases.push_back({"coprime", 45, 64, ba, bb});
  }
  std::printf("# time_ms, heap_KiB: make_plan for one rank (min over repetitions, heap kept between them; first_ms:\n"
              "# the case's first repetition; heap = peak live bytes it\n"
              "# allocated, the returned plan included); layouts_*: validating and copying the two layouts alone\n"
              "# (part of time/heap; O(1) with the implicit rank maps used here); transfers: the rank's partners (sends + receives + its local copy).\n");
  std::printf("%-8s %11s %7s %9s %-11s %9s %9s %9s %10s %10s %10s %6s\n", "family", "grids", "P", "nb", "schedule",
              "time_ms", "first_ms", "heap_KiB", "layouts_ms", "layout_KiB", "transfers", "steps");
  struct Key {
    std::string family, blocks, schedule;
    std::vector<double> p, ms, kib;
  };
  std::vector<Key> fits;
  const redist::ScheduleKind kinds[] = {redist::ScheduleKind::Default, redist::ScheduleKind::Caterpillar,
                                        redist::ScheduleKind::Circulant};
  for (const auto& c : cases) {
    const int P = std::max(c.pa * c.pa, c.pb * c.pb);
    const auto a = redist::Layout::block_cyclic(N, N, c.nb_a, c.nb_a, c.pa, c.pa);
    const auto b = redist::Layout::block_cyclic(N, N, c.nb_b, c.nb_b, c.pb, c.pb);
    // A rank of both grids away from the corner (rank 0 is in every grid's first row).
    const int rank = std::min(c.pa, c.pb) * std::min(c.pa, c.pb) / 2 + std::min(c.pa, c.pb) / 2;
    const std::string bl = std::to_string(c.nb_a) + (c.nb_a == c.nb_b ? "" : "->" + std::to_string(c.nb_b));
    if (P < min_p || (!only_family.empty() && only_family != c.family) || (!only_blocks.empty() && only_blocks != bl))
      continue;
    const Sample in = measure_layouts(a, b, budget);
    for (auto kind : kinds) {
      const Sample s = measure(a, b, P, kind, rank, budget);
      const char* kname = kind == redist::ScheduleKind::Default ? "default" : redist::to_string(kind);
      const std::string grids = std::to_string(c.pa) + "^2->" + std::to_string(c.pb) + "^2";
      std::printf("%-8s %11s %7d %9s %-11s %9.3f %9.3f %9.1f %10.3f %10.1f %10zu %6d\n", c.family, grids.c_str(), P,
                  bl.c_str(), kname, s.ms, s.first_ms, static_cast<double>(s.bytes) / 1024.0, in.ms,
                  static_cast<double>(in.bytes) / 1024.0, s.transfers, s.steps);
      std::fflush(stdout);
      auto it = std::find_if(fits.begin(), fits.end(), [&](const Key& k) {
        return k.family == c.family && k.blocks == bl && k.schedule == kname;
      });
      if (it == fits.end()) {
        fits.push_back({c.family, bl, kname, {}, {}, {}});
        it = fits.end() - 1;
      }
      if (c.pa == 45) continue;  // off the k -> k+1 line; reported, not fitted
      it->p.push_back(P);
      it->ms.push_back(s.ms);
      it->kib.push_back(static_cast<double>(s.bytes) / 1024.0);
    }
  }
  std::printf("\n# growth exponent in P of the whole call (least squares on log-log, P >= 64)\n"
              "%-8s %9s %-11s %8s %8s\n", "family", "nb", "schedule", "time", "heap");
  for (const auto& k : fits) {
    std::vector<double> p, ms, kib;
    for (std::size_t i = 0; i < k.p.size(); ++i)
      if (k.p[i] >= 64) {
        p.push_back(k.p[i]);
        ms.push_back(k.ms[i]);
        kib.push_back(k.kib[i]);
      }
    if (p.size() < 2) continue;
    std::printf("%-8s %9s %-11s %8.2f %8.2f\n", k.family.c_str(), k.blocks.c_str(), k.schedule.c_str(),
                slope(p, ms), slope(p, kib));
  }
  return 0;
}
