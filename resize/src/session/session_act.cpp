// SPDX-License-Identifier: BSD-3-Clause
// Acting on a decision: rank 0's decision broadcast and validated into a target grid (a
// pure choice, the same on every rank: target_grid.cpp), then carried out (expand,
// shrink, regrid, or begun in the background), recorded by resize_record.cpp's recorded().
#include "common/broadcast.hpp"
#include "session/session_impl.hpp"

#include "session/world.hpp"

namespace resize {

using namespace detail;

Decision Session::Impl::broadcast_decision(const Decision& d) const {
  return detail::unpack_decision(detail::broadcast_bytes(job.root() ? detail::pack(d) : std::vector<char>{}, 0, job.world));
}

// Broadcasts rank 0's decision, validates it into a target grid and acts.
RemapResult Session::Impl::act(Decision d) {
  const double t_start = MPI_Wtime();
  d = broadcast_decision(d);
  if (d.action == Action::None) return {};
  // Every rank's node (one allgather): placement and the shrink's kept ranks depend on it,
  // and the record counts bytes within and between nodes.
  NodePlan node_plan;
  node_plan.hosts_before = detail::World::hosts();

  // The target grid (a pure decision, the same on every rank: target_grid.cpp).
  PlacementMatrix info;
  if (!registry.mats.empty()) {
    const auto& m0 = registry.mats.front();  // the first registered matrix steers Optimal
    info = PlacementMatrix{m0.mat.m, m0.mat.n, m0.mat.mb, m0.mat.nb, m0.mat.dist == Distribution::Block};
  }
  const TargetInput in{job.shape, job.size(), registry.mats.empty() ? nullptr : &info, &detail::World::spawn_supported};
  Grid target;
  std::string why;
  try {
    target = target_grid(d, in, node_plan);
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) return refuse(d, why);
  if (!background_blocked(d)) return begin_background(d, target, node_plan, t_start);
  return recorded(d, target, t_start, [&](ResizeRecord& rec) {
    if (d.action == Action::Regrid) return regrid(d, target, rec, t_start);
    return d.action == Action::Expand ? expand(d, target, node_plan, rec, t_start) : shrink(d, target, node_plan, rec, t_start);
  });
}

// Why a decision is carried out blocking (background off, nothing constant to move, too few
// iterations left, ...: background_plan.hpp's blocking_reason), or nothing: begin it in
// the background.
std::optional<std::string> Session::Impl::background_blocked(const Decision& d) const {
  if (bg.mode == Background::Off) return std::string("background off");
  bool any = false;
  for (const auto& r : registry.mats) any = any || (r.constant && !r.mat.sizes);
  const int remaining = opt.total_iterations >= 0 ? std::max(0, opt.total_iterations - iteration) : -1;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const bool spawn_hidden = d.action == Action::Expand && provided == MPI_THREAD_MULTIPLE;
  return blocking_reason(d.action == Action::Expand || d.action == Action::Shrink, any, remaining,
                         bg.min_iterations, !d.powers.empty(), spawn_hidden);
}

}  // namespace resize
