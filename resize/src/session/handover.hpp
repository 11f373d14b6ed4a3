// SPDX-License-Identifier: BSD-3-Clause
// What one process hands another, typed: the state an expansion hands its
// newcomers (ExpansionState) and a policy's Decision as world rank 0 broadcasts it, each
// packed into bytes and unpacked by the pure code here (no MPI) with the job's one codec
// (malleable_internal/wire.hpp), so the writer and the readers cannot disagree field by
// field. Each buffer starts with a header {magic, version, payload bytes}: another kind of
// buffer, another version (processes of two builds of malleable in one job), a truncated
// or overlong buffer or an enum out of range is an Error naming what differs, never a
// wrongly read field. The MPI shell only moves the bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/scalar.hpp"
#include "session/matrix_desc.hpp"
#include "malleable/resize/background.hpp"
#include "malleable/resize/session.hpp"
#include "malleable/resize/types.hpp"

namespace resize::detail {

// The state an expansion hands its newcomers: everything join() needs to take part in the
// redistribution and the remap points after it as the old processes do.
struct ExpansionState {
  static constexpr std::uint32_t kVersion = 3;  // 2: move_budget; 3: the checkpoint cadences
  int iteration = 0;
  Mover mover = Mover::Redist;  // the job's: a newcomer must run the same collective code
  Grid from, to;
  // A registered matrix as the hand-over carries it: its description's shape, blocks and
  // element type (name, distribution and layout are the newcomer's own registration's).
  struct Matrix {
    MatrixDesc desc;
    bool constant = false;  // marked constant (background resizes)
    Matrix() = default;
    Matrix(int m, int n, int mb, int nb, Scalar type, bool constant_) : constant(constant_) {
      desc.m = m;
      desc.n = n;
      desc.mb = mb;
      desc.nb = nb;
      desc.type = type;
    }
    bool operator==(const Matrix& o) const {  // the fields that travel
      return desc.m == o.desc.m && desc.n == o.desc.n && desc.mb == o.desc.mb && desc.nb == o.desc.nb &&
             desc.type == o.desc.type && constant == o.constant;
    }
  };
  std::vector<Matrix> mats;
  std::vector<char> app;                      // the application's state (set_app_state)
  std::vector<double> powers_before, powers;  // the old layouts' powers, the new ones'
  Background background_mode = Background::Off;
  int background_min_iterations = 1;
  bool background = false;  // this expansion was begun in the background
  std::int64_t move_budget = 0;  // SessionOptions::move_budget_bytes: every process batches alike
  // The job's checkpoint cadences (set_checkpointing, set_level_checkpointing),
  // so a newcomer takes part in checkpoint_if_due and level_checkpoint_if_due without
  // setting them again. `set` false: none was set.
  struct Cadence {
    bool set = false;
    std::string dir, every, every2;  // global: dir, every; levels: dir (resolved), local, partner
    double mtbf = 0, mtbf2 = 0;
    int keep = 0;
    bool operator==(const Cadence&) const = default;
  };
  Cadence global, levels;
};
std::vector<char> pack(const ExpansionState& s);
ExpansionState unpack_expansion(const std::vector<char>& bytes);

// Every field of a Decision (the policy's prediction and reasoning included), so every
// process acts on, and records, the same decision.
constexpr std::uint32_t kDecisionVersion = 2;  // 2: new_allocation
std::vector<char> pack(const Decision& d);
Decision unpack_decision(const std::vector<char>& bytes);

}  // namespace resize::detail
