// SPDX-License-Identifier: BSD-3-Clause
// An expansion, the facade's side: the state the old processes hand the newcomers
// (Impl::pack_expansion, given to parts/expand.cpp's expand as `pack_state`) and the
// newcomers' side of expand's collectives (Session::join: the same hand-over and the same
// switch, in the same order).
#include "session/session_impl.hpp"

#include "checkpoint/levels/node_io.hpp"
#include "common/fault.hpp"

#include "malleable/redist/traffic.hpp"
#include "parts/heap_trim.hpp"
#include "parts/world.hpp"

namespace resize {

using namespace detail;

namespace {
// The checkpoint cadences (global and levels) into the hand-over, so the newcomers
// checkpoint as the others do.
void pack_cadences(const SessionCheckpoints& ckpts, ExpansionState& st) {
  if (ckpts.checkpointing) {
    const auto& c = ckpts.checkpointing->cadence;
    st.global = {true, c.dir, c.every, {}, c.mtbf_seconds, 0, c.keep};
  }
  if (ckpts.levels) {
    const auto& c = ckpts.levels->cadence;
    st.levels = {true, ckpts.levels->dir, c.local_every, c.partner_every, c.local_mtbf, c.partner_mtbf, c.keep};
  }
}

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

std::vector<char> Session::Impl::pack_expansion(const Grid& from, const Grid& to, bool background) {
  ExpansionState st;
  st.iteration = iteration;
  // The job's mover: a newcomer must run the same collective code (RESIZE_MOVER from
  // the environment need not reach spawned processes).
  st.mover = opt.mover;
  st.move_budget = opt.move_budget_bytes;  // the batches are collective too
  st.from = from;
  st.to = to;
  for (const auto& r : registry.mats)
    st.mats.push_back({r.mat().m, r.mat().n, r.mat().mb, r.mat().nb, r.mat().type, r.constant});
  st.app = registry.pack ? registry.pack() : std::vector<char>{};
  st.powers_before = recorder.powers_before;  // what the old layouts were computed with
  st.powers = recorder.powers;
  // Background resizes: the background settings and the constant matrices (every process must
  // agree on them at later remap points), and whether this expansion is one.
  st.background_mode = bg.mode;
  st.background_min_iterations = bg.min_iterations;
  st.background = background;
  pack_cadences(ckpts, st);  // the newcomers checkpoint as the others do
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
    if (!m.desc) continue;
    // Off the old grid: the descriptor PDGEMR2D expects from a non-member.
    const auto& d = m.mat();
    const int off[9] = {1, -1, static_cast<int>(d.m), static_cast<int>(d.n), static_cast<int>(d.mb), static_cast<int>(d.nb), 0, 0, 1};
    std::copy(off, off + 9, m.desc);
  }
}
}  // namespace

// The newcomers' side of expand(): the same hand-over (World::share_state) and the same
// switch (switch_grid), in the same order.
int Session::join() {
  SessionWorld& job = impl_->job;
  Watchdog& watchdog = impl_->watchdog;
  job.world = detail::World::comm();
  watchdog.arm("joining an expansion");
  watchdog.phase("state hand-over");
  std::vector<char> bytes;
  std::string err;
  if (detail::World::share_state(bytes, err) != 0) throw Error("session join: " + err);
  // Test-only faults (common/fault.hpp): the last newcomer dies, or stops answering (a
  // hung node: the others' watchdogs must end the job), after the state hand-over and
  // before the redistribution.
  const bool last = job.rank() == job.size() - 1;
  const config::Text& named = impl_->cfg.session.fault;  // read when this newcomer's session was made
  fault::inject(named, fault::Point::KillNewcomer, last, job.rank(), "after the state hand-over");
  fault::inject(named, fault::Point::StallNewcomer, last, job.rank(), "after the state hand-over");
  const ExpansionState st = unpack_expansion(bytes);
  impl_->iteration = st.iteration;
  impl_->opt.mover = st.mover;
  impl_->opt.move_budget_bytes = st.move_budget;
  MatrixRegistry& reg = impl_->registry;
  GridSwitch gs = impl_->grid_switch();
  adopt_matrices(reg, st);
  ResizeRecorder& recorder = impl_->recorder;
  recorder.powers = st.powers_before;
  adopt_cadences(impl_->ckpts, st);  // checkpoint_if_due and level_checkpoint_if_due as the others
  if (reg.unpack) reg.unpack(st.app);
  // The old layouts as the old processes hold them (computed with the powers before the
  // decision), then the powers after it for the new layouts.
  for (auto& m : reg.mats)
    if (m.mat().extended()) m.set_layout(gs.layout_of(m, st.from));
  recorder.powers = st.powers;
  // The new local arrays staged and faulted in beside the collectives up to the move.
  if (!st.background) gs.prefault_for(st.to, false, true);  // a newcomer sends nothing
  // Background resizes: the job's background settings.
  impl_->bg.mode = st.background_mode;
  impl_->bg.min_iterations = st.background_min_iterations;
  // The same collective as the old processes make after the hand-over (detail::expand).
  job.rank_hosts = detail::World::hosts();
  job.node_of_rank = redist::node_ids(job.rank_hosts);
  if (st.background)
    impl_->iteration = impl_->bg.join(st.from, st.to, job, reg, watchdog, impl_->iteration, impl_->cfg.session);
  // The same switch as the old processes make after the hand-over.
  gs.switch_grid(st.from, st.to, nullptr);
  impl_->life.started = true;
  detail::World::clear_new();
  watchdog.disarm();
  // The others give their free heap back as the resize concludes; a newcomer here, once
  // joined (MPI_Init's and the hand-over's freed memory: parts/heap_trim.hpp).
  detail::trim_heap(impl_->cfg.session.heap_trim);
  // A background expansion completes inside a remap point of the old processes, which
  // then go on to ask the policy: take part in the rest of that remap point;
  // complete_resize (after the loop) asks nothing.
  if (st.background && impl_->bg.joined_in_remap_point) impl_->act(Decision{});
  return impl_->iteration;
}

}  // namespace resize
