// SPDX-License-Identifier: BSD-3-Clause
// Starting a session: the first grid (agreed on by every process) and a newcomer's join
// of an expansion under way (state hand-over, then the same redistribution as the others).
#include "session/session_impl.hpp"

#include "common/broadcast.hpp"
#include "common/fault.hpp"

#include <functional>

#include "malleable/redist/traffic.hpp"
#include "session/world.hpp"

namespace resize {

using namespace detail;

namespace {
// What start() must agree on: the grid and every registration, in order.
std::string start_signature(const Grid& g, const std::vector<Registered>& mats) {
  std::string sig = "grid " + g.shape();
  for (const auto& r : mats) {
    sig += "; " + r.name + " " + std::to_string(r.m) + "x" + std::to_string(r.n) + " " + detail::scalar_name(r.type);
    if (r.sizes)
      sig += " extended blocks";
    else
      sig += (r.dist == Distribution::Block ? " block" : " block-cyclic " + std::to_string(r.mb) + "x" + std::to_string(r.nb));
  }
  return sig;
}

// Collective: every process starts the same grid with the same registered matrices, or
// every process throws the same message naming the first process that differs (a
// difference would otherwise hang the first collective that depends on it).
void agree_on_start(const Grid& g, const std::vector<Registered>& mats, MPI_Comm comm) {
  const std::string mine = start_signature(g, mats);
  const std::uint64_t h = std::hash<std::string>{}(mine);
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm);
  const auto odd = std::find_if(all.begin(), all.end(), [&](std::uint64_t x) { return x != all[0]; });
  if (odd == all.end()) return;
  const int bad = static_cast<int>(odd - all.begin());
  const std::string first = broadcast_text(mine, 0, comm), other = broadcast_text(mine, bad, comm);
  throw Error("session start: every process must start the same grid with the same registered matrices; world rank " +
              std::to_string(bad) + " has [" + other + "], rank 0 has [" + first + "]");
}
}  // namespace

int Session::start(const Grid& g) {
  auto& I = *impl_;
  agree_on_start(g, I.mats, I.world);
  if (g.nprow < 1 || g.npcol < 1) throw Error("session: grid " + g.shape() + " must be at least 1x1");
  if (g.size() > I.size())
    throw Error("session: grid " + g.shape() + " needs " + std::to_string(g.size()) +
                " processes, the world has " + std::to_string(I.size()));
  I.shape = g;
  I.grid = detail::blacs_grid(I.world, g);
  I.started = true;
  for (auto& r : I.mats) {
    if (r.sizes) {
      I.size_blocks(r, g);
      continue;
    }
    I.desc_for(r, I.grid, r.desc);
    r.reset(local_size(r.desc));
  }
  I.rank_hosts = detail::World::hosts();
  I.progress("[" + I.opt.app + "] start on " + g.shape() + " (" + std::to_string(I.size()) +
             " processes; world: " + detail::World::backend() + "; policy " + I.opt.policy->name() +
             "; redistribution " + mover_name() + ")");
  return 0;
}

int Session::join() {
  auto& I = *impl_;
  I.world = detail::World::comm();
  I.watchdog.arm("joining an expansion");
  I.watchdog.phase("state hand-over");
  std::vector<char> bytes;
  std::string err;
  if (detail::World::share_state(bytes, err) != 0) throw Error("session join: " + err);
  // Test-only faults (common/fault.hpp): the last newcomer dies, or stops answering (a
  // hung node: the others' watchdogs must end the job), after the state hand-over and
  // before the redistribution.
  const bool last = I.rank() == I.size() - 1;
  fault::inject(fault::Point::KillNewcomer, last, I.rank(), "after the state hand-over");
  fault::inject(fault::Point::StallNewcomer, last, I.rank(), "after the state hand-over");
  const ExpansionState st = unpack_expansion(bytes);
  I.iteration = st.iteration;
  I.opt.mover = st.mover;
  I.opt.move_budget_bytes = st.move_budget;
  const Grid& from = st.from;
  const Grid& to = st.to;
  if (st.mats.size() != I.mats.size())
    throw Error("session join: the job has " + std::to_string(st.mats.size()) + " matrices, this process registered " +
                std::to_string(I.mats.size()));
  for (std::size_t k = 0; k < I.mats.size(); ++k) {
    auto& m = I.mats[k];
    const auto& j = st.mats[k];
    m.m = j.m;
    m.n = j.n;
    m.mb = j.mb;
    m.nb = j.nb;
    const detail::Scalar type = j.type;
    if (type != m.type)
      throw Error("session join: matrix " + m.name + " holds " + detail::scalar_name(type) +
                  " in the job, this process registered " + detail::scalar_name(m.type));
    m.constant = j.constant;  // Background resizes: the job's constant matrices
    m.store->clear();
    if (!m.desc) continue;
    // Off the old grid: the descriptor PDGEMR2D expects from a non-member.
    const int off[9] = {1, -1, m.m, m.n, m.mb, m.nb, 0, 0, 1};
    std::copy(off, off + 9, m.desc);
  }
  I.powers = st.powers_before;
  I.adopt_cadences(st);  // checkpoint_if_due and level_checkpoint_if_due as the others
  if (I.unpack) I.unpack(st.app);
  // The old layouts as the old processes hold them (computed with the powers before the
  // decision), then the powers after it for the new layouts.
  for (auto& m : I.mats)
    if (m.sizes) m.layout = I.layout_of(m, from);
  I.powers = st.powers;
  // Background resizes: the job's background settings.
  I.bg_mode = st.background_mode;
  I.bg_min_iterations = st.background_min_iterations;
  const bool background = st.background;
  // The same collective as the old processes make after the hand-over (Impl::expand).
  I.rank_hosts = detail::World::hosts();
  I.node_of_rank = redist::node_ids(I.rank_hosts);
  if (background) I.iteration = I.join_background(from, to);
  I.watchdog.phase("redistribution");
  blacs_dyn::Grid old_grid = detail::blacs_grid(I.world, from);
  blacs_dyn::Grid new_grid = detail::blacs_grid(I.world, to);
  I.move_all(old_grid, new_grid);
  I.grid = std::move(new_grid);
  I.shape = to;
  I.started = true;
  detail::World::clear_new();
  I.watchdog.disarm();
  // A background expansion completes inside a remap point of the old processes, which
  // then go on to ask the policy: take part in the rest of that remap point;
  // complete_resize (after the loop) asks nothing.
  if (background && I.bg_joined_in_remap_point) I.act(Decision{});
  return I.iteration;
}


}  // namespace resize
