// SPDX-License-Identifier: BSD-3-Clause
// The one builder of a move's exchange in resize (move_items.hpp).
#include "move/move_items.hpp"

#include <algorithm>
#include <utility>

namespace resize::detail {

const redist::RedistPlan& MoveItems::queue(redist::RedistPlan plan, const void* a, std::int64_t lda, void* b,
                                           std::int64_t ldb, Scalar type, std::vector<redist::HeldArray> held) {
  if (ex_) throw redist::Error(redist::ErrorCode::InvalidArgument, "MoveItems: an item queued after start()");
  const redist::RedistPlan& p = plans_.emplace_back(std::move(plan));
  items_.push_back({&p, a, std::max<std::int64_t>(1, lda), b, std::max<std::int64_t>(1, ldb), scalar_bytes(type),
                    std::move(held)});
  return p;
}

const redist::RedistPlan& MoveItems::add(const redist::Layout& la, const void* a, std::int64_t lda,
                                         const redist::Layout& lb, void* b, std::int64_t ldb, Scalar type,
                                         int comm_size, int rank) {
  return queue(redist::make_plan(la, lb, redist::Region::whole(la), comm_size, redist::ScheduleKind::Default, rank),
               a, lda, b, ldb, type);
}

const redist::RedistPlan& MoveItems::add(redist::RedistPlan plan, const void* a, std::int64_t lda, void* b,
                                         std::int64_t ldb, Scalar type) {
  return queue(std::move(plan), a, lda, b, ldb, type);
}

const redist::RedistPlan& MoveItems::add_held(const redist::Layout& la, std::vector<HeldCopy> held,
                                              const redist::Layout& lb, void* b, std::int64_t ldb, Scalar type,
                                              int comm_size, int rank) {
  redist::RedistPlan plan =
      redist::make_plan(la, lb, redist::Region::whole(la), comm_size, redist::ScheduleKind::Default, rank);
  if (!la.ranks.holds_several()) {  // at most one copy here: the item's own A array
    const void* a = held.empty() ? nullptr : held.front().a;
    const std::int64_t lda = held.empty() ? 1 : held.front().lda;
    return queue(std::move(plan), a, lda, b, ldb, type);
  }
  std::vector<redist::HeldArray> arrays;
  arrays.reserve(held.size());
  for (const HeldCopy& h : held) arrays.push_back({h.pr, h.pc, h.a, std::max<std::int64_t>(1, h.lda)});
  return queue(std::move(plan), nullptr, 1, b, ldb, type, std::move(arrays));
}

std::int64_t MoveItems::sent_bytes(int rank) const {
  std::int64_t sent = 0;
  for (const redist::ExchangeItem& it : items_)
    for (const auto& t : it.plan->transfers)
      if (t.src == rank && t.dst != rank) sent += t.elements() * static_cast<std::int64_t>(it.elem_bytes);
  return sent;
}

void MoveItems::run(MPI_Comm comm, const redist::ExecOptions& opt, redist::ExecStats* stats) {
  redist::redistribute(comm, items_, opt, stats);
}

void MoveItems::start(MPI_Comm comm, const redist::ExecOptions& opt, redist::Agreement agreement) {
  if (ex_) throw redist::Error(redist::ErrorCode::InvalidArgument, "MoveItems: start() called twice");
  ex_.emplace(comm, items_, opt, agreement);
  ex_->start();
}

bool MoveItems::test() { return !ex_ || ex_->test(); }

void MoveItems::finish(redist::ExecStats* stats) {
  if (ex_) ex_->finish(stats);
}

void MoveItems::cancel() {
  if (ex_) ex_->cancel();
}

}  // namespace resize::detail
