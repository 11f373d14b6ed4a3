// SPDX-License-Identifier: BSD-3-Clause
// A shrink (the communicator stack) and a regrid (same world,
// new grid or block sizes).
#include "parts/grid_switch.hpp"
#include "parts/resize_phases.hpp"

#include "policy/grid_choice.hpp"
#include "malleable/redist/traffic.hpp"

#include <span>
#include "parts/blacs_dyn_error.hpp"

namespace resize {

using namespace detail;

namespace {

// Whether blacs-dyn's plan (new_rank[r]: old rank r's new rank, -1 if it leaves) keeps
// exactly the ranks in `keep`, in that order.
bool keeps_planned(const std::vector<int>& keep, std::span<const int> new_rank, int new_size) {
  bool same = new_size == static_cast<int>(keep.size());
  for (int i = 0; same && i < new_size; ++i) {
    const int r = keep[static_cast<std::size_t>(i)];
    same = r >= 0 && r < static_cast<int>(new_rank.size()) && new_rank[static_cast<std::size_t>(r)] == i;
  }
  return same;
}

// New world rank k is old rank keep[k]: powers, speeds and layouts follow.
void follow_kept_ranks(ResizeRecorder& recorder, MatrixRegistry& registry, const std::vector<int>& keep,
                       const Grid& renumbered) {
  if (!recorder.powers.empty()) {
    std::vector<double> kept;
    for (int k : keep) kept.push_back(k < static_cast<int>(recorder.powers.size()) ? recorder.powers[static_cast<std::size_t>(k)] : 1.0);
    recorder.powers = std::move(kept);
  }
  recorder.speeds.renumber(keep);
  // A matrix's layout (the move's target) keeps its blocks, its ranks renumbered; an
  // extended matrix's handle reads its block sizes from it.
  for (auto& r : registry.mats) {
    const auto& l = r.layout();
    if (!l) continue;
    if (l->nprow == renumbered.nprow && l->npcol == renumbered.npcol)
      r.relayout(redist::Layout::from_blocks(l->row_blocks, l->col_blocks, l->nprow, l->npcol, l->rsrc, l->csrc,
                                               renumbered.rank_map()));
    else
      r.drop_layout();  // not the move's target: the next move lays it out from its sizes
  }
}

}  // namespace

std::optional<std::string> detail::shrink_as_planned(const std::vector<int>& keep,
                                                     const std::vector<std::string>& release,
                                                     const std::function<bool()>& move, bool& leaving) {
  std::string hook_error;  // why the hook cancelled the shrink
  std::optional<std::string> err;
  {
    const blacs_dyn::ShrinkHook hook([&](MPI_Comm, std::span<const int> new_rank, int new_size) {
      if (!keeps_planned(keep, new_rank, new_size)) {
        hook_error = "the shrink would keep other processes than the session planned";
        return false;
      }
      try {
        return move();
      } catch (const std::exception& e) {
        hook_error = e.what();
        return false;
      }
    });
    // Any live processes: blacs-dyn pops back down the stack when `keep` is exactly a
    // lower level, else pushes a level of them (a level some of whose processes already
    // left cannot be popped to).
    err = blacs_dyn_failure([&] {
      leaving = release.empty() ? blacs_dyn::World::shrink_to_ranks(keep) : blacs_dyn::World::release_hosts(release);
    });
  }
  if (err && !hook_error.empty()) return hook_error;
  return err;
}

Outcome detail::shrink(GridSwitch gs, ResizeRecorder& recorder, int iteration, const Grid& target,
                       const NodePlan& node_plan, ResizeRecord& rec, double t_start) {
  SessionWorld& job = gs.job;
  Watchdog& watchdog = gs.watchdog;
  WatchdogGuard armed(watchdog);
  // Redistribute on the big world, then let the extra processes go (§3.1 iii.4). The data
  // moves inside blacs-dyn's shrink, once it has validated the request and before anybody
  // leaves: a refused shrink (a node that cannot be given back whole) touches no data.
  job.node_of_rank = redist::node_ids(node_plan.hosts_before);
  bool moved = false;
  const auto move = [&]() {
    moved = true;
    gs.switch_grid(std::nullopt, target, &rec, "redistribution", GridSwitch::Adopt::No);
    watchdog.phase("exit of the released processes");
    return true;
  };
  const double t2 = MPI_Wtime();
  rec.mechanism = "exit";
  bool leaving = false;
  if (const auto err = shrink_as_planned(node_plan.keep, node_plan.release, move, leaving)) {
    if (moved) throw Error("shrink: " + *err);  // failed after the data moved: cannot continue
    return {{Action::Shrink, false, *err}, {}, true};
  }
  if (leaving) {
    armed.release();  // this process leaves the job (World::leave does not return)
    blacs_dyn::World::leave();
  }
  job.world = blacs_dyn::World::comm();
  rec.t_spawn = MPI_Wtime() - t2 - rec.t_redist;
  watchdog.phase("BLACS grid on the new world");
  const Grid renumbered = renumber(target, node_plan.keep);
  gs.settle_grid(renumbered);
  follow_kept_ranks(recorder, gs.registry, node_plan.keep, renumbered);
  job.rank_hosts = survey_world();
  rec.rank_hosts = RankHosts::of(job.rank_hosts);
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_spawn - rec.t_redist;
  armed.release();
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: shrink %s -> %s (%d procs%s%s): exit %.1f ms, "
                "redistribution %.1f ms, other %.1f ms, total %.1f ms",
                iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), target.size(),
                node_plan.release.empty() ? "" : "; gave back ", comma_list(node_plan.release).c_str(), rec.t_spawn * 1e3,
                rec.t_redist * 1e3, rec.t_other * 1e3, rec.t_total * 1e3);
  return {{Action::Shrink, true, {}}, line, false};
}

// Same world, new grid and/or new block sizes. Nobody joins or leaves, so
// this is one redistribution between two grids of the current world.
Outcome detail::regrid(GridSwitch gs, int iteration, const Decision& d, const Grid& target, ResizeRecord& rec,
                       double t_start) {
  const SessionWorld& job = gs.job;
  WatchdogGuard armed(gs.watchdog);
  gs.job.node_of_rank = redist::node_ids(job.rank_hosts);
  gs.switch_grid(std::nullopt, target, &rec);
  rec.rank_hosts = RankHosts::of(job.rank_hosts);
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_redist;
  armed.release();
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: regrid %s -> %s (%d of %d procs): redistribution %.1f ms, other %.1f ms, "
                "total %.1f ms%s%s",
                iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), target.size(), job.size(), rec.t_redist * 1e3,
                rec.t_other * 1e3, rec.t_total * 1e3, d.reason.empty() ? "" : "; ", d.reason.c_str());
  return {{Action::Regrid, true, {}}, line, false};
}


}  // namespace resize
