// SPDX-License-Identifier: BSD-3-Clause
// Internal to the checkpoint levels' MPI and file shell: the pieces the write of
// the levels (levels/write.cpp) and the recovery (levels/recover.cpp) share —
// which node a process is on and which processes of the partner node keep its copies,
// the lowest failing rank's message on every process, byte messages in 1 GiB pieces, whole
// files written or listed — and the level state a Session keeps. The pure decisions are
// levels.hpp's.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/file/io.hpp"
#include "checkpoint/levels/levels.hpp"
#include "checkpoint/levels/mapped_files.hpp"
#include "checkpoint/file/format.hpp"
#include "malleable/resize/session_options.hpp"

namespace resize {

struct Registered;

namespace detail {

// The nodes of the current world and the partner ring over them.
struct Nodes {
  MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
  MPI_Comm traffic = MPI_COMM_NULL;  // a dup of the world for the level copies' messages (common/tags.hpp)
  int local = 0, local_size = 1, index = 0, count = 1;
  std::string name;
  int partner = 0, source = 0;  // node indices: my node's copies go to `partner`, I keep `source`'s
  std::vector<int> partner_ranks, source_ranks;  // world ranks of those nodes' processes, by local index
  Nodes() = default;
  Nodes(const Nodes&) = delete;
  Nodes& operator=(const Nodes&) = delete;
  ~Nodes();
};

// What a Session keeps for its levels (SessionCheckpoints::levels).
struct LevelState {
  LevelCadence cadence;
  std::string dir;  // resolved
  checkpoint::Every local_every, partner_every;
  double local_last = 0, partner_last = 0;
  double local_cost = -1, partner_cost = -1;
  std::unique_ptr<Nodes> nodes;
  MPI_Comm world = MPI_COMM_NULL;  // the world `nodes` describes
  bool warned_one_node = false;
  MappedFiles mapped;  // this process's level files kept mapped (the world's, `keep`'s)
};

namespace level_io {

// Which node each process is on: MALLEABLE_NODE_MAP (node names per rank, or every=K, for
// tests that emulate nodes on one machine), else every process's host name, gathered (not
// MPI's shared-memory split, which fails on a world made of several jobs); the partner
// ring over the nodes (MALLEABLE_SWITCH_MAP: the switch of each node).
// Collective; throws the same Error on every process for a bad map. The maps are `cfg`'s
// (the session's configuration, read at its start).
std::unique_ptr<Nodes> discover(MPI_Comm world, const config::Checkpoint& cfg);

// The levels' directory when none is given: /dev/shm/malleable-<job id or program>, the
// job id `cfg`'s (MALLEABLE_JOB_ID, else SLURM_JOB_ID).
std::string default_dir(const std::string& app, const config::Checkpoint& cfg);

// The lowest failing rank's message on every process ("" when none failed). Collective.
std::string agree(MPI_Comm comm, const std::string& why);

// Non-blocking byte messages in pieces of at most 1 GiB (MPI counts are int); the
// requests are appended to `reqs`.
// `chunk`: the largest piece (both sides must use the same).
inline constexpr std::size_t kMessageChunk = std::size_t{1} << 30;
void send_bytes(const char* p, std::size_t n, int to, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs,
                std::size_t chunk = kMessageChunk);
void recv_bytes(char* p, std::size_t n, int from, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs,
                std::size_t chunk = kMessageChunk);
void wait_all(std::vector<MPI_Request>& reqs);

// A level file at `path`: the payload `pieces` from byte `head_len` on, then the header
// `make_head()` (exactly `head_len` bytes) at the start. With `sum`, the payload is summed
// on the way, a cache-sized chunk at a time (summed while in cache, then written: one
// pass over the data), and make_head can use the sum. `recycle` (or ""): an older file
// renamed to `path` first and overwritten in place, so tmpfs reuses its pages instead of
// handing out fresh zeroed ones. "" or the reason (errno's text), the file removed on
// failure. `ready(i)`, if given, is called before piece i is written (e.g. to wait for it
// to arrive); `tick()` after each chunk written (e.g. to let MPI progress the messages
// in flight: Open MPI's TCP transport moves data only inside MPI calls). With `mapped`
// (and a mapping to be had, MappedFiles::open), the file is written by copying into its
// mapping (summed in the same pass, PayloadChecksum::copy), the header last; it stays
// mapped under `path` (the caller tells `mapped` of the rename or removal that follows).
std::string write_level_file(const std::string& path, const std::string& recycle, std::size_t head_len,
                             const std::vector<std::pair<const char*, std::size_t>>& pieces,
                             resize::levels::PayloadChecksum* sum, const std::function<std::vector<char>()>& make_head,
                             const std::function<void(std::size_t)>& ready = nullptr,
                             const std::function<void()>& tick = nullptr, MappedFiles* mapped = nullptr);

// The names in `dir`, sorted (none if it cannot be read).
std::vector<std::string> list_dir(const std::string& dir);

// `len` bytes broadcast from `root` (the others' vector is resized to them). Collective.

}  // namespace level_io
}  // namespace detail
}  // namespace resize
