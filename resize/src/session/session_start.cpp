// SPDX-License-Identifier: BSD-3-Clause
// Starting a session (Session::start): the first grid, agreed on by every process (a
// newcomer's join of an expansion is in session_expand.cpp; the old processes' side is
// exec/executor.cpp's).
#include "session/session_impl.hpp"

#include "common/broadcast.hpp"

#include <functional>

#include "parts/watchdog.hpp"
#include "policy/grid_choice.hpp"

namespace resize {

using namespace detail;

namespace {
// What start() must agree on: the grid and every registration, in order.
std::string start_signature(const Grid& g, const std::vector<Registered>& mats) {
  std::string sig = "grid " + g.shape();
  for (const auto& r : mats) {
    sig += "; " + r.mat().name + " " + std::to_string(r.mat().m) + "x" + std::to_string(r.mat().n) + " " + detail::scalar_name(r.mat().type);
    if (r.mat().extended())
      sig += " extended blocks";
    else
      sig += (r.mat().dist == Distribution::Block ? " block" : " block-cyclic " + std::to_string(r.mat().mb) + "x" + std::to_string(r.mat().nb));
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

int detail::start_session(SessionState& s, const Grid& asked) {
  const SessionWorld& job = s.job;
  // 0x0: every process of the world on the near-square grid (P <= Q) a growth chooses
  const bool all = asked.nprow == 0 && asked.npcol == 0 && asked.ranks.empty();
  const Grid g = all ? choose_topology(job.size()) : asked;
  agree_on_start(g, s.registry.mats, job.world);
  if (g.nprow < 1 || g.npcol < 1)
    throw Error("session: grid " + g.shape() + " must be at least 1x1 (or 0x0: every process, near square)");
  if (g.size() > job.size())
    throw Error("session: grid " + g.shape() + " needs " + std::to_string(g.size()) + " processes, the world has " +
                std::to_string(job.size()));
  detail::GridSwitch gs = s.grid_switch();
  gs.settle_grid(g);
  s.life.started = true;
  gs.lay_out(g, s.start_arrays);
  s.job.rank_hosts = detail::survey_world();
  const SessionOptions& opt = s.opt;
  s.progress("[" + opt.app + "] start on " + g.shape() + " (" + std::to_string(job.size()) +
             " processes; world: blacs-dyn; policy " + opt.policy->name() +
             "; redistribution " + to_string(opt.mover) + ")");
  return 0;
}

// Every registered matrix's first layout on `g`, the session's grid, the buffer for it
// and what derives from it (GridSwitch::place_first).
void GridSwitch::lay_out(const Grid& g, ArrayFor use) {
  for (auto& r : registry.mats) place_first(r, g, use);
}

}  // namespace resize
