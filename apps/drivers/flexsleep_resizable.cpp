// SPDX-License-Identifier: BSD-3-Clause
// The "flexible sleep" job of a cluster workload (DMR's workloads use such
// jobs): real distributed matrices registered with the resize session, so that every
// resize spawns, redistributes and checkpoints for real, but an iteration's compute is a
// sleep of the workload model's time on the current number of nodes,
//   t(n) = (work / iterations) * (serial + (1 - serial) / n),
// so that the two shared cores of the emulated cluster are not what is measured. Each
// iteration also adds 1 to every entry of B, so the result check (A unchanged, B = B0 +
// iterations, entry by entry, and A's order-independent checksum equal to its value at the
// start) fails if any resize lost, duplicated or misplaced a block. The slept time is
// reported as the iteration's compute (the kernel meter), so that the Slurm policy's
// payoff test judges growth on the model's times.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "driver.hpp"
#include "malleable/resize/kernel_meter.hpp"

namespace {

struct Model {
  double work = 240.0;   // node-seconds of the whole job
  double serial = 0.05;  // serial fraction (Amdahl)
  int procs_per_node = 0;  // > 0: nodes = ceil(processes / this); 0: distinct hosts of the ranks
  bool lead_in = false;    // iteration 0 does no work: the first remap point comes right after
                           // the start (a job launched on one process of its allocation
                           // spreads onto the rest there); the work is spread over the others
};

// Nodes the job runs on now: distinct hosts of the world's ranks, or processes / per node.
int nodes_now(const resize::Session& s, const Model& m) {
  if (m.procs_per_node > 0) return (s.world_size() + m.procs_per_node - 1) / m.procs_per_node;
  const auto& hosts = s.rank_hosts();
  const std::set<std::string> distinct(hosts.begin(), hosts.end());
  return std::max<int>(1, static_cast<int>(distinct.size()));
}

// The sleep of iteration `k` (0-based) of `iterations` on `nodes` nodes.
double iteration_seconds(const Model& m, int iterations, int k, int nodes) {
  if (m.lead_in && k == 0) return 0.0;
  const int working = m.lead_in ? std::max(1, iterations - 1) : iterations;
  return m.work / working * (m.serial + (1.0 - m.serial) / nodes);
}

}  // namespace

int main(int argc, char** argv) {
  apps::CommonOptions o = apps::start(argc, argv, 512, 64, 30);  // MPI_THREAD_MULTIPLE with --background
  o.meter_kernels = true;  // the slept time is the iteration's compute
  Model m;
  resize::Matrix<double> a, b;  // the session's (moved at every resize)
  std::uint64_t a_sum = 0;      // A's checksum at the start (world rank 0)
  apps::DriverHooks h;
  h.name = "flexsleep";
  h.problem = [&] {
    char text[160];
    std::snprintf(text, sizeof text, "N=%d NB=%d work %.1f node-s serial %.3f", o.n, o.nb, m.work, m.serial);
    return std::string(text);
  };
  h.setup = [&](resize::Session& s) {
    a = s.register_matrix<double>("A", o.n, o.n, o.nb, o.nb, resize::Distribution::BlockCyclic);
    b = s.register_matrix<double>("B", o.n, o.n, o.nb, o.nb, resize::Distribution::BlockCyclic);
  };
  h.init = [&](resize::Session& s) {
    apps::fill(a, 1);
    apps::fill(b, 2);
    for (const auto& [name, sum] : s.checksums())
      if (name == "A") a_sum = sum;
  };
  h.iterate = [&](resize::Session& s) {
    const int nodes = nodes_now(s, m);
    if (s.in_grid()) b.for_each_local([](int, int, double& v) { v += 1.0; });
    const double t = iteration_seconds(m, o.iters, s.iteration(), nodes);
    std::this_thread::sleep_for(std::chrono::duration<double>(t));
    resize::kernel_meter_add(t);
  };
  h.check = [&](resize::Session& s) {
    double err_a = 0.0, err_b = 0.0;
    const double k = s.iteration();
    if (s.in_grid()) {
      a.for_each_local([&](int i, int j, double& v) { err_a = std::max(err_a, std::fabs(v - apps::entry(1, i, j))); });
      b.for_each_local(
          [&](int i, int j, double& v) { err_b = std::max(err_b, std::fabs(v - (apps::entry(2, i, j) + k))); });
    }
    double local[2] = {err_a, err_b}, global[2] = {0, 0};
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, s.world());
    std::uint64_t a_end = 0;
    for (const auto& [name, sum] : s.checksums())
      if (name == "A") a_end = sum;
    // Only the original world rank 0 knows the start checksum; it is still world rank 0
    // (a shrink never ends rank 0). A job restarted from a checkpoint has none (0): its
    // entry-by-entry check stands alone. The verdict goes to every process.
    int sum_ok = a_sum == 0 || a_end == a_sum ? 1 : 0;
    MPI_Bcast(&sum_ok, 1, MPI_INT, 0, s.world());
    const bool ok = global[0] == 0.0 && global[1] <= 1e-9 * std::max(1.0, k) && (sum_ok != 0);
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "A unchanged (max diff %.1e, checksum %016llx %s), B = B0 + %d (max diff %.1e): %s", global[0],
                  static_cast<unsigned long long>(a_end), !sum_ok ? "CHANGED" : a_sum ? "as at the start" : "restarted: not compared", s.iteration(),
                  global[1], ok ? "OK" : "FAILED");
    return apps::Check{ok, msg};
  };
  const int rc = apps::run_driver(argc, argv, o, [&](void* app) {
    auto* cli = static_cast<CLI::App*>(app);
    cli->add_option("--work", m.work, "the job's work in node-seconds (iteration time on n nodes: "
                                      "work / iterations * (serial + (1 - serial) / n))")
        ->check(apps::positive());
    cli->add_option("--serial", m.serial, "serial fraction of an iteration, 0 to 1")->check(CLI::Range(0.0, 1.0));
    cli->add_option("--procs-per-node", m.procs_per_node,
                    "count nodes as ceil(processes / this) (0: the distinct hosts of the ranks)")
        ->check(CLI::NonNegativeNumber);
    cli->add_flag("--lead-in", m.lead_in,
                  "iteration 0 sleeps nothing (a remap point right after the start); the work is spread over "
                  "the other iterations");
  }, h);
  MPI_Finalize();
  return rc;
}
