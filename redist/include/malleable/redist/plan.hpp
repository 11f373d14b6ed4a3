// SPDX-License-Identifier: BSD-3-Clause
// Redistribution plans: which rectangle of the matrix goes from which process to which,
// and in which step. A pure function of two layouts (COSTA's "communication plan"),
// testable without MPI; redist/src/execute*.cpp is the only code that sends it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"

namespace redist {

// Submatrix form, as PDGEMR2D: B(ib:ib+m-1, jb:jb+n-1) := A(ia:ia+m-1, ja:ja+n-1).
// Indices here are 0-based; the C/Fortran APIs take ScaLAPACK's 1-based IA/JA.
struct Region {
  std::int64_t m = 0, n = 0;
  std::int64_t ia = 0, ja = 0;
  std::int64_t ib = 0, jb = 0;
  static Region whole(const Layout& a) { return {a.m, a.n, 0, 0, 0, 0}; }
};

enum class ScheduleKind {
  Caterpillar,   // Prylli-Tourancheau round robin, as inside PDGEMR2D
  Circulant,     // Park-Prasanna-Raghavendra, block-cyclic layouts
  Matching,      // contention-free, minimal steps: edge colouring of the bipartite graph
  AllAtOnce,     // every transfer posted nonblocking at once (no steps)
  Default        // whichever measured fastest here (see docs/reference/redist.md)
};

// A run of rows (or columns): `count` pieces of `len` consecutive indices, the first
// starting at `start` and each next one `stride` further on, in A's global index space.
// Every piece is one contiguous range in both local arrays; consecutive pieces lie
// `a_stride` apart in A's local array and `b_stride` apart in B's. Block-cyclic overlaps
// repeat with a period (lcm of the two cycles), so one strided run stands for a piece in
// every period: a 4,194,304-row vector going from row blocks of 1 to blocks of 2 on two
// processes has 4 runs, not 4,194,304. count == 1: one contiguous range, the
// strides unused (0).
struct Run {
  std::int64_t start = 0, len = 0;
  std::int64_t count = 1;
  std::int64_t stride = 0, a_stride = 0, b_stride = 0;
  std::int64_t elements() const { return len * count; }
  // Global A-space start of piece t (0 <= t < count).
  std::int64_t piece(std::int64_t t) const { return start + t * stride; }
};

// All data that one source rank sends to one destination rank.
struct Transfer {
  int src = -1, dst = -1;           // communicator ranks
  std::vector<Run> rows, cols;      // A-space global rows/columns (product set)
  std::int64_t elements() const;    // sum(rows.elements()) * sum(cols.elements())
};

// Element counts of a plan. A whole plan (make_plan without for_rank, plan_stats) gives
// job-wide figures: sent_by_rank/recv_by_rank hold every rank's (O(comm_size) memory).
// A rank-local plan (make_plan with for_rank = r) gives rank r's own figures only, so its
// cost stays O(r's partners): `rank` = r, elements_local = what r keeps, `sent`/`received`
// = what r sends to / receives from other ranks, elements_moved = sent + received,
// messages = r's cross transfers, max_sent_by_one/max_recv_by_one = sent/received (r's
// share, a lower bound on the job's maxima), steps = the steps r takes part in, and
// sent_by_rank/recv_by_rank empty. elements_total (m*n) is global in both.
struct PlanStats {
  std::int64_t elements_total = 0;     // m*n of the region
  std::int64_t elements_local = 0;     // stay on the same rank (src == dst)
  std::int64_t elements_moved = 0;     // cross ranks
  std::int64_t messages = 0;           // transfers with src != dst
  int steps = 0;                       // communication steps of the schedule
  std::int64_t max_sent_by_one = 0;    // elements, over ranks
  std::int64_t max_recv_by_one = 0;
  std::vector<std::int64_t> sent_by_rank, recv_by_rank;  // indexed by rank (whole plans)
  int rank = -1;                       // -1: job-wide figures; else this rank's (above)
  std::int64_t sent = 0, received = 0; // rank-local plans: this rank's cross elements
};

struct RedistPlan {
  Layout a, b;
  Region region;
  ScheduleKind schedule = ScheduleKind::Default;  // resolved: never Default after make_plan
  int comm_size = 0;                          // ranks of the communicator it was made for
  // Every (src,dst) pair with data, once (whole plan); or, when materialized_for = r >= 0,
  // only the pairs where r is src or dst, in the same relative order.
  std::vector<Transfer> transfers;
  // steps[s] = indices into transfers. Transfers with src == dst are local copies and are
  // in no step; every transfer with src != dst is in exactly one step. A rank-local plan
  // holds only the steps its rank takes part in.
  std::vector<std::vector<int>> steps;
  // step_ids[s]: the job-wide number of steps[s] (increasing). Both partners of a transfer
  // find it under the same number and take their steps in increasing number, so they meet
  // in the same relative order: Caterpillar (-(src+dst)) mod P; Circulant row step x
  // column steps + column step; Matching the colour; AllAtOnce 0.
  std::vector<std::int64_t> step_ids;
  PlanStats stats;                            // element counts; multiply by sizeof(T)
  // -1: the whole plan. Otherwise the rank whose transfers alone this plan holds: what one
  // process needs to execute, in time and memory O(its partners + its row/column blocks)
  // instead of O(all pairs) (make_plan's for_rank).
  int materialized_for = -1;
};

// Plans B := A over the region. `comm_size` bounds the ranks both layouts use.
// Throws redist::Error on mismatched sizes or regions out of range. The whole plan costs
// O(row pairs x column pairs) (O(P_A x P_B) transfers): for tests, tools and small P.
RedistPlan make_plan(const Layout& a, const Layout& b, const Region& region, int comm_size,
                     ScheduleKind schedule = ScheduleKind::Default);
// The plan of one rank (for_rank >= 0): only the transfers where it is src or dst, the
// steps it takes part in, its own statistics; redistribute() accepts it on that rank only.
// Time and memory O(its partners + its own row/column blocks per period) for every
// schedule, with two exceptions, both bounded: Matching while (A ranks) x (B ranks) <=
// 16,384 colours the whole rank graph (exactly max-degree steps, the whole plan's cost at
// that size); above it Matching is the product of per-dimension colourings, taken only
// when that product has as many steps as the maximum degree (Δr·Δc = max(ΔA_r·ΔA_c,
// ΔB_r·ΔB_c), e.g. both dimensions grow or both shrink) and refused otherwise with a
// message naming Circulant. Circulant's per-dimension colouring falls back to cutting the
// whole dimension (O(blocks per period)) where its closed form does not apply (unaligned
// or heterogeneous blocks, regions shorter than lcm(Pa, Pb) blocks). for_rank = -1 is the
// whole plan.
RedistPlan make_plan(const Layout& a, const Layout& b, const Region& region, int comm_size,
                     ScheduleKind schedule, int for_rank);

// Just the statistics, for placement/cost decisions (gridmap uses this). No transfer list
// or schedule is built, so it costs O(row pairs * column pairs + blocks). `steps` is the
// maximum degree of the communication graph (sender or receiver with most partners),
// which is the step count of a contention-free minimal schedule (ScheduleKind::Matching).
PlanStats plan_stats(const Layout& a, const Layout& b, int comm_size);
PlanStats plan_stats(const Layout& a, const Layout& b, const Region& region, int comm_size);

// Throws redist::Error(InvalidArgument) unless k is one of the ScheduleKind values (a
// number cast from C or a file may not be).
void check_schedule(ScheduleKind k);

// The concrete schedule Default stands for (measured, docs/reference/redist.md).
ScheduleKind default_schedule();
ScheduleKind resolve(ScheduleKind k);
const char* to_string(ScheduleKind k);
// "caterpillar", "circulant", "matching", "allatonce"/"all", "default"; throws redist::Error.
ScheduleKind parse_schedule(const std::string& name);

// A 64-bit digest of (a, b, region): ranks compare it before moving data so that processes
// that were handed different layouts fail together instead of deadlocking.
std::uint64_t fingerprint(const Layout& a, const Layout& b, const Region& region);

}  // namespace redist
