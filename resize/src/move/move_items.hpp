// SPDX-License-Identifier: BSD-3-Clause
// The one builder of a move's exchange in resize (move_items.cpp): every way a matrix
// moves with redist (the grid switch's batches, parts/grid_switch.cpp; the background
// move, background/background_messages.cpp; level recovery,
// checkpoint/levels/recover.cpp; one matrix of the mover, move/mover.cpp) queues
// its matrices here and runs them as one exchange of redist's engine, blocking or not.
// The plans live here, so the items that point into them stay valid as long as the
// exchange runs. tests/structure/check-structure.py allows redist's exchange entry points
// (ExchangeItem, redist::Exchange, redist::redistribute) in resize/src only in this file
// and move_items.cpp.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "common/scalar.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"

namespace resize::detail {

// One local array of A a rank holds among several (level recovery: the copies of several
// old processes): A's grid coordinate, the array, its leading dimension.
struct HeldCopy {
  int pr = 0, pc = 0;
  const void* a = nullptr;
  std::int64_t lda = 1;
};

class MoveItems {
 public:
  MoveItems() = default;
  MoveItems(const MoveItems&) = delete;
  MoveItems& operator=(const MoveItems&) = delete;

  // Queues B := A of a whole matrix from layout la to lb: plans it with redist's default
  // schedule for a communicator of comm_size ranks, rank-local to `rank` (make_plan's
  // for_rank; -1: every rank's transfers). a / b null where this rank holds nothing of A /
  // B. Planning is local: every rank must pass the same layouts (then a bad pair throws
  // on every rank alike). Returns the plan.
  const redist::RedistPlan& add(const redist::Layout& la, const void* a, std::int64_t lda, const redist::Layout& lb,
                                void* b, std::int64_t ldb, Scalar type, int comm_size, int rank = -1);
  // Queues a plan made elsewhere (a background move's message plan).
  const redist::RedistPlan& add(redist::RedistPlan plan, const void* a, std::int64_t lda, void* b, std::int64_t ldb,
                                Scalar type);
  // As add(la, ...), A from the copies this rank holds (`held`, each coordinate of A's
  // ranks that place this rank once): several when A's rank map holds this rank several
  // times (RankMap::holding_several), else the one copy (or none) as A's array.
  const redist::RedistPlan& add_held(const redist::Layout& la, std::vector<HeldCopy> held, const redist::Layout& lb,
                                     void* b, std::int64_t ldb, Scalar type, int comm_size, int rank);

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const redist::RedistPlan& plan(std::size_t k) const { return plans_[k]; }
  // Bytes this rank sends to other ranks by the queued plans.
  std::int64_t sent_bytes(int rank) const;

  // Runs the queued items, blocking and collective over comm (errors agreed on every rank
  // as in redist::redistribute).
  void run(MPI_Comm comm, const redist::ExecOptions& opt = {}, redist::ExecStats* stats = nullptr);
  // Starts them as one non-blocking exchange (redist::Exchange): then test() moves it on,
  // finish() waits for the rest, cancel() withdraws this rank's messages. Once.
  void start(MPI_Comm comm, const redist::ExecOptions& opt,
             redist::Agreement agreement = redist::Agreement::Collective);
  bool test();
  void finish(redist::ExecStats* stats = nullptr);
  void cancel();
  // Ends the exchange now: an unfinished one completes this rank's posted messages without
  // unpacking further (redist::Exchange's destructor), so B's arrays may be freed after.
  void close() { ex_.reset(); }

 private:
  const redist::RedistPlan& queue(redist::RedistPlan plan, const void* a, std::int64_t lda, void* b,
                                  std::int64_t ldb, Scalar type, std::vector<redist::HeldArray> held = {});

  std::deque<redist::RedistPlan> plans_;  // stable addresses: the items point into it
  std::vector<redist::ExchangeItem> items_;
  std::optional<redist::Exchange> ex_;  // declared last: gone before the plans it reads
};

}  // namespace resize::detail
