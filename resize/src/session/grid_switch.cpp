// SPDX-License-Identifier: BSD-3-Clause
// The one grid switch after a resize, used by an expansion and its newcomers' join, a
// background expansion's completion, a shrink and a regrid; and the grid made without
// moving data (start and restart, a shrink's new world, a cancelled expansion).
#include "session/session_impl.hpp"

namespace resize {

std::int64_t Session::Impl::switch_grid(const std::optional<Grid>& from, const Grid& to, ResizeRecord* rec,
                                        const char* phase, Adopt adopt) {
  // Every process of the world makes the same grids in the same order (collective).
  watchdog.phase("BLACS grids");
  blacs_dyn::Grid old_grid = from ? detail::blacs_grid(job.world, *from) : blacs_dyn::Grid{};
  blacs_dyn::Grid new_grid = detail::blacs_grid(job.world, to);
  watchdog.phase(phase);
  const double t1 = MPI_Wtime();
  const std::int64_t moved = move_all(from ? old_grid : job.grid, new_grid, rec);
  if (rec) {
    rec->t_redist = MPI_Wtime() - t1;
    rec->bytes_moved = moved;
    rec->bytes_total = total_bytes();
  }
  if (adopt == Adopt::No) {
    // A shrink: the world is about to lose processes; settle_grid makes the grid on the
    // world that is left.
    job.grid.release();
    new_grid.release();
    return moved;
  }
  job.grid = std::move(new_grid);
  old_grid.release();
  job.shape = to;
  return moved;
}

void Session::Impl::settle_grid(const Grid& g) {
  job.grid = detail::blacs_grid(job.world, g);
  job.shape = g;
  relabel_descs();
}

}  // namespace resize
