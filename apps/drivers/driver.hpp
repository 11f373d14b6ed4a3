// SPDX-License-Identifier: BSD-3-Clause
// The shared frame of the resizable drivers (SLATE-tester style): command line, the
// iteration loop with a remap point after every iteration, the live progress line,
// the final summary table and --json/--csv output. Each driver supplies its setup,
// its iteration and its result check.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/session.hpp"

namespace CLI {
class Validator;
}

namespace apps {

// --version text of every driver: "PROGRAM (malleable X.Y.Z, commit C)".
std::string version_text(const std::string& program);
// MPI_Init for a driver: MPI_Init_thread asking for MPI_THREAD_MULTIPLE when the command
// line has --background other than off (the session's helper thread then spawns and moves
// the constant matrices while the application computes; without it, progress calls in
// begin/end_iteration do and the spawn blocks at the begin point), plain MPI_Init otherwise;
// stdout is then line-buffered (line_buffered_stdout in driver.cpp says why).
void init_mpi(int& argc, char**& argv);
// CLI11 check: a positive, finite number; the message names the value.
const CLI::Validator& positive();

struct CommonOptions {
  int n = 600;             // global size
  int nb = 64;             // block size (block-cyclic apps)
  std::string grid = "2x2";
  int iters = 10;
  std::string policy = "fixed";
  std::string schedule;    // for --policy scripted (text or file)
  std::string offer;       // for --policy sweetspot (file; default $RESIZE_OFFER)
  std::string mover = "redist";
  std::string move_budget;  // SessionOptions::move_budget_bytes ("" = $RESIZE_MOVE_BUDGET, else no limit)
  std::string json, csv;   // output files ("-" = stdout)
  double resize_timeout = 180.0;  // a spawn alone can take 40 s on a busy host
  bool quiet = false;
  bool meter_kernels = false;  // the compute-only clock (kernel_meter.hpp)
  std::string stop_file;       // end at the next iteration once this file exists
  std::string distribution = "block-cyclic";  // for the JSON record ("block" when a driver says so)
  // background resizes (off, wait, continue), the minimum iterations a resize
  // overlaps, and the registered matrices the application does not change.
  std::string background = "off";
  int background_iterations = 1;
  std::string constant;  // "A,B"
  // Checkpoint and restart (docs/guide/checkpoint.md).
  std::string checkpoint_dir;              // --checkpoint DIR: write checkpoints there
  std::string checkpoint_every;            // N | <T>s|m|h | auto (default: at the end only)
  std::string mtbf;                        // for auto: mean time between failures, e.g. 6h
  int keep = 2;                            // newest checkpoints kept in DIR (0: all)
  std::string restart;                     // --restart FILE: continue from a checkpoint
  // Checkpoint levels in node-local storage (docs/guide/checkpoint.md "Levels").
  std::string checkpoint_local;            // --checkpoint-local N|<T>s|auto
  std::string checkpoint_partner;          // --checkpoint-partner N|<T>s|auto
  std::string checkpoint_local_dir;        // --checkpoint-local-dir DIR ("" = /dev/shm/malleable-<job>)
  std::string mtbf_local, mtbf_partner;    // --mtbf-local / --mtbf-partner for auto
  bool restart_levels = false;             // --restart-levels: start from the levels
  bool checksums = false;                  // print each matrix's checksum at the end
  bool no_check = false;                   // skip the result check (benchmarks at large N)
  std::string mechanism = "spawn";         // how resizes happen: spawn (in place) or restart
};

// A driver's opening: init_mpi, then the common options with the driver's default problem,
// N x N by NB blocks for `iters` iterations (--n, --nb and --iters change them).
CommonOptions start(int& argc, char**& argv, int n, int nb, int iters);

// Exit code of a driver whose --restart file is refused (another program, other
// matrices/types/sizes, a damaged file, a checksum mismatch): nothing ran, no file changed.
inline constexpr int kExitRestartRefused = 3;
// Exit code of a driver that carries out a resize by restart (--mechanism restart): it
// checkpointed into DIR and wrote DIR/<app>.next ("NPROW NPCOL FILE"); malleable-run
// starts it again with NPROW*NPCOL processes and --restart FILE.
inline constexpr int kExitResizeByRestart = 4;
// Exit code of a driver whose checkpoint could not be written (no room, a read-only or
// failing file system, a write the I/O layer lost): every process prints the reason and
// the job stops; the failed file was removed, the previous checkpoints are all kept, and
// a resize by restart did not happen (no DIR/<app>.next written).
inline constexpr int kExitCheckpointFailed = 5;

struct Check {
  bool ok = false;
  std::string message;
};

struct DriverHooks {
  std::string name;
  std::function<std::string()> problem;                 // "N=600 NB=64"
  std::function<void(resize::Session&)> setup;          // register matrices (every process)
  std::function<void(resize::Session&)> init;           // fill data (original processes)
  std::function<void(resize::Session&)> iterate;        // one iteration (collective)
  std::function<Check(resize::Session&)> check;         // collective, at the end
  // Optional: an application-specific policy for --policy names the library does not
  // know (return nullptr to fall back to resize::make_policy).
  std::function<std::unique_ptr<resize::Policy>(const CommonOptions&)> policy;
};

// Parses argv with CLI11 (driver-specific options added through `extra`), runs the job
// and returns the process exit code (0: result check passed).
int run_driver(int argc, char** argv, CommonOptions& opts,
               const std::function<void(void* cli_app)>& extra, DriverHooks hooks);

// "cyclic" or "block" (throws resize::Error naming the value otherwise).
resize::Distribution parse_distribution(const std::string& s);
// "N=1200 NB=64" or "N=1200 block distribution", for the summary's problem line.
std::string describe_problem(std::int64_t n, std::int64_t nb, resize::Distribution dist);

// The --dist option of a driver that offers ScaLAPACK's block distribution beside the
// block-cyclic one: its text, and the distribution it names once parsed.
struct DistOption {
  std::string name = "cyclic";
  resize::Distribution dist = resize::Distribution::BlockCyclic;
  // Adds --dist to run_driver's CLI11 app (the argument of its `extra`).
  void add_to(void* cli_app);
  // At setup: parses `name` (parse_distribution), records the distribution in
  // o.distribution ("block" or "block-cyclic") and returns it.
  resize::Distribution parse(CommonOptions& o);
};

// Deterministic global entries in [-1, 1], so any rank can build the reference.
double entry(int seed, std::int64_t i, std::int64_t j);

// Fills the local part of a distributed matrix with entry(seed, i, j).
void fill(resize::Matrix<double>& a, int seed);
// max |A_local - ref| over the world, ref column-major M x N (leading dimension M) on
// every rank.
double max_diff(const resize::Session& s, const resize::Matrix<double>& a, const std::vector<double>& ref);
// The same for a buffer (leading dimension lld) laid out as `map` says, e.g. a scratch
// copy of a registered matrix.
double max_diff(const resize::Session& s, const resize::IndexMap& map, const double* buf, int lld,
                const std::vector<double>& ref);

}  // namespace apps
