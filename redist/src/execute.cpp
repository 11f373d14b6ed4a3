// SPDX-License-Identifier: BSD-3-Clause
// redist's entry points for one matrix (redistribute.hpp): plan if asked, check this
// rank's arguments (exec/checks), then hand the matrix to the one engine as a batch of one
// that follows its plan's steps (exec/exchange), which agrees on the checks across ranks,
// stages an aliased A and moves the data. Plans come from plan.cpp (pure).
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/checks.hpp"
#include "exec/exchange.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_guard.hpp"

namespace redist {
namespace {

using detail::check_mpi;
using namespace exec;

// One matrix, checked here and agreed on by the engine (every rank throws the same error
// before any data moves). item.plan is null where planning failed (err says why).
void run_one(MPI_Comm comm, LocalError err, const ExchangeItem& item, std::uint64_t fp, const ExecOptions& opt,
             ExecStats* stats) {
  detail::check_comm(comm, "comm");
  if (err.ok() && item.plan) {
    int me = 0, n = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &n), "MPI_Comm_size");
    err = check_buffers(*item.plan, me, n, item.a, item.lda, item.b, item.ldb, opt, item.elem_bytes);
  }
  run_batch(comm, {item}, opt, Phases::PlanSteps, err, fp, stats);
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
  ExchangeItem item = ExchangeItem::of(plan, a, lda, b, ldb);
  if (!err.ok()) item.plan = nullptr;
  run_one(comm, err, item, run_fingerprint(probe, opt), opt, stats);
}

}  // namespace

template <class T>
void redistribute(MPI_Comm comm, const RedistPlan& plan, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
                  const ExecOptions& opt, ExecStats* stats) {
  run_one(comm, LocalError{}, ExchangeItem::of(plan, a, lda, b, ldb), run_fingerprint(plan, opt), opt, stats);
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
void redistribute_item(MPI_Comm comm, const ExchangeItem& item, const ExecOptions& opt, ExecStats* stats) {
  run_one(comm, LocalError{}, item, run_fingerprint(*item.plan, opt), opt, stats);
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
