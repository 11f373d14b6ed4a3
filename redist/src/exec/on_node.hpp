// SPDX-License-Identifier: BSD-3-Clause
// The transport of each transfer of an exchange, chosen per peer pair, and the on-node
// transports run for each phase of the engine (exchange.cpp):
// a transfer between two ranks of one node is read in one copy (single_copy.hpp) or goes
// through this rank's node-shared segment (node_window.hpp); every other one by message.
// Both ends of a transfer choose alike, from the transfer, the options and the node map
// (grouped by host name, so it holds on a world merged from several jobs, whose MPI
// shared-memory transport does not connect them). Internal to redist.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "local_copy.hpp"
#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

// MappedRead: a send through the window's words out of a mapped array (redist_alloc): the
// receiver copies the pieces straight out of the sender's array, one copy (node_window.hpp,
// WindowStep). HugeRead: a send through the window's words out of an array of A in huge
// pages whose pieces are long (reads_huge, segments.hpp): the receiver reads them straight
// out of the sender's A with the kernel (process_vm_readv), one copy. Both are the sender's
// choice (it alone knows where its array lies and how it is paged), told to the receiver in
// the window's word, so a receive's route is Window either way.
enum class Route { Message, SingleCopy, Window, MappedRead, HugeRead };

// The choice per transfer. `node` null: every transfer by message (no node map asked: an
// exchange under Agreement::Local, whose start() makes no collective call, or a transport
// that names a kind of message). A new transport between processes of one node (e.g.
// segments for peers MPI does not connect) is a new Route chosen here.
// Under WindowPairs::OtherJobs the window joins only ranks of different MPI jobs, so a
// pair of one job (whose MPI shared memory copies once) goes by message.
struct Routing {
  const std::vector<int>* node = nullptr;  // ranks of this node, sorted
  std::vector<int> window_ranks;           // the node's ranks the window joins, sorted (joined_by_window())
  bool reads = false;                      // single copy possible on this system
  bool window = false;                     // the node window possible on this system
  bool mapped = false;                     // window sends out of mapped arrays copied by the receiver
  bool huge = false;                       // window sends out of huge pages read by the receiver (reads_huge)
  SingleCopy mode = SingleCopy::Auto;
  Transport transport = Transport::Auto;
  // from: a send's array of A (for MappedRead and HugeRead; empty: not asked).
  Route route(const Transfer& t, int me, std::size_t elem_bytes, const SendFrom& from = {}) const;
  // Whether the sender of receive t may choose HugeRead (an upper bound: a column of it holds
  // kHugeReadMinPieceBytes), for the memory held by a read.
  bool may_read_huge(const Transfer& t, std::size_t elem_bytes) const;
};

// Whether the pieces of send t (elements of elem_bytes) lie in one mapped array of this
// process (from: the send's array of A and its side).
bool mapped_source(const Transfer& t, std::size_t elem_bytes, const SendFrom& from);

// Pure: the ranks of `node` (sorted) that rank `me`'s node window joins: all of them
// (`job` null: WindowPairs::Any), or `me` and the ranks outside `job` (the sorted ranks of
// me's MPI job: WindowPairs::OtherJobs).
std::vector<int> joined_by_window(const std::vector<int>& node, const std::vector<int>* job, int me);

// Whether the pieces of a send (w: its walk in A) lie in huge pages of this process
// (huge_paged over their span in the send's array of A: kHugeProbes ioctls, whatever the size).
bool huge_source(const Walk& w, std::size_t elem_bytes, const SendFrom& from);

// The routing of an exchange on `user_comm` (collective the first time per communicator
// when `collective`: the node map; else every transfer by message).
Routing make_routing(MPI_Comm user_comm, const ExecOptions& opt, bool collective);

// One item's arrays on this rank (as the exchange holds them).
struct ItemArrays {
  std::size_t elem_bytes = 0;
  const Side* sa = nullptr;
  const Side* sb = nullptr;
  const void* a = nullptr;
  void* b = nullptr;
};

// The on-node transfers of an exchange, phase by phase (a plan's steps, or one phase of
// every item): add() a phase's transfers item by item (in item order, the same on every
// rank), begin() after the phase's messages are posted, end() once they are complete
// (every rank posts its on-node words in begin(), so no end() waits for a rank still
// moving messages); close() after the last phase (the window's last words). The window
// is made at the first begin() that needs it, `need` bytes (set_window: every phase's
// window sends); where one phase packs several items into it (wrap false), all of them fit
// or none goes through it, since a phase cannot reuse room it has not released. Memory:
// O(the phase's on-node transfers) and this rank's segment.
class OnNode {
 public:
  OnNode(MPI_Comm comm, MPI_Comm user_comm, const std::vector<int>* node, const ExecOptions& opt, bool sleep);
  ~OnNode();
  OnNode(const OnNode&) = delete;
  OnNode& operator=(const OnNode&) = delete;
  void set_window(std::int64_t need, bool wrap) { need_ = need, wrap_ = wrap; }
  void open_window();  // makes the window now (else the first begin() that needs it does)
  // from: a send's array of A (the item's, or a held coordinate's).
  void add(std::size_t item, const ItemArrays& arrays, const Transfer* t, bool send, Route r, SendFrom from = {});
  bool empty() const { return items_.empty(); }
  void begin();
  void end(ExecStats& st);
  void close();
  std::int64_t segment_bytes() const;  // this rank's node window segment, when made
  std::int64_t bytes_held() const;     // the phase's single-copy steps' bookkeeping
  static std::int64_t reader_bytes();  // of that, a phase's one read batch

 private:
  struct Item;
  MPI_Comm comm_, user_comm_;
  const std::vector<int>* node_;
  ExecOptions opt_;
  bool sleep_;
  std::int64_t need_ = -1;
  bool wrap_ = false;
  std::vector<std::unique_ptr<Item>> items_;
  struct Window;
  std::unique_ptr<Window> win_;
};

}  // namespace redist::exec
