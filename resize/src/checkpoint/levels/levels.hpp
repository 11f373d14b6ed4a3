// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels in the nodes' own storage, the pure core: which node keeps
// a copy of which node's checkpoint (partners), when each level is due, which versions are
// kept, where each process's data comes from at recovery, and the file one process writes
// per level and version, the checksum, the bookkeeping of the mapped level files. No MPI,
// no file system; the shell is levels/write.cpp, recover.cpp and node_io.cpp.
//
// Levels: *local* (each process's blocks, the application state and the layout in a
// directory on its own node), *partner* (the same bytes kept by a process on the partner
// node), *global* (the parallel HDF5 file, checkpoint.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/file/format.hpp"
#include "malleable/redist/layout.hpp"

namespace resize::levels {

// ---- partners ---------------------------------------------------------------------

// The partner of every node: a ring over the nodes. Nodes are ordered by (switch, node
// index) and node k of that order sends its copies to node (k + s) mod n of the order, with
// s = the largest number of nodes on one switch when that is at most half the nodes (then
// every partner is on another switch: a switch's nodes are consecutive in the order and
// s steps leave the group without wrapping back into it), else s = 1 (another node, the
// next one). `switch_of_node` empty: one switch, partner(k) = k + 1 mod n.
// Returns partner[node]; a single node is its own partner (no partner level possible).
// O(nodes log nodes): the ring is over nodes, not processes.
std::vector<int> partner_nodes(int nodes, const std::vector<int>& switch_of_node = {});

// Process `local` (0-based index on its node) of a node sends its copy to process
// local mod partner_size of the partner node, so every process of the partner receives
// from the processes j of the source node with j mod my_size == my_local.
inline int partner_local(int local, int partner_size) { return partner_size > 0 ? local % partner_size : -1; }
// The local indices of the source node's processes whose copies process `my_local` (of a
// node with `my_size` processes) keeps; source_size = the source node's process count.
std::vector<int> kept_from(int my_local, int my_size, int source_size);

// A node map from "r0,r1,...": node index of each rank (tests and the emulation of nodes
// on one machine, MALLEABLE_NODE_MAP), or from "every=K": K consecutive ranks per node.
// Throws resize::Error naming the text.
std::vector<int> parse_node_map(const std::string& text, int nprocs);

// ---- when -------------------------------------------------------------------------

enum class Level { Local = 0, Partner = 1, Global = 2 };
const char* level_name(Level l);

// Young/Daly per level: a level's checkpoint is needed by the failures no cheaper level
// recovers from (local: a process that dies on a node that stays; partner: one node
// lost; global: more than the partners cover), so its interval is sqrt(2 C_l / rate_l)
// with C_l its measured cost. rate_l <= 0: the level is never needed (infinite interval).
double level_interval(double cost_seconds, double failures_per_second);

// ---- versions kept ----------------------------------------------------------------

// Versions (iterations) to delete so that the newest `keep` remain (keep <= 0: none).
std::vector<int> versions_to_remove(std::vector<int> versions, int keep);

// The files of one node's level directory (`names`: its entries) that retention removes
// once version `iteration` of the job with `nprocs` processes was written there, for
// `program`. keep = N means at most N versions per level (local, partner) on the node,
// whatever the world sizes the job passed through: a version is a (world size,
// iteration) with at least one complete file; the version just written and the newest
// N-1 others (by iteration; at one iteration the current size's first) stay, every file
// of the other versions goes. Each process removes its own files of the current size
// from this list, one process per node the rest (levels/write.cpp). A temporary file (an
// interrupted write: "<level file name>.tmp") never counts as a version and goes unless
// it is the current version's (another process of the node may be renaming it now).
// keep <= 0 keeps every version (temporary files still go). Other programs' files and
// foreign names are never named.
std::vector<std::string> level_files_to_remove(const std::vector<std::string>& names, const std::string& program,
                                               int keep, int nprocs, int iteration);

// ---- recovery: where each old process's data comes from ----------------------------

enum class Source { Local, Partner, Global, Missing };
const char* source_name(Source s);

// What survived of one process of the old job (index = its old world rank): the versions
// whose local copy is readable (its node survived, checksum good) and whose partner copy
// is readable (the partner node survived, checksum good).
struct Survived {
  std::vector<int> local, partner;
};

struct RecoveryChoice {
  int version = -1;                 // -1: no version is complete, even with the global file
  std::vector<Source> source;       // per old rank
  int from_global = 0, from_partner = 0, from_local = 0;
};

// The newest version complete across levels: every old rank's data exists at that version
// in its local copy (preferred), its partner copy, or a global checkpoint of that version
// (`global_versions`, the iterations of readable HDF5 files). O(ranks x versions).
RecoveryChoice choose_version(const std::vector<Survived>& ranks, const std::vector<int>& global_versions);

// Who reads the chosen copy of each old rank (levels/readers.cpp): new rank r itself when
// it is on the node that holds the copy (a recovery onto the same processes then reads its
// own copies and moves as a plain `redistribute` would, local pieces copied in place);
// else the process of that node holding the fewest copies so far (the lowest rank of
// them), so that no process reads and sends more than its share. `lister[r]`: the new rank
// that listed old rank r's copy, on the copy's node (-1: none, the reader is -1 too);
// `node_of`: every new rank's node index. O(old ranks x processes a node).
std::vector<int> assign_readers(const std::vector<int>& lister, const std::vector<int>& node_of);

// ---- the level files a process keeps mapped ---------------------------------------

// A checkpoint overwrites the oldest version in place (levels/write.cpp); the shell
// keeps each such file mapped from one checkpoint to the next, so that the write is a copy
// into pages that are already mapped and touched. This is the bookkeeping of those
// mappings (the shell maps, unmaps and renames; nothing here calls the system).
//
// How many: the `keep` versions of the process's own local file and of each of the
// `kept_copies` partner copies it keeps; keep < 2 overwrites nothing (every version is a
// new file, keep = 0 keeps all), so none.
std::size_t mapped_capacity(int keep, std::size_t kept_copies);

struct MappedFile {
  std::string path;              // the file's current name
  int fd = -1;                   // open read-write
  void* addr = nullptr;          // `mapped` bytes from the file's start
  std::uint64_t mapped = 0;
  std::uint64_t size = 0;        // the file's length, every page of it allocated
  std::uint64_t last_use = 0;    // set by the table
};

// The mappings, at most capacity() of them; the least recently put one goes first. Every
// call that drops entries returns them, for the shell to unmap and close.
class MappedTable {
 public:
  std::vector<MappedFile> set_capacity(std::size_t capacity);
  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return files_.size(); }
  // The entry named `path`, taken out of the table (false if none).
  bool take(const std::string& path, MappedFile& out);
  // `f` as the most recently used entry; an entry of the same name is displaced, and the
  // least recently used ones beyond the capacity (`f` itself when the capacity is 0).
  std::vector<MappedFile> put(MappedFile f);
  // The entry `from` is now named `to`; an entry already named `to` is returned (its file
  // was replaced by the rename).
  std::vector<MappedFile> rename(const std::string& from, const std::string& to);
  std::vector<MappedFile> clear();
 private:
  std::vector<MappedFile> files_;
  std::size_t capacity_ = 0;
  std::uint64_t clock_ = 0;
};

// ---- one process's level file -----------------------------------------------------

// 3: the header padded so that the payload starts at a multiple of kLevelPayloadAlign
// bytes in the file, so that a mapped file's matrices are read where they lie (format 2
// files, the payload where the header ends, are still read: the recovery copies a matrix
// whose data is not aligned to its element); 2: the striped checksum (1: one word at a
// time, no longer read).
inline constexpr int kLevelFormat = 3;
inline constexpr int kLevelFormatOldest = 2;  // the oldest format this library reads
inline constexpr std::size_t kLevelPayloadAlign = 64;

// One matrix as its owner held it: the global description of the whole matrix (a
// checkpoint::MatrixInfo: name, element type, shape and the blocks on the grid written,
// `mb`, `nb` when uniform, else 0 and the lists; its `layout` says which, block-cyclic or
// extended, and its `checksum` is not in the level file, whose payload has its own), its
// redist::Layout on the grid written (the file stores its grid and source coordinates, the
// shape and blocks are global's; the rank map is not stored) and the owner's coordinate;
// the payload holds its local rows x cols column-major with lld = rows.
struct LevelMatrix {
  checkpoint::MatrixInfo global;
  redist::Layout layout;
  int pr = -1, pc = -1;               // the owner's coordinate (-1: off the grid, no data)
  std::int64_t rows = 0, cols = 0;    // local extent
  std::uint64_t offset = 0;           // payload byte offset of its data
  std::uint64_t bytes = 0;            // rows * cols * element size
};

struct LevelHeader {
  int format = kLevelFormat;
  std::string program;
  int iteration = -1;                 // the version
  int rank = -1, nprocs = 0;          // old world rank of the owner, old world size
  int node = -1;                      // old node index of the owner
  int nprow = 0, npcol = 0;           // the session's grid when written
  std::vector<char> state;            // the application state (every process keeps it)
  std::vector<LevelMatrix> matrices;
  std::uint64_t payload_bytes = 0;
  std::uint64_t payload_checksum = 0;
};

// Sets offsets/bytes of the matrices and payload_bytes (the checksum is the caller's).
void lay_out_payload(LevelHeader& h);

// The payload's checksum (format 2), a Fletcher-style sum over 64-byte stripes in 8
// independent 64-bit lanes, so that it vectorises and runs at memory speed: word j of
// stripe s (the tail zero-padded) gives f_j(w) = w + lo32(w ^ key_j) * hi32(w ^ key_j);
// lane j keeps a_j += f_j(w) and b_j += a_j (a_j sees every word's value, b_j also its
// position: b_j = sum over stripes of (stripes - s) f_j(w_s)); value() mixes the 16 sums and
// the byte length. A changed word changes a_j; a swap of two words of one lane changes b_j
// by (t - s)(f_j(w_t) - f_j(w_s)), of two lanes a_j through the lanes' keys. Streams: call
// update (or copy) with consecutive pieces (any split), then value().
class PayloadChecksum {
 public:
  static constexpr std::size_t kLanes = 8, kStripe = kLanes * 8;
  void update(const void* data, std::size_t bytes);
  // update(src, bytes) and memcpy(dst, src, bytes) in one pass over the data.
  void copy(void* dst, const void* src, std::size_t bytes);
  std::uint64_t value() const;
 private:
  void take(void* dst, const unsigned char* src, std::size_t bytes);
  std::uint64_t a_[kLanes] = {}, b_[kLanes] = {};
  std::uint64_t bytes_ = 0;           // bytes taken in all
  unsigned char tail_[kStripe] = {};  // a stripe begun (bytes_ % kStripe of it)
};

// The file: "MALLVL\0\1", u64 header length, the header (little-endian fields; from format
// 3 zero padding before its own checksum, so that the payload starts at a multiple of
// kLevelPayloadAlign), then the payload. encode gives everything before the payload, in
// h.format (kLevelFormatOldest..kLevelFormat).
std::vector<char> encode_header(const LevelHeader& h);
// Parses the bytes before the payload (from the start of the file); throws Error naming
// the fault (magic, format, truncated). `consumed` = the bytes the header took.
LevelHeader decode_header(const char* data, std::size_t size, std::size_t& consumed);
// The length of the prefix needed to know the whole header's length.
inline constexpr std::size_t kLevelPrefix = 16;

// The file name of a level file: <program>.<kind>.r<rank>-<nprocs>.v<iteration, 6 digits>
// with kind "local" (the owner's own copy) or "partner" (a copy kept for another node);
// rank and nprocs of the job that wrote it.
std::string level_file_name(const std::string& program, Level kind, int rank, int nprocs, int iteration);
struct LevelName {
  Level kind = Level::Local;
  int rank = -1, nprocs = 0, iteration = -1;
};
// Parses a name written by level_file_name for `program`; false for anything else
// (temporary files included).
bool parse_level_file_name(const std::string& name, const std::string& program, LevelName& out);

}  // namespace resize::levels
