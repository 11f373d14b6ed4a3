// SPDX-License-Identifier: BSD-3-Clause
// redist's entry points (redistribute.hpp): plan if asked, check the arguments and agree
// on them across ranks (exec/checks), stage an aliased A, then run the exchange
// (exec/exchange). Plans come from plan.cpp (pure).
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/checks.hpp"
#include "exec/exchange.hpp"
#include "exec/node_window.hpp"
#include "exec/single_copy.hpp"
#include "exec/waiting.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_guard.hpp"
#include "staging_pool.hpp"

namespace redist {
namespace {

using detail::check_mpi;
using detail::DupComm;
using namespace exec;

template <class T>
void execute_checked(MPI_Comm user_comm, LocalError err, const RedistPlan* plan, std::uint64_t fp, const T* a,
                     std::int64_t lda, T* b, std::int64_t ldb, const ExecOptions& opt, ExecStats* stats) {
  const double t0 = MPI_Wtime();
  DupComm comm(user_comm);
  int me = 0, n = 0;
  MPI_Comm_rank(comm.get(), &me);
  MPI_Comm_size(comm.get(), &n);
  if (err.ok() && plan) err = check_buffers(*plan, me, n, a, lda, b, ldb, opt, sizeof(T));
  agree(comm.get(), err, fp);
  ExecStats st;
  st.check_s = MPI_Wtime() - t0;
  const bool sleep = opt.wait == WaitMode::Sleep || (opt.wait == WaitMode::Auto && oversubscribed(user_comm, comm.get()));
  // Aliasing: when this rank's local arrays of A and B share storage (one
  // array, B(:,2:6) := A(:,1:5)), reading A in place while B is written would read values
  // already overwritten, by the local copies or by messages arriving. PDGEMR2D answers as if
  // A had been read first, and so does redist: A's local array is copied once before any
  // data moves, and everything is read from the copy. Each rank decides for itself.
  std::vector<T> staged;
  const std::int64_t span_a = local_span(plan->a, me, lda), span_b = local_span(plan->b, me, ldb);
  if (a && b && span_a > 0 && span_b > 0 && overlap(a, span_a, b, span_b)) {
    staged.assign(a, a + span_a);
    a = staged.data();
    st.bytes_staged = span_a * static_cast<std::int64_t>(sizeof(T));
  }
  // Which ranks share this node (one MPI_Comm_split_type per communicator, cached on it;
  // every rank gets here together, after the agreement).
  // The same list serves the node-shared staging window.
  const std::vector<int>* node =
      (opt.single_copy != SingleCopy::Off && single_copy_supported()) || (opt.node_window && node_window_supported())
          ? &node_ranks(user_comm)
          : nullptr;
  exchange_plan<T>(user_comm, comm.get(), *plan, a, lda, b, ldb, opt, sleep, st, node);
  if (opt.memory_budget_bytes > 0) detail::BufferPool::instance().trim(static_cast<std::size_t>(opt.memory_budget_bytes));
  st.total_s = MPI_Wtime() - t0;
  if (stats) *stats = st;
}

template <class T>
void plan_and_execute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb, T* b,
                      std::int64_t ldb, const Region& region, bool whole, ScheduleKind schedule,
                      const ExecOptions& opt, ExecStats* stats) {
  detail::check_comm(comm, "comm");
  int n = 0;
  check_mpi(MPI_Comm_size(comm, &n), "MPI_Comm_size");
  LocalError err;
  RedistPlan plan;
  if (whole && (la.m != lb.m || la.n != lb.n)) {
    err = {ErrorCode::SizeMismatch, "a is " + std::to_string(la.m) + " x " + std::to_string(la.n) + " but b is " +
                                        std::to_string(lb.m) + " x " + std::to_string(lb.n)};
  } else {
    try {
      int me = 0;
      MPI_Comm_rank(comm, &me);
      plan = make_plan(la, lb, region, n, schedule, me);
    } catch (const Error& e) {
      err = {e.code(), e.what()};
    }
  }
  RedistPlan probe;  // the fingerprint must not depend on whether planning succeeded
  probe.a = la;
  probe.b = lb;
  probe.region = region;
  probe.schedule = resolve(schedule);
  execute_checked(comm, err, err.ok() ? &plan : nullptr, run_fingerprint(probe, opt), a, lda, b, ldb, opt, stats);
}

}  // namespace

template <class T>
void redistribute(MPI_Comm comm, const RedistPlan& plan, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
                  const ExecOptions& opt, ExecStats* stats) {
  execute_checked(comm, LocalError{}, &plan, run_fingerprint(plan, opt), a, lda, b, ldb, opt, stats);
}

template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb, T* b,
                  std::int64_t ldb, const Region& region, ScheduleKind schedule, const ExecOptions& opt,
                  ExecStats* stats) {
  plan_and_execute(comm, la, a, lda, lb, b, ldb, region, false, schedule, opt, stats);
}

template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb, T* b,
                  std::int64_t ldb, ScheduleKind schedule, const ExecOptions& opt, ExecStats* stats) {
  plan_and_execute(comm, la, a, lda, lb, b, ldb, Region::whole(la), true, schedule, opt, stats);
}

namespace exec {
// The kernels and messages move elements as bytes of their size: float serves 4-byte
// elements, double 8 (complex<float> too), complex<double> 16.
void redistribute_item(MPI_Comm comm, const ExchangeItem& it, const ExecOptions& opt, ExecStats* stats) {
  auto run = [&](auto e) {
    using E = decltype(e);
    redistribute<E>(comm, *it.plan, static_cast<const E*>(it.a), it.lda, static_cast<E*>(it.b), it.ldb, opt, stats);
  };
  if (it.elem_bytes == 4)
    run(float{});
  else if (it.elem_bytes == 8)
    run(double{});
  else
    run(std::complex<double>{});
}
}  // namespace exec

#define REDIST_INSTANTIATE(T)                                                                                    \
  template void redistribute<T>(MPI_Comm, const RedistPlan&, const T*, std::int64_t, T*, std::int64_t,          \
                                const ExecOptions&, ExecStats*);                                                 \
  template void redistribute<T>(MPI_Comm, const Layout&, const T*, std::int64_t, const Layout&, T*,             \
                                std::int64_t, const Region&, ScheduleKind, const ExecOptions&, ExecStats*);      \
  template void redistribute<T>(MPI_Comm, const Layout&, const T*, std::int64_t, const Layout&, T*,             \
                                std::int64_t, ScheduleKind, const ExecOptions&, ExecStats*);
REDIST_INSTANTIATE(float)
REDIST_INSTANTIATE(double)
REDIST_INSTANTIATE(std::complex<float>)
REDIST_INSTANTIATE(std::complex<double>)
#undef REDIST_INSTANTIATE

}  // namespace redist
