// SPDX-License-Identifier: BSD-3-Clause
// The message layout of a multi-matrix exchange (redist/src/exec/aggregate.hpp), no MPI:
// several matrices' pieces with one peer cut into messages of whole columns within the
// cap, aligned, each column once and in order; the posting order round by round; and a
// simulated job of ranks posting within windows and budgets, which must never deadlock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "exec/aggregate.hpp"

namespace {

using redist::exec::kSegmentAlign;
using redist::exec::Message;
using redist::exec::MessageCutter;
using redist::exec::PeerPiece;
using redist::exec::PeerQueue;
using redist::exec::Segment;

// Every message of one peer, cut.
std::vector<std::vector<Segment>> cut_all(const std::vector<PeerPiece>& pieces, std::int64_t cap,
                                          std::vector<std::int64_t>* bytes = nullptr) {
  MessageCutter c(&pieces, cap);
  std::vector<std::vector<Segment>> out;
  while (!c.done()) {
    std::vector<Segment> segs;
    const std::int64_t b = c.next(segs);
    if (bytes) bytes->push_back(b);
    out.push_back(segs);
  }
  return out;
}

// The layout's rules: segments aligned and disjoint, inside the message, each message at
// most cap unless it is one column; all columns of every piece once, in piece and column
// order.
void check_layout(const std::vector<PeerPiece>& pieces, std::int64_t cap) {
  std::vector<std::int64_t> bytes;
  const auto msgs = cut_all(pieces, cap, &bytes);
  std::size_t piece = 0;
  std::int64_t col = 0;
  auto skip_empty = [&] {
    while (piece < pieces.size() && pieces[piece].bytes() == 0) ++piece;
  };
  skip_empty();
  for (std::size_t m = 0; m < msgs.size(); ++m) {
    ASSERT_FALSE(msgs[m].empty()) << "message " << m;
    std::int64_t end = 0;
    for (const Segment& s : msgs[m]) {
      EXPECT_EQ(s.offset % kSegmentAlign, 0);
      EXPECT_GE(s.offset, end);
      ASSERT_EQ(s.piece, piece);
      ASSERT_EQ(s.first, col);
      EXPECT_GT(s.ncols, 0);
      EXPECT_EQ(s.bytes, s.ncols * pieces[s.piece].col_bytes());
      end = s.offset + s.bytes;
      col += s.ncols;
      if (col == pieces[piece].ncols) {
        ++piece;
        col = 0;
        skip_empty();
      }
    }
    EXPECT_EQ(bytes[m], end);
    const bool one_column = msgs[m].size() == 1 && msgs[m][0].ncols == 1;
    if (!one_column) {
      EXPECT_LE(end, cap) << "message " << m;
    }
  }
  EXPECT_EQ(piece, pieces.size()) << "every column travels";
}

TEST(Aggregate, OneMessageCarriesEveryMatrixWhenItFits) {
  // Three matrices of 8-, 16- and 4-byte elements with one peer.
  const std::vector<PeerPiece> p = {{5, 3, 8}, {7, 2, 16}, {3, 4, 4}};
  const auto msgs = cut_all(p, 1 << 20);
  ASSERT_EQ(msgs.size(), 1u);
  ASSERT_EQ(msgs[0].size(), 3u);
  EXPECT_EQ(msgs[0][0].offset, 0);
  EXPECT_EQ(msgs[0][1].offset, 128);  // 120 bytes, aligned up to 128
  EXPECT_EQ(msgs[0][2].offset, 352);  // 128 + 224
  check_layout(p, 1 << 20);
}

TEST(Aggregate, SmallCapCutsWholeColumnsAcrossMatrices) {
  const std::vector<PeerPiece> p = {{5, 10, 8}, {7, 6, 16}, {3, 9, 4}};
  for (std::int64_t cap : {40, 64, 100, 112, 200, 1000, 5000}) check_layout(p, cap);
  // cap 112: matrix 0's columns of 40 bytes go two a message (a third would end at 120).
  const auto msgs = cut_all(p, 112);
  EXPECT_EQ(msgs[0].size(), 1u);
  EXPECT_EQ(msgs[0][0].ncols, 2);
}

TEST(Aggregate, ColumnsLargerThanTheCapTravelAlone) {
  const std::vector<PeerPiece> p = {{100, 3, 8}, {1, 2, 4}};
  const auto msgs = cut_all(p, 64);
  ASSERT_EQ(msgs.size(), 4u);  // 3 big columns, then both small ones together
  for (int m = 0; m < 3; ++m) EXPECT_EQ(msgs[static_cast<std::size_t>(m)][0].ncols, 1);
  EXPECT_EQ(msgs[3][0].piece, 1u);
  EXPECT_EQ(msgs[3][0].ncols, 2);
  check_layout(p, 64);
}

TEST(Aggregate, EmptyPiecesAreSkipped) {
  const std::vector<PeerPiece> p = {{0, 3, 8}, {4, 0, 8}, {2, 2, 8}, {0, 0, 16}};
  const auto msgs = cut_all(p, 1 << 20);
  ASSERT_EQ(msgs.size(), 1u);
  ASSERT_EQ(msgs[0].size(), 1u);
  EXPECT_EQ(msgs[0][0].piece, 2u);
  check_layout(p, 1 << 20);
  const std::vector<PeerPiece> none = {{0, 3, 8}};
  EXPECT_TRUE(cut_all(none, 64).empty());
}

TEST(Aggregate, RandomPiecesKeepTheRules) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PeerPiece> p(1 + rng() % 5);
    const std::int64_t sizes[] = {4, 8, 16};
    for (auto& x : p) x = {static_cast<std::int64_t>(rng() % 20), static_cast<std::int64_t>(rng() % 12), sizes[rng() % 3]};
    check_layout(p, 16 + static_cast<std::int64_t>(rng() % 600));
  }
}

TEST(Aggregate, QueueGoesRoundByRound) {
  // Peer 0: 3 messages, peer 1: 1, peer 2: 2 (cap 64, columns of 64 bytes).
  PeerQueue q({{{8, 3, 8}}, {{8, 1, 8}}, {{8, 2, 8}}}, 64);
  std::vector<std::pair<std::int64_t, std::size_t>> order;
  while (const Message* m = q.peek()) {
    EXPECT_EQ(m->bytes, 64);
    const Message t = q.take();
    order.emplace_back(t.round, t.peer);
  }
  const std::vector<std::pair<std::int64_t, std::size_t>> want = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}};
  EXPECT_EQ(order, want);
  EXPECT_TRUE(q.empty());
}

TEST(Aggregate, WholePeersGoInOneMessage) {
  // Peer 1 travels as one datatype: one message whatever the cap; peer 0 is cut.
  PeerQueue q({{{8, 3, 8}}, {{8, 3, 8}, {4, 5, 16}}}, 64, {false, true});
  std::vector<std::pair<std::size_t, std::size_t>> peer_segs;
  while (!q.empty()) {
    const Message t = q.take();
    peer_segs.emplace_back(t.peer, t.segs.size());
  }
  const std::vector<std::pair<std::size_t, std::size_t>> want = {{0, 1}, {1, 2}, {0, 1}, {0, 1}};
  EXPECT_EQ(peer_segs, want);
}

// A job of P ranks, each with pieces for some peers (several matrices each); every rank
// posts in its queue's order within a window of W messages and a byte budget (always one
// when nothing is in flight), a message completes once both ends posted it, completions
// come in a random order. Every message must complete (no deadlock), and the two ends
// must see the same messages (bytes, rounds) for each pair.
struct Sim {
  struct Posted {
    int peer;
    std::int64_t round, bytes;
  };
  struct Side {
    PeerQueue q;
    std::vector<int> ranks;
    std::vector<Posted> flight;
    std::int64_t inflight = 0;
  };
  int P;
  std::vector<Side> out, in;
};

void simulate(int P, int window, std::int64_t budget, std::int64_t cap, std::uint32_t seed) {
  std::mt19937 rng(seed);
  // pieces[s][d]: what s sends to d (several matrices).
  std::map<std::pair<int, int>, std::vector<PeerPiece>> pieces;
  for (int s = 0; s < P; ++s)
    for (int d = 0; d < P; ++d)
      if (s != d && rng() % 3 != 0) {
        auto& v = pieces[{s, d}];
        const int nmat = 1 + static_cast<int>(rng() % 3);
        for (int k = 0; k < nmat; ++k)
          v.push_back({static_cast<std::int64_t>(1 + rng() % 9), static_cast<std::int64_t>(rng() % 7),
                       std::int64_t{8} << (rng() % 2)});
      }
  std::int64_t expected = 0;  // messages the job must complete
  for (const auto& [pair, v] : pieces) expected += static_cast<std::int64_t>(cut_all(v, cap).size());
  Sim sim{P, {}, {}};
  for (int r = 0; r < P; ++r) {
    for (int dir = 0; dir < 2; ++dir) {
      std::vector<std::pair<int, int>> order;
      for (int q = 0; q < P; ++q)
        if (pieces.count(dir == 0 ? std::make_pair(r, q) : std::make_pair(q, r)))
          order.emplace_back(dir == 0 ? (q - r + P) % P : (r - q + P) % P, q);
      std::sort(order.begin(), order.end());
      std::vector<std::vector<PeerPiece>> per;
      std::vector<int> ranks;
      for (auto [dist, q] : order) {
        ranks.push_back(q);
        per.push_back(pieces[dir == 0 ? std::make_pair(r, q) : std::make_pair(q, r)]);
      }
      auto& side = (dir == 0 ? sim.out : sim.in).emplace_back(Sim::Side{PeerQueue(std::move(per), cap), ranks, {}, 0});
      (void)side;
    }
  }
  auto post_all = [&](Sim::Side& s) {
    while (const Message* m = s.q.peek()) {
      if (static_cast<int>(s.flight.size()) >= window) break;
      if (!s.flight.empty() && s.inflight + m->bytes > budget) break;
      const Message t = s.q.take();
      s.flight.push_back({s.ranks[t.peer], t.round, t.bytes});
      s.inflight += t.bytes;
    }
  };
  for (auto& s : sim.out) post_all(s);
  for (auto& s : sim.in) post_all(s);
  std::int64_t completed = 0;
  for (;;) {
    // Matching pairs: a send of s to d and a receive of d from s, the first of each pair
    // in flight (MPI matches one pair's messages in order).
    std::vector<std::tuple<int, std::size_t, std::size_t>> ready;
    for (int s = 0; s < P; ++s) {
      std::map<int, bool> seen;
      for (std::size_t i = 0; i < sim.out[static_cast<std::size_t>(s)].flight.size(); ++i) {
        const auto& m = sim.out[static_cast<std::size_t>(s)].flight[i];
        if (seen[m.peer]) continue;
        seen[m.peer] = true;
        const auto& rf = sim.in[static_cast<std::size_t>(m.peer)].flight;
        for (std::size_t j = 0; j < rf.size(); ++j)
          if (rf[j].peer == s) {
            ASSERT_EQ(rf[j].round, m.round) << s << " -> " << m.peer;
            ASSERT_EQ(rf[j].bytes, m.bytes) << s << " -> " << m.peer;
            ready.emplace_back(s, i, j);
            break;
          }
      }
    }
    if (ready.empty()) break;
    const auto [s, i, j] = ready[rng() % ready.size()];
    auto& so = sim.out[static_cast<std::size_t>(s)];
    const int d = so.flight[i].peer;
    auto& ri = sim.in[static_cast<std::size_t>(d)];
    so.inflight -= so.flight[i].bytes;
    ri.inflight -= ri.flight[j].bytes;
    so.flight.erase(so.flight.begin() + static_cast<std::ptrdiff_t>(i));
    ri.flight.erase(ri.flight.begin() + static_cast<std::ptrdiff_t>(j));
    ++completed;
    post_all(so);
    post_all(ri);
  }
  for (int r = 0; r < P; ++r) {
    EXPECT_TRUE(sim.out[static_cast<std::size_t>(r)].flight.empty() && sim.out[static_cast<std::size_t>(r)].q.empty())
        << "rank " << r << " left sends (deadlock), P " << P << " window " << window << " seed " << seed;
    EXPECT_TRUE(sim.in[static_cast<std::size_t>(r)].flight.empty() && sim.in[static_cast<std::size_t>(r)].q.empty())
        << "rank " << r << " left receives (deadlock), P " << P << " window " << window << " seed " << seed;
  }
  EXPECT_EQ(completed, expected);
}

TEST(Aggregate, SimulatedJobsNeverDeadlock) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    simulate(2 + static_cast<int>(seed % 7), 1 + static_cast<int>(seed % 3), 64 + 16 * (seed % 5), 48, seed);
    simulate(5, 64, INT64_MAX / 4, 1 << 20, seed);
  }
}

}  // namespace
