// SPDX-License-Identifier: BSD-3-Clause
// Executing a redistribution plan over MPI: B(layout b) := A(layout a) inside one
// enclosing communicator (the plan/schedule come from plan.hpp).
//
// Local storage is ScaLAPACK's: column-major, local leading dimension lda/ldb. A and B may
// share storage (overlapping submatrices of one array): B then receives A's values from
// before the call, as through a temporary copy (docs/reference/redist.md, "Aliased arguments").
// Processes
// in only one of the two grids take part with the side they have; a process that holds no
// data on a side may pass nullptr for it. Every call is collective over `comm`.
//
// Bad input (sizes that do not match, region out of range, LLD too small, a null buffer
// where data is held, processes that were given different layouts) is detected by all
// ranks together before any data moves: every rank throws redist::Error with the same
// message (naming the first failing rank, the argument and its value), B is untouched and
// no rank is left waiting.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/plan.hpp"

namespace redist {

// How a transfer's pieces leave and enter local storage.
enum class Transport {
  // An MPI derived datatype (indexed rows x indexed columns) describes the pieces in
  // place: MPI moves them straight from A's local array into B's, no staging in redist.
  Datatype,
  // Pack into a staging buffer of at most `staging_bytes` per message (and at most
  // memory_budget_bytes / 8), send, unpack; transfers larger than that go as several
  // messages.
  Packed,
  // Per transfer, from its runs (both ends decide alike): Packed when its contiguous
  // pieces average under 256 bytes (blocks of a few elements, where MPI's datatype engine
  // walks element by element), Datatype otherwise (docs/reference/redist.md, "Execution"). Default.
  Auto
};

// How a rank waits for its messages. Spinning (MPI_Waitall) is best when every rank has
// a core; when ranks outnumber cores (oversubscribed runs, common right after an
// expansion spawns processes onto busy nodes) a spinning waiter steals the core from the
// rank that is copying the data it waits for, so testing and sleeping between tests is
// several times faster (docs/reference/redist.md). Auto picks Sleep when the ranks of the
// communicator on this node exceed 8 per CPU under Open MPI (the crossover measured on 2
// CPUs), 1 per CPU under MPICH, whose waiters do not yield (docs/guide/mpi-flavours.md).
enum class WaitMode { Auto, Spin, Sleep };

// Whether transfers between ranks of one node are read in one copy (ExecOptions::single_copy).
enum class SingleCopy { Auto, Off, On };

// Which pairs of ranks of one node the node window joins (ExecOptions::window_pairs).
enum class WindowPairs { Any, OtherJobs };

struct ExecOptions {
  Transport transport = Transport::Auto;
  WaitMode wait = WaitMode::Auto;
  int sleep_us = 20;  // pause between tests in Sleep mode
  // The most bytes this call allocates beyond the two local arrays (staging buffers, the
  // bookkeeping of messages in flight, request arrays; docs/reference/redist.md, "Memory budget"):
  // a step's messages go in a window that fits it, refilled as messages complete, so a
  // small budget moves the data in more rounds. 0 = no limit. At least 4096 otherwise.
  // Every rank must pass the same value unless transport is Datatype (it sets the size of
  // packed messages, which both ends of a transfer derive alike). ExecStats::peak_bytes
  // says what was used.
  std::int64_t memory_budget_bytes = std::int64_t{256} << 20;
  // The largest packed message (the per-message part of the budget): a message holds
  // whole columns of one transfer, at most min(staging_bytes, memory_budget_bytes / 8)
  // bytes, or one column when a column is larger. Kept from before the budget existed;
  // prefer setting memory_budget_bytes. A transfer whose one column exceeds
  // memory_budget_bytes / 4 goes as a datatype (no staging) even under Packed.
  std::int64_t staging_bytes = std::int64_t{8} << 20;
  // Messages posted and not yet complete, per direction (sends, receives), at most this
  // many at once: a rank with thousands of partners in one step (AllAtOnce) posts a window
  // and refills it as messages complete. At least 1.
  int max_outstanding = 64;
  // Split waiting from transferring, as the thesis's tables of step times do: before each step every rank exchanges an
  // empty message with that step's partners, so the time until all partners are ready
  // (waiting) is measured apart from the time moving data (transferring). Costs one
  // small round trip per step; off by default.
  bool split_wait_transfer = false;
  // Packed transport: take this rank's local copy along with the unpacking (when the
  // received pieces land in the same local columns of B) or the packing (the sent pieces
  // come from the same local columns of A), so each column is read or written in one pass
  // instead of two. Matters for blocks of a few rows (docs/reference/redist.md, "Execution"); the
  // result is the same either way. The fused pass's time counts in unpack_s or pack_s.
  bool fuse_local = true;
  // On one node, a transfer may go in one copy: the receiver reads the sender's A into B, or
  // the sender writes into the receiver's B (cross-memory attach, process_vm_readv/writev;
  // docs/reference/redist.md, "Single copy on a node") instead of through the node window (pack,
  // unpack) or by message. Auto (the default): under Transport::Auto, the transfers whose
  // contiguous pieces average at least 1 MiB (exec/segments.hpp; from there one kernel
  // read of a piece measured even with packing and unpacking it, and the sender stages
  // nothing: malleable-redist-bench cma, docs/data/single_copy.txt). A kernel read costs ~1 us a
  // piece and 1.6-3.5x a memcpy a byte, so shorter pieces go through the window, except
  // where the sender's A lies in huge pages (as the kernel's page tables say) and its
  // pieces there average at least 16 KiB: the sender says so in the window's word and the
  // receiver reads them with the kernel (pinned 2 MiB at a time, the read beats pack and
  // unpack; counted in ExecStats::bytes_single_copy). On:
  // every transfer between two ranks of one node (any transport). Off: none. Both ends
  // of a transfer decide from the transfer alone, so they agree. Where the system forbids
  // the read, that transfer goes by message (the result is the same). Every rank must
  // pass the same value.
  SingleCopy single_copy = SingleCopy::Auto;
  // Transfers between ranks of one node go through shared memory: the sender packs into a
  // segment of its own that the receiver maps and unpacks from directly, two copies and no
  // message of data (docs/reference/redist.md, "A node-shared staging window"). The segments belong
  // to processes, not to communicators: nothing waits when a communicator is freed, and
  // /dev/shm keeps no name. Where shared memory is unavailable (or a sender's segment
  // cannot be mapped) those transfers go by message and the reason is said once on stderr.
  // Applies under Transport::Auto (Datatype and Packed name a kind of message). Every rank
  // must pass the same value.
  bool node_window = true;
  // A send to a rank of the same node whose local array of A lies in a mapped array
  // (redist_alloc, malleable/redist/mapped.h) is copied by its receiver straight out of that
  // array into B, one copy at memory speed (docs/reference/mapped-arrays.md): the transfers
  // of the node window and those single_copy takes, whatever the size of their pieces
  // (instead of the kernel's read or write); where the receiver cannot map it, by message.
  // Arrays not allocated there are unaffected. Each rank decides for its own sends and
  // tells the receiver, so ranks may pass different values.
  bool mapped_read = true;
  // Keep this process's mappings of its peers' mapped arrays after the call, so that a next
  // call on the same arrays finds their pages mapped (off: let go of at the end of the call;
  // a mapping keeps an array its owner freed alive, until this process maps a newer array of
  // that peer on the same descriptor, more than 4 of it, or finalizes).
  bool mapped_keep = false;
  // Which on-node pairs the node window takes. Any (the default): every pair. OtherJobs:
  // only a rank and a peer of another MPI job (another MPI_COMM_WORLD: an original process
  // and a newcomer it spawned, which Open MPI joins over TCP); a pair of one job keeps MPI's
  // own transport (its shared memory copies a message once where the window packs and
  // unpacks: two copies). Each rank knows its job's ranks locally (node_map.hpp, job_ranks),
  // and the choice is symmetric, so both ends of a transfer agree. What a resize's moves use
  // (docs/reference/redist.md, "One engine for every move"). Every rank must pass the same value.
  WindowPairs window_pairs = WindowPairs::Any;
};

struct ExecStats {
  double total_s = 0;      // whole call, including the collective argument check
  double check_s = 0;      // the collective argument check
  double local_copy_s = 0; // src == dst pieces copied in memory
  double wait_s = 0;       // with split_wait_transfer: waiting for partners per step
  double transfer_s = 0;   // moving data (with split: after partners are ready)
  double pack_s = 0;       // packed transport: copying pieces into staging buffers (part of transfer_s)
  double unpack_s = 0;     // packed transport: copying received buffers into B (part of transfer_s)
  std::int64_t bytes_sent = 0, bytes_received = 0, bytes_local = 0;
  // Of bytes_received, those read in one copy from a process of the same node (single_copy).
  std::int64_t bytes_single_copy = 0;
  // Of bytes_local, those copied in one pass with the unpacking or the packing (fuse_local).
  std::int64_t bytes_fused = 0;
  // Of bytes_received, those unpacked straight from a node-shared window (node_window).
  std::int64_t bytes_window = 0;
  // Of bytes_received, copied straight out of a sender's mapped array (ExecOptions::mapped_read).
  std::int64_t bytes_mapped = 0;
  // A's local array copied before any data moved because it shares storage with B's on
  // this rank (aliased arguments: the result is as if A were read entirely first).
  std::int64_t bytes_staged = 0;
  int steps = 0;
  // The most bytes the executor held at once (staging buffers in use, the bookkeeping of
  // messages in flight and the step's request arrays); at most memory_budget_bytes when
  // it is set (docs/reference/redist.md, "Memory budget"). Excludes bytes_staged (a copy of A's
  // local array, made only when A and B share storage).
  std::int64_t peak_bytes = 0;
  // Batches of messages posted: one per step when the whole step fits the budget and the
  // window at once; each refill of the window after messages completed adds one.
  int rounds = 0;
  std::int64_t messages = 0;  // messages posted (sent + received)
  int max_in_flight = 0;      // most messages in flight at once in one direction (<= max_outstanding)
};

// Executes `plan` (from make_plan with comm's size). T is float, double,
// std::complex<float> or std::complex<double>.
template <class T>
void redistribute(MPI_Comm comm, const RedistPlan& plan, const T* a, std::int64_t lda, T* b,
                  std::int64_t ldb, const ExecOptions& opt = {}, ExecStats* stats = nullptr);

// Plans and executes; a planning error on any rank is reported on every rank.
template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb,
                  T* b, std::int64_t ldb, const Region& region,
                  ScheduleKind schedule = ScheduleKind::Default, const ExecOptions& opt = {},
                  ExecStats* stats = nullptr);

// The whole matrix: B := A (a size mismatch is reported collectively like any error).
template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb,
                  T* b, std::int64_t ldb, ScheduleKind schedule = ScheduleKind::Default,
                  const ExecOptions& opt = {}, ExecStats* stats = nullptr);

// ---- Several matrices in one exchange, blocking or not (docs/reference/redist.md, "Several
// matrices in one exchange").
//
// One matrix of a multi-matrix exchange: B := A by `plan` (from make_plan with comm's
// size, any schedule: the exchange posts every peer at once within its window, see
// below), A's and B's local arrays as in redistribute(). Build it with of<T>() for T
// float, double, std::complex<float> or std::complex<double>; the items of one exchange
// may have different element types.
//
// A rank that holds the local arrays of several coordinates of A (an A layout whose ranks
// are RankMap::holding_several: level recovery, where a process holds the copies of
// several processes of the old grid) names each one in `held` (and passes a = nullptr):
// every coordinate A's ranks place it at, once. Its transfers go by message.
struct HeldArray {
  int pr = 0, pc = 0;          // the coordinate of A's grid
  const void* a = nullptr;     // that coordinate's local array
  std::int64_t lda = 1;
};
struct ExchangeItem {
  const RedistPlan* plan = nullptr;
  const void* a = nullptr;
  std::int64_t lda = 1;
  void* b = nullptr;
  std::int64_t ldb = 1;
  std::size_t elem_bytes = 0;  // sizeof(T): 4, 8 or 16
  std::vector<HeldArray> held{};  // see above; empty otherwise
  template <class T>
  static ExchangeItem of(const RedistPlan& p, const T* a, std::int64_t lda, T* b, std::int64_t ldb) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::complex<float>> ||
                      std::is_same_v<T, std::complex<double>>,
                  "redist moves float, double, std::complex<float> or std::complex<double>");
    return {&p, a, lda, b, ldb, sizeof(T), {}};
  }
};

// How start() checks the arguments.
enum class Agreement {
  // As redistribute(): every rank checks its own and all agree (one allreduce on a private
  // duplicate of comm) before any data moves; a bad argument anywhere throws the same
  // redist::Error on every rank. start() is then collective and blocking.
  Collective,
  // Each rank checks its own and throws alone; no collective call, messages go on `comm`
  // itself (the caller keeps it for this exchange: no other traffic on it with redist's
  // tag). For callers that agree by other means and must not block in start(): a
  // background resize posts from a helper thread, and its newcomers post their receives
  // before they know whether the old processes will post at all (then they cancel()).
  // WaitMode::Auto sleeps between tests (no node query, which would be collective).
  Local
};

// A non-blocking exchange of one or several matrices: start() posts the messages, test()
// moves them on without blocking, finish() waits for the rest. Every matrix's pieces for
// one peer travel in the same messages, not one message per matrix and peer: as one MPI
// datatype in place (nothing staged) when opt.transport is Datatype, or Auto and every
// transfer with that peer has long pieces (the rule of Transport::Auto); else packed, one
// message per peer per round (a round is at most min(staging_bytes, memory_budget_bytes /
// 8) bytes of whole columns, one column when a column is larger). The local pieces are
// copied in start(), after the first messages are posted. Messages are posted round by
// round, each direction within max_outstanding messages and half of memory_budget_bytes,
// refilled by test() and finish() as messages complete. Under Agreement::Collective the
// transfers between ranks of one node go as redistribute() moves them (single_copy,
// node_window: read in place, or through the sender's node-shared segment, after the
// messages are posted; test() and finish() end them once this rank's messages are
// complete); under Agreement::Local every transfer is a message (start() asks no node
// map, which is collective). fuse_local applies when the exchange holds one matrix (its
// one local transfer with the packing or unpacking of its messages); split_wait_transfer
// applies where the engine follows a plan's steps (redistribute() of one matrix) and is
// ignored here. The blocking forms run the same engine (start(), then finish()).
//
// Between start() and the end of finish() (or test() returning true) A's arrays must not
// change and B's must not be read or written. The items' plans and arrays must outlive
// the exchange. Not thread-safe: one thread at a time calls its members.
class Exchange {
 public:
  Exchange(MPI_Comm comm, std::vector<ExchangeItem> items, const ExecOptions& opt = {},
           Agreement agreement = Agreement::Collective);
  // Destroying a started, unfinished exchange completes its posted messages (every rank
  // of the exchange posted the matching ones in start()) without unpacking further, and
  // frees everything; after cancel() there is nothing left to complete.
  ~Exchange();
  Exchange(Exchange&&) noexcept;
  Exchange& operator=(Exchange&&) noexcept;
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Checks (see Agreement), posts the first messages, copies the local pieces. Once.
  void start();
  // Completes what arrived (unpacked into B), posts more; true once every message of this
  // rank is complete and unpacked (B final on this rank). Never blocks.
  bool test();
  // Waits (as opt.wait says) until every message of this rank is complete and unpacked.
  // Figures of the whole exchange (start to finish) into *stats.
  void finish(ExecStats* stats = nullptr);
  // Withdraws this rank's messages in flight (MPI_Cancel, then waited for) and posts no
  // more; B is left partly written. Only for exchanges whose peers never post the
  // matching messages (a background expansion cancelled before the old processes
  // posted: the newcomers, which only receive, withdraw). A send the MPI cannot cancel
  // completes only once received.
  void cancel();
  bool started() const;
  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Several matrices in one exchange, blocking (collective over comm, errors agreed as in
// redistribute()): Exchange(comm, items, opt).start(), then finish(stats).
void redistribute(MPI_Comm comm, const std::vector<ExchangeItem>& items, const ExecOptions& opt = {},
                  ExecStats* stats = nullptr);

// This process's node-window segment (ExecOptions::node_window) made ahead of an exchange
// that will send about `bytes` through it: its pages reserved and mapped now, so that the
// exchange (which keeps a segment of at least its need and at most 4x it, without a memory
// budget) finds it ready instead of making it. A resize calls it while the process waits
// in MPI_Comm_spawn. The first call makes one MPI call (the MPI_Finalize hook that frees
// the segment): make it from the thread that calls MPI, e.g. with bytes = 0, which does
// only that; a later call makes none and may run on another thread while that one waits
// in MPI, provided no exchange runs meanwhile. False where no segment could be had
// (unsupported, shared memory unavailable; the exchange then goes by message as always).
bool reserve_node_window(std::int64_t bytes);

}  // namespace redist
