// SPDX-License-Identifier: BSD-3-Clause
// Argument checks of one redistribution and the cross-rank agreement on them: every rank
// learns, before any data moves, whether any rank's arguments are bad (then all throw the
// same error) or whether the ranks passed different plans. Internal to redist.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

struct LocalError {
  ErrorCode code = ErrorCode::Ok;
  std::string msg;
  bool ok() const { return code == ErrorCode::Ok; }
};

// The smallest memory budget accepted (ExecOptions::memory_budget_bytes, 0 = no limit).
constexpr std::int64_t kMinBudgetBytes = 4096;

// The size of packed messages both ends of every transfer derive from the options: at
// most `cap` bytes of whole columns (one column when a column is larger), and a transfer
// whose one column exceeds `max` travels as a datatype instead (no staging).
struct MessageSize {
  std::int64_t cap, max;
};
inline MessageSize message_size(const ExecOptions& opt) {
  const std::int64_t b = opt.memory_budget_bytes;
  if (b <= 0) return {opt.staging_bytes, INT64_MAX};
  return {std::max<std::int64_t>(1, std::min(opt.staging_bytes, b / 8)), b / 4};
}

// One allreduce of (error flag, fingerprint, -fingerprint); on failure the first failing
// rank's message is broadcast and every rank throws it.
void agree(MPI_Comm comm, const LocalError& err, std::uint64_t fp);

// What all ranks must agree on for one plan run with `opt`.
std::uint64_t run_fingerprint(const RedistPlan& p, const ExecOptions& opt);

// This rank's arguments against the plan: options, communicator size, leading dimensions,
// buffers.
LocalError check_buffers(const RedistPlan& p, int me, int nranks, const void* a, std::int64_t lda, const void* b,
                         std::int64_t ldb, const ExecOptions& opt, std::size_t esize);

// Elements from the start of this rank's local array of l to its last local element
// (lld x (columns - 1) + rows), 0 outside l's grid or without local elements.
inline std::int64_t local_span(const Layout& l, int rank, std::int64_t ld) {
  int pr = 0, pc = 0;
  if (!l.coords_of(rank, pr, pc)) return 0;
  const std::int64_t rows = l.local_rows(pr), cols = l.local_cols(pc);
  return rows > 0 && cols > 0 ? ld * (cols - 1) + rows : 0;
}

// Whether [x, x + nx) and [y, y + ny) (elements of T) share a byte. Compared as integers:
// relational operators on pointers into different arrays are unspecified.
template <class T>
bool overlap(const T* x, std::int64_t nx, const T* y, std::int64_t ny) {
  const auto x0 = reinterpret_cast<std::uintptr_t>(x), y0 = reinterpret_cast<std::uintptr_t>(y);
  const auto x1 = x0 + static_cast<std::uintptr_t>(nx) * sizeof(T), y1 = y0 + static_cast<std::uintptr_t>(ny) * sizeof(T);
  return x0 < y1 && y0 < x1;
}

}  // namespace redist::exec
