// SPDX-License-Identifier: BSD-3-Clause
// Growing onto nodes and giving them back, against raw MPI on the same
// processes, in one run, interleaved (the order alternates per repetition), medians:
//   mpiexec -n P malleable-blacs-dyn-bench expand-nodes REPS PER_NODE HOST [HOST ...]    (run on the first node)
// For k = 1 .. number of hosts:
//   raw     = one MPI_Comm_spawn of k * PER_NODE processes over the k hosts (info "host"
//             and "npernode", so they spread as the library's do) + MPI_Intercomm_merge,
//             everybody done;
//   expand  = blacs_dyn_expand_hosts: one spawn group per host, spawned at the same time
//             by k ranks, joined into the world, everybody done;
//   release = blacs_dyn_release_hosts of the same hosts, everybody still in the world done
//             (the leaving groups have disconnected; they finalize and end right after);
//   raw end = the raw children disconnected and the parents' merge freed.
// The first repetition of each k is a warm-up (it starts the launcher's daemons on new
// nodes) and is not counted.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "cases.hpp"
#include "raw_spawn.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A newcomer of a library expansion: done with the expansion, then the release (which
// ends it) with the same hosts, given on its command line after "--lib-child".
int lib_child(int argc, char** argv) {
  MPI_Barrier(blacs_dyn_world());
  std::vector<std::string> hosts;
  for (int i = 2; i < argc; ++i) hosts.emplace_back(argv[i]);
  MPI_Barrier(blacs_dyn_world());
  if (blacs_dyn::World::release_hosts(hosts)) blacs_dyn::World::leave();
  std::fprintf(stderr, "malleable-blacs-dyn-bench expand-nodes: a newcomer was not released\n");
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

}  // namespace

// The case `expand-nodes` of malleable-blacs-dyn-bench (main.cpp): argv[0] is the case's
// name; the processes it spawns run the same program and case.
int blacs_dyn_bench::case_expand_nodes(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (blacs_dyn::World::is_new()) return lib_child(argc, argv);
  if (argc > 1 && !std::strcmp(argv[1], "--raw-child")) return blacs_dyn_bench::raw_child(2);
  if (argc < 4) {
    std::fprintf(stderr, "usage: malleable-blacs-dyn-bench expand-nodes REPS PER_NODE HOST [HOST ...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int reps = std::max(2, std::atoi(argv[1]));
  const int per = std::max(1, std::atoi(argv[2]));
  const std::vector<std::string> all_hosts(argv + 3, argv + argc);
  const MPI_Comm world = blacs_dyn_world();
  int rank = 0, np = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &np);
  char me[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(me, &len);
  if (rank == 0)
    std::printf("# growing onto nodes and giving them back: %d parents on %s, %d per node, %d repetitions"
                " (1 warm-up), medians in ms\n"
                "# ratio = expand / raw (target <= 1.25); shrink advantage = expand / release\n"
                "%5s %6s %10s %10s %7s %10s %10s %9s\n",
                np, me, per, reps, "nodes", "procs", "raw", "expand", "ratio", "release", "raw end", "exp/rel");
  char case_arg[] = "expand-nodes", raw_arg[] = "--raw-child";
  char* raw_argv[] = {case_arg, raw_arg, nullptr};
  for (std::size_t k = 1; k <= all_hosts.size(); ++k) {
    const std::vector<std::string> hosts(all_hosts.begin(), all_hosts.begin() + static_cast<long>(k));
    std::string host_list;
    for (const auto& h : hosts) host_list += (host_list.empty() ? "" : ",") + h;
    std::vector<std::string> child_args = {"expand-nodes", "--lib-child"};
    child_args.insert(child_args.end(), hosts.begin(), hosts.end());
    std::vector<std::pair<std::string, int>> groups;
    for (const auto& h : hosts) groups.emplace_back(h, per);
    const int total = static_cast<int>(k) * per;
    std::vector<double> raw, lib, rel, raw_end;
    for (int r = 0; r < reps; ++r) {
      const auto run_raw = [&] {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", host_list.c_str());
        MPI_Info_set(info, "npernode", std::to_string(per).c_str());
        MPI_Barrier(world);
        double t0 = MPI_Wtime();
        MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
        MPI_Comm_spawn(program_path(), raw_argv, total, info, 0, world, &inter, MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &merged);
        MPI_Barrier(merged);
        const double t_up = MPI_Wtime() - t0;
        MPI_Barrier(merged);
        t0 = MPI_Wtime();
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&inter);
        MPI_Barrier(world);
        if (r > 0) {
          raw.push_back(t_up);
          raw_end.push_back(MPI_Wtime() - t0);
        }
        MPI_Info_free(&info);
      };
      const auto run_lib = [&] {
        MPI_Barrier(world);
        double t0 = MPI_Wtime();
        blacs_dyn::World::expand_hosts(groups, program_path(), child_args);
        MPI_Barrier(blacs_dyn_world());
        const double t_up = MPI_Wtime() - t0;
        MPI_Barrier(blacs_dyn_world());
        t0 = MPI_Wtime();
        if (blacs_dyn::World::release_hosts(hosts)) blacs_dyn::World::leave();
        MPI_Barrier(blacs_dyn_world());
        if (r > 0) {
          lib.push_back(t_up);
          rel.push_back(MPI_Wtime() - t0);
        }
      };
      if (r % 2) {
        run_lib();
        run_raw();
      } else {
        run_raw();
        run_lib();
      }
    }
    if (rank == 0) {
      const double mr = median(raw), ml = median(lib), mrel = median(rel);
      std::printf("%5zu %6d %10.1f %10.1f %7.2f %10.1f %10.1f %9.1f\n", k, total, 1e3 * mr, 1e3 * ml, ml / mr,
                  1e3 * mrel, 1e3 * median(raw_end), ml / mrel);
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
