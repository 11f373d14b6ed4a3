// SPDX-License-Identifier: BSD-3-Clause
// The shell of the node-shared staging window (node_window.hpp): this process's own
// shared-memory segment, the peers' segments it has mapped, and the call's window. Only
// operating-system calls (shm_open, memfd_create, mmap, /proc/<pid>/fd); no MPI call, so
// nothing here waits for another process.
#include "node_window.hpp"
#include "../config.hpp"
#include "peer_retention.hpp"
#include "segments.hpp"
#include "malleable/redist/redistribute.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

namespace redist::exec {

using detail::check_mpi;

bool node_window_supported() {
#if defined(SMPI_SHARED_MALLOC) || !defined(__linux__)
  return false;
#else
  return true;
#endif
}

std::int64_t window_need(const RedistPlan& p, int me, const std::vector<int>& node, std::size_t esize, SingleCopy read,
                         Transport tr) {
  std::int64_t most = 0;
  for (const auto& step : p.steps) {
    std::int64_t bytes = 0;
    for (int k : step) {
      const Transfer& t = p.transfers[static_cast<std::size_t>(k)];
      if (t.src == me && t.dst != me && std::binary_search(node.begin(), node.end(), t.dst) &&
          !reads_in_place(t, esize, read, tr))
        bytes += t.elements() * static_cast<std::int64_t>(esize);
    }
    most += (bytes + NodeWindow::kStepAlign - 1) / NodeWindow::kStepAlign * NodeWindow::kStepAlign;  // room() aligns
  }
  return most;
}

namespace {

// A segment starts with this header (the owner's token and the generation), so a reader
// that reached another process's descriptor (a pid of another PID namespace) sees it.
struct Header {
  std::int64_t token = 0, gen = 0;
};
constexpr std::int64_t kHeaderBytes = 64;  // keeps the data 64-byte aligned
#if defined(MAP_POPULATE)
constexpr int kPopulate = MAP_POPULATE;
#else
constexpr int kPopulate = 0;
#endif

bool fault(std::string_view what) {
  const EnvText f = read_config().fault;
  return f && what == *f;
}

std::int64_t segment_token() {
  static const std::int64_t t = [] {
    std::random_device rd;
    return static_cast<std::int64_t>(((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid())) &
                                     0x7fffffffffffffffull);
  }();
  return t;
}

// Says once per process why same-node transfers go by message.
void say_once(const std::string& why) {
  static bool said = false;
  if (said) return;
  said = true;
  std::fprintf(stderr, "malleable redist: node window unavailable on pid %ld (%s); same-node transfers go by message\n",
               static_cast<long>(getpid()), why.c_str());
}

struct Own {
  int fd = -1;
  char* base = nullptr;  // the mapping, header included
  std::int64_t bytes = 0, gen = 0;
  bool busy = false;
  void drop() {
    if (base) munmap(base, static_cast<std::size_t>(bytes + kHeaderBytes));
    if (fd >= 0) close(fd);
    fd = -1, base = nullptr, bytes = 0;
  }
};

struct Peer {
  std::int64_t pid = 0, token = 0, gen = 0, bytes = 0;
  const char* base = nullptr;
  std::int64_t fd = -1;
  void drop() {
    if (base) munmap(const_cast<char*>(base), static_cast<std::size_t>(bytes + kHeaderBytes));
    base = nullptr;
  }
};

// This process's segments. One own segment, whatever the number of communicators (calls
// of one process do not overlap; an exchange that finds it busy goes by message); one
// mapping per peer process that sent through its segment (the other ranks of the node;
// mappings of processes that are gone, the newcomers of earlier expansions, are let go
// before a new one is made: drop_gone). Freed by this process alone, at MPI_Finalize (a
// delete callback on MPI_COMM_SELF) or at exit by the system; no name outlives its creation.
struct Store {
  Own own;
  std::vector<Peer> peers;
  std::vector<Peer> arrays;  // peers' mapped arrays (redist_alloc), at most kArrayMaps per peer
  bool hooked = false;
  void drop_all() {
    own.drop();
    for (auto& p : peers) p.drop();
    for (auto& p : arrays) p.drop();
    peers.clear();
    arrays.clear();
  }
  // Mappings of processes that no longer exist (none of them is in a call of this
  // process: a peer stays until the exchange that reads its segment is done).
  void drop_gone() {
    std::vector<std::int64_t> pids;
    pids.reserve(peers.size());
    for (const auto& p : peers) pids.push_back(p.pid);
    const auto gone = gone_peers(pids, [](std::int64_t pid) {
      return !(kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
    });
    for (auto i = gone.rbegin(); i != gone.rend(); ++i) {
      peers[*i].drop();
      peers.erase(peers.begin() + static_cast<std::ptrdiff_t>(*i));
    }
    arrays.erase(std::remove_if(arrays.begin(), arrays.end(),
                                [](Peer& a) {
                                  const bool gone_now = kill(static_cast<pid_t>(a.pid), 0) != 0 && errno == ESRCH;
                                  if (gone_now) a.drop();
                                  return gone_now;
                                }),
                 arrays.end());
  }
};

Store& store() {
  static Store s;
  if (!s.hooked) {
    s.hooked = true;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) {
      int key = MPI_KEYVAL_INVALID;
      auto at_finalize = [](MPI_Comm, int, void*, void*) -> int {
        store().drop_all();
        return MPI_SUCCESS;
      };
      if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, nullptr) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
    }
  }
  return s;
}

// A new segment of `bytes` (plus the header), its pages reserved now (posix_fallocate: a
// full /dev/shm is an error here, not a SIGBUS later). The name is unique per process and
// generation and unlinked before anything else is done with it.
// `anonymous`: memfd_create only (a mapped array: /dev/shm is often small).
int make_segment(std::int64_t bytes, std::int64_t gen, std::string* why, bool anonymous = false) {
  if (fault("shm-unavailable")) {
    *why = "shared memory unavailable (MALLEABLE_REDIST_FAULT=shm-unavailable)";
    return -1;
  }
  char name[96];
  std::snprintf(name, sizeof name, "/malleable-redist.%ld.%016llx.%lld", static_cast<long>(getpid()),
                static_cast<unsigned long long>(segment_token()), static_cast<long long>(gen));
  int fd = anonymous ? -1 : shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  std::string how = std::string("shm_open ") + name;
  if (anonymous) errno = ENOENT;
  if (fd >= 0) {
    shm_unlink(name);
  } else {
    const int e = errno;
#if defined(MFD_CLOEXEC)
    fd = memfd_create("malleable-redist", MFD_CLOEXEC);  // no /dev/shm (or not writable): anonymous
#endif
    if (fd < 0) {
      *why = how + ": " + std::strerror(e);
      return -1;
    }
    how = "memfd_create";
  }
  const auto total = static_cast<off_t>(bytes + kHeaderBytes);
  int e = ftruncate(fd, total) == 0 ? 0 : errno;
  if (e == 0) e = posix_fallocate(fd, 0, total);
  if (e != 0) {
    *why = how + ", " + std::to_string(total) + " bytes: " + std::strerror(e);
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::optional<OwnSegment> acquire_own(std::int64_t want, std::int64_t limit, std::string* why) {
  Own& o = store().own;
  if (o.busy || want <= 0) return std::nullopt;
  if (o.bytes < want || o.bytes / 4 > want || o.bytes > limit) {
    o.drop();
    const int fd = make_segment(want, o.gen + 1, why);
    if (fd < 0) return std::nullopt;
    // MAP_POPULATE: the pages posix_fallocate reserved mapped in one call, not faulted in
    // one 4 KiB page at a time by the first packing (a new segment of 64 MB: 16,384 faults).
    void* m = mmap(nullptr, static_cast<std::size_t>(want + kHeaderBytes), PROT_READ | PROT_WRITE, MAP_SHARED | kPopulate,
                   fd, 0);
    if (m == MAP_FAILED) {
      *why = std::string("mmap: ") + std::strerror(errno);
      close(fd);
      return std::nullopt;
    }
    o.fd = fd, o.base = static_cast<char*>(m), o.bytes = want, ++o.gen;
    Header h{segment_token(), o.gen};
    std::memcpy(o.base, &h, sizeof h);
  }
  o.busy = true;
  return OwnSegment{o.base + kHeaderBytes, SegmentId{static_cast<std::int64_t>(getpid()), o.fd, o.gen, segment_token(), o.bytes}};
}

void release_own() { store().own.busy = false; }

std::optional<OwnSegment> make_array_segment(std::int64_t bytes, std::string* why) {
  static std::atomic<std::int64_t> serial{0};
  if (bytes <= 0) return std::nullopt;
  const std::int64_t gen = kArrayGenerations + serial.fetch_add(1) + 1;  // never a window segment's
  const int fd = make_segment(bytes, gen, why, true);
  if (fd < 0) return std::nullopt;
  void* m = mmap(nullptr, static_cast<std::size_t>(bytes + kHeaderBytes), PROT_READ | PROT_WRITE, MAP_SHARED | kPopulate,
                 fd, 0);
  if (m == MAP_FAILED) {
    *why = std::string("mmap: ") + std::strerror(errno);
    close(fd);
    return std::nullopt;
  }
  const Header h{segment_token(), gen};
  std::memcpy(m, &h, sizeof h);
  return OwnSegment{static_cast<char*>(m) + kHeaderBytes,
                    SegmentId{static_cast<std::int64_t>(getpid()), fd, gen, segment_token(), bytes}};
}

void drop_array_segment(const OwnSegment& s) {
  munmap(s.data - kHeaderBytes, static_cast<std::size_t>(s.id.bytes + kHeaderBytes));
  close(static_cast<int>(s.id.fd));
}

}  // namespace redist::exec

namespace redist {

bool reserve_node_window(std::int64_t bytes) {
  if (!exec::node_window_supported()) return false;
  const exec::Store& s = exec::store();  // the MPI_Finalize hook, on the first call
  if (bytes <= 0) return s.own.base != nullptr;
  std::string why;
  if (!exec::acquire_own(bytes, INT64_MAX / 4, &why)) return false;  // the exchange's limit without a budget
  exec::release_own();
  return true;
}

}  // namespace redist

namespace redist::exec {

namespace {

// Segment `id` of another process mapped read-only (header included: its token and
// generation checked), or nullptr and *err. `populate`: its pages mapped now (a window
// segment, read whole and reused from call to call); else as they are read (a peer's mapped
// array, of which a receiver may read only a part, mapped anew for each new array).
const char* map_segment(const SegmentId& id, int* err, bool populate = true) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%lld/fd/%lld", static_cast<long long>(id.pid), static_cast<long long>(id.fd));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = errno ? errno : EIO;
    return nullptr;
  }
  struct stat st {};
  void* m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= id.bytes + kHeaderBytes)
    m = mmap(nullptr, static_cast<std::size_t>(id.bytes + kHeaderBytes), PROT_READ, MAP_SHARED | (populate ? kPopulate : 0),
             fd, 0);
  const int e = m == MAP_FAILED ? (errno ? errno : EINVAL) : 0;
  close(fd);  // the mapping stays
  if (m == MAP_FAILED) {
    *err = e;
    return nullptr;
  }
  Header h;
  std::memcpy(&h, m, sizeof h);
  if (h.token != id.token || h.gen != id.gen) {  // another process's descriptor
    munmap(m, static_cast<std::size_t>(id.bytes + kHeaderBytes));
    *err = ESRCH;
    return nullptr;
  }
  return static_cast<const char*>(m);
}

}  // namespace

const char* map_peer(const SegmentId& id, int* err) {
  *err = 0;
  if (fault("shm-refused")) {
    *err = EACCES;
    return nullptr;
  }
  auto& peers = store().peers;
  auto it = std::find_if(peers.begin(), peers.end(), [&](const Peer& p) { return p.pid == id.pid && p.token == id.token; });
  if (it != peers.end() && it->gen == id.gen && it->bytes == id.bytes) return it->base + kHeaderBytes;
  if (it == peers.end()) {
    store().drop_gone();  // a new peer: first let go of the departed ones
    it = peers.insert(peers.end(), Peer{id.pid, id.token, 0, 0, nullptr});
  }
  it->drop();  // an older generation: the owner has remade its segment
  const char* m = map_segment(id, err);
  if (!m) {
    peers.erase(it);
    return nullptr;
  }
  it->gen = id.gen, it->bytes = id.bytes, it->base = m;
  return it->base + kHeaderBytes;
}

const char* map_peer_array(const SegmentId& id, int* err) {
  *err = 0;
  if (fault("shm-refused") || fault("mapped-refused")) {
    *err = EACCES;
    return nullptr;
  }
  auto& arrays = store().arrays;
  auto same = [&](const Peer& p) { return p.pid == id.pid && p.token == id.token; };
  const auto hit = std::find_if(arrays.begin(), arrays.end(), [&](const Peer& p) {
    return same(p) && p.gen == id.gen && p.bytes == id.bytes;
  });
  if (hit != arrays.end()) {
    std::rotate(hit, hit + 1, arrays.end());  // the most recently used last
    return arrays.back().base + kHeaderBytes;
  }
  // An array of an older generation with this descriptor was freed by its owner: let go
  // of it; and at most kArrayMaps mappings per peer (the least recently used goes first).
  store().drop_gone();
  std::size_t of_peer = 0;
  for (auto& p : arrays) {
    if (same(p) && p.fd == id.fd) p.drop();
    of_peer += same(p) && p.base ? 1 : 0;
  }
  for (auto& p : arrays)
    if (of_peer >= kArrayMaps && same(p) && p.base) p.drop(), --of_peer;
  arrays.erase(std::remove_if(arrays.begin(), arrays.end(), [](const Peer& p) { return !p.base; }), arrays.end());
  const char* m = map_segment(id, err, false);
  if (!m) return nullptr;
  arrays.push_back(Peer{id.pid, id.token, id.gen, id.bytes, m, id.fd});
  return m + kHeaderBytes;
}

void drop_peer_arrays() {
  for (auto& p : store().arrays) p.drop();
  store().arrays.clear();
}

SegmentUse segment_use() {
  const Store& s = store();
  SegmentUse u;
  u.own = s.own.bytes;
  for (const auto& p : s.peers) u.mapped += p.bytes, ++u.peers;
  for (const auto& p : s.arrays) u.arrays += p.bytes, ++u.array_maps;
  return u;
}

NodeWindow::NodeWindow(MPI_Comm, const std::vector<int>& node, std::int64_t need, std::int64_t limit) : node_(node) {
  if (node.size() < 2) return;  // alone on the node
  const std::int64_t want = std::min(need, limit);
  if (want <= 0) return;
  std::string why;
  own_ = acquire_own(want, limit, &why);
  if (!own_ && !why.empty()) say_once(why);
}

NodeWindow::~NodeWindow() {
  if (own_) release_own();  // finish() has run (or an error is on its way: MPI's own then)
}

std::int64_t NodeWindow::room(std::int64_t bytes) const {
  if (at_ + bytes > segment_bytes()) {
    for (auto& d : pending_) d->release();  // every earlier step's receivers have unpacked
    at_ = 0;
  }
  const std::int64_t at = at_;
  // The next step starts 64-byte aligned (an exchange of several items packs elements of
  // different sizes one item after another).
  at_ = std::min(segment_bytes(), at_ + (bytes + kStepAlign - 1) / kStepAlign * kStepAlign);
  return at;
}

void NodeWindow::finish() const {
  auto steps = std::move(pending_);
  pending_.clear();
  for (auto& d : steps) d->release();  // every step's sends by message posted before any wait
  for (auto& d : steps) d->complete();
  at_ = 0;
}

bool NodeWindow::on_node(int rank) const { return std::binary_search(node_.begin(), node_.end(), rank); }

}  // namespace redist::exec
