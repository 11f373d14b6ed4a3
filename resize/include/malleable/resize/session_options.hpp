// SPDX-License-Identifier: BSD-3-Clause
// The session's vocabulary: what a program and the session's parts say to each other
// without the Session itself. The options a session is made with (SessionOptions, the
// mover, the move budget), what a remap point did (RemapResult, ResizeStep, the mechanism
// of a resize and the exit status of a resize by restart) and the checkpoint cadences.
// The facade, session.hpp, includes it; the session's parts below the facade include this
// header, never session.hpp (tests/structure/check-structure.py, FACADES).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "malleable/resize/background.hpp"
#include "malleable/resize/policy.hpp"
#include "malleable/resize/types.hpp"

namespace resize {

// Which code moves the data at a resize.
enum class Mover {
  Redist,    // redist::redistribute (the project's executor)
  Pdgemr2d,  // ScaLAPACK's Cpdgemr2d (caterpillar), kept for comparison
};
std::string to_string(Mover m);
Mover parse_mover(const std::string& s);
// A move budget in bytes (SessionOptions::move_budget_bytes): digits with an optional
// binary suffix K, M or G (any case), e.g. "512M"; "", "0" or "unlimited": 0 (no limit).
// Anything else (negative, a fraction, an unknown suffix, more than 2^62) throws Error.
std::int64_t parse_move_budget(const std::string& s);

struct SessionOptions {
  std::string app = "app";
  std::unique_ptr<Policy> policy;     // default: FixedPolicy
  Mover mover = Mover::Redist;
  // The most bytes of new matrix buffers a process allocates at once while a resize moves
  // the registered matrices with the redist mover (docs/reference/apps.md, "Memory of a resize"):
  // the matrices go in consecutive batches whose new buffers fit it on every process, one
  // redist exchange each, a batch's old buffers freed before the next one's new buffers
  // are allocated; a matrix larger than the budget goes alone. 0: no limit, every matrix
  // in one exchange (old and new buffers of all of them held at once). Handed to
  // newcomers; the C API takes it from RESIZE_MOVE_BUDGET (parse_move_budget).
  std::int64_t move_budget_bytes = 0;
  bool progress = true;               // live progress line on world rank 0
  double resize_timeout = 180.0;      // watchdog: a resize stuck this long ends the job
  // Every remap point begins with an arrival check: a process that does not arrive within
  // the deadline, or arrives after another iteration, ends the job with a message naming
  // it (status 75). The deadline: once two gaps between remap points were measured,
  // remap_factor times the longest of them, at least remap_floor, never more than
  // remap_timeout (the cap; before two gaps, and with remap_factor 0: the cap).
  // RESIZE_REMAP_TIMEOUT=CAP[:FACTOR[:FLOOR]] overrides them; a cap of 0 turns the check off.
  double remap_timeout = 600.0;
  double remap_factor = 3.0;
  double remap_floor = 30.0;
  std::string spawn_command;          // default: this executable (/proc/self/exe)
  std::vector<std::string> spawn_args;  // default: this process's argv[1..]
  int total_iterations = -1;          // the job's length, for payoff tests (< 0: unknown)
  // Keep resize times across runs in this application's history file
  // (resize_history_location in predict.hpp), so spawn and exit times are predicted from
  // the first resize of a run on. Off by default: a program writes nothing
  // under the user's home unless asked, here or with RESIZE_HISTORY=PATH (that file, for
  // any program); the drivers turn it on. RESIZE_HISTORY=off turns it off for all.
  bool persist_history = false;
  // Begin expansions and shrinks in the background when a matrix is marked
  // constant (mark_constant); complete them at the first remap point at least
  // `background_iterations` iterations later (docs/reference/apps.md, "Background resizes").
  Background background = Background::Off;
  int background_iterations = 1;
  // The policy as summary() and write_json() name it (default: the policy's name()),
  // e.g. "scripted 3:expand:3x3,6:shrink:2x2".
  std::string policy_text;
};

// What happened at a remap point.
struct RemapResult {
  Action action = Action::None;
  bool ok = true;
  std::string message;
  // A resize refused or failed (ok false): the code of what refused it and the part that
  // raised it, in the one form (malleable/error.hpp): a blacs-dyn refusal keeps blacs-dyn's
  // code, a refusal of the session's own rules State or InvalidArgument; ResizeFailed and
  // Resize where no finer cause is known. Ok and None while ok.
  malleable::Errc code = malleable::Errc::Ok;
  malleable::Part part = malleable::Part::None;
};

// A checkpoint that could not be written (no room, a read-only or failing file system, a
// directory that cannot be made, a .next file that cannot be written): thrown the same on
// every process by checkpoint(), checkpoint_in(), checkpoint_if_due() and
// remap_or_restart(); the previous checkpoints are untouched. A resize::Error (code
// malleable::Errc::Checkpoint), so catching Error catches it too.
class CheckpointFailed : public Error {
 public:
  explicit CheckpointFailed(const std::string& what) : Error(what, malleable::Errc::Checkpoint) {}
};

// When the session checkpoints (Session::set_checkpointing, docs/guide/checkpoint.md).
struct CheckpointCadence {
  std::string dir;          // created if need be; DIR/<app>-<iteration>.h5
  // "N" (every N iterations), "<T>s|m|h" (every T), "auto" (Young/Daly's interval from
  // the measured cost and mtbf_seconds), "" or "never": only when asked (the last
  // iteration, DIR/checkpoint.request, a resize by restart).
  std::string every;
  double mtbf_seconds = 0;  // for "auto" (> 0)
  int keep = 0;             // newest checkpoints kept in dir (0: all)
};

// Checkpoint levels in the nodes' own storage (docs/guide/checkpoint.md, "Levels"):
// *local* (each process's blocks, the application state and the layout in a directory on
// its own node) and *partner* (the same bytes also kept by a process of the partner node,
// a ring over the nodes), beside the global HDF5 file of CheckpointCadence.
struct LevelCadence {
  // Node-local directory; "" = /dev/shm/malleable-<job> (job: $MALLEABLE_JOB_ID, else
  // $SLURM_JOB_ID, else the program's name). Each node writes into <dir>/<node name>.
  std::string dir;
  // "N" (every N iterations), "<T>s|m|h", "auto" (Young/Daly from the level's measured
  // cost and its MTBF below), "" or "never". A partner checkpoint writes the local level too.
  std::string local_every, partner_every;
  double local_mtbf = 0;    // auto: seconds between failures a local copy recovers (a process dies, its node stays)
  double partner_mtbf = 0;  // auto: seconds between losses of one node
  int keep = 2;             // newest versions kept per level (0: all)
};

// One level checkpoint (Session::level_records, world rank 0): LevelRecord, report.hpp.

// How a resize is carried out (Session::remap_or_restart): in place (spawn / shrink /
// regrid), or by checkpoint, exit kExitResizeByRestart and a new launch with the new
// process count (malleable-run).
enum class Mechanism { Spawn, Restart };
Mechanism parse_mechanism(const std::string& s);  // "spawn" | "restart"; throws Error

// The exit status of a program that leaves for a resize by restart: it checkpointed and
// wrote DIR/<app>.next ("NPROW NPCOL FILE"); malleable-run relaunches it with
// NPROW*NPCOL processes and -g NPROWxNPCOL --restart FILE.
inline constexpr int kExitResizeByRestart = 4;

// What Session::remap_or_restart did.
struct ResizeStep {
  enum class Kind {
    Continue,        // no resize, or a resize in place that failed (ok == false)
    Resized,         // resized in place: take buffers and descriptors again
    ExitForRestart,  // checkpointed, DIR/<app>.next written: leave with kExitResizeByRestart
  };
  Kind kind = Kind::Continue;
  Action action = Action::None;  // the policy's decision
  bool ok = true;                // false: the resize failed, the job continues on its grid
  std::string message;           // why it failed, or what the restart will do
  std::string checkpoint;        // ExitForRestart: the checkpoint the next launch restarts from
};

}  // namespace resize
