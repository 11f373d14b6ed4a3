// SPDX-License-Identifier: BSD-3-Clause
// Parts a Session is made of, each with one job (the facade's state, SessionState in
// session/session_impl.hpp, composes them with the registry, parts/registry.hpp, the
// checkpoints, checkpoint/session_checkpoint.hpp, and the background part,
// background/background_part.hpp):
// the world and its grid, the launch command, the resize recorder, the iteration meter, the
// arrival check, the session's life and the report's inputs. Internal to the session's MPI
// shell.
#pragma once

#include <mpi.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.hpp"
#include "malleable/redist/cost_model.hpp"
#include "malleable/resize/metrics.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/session_options.hpp"
#include "parts/handover.hpp"
#include "policy/generation_reach.hpp"

namespace resize {
namespace detail {
// The world every process of the job is in and the BLACS grid the matrices live on: its
// shape (known also to processes outside the grid) and the nodes of the world's ranks.
// Changed only by the one grid switch (grid_switch.cpp) and by the world's own changes
// (spawn, shrink).
struct SessionWorld {
  MPI_Comm world = MPI_COMM_NULL;
  blacs_dyn::Grid grid;
  Grid shape;  // current grid (also on processes outside it)
  // Node id of every rank of the world a redistribution runs in (empty: not known), so a
  // move can count bytes within and between nodes.
  std::vector<int> node_of_rank;
  // Node of every rank of the current world (for policies that manage nodes).
  std::vector<std::string> rank_hosts;
  // Whether the generations reach each other through shared memory (policy/
  // generation_reach.hpp, parts/generation_check.hpp): RESIZE_UCX_CHECK, the selected
  // PML, whether an expansion decided it, and the measured factor (< 0: not measured).
  struct Reach {
    ReachCheck setting = ReachCheck::Auto;
    std::string pml;
    bool decided = false;
    double factor = -1;
  } reach;

  int rank() const {
    int r = 0;
    MPI_Comm_rank(world, &r);
    return r;
  }
  int size() const {
    int s = 0;
    MPI_Comm_size(world, &s);
    return s;
  }
  bool root() const { return rank() == 0; }
};

// The command spawned copies of this process run: the program and its arguments.
struct LaunchCommand {
  std::string exe;
  std::vector<std::string> args;
};

// World rank 0's predictions for the resize being made (copied into its record).
struct Predictions {
  double spawn = -1, other = -1, iteration_after = -1, iteration_before = -1;
  std::string reasoning;
};

// What the run measured and learned about resizes: the metrics, the measured speeds and
// the resize history (world rank 0), the machine's calibrated redistribution costs
// (world rank 0), the mapping powers (every process) and the predictions under way.
struct ResizeRecorder {
  Metrics metrics;
  SpeedEstimator speeds;
  ResizeHistory history;
  std::string history_path;  // empty: not persisted
  // Each resize records the redistribution time these predict beside the measured one.
  std::optional<redist::CostParams> cost_model;
  std::vector<double> powers, powers_before;  // now, and before the resize under way
  Predictions predicted;
  IterationSample add_iteration(int iteration, const Grid& grid, const std::vector<double>& all);
};

// One iteration's clocks (begin_iteration) and the compute the application reported in it.
struct IterationMeter {
  double t_wall0 = 0, t_cpu0 = 0, t_kernel0 = 0;
  double work_acc = 0, compute_acc = 0;
  std::array<double, 5> close();
};

// The arrival check at every remap point (watchdog.hpp): its deadline's rule
// (handover.hpp: SessionOptions' remap settings, RESIZE_REMAP_TIMEOUT), when the last
// check ended, the longest time between two of them and how many were measured.
struct ArrivalCheck {
  RemapTimeout timeout;
  double last = 0, longest_gap = 0;
  int gaps = 0;
  void arrive(MPI_Comm world, int iteration);
};

// Where the session is in its life: made, started (start, restart or join), and what it
// knew about itself when it was made.
struct SessionLife {
  bool started = false;
  // This process was spawned by an expansion (blacs-dyn's mark, read when the session was
  // made): is_newcomer() stays true after join(), so `if (!is_newcomer()) fill` after the
  // join-or-start line keeps a newcomer from overwriting the data it received.
  bool newcomer = false;
  // World rank 0 when the session was made (it stays rank 0): says what a scripted
  // schedule left undone (warn_schedule, at the start and when the session ends).
  bool rank0 = false;
  int first_remap_iteration = -1;  // this job's first remap point (a restart's begin later)
  // remap_or_restart said ExitForRestart: the next launch runs the rest of the schedule,
  // so the end of this one does not warn of the entries it left.
  bool leaves_for_restart = false;
  // A session alive at MPI_Finalize (declared in main's scope) releases its
  // communicators at the start of MPI_Finalize (an attribute of MPI_COMM_SELF, which
  // MPI_Finalize deletes first): communicators over the processes of several jobs left to
  // MPI_Finalize make Open MPI's disconnect of the jobs write to closed sockets (SIGPIPE).
  int self_key = MPI_KEYVAL_INVALID;
};

// What the application told the run's report (summary(), write_json()): its result check
// (unset: none given) and its problem text.
struct ReportInputs {
  std::optional<std::pair<bool, std::string>> result_check;
  std::string problem;
};

}  // namespace detail
}  // namespace resize
