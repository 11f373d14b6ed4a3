// SPDX-License-Identifier: BSD-3-Clause
// The one grid switch after a resize (GridSwitch, a view of the parts it changes) and the
// move's accounting (MoveAccounting), with the BLACS grids they make. Internal to the
// session's MPI shell; grid_switch.cpp is its code.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/config.hpp"
#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/resize/session_options.hpp"
#include "move/move_share.hpp"
#include "move/mover.hpp"
#include "move/pages.hpp"
#include "parts/registry.hpp"
#include "parts/session_parts.hpp"
#include "parts/watchdog.hpp"

namespace resize {
namespace detail {

// The session's grids are blacs_dyn::Grid: a BLACS grid for `g` on `world` (collective
// over it; processes outside `g` get no context), and the placement of one as a Grid.
// Every process of the world makes the same grids in the same order, so it is also where
// the arrival check's duplicate of a new world is made (watchdog.hpp).
inline blacs_dyn::Grid blacs_grid(MPI_Comm world, const Grid& g) {
  arrival_on_world(world);
  return blacs_dyn::Grid(world, g.nprow, g.npcol, g.rank_map());
}
inline Grid shape_of(const blacs_dyn::Grid& g) { return Grid{g.nprow(), g.npcol(), g.ranks()}; }

inline std::string comma_list(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

// A resize's redistribution figures (grid_switch.cpp, beside the move that adds to them),
// each rank from its own plan (redist::make_plan with for_rank: O(its partners), never the
// whole job's P_A x P_B pairs, and move_share.hpp's share of it), the job-wide numbers by
// reductions. Lives for one move of the registered matrices; every member function is
// collective over `world`, called in the same order on every rank.
class MoveAccounting {
 public:
  // One MPI_Bcast from rank 0: whether to predict, and the cost model (rank 0's `params`;
  // the others' are ignored). node_of_rank covers every world rank (shorter: one node, and
  // no within/between split). With a cost model whose cores_per_node > 0, the ranks of
  // each node get a communicator (MPI_Comm_split) for the node bounds.
  MoveAccounting(MPI_Comm world, const redist::CostParams* params, const std::vector<int>& node_of_rank);
  ~MoveAccounting();
  MoveAccounting(const MoveAccounting&) = delete;
  MoveAccounting& operator=(const MoveAccounting&) = delete;
  // This rank's share of moving one matrix from `la` to `lb` (redist's default schedule);
  // with a cost model, the prediction's reductions: an allreduce (max) of the step span, an
  // allreduce (sum) within the node when cores_per_node > 0, an allreduce (max) of the
  // slots (move_share.hpp): O(steps of the schedule) doubles.
  void add(Scalar type, const redist::Layout& la, const redist::Layout& lb);
  // The same from this rank's plan (make_plan for its rank, the default schedule) when the
  // caller has it already.
  void add(Scalar type, const redist::RedistPlan& plan);
  // One MPI_Allreduce (sum) of the counts and one (max) of peak_bytes; afterwards the
  // fields below are job-wide.
  void reduce();
  bool predicting() const { return predict_; }
  bool mapped() const { return mapped_; }
  std::int64_t bytes_moved = 0, bytes_intra_node = 0, bytes_inter_node = 0;
  double predicted_s = 0;  // the cost model's seconds, summed over the matrices added
  // The redist mover's batches (the same on every rank) and the most bytes of matrix
  // buffers and redist staging this rank held (after reduce(): any rank).
  int batches = 0;
  std::int64_t peak_bytes = 0;
  // This rank's seconds per phase of the move (the caller adds them); after reduce(): the
  // slowest rank's per phase (one more MPI_Allreduce, max).
  MovePhases phases;

 private:
  MPI_Comm world_, node_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0;
  bool predict_ = false, mapped_ = false;
  redist::CostParams params_;
  CostRegime regime_;
  const std::vector<int>& node_of_rank_;
};

// The one grid switch after a resize (grid_switch.cpp), a view of the parts it changes:
// the world's grid (`job`), the registered matrices' layouts and buffers (`registry`), the
// watchdog's phases; it reads the mover and move budget (`opt`), the cost model and
// history that predict a move (`recorder`) and the configuration the session read at its
// start (`cfg`: the prefault and free-on-thread switches, the test-only faults). Used by an expansion and its newcomers' join,
// a background expansion's completion, a shrink, a regrid, start and restart.
struct GridSwitch {
  SessionWorld& job;
  MatrixRegistry& registry;
  Watchdog& watchdog;
  const SessionOptions& opt;
  const ResizeRecorder& recorder;
  Prefault& prefault;  // the new local arrays staged ahead of the move (move/pages.hpp)
  const config::Config& cfg;

  // The new local arrays on `to` staged and faulted in on a thread (move/pages.hpp),
  // while this process waits for something else (an old process: the spawn; a newcomer:
  // the hand-over's collectives), and with `window` this process's node-window segment
  // made for what it will send (redist::reserve_node_window). `handed_over`: the state of
  // the hand-over is in (else the extended-descriptor matrices are left to the move). Not
  // with a move budget (its batches stage in turn).
  void prefault_for(const Grid& to, bool window, bool handed_over);
  // Arrays staged ahead that no move took (the expansion failed): freed.
  void drop_prestaged();

  // BLACS grids for `from` and `to` on the current world (`from` empty: the current grid,
  // on an unchanged world), every registered matrix moved from one to the other (the
  // redistribution's time and bytes into `rec` when given; the watchdog's phase named
  // `phase`), and `to` the session's grid. Adopt::No (a shrink, whose world is about to
  // lose processes) releases both grids instead; settle_grid then makes the grid on the
  // world that is left.
  enum class Adopt { Yes, No };
  std::int64_t switch_grid(const std::optional<Grid>& from, const Grid& to, ResizeRecord* rec,
                           const char* phase = "redistribution", Adopt adopt = Adopt::Yes);
  // `g` the session's grid on the current world, no data moved (start and restart, a
  // shrink's new world, a cancelled expansion); the descriptors name its context.
  void settle_grid(const Grid& g);
  // Every registered matrix's first layout and buffer on `g`, the session's grid (start;
  // `use`: what the buffers serve, move/pages.hpp).
  void lay_out(const Grid& g, ArrayFor use);
  // A block-cyclic matrix's descriptor on grid `g` (a matrix not registered: make_desc).
  void desc_for(const redist::MatrixSpec& mat, const blacs_dyn::Grid& g, int* d) const;
  // A matrix's layout on a grid (its record's rule: the block sizes of an
  // extended-descriptor matrix, the block-cyclic blocks of the others).
  redist::Layout layout_of(const Registered& r, const Grid& g) const;

 private:
  // One matrix of move_together: its layouts (and a block-cyclic one's form: context and
  // leading dimension) on both grids and the bytes of its old and new buffers on this process.
  struct MovePart {
    Registered* r = nullptr;
    redist::Layout la, lb;
    detail::Placement pa, pb;       // the rest of its form on la's grid (block-cyclic) and lb's
    std::size_t new_elements = 0;
    std::int64_t old_bytes = 0, new_bytes = 0;
  };
  // Redistributes every registered matrix from grid `from` to grid `to` (both contexts
  // on the current world); returns bytes moved between ranks.
  std::int64_t move_all(const blacs_dyn::Grid& from, const blacs_dyn::Grid& to, ResizeRecord* rec);
  // move_all's two ways: all in one redist exchange, or PDGEMR2D's one by one.
  // `keep`: where the replaced local arrays go to be freed after the move (one batch, not
  // RESIZE_FREE_ON_THREAD=off; else they are freed in it).
  void move_together(const blacs_dyn::Grid& from, const blacs_dyn::Grid& to, MoveAccounting& acct,
                     std::vector<std::shared_ptr<void>>* keep);
  MovePart move_part(Registered& r, const blacs_dyn::Grid& from, const blacs_dyn::Grid& to) const;
  // Stages, moves (one redist exchange) and commits parts[begin, end); returns redist's
  // staging peak on this process.
  std::int64_t move_batch(std::vector<MovePart>& parts, std::size_t begin, std::size_t end, bool first,
                          MoveAccounting& acct, std::vector<std::shared_ptr<void>>* keep);
  // The batch's new buffers (null where nothing is held), agreed on every process.
  std::vector<void*> stage_batch(std::vector<MovePart>& parts, std::size_t begin, std::size_t end);
  void move_one_by_one(const blacs_dyn::Grid& from, const blacs_dyn::Grid& to, MoveAccounting& acct);
  void commit_background(Registered& r, const blacs_dyn::Grid& to);
  void move_blocks(Registered& r, const blacs_dyn::Grid& from, const blacs_dyn::Grid& to, MoveAccounting& acct);
  // Local rows and columns of this process in a layout (0 x 0 off the grid).
  std::pair<std::int64_t, std::int64_t> local_dims(const redist::Layout& l) const;
  void place_first(Registered& r, const Grid& g, ArrayFor use);
  std::int64_t total_bytes() const;
  // The elements of this process's new local array of `r` on grid `to` (the size the
  // move stages), from the shapes alone: no BLACS context needed.
  std::size_t new_elements_on(const Registered& r, const Grid& to) const;
  // The bytes this process sends to others when `r` moves from the current grid to `to`.
  std::int64_t sent_bytes_on(const Registered& r, const Grid& to) const;
  // Same layout and buffers, the form placed again on the grid made anew (its context, its
  // ranks: after the world changed under them).
  void place_again_on_grid();
};
// The local buffer (elements) a ScaLAPACK descriptor needs on this process: its leading
// dimension times its local columns (at least 1); 0 off the grid (context < 0).
std::size_t local_elements(const int* desc);

}  // namespace detail
}  // namespace resize
