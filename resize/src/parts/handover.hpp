// SPDX-License-Identifier: BSD-3-Clause
// What one process hands another, typed: the state an expansion hands its
// newcomers (ExpansionState), a policy's Decision as world rank 0 broadcasts it and the
// arrival check's messages (ArrivalMessage, with the check's deadline and verdicts), each
// packed into bytes and unpacked by the pure code here (no MPI) with the job's one codec
// (malleable_internal/wire.hpp), so the writer and the readers cannot disagree field by
// field. Each buffer starts with a header {magic, version, payload bytes}: another kind of
// buffer, another version (processes of two builds of malleable in one job), a truncated
// or overlong buffer or an enum out of range is an Error naming what differs, never a
// wrongly read field. The MPI shell only moves the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "malleable/resize/background.hpp"
#include "malleable/redist/matrix.hpp"
#include "malleable/resize/metrics.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/session_options.hpp"
#include "malleable/resize/types.hpp"
#include "common/scalar.hpp"
#include "policy/plan.hpp"

namespace resize::detail {

// The state an expansion hands its newcomers: everything join() needs to take part in the
// redistribution and the remap points after it as the old processes do.
struct ExpansionState {
  static constexpr std::uint32_t kVersion = 5;  // 2: move_budget; 3: the checkpoint cadences; 4: respawn_from; 5: reach
  int iteration = 0;
  Mover mover = Mover::Redist;  // the job's: a newcomer must run the same collective code
  Grid from, to;
  // A registered matrix as the hand-over carries it: its record's shape, blocks and
  // element type, as 32-bit integers and the type's value (name, distribution and block
  // rule are the newcomer's own registration's).
  struct Matrix {
    redist::MatrixSpec desc;
    bool constant = false;  // marked constant (background resizes)
    Matrix() = default;
    Matrix(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb, Scalar type, bool constant_)
        : constant(constant_) {
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
  // A respawn (exec/respawn.cpp): the old world's size, > 0; `to` is the new grid on the
  // grown world's ranks after it, and the old processes end once the data moved. 0: a merge.
  int respawn_from = 0;
  // The generation check (policy/generation_reach.hpp): whether this expansion runs it
  // (every process, after the hand-over), and what an earlier one decided (the factor < 0:
  // not measured), which the newcomers keep.
  bool check_reach = false;
  bool reach_decided = false;
  double reach_factor = -1;
};
std::vector<char> pack(const ExpansionState& s);
ExpansionState unpack_expansion(const std::vector<char>& bytes);

// What world rank 0 accumulated over the run, which the report, the history and the
// checkpoints go on with: a respawn hands it from the old rank 0 to the new one
// (session/session_expand.cpp reads it before the spawn and takes it on the new rank 0,
// exec/respawn.cpp completes and sends it). Its own message beside the expansion's state
// (magic "MXR0"): the metrics (iterations, per-rank samples, every resize record), the
// resize history (its JSON, file and program), the calibrated cost model, the checkpoints
// and levels written and the ages of their cadences' clocks, what the application told the
// report, the policy's state, and the resize under way (its decision, its record so far,
// the seconds since it began: the executor's, set after the move).
struct RankZeroCarry {
  static constexpr std::uint32_t kVersion = 1;
  std::vector<IterationSample> iterations;
  std::vector<RankSamples> rank_samples;
  std::vector<ResizeRecord> resizes;
  std::string history_json, history_path, history_program;
  bool cost_model = false;
  std::vector<double> cost_params;  // redist::to_array's, then cores_per_node and inter_node_measured (0/1)
  std::vector<CheckpointRecord> checkpoints;
  std::vector<LevelRecord> levels;
  // Seconds since the cadences' clocks were last reset (< 0: no cadence), the global
  // checkpoint's measured cost (< 0: none). Plain doubles (one wire value).
  struct Clocks {
    double checkpoint_age_s = -1, checkpoint_cost_s = -1, checkpoint_check_age_s = -1;
    double level_local_age_s = -1, level_partner_age_s = -1, level_local_cost_s = -1, level_partner_cost_s = -1;
  } clocks;
  int first_remap_iteration = -1;
  // What the application told the report (Session::report_problem, report_check).
  struct AppReport {
    std::string problem;
    bool has_check = false, check_ok = true;
    std::string check_message;
  } app;
  bool has_policy_state = false;
  std::string policy_state;
  std::vector<char> decision;  // pack(Decision)
  ResizeRecord record;
  double elapsed_s = 0;
};
std::vector<char> pack(const RankZeroCarry& c);
RankZeroCarry unpack_carry(const std::vector<char>& bytes);
// The carry's clocks `held_s` seconds after they were read: every age that is set (>= 0:
// the global checkpoint's, the local and partner levels') grows by them, the costs and the
// check stay (world rank 0 reads its carry before a respawn's spawn and hands it over
// after the move, so the new rank 0 sees the ages at the hand-over).
RankZeroCarry::Clocks aged(RankZeroCarry::Clocks c, double held_s);

// Every field of a Decision (the policy's prediction and reasoning included), so every
// process acts on, and records, the same decision.
constexpr std::uint32_t kDecisionVersion = 4;  // 2: new_allocation, 3: by_restart, 4: by, launches
std::vector<char> pack(const Decision& d);
Decision unpack_decision(const std::vector<char>& bytes);

// A resize's plan as world rank 0 hands it to every process at a remap point (its steps:
// policy/plan.hpp, report/resize_plan.hpp's plan_steps): the decision as validated, the
// refusal (its message, code and part), the grids, how and why, the mechanism, merge or
// respawn, and the node plan but its hosts before (every process surveyed those itself:
// the receiver sets them). Not the matrices' layouts or the costs (the dry run's, never
// sent).
constexpr std::uint32_t kPlanVersion = 2;  // 2: the refusal's code and part
std::vector<char> pack(const ResizePlan& p);
ResizePlan unpack_plan(const std::vector<char>& bytes);

// The arrival check at the start of every remap point (watchdog.hpp; its MPI shell is
// watchdog.cpp): its deadline, its verdicts and its messages.

// The deadline of a remap point's arrival check, predictable from what the user set
// (RESIZE_REMAP_TIMEOUT=CAP[:FACTOR[:FLOOR]], SessionOptions::remap_timeout,
// remap_factor, remap_floor): once kArrivalWarmupGaps gaps between remap points were
// measured, FACTOR times the longest of them (a process off the grid arrives a whole
// gap before the ones computing, legitimately), at least FLOOR (load spikes), never more
// than CAP; before that, and with FACTOR 0, CAP. The gaps are the same on every process
// (each ends when the check before it let every process go). CAP 0: no check (0 here).
struct RemapTimeout {
  double cap = 600, factor = 3, floor = 30;
};
inline constexpr int kArrivalWarmupGaps = 2;
double arrival_deadline(const RemapTimeout& t, int gaps, double longest_gap);
// "CAP[:FACTOR[:FLOOR]]" seconds (parts left out: `defaults`'); throws resize::Error
// "RESIZE_REMAP_TIMEOUT: expected CAP[:FACTOR[:FLOOR]] ..., got '<text>'" for anything
// else (a negative or non-finite number, an empty part, a fourth part).
RemapTimeout parse_remap_timeout(const std::string& text, const RemapTimeout& defaults);
// "3", "1, 3" (world ranks, ascending as given).
std::string rank_list(const std::vector<int>& ranks);
// World rank 0's verdict once it stopped waiting: the ranks that did not arrive within
// `seconds` and the ranks that came after another iteration ({rank, iteration}); "" when
// every process arrived after `iteration`.
std::string arrival_verdict(int iteration, double seconds, const std::vector<int>& missing,
                            const std::vector<std::pair<int, int>>& elsewhere);
// A process other than world rank 0 that waited `seconds` for rank 0.
std::string root_missing(int iteration, double seconds);

// One message of the check (the job's codec, malleable_internal/wire.hpp, versioned), each
// with the iteration its sender is at: Here (rank 0 to every other process: rank 0 is at the
// remap point), Arrive (every other process to rank 0), Go (rank 0 to every other process:
// everybody arrived). Every message has arrival_message_bytes() bytes, so the receives are
// posted before the messages are sent.
struct ArrivalMessage {
  enum class Kind : int { Here = 1, Arrive = 2, Go = 3 };
  Kind kind = Kind::Here;
  int iteration = 0;
  bool operator==(const ArrivalMessage&) const = default;
};
std::vector<char> encode(const ArrivalMessage& m);
std::size_t arrival_message_bytes();
// The message in `bytes`, which must be of kind `expected`; throws resize::Error naming what
// differs (another kind of message or version, a truncated one, an unknown or unexpected kind).
ArrivalMessage decode_arrival(std::span<const char> bytes, ArrivalMessage::Kind expected);

}  // namespace resize::detail
