// SPDX-License-Identifier: BSD-3-Clause
// redist's one engine (exec/exchange.cpp): every redistribution runs here, a batch of one
// or several matrices (COSTA's transform over a vector of layouts: queue them, run once;
// one matrix is a batch of one). redistribute() of one plan, redistribute() over items,
// Exchange (blocking = start() then finish()), and so a resize's move, a background move
// and level recovery all post their messages, pack, unpack and copy through it. The
// public entry points check their arguments (exec/checks, exec/batch.cpp, execute.cpp)
// and hand the batch over. Internal to redist.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "checks.hpp"
#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

// How the engine orders a batch's transfers.
enum class Phases {
  // Every transfer of every item in one phase: each direction posts every peer within its
  // window at once, every matrix's pieces for one peer in the same messages (Exchange).
  AllAtOnce,
  // The batch's one item's plan step by step (its schedule): a step's messages complete
  // before the next step's are posted, split_wait_transfer exchanges an empty message
  // with the step's partners first (the blocking redistribute of one matrix).
  PlanSteps
};

// One exchange of a batch of items on `user_comm`. start() agrees on the caller's check
// (err, fingerprint fp; see Agreement) and posts the first messages; test() moves them on
// without blocking; finish() waits for the rest; cancel() withdraws them. The semantics
// are Exchange's (redistribute.hpp). Not thread-safe.
class Engine {
 public:
  Engine(MPI_Comm user_comm, std::vector<ExchangeItem> items, const ExecOptions& opt, Agreement agreement,
         Phases phases);
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void start(const LocalError& err, std::uint64_t fp);
  bool test();
  void finish(ExecStats* stats);
  void cancel();
  bool started() const;
  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Blocking: Engine(...).start(err, fp), then finish(stats).
void run_batch(MPI_Comm user_comm, std::vector<ExchangeItem> items, const ExecOptions& opt, Phases phases,
               const LocalError& err, std::uint64_t fp, ExecStats* stats);

// One matrix of redistribute(comm, items): checked as redistribute(comm, plan, ...) checks
// (the same messages, no item number), then run_batch with its plan's steps. execute.cpp.
void redistribute_item(MPI_Comm comm, const ExchangeItem& item, const ExecOptions& opt, ExecStats* stats);

}  // namespace redist::exec
