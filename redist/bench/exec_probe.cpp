// SPDX-License-Identifier: BSD-3-Clause
// Where redist's time goes on one shape (issue 34 §2): redist under several execution
// options and COSTA's native transform, interleaved rep by rep in one run so they share
// the machine's state, each with its wall time (slowest rank), the CPU time its ranks
// spent (summed; a spinning waiter counts too) and redist's phases. The result of every
// variant is compared with the first one's. Nothing here is a pass/fail target.
//   mpiexec -n P redist_exec_probe --shape 4000x4000:64x64@1x2:64x64@2x1 [--reps 15]
//       [--variants datatype,packed,auto,shm] [--costa-native costa_native.so]
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "calibration.hpp"
#include "malleable/redist/redistribute.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  CLI::App app{"redist_exec_probe"};
  std::string shape = "4000x4000:64x64@1x2:64x64@2x1", costa;
  std::vector<std::string> variants{"datatype", "packed"};
  int reps = 15;
  app.add_option("--shape", shape, "MxN:mbxnb@PxQ:mbxnb@PxQ");
  app.add_option("--reps", reps);
  app.add_option("--variants", variants)->delimiter(',');
  app.add_option("--costa-native", costa, "COSTA's native transform (redist/bench/costa_native.cpp built)");
  if (const auto rc = redist::calib::parse_or_exit(app, argc, argv, me)) return *rc;
  const auto s = redist::bench::parse_shape(shape);
  if (s.ranks() != np) {
    if (me == 0) std::fprintf(stderr, "run on exactly %d ranks\n", s.ranks());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto* cn = redist::bench::load_costa_native(costa);
  std::vector<int> ra(static_cast<std::size_t>(s.ga.size())), rb(static_cast<std::size_t>(s.gb.size()));
  for (std::size_t k = 0; k < ra.size(); ++k) ra[k] = static_cast<int>(k);
  for (std::size_t k = 0; k < rb.size(); ++k) rb[k] = static_cast<int>(k);
  const auto la = redist::Layout::block_cyclic(s.m, s.n, s.mba, s.nba, s.ga.r, s.ga.c);
  const auto lb = redist::Layout::block_cyclic(s.m, s.n, s.mbb, s.nbb, s.gb.r, s.gb.c);
  auto A = redist::calib::allocate(la, me, true);
  auto B = redist::calib::allocate(lb, me, false);
  std::vector<double> ref;
  std::vector<std::string> names = variants;
  if (cn) names.push_back("COSTA");
  std::vector<Acc> acc(names.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t v = 0; v < names.size(); ++v) {
      std::fill(B.data.begin(), B.data.end(), 0.0);
      redist::ExecStats st;
      MPI_Barrier(MPI_COMM_WORLD);
      const double c0 = cpu_now(), t0 = MPI_Wtime();
      if (names[v] == "COSTA") {
        char err[256] = "";
        if (cn(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.mba), static_cast<int>(s.nba), s.ga.r,
               s.ga.c, ra.data(), A.in ? A.data.data() : nullptr, static_cast<int>(A.ld), static_cast<int>(s.mbb),
               static_cast<int>(s.nbb), s.gb.r, s.gb.c, rb.data(), B.in ? B.data.data() : nullptr,
               static_cast<int>(B.ld), MPI_COMM_WORLD, 0, err, sizeof err))
          std::fprintf(stderr, "COSTA: %s\n", err);
      } else {
        redist::redistribute<double>(MPI_COMM_WORLD, la, A.in ? A.data.data() : nullptr, A.ld, lb,
                                     B.in ? B.data.data() : nullptr, B.ld, redist::ScheduleKind::Default,
                                     options_of(names[v]), &st);
      }
      double t[2] = {MPI_Wtime() - t0, cpu_now() - c0}, w = 0, c = 0;
      MPI_Reduce(&t[0], &w, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&t[1], &c, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      acc[v].wall.push_back(w);
      acc[v].cpu.push_back(c);
      if (r == reps - 1) acc[v].st = st;
      if (ref.empty()) ref = B.data;
      int same = ref == B.data, all = 0;
      MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      acc[v].same = std::min(acc[v].same, all);
    }
  if (me == 0) {
    std::printf("# %s, P=%d, reps=%d round robin; wall = slowest rank, cpu = summed over ranks; rank 0's phases\n",
                shape.c_str(), np, reps);
    std::printf("%-12s %9s %9s %9s %9s | %8s %8s %8s %8s %6s %6s %s\n", "variant", "wall_min", "wall_med", "cpu_min",
                "cpu_med", "local", "transfer", "pack", "unpack", "msgs", "steps", "same");
    for (std::size_t v = 0; v < names.size(); ++v) {
      const auto& a = acc[v];
      std::printf("%-12s %9.4f %9.4f %9.4f %9.4f | %8.4f %8.4f %8.4f %8.4f %6lld %6d %s\n", names[v].c_str(),
                  *std::min_element(a.wall.begin(), a.wall.end()), median(a.wall),
                  *std::min_element(a.cpu.begin(), a.cpu.end()), median(a.cpu), a.st.local_copy_s, a.st.transfer_s,
                  a.st.pack_s, a.st.unpack_s, static_cast<long long>(a.st.messages), a.st.steps,
                  a.same ? "ok" : "DIFFERENT");
    }
  }
  MPI_Finalize();
  return 0;
}
