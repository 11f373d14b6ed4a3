// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels in the nodes' own storage, the write: each process's
// header and payload, its copy sent to its process on the partner node while it writes its
// local file, the partner copies it keeps written beside it, everything under temporary
// names renamed only when every process succeeded, old versions pruned, and when each
// level is due. The recovery is levels/recover.cpp; the shared shell
// levels/node_io.hpp; the pure decisions levels.hpp.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <system_error>

#include "checkpoint/file/io.hpp"
#include "common/broadcast.hpp"
#include "common/tags.hpp"
#include "common/config.hpp"
#include "checkpoint/file_release.hpp"
#include "checkpoint/levels/levels.hpp"
#include "checkpoint/levels/node_io.hpp"
#include "checkpoint/session_checkpoint.hpp"
#include "parts/grid_switch.hpp"
#include "parts/resize_phases.hpp"

namespace resize {

detail::CheckpointMatrix describe(const Registered& r, const blacs_dyn::Grid& grid, int rank);  // session_checkpoint.cpp

using namespace detail;

namespace {

namespace lv = resize::levels;
namespace ck = resize::checkpoint;
namespace io = detail::level_io;

using Pieces = std::vector<std::pair<const char*, std::size_t>>;

// One matrix of this process as the level file holds it.
struct Piece {
  const char* data = nullptr;  // column-major, leading dimension `lld` elements
  std::int64_t lld = 0, rows = 0, cols = 0;
  std::size_t es = 0;
};

lv::LevelMatrix level_matrix(const CheckpointMatrix& c, Piece& p) {
  lv::LevelMatrix m;
  auto& g = m.global;  // the blocks on the grid written, uniform or listed
  g.name = c.spec.name;
  g.type = c.spec.type;
  g.m = c.spec.m;
  g.n = c.spec.n;
  const auto& L = c.layout;
  if (L.row_blocks.compact() && L.col_blocks.compact()) {
    g.layout = redist::Distribution::BlockCyclic;
    g.mb = L.row_blocks.empty() ? 1 : L.row_blocks.front();
    g.nb = L.col_blocks.empty() ? 1 : L.col_blocks.front();
  } else {
    g.layout = redist::Distribution::Extended;
    g.mb = g.nb = 0;  // the lists
    g.row_blocks = L.row_blocks.to_vector();
    g.col_blocks = L.col_blocks.to_vector();
  }
  m.layout = L;
  m.pr = c.pr;
  m.pc = c.pc;
  p.es = scalar_bytes(g.type);
  if (c.pr >= 0 && c.local) {
    m.rows = L.local_rows(c.pr);
    m.cols = L.local_cols(c.pc);
    p.data = static_cast<const char*>(c.local);
    p.lld = c.lld;
  }
  p.rows = m.rows;
  p.cols = m.cols;
  return m;
}

// The payload as contiguous pieces: a matrix whose leading dimension is its local rows is
// one piece straight from its buffer; another is packed once (into `packed`). With `sum`,
// the whole payload is summed into it (a pass of its own).
Pieces payload_pieces(const std::vector<Piece>& pieces, std::vector<std::vector<char>>& packed,
                      lv::PayloadChecksum* sum) {
  Pieces payload;
  for (const auto& p : pieces) {
    const std::size_t bytes = static_cast<std::size_t>(p.rows * p.cols) * p.es;
    if (bytes == 0) continue;
    if (p.lld == p.rows) {
      payload.emplace_back(p.data, bytes);
    } else {
      packed.emplace_back(bytes);
      char* out = packed.back().data();
      const std::size_t col = static_cast<std::size_t>(p.rows) * p.es;
      for (std::int64_t j = 0; j < p.cols; ++j)
        std::memcpy(out + static_cast<std::size_t>(j) * col, p.data + static_cast<std::size_t>(j * p.lld) * p.es, col);
      payload.emplace_back(out, bytes);
    }
    if (sum) sum->update(payload.back().first, payload.back().second);
  }
  return payload;
}

// The copies this process keeps for processes of its source node, in flight.
// The payload travels in pieces of kPipe bytes so that the copies kept are written to
// their files piece by piece as they arrive (the file write overlaps the transfer).
constexpr std::size_t kPipe = std::size_t{4} << 20;

struct PartnerCopies {
  std::vector<int> from;                  // their world ranks
  std::vector<char*> into;                // where each is received: its file's mapping, or kept[k]
  std::vector<bool> in_file;              // received straight into its file (nothing to write)
  std::vector<std::vector<char>> kept;    // header + payload of each not received into its file
  std::vector<std::size_t> head_len;      // the header's bytes of each
  std::vector<Pieces> pieces;             // each copy's payload pieces as received, in order
  std::vector<std::vector<MPI_Request>> recvs;  // their receives, one per piece
  std::vector<MPI_Request> sends;         // my payload to my partner process
};

// Where copy k (from world rank `from`, `bytes` of header and payload) is received: its
// level file's mapping (MappedFiles::open), or nullptr for a buffer of its own.
using PlaceCopy = std::function<char*(std::size_t k, int from, std::size_t bytes)>;

// Header then payload in the pieces it is made of: the receiver learns the pieces from the
// header, so its receives match the sends one for one, without packing a copy. Each copy
// kept is received where `place` says (straight into its mapped file: no buffer, no copy).
// Returns with the payload messages posted (copies.recvs, copies.sends).
void start_partner_copies(const Nodes& nd, MPI_Comm world, const std::vector<char>& head, std::uint64_t payload_bytes,
                          const Pieces& payload, PartnerCopies& c, const PlaceCopy& place) {
  const int to = nd.partner_ranks[static_cast<std::size_t>(
      lv::partner_local(nd.local, static_cast<int>(nd.partner_ranks.size())))];
  for (int j : lv::kept_from(nd.local, nd.local_size, static_cast<int>(nd.source_ranks.size())))
    c.from.push_back(nd.source_ranks[static_cast<std::size_t>(j)]);
  // Lengths first (header, payload).
  unsigned long long my_len[2] = {head.size(), payload_bytes};
  std::vector<std::array<unsigned long long, 2>> their_len(c.from.size());
  std::vector<MPI_Request> reqs;
  for (std::size_t k = 0; k < c.from.size(); ++k) {
    reqs.emplace_back();
    MPI_Irecv(their_len[k].data(), 2, MPI_UNSIGNED_LONG_LONG, c.from[k], tags::kLevelLengths, world, &reqs.back());
  }
  reqs.emplace_back();
  MPI_Isend(my_len, 2, MPI_UNSIGNED_LONG_LONG, to, tags::kLevelLengths, world, &reqs.back());
  io::wait_all(reqs);
  std::vector<MPI_Request> heads;
  c.kept.resize(c.from.size());
  for (std::size_t k = 0; k < c.from.size(); ++k) {
    const auto bytes = static_cast<std::size_t>(their_len[k][0] + their_len[k][1]);
    char* file = place(k, c.from[k], bytes);
    if (!file) {
      c.kept[k].resize(bytes);
      file = c.kept[k].data();
    }
    c.into.push_back(file);
    c.in_file.push_back(file != c.kept[k].data());
    c.head_len.push_back(static_cast<std::size_t>(their_len[k][0]));
    io::recv_bytes(file, static_cast<std::size_t>(their_len[k][0]), c.from[k], tags::kLevelHeader, world, heads);
  }
  io::send_bytes(head.data(), head.size(), to, tags::kLevelHeader, world, c.sends);
  io::wait_all(heads);
  c.recvs.resize(c.from.size());
  c.pieces.resize(c.from.size());
  for (std::size_t k = 0; k < c.from.size(); ++k) {
    std::size_t used = 0;
    lv::LevelHeader theirs;
    try {
      theirs = lv::decode_header(c.into[k], static_cast<std::size_t>(their_len[k][0]), used);
    } catch (const Error& e) {
      throw CheckpointFailed(std::string("checkpoint level partner: the header from rank ") +
                             std::to_string(c.from[k]) + " is damaged: " + e.what());  // not reached unless memory is corrupt
    }
    std::size_t at = used;
    for (const auto& m : theirs.matrices) {
      for (std::size_t off = 0; off < m.bytes; off += kPipe) {  // as the sender's send_bytes cuts them
        const std::size_t len = std::min<std::size_t>(kPipe, m.bytes - off);
        c.pieces[k].emplace_back(c.into[k] + at + off, len);
        c.recvs[k].emplace_back();
        MPI_Irecv(c.into[k] + at + off, static_cast<int>(len), MPI_BYTE, c.from[k], tags::kLevelPayload, world,
                  &c.recvs[k].back());
      }
      at += static_cast<std::size_t>(m.bytes);
    }
  }
  for (const auto& [p, n] : payload) io::send_bytes(p, n, to, tags::kLevelPayload, world, c.sends, kPipe);
}

// What this process wrote under temporary names.
struct Written {
  std::vector<std::pair<std::string, std::string>> renames;  // tmp -> final
  std::int64_t bytes = 0;
};

// The level file `name` under name.tmp (recycling `recycle`, see write_level_file).
std::string write_tmp(const std::string& name, const std::string& recycle, std::size_t head_len, const Pieces& pieces,
                      lv::PayloadChecksum* sum, const std::function<std::vector<char>()>& make_head, Written& w,
                      MappedFiles& mapped, const std::function<void(std::size_t)>& ready = nullptr,
                      const std::function<void()>& tick = nullptr) {
  std::string why =
      io::write_level_file(name + ".tmp", recycle, head_len, pieces, sum, make_head, ready, tick, &mapped);
  if (why.empty()) {
    w.renames.emplace_back(name + ".tmp", name);
    w.bytes += static_cast<std::int64_t>(head_len);
    for (const auto& pc : pieces) w.bytes += static_cast<std::int64_t>(pc.second);
  }
  return why;
}

// Lets MPI move the partner messages while a file is written (a test of the sends).
void progress(PartnerCopies& c) {
  int done = 0;
  if (!c.sends.empty()) MPI_Testall(static_cast<int>(c.sends.size()), c.sends.data(), &done, MPI_STATUSES_IGNORE);
}

// Copy k kept under name.tmp, each piece written as soon as its receive completes (the
// file write overlaps the rest of the transfer).
std::string write_kept(PartnerCopies& c, std::size_t k, const std::string& name, const std::string& recycle,
                       Written& w, MappedFiles& mapped) {
  const char* buf = c.into[k];
  const std::size_t head = c.head_len[k];
  auto& reqs = c.recvs[k];
  return write_tmp(name, recycle, head, c.pieces[k], nullptr,
                   [&] { return std::vector<char>(buf, buf + head); }, w,
                   mapped, [&](std::size_t i) { MPI_Wait(&reqs[i], MPI_STATUS_IGNORE); }, [&] { progress(c); });
}

// An existing file of (kind, rank) that the pruning after this checkpoint would remove,
// to be overwritten in place by the new version (its tmpfs pages reused): the oldest such
// one, or "". Only with keep >= 2, so that the newest keep-1 versions stay intact while
// the new one is written (keep 1 would leave none if the write failed).
std::string to_recycle(const std::vector<std::string>& names, const std::string& dir, const std::string& program,
                       lv::Level kind, int rank, int nprocs, int version, int keep) {
  if (keep < 2) return {};
  std::vector<int> versions{version};
  for (const auto& f : names) {
    lv::LevelName n;
    if (lv::parse_level_file_name(f, program, n) && n.kind == kind && n.rank == rank && n.nprocs == nprocs &&
        n.iteration != version)
      versions.push_back(n.iteration);
  }
  int oldest = -1;
  for (int v : lv::versions_to_remove(versions, keep))
    if (v != version && (oldest < 0 || v < oldest)) oldest = v;
  return oldest < 0 ? std::string() : dir + "/" + lv::level_file_name(program, kind, rank, nprocs, oldest);
}

// Renames every process's files once all succeeded; otherwise removes them and throws the
// lowest failing rank's reason on every process.
// `previous`: this process's node directory holds a level file of this program (an earlier
// version to recover from); the failing rank's word is the one every process says.
void publish(MPI_Comm world, std::string why, const Written& w, bool partner, const Nodes& nd, int rank,
             MappedFiles& mapped, bool previous) {
  if (!why.empty())
    why = "checkpoint level " + std::string(partner ? "partner" : "local") + " on node " + nd.name + " (rank " +
          std::to_string(rank) + "): " + why +
          (previous ? " (the newest previous version is intact)" : " (no earlier version was written)");
  why = io::agree(world, why);
  if (!why.empty()) {
    for (const auto& [tmp, fin] : w.renames) {
      mapped.forget(tmp);
      ::unlink(tmp.c_str());
    }
    throw CheckpointFailed(why);
  }
  for (const auto& [tmp, fin] : w.renames)
    if (std::rename(tmp.c_str(), fin.c_str()) == 0) mapped.renamed(tmp, fin);  // a replaced `fin`'s mapping goes
}

// Retention after version `iteration` was written (levels.hpp, level_files_to_remove:
// at most `keep` versions per level on the node, earlier world sizes included, no file of
// an interrupted write). Each process removes its own files of the current size (its
// local files and the partner copies it keeps: its mappings of them go too); the node's
// first process (`sweeper`) removes the rest, the files of earlier sizes and the
// temporary files left by interrupted writes. Freed on a background thread
// (file_release.hpp: tmpfs gives a version's pages back in the unlink itself otherwise).
void prune(const std::string& dir, const std::string& program, int rank, int nprocs, int iteration, int keep,
           bool partner, const std::vector<int>& from, bool sweeper, MappedFiles& mapped) {
  const std::set<int> mine_from(from.begin(), from.end());
  for (const auto& f : lv::level_files_to_remove(io::list_dir(dir), program, keep, nprocs, iteration)) {
    lv::LevelName n;
    const bool complete = lv::parse_level_file_name(f, program, n);
    const bool own = complete && n.nprocs == nprocs &&
                     (n.kind == lv::Level::Local ? n.rank == rank : (partner && mine_from.count(n.rank) > 0));
    if (!own && !(sweeper && !(complete && n.nprocs == nprocs))) continue;
    const std::string path = dir + "/" + f;
    mapped.forget(path);
    remove_file(path);
  }
}

// MALLEABLE_LEVELS_TRACE=1 (`on`, the session's configuration): each process prints where
// its level checkpoint's time went (one line per checkpoint on stderr; a diagnostic for
// the benchmarks).
class Phases {
 public:
  Phases(double t0, bool on) : last_(t0), on_(on) {
    if (on_) mark("state");
  }
  void mark(const char* what) {
    if (!on_) return;
    const double t = MPI_Wtime();
    char item[64];
    std::snprintf(item, sizeof item, " %s %.1f", what, (t - last_) * 1e3);
    line_ += item;
    last_ = t;
  }
  void print(int rank, bool partner) const {
    if (on_) std::fprintf(stderr, "levels trace rank %d %s (ms):%s\n", rank, partner ? "local+partner" : "local", line_.c_str());
  }
 private:
  double last_;
  bool on_;
  std::string line_;
};

std::string make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return ec ? "checkpoint level directory " + dir + " cannot be created: " + ec.message() : std::string();
}

// The header of this process's level file, before its matrices and state.
lv::LevelHeader level_header(const std::string& program, int iteration, int rank, int nprocs, int node,
                             const Grid& shape) {
  lv::LevelHeader h;
  h.program = program;
  h.iteration = iteration;
  h.rank = rank;
  h.nprocs = nprocs;
  h.node = node;
  h.nprow = shape.nprow;
  h.npcol = shape.npcol;
  return h;
}

// Bytes per node (own + partner copies) and the time of the slowest process, agreed.
struct Tally {
  double slowest = 0;
  std::int64_t most = 0, total = 0;
  std::int64_t files = 0;  // all nodes: every file of the version, so that the summary counts them
  std::string line() const {
    char text[160];
    std::snprintf(text, sizeof text, " (%.1f ms, %.1f MB on the busiest node, %.1f MB in all)", slowest * 1e3,
                  static_cast<double>(most) / 1e6, static_cast<double>(total) / 1e6);
    return text;
  }
};

Tally tally(MPI_Comm world, MPI_Comm node, std::int64_t bytes, std::int64_t files, double t0) {
  Tally t;
  std::int64_t node_bytes = 0;
  MPI_Allreduce(&bytes, &node_bytes, 1, MPI_INT64_T, MPI_SUM, node);
  MPI_Allreduce(&node_bytes, &t.most, 1, MPI_INT64_T, MPI_MAX, world);
  const std::int64_t mine[2] = {bytes, files};
  std::int64_t all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, world);
  t.total = all[0];
  t.files = all[1];
  double dt = MPI_Wtime() - t0;
  MPI_Allreduce(&dt, &t.slowest, 1, MPI_DOUBLE, MPI_MAX, world);
  return t;
}

// The nodes of the job's world, found again when the world changed (a resize): the files
// kept mapped are the old world's.
const Nodes& current_nodes(LevelState& st, MPI_Comm world, const config::Checkpoint& cfg) {
  if (!st.nodes || st.world != world) {
    st.mapped.clear();
    st.nodes = io::discover(world, cfg);
    st.world = world;
  }
  return *st.nodes;
}

// The level files of one version in a node's directory: each file's name, and the old
// file it overwrites in place (to_recycle; `names`: the directory's files before).
struct VersionFiles {
  const std::string& dir;
  const std::string& program;
  int nprocs, iteration, keep;
  const std::vector<std::string>& names;
  std::string name(lv::Level kind, int rank) const {
    return dir + "/" + lv::level_file_name(program, kind, rank, nprocs, iteration);
  }
  std::string recycle(lv::Level kind, int rank) const {
    return to_recycle(names, dir, program, kind, rank, nprocs, iteration, keep);
  }
};

// The partner copies started (start_partner_copies): each copy kept is received straight
// into its file's mapping when there is one (renamed with the others, `w`).
void start_copies(const Nodes& nd, const std::vector<char>& head, std::uint64_t payload_bytes, const Pieces& payload,
                  const VersionFiles& files, MappedFiles& mapped, PartnerCopies& copies, Written& w, std::string& why) {
  start_partner_copies(nd, nd.traffic, head, payload_bytes, payload, copies,
                       [&](std::size_t, int r, std::size_t bytes) -> char* {
                         if (!why.empty()) return nullptr;  // received into a buffer, then dropped
                         const std::string name = files.name(lv::Level::Partner, r);
                         char* file = mapped.open(name + ".tmp", files.recycle(lv::Level::Partner, r), bytes, why);
                         if (file) {
                           w.renames.emplace_back(name + ".tmp", name);
                           w.bytes += static_cast<std::int64_t>(bytes);
                         }
                         return file;
                       });
}

// The local level file, written while the partner copies travel (their sends tested
// between chunks). Without partner copies it sums the payload while it writes and makes
// the header last, with that sum.
std::string write_local(lv::LevelHeader& h, const std::vector<char>& head, const Pieces& payload, bool partner,
                        const VersionFiles& files, int rank, Written& w, MappedFiles& mapped, PartnerCopies& copies) {
  lv::PayloadChecksum fused;
  return write_tmp(files.name(lv::Level::Local, rank), files.recycle(lv::Level::Local, rank), head.size(), payload,
                   partner ? nullptr : &fused, [&] {
                     if (partner) return head;
                     h.payload_checksum = fused.value();
                     return lv::encode_header(h);
                   }, w, mapped, nullptr, [&] { progress(copies); });
}

// The copies kept that were not received into their files, each written as its pieces
// arrive (write_kept); "" or the first failure.
std::string write_kept_copies(PartnerCopies& copies, const VersionFiles& files, Written& w, MappedFiles& mapped) {
  std::string why;
  for (std::size_t k = 0; k < copies.from.size() && why.empty(); ++k) {
    const int r = copies.from[k];
    if (copies.in_file[k]) continue;  // complete once its receives are (below)
    why = write_kept(copies, k, files.name(lv::Level::Partner, r), files.recycle(lv::Level::Partner, r), w, mapped);
  }
  return why;
}

// The copies kept arrive (a failed write leaves receives to complete), and this process's
// copy is sent.
void await_copies(PartnerCopies& copies, Phases& phases) {
  for (auto& r : copies.recvs) io::wait_all(r);
  phases.mark("copies kept arrive");
  io::wait_all(copies.sends);
  phases.mark("my copy sent");
  copies.kept.clear();
}

// Whether the node's directory held a level file of this program (an earlier version to
// recover from).
bool has_previous(const std::vector<std::string>& names, const std::string& program) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) {
    return n.rfind(program + ".", 0) == 0 && n.find(".tmp") == std::string::npos;
  });
}

}  // namespace

void detail::set_levels(CheckpointView v, const LevelCadence& c) {
  if (c.keep < 0) throw Error("set_level_checkpointing: keep must be >= 0 (0: keep all), got " + std::to_string(c.keep));
  auto st = std::make_shared<LevelState>();
  st->cadence = c;
  st->dir = c.dir.empty() ? io::default_dir(v.opt.app, v.cfg) : c.dir;
  st->local_every = checkpoint::parse_every(c.local_every, c.local_mtbf);
  st->partner_every = checkpoint::parse_every(c.partner_every, c.partner_mtbf);
  st->local_last = st->partner_last = MPI_Wtime();
  v.ckpts.levels = std::move(st);
}

namespace {
// One level checkpoint (local, and partner copies when `partner`) of the registry on the
// job's grid into st's directory, stamped with the program and the iterations done
// (collective over job.world; the same CheckpointFailed on every process).
Tally write_levels(LevelState& st, const SessionWorld& job, const MatrixRegistry& registry, const std::string& app,
                   int iteration, bool partner, const config::Checkpoint& cfg) {
  MPI_Barrier(job.world);
  const double t0 = MPI_Wtime();
  const Nodes& nd = current_nodes(st, job.world, cfg);
  st.mapped.set_capacity(lv::mapped_capacity(
      st.cadence.keep,
      nd.count < 2 ? 0 : lv::kept_from(nd.local, nd.local_size, static_cast<int>(nd.source_ranks.size())).size()));
  const int rank = job.rank(), nprocs = job.size();
  if (partner && nd.count < 2)
    throw CheckpointFailed("checkpoint level partner: the job runs on one node (" + nd.name +
                           "); a partner copy needs another node");
  // Header and payload of this process.
  lv::LevelHeader h = level_header(app, iteration, rank, nprocs, nd.index, job.shape);
  if (job.root() && registry.pack) h.state = registry.pack();
  h.state = broadcast_bytes(std::move(h.state), 0, job.world);
  Phases phases(t0, cfg.levels_trace);
  std::vector<Piece> pieces;
  for (const auto& r : registry.mats) h.matrices.push_back(level_matrix(describe(r, job.grid, rank), pieces.emplace_back()));
  lv::lay_out_payload(h);
  // The partner copy carries the checksum in its header, sent first: summed in a pass of
  // its own. The local level alone sums while it writes (the header written last).
  std::vector<std::vector<char>> packed;
  lv::PayloadChecksum sum;
  const Pieces payload = payload_pieces(pieces, packed, partner ? &sum : nullptr);
  h.payload_checksum = sum.value();
  const std::vector<char> head = lv::encode_header(h);
  const std::string dir = st.dir + "/" + nd.name;
  std::string why = make_dir(dir);
  const std::vector<std::string> names = why.empty() ? io::list_dir(dir) : std::vector<std::string>{};
  const VersionFiles files{dir, h.program, nprocs, h.iteration, st.cadence.keep, names};
  Written w;
  PartnerCopies copies;
  if (partner) start_copies(nd, head, h.payload_bytes, payload, files, st.mapped, copies, w, why);
  phases.mark("exchange headers");
  // The local level while the partner copies travel, then the copies kept.
  if (why.empty()) why = write_local(h, head, payload, partner, files, rank, w, st.mapped, copies);
  if (why.empty()) why = write_kept_copies(copies, files, w, st.mapped);
  phases.mark("local file");  // and the copies kept that were not received into their files
  await_copies(copies, phases);
  publish(job.world, why, w, partner, nd, rank, st.mapped, has_previous(names, h.program));
  phases.mark("agree and rename");
  prune(dir, h.program, rank, nprocs, h.iteration, st.cadence.keep, partner, copies.from, nd.local == 0, st.mapped);
  phases.mark("prune");
  const Tally t = tally(job.world, nd.node, w.bytes, static_cast<std::int64_t>(w.renames.size()), t0);
  phases.mark("report");
  phases.print(rank, partner);
  return t;
}
}  // namespace

double detail::write_levels_now(CheckpointView v, bool partner) {
  if (!v.ckpts.levels) set_levels(v, {});
  SessionCheckpoints& ckpts = v.ckpts;
  const std::string& app = v.opt.app;
  const int iteration = v.iteration;
  auto& st = *ckpts.levels;
  const Tally t = write_levels(st, v.job, v.registry, app, iteration, partner, v.cfg);
  if (v.job.root()) ckpts.level_records.push_back({iteration, partner, t.slowest, t.most, t.total, "rule", t.files});
  progress_line(v.opt, v.job.root(), "[" + app + "] checkpoint level " + (partner ? "local+partner" : "local") +
                " after iteration " + std::to_string(iteration) + " in " + st.dir + t.line());
  return t.slowest;
}

namespace {
// Which level is due at this remap point, the same on every process (world rank 0's
// verdict): none, the local level or the partner copies (the local level instead on one
// node, said once).
enum class LevelDue { None, Local, Partner };
LevelDue level_due(LevelState& st, const SessionWorld& job, const std::string& app, int iteration, bool last,
                   const config::Checkpoint& cfg) {
  int now[2] = {0, 0};  // local, partner
  if (job.root()) {
    const double t = MPI_Wtime();
    now[1] = st.partner_every.kind != checkpoint::Every::Kind::Never &&
             checkpoint::due(st.partner_every, iteration, t - st.partner_last, st.partner_cost, last);
    now[0] = !now[1] && st.local_every.kind != checkpoint::Every::Kind::Never &&
             checkpoint::due(st.local_every, iteration, t - st.local_last, st.local_cost, last);
  }
  MPI_Bcast(now, 2, MPI_INT, 0, job.world);
  if (!now[0] && !now[1]) return LevelDue::None;
  if (now[1]) {
    current_nodes(st, job.world, cfg);
    if (st.nodes->count < 2) {  // e.g. after the other nodes were lost: the local level only
      now[1] = 0;
      now[0] = 1;
      if (!st.warned_one_node && job.root()) {
        std::printf("[%s] checkpoint level partner: the job runs on one node (%s): writing the local level only\n",
                    app.c_str(), st.nodes->name.c_str());
        std::fflush(stdout);
      }
      st.warned_one_node = true;
    }
  }
  return now[1] ? LevelDue::Partner : now[0] ? LevelDue::Local : LevelDue::None;
}
}  // namespace

std::string detail::levels_when_due(CheckpointView v, bool last) {
  auto& st = *v.ckpts.levels;
  const LevelDue due = level_due(st, v.job, v.opt.app, v.iteration, last, v.cfg);
  if (due == LevelDue::None) return {};
  const double cost = write_levels_now(v, due == LevelDue::Partner);
  const double t = MPI_Wtime();
  st.local_last = t;
  if (due == LevelDue::Partner) {
    st.partner_last = t;
    st.partner_cost = cost;
  } else {
    st.local_cost = cost;
  }
  return due == LevelDue::Partner ? "partner" : "local";
}

void detail::release_levels(SessionCheckpoints& ckpts) {
  if (!ckpts.levels) return;
  ckpts.levels->nodes.reset();
  ckpts.levels->world = MPI_COMM_NULL;
}

}  // namespace resize
