// SPDX-License-Identifier: BSD-3-Clause
// The resize session: the thin MPI shell around the pure core. At each remap point of
// an iterative SPMD application one collective call (Session::remap_point) asks the
// policy (world rank 0 decides, everyone follows), picks grid and placement, expands
// (blacs-dyn spawns, newcomers join with the session and application state) or shrinks
// (blacs-dyn's communicator stack), redistributes every registered matrix onto the new
// grid and records the time of each phase (seed 002 §3.1, seed 003's breakdown).
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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "malleable/resize/metrics.hpp"
#include "malleable/resize/policy.hpp"
#include "malleable/resize/types.hpp"

namespace resize {

// How a matrix is laid out on every grid it lives on.
enum class Distribution {
  BlockCyclic,  // keep the descriptor's MB x NB on every grid
  Block,        // one block per process row/column: MB = ceil(M/nprow), NB = ceil(N/npcol)
};

// Which code moves the data at a resize.
enum class Mover {
  Redist,    // redist::redistribute (the project's executor)
  Pdgemr2d,  // ScaLAPACK's Cpdgemr2d (caterpillar), kept for comparison
};
std::string to_string(Mover m);
Mover parse_mover(const std::string& s);

struct SessionOptions {
  std::string app = "app";
  std::unique_ptr<Policy> policy;     // default: FixedPolicy
  Mover mover = Mover::Redist;
  bool progress = true;               // live progress line on world rank 0
  double resize_timeout = 180.0;      // watchdog: a resize stuck this long ends the job
  std::string spawn_command;          // default: this executable (/proc/self/exe)
  std::vector<std::string> spawn_args;  // default: this process's argv[1..]
  int total_iterations = -1;          // the job's length, for payoff tests (< 0: unknown)
  // Keep resize times across runs in this application's history file (issue 13 §2,
  // resize_history_location in predict.hpp), so spawn and exit times are predicted from
  // the first resize of a run on. RESIZE_HISTORY=off turns it off too.
  bool persist_history = true;
};

// What happened at a remap point.
struct RemapResult {
  Action action = Action::None;
  bool ok = true;
  std::string message;
};

class Session {
 public:
  // MPI must be initialised. Reads nothing collective yet.
  Session(int argc, char** argv, SessionOptions opts);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // True on a process spawned by an expansion that has not joined yet.
  bool is_newcomer() const;
  // Original processes: set the first grid (collective over the world); returns 0,
  // the number of completed iterations.
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
  // Same with a malloc()'ed buffer that the session frees and reallocates (C, Fortran).
  void register_matrix_c(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                         int* desc, double** buf);
  void register_matrix_c(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                         int* desc, float** buf);
  void register_matrix_c(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                         int* desc, std::complex<float>** buf);
  void register_matrix_c(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                         int* desc, std::complex<double>** buf);
  // Sizes of the row blocks and column blocks on a grid: one block per process row and
  // column, of any sizes (redist's extended descriptor, seed 002 §3.4.4), e.g. in
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
  // Descriptor of an M x N matrix on the current grid (DESC[CTXT] = -1 off the grid),
  // e.g. for scratch matrices; and the local buffer length (elements) a descriptor needs.
  void make_desc(int m, int n, int mb, int nb, Distribution dist, int* desc) const;
  static std::size_t local_size(const int* desc);

  void begin_iteration();
  // This process computed `work` units (e.g. cells updated, flops) in `seconds` of its
  // own compute during the current iteration, not counting waits for other processes.
  // May be called several times per iteration (sums). Feeds the measured speeds (issue
  // 13 §1): speed = work / seconds, smoothed per process on world rank 0.
  void report_compute(double work, double seconds);
  // Collective: reduces the iteration's wall and CPU time to world rank 0, and gathers
  // the reported compute of every process there.
  void end_iteration(const std::string& note = {});
  // Collective over the world.
  RemapResult remap_point();
  // Ask for a resize right now (tests, the C API); collective.
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
  template <class T> void register_malloc(const std::string& name, int m, int n, int mb, int nb,
                                          Distribution dist, int* desc, T** buf);
  template <class T> void register_blocks(const std::string& name, int m, int n, BlockSizes sizes,
                                          std::vector<T>& buf, int* lld);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace resize
