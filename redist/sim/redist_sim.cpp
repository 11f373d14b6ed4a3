// SPDX-License-Identifier: BSD-3-Clause
// redist's real plan + execute path on a simulated cluster (SimGrid SMPI).
// Built with smpicxx from redist's own sources (redist/sim/CMakeLists.txt); run with
// smpirun on a platform of redist/sim/platforms/. Every rank plans for itself
// (make_plan's for_rank = own rank) and calls redistribute() between two block-cyclic
// grids of one communicator: A on ranks 0..PA-1, B on ranks 0..PB-1.
//
//   --check : A(i,j) = f(i,j) in real memory; every element of B is compared (exit 1 on
//             a mismatch, counted over all ranks).
//   --shared: A and B in SMPI_SHARED_MALLOC (folded: timing only, any size).
//
// Prints the simulated time of redistribute() (max end - min start over ranks) and the
// busiest node link's bound: max over nodes of the inter-node bytes leaving or entering
// that node / link rate, as redist::node_traffic computes it from a whole plan. Here each
// rank adds up its own transfers (O(its partners)) and the node sums are reduced, so the
// bound needs no rank to hold the whole plan. Ranks sit on nodes in order: rank r on node
// r / ranks_per_node (the hostfiles of redist/sim/platforms/ list each host that often).
// A second bound, the busiest leaf switch's uplinks: inter-leaf bytes of the busiest leaf
// (nodes_per_leaf nodes) / its uplinks' rate (--leaf-uplink-gbit; the 2:1 tree has half of
// nodes_per_leaf x link). --full-plan-check compares both with redist::node_traffic.
// --shared also skips SMPI's real copy of message payloads of 64 KiB and more (the folded
// arrays carry no values); smaller ones, the collectives' own, are copied.
#include <mpi.h>
#include <smpi/smpi.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/traffic.hpp"

namespace {

struct Options {
  int pa_r = 4, pa_c = 4, pb_r = 8, pb_c = 8;
  std::int64_t n = 1024;
  std::int64_t nb_a = 64, nb_b = 64;
  std::string schedule = "default";
  std::string transport = "auto";
  bool check = false;
  int ranks_per_node = 16;
  double link_gbit = 100;
  int reps = 1;
  int nodes_per_leaf = 16;     // nodes under one leaf switch
  double leaf_uplink_gbit = 0;  // a leaf switch's uplinks together; 0: nodes_per_leaf x link (non-blocking)
  bool full_plan_check = false;  // also compute the bound from a whole plan on rank 0 (small P)
  int max_outstanding = 0;       // ExecOptions::max_outstanding; 0: the library's default
};

[[noreturn]] void usage(int rank, const std::string& why) {
  if (rank == 0)
    std::fprintf(stderr,
                 "redist_sim: %s\nusage: redist_sim --from RxC --to RxC [--n N] [--nb NB | --nb-a NB --nb-b NB]\n"
                 "  [--schedule default|caterpillar|circulant|matching|allatonce] [--transport auto|datatype|packed]\n"
                 "  [--check | --shared] [--ranks-per-node 16] [--link-gbit 100] [--reps 1] [--full-plan-check]\n"
                 "  [--nodes-per-leaf 16] [--leaf-uplink-gbit G (default nodes-per-leaf x link)]\n"
                 "  [--max-outstanding W (messages in flight per direction; default the library's)]\n",
                 why.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

void parse_grid(int rank, const char* s, int& r, int& c) {
  if (std::sscanf(s, "%dx%d", &r, &c) != 2 || r < 1 || c < 1) usage(rank, std::string("bad grid '") + s + "'");
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  bool shared = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) usage(rank, a + " needs a value");
      return argv[++i];
    };
    if (a == "--from") parse_grid(rank, val(), o.pa_r, o.pa_c);
    else if (a == "--to") parse_grid(rank, val(), o.pb_r, o.pb_c);
    else if (a == "--n") o.n = std::atoll(val());
    else if (a == "--nb") o.nb_a = o.nb_b = std::atoll(val());
    else if (a == "--nb-a") o.nb_a = std::atoll(val());
    else if (a == "--nb-b") o.nb_b = std::atoll(val());
    else if (a == "--schedule") o.schedule = val();
    else if (a == "--transport") o.transport = val();
    else if (a == "--check") o.check = true;
    else if (a == "--shared") shared = true;
    else if (a == "--ranks-per-node") o.ranks_per_node = std::atoi(val());
    else if (a == "--link-gbit") o.link_gbit = std::atof(val());
    else if (a == "--reps") o.reps = std::atoi(val());
    else if (a == "--nodes-per-leaf") o.nodes_per_leaf = std::atoi(val());
    else if (a == "--leaf-uplink-gbit") o.leaf_uplink_gbit = std::atof(val());
    else if (a == "--full-plan-check") o.full_plan_check = true;
    else if (a == "--max-outstanding") {
      o.max_outstanding = std::atoi(val());
      if (o.max_outstanding < 1) usage(rank, "--max-outstanding must be at least 1");
    }
    else usage(rank, "unknown option " + a);
  }
  if (o.check == shared) usage(rank, "give exactly one of --check and --shared");
  if (o.leaf_uplink_gbit == 0) o.leaf_uplink_gbit = o.nodes_per_leaf * o.link_gbit;
  if (o.n < 1 || o.nb_a < 1 || o.nb_b < 1 || o.ranks_per_node < 1 || o.link_gbit <= 0 || o.reps < 1 ||
      o.nodes_per_leaf < 1 || o.leaf_uplink_gbit < 0)
    usage(rank, "sizes, ranks per node, link rate and reps must be positive");
  return o;
}

redist::Transport parse_transport(int rank, const std::string& s) {
  if (s == "auto") return redist::Transport::Auto;
  if (s == "datatype") return redist::Transport::Datatype;
  if (s == "packed") return redist::Transport::Packed;
  usage(rank, "bad transport '" + s + "'");
}

// The checked value of global element (i, j): exact in a double for i, j < 2^20.
double value_at(std::int64_t i, std::int64_t j) { return static_cast<double>(i) * 1048576.0 + static_cast<double>(j) + 0.5; }

// Local array of layout l on rank `me` (column-major, lld = max(1, local rows)).
struct Local {
  double* data = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 1;
  bool shared = false;
  Local(const redist::Layout& l, int me, bool use_shared) : shared(use_shared) {
    int pr = 0, pc = 0;
    if (!l.coords_of(me, pr, pc)) return;
    rows = l.local_rows(pr);
    cols = l.local_cols(pc);
    ld = std::max<std::int64_t>(1, rows);
    const auto bytes = static_cast<std::size_t>(ld * std::max<std::int64_t>(1, cols)) * sizeof(double);
    data = static_cast<double*>(use_shared ? SMPI_SHARED_MALLOC(bytes) : std::malloc(bytes));
    if (!data) {
      std::fprintf(stderr, "redist_sim: rank %d cannot allocate %zu bytes\n", me, bytes);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  ~Local() {
    if (!data) return;
    if (shared) SMPI_SHARED_FREE(data);
    else std::free(data);
  }
  Local(const Local&) = delete;
  Local& operator=(const Local&) = delete;
};

// --shared: the folded arrays hold no meaningful values, so the simulated network moves no
// payload of 64 KiB or more in real memory (SMPI otherwise copies every message's payload).
// Smaller ones are copied: the collectives (communicator split, the executor's argument
// check, the reductions here) need their values.
void copy_small_only(smx_activity_t comm, void* buff, size_t size) {
  // The activity is a CommImpl (single inheritance; its header is not installed).
  if (size < (std::size_t{64} << 10))
    smpi_comm_copy_buffer_callback(reinterpret_cast<simgrid::kernel::activity::CommImpl*>(comm), buff, size);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const Options o = parse(argc, argv, me);
  if (!o.check) smpi_comm_set_copy_data_callback(&copy_small_only);
  const int PA = o.pa_r * o.pa_c, PB = o.pb_r * o.pb_c;
  if (np != std::max(PA, PB))
    usage(me, "the job has " + std::to_string(np) + " ranks but the grids need " + std::to_string(std::max(PA, PB)));

  redist::ScheduleKind kind{};
  redist::ExecOptions opt;
  try {
    kind = redist::parse_schedule(o.schedule);
  } catch (const redist::Error& e) {
    usage(me, e.what());
  }
  opt.transport = parse_transport(me, o.transport);
  // Simulated ranks must block in MPI (MPI_Waitall): Sleep mode would sleep in real time.
  opt.wait = redist::WaitMode::Spin;
  if (o.max_outstanding > 0) opt.max_outstanding = o.max_outstanding;

  const auto la = redist::Layout::block_cyclic(o.n, o.n, o.nb_a, o.nb_a, o.pa_r, o.pa_c);
  const auto lb = redist::Layout::block_cyclic(o.n, o.n, o.nb_b, o.nb_b, o.pb_r, o.pb_c);
  const auto region = redist::Region::whole(la);

  // Rank-local plan, as redistribute(comm, la, a, lb, b) makes it.
  const double tp0 = MPI_Wtime();
  const redist::RedistPlan plan = redist::make_plan(la, lb, region, np, kind, me);
  const double plan_s = MPI_Wtime() - tp0;

  // This rank's share of its node's link traffic (elements), then node sums, then the max.
  const int node = me / o.ranks_per_node;
  long long mine[2] = {0, 0};  // out, in
  // The same for the leaf switch's uplinks (a second bound: on the 2:1 tree, or when most
  // of the data leaves its leaf, the uplinks rather than the node links limit).
  const int ranks_per_leaf = o.ranks_per_node * o.nodes_per_leaf;
  const int leaf = me / ranks_per_leaf;
  long long mine_leaf[2] = {0, 0};
  long long partners = 0;
  for (const auto& t : plan.transfers) {
    if (t.src == t.dst || (t.src != me && t.dst != me)) continue;
    ++partners;
    const int other = t.src == me ? t.dst : t.src;
    if (other / ranks_per_leaf != leaf) mine_leaf[t.src == me ? 0 : 1] += t.elements();
    if (other / o.ranks_per_node == node) continue;
    mine[t.src == me ? 0 : 1] += t.elements();
  }
  MPI_Comm leaf_comm;
  MPI_Comm_split(MPI_COMM_WORLD, leaf, me, &leaf_comm);
  long long leaf_sum[2] = {0, 0};
  MPI_Allreduce(mine_leaf, leaf_sum, 2, MPI_LONG_LONG, MPI_SUM, leaf_comm);
  MPI_Comm_free(&leaf_comm);
  long long leaf_max_local = std::max(leaf_sum[0], leaf_sum[1]), leaf_max = 0;
  MPI_Allreduce(&leaf_max_local, &leaf_max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Comm node_comm;
  MPI_Comm_split(MPI_COMM_WORLD, node, me, &node_comm);
  long long node_sum[2] = {0, 0};
  MPI_Allreduce(mine, node_sum, 2, MPI_LONG_LONG, MPI_SUM, node_comm);
  MPI_Comm_free(&node_comm);
  long long node_max = std::max(node_sum[0], node_sum[1]), link_max = 0, max_partners = 0;
  MPI_Allreduce(&node_max, &link_max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&partners, &max_partners, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  const double link_bytes_per_s = o.link_gbit * 1e9 / 8;
  const double bound_s = static_cast<double>(link_max) * sizeof(double) / link_bytes_per_s;
  const double uplink_bound_s = static_cast<double>(leaf_max) * sizeof(double) / (o.leaf_uplink_gbit * 1e9 / 8);

  int bad_bound = 0;
  if (o.full_plan_check && me == 0) {
    // The same bound from the whole plan (every pair; only sensible at small P).
    std::vector<int> node_of(static_cast<std::size_t>(np));
    for (int r = 0; r < np; ++r) node_of[static_cast<std::size_t>(r)] = r / o.ranks_per_node;
    const auto nt = redist::node_traffic(la, lb, region, np, node_of);
    if (nt.max_link_elements() != link_max) {
      std::fprintf(stderr, "redist_sim: FAILED bound: rank-local sums give %lld elements, node_traffic %" PRId64 "\n",
                   link_max, nt.max_link_elements());
      bad_bound = 1;
    }
    // The leaf switches' uplinks: the same sums with a "node" of ranks_per_leaf ranks.
    for (int r = 0; r < np; ++r) node_of[static_cast<std::size_t>(r)] = r / ranks_per_leaf;
    const auto lt = redist::node_traffic(la, lb, region, np, node_of);
    if (lt.max_link_elements() != leaf_max) {
      std::fprintf(stderr, "redist_sim: FAILED uplink bound: rank-local sums give %lld elements, node_traffic %" PRId64 "\n",
                   leaf_max, lt.max_link_elements());
      bad_bound = 1;
    }
  }

  Local a(la, me, !o.check), b(lb, me, !o.check);
  double best = 0;
  int last_rank = 0;
  long long wrong_total = 0;
  redist::ExecStats st;
  for (int rep = 0; rep < o.reps; ++rep) {
    if (o.check) {
      int pr = 0, pc = 0;
      if (la.coords_of(me, pr, pc))
        for (std::int64_t jl = 0; jl < a.cols; ++jl)
          for (std::int64_t il = 0; il < a.rows; ++il)
            a.data[il + jl * a.ld] = value_at(la.local_to_row(pr, il), la.local_to_col(pc, jl));
      if (b.data)
        for (std::int64_t k = 0; k < b.ld * b.cols; ++k) b.data[k] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    try {
      redist::redistribute(MPI_COMM_WORLD, plan, a.data, a.ld, b.data, b.ld, opt, &st);
    } catch (const redist::Error& e) {
      std::fprintf(stderr, "redist_sim: rank %d: %s\n", me, e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const double t1 = MPI_Wtime();
    double start = 0, end = 0;
    MPI_Allreduce(&t0, &start, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&t1, &end, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep == 0 || end - start < best) best = end - start;
    // The last rank to finish: which one, and what it moved.
    struct {
      double t;
      int rank;
    } mine_end{t1, me}, last{0, 0};
    MPI_Allreduce(&mine_end, &last, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    last_rank = last.rank;
    if (me == last_rank) {
      std::printf("redist_sim: last to finish: rank %d at +%.3e s (started +%.3e s), sent %" PRId64 " B, received %" PRId64
                  " B, %" PRId64 " messages, rounds %d\n",
                  me, t1 - start, t0 - start, st.bytes_sent, st.bytes_received, st.messages, st.rounds);
      std::fflush(stdout);
    }

    long long wrong = 0;
    if (o.check) {
      int pr = 0, pc = 0;
      if (lb.coords_of(me, pr, pc))
        for (std::int64_t jl = 0; jl < b.cols; ++jl)
          for (std::int64_t il = 0; il < b.rows; ++il)
            if (b.data[il + jl * b.ld] != value_at(lb.local_to_row(pr, il), lb.local_to_col(pc, jl))) ++wrong;
    }
    long long w = 0;
    MPI_Allreduce(&wrong, &w, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    wrong_total += w;
  }
  // Allreduce, not Reduce: SMPI 3.32's default MPI_Reduce has the root wait for P-1
  // requests with a cost that grows faster than P^2 in the simulator (a 4,225-rank run
  // spent over 10 min of CPU in these reductions after the redistribution had ended);
  // its default Allreduce (recursive doubling) costs O(log P) per rank.
  double plan_max = 0;
  MPI_Allreduce(&plan_s, &plan_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  // Messages of the last repetition over the job (sent + received, so each message twice).
  long long messages_mine = static_cast<long long>(st.messages), messages_total = 0;
  MPI_Allreduce(&messages_mine, &messages_total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  messages_total /= 2;
  // Where the time went (last repetition): the collective argument check and the data
  // movement, the slowest rank's of each.
  double parts[2] = {st.check_s, st.transfer_s}, parts_max[2] = {0, 0};
  MPI_Allreduce(parts, parts_max, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  // The most messages any rank had in flight in one direction (<= the window).
  int in_flight_max = 0;
  MPI_Allreduce(&st.max_in_flight, &in_flight_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  if (me == 0) {
    std::printf(
        "redist_sim: P=%d %dx%d nb %" PRId64 " -> %dx%d nb %" PRId64 " N=%" PRId64 " schedule=%s steps=%d %s "
        "ranks/node=%d link=%.0f Gbit/s\n",
        np, o.pa_r, o.pa_c, o.nb_a, o.pb_r, o.pb_c, o.nb_b, o.n, redist::to_string(plan.schedule),
        static_cast<int>(plan.steps.size()), o.check ? "checked" : "shared", o.ranks_per_node, o.link_gbit);
    std::printf("redist_sim: max partners/rank %lld, busiest node link %lld bytes\n", max_partners,
                link_max * static_cast<long long>(sizeof(double)));
    std::printf("redist_sim: busiest leaf switch's uplinks %lld bytes (%.0f Gbit/s, %d nodes per leaf)\n",
                leaf_max * static_cast<long long>(sizeof(double)), o.leaf_uplink_gbit, o.nodes_per_leaf);
    std::printf("RESULT P=%d time_s=%.6e bound_s=%.6e ratio=%.3f plan_s(sim)=%.3e uplink_bound_s=%.6e partners=%lld "
                "max_outstanding=%d messages=%lld in_flight_max=%d\n",
                np, best, bound_s, bound_s > 0 ? best / bound_s : 0.0, plan_max, uplink_bound_s, max_partners,
                opt.max_outstanding, messages_total, in_flight_max);
    std::printf("redist_sim: slowest rank's argument check %.3e s, transfer %.3e s, rounds %d on rank 0\n", parts_max[0],
                parts_max[1], st.rounds);
    if (o.check)
      std::printf("redist_sim: %s: %lld wrong elements over %d rep(s)\n", wrong_total ? "FAILED" : "PASS", wrong_total,
                  o.reps);
  }
  MPI_Finalize();
  return (wrong_total || bad_bound) ? 1 : 0;
}
