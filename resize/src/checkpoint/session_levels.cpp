// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels in the nodes' own storage (issue 35), the MPI and file shell around
// the pure core levels.hpp: which node a process is on and which process of the partner
// node keeps its copy, writing the local and partner levels (temporary names, renamed only
// when every process succeeded), and the recovery from what survived onto a new grid.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "checkpoint/checkpoint_io.hpp"
#include "checkpoint/file_release.hpp"
#include "checkpoint/levels.hpp"
#include "session/session_impl.hpp"

namespace resize {

detail::CheckpointMatrix describe(const Registered& r, const detail::BlacsGrid& grid, int rank);  // session_checkpoint.cpp

namespace detail {

namespace lv = resize::levels;

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are int: messages in pieces of 1 GiB

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The lowest failing rank's message on every process ("" when none failed).
std::string agree(MPI_Comm comm, const std::string& why) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = why.empty() ? INT_MAX : rank, lowest = INT_MAX;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest == INT_MAX) return {};
  int len = static_cast<int>(why.size());
  MPI_Bcast(&len, 1, MPI_INT, lowest, comm);
  std::string out = why;
  out.resize(static_cast<std::size_t>(len));
  MPI_Bcast(out.data(), len, MPI_CHAR, lowest, comm);
  return out;
}

void send_bytes(const char* p, std::size_t n, int to, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
  for (std::size_t at = 0; at < n; at += kChunk) {
    reqs.emplace_back();
    MPI_Isend(p + at, static_cast<int>(std::min(kChunk, n - at)), MPI_BYTE, to, tag, comm, &reqs.back());
  }
}

void recv_bytes(char* p, std::size_t n, int from, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
  for (std::size_t at = 0; at < n; at += kChunk) {
    reqs.emplace_back();
    MPI_Irecv(p + at, static_cast<int>(std::min(kChunk, n - at)), MPI_BYTE, from, tag, comm, &reqs.back());
  }
}

// Writes all pieces to `path`; "" or the reason (errno's text).
std::string write_file(const std::string& path, const std::vector<std::pair<const char*, std::size_t>>& pieces) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
  for (const auto& [p, n] : pieces) {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t w = ::write(fd, p + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const std::string why = "cannot write " + path + ": " + std::strerror(w < 0 ? errno : ENOSPC);
        ::close(fd);
        ::unlink(path.c_str());
        return why;
      }
      done += static_cast<std::size_t>(w);
    }
  }
  if (::close(fd) != 0) {
    const std::string why = "cannot write " + path + ": " + std::strerror(errno);
    ::unlink(path.c_str());
    return why;
  }
  return {};
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) out.emplace_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// The nodes of the current world and the partner ring over them.
struct Nodes {
  MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
  int local = 0, local_size = 1, index = 0, count = 1;
  std::string name;
  int partner = 0, source = 0;  // node indices: my node's copies go to `partner`, I keep `source`'s
  std::vector<int> partner_ranks, source_ranks;  // world ranks of those nodes' processes, by local index
  Nodes() = default;
  Nodes(const Nodes&) = delete;
  Nodes& operator=(const Nodes&) = delete;
  ~Nodes() {
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
  }
};

namespace {

// Which node each process is on: MALLEABLE_NODE_MAP (node names per rank, or every=K, for
// tests that emulate nodes on one machine), else MPI's shared-memory split and the host
// name. Collective; throws the same Error on every process for a bad map.
std::unique_ptr<Nodes> discover(MPI_Comm world) {
  auto n = std::make_unique<Nodes>();
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const std::string map = env("MALLEABLE_NODE_MAP");
  if (!map.empty()) {
    std::vector<std::string> names;
    if (map.rfind("every=", 0) == 0) {
      for (int v : lv::parse_node_map(map, size)) names.push_back("node" + std::to_string(v + 1));
    } else {
      std::size_t pos = 0;
      while (pos <= map.size()) {
        const std::size_t comma = std::min(map.find(',', pos), map.size());
        names.push_back(map.substr(pos, comma - pos));
        pos = comma + 1;
      }
      if (static_cast<int>(names.size()) != size)
        throw Error("MALLEABLE_NODE_MAP names " + std::to_string(names.size()) + " ranks, the job has " +
                    std::to_string(size));
    }
    n->name = names[static_cast<std::size_t>(rank)];
    const int color = static_cast<int>(std::find(names.begin(), names.end(), n->name) - names.begin());
    MPI_Comm_split(world, color, rank, &n->node);
  } else {
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &n->node);
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    n->name.assign(host, static_cast<std::size_t>(len));
  }
  MPI_Comm_rank(n->node, &n->local);
  MPI_Comm_size(n->node, &n->local_size);
  MPI_Comm_split(world, n->local == 0 ? 0 : MPI_UNDEFINED, rank, &n->leaders);
  int idx[2] = {0, 1};
  if (n->leaders != MPI_COMM_NULL) {
    MPI_Comm_rank(n->leaders, &idx[0]);
    MPI_Comm_size(n->leaders, &idx[1]);
  }
  MPI_Bcast(idx, 2, MPI_INT, 0, n->node);
  n->index = idx[0];
  n->count = idx[1];
  // The ring (levels.hpp), with MALLEABLE_SWITCH_MAP (switch of each node index) if given.
  std::vector<int> switches;
  if (const std::string sw = env("MALLEABLE_SWITCH_MAP"); !sw.empty()) {
    std::size_t pos = 0;
    while (pos <= sw.size()) {
      const std::size_t comma = std::min(sw.find(',', pos), sw.size());
      switches.push_back(std::atoi(sw.substr(pos, comma - pos).c_str()));
      pos = comma + 1;
    }
  }
  const std::vector<int> partner = lv::partner_nodes(n->count, switches);
  n->partner = partner[static_cast<std::size_t>(n->index)];
  n->source = static_cast<int>(std::find(partner.begin(), partner.end(), n->index) - partner.begin());
  // World ranks of my node's processes; the leaders swap them along the ring.
  std::vector<int> mine(static_cast<std::size_t>(n->local_size));
  MPI_Gather(&rank, 1, MPI_INT, mine.data(), 1, MPI_INT, 0, n->node);
  int sizes[2] = {0, 0};  // partner's, source's
  if (n->leaders != MPI_COMM_NULL) {
    // Node `source` needs my list (I am its partner); I need `partner`'s.
    MPI_Sendrecv(&n->local_size, 1, MPI_INT, n->source, 1, &sizes[0], 1, MPI_INT, n->partner, 1, n->leaders,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&n->local_size, 1, MPI_INT, n->partner, 2, &sizes[1], 1, MPI_INT, n->source, 2, n->leaders,
                 MPI_STATUS_IGNORE);
  }
  MPI_Bcast(sizes, 2, MPI_INT, 0, n->node);
  n->partner_ranks.resize(static_cast<std::size_t>(sizes[0]));
  n->source_ranks.resize(static_cast<std::size_t>(sizes[1]));
  if (n->leaders != MPI_COMM_NULL) {
    MPI_Sendrecv(mine.data(), n->local_size, MPI_INT, n->source, 3, n->partner_ranks.data(), sizes[0], MPI_INT,
                 n->partner, 3, n->leaders, MPI_STATUS_IGNORE);
    MPI_Sendrecv(mine.data(), n->local_size, MPI_INT, n->partner, 4, n->source_ranks.data(), sizes[1], MPI_INT,
                 n->source, 4, n->leaders, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(n->partner_ranks.data(), sizes[0], MPI_INT, 0, n->node);
  MPI_Bcast(n->source_ranks.data(), sizes[1], MPI_INT, 0, n->node);
  return n;
}

std::string default_dir(const std::string& app) {
  std::string job = env("MALLEABLE_JOB_ID");
  if (job.empty()) job = env("SLURM_JOB_ID");
  if (job.empty()) job = app;
  return "/dev/shm/malleable-" + job;
}

}  // namespace

struct LevelState {
  LevelCadence cadence;
  std::string dir;  // resolved
  checkpoint::Every local_every, partner_every;
  double local_last = 0, partner_last = 0;
  double local_cost = -1, partner_cost = -1;
  std::unique_ptr<Nodes> nodes;
  MPI_Comm world = MPI_COMM_NULL;  // the world `nodes` describes
  bool warned_one_node = false;
};

}  // namespace detail

using namespace detail;

namespace {

namespace lv = resize::levels;

// One matrix of this process as the level file holds it.
struct Piece {
  const char* data = nullptr;  // column-major, leading dimension `lld` elements
  std::int64_t lld = 0, rows = 0, cols = 0;
  std::size_t es = 0;
};

lv::LevelMatrix level_matrix(const CheckpointMatrix& c, Piece& p) {
  lv::LevelMatrix m;
  m.name = c.info.name;
  m.type = c.info.type;
  m.m = c.info.m;
  m.n = c.info.n;
  const auto& L = c.layout;
  if (L.row_blocks.compact() && L.col_blocks.compact()) {
    m.mb = L.row_blocks.empty() ? 1 : L.row_blocks.front();
    m.nb = L.col_blocks.empty() ? 1 : L.col_blocks.front();
  } else {
    m.row_blocks = L.row_blocks.to_vector();
    m.col_blocks = L.col_blocks.to_vector();
  }
  m.nprow = L.nprow;
  m.npcol = L.npcol;
  m.rsrc = L.rsrc;
  m.csrc = L.csrc;
  m.pr = c.pr;
  m.pc = c.pc;
  p.es = lv::element_size(m.type);
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

redist::BlockSizes blocks(std::int64_t extent, std::int64_t b, const std::vector<std::int64_t>& list) {
  return b > 0 ? redist::BlockSizes::uniform(extent, b) : redist::BlockSizes(list);
}

}  // namespace

void Session::set_level_checkpointing(const LevelCadence& c) {
  auto& I = *impl_;
  if (c.keep < 0) throw Error("set_level_checkpointing: keep must be >= 0 (0: keep all), got " + std::to_string(c.keep));
  auto st = std::make_shared<LevelState>();
  st->cadence = c;
  st->dir = c.dir.empty() ? default_dir(I.opt.app) : c.dir;
  st->local_every = checkpoint::parse_every(c.local_every, c.local_mtbf);
  st->partner_every = checkpoint::parse_every(c.partner_every, c.partner_mtbf);
  st->local_last = st->partner_last = MPI_Wtime();
  I.levels = std::move(st);
}

double Session::checkpoint_levels(bool partner) {
  auto& I = *impl_;
  if (!I.started) throw Error("checkpoint_levels: the session has not started");
  if (!I.levels) set_level_checkpointing({});
  auto& st = *I.levels;
  MPI_Barrier(I.world);
  const double t0 = MPI_Wtime();
  if (!st.nodes || st.world != I.world) {  // the world changed (a resize): nodes again
    st.nodes = discover(I.world);
    st.world = I.world;
  }
  const Nodes& nd = *st.nodes;
  const int rank = I.rank(), nprocs = I.size();
  if (partner && nd.count < 2)
    throw CheckpointFailed("checkpoint level partner: the job runs on one node (" + nd.name +
                           "); a partner copy needs another node");
  // Header and payload of this process.
  lv::LevelHeader h;
  h.program = I.opt.app;
  h.iteration = I.iteration;
  h.rank = rank;
  h.nprocs = nprocs;
  h.node = nd.index;
  h.nprow = I.shape.nprow;
  h.npcol = I.shape.npcol;
  {
    std::vector<char> state;
    if (I.root() && I.pack) state = I.pack();
    long long len = static_cast<long long>(state.size());
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, I.world);
    state.resize(static_cast<std::size_t>(len));
    if (len > 0) MPI_Bcast(state.data(), static_cast<int>(len), MPI_CHAR, 0, I.world);
    h.state = std::move(state);
  }
  std::vector<Piece> pieces;
  for (const auto& r : I.mats) {
    Piece p;
    h.matrices.push_back(level_matrix(describe(r, I.grid, rank), p));
    pieces.push_back(p);
  }
  lv::lay_out_payload(h);
  // The payload as contiguous pieces: a matrix whose leading dimension is its local rows is
  // one piece straight from its buffer; another is packed once.
  std::vector<std::vector<char>> packed;
  std::vector<std::pair<const char*, std::size_t>> payload;
  lv::PayloadChecksum sum;
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
    sum.update(payload.back().first, payload.back().second);
  }
  h.payload_checksum = sum.value();
  const std::vector<char> head = lv::encode_header(h);
  const std::string dir = st.dir + "/" + nd.name;
  std::string why;
  {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) why = "checkpoint level directory " + dir + " cannot be created: " + ec.message();
  }
  // Partner level: my bytes to my process on the partner node; the copies of the source
  // node's processes I keep.
  std::vector<MPI_Request> reqs;
  unsigned long long my_len[2] = {head.size(), h.payload_bytes};
  std::vector<int> from;
  std::vector<std::array<unsigned long long, 2>> their_len;
  std::vector<std::vector<char>> kept;
  if (partner) {
    const int to = nd.partner_ranks[static_cast<std::size_t>(
        lv::partner_local(nd.local, static_cast<int>(nd.partner_ranks.size())))];
    for (int j : lv::kept_from(nd.local, nd.local_size, static_cast<int>(nd.source_ranks.size())))
      from.push_back(nd.source_ranks[static_cast<std::size_t>(j)]);
    their_len.resize(from.size());
    for (std::size_t k = 0; k < from.size(); ++k) {
      reqs.emplace_back();
      MPI_Irecv(their_len[k].data(), 2, MPI_UNSIGNED_LONG_LONG, from[k], 701, I.world, &reqs.back());
    }
    reqs.emplace_back();
    MPI_Isend(my_len, 2, MPI_UNSIGNED_LONG_LONG, to, 701, I.world, &reqs.back());
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    reqs.clear();
    // The header first, then the payload in the pieces it is made of (one per matrix
    // with data, each in chunks of at most 1 GiB): the receiver learns the pieces from the
    // header, so its receives match the sends one for one, without packing a copy.
    std::vector<MPI_Request> heads;
    for (std::size_t k = 0; k < from.size(); ++k) {
      kept.emplace_back(static_cast<std::size_t>(their_len[k][0] + their_len[k][1]));
      recv_bytes(kept.back().data(), static_cast<std::size_t>(their_len[k][0]), from[k], 702, I.world, heads);
    }
    send_bytes(head.data(), head.size(), to, 702, I.world, reqs);
    MPI_Waitall(static_cast<int>(heads.size()), heads.data(), MPI_STATUSES_IGNORE);
    for (std::size_t k = 0; k < from.size(); ++k) {
      std::size_t used = 0;
      lv::LevelHeader theirs;
      try {
        theirs = lv::decode_header(kept[k].data(), static_cast<std::size_t>(their_len[k][0]), used);
      } catch (const Error& e) {
        throw CheckpointFailed(std::string("checkpoint level partner: the header from rank ") +
                               std::to_string(from[k]) + " is damaged: " + e.what());  // not reached unless memory is corrupt
      }
      std::size_t at = used;
      for (const auto& m : theirs.matrices)
        if (m.bytes > 0) {
          recv_bytes(kept[k].data() + at, static_cast<std::size_t>(m.bytes), from[k], 703, I.world, reqs);
          at += static_cast<std::size_t>(m.bytes);
        }
    }
    for (const auto& [p, n] : payload) send_bytes(p, n, to, 703, I.world, reqs);
  }
  // The local level while the partner copies travel.
  std::vector<std::pair<std::string, std::string>> renames;  // tmp -> final
  std::int64_t written = 0;
  if (why.empty()) {
    const std::string name = dir + "/" + lv::level_file_name(h.program, lv::Level::Local, rank, nprocs, h.iteration);
    std::vector<std::pair<const char*, std::size_t>> all{{head.data(), head.size()}};
    all.insert(all.end(), payload.begin(), payload.end());
    why = write_file(name + ".tmp", all);
    if (why.empty()) {
      renames.emplace_back(name + ".tmp", name);
      written += static_cast<std::int64_t>(head.size() + h.payload_bytes);
    }
  }
  if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  for (std::size_t k = 0; k < kept.size() && why.empty(); ++k) {
    const std::string name =
        dir + "/" + lv::level_file_name(h.program, lv::Level::Partner, from[k], nprocs, h.iteration);
    why = write_file(name + ".tmp", {{kept[k].data(), kept[k].size()}});
    if (why.empty()) {
      renames.emplace_back(name + ".tmp", name);
      written += static_cast<std::int64_t>(kept[k].size());
    }
  }
  kept.clear();
  if (!why.empty()) why = "checkpoint level " + std::string(partner ? "partner" : "local") + " on node " + nd.name +
                          " (rank " + std::to_string(rank) + "): " + why;
  why = agree(I.world, why);
  if (!why.empty()) {
    for (const auto& [tmp, fin] : renames) ::unlink(tmp.c_str());
    throw CheckpointFailed(why + " (the previous versions are intact)");
  }
  for (const auto& [tmp, fin] : renames) std::rename(tmp.c_str(), fin.c_str());
  // Versions kept: this process's own local files and the partner copies it keeps.
  if (st.cadence.keep > 0) {
    std::map<std::pair<int, int>, std::vector<int>> versions;  // (kind, rank) -> iterations
    std::set<int> mine_from(from.begin(), from.end());
    for (const auto& f : list_dir(dir)) {
      lv::LevelName n;
      if (!lv::parse_level_file_name(f, h.program, n)) continue;
      const bool own = n.kind == lv::Level::Local ? n.rank == rank : (partner && mine_from.count(n.rank) > 0);
      if (own && n.nprocs == nprocs) versions[{static_cast<int>(n.kind), n.rank}].push_back(n.iteration);
    }
    for (const auto& [key, its] : versions)
      for (int v : lv::versions_to_remove(its, st.cadence.keep))
        // Freed on a background thread (file_release.hpp): tmpfs gives a version's pages
        // back in the unlink itself otherwise.
        remove_file(dir + "/" + lv::level_file_name(h.program, static_cast<lv::Level>(key.first), key.second, nprocs, v));
  }
  // Bytes per node (own + partner copies) and the time of the slowest process.
  std::int64_t node_bytes = 0, most = 0, total = 0;
  MPI_Allreduce(&written, &node_bytes, 1, MPI_INT64_T, MPI_SUM, nd.node);
  MPI_Allreduce(&node_bytes, &most, 1, MPI_INT64_T, MPI_MAX, I.world);
  MPI_Allreduce(&written, &total, 1, MPI_INT64_T, MPI_SUM, I.world);
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, I.world);
  if (I.root()) I.level_records.push_back({I.iteration, partner, slowest, most, total});
  char line[160];
  std::snprintf(line, sizeof line, " (%.1f ms, %.1f MB on the busiest node, %.1f MB in all)", slowest * 1e3,
                static_cast<double>(most) / 1e6, static_cast<double>(total) / 1e6);
  I.progress("[" + I.opt.app + "] checkpoint level " + (partner ? "local+partner" : "local") + " after iteration " +
             std::to_string(I.iteration) + " in " + st.dir + line);
  return slowest;
}

std::string Session::level_checkpoint_if_due(bool last) {
  auto& I = *impl_;
  if (!I.levels) throw Error("level_checkpoint_if_due: no level cadence (call set_level_checkpointing first)");
  auto& st = *I.levels;
  int now[2] = {0, 0};  // local, partner
  if (I.root()) {
    const double t = MPI_Wtime();
    now[1] = st.partner_every.kind != checkpoint::Every::Kind::Never &&
             checkpoint::due(st.partner_every, I.iteration, t - st.partner_last, st.partner_cost, last);
    now[0] = !now[1] && st.local_every.kind != checkpoint::Every::Kind::Never &&
             checkpoint::due(st.local_every, I.iteration, t - st.local_last, st.local_cost, last);
  }
  MPI_Bcast(now, 2, MPI_INT, 0, I.world);
  if (!now[0] && !now[1]) return {};
  if (now[1]) {
    if (!st.nodes || st.world != I.world) {
      st.nodes = discover(I.world);
      st.world = I.world;
    }
    if (st.nodes->count < 2) {  // e.g. after the other nodes were lost: the local level only
      now[1] = 0;
      now[0] = 1;
      if (!st.warned_one_node && I.root()) {
        std::printf("[%s] checkpoint level partner: the job runs on one node (%s): writing the local level only\n",
                    I.opt.app.c_str(), st.nodes->name.c_str());
        std::fflush(stdout);
      }
      st.warned_one_node = true;
    }
  }
  const double cost = checkpoint_levels(now[1] != 0);
  const double t = MPI_Wtime();
  st.local_last = t;
  if (now[1]) {
    st.partner_last = t;
    st.partner_cost = cost;
  } else {
    st.local_cost = cost;
  }
  return now[1] ? "partner" : "local";
}

const std::vector<LevelRecord>& Session::level_records() const { return impl_->level_records; }

// ---- recovery ---------------------------------------------------------------------

int Session::restart_from_levels(const std::string& dir_in, const Grid& g, const std::string& global_dir) {
  auto& I = *impl_;
  MPI_Barrier(I.world);
  const double t0 = MPI_Wtime();
  const std::string app = I.opt.app;
  const std::string dir = dir_in.empty() ? default_dir(app) : dir_in;
  const std::unique_ptr<Nodes> nd = discover(I.world);
  const int rank = I.rank(), size = I.size();
  const std::string here = dir + "/" + nd->name;
  // What this node holds, by name; each file is read by one process of the node
  // (round robin over the sorted names).
  struct File {
    lv::LevelName n;
    std::string path;
  };
  std::vector<File> mine;
  {
    int k = 0;
    for (const auto& f : list_dir(here)) {
      lv::LevelName n;
      if (!lv::parse_level_file_name(f, app, n)) continue;
      if (k++ % nd->local_size == nd->local) mine.push_back({n, here + "/" + f});
    }
  }
  // Global checkpoints (their iterations) in global_dir, seen by world rank 0.
  std::vector<int> global_versions;
  if (I.root() && !global_dir.empty())
    for (const auto& f : list_dir(global_dir))
      if (f.rfind(app + "-", 0) == 0 && f.size() == app.size() + 1 + 6 + 3 && f.compare(f.size() - 3, 3, ".h5") == 0)
        global_versions.push_back(checkpoint::iteration_of(f));
  // Loaded (read and verified) files of the chosen version, by old rank.
  struct Loaded {
    lv::LevelHeader h;
    std::vector<char> bytes;
    std::size_t payload = 0;  // offset of the payload in bytes
  };
  std::map<int, Loaded> loaded;
  std::set<std::size_t> bad_files;  // indices into `mine` found damaged
  lv::RecoveryChoice choice;
  std::vector<int> holder;  // per old rank: the new rank that reads its file (-1: none)
  int old_nprocs = 0;
  std::vector<std::string> damaged;  // messages (world rank 0)
  for (int round = 0;; ++round) {
    // Every process's usable files -> world rank 0: (kind, rank, nprocs, version).
    std::vector<int> rows;
    for (std::size_t k = 0; k < mine.size(); ++k)
      if (!bad_files.count(k))
        rows.insert(rows.end(), {static_cast<int>(mine[k].n.kind), mine[k].n.rank, mine[k].n.nprocs, mine[k].n.iteration});
    int count = static_cast<int>(rows.size());
    std::vector<int> counts(I.root() ? static_cast<std::size_t>(size) : 0), displs;
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, I.world);
    std::vector<int> all;
    if (I.root()) {
      displs.resize(static_cast<std::size_t>(size));
      int at = 0;
      for (int r = 0; r < size; ++r) {
        displs[static_cast<std::size_t>(r)] = at;
        at += counts[static_cast<std::size_t>(r)];
      }
      all.resize(static_cast<std::size_t>(at));
    }
    MPI_Gatherv(rows.data(), count, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, 0, I.world);
    // World rank 0 decides: the old job's size is the newest version's; the newest version
    // complete across levels; per old rank the new rank holding the chosen copy.
    std::vector<int> decision;  // version, old_nprocs, then per old rank: source, holder
    if (I.root()) {
      int newest = -1;
      for (std::size_t k = 0; k + 3 < all.size(); k += 4)
        if (all[k + 3] > newest) {
          newest = all[k + 3];
          old_nprocs = all[k + 2];
        }
      if (newest < 0) old_nprocs = 0;
      std::vector<lv::Survived> surv(static_cast<std::size_t>(old_nprocs));
      std::map<std::tuple<int, int, int>, int> where;  // (rank, kind, version) -> new rank
      for (int r = 0; r < size; ++r)
        for (int k = displs[static_cast<std::size_t>(r)]; k < displs[static_cast<std::size_t>(r)] + counts[static_cast<std::size_t>(r)]; k += 4) {
          const int kind = all[static_cast<std::size_t>(k)], orank = all[static_cast<std::size_t>(k + 1)],
                    np = all[static_cast<std::size_t>(k + 2)], v = all[static_cast<std::size_t>(k + 3)];
          if (np != old_nprocs) continue;
          auto& s = surv[static_cast<std::size_t>(orank)];
          (kind == static_cast<int>(lv::Level::Local) ? s.local : s.partner).push_back(v);
          where.emplace(std::make_tuple(orank, kind, v), r);
        }
      choice = lv::choose_version(surv, old_nprocs > 0 ? global_versions : std::vector<int>{});
      decision = {choice.version, old_nprocs};
      for (int r = 0; r < old_nprocs; ++r) {
        const lv::Source s = choice.source[static_cast<std::size_t>(r)];
        int h = -1;
        if (s == lv::Source::Local || s == lv::Source::Partner) {
          const int kind = static_cast<int>(s == lv::Source::Local ? lv::Level::Local : lv::Level::Partner);
          h = where.at({r, kind, choice.version});
        }
        decision.push_back(static_cast<int>(s));
        decision.push_back(h);
      }
    }
    int dlen = static_cast<int>(decision.size());
    MPI_Bcast(&dlen, 1, MPI_INT, 0, I.world);
    decision.resize(static_cast<std::size_t>(dlen));
    MPI_Bcast(decision.data(), dlen, MPI_INT, 0, I.world);
    choice.version = decision[0];
    old_nprocs = decision[1];
    choice.source.resize(static_cast<std::size_t>(old_nprocs));
    holder.assign(static_cast<std::size_t>(old_nprocs), -1);
    choice.from_local = choice.from_partner = choice.from_global = 0;
    for (int r = 0; r < old_nprocs; ++r) {
      const auto s = static_cast<lv::Source>(decision[static_cast<std::size_t>(2 + 2 * r)]);
      choice.source[static_cast<std::size_t>(r)] = s;
      holder[static_cast<std::size_t>(r)] = decision[static_cast<std::size_t>(3 + 2 * r)];
      (s == lv::Source::Local ? choice.from_local : s == lv::Source::Partner ? choice.from_partner : choice.from_global)++;
    }
    if (choice.version < 0 || choice.from_global > 0) break;
    // Read and verify the chosen files this process holds.
    loaded.clear();
    std::string why;
    std::vector<std::size_t> failed;
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const auto& f = mine[k];
      if (f.n.iteration != choice.version || f.n.nprocs != old_nprocs) continue;
      const auto s = choice.source[static_cast<std::size_t>(f.n.rank)];
      const bool wanted = holder[static_cast<std::size_t>(f.n.rank)] == rank &&
                          ((s == lv::Source::Local && f.n.kind == lv::Level::Local) ||
                           (s == lv::Source::Partner && f.n.kind == lv::Level::Partner));
      if (!wanted) continue;
      Loaded L;
      std::string err;
      try {
        const int fd = ::open(f.path.c_str(), O_RDONLY);
        if (fd < 0) throw Error(std::string("cannot open: ") + std::strerror(errno));
        struct stat sb {};
        fstat(fd, &sb);
        L.bytes.resize(static_cast<std::size_t>(sb.st_size));
        std::size_t got = 0;
        while (got < L.bytes.size()) {
          const ssize_t n = ::read(fd, L.bytes.data() + got, L.bytes.size() - got);
          if (n <= 0) break;
          got += static_cast<std::size_t>(n);
        }
        ::close(fd);
        if (got != L.bytes.size()) throw Error("short read");
        L.h = lv::decode_header(L.bytes.data(), L.bytes.size(), L.payload);
        if (L.bytes.size() - L.payload != L.h.payload_bytes) throw Error("the payload is truncated");
        lv::PayloadChecksum c;
        c.update(L.bytes.data() + L.payload, L.h.payload_bytes);
        if (c.value() != L.h.payload_checksum) throw Error("checksum mismatch: the data is damaged");
        if (L.h.rank != f.n.rank || L.h.iteration != f.n.iteration || L.h.nprocs != f.n.nprocs || L.h.program != app)
          throw Error("its header does not match its name");
      } catch (const Error& e) {
        err = e.what();
      }
      if (!err.empty()) {
        failed.push_back(k);
        why += (why.empty() ? "" : "; ") + f.path + ": " + err;
        continue;
      }
      loaded.emplace(f.n.rank, std::move(L));
    }
    // Damaged copies are dropped and the choice made again (another level or version).
    int nfailed = static_cast<int>(failed.size()), any = 0;
    MPI_Allreduce(&nfailed, &any, 1, MPI_INT, MPI_SUM, I.world);
    if (!any) break;
    for (auto k : failed) bad_files.insert(k);
    const std::string said = agree(I.world, why);
    if (I.root()) {
      std::printf("[%s] restart from levels: %s; choosing again without %d damaged cop%s\n", app.c_str(), said.c_str(),
                  any, any == 1 ? "y" : "ies");
      std::fflush(stdout);
    }
    if (round > 64) throw Error("restart from levels in " + dir + ": too many damaged copies");
  }
  if (choice.version < 0)
    throw Error("restart from levels in " + dir + ": no version is complete across the levels on these nodes" +
                (global_dir.empty() ? std::string(" and no global checkpoint directory was given")
                                    : " or in the global checkpoints of " + global_dir));
  if (choice.from_global > 0) {
    std::string lost;
    int shown = 0;
    for (int r = 0; r < old_nprocs; ++r)
      if (choice.source[static_cast<std::size_t>(r)] == lv::Source::Global && shown++ < 8)
        lost += (lost.empty() ? "" : ",") + std::to_string(r);
    if (choice.from_global > 8) lost += ",...";
    const std::string file = checkpoint::file_name(global_dir, app, choice.version);
    I.progress("[" + app + "] restart from levels: the blocks of " + std::to_string(choice.from_global) + " of " +
               std::to_string(old_nprocs) + " old processes (ranks " + lost + ") are in no level; reading iteration " +
               std::to_string(choice.version) + " from the global checkpoint " + file);
    return restart(file, g);
  }
  // Validate every loaded file against the registrations (the same verdict everywhere).
  std::string why;
  for (const auto& [r, L] : loaded) {
    if (L.h.matrices.size() != I.mats.size()) {
      why = "old rank " + std::to_string(r) + "'s copy holds " + std::to_string(L.h.matrices.size()) +
            " matrices, this program registered " + std::to_string(I.mats.size());
      break;
    }
    for (std::size_t k = 0; k < I.mats.size() && why.empty(); ++k) {
      const auto& m = L.h.matrices[k];
      const auto& reg = I.mats[k];
      if (m.name != reg.name || m.type != scalar_letter(reg.type) || m.m != reg.m || m.n != reg.n)
        why = "matrix " + std::to_string(k) + " is '" + m.name + "' (" + m.type + ", " + std::to_string(m.m) + " x " +
              std::to_string(m.n) + ") in the copy, this program registered '" + reg.name + "' (" +
              scalar_letter(reg.type) + ", " + std::to_string(reg.m) + " x " + std::to_string(reg.n) + ")";
    }
  }
  why = agree(I.world, why);
  if (!why.empty()) throw Error("restart from levels in " + dir + ": " + why);
  start(g);
  // The application state, from the holder of old rank 0's copy.
  {
    const int from = holder[0];
    std::vector<char> state;
    long long len = 0;
    if (rank == from) {
      state = loaded.at(0).h.state;
      len = static_cast<long long>(state.size());
    }
    MPI_Bcast(&len, 1, MPI_LONG_LONG, from, I.world);
    state.resize(static_cast<std::size_t>(len));
    if (len > 0) MPI_Bcast(state.data(), static_cast<int>(len), MPI_CHAR, from, I.world);
    if (I.unpack) I.unpack(state);
  }
  // Every matrix from the old layout (each old process's blocks now on its holder) onto
  // the new grid: the holders cut their blocks along the new layout's blocks and send each
  // piece with its place (new local row, column, extent) to its new owner.
  std::int64_t moved = 0;
  for (std::size_t k = 0; k < I.mats.size(); ++k) {
    const CheckpointMatrix nw = describe(I.mats[k], I.grid, rank);
    const redist::Axis nrow = nw.layout.row_axis(), ncol = nw.layout.col_axis();
    const std::size_t es = lv::element_size(nw.info.type);
    // Bytes to each new rank, then the pieces (32-byte place + data) in one buffer per rank.
    std::map<int, std::vector<char>> out;
    for (const auto& [r, L] : loaded) {
      const auto& m = L.h.matrices[k];
      if (m.pr < 0 || m.rows == 0 || m.cols == 0) continue;
      const redist::Axis orow(blocks(m.m, m.mb, m.row_blocks), m.nprow, m.rsrc);
      const redist::Axis ocol(blocks(m.n, m.nb, m.col_blocks), m.npcol, m.csrc);
      const auto rs = lv::cut(orow, m.pr, nrow), cs = lv::cut(ocol, m.pc, ncol);
      const char* src = L.bytes.data() + L.payload + m.offset;
      for (const auto& c : cs)
        for (const auto& rr : rs) {
          const int to = nw.layout.rank_at(rr.owner, c.owner);
          auto& buf = out[to];
          const std::int64_t place[4] = {rr.new_local, c.new_local, rr.len, c.len};
          const std::size_t at = buf.size();
          buf.resize(at + sizeof place + static_cast<std::size_t>(rr.len * c.len) * es);
          std::memcpy(buf.data() + at, place, sizeof place);
          char* dst = buf.data() + at + sizeof place;
          for (std::int64_t j = 0; j < c.len; ++j)
            std::memcpy(dst + static_cast<std::size_t>(j * rr.len) * es,
                        src + static_cast<std::size_t>((c.old_local + j) * m.rows + rr.old_local) * es,
                        static_cast<std::size_t>(rr.len) * es);
        }
    }
    std::vector<long long> send_counts(static_cast<std::size_t>(size), 0), recv_counts(static_cast<std::size_t>(size));
    for (const auto& [to, buf] : out) send_counts[static_cast<std::size_t>(to)] = static_cast<long long>(buf.size());
    MPI_Alltoall(send_counts.data(), 1, MPI_LONG_LONG, recv_counts.data(), 1, MPI_LONG_LONG, I.world);
    std::vector<MPI_Request> reqs;
    std::map<int, std::vector<char>> in;
    for (int r = 0; r < size; ++r)
      if (recv_counts[static_cast<std::size_t>(r)] > 0) {
        auto& b = in[r];
        b.resize(static_cast<std::size_t>(recv_counts[static_cast<std::size_t>(r)]));
        recv_bytes(b.data(), b.size(), r, 704, I.world, reqs);
      }
    for (const auto& [to, buf] : out) {
      send_bytes(buf.data(), buf.size(), to, 704, I.world, reqs);
      if (to != rank) moved += static_cast<std::int64_t>(buf.size());
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    char* dst = static_cast<char*>(nw.local);
    for (const auto& [from, buf] : in)
      for (std::size_t at = 0; at < buf.size();) {
        std::int64_t place[4];
        std::memcpy(place, buf.data() + at, sizeof place);
        at += sizeof place;
        for (std::int64_t j = 0; j < place[3]; ++j)
          std::memcpy(dst + static_cast<std::size_t>((place[1] + j) * nw.lld + place[0]) * es,
                      buf.data() + at + static_cast<std::size_t>(j * place[2]) * es,
                      static_cast<std::size_t>(place[2]) * es);
        at += static_cast<std::size_t>(place[2] * place[3]) * es;
      }
  }
  I.iteration = choice.version;
  std::int64_t moved_all = 0;
  MPI_Allreduce(&moved, &moved_all, 1, MPI_INT64_T, MPI_SUM, I.world);
  double dt = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, I.world);
  char line[256];
  std::snprintf(line, sizeof line,
                " at iteration %d: %d old processes from local copies, %d from partner copies, 0 bytes from the "
                "global checkpoint; %d -> %d processes, now on %s, %.1f MB moved between processes (%.1f ms)",
                choice.version, choice.from_local, choice.from_partner, old_nprocs, size, g.shape().c_str(),
                static_cast<double>(moved_all) / 1e6, slowest * 1e3);
  I.progress("[" + app + "] restart from levels in " + dir + line);
  return I.iteration;
}

}  // namespace resize
