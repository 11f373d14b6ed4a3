// SPDX-License-Identifier: BSD-3-Clause
// Redistribution experiments of the thesis §4.6 (Tables 4.2-4.6) on this machine: one N x N
// matrix of doubles moves from an r1 x c1 grid (ranks 0..P1-1, BLACS row order) to an
// r2 x c2 grid whose slots are filled by the Global, Local1, Local2 or optimal placement
// (gridmap). For each placement every redist schedule runs beside ScaLAPACK's PDGEMR2D
// (the caterpillar the thesis used) in the same job, with the exact bytes moved (redist's
// plan), the time to memcpy those bytes on one core (the floor), and on request the
// per-process split waiting / transferring of Tables 4.4-4.6.
//
// Run with mpiexec -n max(P1, P2). Output: JSON on rank 0 (--json file, "-" = stdout).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "malleable/gridmap/nodes.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/gridmap/topology.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"
#include "malleable/redist/traffic.hpp"
#include "malleable_internal/mpi_world.hpp"

namespace {

using json = nlohmann::json;

double value_at(std::int64_t i, std::int64_t j) { return static_cast<double>(i) * 1e-3 + static_cast<double>(j); }

struct Local {
  bool in_grid = false;
  std::int64_t rows = 0, cols = 0, ld = 1;
  std::vector<double> data;
};

Local make_local(const redist::Layout& l, int rank, bool fill) {
  Local loc;
  int pr = 0, pc = 0;
  if (!l.coords_of(rank, pr, pc)) return loc;
  loc.in_grid = true;
  loc.rows = l.local_rows(pr);
  loc.cols = l.local_cols(pc);
  loc.ld = std::max<std::int64_t>(1, loc.rows);
  loc.data.assign(static_cast<std::size_t>(loc.ld * std::max<std::int64_t>(1, loc.cols)), 0.0);
  if (fill)
    for (std::int64_t jl = 0; jl < loc.cols; ++jl) {
      const auto j = l.local_to_col(pc, jl);
      for (std::int64_t il = 0; il < loc.rows; ++il)
        loc.data[static_cast<std::size_t>(il + jl * loc.ld)] = value_at(l.local_to_row(pr, il), j);
    }
  return loc;
}

// Number of local elements of B that differ from the expected global matrix.
std::int64_t count_wrong(const redist::Layout& l, int rank, const Local& b) {
  if (!b.in_grid) return 0;
  int pr = 0, pc = 0;
  l.coords_of(rank, pr, pc);
  std::int64_t bad = 0;
  for (std::int64_t jl = 0; jl < b.cols; ++jl) {
    const auto j = l.local_to_col(pc, jl);
    for (std::int64_t il = 0; il < b.rows; ++il)
      if (b.data[static_cast<std::size_t>(il + jl * b.ld)] != value_at(l.local_to_row(pr, il), j)) ++bad;
  }
  return bad;
}

// A BLACS grid whose (i, j) is rank layout.rank_at(i, j) of MPI_COMM_WORLD (-1 outside).
int blacs_grid_for(int sys, const redist::Layout& l) {
  std::vector<int> usermap(static_cast<std::size_t>(l.nprow) * l.npcol);
  for (int i = 0; i < l.nprow; ++i)
    for (int j = 0; j < l.npcol; ++j) usermap[static_cast<std::size_t>(i + j * l.nprow)] = l.rank_at(i, j);
  int ctxt = sys;
  Cblacs_gridmap(&ctxt, usermap.data(), l.nprow, l.nprow, l.npcol);
  return ctxt;
}

double now() { return MPI_Wtime(); }

bool in_grid(const redist::Layout& l, int rank) {
  int pr = 0, pc = 0;
  return l.coords_of(rank, pr, pc);
}

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

std::int64_t sum_over_ranks(std::int64_t v) {
  std::int64_t s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

std::vector<double> gather(double v) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> all(static_cast<std::size_t>(size));
  MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// One-core memcpy of `bytes` (best of a few), the floor no redistribution can beat on one
// link.
double memcpy_seconds(std::int64_t bytes) {
  if (bytes <= 0) return 0;
  std::vector<char> src(static_cast<std::size_t>(bytes), 1), dst(static_cast<std::size_t>(bytes), 0);
  double best = 1e30;
  for (int k = 0; k < 3; ++k) {
    const double t0 = now();
    std::memcpy(dst.data(), src.data(), src.size());
    best = std::min(best, now() - t0);
  }
  if (dst[static_cast<std::size_t>(bytes / 2)] != 1) std::abort();
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const malleable_internal::World world = malleable_internal::init_world(&argc, &argv);
  const int rank = world.rank, size = world.size;

  CLI::App app{"Redistribution experiments of thesis §4.6 (Tables 4.2-4.6)"};
  std::int64_t n = 2000, nb = 0;
  std::string from = "2x2", to = "3x3", placements = "global,local1,local2,optimal";
  std::string schedules = "caterpillar,circulant,matching,allatonce,pdgemr2d";
  std::string split = "caterpillar,matching";
  std::string json_path = "-";
  int reps = 3;
  double link_bits = 0;
  app.add_option("-n,--size", n, "global matrix size N (N x N doubles)");
  app.add_option("--nb", nb, "block size; 0 = block distribution (one block per process row/column, §4.5)");
  app.add_option("--from", from, "old grid RxC");
  app.add_option("--to", to, "new grid RxC");
  app.add_option("--placements", placements, "global,local1,local2,optimal");
  app.add_option("--schedules", schedules, "caterpillar,circulant,matching,allatonce,default,pdgemr2d");
  app.add_option("--split", split, "schedules whose per-process wait/transfer split is recorded (\"\" = none)");
  app.add_option("--reps", reps, "repetitions per case (the best is reported)");
  app.add_option("--json", json_path, "JSON output on rank 0 (- = stdout)");
  app.add_option("--link-rate", link_bits,
                 "bits/s of each node's link (emulated cluster): the busiest link's bytes / rate is "
                 "printed as the link bound (0 = single node, no bound)");
  if (const auto code = malleable_internal::parse_or_finalize(app, argc, argv, true)) return *code;

  const auto g1 = gridmap::parse_topology(from), g2 = gridmap::parse_topology(to);
  const int P1 = g1.size(), P2 = g2.size(), P = std::max(P1, P2);
  if (size < P) {
    if (rank == 0) std::cerr << "repro_redist: needs " << P << " processes, has " << size << "\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const std::int64_t mb1 = nb > 0 ? nb : ceil_div(n, g1.rows), nb1 = nb > 0 ? nb : ceil_div(n, g1.cols);
  const std::int64_t mb2 = nb > 0 ? nb : ceil_div(n, g2.rows), nb2 = nb > 0 ? nb : ceil_div(n, g2.cols);

  const auto old_place = gridmap::Placement::row_major(g1, 0);
  const auto la = redist::Layout::block_cyclic(n, n, mb1, nb1, g1.rows, g1.cols, 0, 0, old_place.slots);
  const int sys = Csys2blacs_handle(MPI_COMM_WORLD);
  int gctxt = sys;
  Cblacs_gridinit(&gctxt, "R", 1, size);
  const int ctxt_a = blacs_grid_for(sys, la);

  // The node of every rank (MPI_Get_processor_name): bytes between nodes, the busiest
  // node link and its bound.
  std::vector<std::string> hosts(static_cast<std::size_t>(size));
  {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) hosts[static_cast<std::size_t>(r)] = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
  }
  const std::vector<int> node_of_rank = redist::node_ids(hosts);
  const int nnodes = *std::max_element(node_of_rank.begin(), node_of_rank.end()) + 1;

  json out;
  out["hosts"] = hosts;
  out["nodes"] = nnodes;
  out["link_rate_bits"] = link_bits;
  out["n"] = n;
  out["nb"] = nb;
  out["layout"] = nb > 0 ? "block-cyclic" : "block";
  out["from"] = from;
  out["to"] = to;
  out["processes"] = size;
  out["reps"] = reps;
  out["cases"] = json::array();
  std::int64_t total_wrong = 0;

  for (const auto& pname : split_list(placements)) {
    gridmap::Placement place;
    if (pname == "global") {
      place = gridmap::place_global(g2);
    } else if (pname == "local1" || pname == "local2") {
      place = gridmap::place_local(old_place, g2.rows - g1.rows, g2.cols - g1.cols,
                                   pname == "local1" ? gridmap::PlacementStrategy::Local1
                                                     : gridmap::PlacementStrategy::Local2);
    } else if (pname == "optimal-nodes") {
      std::vector<int> candidates(static_cast<std::size_t>(P));
      std::iota(candidates.begin(), candidates.end(), 0);
      const auto row_major = redist::Layout::block_cyclic(n, n, mb2, nb2, g2.rows, g2.cols);
      place = gridmap::place_optimal_nodes(la, row_major, candidates, gridmap::NodeMap{node_of_rank, 8});
    } else if (pname == "optimal") {
      std::vector<int> candidates(static_cast<std::size_t>(P));
      std::iota(candidates.begin(), candidates.end(), 0);
      const auto row_major = redist::Layout::block_cyclic(n, n, mb2, nb2, g2.rows, g2.cols);
      place = gridmap::place_optimal(la, row_major, candidates);
    } else {
      if (rank == 0) std::cerr << "repro_redist: unknown placement " << pname << "\n";
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const auto lb = redist::Layout::block_cyclic(n, n, mb2, nb2, g2.rows, g2.cols, 0, 0, place.slots);
    const auto st = redist::plan_stats(la, lb, P);
    json pc;
    pc["placement"] = pname;
    pc["slots"] = place.slots;
    pc["bytes_total"] = st.elements_total * 8;
    pc["bytes_moved"] = st.elements_moved * 8;
    pc["bytes_kept"] = st.elements_local * 8;
    pc["messages"] = st.messages;
    pc["min_steps"] = st.steps;
    pc["max_sent_bytes"] = st.max_sent_by_one * 8;
    pc["max_recv_bytes"] = st.max_recv_by_one * 8;
    const auto traffic = redist::node_traffic(la, lb, redist::Region::whole(la), size, node_of_rank);
    pc["bytes_intra_node"] = traffic.elements_intra_node * 8;
    pc["bytes_inter_node"] = traffic.elements_inter_node * 8;
    pc["max_link_bytes"] = traffic.max_link_elements() * 8;
    // No schedule can beat the busiest node link: its bytes at the link rate.
    pc["link_bound_s"] = link_bits > 0 ? static_cast<double>(traffic.max_link_elements() * 8) / (link_bits / 8) : 0.0;
    // The floors: all moved bytes through one core, and the busiest process's bytes.
    pc["memcpy_floor_s"] = max_over_ranks(rank == 0 ? memcpy_seconds(st.elements_moved * 8) : 0.0);
    pc["memcpy_floor_busiest_s"] =
        max_over_ranks(rank == 0 ? memcpy_seconds(std::max(st.max_sent_by_one, st.max_recv_by_one) * 8) : 0.0);
    pc["runs"] = json::array();

    const Local A = make_local(la, rank, true);
    const int ctxt_b = blacs_grid_for(sys, lb);
    const auto splits = split_list(split);
    for (const auto& sname : split_list(schedules)) {
      json run;
      run["schedule"] = sname;
      std::vector<double> times;
      std::int64_t wrong = 0;
      double plan_s = 0;
      const bool is_pdgemr2d = sname == "pdgemr2d";
      redist::RedistPlan plan;
      try {
        if (!is_pdgemr2d) {
          const double t0 = now();
          plan = redist::make_plan(la, lb, redist::Region::whole(la), P, redist::parse_schedule(sname));
          plan_s = max_over_ranks(now() - t0);
          run["resolved"] = redist::to_string(plan.schedule);
          run["steps"] = plan.stats.steps;
        }
      } catch (const std::exception& e) {
        run["error"] = e.what();
        pc["runs"].push_back(run);
        continue;
      }
      const bool do_split = std::find(splits.begin(), splits.end(), sname) != splits.end();
      json split_json;
      for (int r = 0; r < reps + (do_split && !is_pdgemr2d ? 1 : 0); ++r) {
        const bool split_run = do_split && !is_pdgemr2d && r == reps;
        Local B = make_local(lb, rank, false);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        redist::ExecStats es;
        if (is_pdgemr2d) {
          std::array<int, 9> da{1, ctxt_a, static_cast<int>(n), static_cast<int>(n), static_cast<int>(mb1),
                                static_cast<int>(nb1), 0, 0, static_cast<int>(A.ld)};
          std::array<int, 9> db{1, ctxt_b, static_cast<int>(n), static_cast<int>(n), static_cast<int>(mb2),
                                static_cast<int>(nb2), 0, 0, static_cast<int>(B.ld)};
          if (!A.in_grid) da[1] = -1;
          if (!B.in_grid) db[1] = -1;
          Cpdgemr2d(static_cast<int>(n), static_cast<int>(n), A.in_grid ? A.data.data() : nullptr, 1, 1,
                    da.data(), B.in_grid ? B.data.data() : nullptr, 1, 1, db.data(), gctxt);
        } else {
          redist::ExecOptions opt;
          opt.split_wait_transfer = split_run;
          redist::redistribute<double>(MPI_COMM_WORLD, plan, A.in_grid ? A.data.data() : nullptr, A.ld,
                                       B.in_grid ? B.data.data() : nullptr, B.ld, opt, &es);
        }
        const double mine = now() - t0;
        const double t = max_over_ranks(mine);
        if (split_run) {
          // Tables 4.4-4.6: per process, total / waiting / transferring.
          split_json["total_s"] = gather(mine);
          split_json["wait_s"] = gather(es.wait_s);
          split_json["transfer_s"] = gather(es.transfer_s + es.local_copy_s);
          split_json["wall_s"] = t;
        } else {
          times.push_back(t);
        }
        if (r == 0) wrong += count_wrong(lb, rank, B);
      }
      wrong = sum_over_ranks(wrong);
      total_wrong += wrong;
      std::sort(times.begin(), times.end());
      run["best_s"] = times.front();
      run["median_s"] = times[times.size() / 2];
      run["times_s"] = times;
      run["plan_s"] = plan_s;
      run["wrong_elements"] = wrong;
      if (!split_json.empty()) run["split"] = split_json;
      pc["runs"].push_back(run);
    }
    if (in_grid(lb, rank)) Cblacs_gridexit(ctxt_b);
    out["cases"].push_back(pc);
  }
  out["wrong_elements"] = total_wrong;

  if (rank == 0) {
    if (json_path == "-") {
      std::cout << out.dump(1) << "\n";
    } else {
      std::ofstream f(json_path);
      f << out.dump(1) << "\n";
    }
  }
  if (in_grid(la, rank)) Cblacs_gridexit(ctxt_a);
  Cblacs_gridexit(gctxt);
  MPI_Finalize();
  return total_wrong == 0 ? 0 : 1;
}
