// SPDX-License-Identifier: BSD-3-Clause
// Single-copy transfers between processes of one node (docs/reference/redist.md, "Single copy on a
// node"): the receiver reads its pieces straight out of the sender's local array of A
// into its own B, or the sender writes them straight into the receiver's B, with the
// kernel's cross-memory attach (process_vm_readv / process_vm_writev), one copy of each
// byte instead of pack -> message (two copies through shared memory) -> unpack.
// The segment walk is pure (segments.hpp); the node map and the reads are the thin shell
// (single_copy.cpp). Internal to redist.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "malleable/redist/node_map.hpp"
#include "segments.hpp"
#include "transport.hpp"

namespace redist::exec {

// Whether this build and system can read another process's memory (not under SimGrid's
// SMPI, whose ranks are threads of one process; process_vm_readv present). Each process
// also allows any process of its user to read it (PR_SET_PTRACER_ANY, for systems with
// Yama's ptrace_scope = 1), as Open MPI's shared-memory transport does.
bool single_copy_supported();

// The ranks of a communicator on this node: redist::node_ranks (malleable/redist/node_map.hpp).
using redist::node_ranks;

// This process's identity for single-copy readers: the address and value of a random
// word. A reader checks it before reading (check_peer), so a pid that names another
// process (ranks in different PID namespaces on one host, as in some containers) is
// caught and the transfer goes by message instead of reading a stranger's memory.
struct ProcessToken {
  std::uint64_t address = 0, value = 0;
};
ProcessToken process_token();

// 0 when process `pid` holds `value` at `address`, else an errno (ESRCH: another process).
// Test-only fault injection, read here and nowhere else: MALLEABLE_REDIST_FAULT=
// single-copy-refused makes it return EPERM, as a system that forbids the read does.
int check_peer(long pid, std::uint64_t address, std::uint64_t value);

// Whether this process's memory [p, p + bytes) lies in huge pages (transparent or
// hugetlb), as the kernel's page tables say now: kHugeProbes pages spread evenly over it,
// each asked with one PAGEMAP_SCAN ioctl on /proc/self/pagemap (opened once per process;
// Linux 6.7 on), huge when at least 3 of 4 probes are. Bounded whatever the size: ~1 us a
// probe here (no /proc text parsed, no walk of the whole range). False where the ioctl is
// missing or refused (the window then keeps every send, as before).
bool huge_paged(const void* p, std::int64_t bytes);
inline constexpr int kHugeProbes = 8;

// Copies segments between this process and process `pid`, elements of esize bytes:
// reads them from its memory at `remote` (bytes) into `local` (process_vm_readv), or with
// `write` writes them from `local` into its memory at `remote` (process_vm_writev). A
// segment's src is in the source's array, dst in the destination's. The two sides'
// scatter-gather lists are merged apart (a stretch that continues the last one on its side
// extends it, whatever the other side does), so the other process's memory is pinned in as
// few stretches as its layout allows. Batches of the system's IOV_MAX entries (memory: one
// batch, 32 KiB, whatever the transfer's size). add() queues a segment and copies a full
// batch; finish() copies the rest. error() is 0, or the errno of the first failed copy
// (EPERM when the system forbids it: the caller then moves the transfer by message).
class SegmentReader {
 public:
  SegmentReader(long pid, std::uint64_t remote, char* local, std::size_t esize, bool write = false);
  void add(const Segment& s);
  int finish();
  int error() const { return err_; }
  std::int64_t bytes() const { return bytes_; }

 private:
  void flush();
  long pid_;
  std::uint64_t remote_;
  char* local_;
  std::size_t esize_, batch_;
  bool write_;
  std::vector<char> liov_, riov_;  // struct iovec arrays (kept opaque here)
  std::size_t nl_ = 0, nr_ = 0, want_ = 0;
  int err_ = 0;
  std::int64_t bytes_ = 0;
};

// One step's single-copy transfers, posted before the step's messages (begin) and
// finished after them (end), so the step's other transfers are not held up. Per transfer
// both ends tell each other where their array is (pid, address, leading dimension, its
// ProcessToken; the sender also the mapped array its pieces of A lie in, when they do and
// Env::mapped), then one end copies and the other waits for its word: where the sender's
// A is mapped (redist_alloc), the receiver maps it read-only and copies the pieces straight
// into its B with the local-copy kernels (one copy in user space, counted in Moved::mapped);
// else per copy_reads the receiver reads the sender's A into its B, or the sender writes
// its A into the receiver's B, with the kernel. Both ends decide alike from the two words.
// The copier checks the token (the mapping's header), copies and says 0, or says the
// errno; the transfer then goes as a message (same result). Memory: O(this step's transfers).
class SingleCopyStep {
 public:
  struct Env {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Datatype type = MPI_DATATYPE_NULL;  // the element type, for the fallback messages
    std::size_t esize = 0;
    const Side* sa = nullptr;  // A on this rank (the remote A: same axes, the sender's lda)
    const Side* sb = nullptr;  // B on this rank (the remote B: same axes, the receiver's ldb)
    const void* a = nullptr;
    void* b = nullptr;
    bool sleep = false;
    int sleep_us = 20;
    bool mapped = false;  // a send out of a mapped array is copied by its receiver from a mapping (ExecOptions::mapped_read)
  };
  struct Moved {
    std::int64_t sent = 0, received = 0;  // bytes
    std::int64_t single = 0;              // of received, read by the kernel in one copy
    std::int64_t mapped = 0;              // of received, copied straight out of the sender's mapped array
  };
  // from: each send's array of A (parallel to out; empty: env.a and env.sa for all).
  SingleCopyStep(const Env& env, std::vector<const Transfer*> out, std::vector<const Transfer*> in,
                 std::vector<SendFrom> from = {});
  void begin();
  Moved end();
  std::int64_t bytes_held() const;  // what the step holds besides the one read batch
  // a read batch's scatter-gather lists, and the row pieces of a column its walk keeps (for_each_segment)
  static constexpr std::int64_t kReaderBytes =
      2 * 1024 * 16 + kKeptRowPieces * static_cast<std::int64_t>(sizeof(Segment));

 private:
  // A word: pid, address, leading dimension, token address and value; the sender's mapped
  // array of A (descriptor, generation, token, bytes, the offset of A in it; offset -1: none).
  static constexpr int kWhere = 10;
  // Slot k: the receive in_[k] (k < in_.size()), else the send out_[k - in_.size()].
  const Transfer& slot(std::size_t k) const { return k < in_.size() ? *in_[k] : *out_[k - in_.size()]; }
  // The sender's word of slot k (ours for a send, the peer's for a receive).
  const std::int64_t* sender_word(std::size_t k) const { return &(k < in_.size() ? where_ : here_)[kWhere * k]; }
  bool mapped(std::size_t k) const { return sender_word(k)[9] >= 0; }  // the receiver copies from a mapping
  bool receiver_copies(std::size_t k) const { return mapped(k) || copy_reads(slot(k)); }
  bool copies(std::size_t k) const { return (k < in_.size()) == receiver_copies(k); }  // this rank copies slot k
  void tell(std::size_t k);          // where this rank's array is, and the peer's word asked for
  int copy(std::size_t k);           // the copier: 0, or the errno
  int copy_mapped(std::size_t k);    // a receive out of the sender's mapped array
  void by_message(std::size_t k, std::vector<PieceType>& types, std::vector<MPI_Request>& back);
  Env env_;
  std::vector<const Transfer*> out_, in_;
  std::vector<SendFrom> from_;          // per send
  std::vector<std::int64_t> here_;      // kWhere per slot: this rank's array, told to the other end
  std::vector<std::int64_t> where_;     // kWhere per slot: the other end's array, told by it
  std::vector<int> said_;               // per slot: the copier's word (ours, or the peer's)
  std::vector<MPI_Request> where_req_, done_req_;  // where_req_: 2 per slot (our word, the peer's)
};

}  // namespace redist::exec
