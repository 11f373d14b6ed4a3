// SPDX-License-Identifier: BSD-3-Clause
// The message layout of the engine's exchanges (exec/exchange.cpp), pure: several
// plans' pieces with one peer travel together, one message per peer per round carrying
// every matrix's pieces (COSTA's transform over a vector of layouts does the same), not
// one message per matrix. Both ends of a peer pair cut the same pieces into the same
// messages, from the pieces' shapes and the message cap alone. No MPI; unit-tested in
// tests/redist/aggregate_test.cpp. Internal to redist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redist::exec {

// Where a segment starts in a message: a multiple of this many bytes, so every element
// type (at most 16 bytes) is aligned in a buffer the allocator aligns (16 bytes).
constexpr std::int64_t kSegmentAlign = 16;

// One matrix's transfer with one peer: `ncols` columns of `rows_per_col` elements of
// `elem_bytes` bytes each (the transfer's shape, the same on both ends).
struct PeerPiece {
  std::int64_t rows_per_col = 0, ncols = 0, elem_bytes = 0;
  std::int64_t col_bytes() const { return rows_per_col * elem_bytes; }
  std::int64_t bytes() const { return col_bytes() * ncols; }
};

// Part of a message: columns [first, first + ncols) of piece `piece`, `bytes` long, at
// byte `offset` of the message.
struct Segment {
  std::size_t piece = 0;
  std::int64_t first = 0, ncols = 0, offset = 0, bytes = 0;
};

// One message to or from a peer: the peer's index (in the order the queue was given),
// its round (the how-many-th message to that peer), its length and its segments.
struct Message {
  std::size_t peer = 0;
  std::int64_t round = 0, bytes = 0;
  std::vector<Segment> segs;
};

// Cuts one peer's pieces (in the order given: item by item) into messages of whole
// columns: each at most `cap` bytes (segments aligned to kSegmentAlign), or one column
// when a column alone is larger. Pieces without elements are skipped. Lazy: it holds a
// position (piece, column), never the list of messages, so a small cap costs no memory.
class MessageCutter {
 public:
  MessageCutter(const std::vector<PeerPiece>* pieces, std::int64_t cap);
  bool done() const { return k_ >= pieces_->size(); }
  // The next message's segments into segs (cleared first); returns its bytes (0 when done).
  std::int64_t next(std::vector<Segment>& segs);

 private:
  void skip_empty();
  const std::vector<PeerPiece>* pieces_;
  std::int64_t cap_;
  std::size_t k_ = 0;
  std::int64_t col_ = 0;
};

// The messages of one direction (sends or receives) in the order they are posted: round
// by round, and in a round the peers in the order given (one message each, those with
// messages left). Senders list their peers by (dst - me) mod P and receivers by (me - src)
// mod P, so every message has the same place, (round, (dst - src) mod P), in its sender's
// and its receiver's order: the job-wide earliest incomplete message is posted at both
// ends whenever each end posts in this order and always posts when nothing is in flight
// (no deadlock under any window or budget).
class PeerQueue {
 public:
  PeerQueue() = default;
  // whole[q] (when given): peer q's pieces go in one message whatever its size (they
  // travel as one MPI datatype in place, nothing staged).
  PeerQueue(std::vector<std::vector<PeerPiece>> per_peer, std::int64_t cap, const std::vector<bool>& whole = {});
  // The cutters point into pieces_ (whose buffer a move keeps): movable, not copyable.
  PeerQueue(PeerQueue&&) = default;
  PeerQueue& operator=(PeerQueue&&) = default;
  PeerQueue(const PeerQueue&) = delete;
  PeerQueue& operator=(const PeerQueue&) = delete;
  // The next message (not taken), or null when none is left.
  const Message* peek();
  // Takes the message peek() showed.
  Message take();
  bool empty() { return peek() == nullptr; }
  std::size_t peers() const { return pieces_.size(); }
  const std::vector<PeerPiece>& pieces(std::size_t peer) const { return pieces_[peer]; }

 private:
  std::vector<std::vector<PeerPiece>> pieces_;
  std::vector<MessageCutter> cut_;
  std::vector<std::int64_t> rounds_;  // messages already cut per peer
  std::vector<std::size_t> active_;   // this round's peers, in order
  std::vector<std::size_t> later_;    // the next round's (those with messages left)
  std::size_t pos_ = 0;               // the next peer in active_
  bool have_ = false;
  Message next_;
};

}  // namespace redist::exec
