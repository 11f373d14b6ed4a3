// SPDX-License-Identifier: BSD-3-Clause
// The node-shared staging window (ExecOptions::node_window, on by default; docs/reference/redist.md,
// "A node-shared staging window"): a sender packs each transfer to a rank of its node into
// a shared-memory segment of its own, tells the receiver where (one small message), and the
// receiver unpacks straight from that memory into B and says it is done: two copies of
// each byte (pack, unpack) and no message of data, instead of pack -> MPI -> unpack.
//
// Each process owns one segment (shm_open under a name unique per process and generation,
// unlinked at once, so /dev/shm never holds it beyond its creation, whatever happens to the
// run; memfd_create when /dev/shm is unavailable). A receiver maps a sender's segment
// through /proc/<pid>/fd/<fd> (the sender's open descriptor, named in the message) and
// keeps the mapping for the next calls until the sender's generation changes. No MPI object
// and no collective call is involved: nothing is tied to a communicator's life, and a
// process frees what it owns alone (at MPI_Finalize or when its segment is remade).
// Where the segment cannot be made or mapped, the transfer goes by message and the
// reason is said once on stderr. The segment store (shm_segments.cpp) is the OS shell; the
// step (WindowStep) packs and unpacks with the pure kernels of local_copy.hpp. Internal.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../mpi_guard.hpp"
#include "tags.hpp"
#include "local_copy.hpp"
#include "mapped.hpp"
#include "mapped_registry.hpp"
#include "transport.hpp"
#include "waiting.hpp"

namespace redist::exec {


// A send out of huge pages read by its receiver with the kernel (Route::HugeRead; the
// shell in single_copy.cpp). huge_identity: this process's pid and the address and value of
// its ProcessToken, for the window's word. read_huge_pages: transfer t read out of process
// pid's A at address `remote` (side sa, sa.ld the sender's leading dimension) into this
// rank's B (sb, b), elements of esize bytes, after checking the sender's token: 0 or the
// errno (the transfer then goes by message).
void huge_identity(std::int64_t* w3);
int read_huge_pages(const std::int64_t* who, std::uint64_t remote, const Side& sa, const Side& sb, void* b,
                    std::size_t esize, const Transfer& t);

// The bytes rank `me` sends to other ranks of its node (`node`: sorted ranks) over all
// steps of p, leaving out the transfers read in one copy (reads_in_place under `read` and
// `tr`; pass SingleCopy::Off where single copy is unsupported): the segment that lets it
// pack every step into fresh room and wait for its receivers only at the end of the
// call. Pure.
std::int64_t window_need(const RedistPlan& p, int me, const std::vector<int>& node, std::size_t esize,
                         SingleCopy read = SingleCopy::Off, Transport tr = Transport::Auto);


// This process's own segment, at least `want` bytes (grown, or made anew smaller when it
// is more than 4x `want` or more than `limit`, this call's share of its memory budget). nullopt when it cannot be had: shared memory unavailable (the
// reason, said once on stderr, is in *why), or the segment is in use by another exchange
// of this process still under way. Release with release_own().
std::optional<OwnSegment> acquire_own(std::int64_t want, std::int64_t limit, std::string* why);
void release_own();

// The sender's segment mapped read-only in this process (cached per sender process; a new
// generation replaces the old mapping). nullptr and *err = the errno when it cannot be
// mapped (EPERM/EACCES: the system forbids it; ESRCH: the pid names another process).
// Test-only fault injection: MALLEABLE_REDIST_FAULT=shm-unavailable makes acquire_own fail,
// =shm-refused makes map_peer fail with EACCES.
const char* map_peer(const SegmentId& id, int* err);


// Bytes this process holds in shared segments: its own and the peers' it has mapped
// (a mapping of another process's segment adds no pages of its own, but keeps that
// segment's pages alive, also after its owner remade it or exited: mappings of departed
// processes are dropped, peer_retention.hpp). For tests and the docs' memory account.
struct SegmentUse {
  std::int64_t own = 0, mapped = 0;
  int peers = 0;
  std::int64_t arrays = 0;  // of the peers' mapped arrays (map_peer_array)
  int array_maps = 0;
};
SegmentUse segment_use();

// The window of one call: this rank's segment for the call's sends to ranks of its node
// (`node`: ranks of comm on this node, sorted), at most `limit` bytes (sends that do not fit
// go by message). Local: no message, no collective. usable() says whether the node has
// other ranks: both ends of a transfer decide alike from that alone which transfers go
// through WindowStep (a sender without a segment tells the receiver so, and sends).
// What a step leaves to finish later: release() waits for the receivers' words (they
// send them in that step, whatever comes later) and posts the sends by message they ask
// for; complete() waits for everything else.
struct DeferredStep {
  virtual ~DeferredStep() = default;
  virtual void release() = 0;
  virtual void complete() = 0;
  bool released = false;
};

class NodeWindow {
 public:
  NodeWindow(MPI_Comm comm, const std::vector<int>& node, std::int64_t need, std::int64_t limit);
  ~NodeWindow();
  NodeWindow(const NodeWindow&) = delete;
  NodeWindow& operator=(const NodeWindow&) = delete;
  bool usable() const { return node_.size() >= 2; }
  bool on_node(int rank) const;         // a rank of comm on this node
  char* mine() const { return own_ ? own_->data : nullptr; }  // this rank's segment, or none
  const SegmentId& id() const { return own_->id; }
  std::int64_t segment_bytes() const { return own_ ? own_->id.bytes : 0; }

  // Steps pack one after another into the segment and leave what they still wait for (the
  // receivers' words, sends and receives by message) here; room(bytes) says where the next
  // `bytes` go, first releasing every earlier step (its receivers have all unpacked) when
  // they would not fit; finish() releases all, then completes all (the end of the call).
  // A step's words are sent within that step, so no step waits for a later one.
  std::int64_t room(std::int64_t bytes) const;
  static constexpr std::int64_t kStepAlign = 64;  // where each step's room starts
  void later(std::shared_ptr<DeferredStep> d) const { pending_.push_back(std::move(d)); }
  void finish() const;

 private:
  const std::vector<int>& node_;
  std::optional<OwnSegment> own_;
  mutable std::int64_t at_ = 0;
  mutable std::vector<std::shared_ptr<DeferredStep>> pending_;
};

// One step's transfers between ranks of one node through the window: begin() packs every
// send that fits into this rank's segment (one after another) and tells each receiver its
// segment and offset (or that it comes by message); end() unpacks each receive as its word
// arrives, says done (0, or the errno when the sender's segment could not be mapped: the
// sender then sends it by message), and waits until every receiver of this rank's sends
// has said done (the segment is then free for the next step or call). Memory: O(this
// step's window transfers).
template <class T>
class WindowStep : public DeferredStep {
 public:
  struct Env {
    MPI_Comm comm = MPI_COMM_NULL;
    const NodeWindow* win = nullptr;
    const Side* sa = nullptr;
    const Side* sb = nullptr;
    const T* a = nullptr;
    T* b = nullptr;
    bool sleep = false;
    int sleep_us = 20;
  };
  struct Moved {
    std::int64_t sent = 0, received = 0;  // bytes
    std::int64_t window = 0;              // of received, unpacked from a sender's segment
    std::int64_t mapped = 0;              // of received, copied straight out of a sender's mapped array
    std::int64_t single = 0;              // of received, read by the kernel out of a sender's huge pages
    double pack_s = 0, unpack_s = 0;
  };
  static constexpr int kWhereTag = tags::kWindowWhere, kDoneTag = tags::kWindowDone,
                       kByMessageTag = tags::kWindowByMessage;
  // SegmentId (5), the offset (-1: by message), what is there (kPacked; kMapped: the
  // sender's array of A, from the offset on; kHuge: pid, the address of A, the address and
  // value of the sender's ProcessToken, in place of the SegmentId, to read with the kernel)
  // and that array's leading dimension.
  static constexpr int kWhere = 8;
  static constexpr std::int64_t kPacked = 0, kMapped = 1, kHuge = 2;

  // from: each send's array of A (parallel to out; empty: env.a and env.sa for all).
  WindowStep(const Env& env, std::vector<const Transfer*> out, std::vector<const Transfer*> in,
             std::vector<SendFrom> from = {})
      : env_(env), out_(std::move(out)), in_(std::move(in)), from_(std::move(from)) {
    if (from_.empty()) from_.assign(out_.size(), SendFrom{env_.sa, env_.a});
  }

  void begin() {
    using detail::check_mpi;
    where_in_.assign(kWhere * in_.size(), 0);
    where_out_.assign(kWhere * out_.size(), 0);
    said_out_.assign(out_.size(), 0);
    said_in_.assign(in_.size(), 0);
    req_in_.assign(in_.size(), MPI_REQUEST_NULL);
    req_out_.assign(2 * out_.size(), MPI_REQUEST_NULL);
    for (std::size_t k = 0; k < in_.size(); ++k)
      check_mpi(MPI_Irecv(&where_in_[kWhere * k], kWhere, MPI_INT64_T, in_[k]->src, kWhereTag, env_.comm, &req_in_[k]),
                "MPI_Irecv (window)");
    const double t0 = MPI_Wtime();
    std::int64_t step_bytes = 0;
    for (std::size_t k = 0; k < out_.size(); ++k)
      if (!from_[k].mapped && !from_[k].huge) step_bytes += out_[k]->elements() * static_cast<std::int64_t>(sizeof(T));
    const std::int64_t base = env_.win->mine() && step_bytes > 0 ? env_.win->room(step_bytes) : -1;
    std::int64_t at = std::max<std::int64_t>(0, base);  // bytes into this rank's segment
    const std::int64_t room = base < 0 ? 0 : env_.win->segment_bytes();
    for (std::size_t k = 0; k < out_.size(); ++k) {
      const Transfer& t = *out_[k];
      const std::int64_t bytes = t.elements() * static_cast<std::int64_t>(sizeof(T));
      std::int64_t* w = &where_out_[kWhere * k];
      w[5] = -1, w[6] = kPacked, w[7] = 0;
      if (from_[k].mapped) {
        tell_mapped(k, w);
      } else if (from_[k].huge) {
        tell_huge(k, w);
      } else if (env_.win->mine() && at + bytes <= room) {
        const Walk wk(*from_[k].sa, t);
        pack_columns<T>(wk, packed_runs(wk.rows), static_cast<const T*>(from_[k].a), from_[k].sa->ld, 0, wk.ncols,
                        reinterpret_cast<T*>(env_.win->mine() + at));
        const SegmentId& id = env_.win->id();
        w[0] = id.pid, w[1] = id.fd, w[2] = id.gen, w[3] = id.token, w[4] = id.bytes, w[5] = at;
        at += bytes;
        std::atomic_thread_fence(std::memory_order_seq_cst);  // the packed bytes before the word
      }
      moved_.sent += bytes;
      check_mpi(MPI_Isend(w, kWhere, MPI_INT64_T, t.dst, kWhereTag, env_.comm, &req_out_[2 * k]), "MPI_Isend (window)");
      check_mpi(MPI_Irecv(&said_out_[k], 1, MPI_INT, t.dst, kDoneTag, env_.comm, &req_out_[2 * k + 1]),
                "MPI_Irecv (window done)");
      if (w[5] < 0) send_by_message(k);  // no room in the segment (or none): the receiver expects a message
    }
    moved_.pack_s = MPI_Wtime() - t0;
  }

  Moved end() {
    using detail::check_mpi;
    std::vector<MPI_Request> said(in_.size(), MPI_REQUEST_NULL);
    std::vector<int> done;
    std::size_t left = in_.size();
    while (left > 0) {
      wait_some(req_in_, done, env_.sleep, env_.sleep_us, "MPI_Waitsome (window)");
      for (int k : done) {
        const auto q = static_cast<std::size_t>(k);
        const Transfer& t = *in_[q];
        const std::int64_t* w = &where_in_[kWhere * q];
        const std::int64_t bytes = t.elements() * static_cast<std::int64_t>(sizeof(T));
        moved_.received += bytes;
        const char* base = nullptr;
        const bool direct = w[5] >= 0 && (w[6] == kMapped || w[6] == kHuge);  // copied out of the sender's A
        if (direct && w[6] == kMapped) {
          copy_mapped(t, w, q);
        } else if (direct) {
          read_huge(t, w, q);
        } else if (w[5] >= 0) {
          base = map_peer(SegmentId{w[0], w[1], w[2], w[3], w[4]}, &said_in_[q]);
          if (base && w[5] + bytes > w[4]) base = nullptr, said_in_[q] = EINVAL;
        }
        if (direct && said_in_[q] == 0) {
          // copied straight out of the sender's array
        } else if (base) {
          const double t0 = MPI_Wtime();
          std::atomic_thread_fence(std::memory_order_seq_cst);  // the sender's packed bytes are visible
          const Walk wk(*env_.sb, t);
          unpack_columns<T>(wk, packed_runs(wk.rows), reinterpret_cast<const T*>(base + w[5]), 0, wk.ncols, env_.b,
                            env_.sb->ld);
          std::atomic_thread_fence(std::memory_order_seq_cst);  // read before the word that the segment is free
          moved_.unpack_s += MPI_Wtime() - t0;
          moved_.window += bytes;
        } else {
          receive_by_message(t);  // the sender sends it when it reads our word (or already did: w[5] < 0)
        }
        check_mpi(MPI_Isend(&said_in_[q], 1, MPI_INT, t.src, kDoneTag, env_.comm, &said[q]), "MPI_Isend (window done)");
        --left;
      }
    }
    // The rest waits for the end of the call (or until the segment is full): the receivers'
    // words (a receiver that could not map this rank's segment gets the transfer by message;
    // a transfer already sent by message is not sent again) and the messages by message.
    said_ = std::move(said);
    const Moved m = moved_;
    env_.win->later(std::make_shared<WindowStep>(std::move(*this)));
    return m;
  }

  void release() override {
    if (released) return;
    released = true;
    wait_all(req_out_, env_.sleep, env_.sleep_us, "MPI_Waitall (window)");
    for (std::size_t k = 0; k < out_.size(); ++k)
      if (said_out_[k] != 0 && where_out_[kWhere * k + 5] >= 0) send_by_message(k);
  }
  void complete() override {
    release();
    wait_all(said_, env_.sleep, env_.sleep_us, "MPI_Waitall (window done)");
    wait_all(back_, env_.sleep, env_.sleep_us, "MPI_Waitall (window by message)");
  }

 private:
  // A send out of a mapped array: where it is (by message where it is not registered after all).
  void tell_mapped(std::size_t k, std::int64_t* w) {
    const SendFrom& f = from_[k];
    const std::int64_t span = walk_span(Walk(*f.sa, *out_[k]), f.sa->ld) * static_cast<std::int64_t>(sizeof(T));
    const auto at = find_mapped(f.a, span);
    if (!at) return;
    w[0] = at->id.pid, w[1] = at->id.fd, w[2] = at->id.gen, w[3] = at->id.token, w[4] = at->id.bytes;
    w[5] = at->offset, w[6] = kMapped, w[7] = f.sa->ld;
  }
  // A send out of huge pages: where this process's A is, for the receiver's kernel read.
  void tell_huge(std::size_t k, std::int64_t* w) const {
    std::int64_t who[3];
    huge_identity(who);
    w[0] = who[0], w[1] = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(from_[k].a));
    w[2] = who[1], w[3] = who[2], w[4] = 0, w[5] = 0, w[6] = kHuge, w[7] = from_[k].sa->ld;
  }
  // A receive out of the sender's A in huge pages (where w says), read into B with the
  // kernel after checking the sender's token; said_in_[q] the errno when it cannot be (the
  // sender then sends it by message).
  void read_huge(const Transfer& t, const std::int64_t* w, std::size_t q) {
    Side sa = *env_.sa;
    sa.ld = w[7];
    const std::int64_t who[3] = {w[0], w[2], w[3]};
    const double t0 = MPI_Wtime();
    said_in_[q] = sa.ld < 1 ? EINVAL : read_huge_pages(who, static_cast<std::uint64_t>(w[1]), sa, *env_.sb, env_.b, sizeof(T), t);
    moved_.unpack_s += MPI_Wtime() - t0;
    if (said_in_[q] == 0) moved_.single += t.elements() * static_cast<std::int64_t>(sizeof(T));
  }
  // A receive out of the sender's mapped array (where w says), straight into B with the
  // local-copy kernels; said_in_[q] the errno when it cannot be mapped or the span is not
  // in it (the sender then sends it by message).
  void copy_mapped(const Transfer& t, const std::int64_t* w, std::size_t q) {
    Side sa = *env_.sa;
    sa.ld = w[7];
    const std::int64_t span = walk_span(Walk(sa, t), sa.ld) * static_cast<std::int64_t>(sizeof(T));
    const char* base = map_peer_array(SegmentId{w[0], w[1], w[2], w[3], w[4]}, &said_in_[q]);
    if (base && (sa.ld < 1 || w[5] % static_cast<std::int64_t>(alignof(T)) != 0 || span > w[4] - w[5]))
      base = nullptr, said_in_[q] = EINVAL;
    if (!base) {
      say_mapped_refused(said_in_[q]);
      return;
    }
    const double t0 = MPI_Wtime();
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the sender's array as of its word
    copy_transfer<T>(sa, reinterpret_cast<const T*>(base + w[5]), *env_.sb, env_.b, t);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // read before the word that says done
    moved_.unpack_s += MPI_Wtime() - t0;
    moved_.mapped += t.elements() * static_cast<std::int64_t>(sizeof(T));
  }
  void send_by_message(std::size_t k) {
    const Transfer& t = *out_[k];
    types_.emplace_back(mpi_type<T>(), sizeof(T), *from_[k].sa, t);
    back_.emplace_back();
    detail::check_mpi(MPI_Isend(from_[k].a, 1, types_.back().get(), t.dst, kByMessageTag, env_.comm, &back_.back()),
                      "MPI_Isend (window by message)");
  }
  void receive_by_message(const Transfer& t) {
    types_.emplace_back(mpi_type<T>(), sizeof(T), *env_.sb, t);
    back_.emplace_back();
    detail::check_mpi(MPI_Irecv(env_.b, 1, types_.back().get(), t.src, kByMessageTag, env_.comm, &back_.back()),
                      "MPI_Irecv (window by message)");
  }

  Env env_;
  std::vector<const Transfer*> out_, in_;
  std::vector<SendFrom> from_;  // per send
  std::vector<std::int64_t> where_in_, where_out_;
  std::vector<int> said_out_, said_in_;
  std::vector<MPI_Request> req_in_, req_out_, back_, said_;
  std::vector<PieceType> types_;
  Moved moved_;
};

}  // namespace redist::exec
