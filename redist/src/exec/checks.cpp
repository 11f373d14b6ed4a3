// SPDX-License-Identifier: BSD-3-Clause
// Argument checks and the cross-rank agreement (checks.hpp).
#include "checks.hpp"

#include <algorithm>
#include <climits>

#include "../mpi_guard.hpp"
#include "malleable_internal/collective.hpp"

namespace redist::exec {

using detail::check_mpi;

// Every rank learns whether any rank failed, before any data moves: one allreduce of
// (error flag, fingerprint, -fingerprint). On failure the first failing rank's message is
// broadcast so that all ranks throw the same, specific error.
void agree(MPI_Comm comm, const LocalError& err, std::uint64_t fp) {
  const auto f = static_cast<long long>(fp >> 1);
  long long v[3] = {err.ok() ? 0 : 1, f, -f}, r[3] = {0, 0, 0};
  check_mpi(MPI_Allreduce(v, r, 3, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce (argument check)");
  if (r[0] == 0 && r[1] == -r[2]) return;
  if (r[0] == 0)
    throw Error(ErrorCode::Inconsistent,
                "redist: processes passed different layouts, regions, schedules, transports or memory budgets");
  const auto first = malleable::collective::lowest_failure(comm, !err.ok(), static_cast<int>(err.code), err.msg,
                                                           malleable::collective::BlockingWait{}, check_mpi);
  if (first)
    throw Error(static_cast<ErrorCode>(first->code), "redist: " + detail::rank_name(first->rank) + ": " + first->text);
}

std::uint64_t run_fingerprint(const RedistPlan& p, const ExecOptions& opt) {
  std::uint64_t h = fingerprint(p.a, p.b, p.region);
  h ^= (static_cast<std::uint64_t>(p.schedule) + 1) * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<std::uint64_t>(opt.transport) + 7) * 0xC2B2AE3D27D4EB4Full;
  if (opt.transport != Transport::Datatype) {  // they set the packed messages' sizes
    h ^= static_cast<std::uint64_t>(opt.staging_bytes) * 0x165667B19E3779F9ull;
    h ^= static_cast<std::uint64_t>(opt.memory_budget_bytes) * 0xD6E8FEB86659FD93ull;
  }
  h ^= opt.split_wait_transfer ? 0x27D4EB2F165667C5ull : 0;
  h ^= (static_cast<std::uint64_t>(opt.single_copy) + 1) * 0x61C8864680B583EBull;  // both ends must choose alike
  h ^= opt.node_window ? 0x9FB21C651E98DF25ull : 0;
  h ^= opt.wait == WaitMode::Auto ? 0 : (static_cast<std::uint64_t>(opt.wait) + 3) * 0x94D049BB133111EBull;
  return h;
}

// lda x (local columns) elements of esize bytes must be addressable, or indexing the
// local array (column * ld) overflows before any byte is touched.
bool addressable(std::int64_t ld, std::int64_t cols, std::size_t esize) {
  std::int64_t elems = 0, bytes = 0;
  return !__builtin_mul_overflow(ld, std::max<std::int64_t>(1, cols), &elems) &&
         !__builtin_mul_overflow(elems, static_cast<std::int64_t>(esize), &bytes);
}

LocalError check_buffers(const RedistPlan& p, int me, int nranks, const void* a, std::int64_t lda, const void* b,
                         std::int64_t ldb, const ExecOptions& opt, std::size_t esize) {
  if (opt.transport != Transport::Datatype && opt.transport != Transport::Packed && opt.transport != Transport::Auto)
    return {ErrorCode::InvalidArgument, "opt.transport = " + std::to_string(static_cast<int>(opt.transport)) +
                                            " is not a Transport (0 Datatype, 1 Packed, 2 Auto)"};
  if (opt.wait != WaitMode::Auto && opt.wait != WaitMode::Spin && opt.wait != WaitMode::Sleep)
    return {ErrorCode::InvalidArgument, "opt.wait = " + std::to_string(static_cast<int>(opt.wait)) +
                                            " is not a WaitMode (0 Auto, 1 Spin, 2 Sleep)"};
  {
    const int v = static_cast<int>(p.schedule);
    if (v < static_cast<int>(ScheduleKind::Caterpillar) || v > static_cast<int>(ScheduleKind::AllAtOnce))
      return {ErrorCode::InvalidArgument, "plan.schedule = " + std::to_string(v) + " is not a resolved schedule"};
  }
  if (p.comm_size != nranks)
    return {ErrorCode::Inconsistent, "plan was made for " + std::to_string(p.comm_size) +
                                         " ranks but the communicator has " + std::to_string(nranks)};
  if (p.materialized_for >= 0 && p.materialized_for != me)
    return {ErrorCode::Inconsistent, "plan was materialized for rank " + std::to_string(p.materialized_for) +
                                         ", not for this rank"};
  if (opt.sleep_us < 0)
    return {ErrorCode::InvalidLayout, "sleep_us = " + std::to_string(opt.sleep_us) + " is negative"};
  if (opt.transport != Transport::Datatype && opt.staging_bytes <= 0)
    return {ErrorCode::InvalidLayout, "staging_bytes = " + std::to_string(opt.staging_bytes) + " must be positive"};
  if (opt.memory_budget_bytes < 0 || (opt.memory_budget_bytes > 0 && opt.memory_budget_bytes < kMinBudgetBytes))
    return {ErrorCode::InvalidLayout, "memory_budget_bytes = " + std::to_string(opt.memory_budget_bytes) +
                                          " must be 0 (no limit) or at least " + std::to_string(kMinBudgetBytes)};
  if (opt.max_outstanding < 1)
    return {ErrorCode::InvalidLayout, "max_outstanding = " + std::to_string(opt.max_outstanding) + " must be at least 1"};
  int pr = 0, pc = 0;
  if (p.a.coords_of(me, pr, pc) && lda < p.a.min_lld(pr))
    return {ErrorCode::LeadingDimension, "lda = " + std::to_string(lda) + " is less than max(1, local rows of A) = " +
                                             std::to_string(p.a.min_lld(pr)) + " at grid coordinate (" +
                                             std::to_string(pr) + "," + std::to_string(pc) + ")"};
  if (p.b.coords_of(me, pr, pc) && ldb < p.b.min_lld(pr))
    return {ErrorCode::LeadingDimension, "ldb = " + std::to_string(ldb) + " is less than max(1, local rows of B) = " +
                                             std::to_string(p.b.min_lld(pr)) + " at grid coordinate (" +
                                             std::to_string(pr) + "," + std::to_string(pc) + ")"};
  if (p.a.coords_of(me, pr, pc) && !addressable(lda, p.a.local_cols(pc), esize))
    return {ErrorCode::LeadingDimension, "lda = " + std::to_string(lda) + " times " + std::to_string(p.a.local_cols(pc)) +
                                             " local columns of A overflows the address space"};
  if (p.b.coords_of(me, pr, pc) && !addressable(ldb, p.b.local_cols(pc), esize))
    return {ErrorCode::LeadingDimension, "ldb = " + std::to_string(ldb) + " times " + std::to_string(p.b.local_cols(pc)) +
                                             " local columns of B overflows the address space"};
  std::int64_t sends = 0, recvs = 0;
  for (const auto& t : p.transfers) {
    if (t.src == me) sends += t.elements();
    if (t.dst == me) recvs += t.elements();
  }
  if (sends > 0 && a == nullptr)
    return {ErrorCode::NullBuffer, "a is null but this process holds " + std::to_string(sends) +
                                       " elements of A inside the region"};
  if (recvs > 0 && b == nullptr)
    return {ErrorCode::NullBuffer, "b is null but this process receives " + std::to_string(recvs) +
                                       " elements of B inside the region"};
  return {};
}

}  // namespace redist::exec
