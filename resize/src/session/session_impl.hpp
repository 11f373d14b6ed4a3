// SPDX-License-Identifier: BSD-3-Clause
// Internal to the session's MPI shell: the state one Session keeps (Session::Impl), the
// registered matrices, the grid switch, the recording of a resize and the background part
// (their buffers are storage.hpp's, the resize watchdog watchdog.hpp's, the state handed to
// newcomers handover.hpp's, the target grid policy/grid_choice.hpp's). The phases live in
// session_*.cpp and background/ beside it.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/layout.hpp"
#include "background/background_plan.hpp"
#include "checkpoint/checkpoint_format.hpp"
#include "common/config.hpp"
#include "malleable/resize/matrix.hpp"
#include "malleable/resize/session.hpp"
#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "session/handover.hpp"
#include "session/matrix_desc.hpp"
#include "session/storage.hpp"
#include "policy/grid_choice.hpp"
#include "session/session_parts.hpp"
#include "session/watchdog.hpp"
#include "move/mover.hpp"
#include "move/move_share.hpp"
#include "move/pages.hpp"

namespace resize {
namespace detail {

inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

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

}  // namespace detail

// A registered matrix: its description (matrix_desc.hpp) and the buffers and handles
// that hold its elements on this process.
struct Registered {
  detail::MatrixDesc mat;
  int* desc = nullptr;                 // its ScaLAPACK descriptor (none: an extended-descriptor matrix)
  std::unique_ptr<detail::Storage> store;
  int* lld = nullptr;                  // its leading dimension, for the application
  // Background resizes: constant between remap points (Session::mark_constant), so a resize may move
  // it in the background; `moved_in_background`: its staged buffer already holds its data
  // on the target grid (move_all commits it instead of moving it).
  bool constant = false;
  bool moved_in_background = false;
  // Registered through a handle: the state the handle reads (desc and lld point into it).
  std::shared_ptr<detail::MatrixState> state;
  // An extended-descriptor matrix's block sizes for its handle, once `layout` changed.
  void publish_layout() {
    if (state && mat.layout) {
      state->row_blocks = mat.layout->row_blocks.to_vector();
      state->col_blocks = mat.layout->col_blocks.to_vector();
      ++state->blocks_version;  // the handle's cached index map is rebuilt
    }
  }
  const void* data() const { return store->data(); }
  std::int64_t bytes(std::int64_t elements) const {
    return elements * static_cast<std::int64_t>(detail::scalar_bytes(mat.type));
  }
  // The memory a buffer of `elements` holds (Storage::held_bytes: huge pages round it up).
  std::int64_t held(std::int64_t elements) const { return store->held_bytes(bytes(elements)); }
  // The buffer on a new grid (reset) or the one a move writes into (stage). A size that
  // does not fit in memory is named with the matrix, not as std::bad_alloc.
  void reset(std::size_t elements, detail::ArrayFor use) {
    sized("its buffer", elements, [&] { store->reset(elements, use); });
  }
  // A buffer staged ahead of the move (prestage, move/pages.hpp) of that very size is
  // taken as it is (zero, its pages faulted in); any other size is staged anew.
  void* stage(std::size_t elements) {
    void* p = prestaged;
    if (p && prestaged_elements == elements) {
      prestaged = nullptr;
      return p;
    }
    prestaged = nullptr;
    sized("the buffer it moves into", elements, [&] { p = store->stage(elements); });
    return p;
  }
  // The buffer a later move of `elements` will take (the prefault thread's task): staged
  // now, its length in bytes returned with it. Throws std::bad_alloc where it does not fit.
  std::pair<void*, std::size_t> prestage(std::size_t elements) {
    prestaged = nullptr;
    void* p = store->stage(elements);
    prestaged_elements = elements;
    prestaged = p;
    return {p, static_cast<std::size_t>(bytes(static_cast<std::int64_t>(elements)))};
  }
  // A staged buffer that will not be committed (a background resize cancelled, an
  // expansion that failed after its buffers were staged ahead): freed.
  void unstage() {
    prestaged = nullptr;
    store->unstage();
  }
  bool holds_prestaged() const { return prestaged != nullptr; }

 private:
  void* prestaged = nullptr;  // staged ahead of the move, not yet taken by stage()
  std::size_t prestaged_elements = 0;
  template <class F>
  void sized(const char* what, std::size_t elements, F&& allocate) {
    try {
      allocate();
    } catch (const std::bad_alloc&) {
      throw Error(out_of_memory(what, elements));
    } catch (const std::length_error&) {
      throw Error(out_of_memory(what, elements));
    }
  }
  std::string out_of_memory(const char* what, std::size_t elements) const {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f", static_cast<double>(elements) * detail::scalar_bytes(mat.type) / 1073741824.0);
    return "session: matrix '" + mat.name + "' (" + std::to_string(mat.m) + " x " + std::to_string(mat.n) + "): " + what +
           " of " + std::to_string(elements) + " elements (" + gib + " GiB) on this process does not fit in memory";
  }
};

// A block-cyclic (or block) matrix's record with its checked shape and descriptor, the
// storage and element type still to set (register_matrix, the C API's resize_register*).
Registered uniform_registration(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                                int* desc);

namespace detail {
// The registered matrices, in registration order (every process the same), and the
// application's own state handed to newcomers (Session::set_app_state).
struct MatrixRegistry {
  std::vector<Registered> mats;
  std::function<std::vector<char>()> pack;
  std::function<void(const std::vector<char>&)> unpack;
  // The matrix `name` is constant between remap points (Session::mark_constant).
  void mark_constant(const std::string& name) {
    for (auto& r : mats)
      if (r.mat.name == name) {
        r.constant = true;
        return;
      }
    throw Error("mark_constant: no registered matrix is named '" + name + "'");
  }
};
}  // namespace detail

namespace detail {
struct BackgroundResize;  // background/background_resize.hpp

// A progress line on world rank 0 (`root`), when the options ask for them.
inline void progress_line(const SessionOptions& opt, bool root, const std::string& line) {
  if (opt.progress && root) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
}

// What a blocking resize reports to its record: the result, the progress line of a
// success, or, for a resize that did not happen, whether it was refused before anything
// changed (refuse) or an expansion failed (fail_expansion).
struct Outcome {
  RemapResult result;
  std::string line;
  bool refused = false;
};

// A resize's redistribution figures (session_move.cpp, beside the move that adds to them),
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

// The one grid switch after a resize (session_move.cpp), a view of the parts it changes:
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
  // A block-cyclic matrix's descriptor on grid `g`.
  void desc_for(const Registered& r, const blacs_dyn::Grid& g, int* d) const;
  // The extended-descriptor layout of a block-sizes matrix on a grid.
  redist::Layout layout_of(const Registered& r, const Grid& g) const;

 private:
  // One matrix of move_together: its layouts (and descriptors) on both grids and the bytes
  // of its old and new buffers on this process.
  struct MovePart {
    Registered* r = nullptr;
    redist::Layout la, lb;
    int da[9] = {}, db[9] = {};
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
  void size_blocks(Registered& r, const Grid& g, ArrayFor use);
  std::int64_t total_bytes() const;
  // The elements of this process's new local array of `r` on grid `to` (the size the
  // move stages), from the shapes alone: no BLACS context needed.
  std::size_t new_elements_on(const Registered& r, const Grid& to) const;
  // The bytes this process sends to others when `r` moves from the current grid to `to`.
  std::int64_t sent_bytes_on(const Registered& r, const Grid& to) const;
  // Same layout and buffers, new BLACS context (after the world changed under them).
  void relabel_descs();
};

// The record of one resize (remap_point.cpp), a view of the parts it writes: what the
// run learned (`recorder`), read against the job's grid (`job`) at the remap point after
// `iteration`; the policy told and the progress line printed (`opt`); the watchdog armed
// when a resize begins.
struct ResizeRecording {
  ResizeRecorder& recorder;
  const SessionWorld& job;
  const SessionOptions& opt;
  Watchdog& watchdog;
  const int& iteration;

  // Begun with the predictions (rank 0) and the watchdog armed. `predict` false: the
  // predictions made when a background resize began stay (its completion's record).
  ResizeRecord begin_resize(const Decision& d, const Grid& target, bool predict = true);
  // One blocking resize from its record's beginning to its conclusion, `carry_out` (an
  // expansion, a shrink or a regrid) in between: the record's file is entered once per
  // resize.
  RemapResult recorded(const Decision& d, const Grid& target, double t_start,
                       const std::function<Outcome(ResizeRecord&)>& carry_out, bool predict = true);
  // A resize that did not happen: recorded, the policy told; the job stays as it was.
  RemapResult refuse(const Decision& d, const std::string& why);
  // A spawn that failed, blocking or in the background: recorded, the policy told, the
  // job continues on `from` with its data.
  RemapResult fail_expansion(const Decision& d, const Grid& from, const Grid& target, ResizeRecord rec,
                             const std::string& err, double t_start);
  // Rank 0, a resize that succeeded: its record, the history, the policy told, the line.
  void conclude(const Decision& d, int from_procs, const ResizeRecord& rec, const std::string& line);
  void progress(const std::string& line) const { progress_line(opt, job.root(), line); }

 private:
  void predict_before(const Decision& d, const Grid& target);
  void record_outcome(const ResizeRecord& rec);
};

// The resize's own phases (session_expand.cpp, session_shrink.cpp), functions of the
// parts they use. `pack_state`: the state an expansion hands its newcomers, packed when
// the world has grown.
Outcome expand(GridSwitch gs, const LaunchCommand& launch, int iteration, const Decision& d, const Grid& target,
               const NodePlan& node_plan, ResizeRecord& rec, double t_start,
               const std::function<std::vector<char>()>& pack_state);
Outcome shrink(GridSwitch gs, ResizeRecorder& recorder, int iteration, const Grid& target, const NodePlan& node_plan,
               ResizeRecord& rec, double t_start);
Outcome regrid(GridSwitch gs, int iteration, const Decision& d, const Grid& target, ResizeRecord& rec, double t_start);

// Background resizes (background/session_background.cpp): the background settings
// (every process the same) and the resize under way (a shared_ptr: BackgroundResize is
// complete only in background_resize.hpp), with the phases that begin, complete, cancel
// or refuse one, given the grid switch and the recording.
struct BackgroundPart {
  std::shared_ptr<BackgroundResize> in_flight;
  Background mode = Background::Off;
  int min_iterations = 1;
  // A newcomer of a background expansion: the old processes completed it inside a remap
  // point (not complete_resize), so the newcomer takes part in the rest of that point.
  bool joined_in_remap_point = false;
  double complete_start = 0, complete_waited = 0;
  // Why cancel_background cancels the resize under way.
  enum class CancelCause {
    Destroyed,   // the session was destroyed or MPI_Finalize called (`why` says which)
    End,         // cancel_resize(): the job's end (recorded)
    Superseded,  // a shrink decided meanwhile (`why` names it; recorded)
  };

  // Begins decision `d` (target `target`) in the background; `pack_state` packs the
  // state an expansion hands its newcomers (after the record began: the powers).
  RemapResult begin_background(const Decision& d, const Grid& target, const NodePlan& node_plan, double t_start,
                               GridSwitch gs, ResizeRecording rs, const LaunchCommand& launch,
                               const std::function<std::vector<char>()>& pack_state);
  // At a remap point (or complete_resize: last_chance) while a resize is under way:
  // completes it when due; returns its result then, nothing when it goes on.
  std::optional<RemapResult> step_background(bool last_chance, GridSwitch gs, ResizeRecording rs);
  // A decision `d` (the same on every rank) made while a resize is under way: a shrink
  // while an expansion is pending cancels the expansion; nothing returned: `d` is then
  // carried out as any decision. A shrink already met, or any other request refused
  // (docs/reference/apps.md, "Background resizes"): its result.
  std::optional<RemapResult> decide_during_background(const Decision& d, GridSwitch gs, ResizeRecording rs);
  // Cancels the resize under way before it switched (collective over the old processes;
  // an expansion's newcomers leave, the job stays on its grid with its data).
  RemapResult cancel_background(const std::string& why, CancelCause cause, GridSwitch gs, ResizeRecording rs);
  // begin_iteration/end_iteration without a helper thread: the resize's messages progress.
  void progress();
  // An iteration ran while the resize is under way (`wall`: its slowest rank's time;
  // counted on world rank 0, `root`).
  void iteration(double wall, bool root);
  // Fills a completing record's background fields (world rank 0, `root`).
  void amend(ResizeRecord& rec, bool root) const;
  // The background fields of `rec` from `b`'s clock: its completing (or cancelling)
  // point began at `start` and waited `waited` (world rank 0).
  void fill(const BackgroundResize& b, ResizeRecord& rec, double start, double waited) const;
  // Why decision `d` is carried out blocking (`remaining`: iterations left, -1 not
  // known), or nothing: begin it in the background.
  std::optional<std::string> blocked(const Decision& d, const MatrixRegistry& registry, int remaining) const;
  // A newcomer spawned by a background expansion from `from` to `to`: receive the
  // constant matrices of `registry`, wait for the completing point; returns the
  // iteration the job completed it after (a cancelled expansion: this process leaves).
  int join(const Grid& from, const Grid& to, const SessionWorld& job, MatrixRegistry& registry, Watchdog& watchdog,
           int iteration, const config::Session& cfg);

 private:
  // The completing point of a background expansion, once every message arrived: the
  // variable matrices move (blocking) and the grids switch to the grown world's.
  RemapResult switch_background_expansion(BackgroundResize& b, GridSwitch gs, ResizeRecording rs);
};
}  // namespace detail

// One session: a thin facade over its parts (session_parts.hpp; the registry and the
// background part above), each with one job, and what ties them together (options,
// identity, the iteration count, the watchdog). The phases are functions of the parts
// (session_*.cpp, checkpoint/, background/, report/), given the parts they need; the grid
// switch and the recording are views of the parts, made where a phase needs them. `cfg`:
// the environment, read once when the session is made (a newcomer's when it is spawned);
// no part reads the environment again.
struct Session::Impl {
  detail::SessionWorld job;          // the world and its grid
  detail::MatrixRegistry registry;   // the registered matrices and the application's state
  detail::ResizeRecorder recorder;   // metrics, history, powers, predictions
  detail::SessionCheckpoints ckpts;  // checkpoint cadences and what was written
  detail::SessionLife life;          // started, newcomer, rank 0, MPI_Finalize hook
  detail::ReportInputs report;       // the application's result check and problem text
  detail::IterationMeter meter;
  detail::ArrivalCheck arrivals;
  SessionOptions opt;
  config::Config cfg;
  detail::LaunchCommand launch;  // what a spawn runs
  int iteration = 0;
  detail::Watchdog watchdog{60.0};
  detail::BackgroundPart bg;
  detail::Prefault prefault;  // after the registry: joined before the arrays it stages go
  // What start()'s new arrays serve (move/pages.hpp): Recovery while restart_from_levels
  // starts its grid, else Start. start() is public API without such a parameter, so the
  // restart says it here, on its own session, for that one call.
  detail::ArrayFor start_arrays = detail::ArrayFor::Start;

  detail::GridSwitch grid_switch() { return {job, registry, watchdog, opt, recorder, prefault, cfg}; }
  detail::ResizeRecording recording() { return {recorder, job, opt, watchdog, iteration}; }
  void progress(const std::string& line) const { detail::progress_line(opt, job.root(), line); }

  void arrive();
  void warn_schedule(bool at_end) const;
  void release_mpi();
  void release_levels();  // the levels' node communicators (session_levels.cpp)
  // World rank 0 only: the policy's decision at this remap point (a policy that throws
  // gives Decision::none naming the error). Used by remap_point and next_decision.
  Decision ask_policy();
  // World rank 0's decision, on every process of the world (collective).
  Decision broadcast_decision(const Decision& d) const;
  // Broadcasts rank 0's decision, validates it into a target grid and carries it out
  // (expand, shrink, regrid, or begun in the background).
  RemapResult act(Decision d);
  // A decision while a resize is under way in the background (BackgroundPart).
  RemapResult decide_during_background(const Decision& d);
  // Iterations left in the job (-1: not known).
  int remaining() const;
  // The state an expansion from `from` to `to` hands its newcomers, packed; `background`:
  // the expansion is one begun in the background.
  std::vector<char> pack_expansion(const Grid& from, const Grid& to, bool background = false);
  // MPI_Finalize with a background resize under way: cancelled.
  static void finalize_hook(void* self);
};

namespace detail {
// The spawn of an expansion, shared by the blocking and the background paths: `cmd` by
// the decision's schema, the node plan's hosts, or `nnew` processes; `seconds` measured.
// Returns "" or the spawn's error (the world unchanged). `watchdog`: its phases are set
// (null from the background's helper thread, whose phases belong to the main thread).
std::string spawn_processes(const Decision& d, const NodePlan& node_plan, int nnew, const LaunchCommand& cmd,
                            Watchdog* watchdog, double& seconds);
}  // namespace detail

// "; predicted: spawn 812.0 ms (history), ..." for a resize record's predicted parts.
std::string predicted_note(const ResizeRecord& r);

}  // namespace resize
