// SPDX-License-Identifier: BSD-3-Clause
// What an exchange holds beyond the two local arrays, counted against its memory budget
// (ExecOptions::memory_budget_bytes; docs/reference/redist.md, "Memory budget"): one account for
// every executor of the engine. Pure; internal to redist.
#pragma once

#include <algorithm>
#include <cstdint>

namespace redist::exec {

// Per transfer under way, what the budget counts besides staging (an estimate,
// documented): its record, and per run its local runs (Walk, packed runs) or MPI datatype.
constexpr std::int64_t kTransferBytes = 512;
constexpr std::int64_t kRunBytes = 128;

// The bytes held now and their peak (written to ExecStats::peak_bytes through `peak`);
// charge() optionally also counts them against one direction's share (`dir`).
class Held {
 public:
  explicit Held(std::int64_t* peak) : peak_(peak) {}
  void charge(std::int64_t bytes, std::int64_t* dir = nullptr) {
    if (dir) *dir += bytes;
    now_ += bytes;
    *peak_ = std::max(*peak_, now_);
  }
  std::int64_t now() const { return now_; }

 private:
  std::int64_t* peak_;
  std::int64_t now_ = 0;
};

}  // namespace redist::exec
