// SPDX-License-Identifier: BSD-3-Clause
// The checkpoint levels' shared MPI and file shell (levels/node_io.hpp): node
// discovery and the partner ring's ranks, agreement on an error, byte messages, whole files.
#include "checkpoint/levels/node_io.hpp"
#include "common/config.hpp"

#include "common/broadcast.hpp"
#include "common/tags.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "malleable/resize/types.hpp"

namespace resize::detail {

namespace lv = resize::levels;

// A session may outlive MPI_Finalize (declared in main's scope): freeing then is an error
// that ends the process, and MPI has released the communicators anyway.
Nodes::~Nodes() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return;
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
  if (traffic != MPI_COMM_NULL) MPI_Comm_free(&traffic);
}

namespace level_io {

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

// The node communicator and name of this process (MALLEABLE_NODE_MAP or the machine's).
void split_nodes(MPI_Comm world, Nodes& n, const config::Text& node_map) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const std::string map = node_map.value_or("");
  std::vector<std::string> names;
  if (map.empty()) {
    // By host name, not MPI_Comm_split_type(SHARED): on a world made of several jobs (after
    // an expansion by spawn) Open MPI's locality data differs between processes of
    // different jobs, the processes compute different splits and the split fails
    // (MPI_ERR_TRUNCATE) or hangs. Every process's name, gathered, gives the
    // same split everywhere.
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, world);
    for (int r = 0; r < size; ++r) {
      const char* h = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
      names.emplace_back(h, strnlen(h, MPI_MAX_PROCESSOR_NAME));
    }
  } else if (map.rfind("every=", 0) == 0) {
    for (int v : lv::parse_node_map(map, size)) names.push_back("node" + std::to_string(v + 1));
  } else {
    names = split_commas(map);
    if (static_cast<int>(names.size()) != size)
      throw Error("MALLEABLE_NODE_MAP names " + std::to_string(names.size()) + " ranks, the job has " +
                  std::to_string(size));
  }
  n.name = names[static_cast<std::size_t>(rank)];
  const int color = static_cast<int>(std::find(names.begin(), names.end(), n.name) - names.begin());
  MPI_Comm_split(world, color, rank, &n.node);
}

// The ring (levels.hpp), with MALLEABLE_SWITCH_MAP (switch of each node index) if given.
void place_in_ring(Nodes& n, const config::Text& switch_map) {
  std::vector<int> switches;
  if (const std::string sw = switch_map.value_or(""); !sw.empty())
    for (const auto& s : split_commas(sw)) switches.push_back(std::atoi(s.c_str()));
  const std::vector<int> partner = lv::partner_nodes(n.count, switches);
  n.partner = partner[static_cast<std::size_t>(n.index)];
  n.source = static_cast<int>(std::find(partner.begin(), partner.end(), n.index) - partner.begin());
}

// World ranks of my node's processes; the leaders swap them along the ring so that every
// process knows the ranks of its partner node and of its source node.
void swap_ranks_along_ring(MPI_Comm world, Nodes& n) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  std::vector<int> mine(static_cast<std::size_t>(n.local_size));
  MPI_Gather(&rank, 1, MPI_INT, mine.data(), 1, MPI_INT, 0, n.node);
  int sizes[2] = {0, 0};  // partner's, source's
  if (n.leaders != MPI_COMM_NULL) {
    // Node `source` needs my list (I am its partner); I need `partner`'s.
    MPI_Sendrecv(&n.local_size, 1, MPI_INT, n.source, tags::kLeadersSizeToSource, &sizes[0], 1, MPI_INT, n.partner,
                 tags::kLeadersSizeToSource, n.leaders, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&n.local_size, 1, MPI_INT, n.partner, tags::kLeadersSizeToPartner, &sizes[1], 1, MPI_INT, n.source,
                 tags::kLeadersSizeToPartner, n.leaders, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(sizes, 2, MPI_INT, 0, n.node);
  n.partner_ranks.resize(static_cast<std::size_t>(sizes[0]));
  n.source_ranks.resize(static_cast<std::size_t>(sizes[1]));
  if (n.leaders != MPI_COMM_NULL) {
    MPI_Sendrecv(mine.data(), n.local_size, MPI_INT, n.source, tags::kLeadersRanksToSource, n.partner_ranks.data(),
                 sizes[0], MPI_INT, n.partner, tags::kLeadersRanksToSource, n.leaders, MPI_STATUS_IGNORE);
    MPI_Sendrecv(mine.data(), n.local_size, MPI_INT, n.partner, tags::kLeadersRanksToPartner, n.source_ranks.data(),
                 sizes[1], MPI_INT, n.source, tags::kLeadersRanksToPartner, n.leaders, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(n.partner_ranks.data(), sizes[0], MPI_INT, 0, n.node);
  MPI_Bcast(n.source_ranks.data(), sizes[1], MPI_INT, 0, n.node);
}

}  // namespace

std::unique_ptr<Nodes> discover(MPI_Comm world, const config::Checkpoint& cfg) {
  auto n = std::make_unique<Nodes>();
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  split_nodes(world, *n, cfg.node_map);
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
  place_in_ring(*n, cfg.switch_map);
  swap_ranks_along_ring(world, *n);
  MPI_Comm_dup(world, &n->traffic);  // the level copies' messages: never on the application's world
  return n;
}

std::string default_dir(const std::string& app, const config::Checkpoint& cfg) {
  std::string job = cfg.job_id.value_or("");
  if (job.empty()) job = app;
  return "/dev/shm/malleable-" + job;
}

std::string agree(MPI_Comm comm, const std::string& why) {
  const auto failure = lowest_failure(comm, why);
  return failure ? failure->text : std::string();
}

void send_bytes(const char* p, std::size_t n, int to, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs,
                std::size_t chunk) {
  chunk = std::min(chunk, kMessageChunk);
  for (std::size_t at = 0; at < n; at += chunk) {
    reqs.emplace_back();
    MPI_Isend(p + at, static_cast<int>(std::min(chunk, n - at)), MPI_BYTE, to, tag, comm, &reqs.back());
  }
}

void recv_bytes(char* p, std::size_t n, int from, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs,
                std::size_t chunk) {
  chunk = std::min(chunk, kMessageChunk);
  for (std::size_t at = 0; at < n; at += chunk) {
    reqs.emplace_back();
    MPI_Irecv(p + at, static_cast<int>(std::min(chunk, n - at)), MPI_BYTE, from, tag, comm, &reqs.back());
  }
}

void wait_all(std::vector<MPI_Request>& reqs) {
  if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  reqs.clear();
}

namespace {

constexpr std::size_t kSumChunk = std::size_t{256} << 10;  // summed then written while in L2

// All of [p, p + n) at `off`; false with errno set.
bool pwrite_all(int fd, const char* p, std::size_t n, off_t off) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
    off += w;
  }
  return true;
}

// What write_level_file writes: the header (head_len bytes, made by make_head once the
// pieces are written) and the pieces after it; sum, ready and tick as it says.
struct LevelWrite {
  const std::string& path;
  std::size_t head_len;
  const std::vector<std::pair<const char*, std::size_t>>& pieces;
  lv::PayloadChecksum* sum;
  const std::function<std::vector<char>()>& make_head;
  const std::function<void(std::size_t)>& ready;
  const std::function<void()>& tick;
};

// Into the file's mapping `file`: the pieces copied (and summed in the same pass) chunk
// by chunk, then the header.
std::string write_mapped(const LevelWrite& lw, char* file, MappedFiles& mapped) {
  std::size_t off = lw.head_len;
  for (std::size_t i = 0; i < lw.pieces.size(); ++i) {
    if (lw.ready) lw.ready(i);
    const auto& [p, n] = lw.pieces[i];
    for (std::size_t at = 0; at < n; at += kSumChunk) {
      const std::size_t len = std::min(kSumChunk, n - at);
      if (lw.sum) lw.sum->copy(file + off, p + at, len);
      else std::memcpy(file + off, p + at, len);
      off += len;
      if (lw.tick) lw.tick();
    }
  }
  const std::vector<char> head = lw.make_head ? lw.make_head() : std::vector<char>{};
  if (head.size() != lw.head_len) {  // not reached: the header's length is fixed by its fields
    mapped.forget(lw.path);
    ::unlink(lw.path.c_str());
    return "cannot write " + lw.path + ": the header changed length";
  }
  std::memcpy(file, head.data(), head.size());
  return {};
}

// With write(): the pieces (summed chunk by chunk) after the header's room, then the
// header; `recycle` renamed to the path and overwritten in place when there is one.
std::string write_with_pwrite(const LevelWrite& lw, const std::string& recycle) {
  const std::string& path = lw.path;
  const bool reused = !recycle.empty() && std::rename(recycle.c_str(), path.c_str()) == 0;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | (reused ? 0 : O_TRUNC), 0600);
  if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
  auto fail = [&](int err) {
    const std::string why = "cannot write " + path + ": " + std::strerror(err);
    ::close(fd);
    ::unlink(path.c_str());
    return why;
  };
  off_t off = static_cast<off_t>(lw.head_len);
  for (std::size_t i = 0; i < lw.pieces.size(); ++i) {
    if (lw.ready) lw.ready(i);
    const auto& [p, n] = lw.pieces[i];
    for (std::size_t at = 0; at < n; at += kSumChunk) {
      const std::size_t len = std::min(kSumChunk, n - at);
      if (lw.sum) lw.sum->update(p + at, len);
      if (!pwrite_all(fd, p + at, len, off)) return fail(errno);
      off += static_cast<off_t>(len);
      if (lw.tick) lw.tick();
    }
  }
  const std::vector<char> head = lw.make_head ? lw.make_head() : std::vector<char>{};
  if (head.size() != lw.head_len) return fail(EINVAL);  // not reached: the header's length is fixed by its fields
  if (!pwrite_all(fd, head.data(), head.size(), 0)) return fail(errno);
  if (reused && ::ftruncate(fd, off) != 0) return fail(errno);  // a longer old file's tail
  if (::close(fd) != 0) {
    const std::string why = "cannot write " + path + ": " + std::strerror(errno);
    ::unlink(path.c_str());
    return why;
  }
  return {};
}

}  // namespace

std::string write_level_file(const std::string& path, const std::string& recycle, std::size_t head_len,
                             const std::vector<std::pair<const char*, std::size_t>>& pieces,
                             lv::PayloadChecksum* sum, const std::function<std::vector<char>()>& make_head,
                             const std::function<void(std::size_t)>& ready, const std::function<void()>& tick,
                             MappedFiles* mapped) {
  const LevelWrite lw{path, head_len, pieces, sum, make_head, ready, tick};
  if (mapped) {
    std::size_t length = head_len;
    for (const auto& pc : pieces) length += pc.second;
    std::string why;
    char* file = mapped->open(path, recycle, length, why);
    if (!why.empty()) return why;
    if (file) return write_mapped(lw, file, *mapped);
    // No mapping to be had: write() below (`recycle`, if it was renamed, is `path` now).
  }
  return write_with_pwrite(lw, recycle);
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

}  // namespace level_io
}  // namespace resize::detail
