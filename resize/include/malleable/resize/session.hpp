// SPDX-License-Identifier: BSD-3-Clause
// The resize session: the thin MPI shell around the pure core. At each remap point of
// an iterative SPMD application one collective call (Session::remap_point) asks the
// policy (world rank 0 decides, everyone follows), picks grid and placement, expands
// (blacs-dyn spawns, newcomers join with the session and application state) or shrinks
// (blacs-dyn's communicator stack), redistributes every registered matrix onto the new
// grid and records the time of each phase (spawn or exit, redistribution, other).
//
// Usage (every process, old or new, runs the same main):
//   resize::Session s(argc, argv, opts);       // after MPI_Init
//   s.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, descA, a);
//   int it = s.is_newcomer() ? s.join() : s.start(resize::Grid{2, 2});
//   if (!s.is_newcomer()) fill a (only original processes create data)
//   while (it < iters) { s.begin_iteration(); compute on s.context(); s.end_iteration();
//                        ++it; s.remap_point(); }
// Registered buffers are reallocated and descriptors rewritten by the session; take
// pointers again after every remap point. Processes leaving in a shrink do not return
// from remap_point (they exit through blacs_dyn_leave).
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "malleable/resize/background.hpp"
#include "malleable/resize/matrix.hpp"
#include "malleable/resize/metrics.hpp"
#include "malleable/resize/policy.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/session_options.hpp"
#include "malleable/resize/types.hpp"

namespace resize {

namespace detail {
struct SessionAccess;  // the C API's door into the session (session_c.cpp)
}  // namespace detail

class Session {
 public:
  // MPI must be initialised. Reads nothing collective yet.
  Session(int argc, char** argv, SessionOptions opts);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // True on a process spawned by an expansion (it joins with join(), not start()), and it
  // stays true after join(): `int it = s.is_newcomer() ? s.join() : s.start(g);` then
  // `if (!s.is_newcomer()) fill` fills on the original processes only, never over the
  // data a newcomer received. False on the processes mpiexec started.
  bool is_newcomer() const;
  // Original processes: set the first grid (collective over the world); returns 0,
  // the number of completed iterations. Grid{0, 0, {}}: every process of the world on a
  // near-square grid (P <= Q: 2x2 on 4, 2x3 on 6), e.g. all the nodes Slurm gave the job.
  int start(const Grid& g);
  // Newcomers: take part in the expansion that spawned them (state hand-over and
  // redistribution); returns the number of completed iterations to continue from.
  int join();

  // Application state handed out at every expansion (optional): `pack` runs on world
  // rank 0, `unpack` on every other process, newcomers included (the policy runs on
  // rank 0 and may have changed the state, e.g. the powers of the processes it added).
  void set_app_state(std::function<std::vector<char>()> pack,
                     std::function<void(const std::vector<char>&)> unpack);

  // Registers an M x N distributed matrix once, before start()/join(), on every process.
  // The session owns its layout: it fills `desc` (DESC[CTXT] = -1 off the grid) and
  // sizes `buf` for the current grid at start(), and redistributes the data, resizes
  // `buf` and rewrites `desc` at every resize. Block-cyclic matrices keep MB x NB.
  // Elements are float, double, std::complex<float> or std::complex<double> (ScaLAPACK's
  // s, d, c, z), moved bit for bit. Every process registers the same matrices in the same
  // order with the same element types (join() refuses a newcomer whose types differ).
  void register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                       int* desc, std::vector<double>& buf);
  void register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                       int* desc, std::vector<float>& buf);
  void register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                       int* desc, std::vector<std::complex<float>>& buf);
  void register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                       int* desc, std::vector<std::complex<double>>& buf);
  // Sizes of the row blocks and column blocks on a grid: one block per process row and
  // column, of any sizes (redist's extended descriptor), e.g. in
  // proportion to processor power (§6). Must give the same answer on every process.
  using BlockSizes = std::function<void(const Grid& g, std::vector<long long>& rows,
                                        std::vector<long long>& cols)>;
  // Registers an M x N matrix whose layout on each grid comes from `sizes` (no ScaLAPACK
  // descriptor can describe it; it is moved with redist). The session keeps `buf` sized
  // local rows x local columns, column-major, and writes the leading dimension to *lld.
  // The same four element types as register_matrix.
  void register_matrix_blocks(const std::string& name, int m, int n, BlockSizes sizes,
                              std::vector<double>& buf, int* lld);
  void register_matrix_blocks(const std::string& name, int m, int n, BlockSizes sizes,
                              std::vector<float>& buf, int* lld);
  void register_matrix_blocks(const std::string& name, int m, int n, BlockSizes sizes,
                              std::vector<std::complex<float>>& buf, int* lld);
  void register_matrix_blocks(const std::string& name, int m, int n, BlockSizes sizes,
                              std::vector<std::complex<double>>& buf, int* lld);
  // The application does not change this registered matrix between remap
  // points (default: it may), so a background resize moves it while the old grid keeps
  // computing. Before start()/join(), on every process; throws for an unknown name.
  // RESIZE_CHECK_CONSTANT=1 checksums it and fails the resize naming it if it changed.
  void mark_constant(const std::string& name);
  // The background mode (SessionOptions::background) after construction (C, Fortran).
  void set_background(Background mode, int min_iterations = 1);
  // Collective: completes a resize under way in the background now (waiting for it), for
  // a program that goes on computing on the new grid (e.g. a phase after the loop);
  // returns {} when none is under way.
  RemapResult complete_resize();
  // Collective, at the job's end (after the loop): a resize under way in the background
  // that has not switched is cancelled, not completed (no iteration would use the new
  // grid): an expansion's newcomers are told and exit, messages not yet posted are not
  // sent, the job stays on its grid with its data; recorded as "cancelled at the end (not
  // finished after K deferrals)". Returns {action cancelled, ok false, that message}, or
  // {} when none is under way.
  RemapResult cancel_resize();
  // True while a resize begun in the background has not completed.
  bool resize_in_background() const;
  // Descriptor of an M x N matrix on the current grid (DESC[CTXT] = -1 off the grid),
  // e.g. for scratch matrices; and the local buffer length (elements) a descriptor needs.
  void make_desc(int m, int n, int mb, int nb, Distribution dist, int* desc) const;
  static std::size_t local_size(const int* desc);

  // Checkpoint and restart (checkpoint.hpp, docs/guide/checkpoint.md).
  // Collective: writes every registered matrix, the application state (set_app_state's
  // pack, run on world rank 0), the completed iterations, the grid, each matrix's layout
  // and the resize history into ONE parallel HDF5 file at `path` (written as path.tmp,
  // renamed when complete). Returns the seconds it took (the slowest process's).
  double checkpoint(const std::string& path);
  // The same into dir/<app>-<iteration>.h5 (world rank 0 creates dir if need be; Error
  // on every process if it cannot), then deletes all but the newest `keep`
  // checkpoints of this program in `dir` (keep <= 0: keeps all). Returns the file name.
  std::string checkpoint_in(const std::string& dir, int keep, double* seconds = nullptr);
  // Instead of start(g) on the original processes: starts on grid `g` (any shape, any
  // number of processes) and reads every registered matrix straight from checkpoint
  // `file` for the layout it has on `g` (each process reads its own blocks), restores the
  // application state (unpack on every process) and the iteration count, and returns it.
  // A file from another program, with other matrices, types or sizes, a damaged or
  // truncated file or a checksum mismatch throws the same Error on every process, and no
  // file is changed.
  int restart(const std::string& file, const Grid& g);
  // The checkpoint cadence (every process, the same cadence; after start, restart or
  // join: the clock of time-based cadences starts here). Throws Error for a bad `every`
  // (named) or "auto" without an MTBF. World rank 0 creates the directory. Newcomers of
  // a later expansion take the cadence from the hand-over (no need to set it on them).
  void set_checkpointing(const CheckpointCadence& c);
  // Collective, after each iteration: checkpoints into the cadence's directory when it is
  // due (world rank 0 decides with its clock, or a file DIR/checkpoint.request, which it
  // deletes), or when `last` (e.g. the last iteration, a stop). Returns the file written,
  // "" when none. A checkpoint that cannot be written throws the same Error on every
  // process, the previous checkpoints untouched. With "auto", world rank 0 prints each
  // checkpoint's numbers ("[app] checkpoint-every auto: iteration=... interval=...").
  std::string checkpoint_if_due(bool last = false);
  // World rank 0: the checkpoints checkpoint_if_due wrote (run_info(), summary, JSON).
  const std::vector<CheckpointRecord>& checkpoint_records() const;
  // Checkpoint levels (LevelCadence, docs/guide/checkpoint.md "Levels"). Collective. Throws
  // CheckpointFailed on every process when a level cannot be written (no room, not
  // writable, one node only for the partner level); the previous versions stay intact
  // (every process writes under a temporary name; all rename only when all succeeded).
  // Newcomers of a later expansion take the cadence from the hand-over.
  void set_level_checkpointing(const LevelCadence& c);
  // After each iteration: writes the levels that are due; returns "", "local" or "partner".
  // A partner level due on a job down to one node writes the local level only (said once).
  std::string level_checkpoint_if_due(bool last = false);
  // Writes the local level (and the partner level if `partner`) now; returns the slowest
  // process's seconds.
  double checkpoint_levels(bool partner);
  const std::vector<LevelRecord>& level_records() const;
  // Instead of start(g) after a failure: rebuilds every registered matrix from the newest
  // version complete across levels in `dir` ("" as LevelCadence::dir) on the nodes of this
  // job (each survivor reads its own local copies and the partner copies it keeps; the
  // lost processes' blocks come from partner copies) and moves them in memory onto the
  // grid `g`. If some old process's blocks are in no level, restarts from the global
  // checkpoint of that version in `global_dir` (says so). Throws Error on every process
  // when nothing is complete. Returns the iteration.
  int restart_from_levels(const std::string& dir, const Grid& g, const std::string& global_dir = "");
  // Collective, at a remap point: the policy's decision carried out in place
  // (Mechanism::Spawn) or by restart (Mechanism::Restart: checkpoint_in(dir, keep), then
  // DIR/<app>.next for malleable-run; the caller then leaves with kExitResizeByRestart).
  // With Spawn and a checkpoint directory, an expansion that fails (spawn refused or not
  // supported) and a shrink refused that was to give named nodes back are carried out by
  // restart instead, and so is, with RESIZE_REFRESH_AFTER=N, an expansion that would take
  // this launch past N spawned processes (the refresh: every process starts anew, and
  // Open MPI's state for the spawned ones with it). Without set_checkpointing it is
  // remap_point(). World rank 0 prints
  // the restart ("[app] resize by restart after iteration ..."). Checkpoint failure:
  // Error on every process, as checkpoint().
  ResizeStep remap_or_restart(Mechanism m = Mechanism::Spawn);
  // Registers an M x N matrix of T (float, double, std::complex<float> or
  // std::complex<double>) once, before start()/join(), on every process, and returns its
  // handle (matrix.hpp). The session owns the matrix: its descriptor, its local buffer
  // (column-major, leading dimension lld()) and its layout on every grid; it moves the
  // data at every resize and the handle shows the current descriptor, buffer and index
  // maps. Block-cyclic matrices keep MB x NB; Block ones get one block per process
  // row/column on every grid. Same rules as the overloads above (order, types).
  template <class T>
  Matrix<T> register_matrix(const std::string& name, int m, int n, int mb, int nb,
                            Distribution dist = Distribution::BlockCyclic);
  // The same for a matrix whose row and column blocks on each grid come from `sizes`
  // (one block per process row/column: an extended descriptor, no ScaLAPACK desc).
  template <class T>
  Matrix<T> register_matrix(const std::string& name, int m, int n, BlockSizes sizes);

  // The run's report, as the drivers print it (report.hpp): iteration times per grid,
  // every resize (DRMS split, payoff), predictions, and the result check. Metrics live
  // on world rank 0: summary() is the table there and "" on every other rank;
  // write_json(path) writes the run (schema malleable.run/2, what malleable-plot draws)
  // on world rank 0 only ("-": stdout) and throws resize::Error if the file cannot be
  // written. Neither is collective.
  void set_result_check(bool ok, const std::string& message);
  void set_problem(const std::string& text);  // e.g. "N=1200 NB=64" (default: the matrices)
  RunInfo run_info() const;  // what summary() and write_json() describe the run with
  std::string summary() const;
  void write_json(const std::string& path) const;
  // Collective: the policy's decision at this remap point (world rank 0 decides, as in
  // remap_point) WITHOUT acting on it, for a resize carried out by checkpoint and restart
  // (docs/guide/checkpoint.md, "Resize by restart"): action and target grid (nprow x npcol, chosen near-square when the
  // policy gave only a process count) are the same on every process; on world rank 0 the
  // rest of the decision too, so resize_now(d) can still carry it out in place.
  Decision next_decision();
  // Collective: a dry run of the next resize (docs/guide/porting.md, "Dry run"): the policy
  // asked as at a remap point, its decision planned and NOT carried out: the target grid
  // and placement, merge, respawn or background, the nodes, each matrix's layouts and
  // bytes kept and moved, the move's batches and each phase's predicted cost; as JSON
  // (schema malleable.plan/1) and as a table, the same on every process. Nothing moves.
  struct DryRun {
    std::string json, table;
  };
  DryRun dry_run();
  // The node of every world rank now (the same on every process), e.g. for
  // hosts_after_restart (resize/src/checkpoint/by_restart.hpp).
  const std::vector<std::string>& rank_hosts() const;
  // Collective: each registered matrix's name and its order-independent checksum (the
  // one a checkpoint stores; checkpoint.hpp), the same whatever grid holds the matrix.
  std::vector<std::pair<std::string, std::uint64_t>> checksums() const;

  void begin_iteration();
  // This process computed `work` units (e.g. cells updated, flops) in `seconds` of its
  // own compute during the current iteration, not counting waits for other processes.
  // May be called several times per iteration (sums). Feeds the measured speeds:
  // speed = work / seconds, smoothed per process on world rank 0.
  void report_compute(double work, double seconds);
  // Collective: reduces the iteration's wall and CPU time to world rank 0, and gathers
  // the reported compute of every process there.
  void end_iteration(const std::string& note = {});
  // Collective over the world.
  RemapResult remap_point();
  // Collective: carry out decision `d` now instead of asking the policy, for a program
  // that decides its resizes itself (or carries out next_decision()'s in place). World
  // rank 0's `d` counts (it is broadcast); while a resize runs in the background, as a
  // decision taken at a remap point.
  RemapResult resize_now(const Decision& d);

  MPI_Comm world() const;
  int world_rank() const;
  int world_size() const;
  int context() const;          // BLACS context of the current grid (-1 off the grid)
  bool in_grid() const;
  int myrow() const;
  int mycol() const;
  const Grid& grid() const;
  int iteration() const;        // completed iterations
  const Metrics& metrics() const;  // meaningful on world rank 0
  // Measured speeds of the world's ranks (meaningful on world rank 0).
  const SpeedEstimator& speeds() const;
  // Mapping powers by world rank, the same on every process: set by a policy's decision
  // (Decision::powers) and handed to newcomers; empty until a decision sets them.
  const std::vector<double>& powers() const;
  std::string mover_name() const;

 private:
  template <class T> void register_vector(const std::string& name, int m, int n, int mb, int nb,
                                          Distribution dist, int* desc, std::vector<T>& buf);
  template <class T> Matrix<T> register_handle(const std::string& name, int m, int n, int mb, int nb,
                                               Distribution dist, BlockSizes sizes);
  template <class T> void register_blocks(const std::string& name, int m, int n, BlockSizes sizes,
                                          std::vector<T>& buf, int* lld);
  // The C and Fortran APIs register malloc()'ed buffers that the session frees and
  // reallocates (resize_register*, session_c.cpp): a C concern, not this class's.
  friend struct detail::SessionAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace resize
