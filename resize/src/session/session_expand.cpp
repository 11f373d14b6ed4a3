// SPDX-License-Identifier: BSD-3-Clause
// An expansion: spawn through blacs-dyn, hand the state to the newcomers,
// move every matrix onto the grown grid.
#include "session/session_impl.hpp"

#include "malleable/redist/traffic.hpp"
#include "session/world.hpp"

namespace resize {

using namespace detail;

std::vector<char> Session::Impl::pack_expansion(const Grid& from, const Grid& to) {
  ExpansionState st;
  st.iteration = iteration;
  // The job's mover: a newcomer must run the same collective code (RESIZE_MOVER from
  // the environment need not reach spawned processes).
  st.mover = opt.mover;
  st.move_budget = opt.move_budget_bytes;  // the batches are collective too
  st.from = from;
  st.to = to;
  for (const auto& r : mats)
    st.mats.push_back({r.m, r.n, r.mb, r.nb, r.type, r.constant});
  st.app = pack ? pack() : std::vector<char>{};
  st.powers_before = powers_before;  // what the old layouts were computed with
  st.powers = powers;
  // Background resizes: the background settings and the constant matrices (every process must
  // agree on them at later remap points), and whether this expansion is one.
  st.background_mode = bg_mode;
  st.background_min_iterations = bg_min_iterations;
  st.background = bg_beginning;
  pack_cadences(st);  // the newcomers checkpoint as the others do
  return detail::pack(st);
}

Session::Impl::Outcome Session::Impl::expand(const Decision& d, const Grid& target, const NodePlan& node_plan, ResizeRecord& rec,
                                             double t_start) {
  const Grid from = shape;
  WatchdogGuard armed(watchdog);
  // Spawn only what the world lacks (a world may already hold idle processes).
  const int nnew = std::max(0, target.size() - size());
  const std::string err = spawn(d, node_plan, nnew, rec.t_spawn, true);
  if (!err.empty()) return {{Action::Expand, false, err}, {}, false};
  world = detail::World::comm();
  if (size() < target.size())
    throw Error("expansion: the world has " + std::to_string(size()) + " processes after spawning, " +
                target.shape() + " needs " + std::to_string(target.size()));
  watchdog.phase("state hand-over");
  std::vector<char> bytes = pack_expansion(from, target);
  if (std::string e; detail::World::share_state(bytes, e) != 0) throw Error("expansion: " + e);
  // Everyone, not only the newcomers, takes rank 0's application state: a policy that
  // runs on rank 0 may have changed it (e.g. the powers of the processes it added).
  if (!root() && unpack) unpack(unpack_expansion(bytes).app);
  rank_hosts = detail::World::hosts();
  rec.rank_hosts = RankHosts::of(rank_hosts);
  node_of_rank = redist::node_ids(rank_hosts);
  return {{Action::Expand, true, {}}, finish_expansion(from, target, rec, t_start), false};
}

std::string Session::Impl::spawn(const Decision& d, const NodePlan& node_plan, int nnew, double& seconds, bool main_thread) {
  const double t0 = MPI_Wtime();
  int rc = 0;
  std::string err;
  if (!d.schema.empty()) {
    if (main_thread) watchdog.phase("spawn (schema " + d.schema + ")");
    rc = detail::World::expand_schema(d.schema, err);
  } else if (!node_plan.spawn.empty()) {
    if (main_thread)
      watchdog.phase("spawn of " + std::to_string(nnew) + " processes on " + std::to_string(node_plan.spawn.size()) + " host(s)");
    rc = detail::World::expand_hosts(node_plan.spawn, exe, args, err);
  } else if (nnew > 0) {
    if (main_thread) watchdog.phase("spawn of " + std::to_string(nnew) + " processes");
    rc = detail::World::expand(nnew, exe, args, err);
  }
  seconds = MPI_Wtime() - t0;
  if (rc != 0) return err.empty() ? std::string("the spawn failed") : err;
  return {};
}

std::string Session::Impl::finish_expansion(const Grid& from, const Grid& to, ResizeRecord& rec, double t_start) {
  watchdog.phase("BLACS grids");
  blacs_dyn::Grid old_grid = detail::blacs_grid(world, from);
  blacs_dyn::Grid new_grid = detail::blacs_grid(world, to);
  watchdog.phase("redistribution");
  const double t1 = MPI_Wtime();
  const std::int64_t moved = move_all(old_grid, new_grid, &rec);
  rec.t_redist = MPI_Wtime() - t1;
  grid = std::move(new_grid);
  old_grid.release();
  shape = to;
  rec.bytes_moved = moved;
  rec.bytes_total = total_bytes();
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_spawn - rec.t_redist;
  char line[256];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: expand %s -> %s (%s, %d procs): spawn %.1f ms, "
                "redistribution %.1f ms, other %.1f ms, total %.1f ms",
                iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), to_string(rec.placement).c_str(), to.size(),
                rec.t_spawn * 1e3, rec.t_redist * 1e3, rec.t_other * 1e3, rec.t_total * 1e3);
  return line;
}


}  // namespace resize
