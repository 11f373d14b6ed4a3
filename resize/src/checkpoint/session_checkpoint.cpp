// SPDX-License-Identifier: BSD-3-Clause
// The session's checkpoint and restart: what the registered matrices
// are on the current grid, handed to the parallel HDF5 shell (checkpoint_write.cpp, checkpoint_read.cpp);
// restart validates the file against the registrations before anything starts.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "checkpoint/checkpoint_io.hpp"
#include "common/broadcast.hpp"
#include "checkpoint/file_release.hpp"
#include "session/expansion_fallback_shell.hpp"
#include "session/session_impl.hpp"

namespace resize {

using namespace detail;
namespace ck = resize::checkpoint;

// What a registered matrix is on the current grid, for the HDF5 shell (and the level
// checkpoints, checkpoint/session_levels.cpp).
CheckpointMatrix describe(const Registered& r, const blacs_dyn::Grid& grid, int rank) {
  CheckpointMatrix c;
  c.type = r.type;
  c.info.name = r.name;
  c.info.type = scalar_letter(r.type);
  c.info.m = r.m;
  c.info.n = r.n;
  c.local = const_cast<void*>(r.data());
  const Grid g = shape_of(grid);
  if (r.sizes) {
    c.layout = *r.layout;
    c.info.layout = ck::LayoutKind::Extended;
    c.info.row_blocks = c.layout.row_blocks.to_vector();
    c.info.col_blocks = c.layout.col_blocks.to_vector();
    if (!c.layout.coords_of(rank, c.pr, c.pc)) c.pr = c.pc = -1;
    c.lld = *r.lld;
  } else {
    c.layout = redist::Layout::block_cyclic(r.m, r.n, r.desc[4], r.desc[5], g.nprow, g.npcol, 0, 0, g.rank_map());
    c.info.layout = r.dist == Distribution::Block ? ck::LayoutKind::Block : ck::LayoutKind::BlockCyclic;
    c.info.mb = r.desc[4];
    c.info.nb = r.desc[5];
    if (grid.in_grid()) {
      c.pr = grid.myrow();
      c.pc = grid.mycol();
    }
    c.lld = r.desc[8];
  }
  if (c.pr < 0) c.local = nullptr;
  return c;
}

double Session::checkpoint(const std::string& path) {
  auto& I = *impl_;
  if (!I.started) throw Error("checkpoint " + path + ": the session has not started (call start, restart or join first)");
  MPI_Barrier(I.world);
  const double t0 = MPI_Wtime();
  ck::Header h;
  h.program = I.opt.app;
  h.executable = I.exe;
  h.iteration = I.iteration;
  h.grid = I.shape;
  std::vector<char> state;
  if (I.root()) {
    if (I.pack) state = I.pack();
    h.resize_history = I.history.to_json();
  }
  state = broadcast_bytes(std::move(state), 0, I.world);
  h.resize_history = broadcast_text(h.resize_history, 0, I.world);
  std::vector<CheckpointMatrix> mats;
  for (const auto& r : I.mats) {
    mats.push_back(describe(r, I.grid, I.rank()));
    h.matrices.push_back(mats.back().info);
  }
  try {
    write_checkpoint(I.world, path, std::move(h), state, mats);
  } catch (const CheckpointFailed&) {
    throw;
  } catch (const Error& e) {  // the same on every process (checkpoint_write.cpp, checkpoint_read.cpp)
    throw CheckpointFailed(e.what());
  }
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, I.world);
  char line[64];
  std::snprintf(line, sizeof line, " (%.1f ms)", slowest * 1e3);
  I.progress("[" + I.opt.app + "] checkpoint after iteration " + std::to_string(I.iteration) + ": " + path + line);
  return slowest;
}

std::string Session::checkpoint_in(const std::string& dir, int keep, double* seconds) {
  auto& I = *impl_;
  if (!I.started) throw Error("checkpoint into " + dir + ": the session has not started (call start, restart or join first)");
  // World rank 0 creates the directory; a failure is the same Error on every process.
  std::string why;
  if (I.root() && !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) why = "checkpoint directory " + dir + " cannot be created: " + ec.message();
  }
  why = broadcast_text(why, 0, I.world);
  if (!why.empty()) throw CheckpointFailed(why);
  const std::string path = ck::file_name(dir, I.opt.app, I.iteration);
  const double t = checkpoint(path);
  if (seconds) *seconds = t;
  if (keep > 0 && I.root()) {
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.empty() ? "." : dir.c_str())) {
      const std::string prefix = I.opt.app + "-";
      while (const dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        // Only this program's checkpoints: <app>-<6+ digits>.h5 exactly.
        if (n.rfind(prefix, 0) == 0 && ck::iteration_of(n) >= 0 && n.size() - prefix.size() >= 9 &&
            n.find('-', prefix.size()) == std::string::npos)
          names.push_back((dir.empty() ? std::string() : dir + "/") + n);
      }
      closedir(d);
    }
    // Freed on a background thread (file_release.hpp): the job does not wait for the
    // file system to let go of checkpoints it no longer keeps.
    for (const auto& old : ck::to_remove(names, keep)) remove_file(old);
  }
  return path;
}

int Session::restart(const std::string& file, const Grid& g) {
  auto& I = *impl_;
  MPI_Barrier(I.world);
  const double t0 = MPI_Wtime();
  CheckpointReader reader(I.world, file);
  ck::Expected want;
  want.program = I.opt.app;
  for (const auto& r : I.mats) {
    ck::MatrixInfo m;
    m.name = r.name;
    m.type = scalar_letter(r.type);
    m.m = r.m;
    m.n = r.n;
    want.matrices.push_back(m);
  }
  // The header is the same on every process (read collectively), so is the verdict.
  if (const std::string why = ck::mismatch(file, reader.header(), want); !why.empty()) throw Error(why);
  start(g);
  for (std::size_t k = 0; k < I.mats.size(); ++k) reader.read(k, describe(I.mats[k], I.grid, I.rank()));
  if (I.unpack) I.unpack(reader.state());
  I.iteration = reader.header().iteration;
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, I.world);
  char ms[48];
  std::snprintf(ms, sizeof ms, "; %.1f ms", slowest * 1e3);
  I.progress("[" + I.opt.app + "] restart from " + file + " at iteration " + std::to_string(I.iteration) +
             " (written on " + reader.header().grid.shape() + ", now on " + g.shape() + ms + ")");
  return I.iteration;
}

void Session::set_checkpointing(const CheckpointCadence& c) {
  auto& I = *impl_;
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
  I.adopt_checkpointing(c);
}

void Session::Impl::adopt_checkpointing(const CheckpointCadence& c) {
  Checkpointing k;
  k.cadence = c;
  k.every = ck::parse_every(c.every, c.mtbf_seconds);
  k.last = MPI_Wtime();
  checkpointing = std::move(k);
}

std::string Session::checkpoint_if_due(bool last) {
  auto& I = *impl_;
  if (!I.checkpointing) throw Error("checkpoint_if_due: no checkpoint cadence (call set_checkpointing first)");
  auto& k = *I.checkpointing;
  const auto& every = k.every;
  const bool auto_every = every.kind == ck::Every::Kind::Auto;
  int now = 0;
  double since = 0;
  bool requested = false;
  if (I.root()) {
    const std::string request = k.cadence.dir + "/checkpoint.request";
    requested = ::access(request.c_str(), F_OK) == 0;
    if (requested) std::remove(request.c_str());
    since = MPI_Wtime() - k.last;
    now = ck::due(every, I.iteration, since, k.cost, requested || last);
    if (!now) k.previous_check = since;
  }
  MPI_Bcast(&now, 1, MPI_INT, 0, I.world);
  if (!now) return {};
  const double used_cost = k.cost;
  const std::string file = checkpoint_in(k.cadence.dir, k.cadence.keep, &k.cost);
  k.last = MPI_Wtime();
  if (I.root()) {  // the run's record (summary line, JSON "checkpoints")
    const bool by_rule = ck::due(every, I.iteration, since, used_cost, false);
    const char* reason = auto_every && used_cost < 0 ? "first"
                         : by_rule                   ? (auto_every ? "interval" : "rule")
                         : requested                 ? "request"
                                                     : "last";
    const double interval = auto_every && used_cost >= 0 ? ck::young_daly_interval(used_cost, every.mtbf) : -1;
    I.checkpoints.push_back({I.iteration, k.cost, reason, interval, file});
    if (auto_every) {
      // Each decision with the numbers it used: the time since the last checkpoint at this
      // check and at the previous check, the interval from the previous cost, the new cost.
      std::printf("[%s] checkpoint-every auto: iteration=%d reason=%s since_last=%.17g previous_check=%.17g "
                  "interval=%.17g prev_cost=%.17g mtbf=%.17g cost=%.17g next_interval=%.17g\n",
                  I.opt.app.c_str(), I.iteration, reason, since, k.previous_check, interval, used_cost, every.mtbf,
                  k.cost, ck::young_daly_interval(k.cost, every.mtbf));
      std::fflush(stdout);
      k.previous_check = -1;
    }
  }
  detail::background_fallback_checkpointed(file);  // a background spawn's marker names the newest
  return file;
}

const std::vector<CheckpointRecord>& Session::checkpoint_records() const { return impl_->checkpoints; }

std::vector<std::pair<std::string, std::uint64_t>> Session::checksums() const {
  const auto& I = *impl_;
  if (!I.started) throw Error("checksums: the session has not started");
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& r : I.mats) out.emplace_back(r.name, global_checksum(I.world, describe(r, I.grid, I.rank())));
  return out;
}

}  // namespace resize
