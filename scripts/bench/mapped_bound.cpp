// SPDX-License-Identifier: BSD-3-Clause
// The routes between ranks of one node against the single-copy bound, interleaved in one run
// (scripts/bench/mapped_bound.sh compiles this against a build's libmalleable_redist):
//   window       A in ordinary memory, the node window (pack into the sender's segment,
//                unpack by the receiver: two copies), SingleCopy::Off;
//   single-copy  A in ordinary memory, every transfer read by the kernel (SingleCopy::On);
//   mapped       A in a mapped array (redist_alloc): the receiver copies straight out of it
//                (Route::MappedRead: one copy in user space), SingleCopy::Off; the receiver
//                maps the sender's array in each call (its pages as it reads them);
//   mapped-kept  the same with ExecOptions::mapped_keep: the mappings kept from call to call.
// Each repetition runs a copy probe (every rank memcpy's its local matrix, all at once; the
// copy rate is the best repetition's) and then the three routes, in that order. The
// single-copy bound of a change is max over ranks of (kept_r + moved_r) / copy rate (no
// redistribution between distinct arrays can beat it; malleable/redist/bound.hpp); the
// fraction of a route is bound / its time (best, and median of the repetitions). The first
// call of each route (not counted) is printed apart: fresh arrays, so it includes what a
// route sets up (the window's segment and its mapping, a mapped array's mapping). Every
// route's B is compared bit for bit with the window's, and the window's with the values
// every element must have. One line per change and size; the load average before each.
//   mpiexec -n 2 mapped_bound --mib 64,256 --reps 5 --out TABLE.md
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/redist/mapped.hpp"
#include "malleable/redist/redistribute.hpp"

namespace {

struct Change {
  std::string text;
  int nba, pra, pca, nbb, prb, pcb;
};

// "NB@RxC:NB@RxC"
bool parse_change(const std::string& t, Change& c) {
  c.text = t;
  return std::sscanf(t.c_str(), "%d@%dx%d:%d@%dx%d", &c.nba, &c.pra, &c.pca, &c.nbb, &c.prb, &c.pcb) == 6 && c.nba > 0 &&
         c.nbb > 0 && c.pra > 0 && c.pca > 0 && c.prb > 0 && c.pcb > 0;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t c = s.find(',', at);
    out.push_back(s.substr(at, c == std::string::npos ? std::string::npos : c - at));
    if (c == std::string::npos) break;
    at = c + 1;
  }
  return out;
}

double load1() {
  double l = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = -1;
    std::fclose(f);
  }
  return l;
}

double value(std::int64_t i, std::int64_t j) { return static_cast<double>(i) * 1e-3 + static_cast<double>(j) * 7.0; }

// The slowest rank's seconds of f() (all ranks start together).
template <class F>
double timed(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  f();
  double t = MPI_Wtime() - t0, most = 0;
  MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return most;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Local {
  std::int64_t rows = 0, cols = 0, ld = 1;
  bool in = false;
};

Local local_of(const redist::Layout& l, int me) {
  Local x;
  int pr = 0, pc = 0;
  if (!l.coords_of(me, pr, pc)) return x;
  x.in = true;
  x.rows = l.local_rows(pr);
  x.cols = l.local_cols(pc);
  x.ld = std::max<std::int64_t>(1, x.rows);
  return x;
}

// Every element of this rank's B has the value of its global position.
bool b_right(const redist::Layout& l, int me, const std::vector<double>& b) {
  int pr = 0, pc = 0;
  if (!l.coords_of(me, pr, pc)) return true;
  const auto ra = l.row_axis(), ca = l.col_axis();
  const Local x = local_of(l, me);
  for (std::int64_t jl = 0; jl < x.cols; ++jl)
    for (std::int64_t il = 0; il < x.rows; ++il)
      if (b[static_cast<std::size_t>(jl * x.ld + il)] != value(ra.to_global(pr, il), ca.to_global(pc, jl))) return false;
  return true;
}

struct Row {
  std::string change;
  int mib = 0;
  std::int64_t n = 0;
  double kept_mib = 0, moved_mib = 0, copy_gbs = 0, bound_s = 0, load_before = 0, load_after = 0;
  double best[4] = {0, 0, 0, 0}, med[4] = {0, 0, 0, 0}, first[4] = {0, 0, 0, 0};
  bool same = true;
};

// The single-copy bound's bytes: max over ranks of kept_r + max(sent_r, received_r).
void bound_bytes(const redist::RedistPlan& plan, int P, double& kept_max, double& moved_max, double& worst) {
  std::vector<double> kept(static_cast<std::size_t>(P)), sent(kept), recv(kept);
  for (const auto& t : plan.transfers) {
    const double b = static_cast<double>(t.elements()) * sizeof(double);
    if (t.src == t.dst)
      kept[static_cast<std::size_t>(t.src)] += b;
    else
      sent[static_cast<std::size_t>(t.src)] += b, recv[static_cast<std::size_t>(t.dst)] += b;
  }
  worst = kept_max = moved_max = 0;
  for (int r = 0; r < P; ++r) {
    const auto k = static_cast<std::size_t>(r);
    const double moved = std::max(sent[k], recv[k]);
    kept_max = std::max(kept_max, kept[k]);
    moved_max = std::max(moved_max, moved);
    worst = std::max(worst, kept[k] + moved);
  }
}

Row run_case(const Change& c, int mib, int reps, int me, int P) {
  Row row;
  row.change = c.text;
  row.mib = mib;
  row.n = static_cast<std::int64_t>(std::sqrt(static_cast<double>(mib) * 1048576.0 * P / 8.0));
  const auto la = redist::Layout::block_cyclic(row.n, row.n, c.nba, c.nba, c.pra, c.pca);
  const auto lb = redist::Layout::block_cyclic(row.n, row.n, c.nbb, c.nbb, c.prb, c.pcb);
  const auto plan = redist::make_plan(la, lb, redist::Region{row.n, row.n, 0, 0, 0, 0}, P);
  const Local xa = local_of(la, me), xb = local_of(lb, me);
  const std::size_t na = static_cast<std::size_t>(xa.ld * std::max<std::int64_t>(1, xa.cols));
  const std::size_t nb = static_cast<std::size_t>(xb.ld * std::max<std::int64_t>(1, xb.cols));
  std::vector<double> a(na), copy(na), b[4];
  redist::MappedArray<double> am(na);
  int pr = 0, pc = 0;
  if (la.coords_of(me, pr, pc))
    for (std::int64_t jl = 0; jl < xa.cols; ++jl)
      for (std::int64_t il = 0; il < xa.rows; ++il)
        a[static_cast<std::size_t>(jl * xa.ld + il)] = value(la.row_axis().to_global(pr, il), la.col_axis().to_global(pc, jl));
  std::memcpy(am.data(), a.data(), na * sizeof(double));
  for (auto& v : b) v.assign(nb, 0.0);
  redist::ExecOptions opt[4];
  opt[0].single_copy = redist::SingleCopy::Off;
  opt[1].single_copy = redist::SingleCopy::On;
  opt[2].single_copy = redist::SingleCopy::Off;
  opt[3].single_copy = redist::SingleCopy::Off;
  opt[3].mapped_keep = true;
  const double* src[4] = {a.data(), a.data(), am.data(), am.data()};
  std::vector<double> t[4], probe;
  row.load_before = load1();
  for (int r = 0; r < reps + 1; ++r) {  // the first repetition warms up (maps, faults) and is not counted
    const double tp = timed([&] { std::memcpy(copy.data(), a.data(), na * sizeof(double)); });
    if (r > 0) probe.push_back(tp);
    for (int k = 0; k < 4; ++k) {
      const double s = timed([&] {
        redist::redistribute<double>(MPI_COMM_WORLD, plan, xa.in ? src[k] : nullptr, xa.ld, xb.in ? b[k].data() : nullptr,
                                     xb.ld, opt[k]);
      });
      if (r > 0)
        t[k].push_back(s);
      else
        row.first[k] = s;
    }
  }
  row.load_after = load1();
  int ok = b_right(lb, me, b[0]) && b[1] == b[0] && b[2] == b[0] && b[3] == b[0], all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  row.same = all == 1;
  double kept = 0, moved = 0, worst = 0;
  bound_bytes(plan, P, kept, moved, worst);
  const double copy_s = *std::min_element(probe.begin(), probe.end());
  double most_bytes = static_cast<double>(na * sizeof(double)), bytes = 0;
  MPI_Allreduce(&most_bytes, &bytes, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double copy_Bps = bytes / copy_s;
  row.kept_mib = kept / 1048576.0;
  row.moved_mib = moved / 1048576.0;
  row.copy_gbs = copy_Bps / 1e9;
  row.bound_s = worst / copy_Bps;
  for (int k = 0; k < 4; ++k) {
    row.best[k] = *std::min_element(t[k].begin(), t[k].end());
    row.med[k] = median(t[k]);
  }
  return row;
}

void print(FILE* f, const Row& r) {
  std::fprintf(f, "| `%s` | %d | %lld | %.2f | %.2f | %.2f | %.5f |", r.change.c_str(), r.mib, static_cast<long long>(r.n),
               r.kept_mib, r.moved_mib, r.copy_gbs, r.bound_s);
  for (int k = 0; k < 4; ++k) std::fprintf(f, " %.5f | %.5f | %.2f | %.2f |", r.best[k], r.med[k], r.bound_s / r.best[k],
                                           r.bound_s / r.med[k]);
  for (int k = 0; k < 4; ++k) std::fprintf(f, " %.5f |", r.first[k]);
  std::fprintf(f, " %s | %.2f-%.2f |\n", r.same ? "yes" : "NO", r.load_before, r.load_after);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, P = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::string mibs = "64,256", changes = "64@1x2:64@2x1,64@1x2:100@1x2,64@2x1:100@1x2", out;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--mib") mibs = v;
    else if (k == "--changes") changes = v;
    else if (k == "--reps") reps = std::max(1, std::atoi(v.c_str()));
    else if (k == "--out") out = v;
  }
  FILE* f = me == 0 && !out.empty() ? std::fopen(out.c_str(), "w") : nullptr;
  const char* head =
      "| change | MiB/rank | N | kept MiB | moved MiB | copy GB/s | single-copy bound s | window best s | window median s "
      "| window / bound best | window / bound median | single-copy best s | single-copy median s | single-copy / bound best "
      "| single-copy / bound median | mapped best s | mapped median s | mapped / bound best | mapped / bound median "
      "| mapped-kept best s | mapped-kept median s | mapped-kept / bound best | mapped-kept / bound median "
      "| window first s | single-copy first s | mapped first s | mapped-kept first s | identical | load1 |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  if (me == 0) std::fputs(head, stdout);
  if (f) std::fputs(head, f);
  int bad = 0;
  for (const auto& ms : split(mibs))
    for (const auto& cs : split(changes)) {
      Change c;
      if (!parse_change(cs, c) || c.pra * c.pca > P || c.prb * c.pcb > P) {
        if (me == 0) std::fprintf(stderr, "mapped_bound: bad change %s for %d ranks\n", cs.c_str(), P);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      const Row r = run_case(c, std::atoi(ms.c_str()), reps, me, P);
      bad += r.same ? 0 : 1;
      if (me == 0) print(stdout, r), std::fflush(stdout);
      if (f) print(f, r), std::fflush(f);
    }
  if (f) std::fclose(f);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
