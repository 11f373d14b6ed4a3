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
  Caterpillar,   // Prylli-Tourancheau round robin, as inside PDGEMR2D (seed 002 §3.4.1)
  Circulant,     // Park-Prasanna-Raghavendra, block-cyclic layouts (seed 002 §3.4.3)
  Matching,      // contention-free, minimal steps: edge colouring of the bipartite graph
  AllAtOnce,     // every transfer posted nonblocking at once (no steps)
  Default        // whichever measured fastest here (see docs/redist.md)
};

// A run of rows (or columns): `count` pieces of `len` consecutive indices, the first
// starting at `start` and each next one `stride` further on, in A's global index space.
// Every piece is one contiguous range in both local arrays; consecutive pieces lie
// `a_stride` apart in A's local array and `b_stride` apart in B's. Block-cyclic overlaps
// repeat with a period (lcm of the two cycles), so one strided run stands for a piece in
// every period: a 4,194,304-row vector going from row blocks of 1 to blocks of 2 on two
// processes has 4 runs, not 4,194,304 (issue 21 §3). count == 1: one contiguous range, the
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

struct PlanStats {
  std::int64_t elements_total = 0;     // m*n of the region
  std::int64_t elements_local = 0;     // stay on the same rank (src == dst)
  std::int64_t elements_moved = 0;     // cross ranks
  std::int64_t messages = 0;           // transfers with src != dst
  int steps = 0;                       // communication steps of the schedule
  std::int64_t max_sent_by_one = 0;    // elements, over ranks
  std::int64_t max_recv_by_one = 0;
  std::vector<std::int64_t> sent_by_rank, recv_by_rank;  // indexed by rank
};

struct RedistPlan {
  Layout a, b;
  Region region;
  ScheduleKind schedule = ScheduleKind::Default;  // resolved: never Default after make_plan
  std::vector<Transfer> transfers;            // every (src,dst) pair with data, once
  // steps[s] = indices into transfers. Transfers with src == dst are local copies and are
  // in no step; every transfer with src != dst is in exactly one step.
  std::vector<std::vector<int>> steps;
  PlanStats stats;                            // element counts; multiply by sizeof(T)
  // -1: every transfer carries its rows/cols. Otherwise only the transfers of this rank
  // do (the others keep src/dst for the schedule but no runs): what one process needs to
  // execute, O(its transfers) memory instead of O(all pairs) (make_plan's for_rank).
  int materialized_for = -1;
};

// Plans B := A over the region. `comm_size` bounds the ranks both layouts use.
// Throws redist::Error on mismatched sizes or regions out of range.
RedistPlan make_plan(const Layout& a, const Layout& b, const Region& region, int comm_size,
                     ScheduleKind schedule = ScheduleKind::Default);
// The same plan and schedule, with runs only on the transfers where for_rank is src or
// dst; redistribute() accepts it on that rank only.
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

// The concrete schedule Default stands for (measured, docs/redist.md).
ScheduleKind default_schedule();
ScheduleKind resolve(ScheduleKind k);
const char* to_string(ScheduleKind k);
// "caterpillar", "circulant", "matching", "allatonce"/"all", "default"; throws redist::Error.
ScheduleKind parse_schedule(const std::string& name);

// A 64-bit digest of (a, b, region): ranks compare it before moving data so that processes
// that were handed different layouts fail together instead of deadlocking.
std::uint64_t fingerprint(const Layout& a, const Layout& b, const Region& region);

}  // namespace redist
