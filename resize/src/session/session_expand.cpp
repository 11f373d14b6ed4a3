// SPDX-License-Identifier: BSD-3-Clause
// An expansion, the facade's side (Expansion, session_impl.hpp): the newcomers' side of
// the executor's collectives (Expansion::join, Session::join's: the same hand-over and the
// same switch as exec/executor.cpp's and exec/respawn.cpp's, in the same order), the state
// a background expansion hands its newcomers (Expansion::pack_expansion), and a respawn's
// carry from the old rank 0 to the new one (read here before the spawn, taken here by the
// new rank 0; the executor carries the respawn out).
#include "session/session_impl.hpp"

#include <algorithm>
#include <cstdio>

#include "checkpoint/levels/node_io.hpp"
#include "common/broadcast.hpp"
#include "common/fault.hpp"

#include "malleable/redist/traffic.hpp"
#include "parts/generation_check.hpp"
#include "parts/heap_trim.hpp"
#include "parts/blacs_dyn_error.hpp"
#include "report/resize_plan.hpp"

namespace resize {

using namespace detail;

namespace {
// A newcomer's cadences from the hand-over (no collective, no directory made: the job's
// processes did that); its clocks start now.
void adopt_cadences(SessionCheckpoints& ckpts, const ExpansionState& st) {
  if (st.global.set) ckpts.adopt_global({st.global.dir, st.global.every, st.global.mtbf, st.global.keep});
  if (st.levels.set) {
    const auto& c = st.levels;
    auto l = std::make_shared<LevelState>();
    l->cadence = LevelCadence{c.dir, c.every, c.every2, c.mtbf, c.mtbf2, c.keep};
    l->dir = c.dir;
    l->local_every = checkpoint::parse_every(c.every, c.mtbf);
    l->partner_every = checkpoint::parse_every(c.every2, c.mtbf2);
    l->local_last = l->partner_last = MPI_Wtime();
    ckpts.levels = std::move(l);
  }
}
}  // namespace

std::vector<char> Expansion::pack_expansion(const Grid& from, const Grid& to, bool background, int respawn_from) {
  ExpansionState st = handover_share(s, background, respawn_from);
  fill_handover(st, from, to, s.registry, s.recorder, s.opt, s.iteration);
  st.app = s.registry.pack ? s.registry.pack() : std::vector<char>{};
  return detail::pack(st);
}

namespace {
// A newcomer's registered matrices as the job holds them (`st`, the hand-over): shapes
// and block sizes, the constant marks; no data yet (the descriptors say: off the old
// grid). The job's matrices must match this process's registrations one to one.
void adopt_matrices(MatrixRegistry& reg, const ExpansionState& st) {
  if (st.mats.size() != reg.mats.size())
    throw Error("session join: the job has " + std::to_string(st.mats.size()) + " matrices, this process registered " +
                std::to_string(reg.mats.size()));
  for (std::size_t k = 0; k < reg.mats.size(); ++k) {
    auto& m = reg.mats[k];
    const auto& j = st.mats[k];
    m.mat().m = j.desc.m;
    m.mat().n = j.desc.n;
    m.mat().mb = j.desc.mb;
    m.mat().nb = j.desc.nb;
    const detail::Scalar type = j.desc.type;
    if (type != m.mat().type)
      throw Error("session join: matrix " + m.mat().name + " holds " + detail::scalar_name(type) +
                  " in the job, this process registered " + detail::scalar_name(m.mat().type));
    m.constant = j.constant;  // Background resizes: the job's constant matrices
    m.store->clear();
    // Off the old grid: the descriptor PDGEMR2D expects from a non-member.
    if (!m.mat().extended()) m.unplace();
  }
}

// A newcomer's share of the state hand-over (blacs_dyn::World::share): the old processes' bytes.
std::vector<char> receive_state(const SessionWorld& job, Watchdog& watchdog, const config::Text& named) {
  watchdog.phase("state hand-over");
  std::vector<char> bytes;
  or_session_error("session join: ", [&] { blacs_dyn::World::share(bytes); });
  // Test-only faults (common/fault.hpp): the last newcomer dies, or stops answering (a
  // hung node: the others' watchdogs must end the job), after the state hand-over and
  // before the redistribution.
  const bool last = job.rank() == job.size() - 1;
  fault::inject(named, fault::Point::KillNewcomer, last, job.rank(), "after the state hand-over");
  fault::inject(named, fault::Point::StallNewcomer, last, job.rank(), "after the state hand-over");
  return bytes;
}
}  // namespace

// The newcomers' side of the executor's expansion (Session::join): the same hand-over
// (blacs_dyn::World::share) and the same switch (switch_grid), in the same order.
int Expansion::join() {
  SessionWorld& job = s.job;
  Watchdog& watchdog = s.watchdog;
  job.world = blacs_dyn::World::comm();
  watchdog.arm("joining an expansion");
  // RESIZE_FAULT as read when this newcomer's session was made.
  const ExpansionState st = unpack_expansion(receive_state(job, watchdog, s.cfg.session.fault));
  s.iteration = st.iteration;
  job.reach.decided = st.reach_decided;  // the job's generation check, and this one (expand's twin)
  job.reach.factor = st.reach_factor;
  if (st.check_reach) {
    watchdog.phase("generation check");
    check_generations(job, s.opt, s.cfg.session.fault, kReachDeadline);
  }
  s.opt.mover = st.mover;
  s.opt.move_budget_bytes = st.move_budget;
  MatrixRegistry& reg = s.registry;
  GridSwitch gs = s.grid_switch();
  adopt_matrices(reg, st);
  ResizeRecorder& recorder = s.recorder;
  recorder.powers = st.powers_before;
  adopt_cadences(s.ckpts, st);  // checkpoint_if_due and level_checkpoint_if_due as the others
  if (reg.unpack) reg.unpack(st.app);
  // The old layouts as the old processes hold them (computed with the powers before the
  // decision), then the powers after it for the new layouts.
  for (auto& m : reg.mats)
    if (m.mat().extended()) m.relayout(gs.layout_of(m, st.from));
  recorder.powers = st.powers;
  // The new local arrays staged and faulted in beside the collectives up to the move.
  if (!st.background) gs.prefault_for(st.to, false, true);  // a newcomer sends nothing
  // Background resizes: the job's background settings.
  s.bg.mode = st.background_mode;
  s.bg.min_iterations = st.background_min_iterations;
  // The same collective as the old processes make after the hand-over (Executor::hand_over).
  job.rank_hosts = survey_world();
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  if (st.background)
    s.iteration = s.bg.join(st.from, st.to, job, reg, watchdog, s.iteration, s.cfg.session);
  // The same switch as the old processes make after the hand-over; after a respawn's,
  // the old processes end and the new world takes the grid (below).
  if (st.respawn_from > 0) {
    gs.switch_grid(st.from, st.to, nullptr, "redistribution", GridSwitch::Adopt::No);
    join_respawn(st);
  } else {
    gs.switch_grid(st.from, st.to, nullptr);
  }
  s.life.started = true;
  blacs_dyn::World::clear_new();
  watchdog.disarm();
  // The others give their free heap back as the resize concludes; a newcomer here, once
  // joined (MPI_Init's and the hand-over's freed memory: parts/heap_trim.hpp).
  detail::trim_heap(s.cfg.session.heap_trim);
  // A background expansion completes inside a remap point of the old processes, which
  // then go on to ask the policy: take part in the rest of that remap point;
  // complete_resize (after the loop) asks nothing.
  if (st.background && s.bg.joined_in_remap_point) RemapPoint{s}.act(Decision{});
  return s.iteration;
}

// A respawn's old side is the executor's (exec/respawn.cpp); the facade reads world rank
// 0's carry for it before the spawn (read_carry, RankZeroCarry, parts/handover.hpp: the
// executor completes it after the move), and the newcomers' side after the move: the old
// processes end, the new world takes the grid, and the new rank 0 takes the carry and
// concludes the resize's record.
RankZeroCarry Expansion::read_carry(double now) const {
  RankZeroCarry c;
  c.iterations = s.recorder.metrics.iterations();
  c.rank_samples = s.recorder.metrics.rank_samples();
  c.resizes = s.recorder.metrics.resizes();
  c.history_json = s.recorder.history.to_json();
  c.history_path = s.recorder.history_path;
  c.history_program = s.recorder.history.program();
  if (s.recorder.cost_model) {
    c.cost_model = true;
    const auto v = redist::to_array(*s.recorder.cost_model);
    c.cost_params.assign(v.begin(), v.end());
    c.cost_params.push_back(s.recorder.cost_model->cores_per_node);
    c.cost_params.push_back(s.recorder.cost_model->inter_node_measured ? 1 : 0);
  }
  c.checkpoints = s.ckpts.checkpoints;
  c.levels = s.ckpts.level_records;
  if (s.ckpts.checkpointing) {
    c.clocks.checkpoint_age_s = now - s.ckpts.checkpointing->last;
    c.clocks.checkpoint_cost_s = s.ckpts.checkpointing->cost;
    c.clocks.checkpoint_check_age_s = s.ckpts.checkpointing->previous_check;
  }
  if (s.ckpts.levels) {
    c.clocks.level_local_age_s = now - s.ckpts.levels->local_last;
    c.clocks.level_partner_age_s = now - s.ckpts.levels->partner_last;
    c.clocks.level_local_cost_s = s.ckpts.levels->local_cost;
    c.clocks.level_partner_cost_s = s.ckpts.levels->partner_cost;
  }
  c.first_remap_iteration = s.life.first_remap_iteration;
  c.app.problem = s.report.problem;
  if (s.report.result_check) {
    c.app.has_check = true;
    c.app.check_ok = s.report.result_check->first;
    c.app.check_message = s.report.result_check->second;
  }
  if (const auto state = s.opt.policy->state()) {
    c.has_policy_state = true;
    c.policy_state = *state;
  }
  return c;
}

// The new rank 0 takes what the old one accumulated.
void Expansion::adopt_carry(const RankZeroCarry& c) {
  Metrics m;
  for (const auto& it : c.iterations) m.add_iteration(it);
  for (const auto& rs : c.rank_samples) m.add_rank_samples(rs);
  for (const auto& r : c.resizes) m.add_resize(r);
  s.recorder.metrics = std::move(m);
  s.recorder.history = ResizeHistory::from_json(c.history_json, "the old rank 0's resize history");
  s.recorder.history.set_program(c.history_program);
  s.recorder.history_path = c.history_path;
  if (c.cost_model && c.cost_params.size() == redist::kCostParamCount + 2) {
    redist::CostParams p;
    std::array<double, redist::kCostParamCount> v{};
    std::copy(c.cost_params.begin(), c.cost_params.begin() + redist::kCostParamCount, v.begin());
    redist::assign(p, v);
    p.cores_per_node = static_cast<int>(c.cost_params[redist::kCostParamCount]);
    p.inter_node_measured = c.cost_params[redist::kCostParamCount + 1] != 0;
    s.recorder.cost_model = p;
  }
  s.ckpts.checkpoints = c.checkpoints;
  s.ckpts.level_records = c.levels;
  const double now = MPI_Wtime();
  if (s.ckpts.checkpointing && c.clocks.checkpoint_age_s >= 0) {
    s.ckpts.checkpointing->last = now - c.clocks.checkpoint_age_s;
    s.ckpts.checkpointing->cost = c.clocks.checkpoint_cost_s;
    s.ckpts.checkpointing->previous_check = c.clocks.checkpoint_check_age_s;
  }
  if (s.ckpts.levels && c.clocks.level_local_age_s >= 0) {
    s.ckpts.levels->local_last = now - c.clocks.level_local_age_s;
    s.ckpts.levels->partner_last = now - c.clocks.level_partner_age_s;
    s.ckpts.levels->local_cost = c.clocks.level_local_cost_s;
    s.ckpts.levels->partner_cost = c.clocks.level_partner_cost_s;
  }
  s.life.first_remap_iteration = c.first_remap_iteration;
  s.life.rank0 = true;
  if (s.report.problem.empty()) s.report.problem = c.app.problem;
  if (c.app.has_check && !s.report.result_check) s.report.result_check = std::make_pair(c.app.check_ok, c.app.check_message);
  if (c.has_policy_state) s.opt.policy->restore(c.policy_state);
}

// The newcomers' side after the move: the carry, the old processes' end, the new world's
// grid; the new rank 0 concludes the resize (its record, the history, the line).
void Expansion::join_respawn(const ExpansionState& st) {
  s.watchdog.phase("rank 0's carry to the new rank 0");
  const std::vector<char> bytes = broadcast_bytes({}, 0, s.job.world);
  const double t_carry = MPI_Wtime();
  s.watchdog.phase("the old processes end");
  const bool leaving = or_session_error("respawn: ", [] { return blacs_dyn::World::retire(); });
  if (leaving) throw Error("respawn: a newcomer was sent away");
  s.job.world = blacs_dyn::World::comm();
  const Grid grid = shifted(st.to, -st.respawn_from);
  s.watchdog.phase("BLACS grid on the new world");
  s.grid_switch().settle_grid(grid);
  s.job.rank_hosts = survey_world();
  s.job.node_of_rank = redist::node_ids(s.job.rank_hosts);
  ResizeRecord rec;
  Decision d;
  if (s.job.root()) {
    const RankZeroCarry c = unpack_carry(bytes);
    adopt_carry(c);
    d = unpack_decision(c.decision);
    rec = c.record;
    rec.rank_hosts = RankHosts::of(s.job.rank_hosts);
    rec.t_total = c.elapsed_s + (MPI_Wtime() - t_carry);
    rec.t_other = rec.t_total - rec.t_spawn - rec.t_redist;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: %s %s -> %s (respawn, %d procs): respawn %.1f ms, redistribution %.1f ms, other "
                "%.1f ms, total %.1f ms",
                s.iteration, to_string(rec.action).c_str(), rec.from_grid.c_str(), rec.to_grid.c_str(), grid.size(),
                rec.t_spawn * 1e3, rec.t_redist * 1e3, rec.t_other * 1e3, rec.t_total * 1e3);
  s.recording().conclude(d, rec.from_procs, rec, line + ("; reconfigured by " + rec.reconfigure_why));
}

}  // namespace resize
