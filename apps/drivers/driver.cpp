// SPDX-License-Identifier: BSD-3-Clause
#include "driver.hpp"

#include "malleable/resize/checkpoint.hpp"
#include "malleable/resize/kernel_meter.hpp"
#include "malleable/resize/schedule.hpp"
#include "malleable/version.h"

#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>


extern "C" void openblas_set_num_threads(int);

namespace apps {

// The status malleable-run relaunches on is the session's (Session::remap_or_restart).
static_assert(kExitResizeByRestart == resize::kExitResizeByRestart);

// stdout written line by line: mpiexec forwards a process's stdout and stderr through two
// pipes, so a line flushed in pieces from a full 4-KiB buffer could be cut by a warning on
// stderr (the session's end-of-run warnings) where both reach one log, and a reader that
// greps for the line (the result check) would miss it.
static void line_buffered_stdout() { std::setvbuf(stdout, nullptr, _IOLBF, 0); }

// `text` written a line a call: a line-buffered stream flushes one call's text at its last
// newline, but a call longer than the buffer (a summary table of many grids, checkpoints and
// levels can pass 4 KiB) is written in whole blocks, cut anywhere, and a warning on stderr
// could land inside the line that was cut.
static void print_lines(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    std::fwrite(text.data() + at, 1, end - at, stdout);
    at = end;
  }
}

CommonOptions start(int& argc, char**& argv, int n, int nb, int iters) {
  init_mpi(argc, argv);
  CommonOptions o;
  o.n = n;
  o.nb = nb;
  o.iters = iters;
  return o;
}

void init_mpi(int& argc, char**& argv) {
  line_buffered_stdout();
  bool background = false;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--background" && k + 1 < argc) background = std::string(argv[k + 1]) != "off" && std::string(argv[k + 1]) != "blocking";
    else if (a.rfind("--background=", 0) == 0) background = a != "--background=off" && a != "--background=blocking";
  }
  if (background) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
}

double entry(int seed, std::int64_t i, std::int64_t j) {
  std::uint64_t h = static_cast<std::uint64_t>(seed) * 0x9E3779B97F4A7C15ull ^
                    static_cast<std::uint64_t>(i) * 0xC2B2AE3D27D4EB4Full ^
                    static_cast<std::uint64_t>(j) * 0x165667B19E3779F9ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<double>(h % 2001u) / 1000.0 - 1.0;
}

resize::Distribution parse_distribution(const std::string& s) {
  if (s == "cyclic") return resize::Distribution::BlockCyclic;
  if (s == "block") return resize::Distribution::Block;
  throw resize::Error("--dist: expected cyclic or block, got '" + s + "'");
}

std::string describe_problem(std::int64_t n, std::int64_t nb, resize::Distribution dist) {
  return "N=" + std::to_string(n) +
         (dist == resize::Distribution::Block ? " block distribution" : " NB=" + std::to_string(nb));
}

void DistOption::add_to(void* cli_app) {
  static_cast<CLI::App*>(cli_app)->add_option(
      "--dist", name, "cyclic (MB = NB = --nb) or block (one block per process row/column, as the thesis's runs)");
}

resize::Distribution DistOption::parse(CommonOptions& o) {
  dist = parse_distribution(name);
  o.distribution = dist == resize::Distribution::Block ? "block" : "block-cyclic";
  return dist;
}

void fill(resize::Matrix<double>& a, int seed) {
  a.for_each_local([&](int i, int j, double& v) { v = entry(seed, i, j); });
}

double max_diff(const resize::Session& s, const resize::IndexMap& map, const double* buf, int lld,
                const std::vector<double>& ref) {
  double err = 0.0;
  const auto m = static_cast<std::size_t>(map.rows()), ld = static_cast<std::size_t>(lld);
  map.for_each_local([&](int il, int jl, int i, int j) {
    err = std::max(err, std::fabs(buf[static_cast<std::size_t>(il) + static_cast<std::size_t>(jl) * ld] -
                                  ref[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * m]));
  });
  double g = 0.0;
  MPI_Allreduce(&err, &g, 1, MPI_DOUBLE, MPI_MAX, s.world());
  return g;
}

double max_diff(const resize::Session& s, const resize::Matrix<double>& a, const std::vector<double>& ref) {
  return max_diff(s, a.map(), a.data(), a.lld(), ref);
}

std::string version_text(const std::string& program) {
  return program + " (malleable " MALLEABLE_VERSION ", commit " MALLEABLE_GIT_COMMIT ")";
}

const CLI::Validator& positive() {
  // "must be positive" without CLI::PositiveNumber's 300-digit range in the message
  static const CLI::Validator v{[](const std::string& text) -> std::string {
                                  try {
                                    std::size_t end = 0;
                                    const double x = std::stod(text, &end);
                                    if (end == text.size() && x > 0 && std::isfinite(x)) return {};
                                  } catch (const std::exception&) {
                                  }
                                  return "must be a positive number, got '" + text + "'";
                                },
                                "POSITIVE"};
  return v;
}

namespace {
void write_out(const std::string& path, std::string text) {
  if (path.empty()) return;
  if (!text.empty() && text.back() != '\n') text += '\n';
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream f(path);
  f << text;
}


resize::Grid parse_grid(const std::string& s) {
  const auto x = s.find_first_of("xX");
  if (x == std::string::npos) throw resize::Error("--grid: expected PxQ, got '" + s + "'");
  try {
    return resize::Grid{std::stoi(s.substr(0, x)), std::stoi(s.substr(x + 1)), {}};
  } catch (const std::exception&) {
    throw resize::Error("--grid: expected PxQ, got '" + s + "'");
  }
}

std::string check_grid(const std::string& g) {
  try {
    const auto t = parse_grid(g);
    return t.nprow >= 1 && t.npcol >= 1 ? std::string() : "a grid needs at least 1x1, got " + g;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

// The problem, the grid, the policy, the output and the background resizes.
void add_run_options(CLI::App& cli, CommonOptions& o) {
  cli.add_option("-n,--size", o.n, "global matrix size N")->check(positive());
  cli.add_option("--nb", o.nb, "block size NB")->check(positive());
  cli.add_option("-g,--grid", o.grid, "initial process grid PxQ")->check(check_grid);
  cli.add_option("-i,--iters", o.iters, "iterations")->check(positive());
  cli.add_option("-p,--policy", o.policy, "resize policy: fixed, scripted, sweetspot, slurm (inside a Slurm job: docs/reference/apps.md)");
  cli.add_option("-s,--schedule", o.schedule,
                 "scripted schedule, e.g. 3:expand:3x3:local2,6:shrink:2x2 (or a file)");
  cli.add_option("--offer", o.offer, "sweetspot: file with offer=N / release=M (default $RESIZE_OFFER)");
  cli.add_option("-r,--redistribution", o.mover, "redist or pdgemr2d");
  cli.add_option("--move-budget", o.move_budget,
                 "the most bytes of new matrix buffers a process allocates at once in a resize's move, e.g. 512M "
                 "(redist mover; default $RESIZE_MOVE_BUDGET, else no limit: every matrix in one exchange)")
      ->check([](const std::string& v) {
        try {
          (void)resize::parse_move_budget(v);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      });
  cli.add_option("--json", o.json, "write the run as JSON to this file (- = stdout)");
  cli.add_option("--csv", o.csv, "write per-iteration times as CSV to this file (- = stdout)");
  cli.add_option("--resize-timeout", o.resize_timeout, "seconds before a stuck resize ends the job")
      ->check(positive());
  cli.add_option("--stop-file", o.stop_file,
                 "end the run gracefully at the next iteration once this file exists (world rank 0 looks "
                 "after every iteration); the result is checked for the iterations run");
  cli.add_flag("-q,--quiet", o.quiet, "no per-iteration progress line");
  cli.add_flag("--meter-kernels", o.meter_kernels,
               "measure CPU time in the BLAS kernels: the dedicated-core 'compute' clock (also RESIZE_METER_KERNELS=1)");
  cli.add_option("--background", o.background,
                 "begin resizes in the background and move the --constant matrices while the old grid computes: "
                 "off, wait (the completing remap point waits for them) or continue (it keeps iterating until "
                 "they arrived)")
      ->check(CLI::IsMember({"off", "blocking", "wait", "continue"}));
  cli.add_option("--background-iterations", o.background_iterations,
                 "complete a background resize at the first remap point this many iterations after it began")
      ->check(positive());
  cli.add_option("--constant", o.constant,
                 "comma-separated registered matrices the application does not change between remap points "
                 "(moved in the background with --background)");
  cli.add_option("--mechanism", o.mechanism,
                 "how a resize happens: spawn (MPI_Comm_spawn, in place) or restart (checkpoint into --checkpoint "
                 "DIR, exit 4, malleable-run restarts with the new process count)")
      ->check(CLI::IsMember({"spawn", "restart"}));
  cli.add_flag("--checksums", o.checksums, "print each matrix's checksum at the end (equal for equal results)");
  cli.add_flag("--no-check", o.no_check,
               "skip the result check against a serial run (benchmarks at large N: the check repeats the work "
               "on one process); the run is reported as not checked");
}

// Checkpoints, restart and the checkpoint levels (docs/guide/checkpoint.md).
void add_checkpoint_options(CLI::App& cli, CommonOptions& o) {
  cli.add_option("--checkpoint", o.checkpoint_dir,
                 "write checkpoints (one parallel HDF5 file each) into this directory (docs/guide/checkpoint.md)");
  cli.add_option("--checkpoint-every", o.checkpoint_every,
                 "when: N (iterations), <T>s|m|h (time) or auto (Young/Daly from the measured cost and --mtbf); "
                 "default: after the last iteration only; a file DIR/checkpoint.request asks for one now");
  cli.add_option("--mtbf", o.mtbf, "mean time between failures for --checkpoint-every auto, e.g. 6h");
  cli.add_option("--keep", o.keep, "newest checkpoints kept in the directory (0: all)")->check(CLI::NonNegativeNumber);
  cli.add_option("--restart", o.restart,
                 "continue from this checkpoint on the grid of --grid (any shape); a file that does not fit "
                 "this program is refused (exit 3)");
  cli.add_option("--checkpoint-local", o.checkpoint_local,
                 "checkpoint level local (each process's blocks, state and layout in node-local storage): N, "
                 "<T>s|m|h or auto (Young/Daly with --mtbf-local); docs/guide/checkpoint.md \"Levels\"");
  cli.add_option("--checkpoint-partner", o.checkpoint_partner,
                 "checkpoint level partner (the local level plus a copy on the partner node, a ring over the "
                 "nodes): N, <T>s|m|h or auto (with --mtbf-partner)");
  cli.add_option("--checkpoint-local-dir", o.checkpoint_local_dir,
                 "node-local directory of the levels (each node writes DIR/<host>); default /dev/shm/malleable-<job>");
  cli.add_option("--mtbf-local", o.mtbf_local, "auto local level: time between failures a local copy recovers");
  cli.add_option("--mtbf-partner", o.mtbf_partner, "auto partner level: time between losses of one node");
  cli.add_flag("--restart-levels", o.restart_levels,
               "start from the newest version complete across the levels on this job's nodes (after a lost node; "
               "the global checkpoints in --checkpoint DIR only for blocks in no level), on the grid of --grid");
}

double duration_or_zero(const std::string& text) {
  return text.empty() ? 0.0 : resize::checkpoint::parse_duration(text);
}

// The checks between options, after parsing: a CLI::ValidationError is a usage error.
resize::checkpoint::Every check_options(const CommonOptions& o) {
  if (o.policy == "scripted" && o.schedule.empty())
    throw CLI::ValidationError("--schedule", "-p scripted needs a schedule (-s ITER:expand|shrink:TARGET,...)");
  resize::checkpoint::Every every;
  try {
    every = resize::checkpoint::parse_every(o.checkpoint_every, duration_or_zero(o.mtbf));
  } catch (const resize::Error& e) {
    throw CLI::ValidationError(e.what());
  }
  if (o.checkpoint_dir.empty() && o.mechanism == "restart")
    throw CLI::ValidationError("--mechanism", "restart needs --checkpoint DIR");
  // A resize by restart is a checkpoint, an exit and a new job: it has no background
  // phase, so a background mode with it would be silently ignored (found by the
  // combination suite).
  if (o.mechanism == "restart" && o.background != "off" && o.background != "blocking")
    throw CLI::ValidationError("--background", "--background " + o.background +
                                                   " cannot apply to a resize by restart (--mechanism restart: "
                                                   "checkpoint, exit, relaunch); use --mechanism spawn or "
                                                   "--background off");
  if (o.checkpoint_dir.empty() && !o.checkpoint_every.empty())
    throw CLI::ValidationError("--checkpoint-every", "needs --checkpoint DIR");
  try {  // the level cadences, checked here so that a bad one is a usage error
    resize::checkpoint::parse_every(o.checkpoint_local, duration_or_zero(o.mtbf_local));
    resize::checkpoint::parse_every(o.checkpoint_partner, duration_or_zero(o.mtbf_partner));
  } catch (const resize::Error& e) {
    throw CLI::ValidationError(e.what());
  }
  return every;
}

// Parses the command line into `o` and `every`: -1 to run, otherwise the exit status
// (0 after --help/--version, 2 for a usage error, said on rank 0 only).
int parse_command_line(int argc, char** argv, CommonOptions& o, const std::function<void(void*)>& extra,
                       const std::string& name, int rank, resize::checkpoint::Every& every) {
  CLI::App cli{"resizable " + name + " (malleable apps)"};
  cli.option_defaults()->always_capture_default();  // --help shows every default
  cli.set_version_flag("--version", version_text(name + "_resizable"));
  add_run_options(cli, o);
  add_checkpoint_options(cli, o);
  if (extra) extra(&cli);
  try {
    cli.parse(argc, argv);
    every = check_options(o);
  } catch (const CLI::ParseError& e) {
    const int rc = rank == 0 ? cli.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    return rc == 0 ? 0 : 2;
  }
  return -1;
}

// A schedule that cannot run as written is said, not silently ignored (a malformed one
// is reported by the policy on every rank). World rank 0.
void warn_about_schedule(const CommonOptions& o) {
  if (o.schedule.empty()) return;
  if (o.policy != "scripted") {
    std::fprintf(stderr, "warning: --schedule is ignored with -p %s (it drives -p scripted)\n", o.policy.c_str());
    return;
  }
  // Entries after the last remap point: the session says so (total_iterations), as it
  // does for any program that gives its length.
}

resize::SessionOptions session_options(const CommonOptions& o, const DriverHooks& hooks) {
  resize::SessionOptions so;
  so.app = hooks.name;
  if (hooks.policy) so.policy = hooks.policy(o);
  if (!so.policy) so.policy = resize::make_policy(o.policy, o.schedule, o.offer, o.iters);
  so.mover = resize::parse_mover(o.mover);
  const char* budget_env = std::getenv("RESIZE_MOVE_BUDGET");
  so.move_budget_bytes = resize::parse_move_budget(!o.move_budget.empty() ? o.move_budget : budget_env ? budget_env : "");
  so.progress = !o.quiet;
  so.resize_timeout = o.resize_timeout;
  so.total_iterations = o.iters;
  so.persist_history = true;  // the drivers keep their resize history (docs/reference/apps.md)
  so.background = resize::parse_background(o.background);
  so.background_iterations = o.background_iterations;
  return so;
}

void mark_constants(resize::Session& s, const std::string& list) {
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    if (end > at) s.mark_constant(list.substr(at, end - at));
    at = end + 1;
  }
}

// Joins (a newcomer), restarts from the levels or a checkpoint, or starts and fills the
// matrices: the completed iterations, or -1 when a restart was refused (said; every
// process holds the same verdict, Session::restart).
int begin_run(resize::Session& s, const CommonOptions& o, const DriverHooks& hooks, int rank) {
  if (s.is_newcomer()) return s.join();
  const resize::Grid g0 = parse_grid(o.grid);
  if (o.restart_levels || !o.restart.empty()) {
    try {
      return o.restart_levels ? s.restart_from_levels(o.checkpoint_local_dir, g0, o.checkpoint_dir)
                              : s.restart(o.restart, g0);
    } catch (const resize::Error& e) {
      std::fprintf(stderr, "%s (rank %d): restart refused: %s\n", hooks.name.c_str(), rank, e.what());
      return -1;
    }
  }
  const int it = s.start(g0);
  hooks.init(s);
  return it;
}

// The checkpoint cadences (docs/guide/checkpoint.md): the session keeps them (world rank 0
// decides when, everyone follows) and creates the directory. True with levels.
bool set_checkpointing(resize::Session& s, const CommonOptions& o, const resize::checkpoint::Every& every) {
  if (!o.checkpoint_dir.empty()) s.set_checkpointing({o.checkpoint_dir, o.checkpoint_every, every.mtbf, o.keep});
  const bool levels = !o.checkpoint_local.empty() || !o.checkpoint_partner.empty();
  if (levels) {
    resize::LevelCadence lc;
    lc.dir = o.checkpoint_local_dir;
    lc.local_every = o.checkpoint_local;
    lc.partner_every = o.checkpoint_partner;
    lc.local_mtbf = duration_or_zero(o.mtbf_local);
    lc.partner_mtbf = duration_or_zero(o.mtbf_partner);
    lc.keep = o.keep > 0 ? o.keep : 2;
    s.set_level_checkpointing(lc);
  }
  return levels;
}

// The iteration loop: an iteration, the checkpoints due, a stop request, a remap point.
class Loop {
 public:
  Loop(resize::Session& s, const CommonOptions& o, const DriverHooks& hooks, bool levels, int rank)
      : s_(s), o_(o), hooks_(hooks), levels_(levels), rank_(rank) {}
  // From iteration `it` to the end or a stop: -1, or the status the job ends with.
  int run(int it) {
    while (it < o_.iters) {
      iterate(it);
      ++it;
      const bool stop = stop_requested();
      try {
        if (levels_) s_.level_checkpoint_if_due();
        if (!o_.checkpoint_dir.empty()) s_.checkpoint_if_due(stop || it == o_.iters);
      } catch (const resize::Error& e) {
        return checkpoint_failed(e);
      }
      if (stop) {
        if (s_.world_rank() == 0)
          std::printf("stop requested (%s exists): ending after iteration %d of %d\n", o_.stop_file.c_str(), it,
                      o_.iters);
        return -1;
      }
      if (it >= o_.iters) continue;
      if (const int rc = remap(); rc >= 0) return rc;
    }
    return -1;
  }

 private:
  // (The test hook RESIZE_FAULT=pause-in-iteration:K:S, a node lost during an iteration,
  // is the session's: end_iteration holds every process there, after the computation.)
  void iterate(int) {
    s_.begin_iteration();
    hooks_.iterate(s_);
    s_.end_iteration();
  }
  // A stop request (--stop-file) is seen by world rank 0 and agreed by the whole current
  // world, so every process leaves the loop after the same iteration.
  bool stop_requested() {
    if (o_.stop_file.empty()) return false;
    int stop = s_.world_rank() == 0 && ::access(o_.stop_file.c_str(), F_OK) == 0 ? 1 : 0;
    MPI_Bcast(&stop, 1, MPI_INT, 0, s_.world());
    return stop != 0;
  }
  // With a checkpoint directory a resize can be carried out by restart: on request
  // (--mechanism restart) or when an expansion by spawn fails (spawn not supported,
  // refused, too many processes): checkpoint -> exit 4 -> a new job with the new process
  // count (malleable-run). Without one: remap_point. -1: go on.
  int remap() {
    resize::ResizeStep step;
    try {
      step = s_.remap_or_restart(resize::parse_mechanism(o_.mechanism));
    } catch (const resize::CheckpointFailed& e) {
      return checkpoint_failed(e);
    }
    return step.kind == resize::ResizeStep::Kind::ExitForRestart ? kExitResizeByRestart : -1;
  }
  // A checkpoint that could not be written throws the same resize::Error on every
  // process (docs/guide/checkpoint.md, "Failures"): each says so and the job stops with
  // kExitCheckpointFailed, the previous checkpoints untouched.
  int checkpoint_failed(const resize::Error& e) const {
    std::fprintf(stderr, "%s (rank %d): checkpoint failed: %s\n", hooks_.name.c_str(), rank_, e.what());
    std::fflush(stderr);
    return kExitCheckpointFailed;
  }
  resize::Session& s_;
  const CommonOptions& o_;
  const DriverHooks& hooks_;
  const bool levels_;
  const int rank_;
};

// After the loop: the result check, --checksums, and on world rank 0 the summary table
// and --json/--csv (data_fd: the real stdout when one of them goes there). The status.
int report(resize::Session& s, const CommonOptions& o, const DriverHooks& hooks, const resize::checkpoint::Every& every,
           int argc, char** argv, int data_fd) {
  const Check c = o.no_check ? Check{true, "not checked (--no-check)"} : hooks.check(s);
  if (o.checksums) {
    const auto sums = s.checksums();
    if (s.world_rank() == 0)
      for (const auto& [name, sum] : sums)
        std::printf("checksum %s %016llx\n", name.c_str(), static_cast<unsigned long long>(sum));
  }
  if (s.world_rank() != 0) return c.ok ? 0 : 1;
  resize::RunInfo info;
  info.app = hooks.name;
  info.problem = hooks.problem();
  info.policy = o.policy + (o.schedule.empty() ? "" : " " + o.schedule);
  info.redistributor = s.mover_name();
  info.check = c.message;
  info.check_ok = c.ok;
  info.cores = resize::host_cores();
  info.command_line.assign(argv, argv + argc);
  info.n = o.n;
  info.nb = o.nb;
  info.distribution = o.distribution;
  info.checkpoint_every = o.checkpoint_dir.empty() ? "" : o.checkpoint_every.empty() ? "end" : o.checkpoint_every;
  info.mtbf_s = every.mtbf;
  info.checkpoints = s.checkpoint_records();
  info.levels = s.level_records();  // the node-local level files, counted as the global ones
  print_lines("\n" + resize::summary_table(s.metrics(), info));
  std::fflush(stdout);
  if (data_fd >= 0) ::dup2(data_fd, STDOUT_FILENO);
  if (!o.json.empty()) info.bounds = resize::resize_bounds(s.metrics());  // each resize beside its bound
  write_out(o.json, resize::to_json(s.metrics(), info));
  write_out(o.csv, resize::iterations_csv(s.metrics()));
  return c.ok ? 0 : 1;
}

// The session's whole life once the options are known: the status.
int run_session(int argc, char** argv, const CommonOptions& o, DriverHooks& hooks,
                const resize::checkpoint::Every& every, int rank, int data_fd) {
  resize::Session s(argc, argv, session_options(o, hooks));
  hooks.setup(s);
  mark_constants(s, o.constant);
  const int it = begin_run(s, o, hooks, rank);
  if (it < 0) return kExitRestartRefused;
  bool levels = false;
  try {
    levels = set_checkpointing(s, o, every);
  } catch (const resize::CheckpointFailed& e) {  // a directory that cannot be written: before any iteration
    std::fprintf(stderr, "%s (rank %d): checkpoint failed: %s\n", hooks.name.c_str(), rank, e.what());
    return kExitCheckpointFailed;
  }
  if (const int rc = Loop(s, o, hooks, levels, rank).run(it); rc >= 0) return rc;
  // A resize still under way in the background at the end is cancelled, not completed:
  // no iteration is left to use its grid (its newcomers exit, the data stay).
  s.cancel_resize();
  return report(s, o, hooks, every, argc, argv, data_fd);
}
}  // namespace

int run_driver(int argc, char** argv, CommonOptions& o, const std::function<void(void*)>& extra,
               DriverHooks hooks) {
  // One BLAS thread per rank: ranks already share the cores, and the CPU-time clock
  // must measure one rank's work.
  openblas_set_num_threads(1);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  resize::checkpoint::Every every;
  if (const int rc = parse_command_line(argc, argv, o, extra, hooks.name, rank, every); rc >= 0) return rc;
  // "--json -" / "--csv -": the machine-readable output alone on stdout, everything a
  // person reads (progress, summary, messages from any library) on stderr.
  int data_fd = -1;
  if (o.json == "-" || o.csv == "-") {
    std::fflush(stdout);
    data_fd = ::dup(STDOUT_FILENO);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  if (rank == 0) warn_about_schedule(o);
  if (o.meter_kernels) resize::kernel_meter_enable(true);
  try {
    return run_session(argc, argv, o, hooks, every, rank, data_fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s (rank %d): error: %s\n", hooks.name.c_str(), rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
  }
}

}  // namespace apps
