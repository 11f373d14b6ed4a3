// SPDX-License-Identifier: BSD-3-Clause
// Executing a redistribution plan over MPI: B(layout b) := A(layout a) inside one
// enclosing communicator (seed 002 §3.4; the plan/schedule come from plan.hpp).
//
// Local storage is ScaLAPACK's: column-major, local leading dimension lda/ldb. A and B may
// share storage (overlapping submatrices of one array): B then receives A's values from
// before the call, as through a temporary copy (docs/redist.md, "Aliased arguments").
// Processes
// in only one of the two grids take part with the side they have; a process that holds no
// data on a side may pass nullptr for it. Every call is collective over `comm`.
//
// Bad input (sizes that do not match, region out of range, LLD too small, a null buffer
// where data is held, processes that were given different layouts) is detected by all
// ranks together before any data moves: every rank throws redist::Error with the same
// message (naming the first failing rank, the argument and its value), B is untouched and
// no rank is left waiting.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"

namespace redist {

// How a transfer's pieces leave and enter local storage.
enum class Transport {
  // An MPI derived datatype (indexed rows x indexed columns) describes the pieces in
  // place: MPI moves them straight from A's local array into B's, no staging in redist.
  Datatype,
  // Pack into a staging buffer of at most `staging_bytes` per message, send, unpack;
  // transfers larger than that go as several messages.
  Packed,
  // Per transfer, from its runs (both ends decide alike): Packed when its contiguous
  // pieces average under 256 bytes (blocks of a few elements, where MPI's datatype engine
  // walks element by element), Datatype otherwise (docs/redist.md, "Execution"). Default.
  Auto
};

// How a rank waits for its messages. Spinning (MPI_Waitall) is best when every rank has
// a core; when ranks outnumber cores (oversubscribed runs, common right after an
// expansion spawns processes onto busy nodes) a spinning waiter steals the core from the
// rank that is copying the data it waits for, so testing and sleeping between tests is
// several times faster (docs/redist.md). Auto picks Sleep when the ranks of the
// communicator on this node exceed 8 per CPU under Open MPI (the crossover measured on 2
// CPUs), 1 per CPU under MPICH, whose waiters do not yield (docs/mpi-flavours.md).
enum class WaitMode { Auto, Spin, Sleep };

struct ExecOptions {
  Transport transport = Transport::Auto;
  WaitMode wait = WaitMode::Auto;
  int sleep_us = 20;  // pause between tests in Sleep mode
  std::int64_t staging_bytes = std::int64_t{8} << 20;
  // Reproduce seed 002 §4.6.2 (Tables 4.4-4.6): before each step every rank exchanges an
  // empty message with that step's partners, so the time until all partners are ready
  // (waiting) is measured apart from the time moving data (transferring). Costs one
  // small round trip per step; off by default.
  bool split_wait_transfer = false;
  // Packed transport: take this rank's local copy along with the unpacking (when the
  // received pieces land in the same local columns of B) or the packing (the sent pieces
  // come from the same local columns of A), so each column is read or written in one pass
  // instead of two. Matters for blocks of a few rows (docs/redist.md, "Execution"); the
  // result is the same either way. The fused pass's time counts in unpack_s or pack_s.
  bool fuse_local = true;
};

struct ExecStats {
  double total_s = 0;      // whole call, including the collective argument check
  double check_s = 0;      // the collective argument check
  double local_copy_s = 0; // src == dst pieces copied in memory
  double wait_s = 0;       // with split_wait_transfer: waiting for partners per step
  double transfer_s = 0;   // moving data (with split: after partners are ready)
  double pack_s = 0;       // packed transport: copying pieces into staging buffers (part of transfer_s)
  double unpack_s = 0;     // packed transport: copying received buffers into B (part of transfer_s)
  std::int64_t bytes_sent = 0, bytes_received = 0, bytes_local = 0;
  // Of bytes_local, those copied in one pass with the unpacking or the packing (fuse_local).
  std::int64_t bytes_fused = 0;
  // A's local array copied before any data moved because it shares storage with B's on
  // this rank (aliased arguments: the result is as if A were read entirely first).
  std::int64_t bytes_staged = 0;
  int steps = 0;
};

// Executes `plan` (from make_plan with comm's size). T is float, double,
// std::complex<float> or std::complex<double>.
template <class T>
void redistribute(MPI_Comm comm, const RedistPlan& plan, const T* a, std::int64_t lda, T* b,
                  std::int64_t ldb, const ExecOptions& opt = {}, ExecStats* stats = nullptr);

// Plans and executes; a planning error on any rank is reported on every rank.
template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb,
                  T* b, std::int64_t ldb, const Region& region,
                  ScheduleKind schedule = ScheduleKind::Default, const ExecOptions& opt = {},
                  ExecStats* stats = nullptr);

// The whole matrix: B := A (a size mismatch is reported collectively like any error).
template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb,
                  T* b, std::int64_t ldb, ScheduleKind schedule = ScheduleKind::Default,
                  const ExecOptions& opt = {}, ExecStats* stats = nullptr);

}  // namespace redist
