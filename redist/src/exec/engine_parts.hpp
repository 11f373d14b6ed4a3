// SPDX-License-Identifier: BSD-3-Clause
// The engine's records (exchange.cpp): a batch's items as this rank holds them, and one
// phase's messages per direction and peer. Internal to redist.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "aggregate.hpp"
#include "checks.hpp"
#include "held.hpp"
#include "local_copy.hpp"
#include "node_window.hpp"
#include "on_node.hpp"
#include "transport.hpp"
#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

// The copy kernels only move elements: one raw type per element size serves every type
// of that size (float and nothing else is 4 bytes, double and complex<float> 8, ...).
struct Raw16 {
  std::uint64_t lo, hi;
};
template <class F>
void by_size(std::size_t eb, F&& f) {
  switch (eb) {
    case 4: f(std::uint32_t{}); return;
    case 8: f(std::uint64_t{}); return;
    default: f(Raw16{}); return;
  }
}

// The MPI type of an element of eb bytes in a datatype message (both ends use the same).
MPI_Datatype element_type(std::size_t eb) { return eb == 4 ? MPI_FLOAT : eb == 8 ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX; }

std::int64_t rows_per_col(const Transfer& t) {
  std::int64_t n = 0;
  for (const auto& r : t.rows) n += r.elements();
  return n;
}
std::int64_t ncols(const Transfer& t) {
  std::int64_t n = 0;
  for (const auto& c : t.cols) n += c.elements();
  return n;
}

// One item of the batch on this rank.
struct Mat {
  const RedistPlan* plan = nullptr;
  const char* a = nullptr;
  char* b = nullptr;
  std::size_t eb = 0;
  Side sa, sb;
  std::vector<char> staged;     // A's local array, copied when it shares storage with a B
  std::vector<HeldArray> held;  // A's coordinates this rank holds, when it holds several
  std::vector<Side> held_sa;    // their sides (each its own lda)
};
// Where a transfer's pieces of A are on this rank: the item's array, or the array of the
// held coordinate the transfer comes from (the owner of its first row and column).
struct Source {
  const Side* sa = nullptr;
  const char* a = nullptr;
};
inline Source source_of(const Mat& m, const Transfer& t) {
  if (m.held.empty()) return {&m.sa, m.a};
  const int pr = m.plan->a.row_owner(t.rows.front().start), pc = m.plan->a.col_owner(t.cols.front().start);
  for (std::size_t h = 0; h < m.held.size(); ++h)
    if (m.held[h].pr == pr && m.held[h].pc == pc) return {&m.held_sa[h], static_cast<const char*>(m.held[h].a)};
  return {};  // not held here: the caller's check refused it
}
// This rank's transfer of one item in a phase, and its route (on_node.hpp).
struct Entry {
  std::size_t item = 0;
  const Transfer* t = nullptr;
  Route route = Route::Message;
};
// One item's transfer with one peer by message, walked on this rank's side when packed.
struct Link {
  std::size_t item = 0;
  const Transfer* t = nullptr;
  std::optional<Walk> w;
  std::vector<LocalRun> packed;
  Source src;  // sends: A's array and side
};
struct Local {
  std::size_t item = 0;
  const Transfer* t = nullptr;
  Source src;
};
// One peer of one direction in a phase: its links (item by item), whether they travel as
// one datatype in place, their bookkeeping (charged from its first message posted to its
// last completed) and, in a fused pass, the staging of its one message.
struct Peer {
  int rank = 0;
  std::vector<Link> links;
  bool typed = false;
  std::int64_t meta = 0, nmsgs = 0, posted = 0, done = 0;
  std::vector<char> pre;
};
struct Dir {
  bool send = false;
  std::vector<Peer> peers;  // in posting order
  PeerQueue queue;
  int nflight = 0, window = 1;
  std::int64_t inflight = 0, budget = 0, total = 0;
  bool keep = false;  // Target fusion: received buffers are kept for the fused pass
};
struct Slot {
  Dir* d = nullptr;
  Message msg;
  std::vector<char> buf;
};
static constexpr std::int64_t kSlotBytes = sizeof(Slot) + sizeof(MPI_Request) + 2 * sizeof(int);


// The messages in flight: their buffers (one slot per message, reused), their requests,
// the free slots and the completed ones of the last wait, and how they are waited for.
struct Posted {
  std::vector<Slot> slots;
  std::vector<MPI_Request> req;
  std::vector<int> free, done;
  bool sleep = false;    // wait by testing and sleeping (WaitMode)
  bool discard = false;  // the destructor completes messages without unpacking
  int take(bool* grew) {  // a free slot (a new one when none is free: *grew)
    *grew = free.empty();
    if (*grew) {
      free.push_back(static_cast<int>(slots.size()));
      slots.emplace_back();
      req.push_back(MPI_REQUEST_NULL);
    }
    const int k = free.back();
    free.pop_back();
    return k;
  }
};
// The item's local arrays and their sides.
inline Mat make_mat(const ExchangeItem& it) {
  Mat m;
  const RedistPlan& p = *it.plan;
  m.plan = &p;
  m.a = static_cast<const char*>(it.a);
  m.b = static_cast<char*>(it.b);
  m.eb = it.elem_bytes;
  m.sa = Side{p.a.row_axis(), p.a.col_axis(), 0, 0, it.lda, false};
  m.sb = Side{p.b.row_axis(), p.b.col_axis(), p.region.ib - p.region.ia, p.region.jb - p.region.ja, it.ldb, true};
  m.held = it.held;
  for (const HeldArray& h : m.held) m.held_sa.push_back(Side{m.sa.rows, m.sa.cols, 0, 0, h.lda, false});
  return m;
}

// A's local arrays that share storage with any item's B on this rank are copied first:
// B then receives A's values from before the call, as through a temporary (PDGEMR2D's
// answer; docs/reference/redist.md, "Aliased arguments"). Each rank decides for itself.
// Returns the bytes copied.
inline std::int64_t stage_aliased(std::vector<Mat>& mats, int me) {
  std::int64_t staged = 0;
  for (auto& m : mats) {
    if (!m.a) continue;
    const std::int64_t na = local_span(m.plan->a, me, m.sa.ld) * static_cast<std::int64_t>(m.eb);
    if (na <= 0) continue;
    bool shared = false;
    for (const auto& o : mats) {
      const std::int64_t nb = o.b ? local_span(o.plan->b, me, o.sb.ld) * static_cast<std::int64_t>(o.eb) : 0;
      shared = shared || (nb > 0 && overlap(m.a, na, static_cast<const char*>(o.b), nb));
    }
    if (!shared) continue;
    m.staged.assign(m.a, m.a + na);
    m.a = m.staged.data();
    staged += na;
  }
  return staged;
}

// Whether all of d's messages can be in flight at once, each peer's one message of
// `item` (then its first fill posts them all): the precondition of a fused pass there.
inline bool fits_at_once(const Dir& d, std::size_t item, const std::vector<Mat>& mats, int max_outstanding) {
  if (d.total > max_outstanding) return false;
  std::int64_t bytes = 0;
  for (const Peer& p : d.peers) {
    if (p.links.size() != 1 || p.links[0].item != item || (!p.typed && p.nmsgs > 1)) return false;
    bytes += p.meta + (p.typed ? 0 : rows_per_col(*p.links[0].t) * ncols(*p.links[0].t) *
                                         static_cast<std::int64_t>(mats[item].eb));
  }
  return bytes <= d.budget;
}

// A phase's links of one direction by peer rank (exchange.cpp's make_dirs).
using LinksByPeer = std::map<int, std::vector<Link>>;

// One direction's peers in posting order (sends: (dst - me) mod P first; receives:
// (me - src) mod P), each with its links, how they travel (one datatype, or packed) and
// its message count; then the direction's queue and window.
inline void fill_dir(Dir& d, LinksByPeer& by_peer, const std::vector<Mat>& mats, const ExecOptions& opt, int me,
                     int nranks) {
  const MessageSize ms = message_size(opt);
  const std::int64_t cap = std::min<std::int64_t>(ms.cap, INT_MAX);
  std::vector<std::pair<int, int>> order_;  // (distance, peer)
  for (const auto& [q, links] : by_peer)
    order_.emplace_back(d.send ? (q - me + nranks) % nranks : (me - q + nranks) % nranks, q);
  std::sort(order_.begin(), order_.end());
  std::vector<std::vector<PeerPiece>> pieces;
  std::vector<bool> whole;
  std::vector<Segment> segs;
  for (const auto& [dist, q] : order_) {
    Peer& p = d.peers.emplace_back();
    p.rank = q;
    p.links = std::move(by_peer[q]);
    auto& pp = pieces.emplace_back();
    // A peer's links travel as one datatype unless one of them packs (short pieces,
    // Transport::Auto; Packed), and packs only while a column fits a message's most.
    p.typed = true;
    for (const Link& l : p.links) {
      const auto eb = static_cast<std::int64_t>(mats[l.item].eb);
      pp.push_back({rows_per_col(*l.t), ncols(*l.t), eb});
      p.typed = p.typed && !(packs(*l.t, opt.transport, mats[l.item].eb) && std::max<std::int64_t>(1, pp.back().col_bytes()) <= ms.max);
      p.meta += kTransferBytes + kRunBytes * static_cast<std::int64_t>(l.t->rows.size() + l.t->cols.size());
    }
    if (!p.typed)
      for (Link& l : p.links) {
        l.w.emplace(d.send ? *l.src.sa : mats[l.item].sb, *l.t);
        l.packed = packed_runs(l.w->rows);
      }
    whole.push_back(p.typed);
    for (MessageCutter c(&pp, p.typed ? INT64_MAX / 4 : cap); !c.done(); c.next(segs)) ++p.nmsgs;
    d.total += p.nmsgs;
  }
  d.queue = PeerQueue(std::move(pieces), cap, whole);
  d.window = std::max(1, opt.max_outstanding);
}

// The node window's size for this rank's phases: every window send of every phase
// (each phase's item aligned as NodeWindow::room() aligns it), and whether wrapping
// around is safe: where a phase packs at most one item into it (one step reserves its
// room at once).
inline std::pair<std::int64_t, bool> window_need(const std::vector<std::vector<Entry>>& phases,
                                                 const std::vector<Mat>& mats, int me) {
  std::int64_t need = 0;
  bool wrap = true;
  for (const auto& ph : phases) {
    std::map<std::size_t, std::int64_t> by_item;
    for (const Entry& e : ph)
      if (e.route == Route::Window && e.t->src == me)
        by_item[e.item] += e.t->elements() * static_cast<std::int64_t>(mats[e.item].eb);
    for (const auto& [k, bytes] : by_item)
      need += (bytes + NodeWindow::kStepAlign - 1) / NodeWindow::kStepAlign * NodeWindow::kStepAlign;
    wrap = wrap && by_item.size() <= 1;
  }
  return {need, wrap};
}

// The local pieces (this rank's transfers to itself) straight from A to B; the bytes.
inline std::int64_t copy_locals(const std::vector<Local>& local, const std::vector<Mat>& mats) {
  std::int64_t bytes = 0;
  for (const Local& l : local) {
    const Mat& m = mats[l.item];
    by_size(m.eb, [&]<class E>(E) {
      copy_transfer<E>(*l.src.sa, reinterpret_cast<const E*>(l.src.a), m.sb, reinterpret_cast<E*>(m.b), *l.t);
    });
    bytes += l.t->elements() * static_cast<std::int64_t>(m.eb);
  }
  return bytes;
}

}  // namespace redist::exec
