// SPDX-License-Identifier: BSD-3-Clause
// The session's checkpoint and restart, functions of the parts (session_checkpoint.hpp's
// CheckpointView; the facade's Session methods are session/checkpoint_calls.cpp): what the registered matrices
// are on the current grid, handed to the parallel HDF5 shell (file/write.cpp, file/read.cpp);
// restart validates the file against the registrations before anything starts.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "checkpoint/file/io.hpp"
#include "checkpoint/session_checkpoint.hpp"
#include "common/broadcast.hpp"
#include "checkpoint/file_release.hpp"
#include "checkpoint/fallback/carry_out.hpp"
#include "parts/grid_switch.hpp"
#include "parts/resize_phases.hpp"

namespace resize {

using namespace detail;
namespace ck = resize::checkpoint;

// What a registered matrix is on the current grid, for the HDF5 shell (and the level
// checkpoints, checkpoint/levels/write.cpp): its description with its layout and blocks
// on `grid`, and this process's part of it.
CheckpointMatrix describe(const Registered& r, const blacs_dyn::Grid& grid, int rank) {
  CheckpointMatrix c;
  c.spec = r.mat();
  c.local = const_cast<void*>(r.data());
  const Grid g = shape_of(grid);
  // the matrix on its grid: its layout since its last placement
  c.layout = r.layout() ? *r.layout() : r.mat().layout_on(g.nprow, g.npcol, g.ranks);
  if (!c.layout.coords_of(rank, c.pr, c.pc)) c.pr = c.pc = -1;
  // its buffer's leading dimension: held since its placement (else by the one rule,
  // parts/descriptor.hpp)
  c.lld = r.layout() || r.mat().extended() ? r.lld() : detail::leading_dimension(c.layout, rank);
  if (!r.mat().extended()) {
    // the record's blocks on this grid, as the descriptor has them
    c.spec.mb = r.mat().row_block_on(c.layout.nprow);
    c.spec.nb = r.mat().col_block_on(c.layout.npcol);
  }
  if (c.pr < 0) c.local = nullptr;
  return c;
}

ck::MatrixInfo detail::file_record(const redist::MatrixSpec& d, const redist::Layout* layout) {
  ck::MatrixInfo i;
  i.name = d.name;
  i.type = d.type;
  i.m = d.m;
  i.n = d.n;
  i.layout = d.dist;
  if (d.extended()) {
    if (layout) {
      i.row_blocks = layout->row_blocks.to_vector();
      i.col_blocks = layout->col_blocks.to_vector();
    }
  } else {
    i.mb = d.mb;
    i.nb = d.nb;
  }
  return i;
}

// The session's checkpoint at `path` from the registry on the job's grid, stamped with
// the program, its executable and the iterations done (collective over job.world; the
// same CheckpointFailed on every process). Returns the slowest process's seconds.
double detail::write_session_checkpoint(const std::string& path, const CheckpointStamp& stamp, const SessionWorld& job,
                                        const MatrixRegistry& registry, const ResizeHistory& history,
                                        const config::Checkpoint& cfg) {
  MPI_Barrier(job.world);
  const double t0 = MPI_Wtime();
  ck::Header h;
  h.program = stamp.app;
  h.executable = stamp.exe;
  h.iteration = stamp.iteration;
  h.grid = job.shape;
  std::vector<char> state;
  if (job.root()) {
    if (registry.pack) state = registry.pack();
    h.resize_history = history.to_json();
  }
  state = broadcast_bytes(std::move(state), 0, job.world);
  h.resize_history = broadcast_text(h.resize_history, 0, job.world);
  std::vector<CheckpointMatrix> mats;
  for (const auto& r : registry.mats) {
    mats.push_back(describe(r, job.grid, job.rank()));
    h.matrices.push_back(file_record(mats.back().spec, &mats.back().layout));
  }
  try {
    write_checkpoint(job.world, path, std::move(h), state, mats, cfg);
  } catch (const CheckpointFailed&) {
    throw;
  } catch (const Error& e) {  // the same on every process (file/write.cpp, file/read.cpp)
    throw CheckpointFailed(e.what());
  }
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, job.world);
  return slowest;
}

double detail::write_checkpoint(CheckpointView v, const std::string& path) {
  const std::string& app = v.opt.app;
  const int iteration = v.iteration;
  const double slowest = write_session_checkpoint(path, {app, v.launch.exe, iteration}, v.job, v.registry, v.history,
                                                  v.cfg);
  char line[64];
  std::snprintf(line, sizeof line, " (%.1f ms)", slowest * 1e3);
  progress_line(v.opt, v.job.root(), "[" + app + "] checkpoint after iteration " + std::to_string(iteration) + ": " + path + line);
  return slowest;
}

namespace {
// World rank 0 makes the checkpoint directory; a failure is the same CheckpointFailed on
// every process (collective over job.world).
void make_checkpoint_dir(const SessionWorld& job, const std::string& dir) {
  std::string why;
  if (job.root() && !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) why = "checkpoint directory " + dir + " cannot be created: " + ec.message();
  }
  why = broadcast_text(why, 0, job.world);
  if (!why.empty()) throw CheckpointFailed(why);
}

// The program's checkpoints in `dir` beyond the newest `keep` (world rank 0), freed on a
// background thread (file_release.hpp): the job does not wait for the file system to let
// go of checkpoints it no longer keeps.
void prune_checkpoints(const std::string& dir, const std::string& app, int keep) {
  std::vector<std::string> names, stale;
  if (DIR* d = opendir(dir.empty() ? "." : dir.c_str())) {
    const std::string prefix = app + "-";
    while (const dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      // Only this program's checkpoints: <app>-<6+ digits>.h5 exactly; <app>-<digits>.h5.tmp
      // is the file of an interrupted write (the checkpoint just written was renamed before
      // this call, and the job writes one at a time): never a version, removed.
      const bool tmp = n.size() > 4 && n.compare(n.size() - 4, 4, ".tmp") == 0;
      const std::string base = tmp ? n.substr(0, n.size() - 4) : n;
      if (base.rfind(prefix, 0) == 0 && ck::iteration_of(base) >= 0 && base.size() - prefix.size() >= 9 &&
          base.find('-', prefix.size()) == std::string::npos)
        (tmp ? stale : names).push_back((dir.empty() ? std::string() : dir + "/") + n);
    }
    closedir(d);
  }
  for (const auto& old : ck::to_remove(names, keep)) remove_file(old);
  for (const auto& old : stale) remove_file(old);
}
}  // namespace

std::string detail::checkpoint_into(CheckpointView v, const std::string& dir, int keep, double* seconds) {
  make_checkpoint_dir(v.job, dir);
  const std::string path = ck::file_name(dir, v.opt.app, v.iteration);
  const double t = write_checkpoint(v, path);
  if (seconds) *seconds = t;
  if (v.job.root()) prune_checkpoints(dir, v.opt.app, keep);
  return path;
}

// The registry's matrices and the application's state from an opened checkpoint, onto
// the job's grid (started): every matrix's checksum verified (collective over job.world).
void detail::read_session_checkpoint(CheckpointReader& reader, const SessionWorld& job, MatrixRegistry& registry) {
  for (std::size_t k = 0; k < registry.mats.size(); ++k) reader.read(k, describe(registry.mats[k], job.grid, job.rank()));
  if (registry.unpack) registry.unpack(reader.state());
}

// The file's verdict on the registry: "" when its program and matrices (name, type, m, n,
// in order) are the registered ones, else why not (the same on every process).
std::string detail::checkpoint_mismatch(const std::string& file, const checkpoint::Header& h, const std::string& app,
                                        const MatrixRegistry& registry) {
  ck::Expected want;
  want.program = app;
  for (const auto& r : registry.mats) want.matrices.push_back(file_record(r.mat(), r.layout() ? &*r.layout() : nullptr));
  return ck::mismatch(file, h, want);
}

int detail::restart_from_file(CheckpointView v, const std::string& file, const Grid& g, const StartOn& start) {
  // The parts it uses: the world and the registered matrices.
  const SessionWorld& job = v.job;
  MatrixRegistry& registry = v.registry;
  const std::string& app = v.opt.app;
  MPI_Barrier(job.world);
  const double t0 = MPI_Wtime();
  CheckpointReader reader(job.world, file, v.cfg);
  if (const std::string why = checkpoint_mismatch(file, reader.header(), app, registry); !why.empty())
    throw Error(why);
  start(g, false);
  read_session_checkpoint(reader, job, registry);
  v.iteration = reader.header().iteration;
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, job.world);
  char ms[48];
  std::snprintf(ms, sizeof ms, "; %.1f ms", slowest * 1e3);
  progress_line(v.opt, job.root(), "[" + app + "] restart from " + file + " at iteration " + std::to_string(v.iteration) +
                " (written on " + reader.header().grid.shape() + ", now on " + g.shape() + ms + ")");
  return v.iteration;
}

void detail::check_checkpointing(const CheckpointCadence& c) {
  if (c.dir.empty()) throw Error("set_checkpointing: the checkpoint directory is empty");
  if (c.keep < 0) throw Error("set_checkpointing: keep must be >= 0 (0: keep all), got " + std::to_string(c.keep));
  const checkpoint::Every every = ck::parse_every(c.every, c.mtbf_seconds);
  (void)every;  // a bad cadence is refused before the directory is touched
  // A directory that cannot be made or written is refused here, not at the
  // first checkpoint. Every process checks it itself (making it if need be, then a file
  // of its own made and removed): not a collective, since a newcomer may call it after
  // join() alone; every process of a job sees the same file system, so all refuse alike.
  std::error_code ec;
  std::filesystem::create_directories(c.dir, ec);
  std::string why;
  if (!std::filesystem::is_directory(c.dir)) {
    why = "cannot be created: " + (ec ? ec.message() : std::string("not a directory"));
  } else {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string probe = c.dir + "/.malleable-probe-" + host + "-" + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0) {
      why = std::string("cannot make a file in it: ") + std::strerror(errno);
    } else {
      ::close(fd);
      ::unlink(probe.c_str());
    }
  }
  if (!why.empty()) throw CheckpointFailed("set_checkpointing: checkpoint directory " + c.dir + " " + why);
}

namespace {
// Whether a checkpoint is due at this remap point (world rank 0's verdict, on every
// process): by the cadence, a request file in the directory, or the job's end (`last`).
struct Due {
  bool now = false, requested = false;
  double since = 0;  // seconds since the last checkpoint (world rank 0)
};
Due checkpoint_due(SessionCheckpoints::Checkpointing& k, const SessionWorld& job, int iteration, bool last) {
  Due due;
  int now = 0;
  if (job.root()) {
    const std::string request = k.cadence.dir + "/checkpoint.request";
    due.requested = ::access(request.c_str(), F_OK) == 0;
    if (due.requested) std::remove(request.c_str());
    due.since = MPI_Wtime() - k.last;
    now = ck::due(k.every, iteration, due.since, k.cost, due.requested || last);
    if (!now) k.previous_check = due.since;
  }
  MPI_Bcast(&now, 1, MPI_INT, 0, job.world);
  due.now = now != 0;
  return due;
}

// The run's record of a checkpoint written (world rank 0: the summary line, the JSON's
// "checkpoints"), with why it was due; an automatic cadence prints the numbers it used.
void record_checkpoint(SessionCheckpoints& ckpts, const std::string& app, int iteration, const Due& due,
                       double used_cost, const std::string& file) {
  auto& k = *ckpts.checkpointing;
  const auto& every = k.every;
  const bool auto_every = every.kind == ck::Every::Kind::Auto;
  const bool by_rule = ck::due(every, iteration, due.since, used_cost, false);
  const char* reason = auto_every && used_cost < 0 ? "first"
                       : by_rule                   ? (auto_every ? "interval" : "rule")
                       : due.requested             ? "request"
                                                   : "last";
  const double interval = auto_every && used_cost >= 0 ? ck::young_daly_interval(used_cost, every.mtbf) : -1;
  ckpts.checkpoints.push_back({iteration, k.cost, reason, interval, file});
  if (auto_every) {
    // Each decision with the numbers it used: the time since the last checkpoint at this
    // check and at the previous check, the interval from the previous cost, the new cost.
    std::printf("[%s] checkpoint-every auto: iteration=%d reason=%s since_last=%.17g previous_check=%.17g "
                "interval=%.17g prev_cost=%.17g mtbf=%.17g cost=%.17g next_interval=%.17g\n",
                app.c_str(), iteration, reason, due.since, k.previous_check, interval, used_cost, every.mtbf, k.cost,
                ck::young_daly_interval(k.cost, every.mtbf));
    std::fflush(stdout);
    k.previous_check = -1;
  }
}
}  // namespace

std::string detail::checkpoint_when_due(CheckpointView v, bool last) {
  auto& k = *v.ckpts.checkpointing;
  const Due due = checkpoint_due(k, v.job, v.iteration, last);
  if (!due.now) return {};
  const double used_cost = k.cost;
  const std::string file = checkpoint_into(v, k.cadence.dir, k.cadence.keep, &k.cost);
  k.last = MPI_Wtime();
  if (v.job.root()) record_checkpoint(v.ckpts, v.opt.app, v.iteration, due, used_cost, file);
  detail::background_fallback_checkpointed(file);  // a background spawn's marker names the newest
  return file;
}

std::vector<std::pair<std::string, std::uint64_t>> detail::registry_checksums(const SessionWorld& job,
                                                                             const MatrixRegistry& registry) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& r : registry.mats) out.emplace_back(r.mat().name, global_checksum(job.world, describe(r, job.grid, job.rank())));
  return out;
}

}  // namespace resize
