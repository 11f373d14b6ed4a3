// SPDX-License-Identifier: BSD-3-Clause
// The resize session's facade (the Session's methods over Session::Impl, the facade's state
// detail::SessionState): construction, registration, iterations, the checkpoint calls and
// the run's report; the resize calls (remap_point, resize_now, dry_run, complete_resize,
// cancel_resize, join, next_decision, remap_or_restart) are in remap_point.cpp, beside the
// remap point. Decisions come from the pure core; the Session's methods forward to the
// operations over the facade's state in session_*.cpp beside it (session_impl.hpp): the
// start (start_session, session_start), the registration (session_matrix), the checkpoint
// calls (CheckpointCalls, checkpoint_calls), the remap point and acting on its decision
// (RemapPoint, remap_point), the state handed to newcomers and join (Expansion,
// session_expand), the resize by restart (ByRestart, session_by_restart); the phases they
// hand the parts to are below: the record of a resize (parts/recording), expand
// (parts/expand), shrink and regrid (parts/shrink), the grid switch and the matrices' move
// (parts/grid_switch), a resize in the background (background/session_background).
#include "session/session_impl.hpp"
#include "session/run_description.hpp"
#include "checkpoint/fallback/carry_out.hpp"
#include "common/config.hpp"
#include "policy/history_location.hpp"
#include "policy/policy_setting.hpp"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "common/broadcast.hpp"
#include "common/fault.hpp"
#include "malleable/resize/kernel_meter.hpp"
#include "common/config.hpp"

namespace resize {

using namespace detail;

namespace {
// The history file can be written: its directory exists or is created, and is writable.
bool history_file_usable(const std::string& path, std::string& why) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) {
    why = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  const std::string probe = dir.empty() ? std::string(".") : dir.string();
  if (::access(probe.c_str(), W_OK) != 0 || (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)) {
    why = "cannot write in " + probe;
    return false;
  }
  return true;
}

// The arrival check's deadline rule: the options', or RESIZE_REMAP_TIMEOUT's (`t`) when
// set (its parts left out: the options').
detail::RemapTimeout arrival_timeout(const SessionOptions& opt, const config::Text& t) {
  const detail::RemapTimeout given{opt.remap_timeout, opt.remap_factor, opt.remap_floor};
  if (!t || t->empty()) return given;
  return detail::parse_remap_timeout(*t, given);
}

// The program and the arguments spawned copies run: the options' when given, else this
// process's own (from argv, or from /proc for callers without argv, e.g. Fortran).
LaunchCommand launch_command(const SessionOptions& opt, int argc, char** argv) {
  std::string exe = opt.spawn_command;
  if (exe.empty()) {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    exe = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string(argv ? argv[0] : "");
  }
  std::vector<std::string> args = opt.spawn_args;
  if (!args.empty()) return {exe, args};
  if (argc > 0 && argv) {
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return {exe, args};
  }
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::size_t at = all.find('\0');
  while (at != std::string::npos && at + 1 < all.size()) {
    const std::size_t end = all.find('\0', at + 1);
    args.push_back(all.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1));
    at = end;
  }
  return {exe, args};
}

// World rank 0: what earlier runs learned, into the recorder: the calibrated cost model
// and the resize history of the application `opt.app` run as `exe`, found as `env` (the
// session's configuration) says.
void load_learned(ResizeRecorder& rec, const SessionOptions& opt, const config::Policies& env, const std::string& exe) {
  const std::string path = redist::default_cost_model_path();
  if (::access(path.c_str(), F_OK) == 0) {
    try {
      rec.cost_model = redist::load_cost_params(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "[%s] the cost model %s is not used: %s\n", opt.app.c_str(), path.c_str(), e.what());
    }
  }
  // One history per application; a cache directory that cannot be
  // written costs the predictions of later runs, never this run: one notice.
  const HistoryLocation where = history_location(env, opt.app, exe);
  std::string why;
  // Kept across runs when the program asks (persist_history: the drivers) or the user
  // names a file (RESIZE_HISTORY=PATH); RESIZE_HISTORY=off wins over both.
  const config::Text& named = env.history;
  const bool persist = !where.off && (opt.persist_history || (named && !named->empty()));
  if (persist && !where.path.empty() && history_file_usable(where.path, why)) {
    rec.history_path = where.path;
    if (::access(rec.history_path.c_str(), F_OK) == 0) {
      try {
        rec.history = ResizeHistory::load(rec.history_path);
      } catch (const std::exception& e) {
        // A damaged history only costs predictions: start a new one (and say so).
        std::fprintf(stderr, "[%s] the resize history is not used (it will be rewritten): %s\n", opt.app.c_str(),
                     e.what());
      }
    }
  } else if (persist) {
    if (where.path.empty()) why = where.why;
    std::fprintf(stderr, "[%s] the resize history is kept in memory for this run: %s (RESIZE_HISTORY=PATH or off)\n",
                 opt.app.c_str(), why.c_str());
  }
  // A file several programs share (RESIZE_HISTORY=<file>): only this program's events
  // predict, and its new ones are marked as its own.
  rec.history.set_program(resize_history_program(opt.app, exe));
}

// At MPI_Finalize (the hook on MPI_COMM_SELF): the BLACS grid and the levels' node
// communicators (checkpoint/levels/write.cpp) go while MPI is still up.
void release_mpi(SessionState& s) {
  s.job.grid = blacs_dyn::Grid{};
  release_levels(s.ckpts);
}

// A scripted schedule's entries that cannot run or did not, on world rank 0:
// at the start those after the job's last remap point when its length is known
// (total_iterations), at the end those no remap point reached.
void warn_schedule(const SessionState& s, bool at_end) {
  const auto* scripted = dynamic_cast<const ScriptedPolicy*>(s.opt.policy.get());
  if (!s.life.rank0 || !scripted || (at_end && s.life.leaves_for_restart)) return;
  // stdout first: a line half written from its buffer would be cut by the warning where
  // both go to one pipe (as under malleable-run), and a reader's grep would miss it.
  std::fflush(stdout);
  const int total = s.opt.total_iterations;
  for (const auto& e : at_end ? scripted->not_run() : scripted->schedule()) {
    if (total >= 0 && e.iteration >= total) {
      if (!at_end)
        std::fprintf(stderr, "warning: schedule entry '%s' will not run: the last remap point is after iteration %d of %d\n",
                     to_string(e).c_str(), total - 1, total);
    } else if (at_end && e.iteration >= s.life.first_remap_iteration) {  // not one of an earlier launch's
      std::fprintf(stderr, "[%s] warning: schedule entry '%s' did not run: no remap point after iteration %d (the run "
                   "ended after iteration %d)\n", s.opt.app.c_str(), to_string(e).c_str(), e.iteration, s.iteration);
    }
  }
  std::fflush(stderr);
}
}  // namespace

// The facade made: the environment read (the one time the session reads it: config.hpp),
// the options checked, each part set up from them (the watchdog, the arrival check, the
// background settings, the spawn command, the world, what the run learned before), and
// the MPI_Finalize hook.
Session::Session(int argc, char** argv, SessionOptions opts) : impl_(std::make_unique<Impl>()) {
  impl_->cfg = config::read();
  SessionOptions& opt = impl_->opt;
  opt = std::move(opts);
  const std::string chosen = apply_policy_setting(impl_->cfg.policy.choice, opt);  // RESIZE_POLICY
  if (!opt.policy) opt.policy = std::make_unique<FixedPolicy>();
  impl_->watchdog.set_timeout(opt.resize_timeout);
  impl_->arrivals = ArrivalCheck{arrival_timeout(opt, impl_->cfg.session.remap_timeout), MPI_Wtime(), 0, 0};
  impl_->refresh = detail::parse_refresh_rule(impl_->cfg.session.refresh_after);
  impl_->reconfigure = detail::parse_reconfigure(impl_->cfg.session.reconfigure);  // on every process
  impl_->job.reach.setting = detail::parse_reach_check(impl_->cfg.session.ucx_check);
  impl_->bg.mode = opt.background;
  impl_->bg.min_iterations = std::max(1, opt.background_iterations);
  impl_->launch = launch_command(opt, argc, argv);
  impl_->job.world = blacs_dyn::World::comm();
  impl_->job.reach.pml = blacs_dyn::World::selected_pml();
  impl_->life.newcomer = blacs_dyn::World::is_new();
  impl_->life.rank0 = impl_->job.root();
  if (!chosen.empty() && impl_->life.rank0) {
    std::printf("[%s] %s\n", opt.app.c_str(), chosen.c_str());
    std::fflush(stdout);
  }
  warn_schedule(*impl_, false);
  const auto at_finalize = [](MPI_Comm, int, void* impl, void*) -> int {
    release_mpi(*static_cast<Impl*>(impl));
    return MPI_SUCCESS;
  };
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &impl_->life.self_key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, impl_->life.self_key, impl_.get());
  if (impl_->job.root()) load_learned(impl_->recorder, opt, impl_->cfg.policy, impl_->launch.exe);
}

Session::~Session() {
  if (!impl_) return;
  if (impl_->life.started) warn_schedule(*impl_, true);
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return;  // MPI_Finalize released the communicators (release_mpi) and ended MPI
  // A background resize never completed nor cancelled (no cancel_resize after the loop)
  // is cancelled, so its newcomers are not left waiting in join().
  if (impl_->bg.in_flight) {
    try {
      impl_->bg.cancel_background("the session was destroyed", BackgroundPart::CancelCause::Destroyed,
                                   impl_->grid_switch(), impl_->recording());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "resize: cancelling the background resize when the session ends: %s\n", e.what());
    }
  }
  if (impl_->life.self_key != MPI_KEYVAL_INVALID) {
    MPI_Comm_delete_attr(MPI_COMM_SELF, impl_->life.self_key);  // release_mpi, now
    MPI_Comm_free_keyval(&impl_->life.self_key);
  }
}

bool Session::is_newcomer() const { return impl_->life.newcomer; }

int Session::start(const Grid& asked) { return start_session(*impl_, asked); }

// The checkpoint, restart and level calls: checked and handed to the checkpoint room
// (CheckpointCalls, session/checkpoint_calls.cpp).
double Session::checkpoint(const std::string& path) { return CheckpointCalls{*impl_}.checkpoint(path); }
std::string Session::checkpoint_in(const std::string& dir, int keep, double* seconds) {
  return CheckpointCalls{*impl_}.checkpoint_in(dir, keep, seconds);
}
int Session::restart(const std::string& file, const Grid& g) { return CheckpointCalls{*impl_}.restart(file, g); }
void Session::set_checkpointing(const CheckpointCadence& c) { CheckpointCalls{*impl_}.set_checkpointing(c); }
std::string Session::checkpoint_if_due(bool last) { return CheckpointCalls{*impl_}.checkpoint_if_due(last); }
const std::vector<CheckpointRecord>& Session::checkpoint_records() const { return impl_->ckpts.checkpoints; }
std::vector<std::pair<std::string, std::uint64_t>> Session::checksums() const {
  return CheckpointCalls{*impl_}.checksums();
}
void Session::set_level_checkpointing(const LevelCadence& c) { CheckpointCalls{*impl_}.set_level_checkpointing(c); }
double Session::checkpoint_levels(bool partner) { return CheckpointCalls{*impl_}.checkpoint_levels(partner); }
std::string Session::level_checkpoint_if_due(bool last) { return CheckpointCalls{*impl_}.level_checkpoint_if_due(last); }
const std::vector<LevelRecord>& Session::level_records() const { return impl_->ckpts.level_records; }
int Session::restart_from_levels(const std::string& dir, const Grid& g, const std::string& global_dir) {
  return CheckpointCalls{*impl_}.restart_from_levels(dir, g, global_dir);
}

void Session::set_app_state(std::function<std::vector<char>()> pack,
                            std::function<void(const std::vector<char>&)> unpack) {
  impl_->registry.pack = std::move(pack);
  impl_->registry.unpack = std::move(unpack);
}

template <class T>
void Session::register_vector(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                              int* desc, std::vector<T>& buf) {
  detail::register_vector(impl_->registry, name, m, n, mb, nb, dist, desc, buf);
}

template <class T>
void Session::register_blocks(const std::string& name, int m, int n, BlockSizes sizes, std::vector<T>& buf,
                              int* lld) {
  detail::register_blocks(impl_->registry, name, m, n, std::move(sizes), buf, lld);
}

template <class T>
Matrix<T> Session::register_handle(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                                   BlockSizes sizes) {
  return Matrix<T>(detail::register_handle<T>(*impl_, this, name, m, n, mb, nb, dist, std::move(sizes)));
}

template <class T>
Matrix<T> Session::register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist) {
  return register_handle<T>(name, m, n, mb, nb, dist, {});
}

template <class T>
Matrix<T> Session::register_matrix(const std::string& name, int m, int n, BlockSizes sizes) {
  if (!sizes) throw Error("register_matrix " + name + ": the block sizes function must be given");
  return register_handle<T>(name, m, n, 1, 1, Distribution::Extended, std::move(sizes));
}

#define RESIZE_REGISTER_FOR(T)                                                                                \
  void Session::register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist,  \
                                int* desc, std::vector<T>& buf) {                                            \
    register_vector(name, m, n, mb, nb, dist, desc, buf);                                                    \
  }                                                                                                          \
  void Session::register_matrix_blocks(const std::string& name, int m, int n, BlockSizes sizes,              \
                                       std::vector<T>& buf, int* lld) {                                      \
    register_blocks(name, m, n, std::move(sizes), buf, lld);                                                 \
  }                                                                                                          \
  template Matrix<T> Session::register_matrix<T>(const std::string&, int, int, int, int, Distribution);      \
  template Matrix<T> Session::register_matrix<T>(const std::string&, int, int, BlockSizes);
RESIZE_REGISTER_FOR(float)
RESIZE_REGISTER_FOR(double)
RESIZE_REGISTER_FOR(std::complex<float>)
RESIZE_REGISTER_FOR(std::complex<double>)
#undef RESIZE_REGISTER_FOR

void Session::make_desc(int m, int n, int mb, int nb, Distribution dist, int* desc) const {
  if (dist == Distribution::Extended) throw Error(std::string("make_desc: ") + detail::kExtendedNeedsBlocks);
  redist::MatrixSpec mat = redist::MatrixSpec::block_cyclic(m, n, mb, nb);
  mat.dist = dist;
  impl_->grid_switch().desc_for(mat, impl_->job.grid, desc);
}

// The buffer such a descriptor needs: the grid switch's, beside desc_for.
std::size_t Session::local_size(const int* desc) { return detail::local_elements(desc); }

void Session::report_compute(double work, double seconds) {
  if (!std::isfinite(work) || !std::isfinite(seconds) || work < 0 || seconds < 0)
    throw Error("report_compute: work and seconds must be finite and >= 0 (got " + std::to_string(work) + ", " +
                std::to_string(seconds) + ")");
  impl_->meter.work_acc += work;
  impl_->meter.compute_acc += seconds;
}

void Session::mark_constant(const std::string& name) {
  if (impl_->life.started) throw Error("mark_constant " + name + ": call it before start()/join()");
  impl_->registry.mark_constant(name);
}

void Session::set_background(Background mode, int min_iterations) {
  if (min_iterations < 1) throw Error("set_background: min_iterations must be >= 1, got " + std::to_string(min_iterations));
  if (impl_->bg.in_flight) throw Error("set_background: a resize is under way in the background");
  impl_->bg.mode = mode;
  impl_->bg.min_iterations = min_iterations;
}

bool Session::resize_in_background() const { return impl_->bg.in_flight != nullptr; }

void Session::begin_iteration() {
  impl_->bg.progress();
  impl_->meter.work_acc = impl_->meter.compute_acc = 0;
  impl_->meter.t_wall0 = MPI_Wtime();
  impl_->meter.t_cpu0 = cpu_seconds();
  impl_->meter.t_kernel0 = kernel_cpu_seconds();
}

namespace {
// One iteration's line of the progress output.
std::string iteration_line(const std::string& app, const IterationSample& s, const std::string& note) {
  // The compute clock counts only with the kernel meter on; off, it says n/a (as the
  // summary does), not 0.00 ms.
  char compute[32] = "     n/a";
  if (kernel_meter_enabled()) std::snprintf(compute, sizeof compute, "%8.2f ms", s.compute * 1e3);
  char line[288];
  std::snprintf(line, sizeof line,
                "[%s] iter %4d  grid %-5s (%2d procs)  wall %9.2f ms  dedicated-core: cpu %8.2f ms, "
                "compute %s%s%s",
                app.c_str(), s.iteration, s.grid.c_str(), s.procs, s.wall * 1e3, s.dedicated * 1e3, compute,
                note.empty() ? "" : "  ", note.c_str());
  return line;
}
}  // namespace

// This process's clocks since begin_iteration and the compute it reported: wall, cpu,
// kernel seconds, work, compute seconds. The accumulators start again.
std::array<double, 5> detail::IterationMeter::close() {
  const std::array<double, 5> loc{MPI_Wtime() - t_wall0, cpu_seconds() - t_cpu0, kernel_cpu_seconds() - t_kernel0,
                                  work_acc, compute_acc};
  work_acc = compute_acc = 0;
  return loc;
}

// World rank 0: iteration `iteration` on `grid` from every rank's five numbers
// (IterationMeter::close, rank after rank): the slowest rank's clocks into the metrics,
// the reported compute into the speeds. Returns the iteration's sample.
IterationSample detail::ResizeRecorder::add_iteration(int iteration, const Grid& grid, const std::vector<double>& all) {
  const int ranks = static_cast<int>(all.size() / 5);
  double mx[3] = {0, 0, 0};
  bool reported = false;
  for (int r = 0; r < ranks; ++r) {
    const double* v = &all[5 * static_cast<std::size_t>(r)];
    for (int k = 0; k < 3; ++k) mx[k] = std::max(mx[k], v[k]);
    reported = reported || v[3] > 0;
  }
  IterationSample s{iteration, grid.size(), grid.shape(), mx[0], mx[1], mx[2]};
  if (reported) {
    RankSamples rs;
    rs.iteration = iteration;
    for (int r = 0; r < ranks; ++r) {
      const double* v = &all[5 * static_cast<std::size_t>(r)];
      speeds.add(r, v[3], v[4]);
      rs.work.push_back(v[3]);
      rs.compute.push_back(v[4]);
    }
    rs.powers = speeds.powers(ranks);
    metrics.add_rank_samples(std::move(rs));
  }
  metrics.add_iteration(s);
  return s;
}

void Session::end_iteration(const std::string& note) {
  const SessionWorld& job = impl_->job;
  detail::fault::pause_in_iteration(impl_->cfg.session.fault, impl_->iteration + 1, job.root(), impl_->opt.app);  // a test hook (fault.hpp)
  // One gather: the maxima of the three clocks and every rank's reported compute.
  const std::array<double, 5> loc = impl_->meter.close();
  std::vector<double> all(job.root() ? 5 * static_cast<std::size_t>(job.size()) : 0);
  MPI_Gather(loc.data(), 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, job.world);
  ++impl_->iteration;
  impl_->bg.progress();
  if (impl_->bg.in_flight) {
    double wall = loc[0];
    MPI_Allreduce(MPI_IN_PLACE, &wall, 1, MPI_DOUBLE, MPI_MAX, job.world);
    impl_->bg.iteration(wall, job.root());
  }
  if (!job.root()) return;
  const IterationSample s = impl_->recorder.add_iteration(impl_->iteration, job.shape, all);
  impl_->progress(iteration_line(impl_->opt.app, s, note));
}

MPI_Comm Session::world() const { return impl_->job.world; }
int Session::world_rank() const { return impl_->job.rank(); }
int Session::world_size() const { return impl_->job.size(); }
int Session::context() const { return impl_->job.grid.context(); }
bool Session::in_grid() const { return impl_->job.grid.in_grid(); }
int Session::myrow() const { return impl_->job.grid.myrow(); }
int Session::mycol() const { return impl_->job.grid.mycol(); }
const Grid& Session::grid() const { return impl_->job.shape; }
const std::vector<std::string>& Session::rank_hosts() const { return impl_->job.rank_hosts; }
int Session::iteration() const { return impl_->iteration; }
const Metrics& Session::metrics() const { return impl_->recorder.metrics; }
const SpeedEstimator& Session::speeds() const { return impl_->recorder.speeds; }
const std::vector<double>& Session::powers() const { return impl_->recorder.powers; }
std::string Session::mover_name() const { return to_string(impl_->opt.mover); }

// The run's report (session/run_description.cpp describes the run from the parts).
void Session::set_result_check(bool ok, const std::string& message) { impl_->report.result_check = {ok, message}; }

void Session::set_problem(const std::string& text) { impl_->report.problem = text; }

RunInfo Session::run_info() const {
  return detail::describe_run(impl_->opt, impl_->launch.exe, impl_->launch.args, impl_->registry, impl_->ckpts, impl_->report, mover_name());
}

std::string Session::summary() const {
  if (world_rank() != 0) return {};
  return summary_table(impl_->recorder.metrics, run_info());
}

void Session::write_json(const std::string& path) const {
  if (world_rank() != 0) return;
  if (path.empty()) throw Error("write_json: the path is empty");
  RunInfo info = run_info();
  info.bounds = resize_bounds(impl_->recorder.metrics);  // each resize beside its bound
  std::string text = to_json(impl_->recorder.metrics, info) + "\n";
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) throw Error("write_json: cannot write '" + path + "'");
}

}  // namespace resize
