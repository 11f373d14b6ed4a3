// SPDX-License-Identifier: BSD-3-Clause
// The non-blocking exchange of one or several matrices (redistribute.hpp, Exchange): every
// matrix's pieces with one peer packed into the same messages (the layout is aggregate's,
// pure), posted round by round within the message window and the memory budget, moved on
// by test() and finish(); the packing, unpacking and local copies are local_copy's kernels,
// the checks and their agreement checks', the waiting waiting's.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../mpi_guard.hpp"
#include "tags.hpp"
#include "../staging_pool.hpp"
#include "aggregate.hpp"
#include "checks.hpp"
#include "exchange.hpp"
#include "held.hpp"
#include "local_copy.hpp"
#include "on_node.hpp"
#include "transport.hpp"
#include "malleable/redist/redistribute.hpp"
#include "waiting.hpp"

namespace redist {
namespace {

using detail::check_mpi;
using namespace exec;

constexpr int kTag = tags::kExchange;

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
MPI_Datatype element_type(std::size_t eb) {
  return eb == 4 ? MPI_FLOAT : eb == 8 ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
}

}  // namespace

struct Exchange::Impl {
  enum class State { Made, Started, Done, Cancelled };

  struct Mat {
    const RedistPlan* plan = nullptr;
    const char* a = nullptr;
    char* b = nullptr;
    std::size_t eb = 0;
    Side sa, sb;
    std::vector<char> staged;  // A's local array, copied when it shares storage with a B
    std::vector<HeldArray> held;  // A's coordinates this rank holds, when it holds several
    std::vector<Side> held_sa;    // their sides (each its own lda)
  };
  // Where a transfer's pieces of A are on this rank: the item's array, or the array of the
  // held coordinate the transfer comes from (the owner of its first row and column).
  struct Source {
    const Side* sa = nullptr;
    const char* a = nullptr;
  };
  Source source_of(const Mat& m, const Transfer& t) const {
    if (m.held.empty()) return {&m.sa, m.a};
    const int pr = m.plan->a.row_owner(t.rows.front().start), pc = m.plan->a.col_owner(t.cols.front().start);
    for (std::size_t h = 0; h < m.held.size(); ++h)
      if (m.held[h].pr == pr && m.held[h].pc == pc) return {&m.held_sa[h], static_cast<const char*>(m.held[h].a)};
    return {};  // not held here: check() refused it
  }
  // One matrix's transfer with one peer, walked on this rank's side.
  struct Link {
    std::size_t item = 0;
    const Transfer* t = nullptr;
    Walk w;
    std::vector<LocalRun> packed;
    Source src;  // sends: A's array and side
  };
  struct Local {
    std::size_t item = 0;
    const Transfer* t = nullptr;
    Source src;
  };
  struct Dir {
    bool send = false;
    std::vector<int> ranks;               // peers, in posting order
    std::vector<std::vector<Link>> links;  // per peer, item by item (the queue's pieces)
    std::vector<bool> typed;               // per peer: one datatype message in place
    PeerQueue queue;
    int nflight = 0, window = 1;
    std::int64_t inflight = 0, budget = 0;
  };
  struct Slot {
    Dir* d = nullptr;
    Message msg;
    std::vector<char> buf;
  };

  MPI_Comm user_comm;
  std::vector<ExchangeItem> items;
  ExecOptions opt;
  Agreement agreement;
  State state = State::Made;
  std::optional<detail::DupComm> dup;
  MPI_Comm comm = MPI_COMM_NULL;
  int me = 0, nranks = 0;
  std::vector<Mat> mats;
  std::vector<Local> local;  // this rank's transfers to itself
  Dir sends, recvs;
  Routing routing;                // each transfer's transport (on_node.hpp)
  std::optional<OnNode> on_node;  // the transfers between ranks of this node, when routed there
  // The messages in flight: their packing buffers (one slot per message, reused), their
  // requests, the free slots and the completed ones of the last wait, and how they are
  // waited for and completed.
  struct Posted {
    std::vector<Slot> slots;
    std::vector<MPI_Request> req;
    std::vector<int> free, done;
    bool sleep = false;    // wait by testing and sleeping (WaitMode)
    bool discard = false;  // the destructor completes messages without unpacking
    // A free slot (a new one when none is free: *grew).
    int take(bool* grew) {
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
  } posted;
  ExecStats st;
  double t0 = 0;
  Held held{&st.peak_bytes};
  std::int64_t fixed_bytes = 0;

  Impl(MPI_Comm c, std::vector<ExchangeItem> it, const ExecOptions& o, Agreement ag)
      : user_comm(c), items(std::move(it)), opt(o), agreement(ag) {
    sends.send = true;
  }

  ~Impl() {
    if (state != State::Started) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) return;
    try {  // every rank posted the matching messages in start(): complete them all
      posted.discard = true;
      progress(true);
      end_on_node();
    } catch (...) {
    }
  }

  void charge(Dir* d, std::int64_t b) { held.charge(b, d ? &d->inflight : nullptr); }

  LocalError check() const {
    for (std::size_t k = 0; k < items.size(); ++k) {
      const ExchangeItem& it = items[k];
      const std::string which = "item " + std::to_string(k) + ": ";
      if (!it.plan) return {ErrorCode::InvalidArgument, which + "plan is null"};
      if (it.elem_bytes != 4 && it.elem_bytes != 8 && it.elem_bytes != 16)
        return {ErrorCode::InvalidArgument,
                which + "elem_bytes = " + std::to_string(it.elem_bytes) + " is not 4, 8 or 16 (use ExchangeItem::of)"};
      const void* a = it.a;
      std::int64_t lda = it.lda;
      if (LocalError e = check_held(it, a, lda); !e.ok()) return {e.code, which + e.msg};
      LocalError e = check_buffers(*it.plan, me, nranks, a, lda, it.b, it.ldb, opt, it.elem_bytes);
      if (!e.ok()) return {e.code, which + e.msg};
      for (const auto& t : it.plan->transfers) {
        if (t.src != me && t.dst != me) continue;
        std::int64_t rows = 0;
        for (const auto& r : t.rows) rows += r.elements();
        if (rows > INT_MAX / static_cast<std::int64_t>(it.elem_bytes))
          return {ErrorCode::InvalidArgument, which + "a column of the transfer " + std::to_string(t.src) + " -> " +
                                                  std::to_string(t.dst) + " exceeds 2 GiB (one message)"};
      }
    }
    return {};
  }

  // An item whose A side lists this rank at several coordinates (RankMap::holding_several)
  // names each one's array in `held`; every coordinate of this rank once, each lda at
  // least its local rows. a/lda: what check_buffers checks for the first coordinate.
  LocalError check_held(const ExchangeItem& it, const void*& a, std::int64_t& lda) const {
    const Layout& la = it.plan->a;
    if (it.held.empty() && !la.ranks.holds_several()) return {};
    std::vector<std::pair<int, int>> mine;
    for (int pr = 0; pr < la.nprow; ++pr)
      for (int pc = 0; pc < la.npcol; ++pc)
        if (la.rank_at(pr, pc) == me) mine.emplace_back(pr, pc);
    std::vector<std::pair<int, int>> named;
    for (const HeldArray& h : it.held) named.emplace_back(h.pr, h.pc);
    std::sort(named.begin(), named.end());
    if (named != mine)
      return {ErrorCode::InvalidArgument, "held names " + std::to_string(it.held.size()) +
                                              " coordinates of A, but A's ranks place this rank at " +
                                              std::to_string(mine.size()) + " (each must be named once)"};
    for (const HeldArray& h : it.held) {
      const std::string at = " at grid coordinate (" + std::to_string(h.pr) + "," + std::to_string(h.pc) + ")";
      if (h.lda < la.min_lld(h.pr))
        return {ErrorCode::LeadingDimension, "held lda = " + std::to_string(h.lda) +
                                                 " is less than max(1, local rows of A) = " +
                                                 std::to_string(la.min_lld(h.pr)) + at};
      if (!h.a && la.local_rows(h.pr) * la.local_cols(h.pc) > 0)
        return {ErrorCode::NullBuffer, "held a is null" + at};
    }
    a = it.held.empty() ? nullptr : it.held.front().a;
    lda = it.held.empty() ? 1 : it.held.front().lda;
    int pr = 0, pc = 0;
    if (la.coords_of(me, pr, pc))
      for (const HeldArray& h : it.held)
        if (h.pr == pr && h.pc == pc) a = h.a, lda = h.lda;
    return {};
  }

  std::uint64_t fingerprint() const {
    std::uint64_t h = 0x8A5CD789635D2DFFull * (items.size() + 1);
    for (const auto& it : items) {
      const std::uint64_t f = it.plan ? run_fingerprint(*it.plan, opt) : 0;
      h = (h ^ f ^ (it.elem_bytes * 0xFF51AFD7ED558CCDull)) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
    }
    return h;
  }

  // A's local arrays that share storage with any item's B on this rank are copied first
  // (as redistribute() does for one matrix): B is written while A is still read.
  void stage_aliased() {
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
      st.bytes_staged += na;
    }
  }

  // This rank's links, grouped by peer in posting order (sends: (dst - me) mod P first;
  // receives: (me - src) mod P), each peer's item by item.
  void build_dirs() {
    std::map<int, std::vector<Link>> out, in;
    std::int64_t meta = 0;
    for (std::size_t k = 0; k < mats.size(); ++k)
      for (const auto& t : mats[k].plan->transfers) {
        if (t.src == me && t.dst == me) {
          local.push_back({k, &t, source_of(mats[k], t)});
        } else if (t.src == me || t.dst == me) {
          const bool send = t.src == me;
          const Source src = send ? source_of(mats[k], t) : Source{};
          // A send of an A held several times over comes from its coordinate's array.
          if (const Route r = routing.route(t, me, mats[k].eb); r != Route::Message) {
            on_node->add(k, ItemArrays{mats[k].eb, &mats[k].sa, &mats[k].sb, mats[k].a, mats[k].b}, &t, send, r,
                         SendFrom{src.sa, src.a});
            continue;
          }
          Link l{k, &t, Walk(send ? *src.sa : mats[k].sb, t), {}, src};
          l.packed = packed_runs(l.w.rows);
          meta += kTransferBytes + kRunBytes * static_cast<std::int64_t>(t.rows.size() + t.cols.size());
          (send ? out[t.dst] : in[t.src]).push_back(std::move(l));
        }
      }
    const std::int64_t cap = std::min<std::int64_t>(message_size(opt).cap, INT_MAX);
    auto fill_dir = [&](Dir& d, std::map<int, std::vector<Link>>& by_peer) {
      std::vector<std::pair<int, int>> order;  // (distance, peer)
      for (const auto& [q, links] : by_peer)
        order.emplace_back(d.send ? (q - me + nranks) % nranks : (me - q + nranks) % nranks, q);
      std::sort(order.begin(), order.end());
      std::vector<std::vector<PeerPiece>> pieces;
      for (const auto& [dist, q] : order) {
        d.ranks.push_back(q);
        d.links.push_back(std::move(by_peer[q]));
        auto& pp = pieces.emplace_back();
        bool typed = opt.transport != Transport::Packed;
        for (const Link& l : d.links.back()) {
          pp.push_back({l.w.rows_per_col, l.w.ncols, static_cast<std::int64_t>(mats[l.item].eb)});
          typed = typed && !packs(*l.t, opt.transport, mats[l.item].eb);
        }
        d.typed.push_back(typed);
      }
      d.queue = PeerQueue(std::move(pieces), cap, d.typed);
      d.window = std::max(1, opt.max_outstanding);
    };
    fill_dir(sends, out);
    fill_dir(recvs, in);
    fixed_bytes = meta + static_cast<std::int64_t>(local.capacity() * sizeof(local[0]));
    charge(nullptr, fixed_bytes);
    const std::int64_t budget = opt.memory_budget_bytes > 0 ? opt.memory_budget_bytes : INT64_MAX / 4;
    const std::int64_t avail = std::max<std::int64_t>(0, budget - held.now());
    const bool out_any = !sends.ranks.empty(), in_any = !recvs.ranks.empty();
    sends.budget = !in_any ? avail : !out_any ? 0 : avail / 2;
    recvs.budget = !out_any ? avail : !in_any ? 0 : avail - avail / 2;
  }

  void pack(const Dir& d, const Message& m, char* buf) {
    const double t = MPI_Wtime();
    for (const Segment& s : m.segs) {
      const Link& l = d.links[m.peer][s.piece];
      const Mat& x = mats[l.item];
      by_size(x.eb, [&]<class E>(E) {
        pack_columns<E>(l.w, l.packed, reinterpret_cast<const E*>(l.src.a), l.src.sa->ld, s.first, s.ncols,
                        reinterpret_cast<E*>(buf + s.offset));
      });
    }
    st.pack_s += MPI_Wtime() - t;
  }

  void unpack(const Dir& d, const Message& m, const char* buf) {
    const double t = MPI_Wtime();
    for (const Segment& s : m.segs) {
      const Link& l = d.links[m.peer][s.piece];
      const Mat& x = mats[l.item];
      by_size(x.eb, [&]<class E>(E) {
        unpack_columns<E>(l.w, l.packed, reinterpret_cast<const E*>(buf + s.offset), s.first, s.ncols,
                          reinterpret_cast<E*>(x.b), x.sb.ld);
      });
    }
    st.unpack_s += MPI_Wtime() - t;
  }

  // A datatype message: every piece of m in place in its item's array (MPI_BOTTOM plus
  // absolute addresses), nothing staged. The caller frees it once posted.
  MPI_Datatype typed_message(const Dir& d, const Message& m) {
    std::vector<PieceType> parts;
    std::vector<MPI_Datatype> types;
    std::vector<MPI_Aint> at;
    parts.reserve(m.segs.size());
    for (const Segment& s : m.segs) {
      const Link& l = d.links[m.peer][s.piece];
      const Mat& x = mats[l.item];
      parts.emplace_back(element_type(x.eb), x.eb, d.send ? *l.src.sa : x.sb, *l.t);
      types.push_back(parts.back().get());
      at.emplace_back();
      check_mpi(MPI_Get_address(d.send ? static_cast<const void*>(l.src.a) : static_cast<const void*>(x.b), &at.back()),
                "MPI_Get_address");
    }
    const std::vector<int> ones(types.size(), 1);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_struct(static_cast<int>(types.size()), ones.data(), at.data(), types.data(), &t),
              "MPI_Type_create_struct (exchange)");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit (exchange)");
    return t;
  }

  // Posts d's next message if it has room (always when nothing of d is in flight).
  bool post(Dir& d) {
    const Message* next = d.queue.peek();
    if (!next || d.nflight >= d.window) return false;
    const bool typed = d.typed[next->peer];
    if (d.nflight > 0 && !typed && d.inflight + next->bytes > d.budget) return false;
    bool grew = false;
    const int k = posted.take(&grew);
    if (grew) charge(nullptr, static_cast<std::int64_t>(sizeof(Slot) + sizeof(MPI_Request) + 2 * sizeof(int)));
    Slot& s = posted.slots[static_cast<std::size_t>(k)];
    s.d = &d;
    s.msg = d.queue.take();
    const int peer = d.ranks[s.msg.peer];
    MPI_Request* r = &posted.req[static_cast<std::size_t>(k)];
    if (typed) {
      MPI_Datatype t = typed_message(d, s.msg);
      if (d.send)
        check_mpi(MPI_Isend(MPI_BOTTOM, 1, t, peer, kTag, comm, r), "MPI_Isend (exchange)");
      else
        check_mpi(MPI_Irecv(MPI_BOTTOM, 1, t, peer, kTag, comm, r), "MPI_Irecv (exchange)");
      MPI_Type_free(&t);  // the posted message keeps what it needs
      (d.send ? st.bytes_sent : st.bytes_received) += s.msg.bytes;
    } else {
      post_packed(d, s, peer, r);
    }
    ++d.nflight;
    ++st.messages;
    st.max_in_flight = std::max(st.max_in_flight, d.nflight);
    return true;
  }

  void post_packed(Dir& d, Slot& s, int peer, MPI_Request* r) {
    const auto bytes = static_cast<std::size_t>(s.msg.bytes);
    const std::int64_t room = d.budget - d.inflight;
    s.buf = detail::BufferPool::instance().take(bytes, room > s.msg.bytes ? static_cast<std::size_t>(room) : bytes);
    charge(&d, static_cast<std::int64_t>(s.buf.capacity()));
    const int n = static_cast<int>(s.msg.bytes);
    if (d.send) {
      pack(d, s.msg, s.buf.data());
      check_mpi(MPI_Isend(s.buf.data(), n, MPI_BYTE, peer, kTag, comm, r), "MPI_Isend (exchange)");
      st.bytes_sent += s.msg.bytes;
    } else {
      check_mpi(MPI_Irecv(s.buf.data(), n, MPI_BYTE, peer, kTag, comm, r), "MPI_Irecv (exchange)");
      st.bytes_received += s.msg.bytes;
    }
  }

  void fill() {
    bool any = false;
    while (post(recvs)) any = true;  // receives first: senders find them posted
    while (post(sends)) any = true;
    if (any) ++st.rounds;
  }

  void complete(int k) {
    Slot& s = posted.slots[static_cast<std::size_t>(k)];
    Dir& d = *s.d;
    if (!d.send && !posted.discard && !d.typed[s.msg.peer]) unpack(d, s.msg, s.buf.data());
    charge(&d, -static_cast<std::int64_t>(s.buf.capacity()));
    if (s.buf.capacity()) detail::BufferPool::instance().give(std::move(s.buf));
    s.buf = {};
    s.d = nullptr;
    --d.nflight;
    posted.free.push_back(k);
  }

  bool all_done() { return sends.nflight + recvs.nflight == 0 && sends.queue.empty() && recvs.queue.empty(); }

  // The on-node transfers' ends, once this rank's messages are complete (every rank posted
  // its on-node words in start(), so this waits for no rank that is still moving messages).
  void end_on_node() {
    if (!on_node) return;
    charge(nullptr, -on_node->segment_bytes());
    on_node->end(st);
    on_node.reset();
  }

  // Completes what arrived and posts more, once (block: waits for at least one message)
  // or until everything is done (until_done).
  void progress(bool until_done, bool block = true) {
    while (!all_done()) {
      if (block) {
        wait_some(posted.req, posted.done, posted.sleep, opt.sleep_us, "MPI_Waitsome (exchange)");
      } else {
        posted.done.resize(posted.req.size());
        int n = 0;
        check_mpi(MPI_Testsome(static_cast<int>(posted.req.size()), posted.req.data(), &n, posted.done.data(), MPI_STATUSES_IGNORE),
                  "MPI_Testsome (exchange)");
        posted.done.resize(n == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(n));
      }
      for (int k : posted.done) complete(k);
      fill();
      if (!until_done) return;
    }
  }

  void conclude() {
    charge(nullptr, -fixed_bytes);
    sends = Dir{};
    sends.send = true;
    recvs = Dir{};
    std::vector<Slot>().swap(posted.slots);
    std::vector<MPI_Request>().swap(posted.req);
    for (auto& m : mats) std::vector<char>().swap(m.staged);
    if (opt.memory_budget_bytes > 0) detail::BufferPool::instance().trim(static_cast<std::size_t>(opt.memory_budget_bytes));
    st.total_s = MPI_Wtime() - t0;
    state = State::Done;
  }

  void start() {
    if (state != State::Made) throw Error(ErrorCode::InvalidArgument, "redist: Exchange::start() called twice");
    t0 = MPI_Wtime();
    detail::check_comm(user_comm, "comm");
    check_mpi(MPI_Comm_rank(user_comm, &me), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(user_comm, &nranks), "MPI_Comm_size");
    const LocalError err = check();
    if (agreement == Agreement::Collective) {
      dup.emplace(user_comm);
      comm = dup->get();
      agree(comm, err, fingerprint());
    } else {
      if (!err.ok()) throw Error(err.code, "redist: " + detail::rank_name(me) + ": " + err.msg);
      comm = user_comm;
    }
    st.check_s = MPI_Wtime() - t0;
    posted.sleep = opt.wait == WaitMode::Sleep ||
            (opt.wait == WaitMode::Auto && (agreement == Agreement::Local || oversubscribed(user_comm, comm)));
    // Under Agreement::Local start() makes no collective call: no node map, all by message.
    routing = make_routing(user_comm, opt, agreement == Agreement::Collective);
    if (routing.node) on_node.emplace(comm, user_comm, &routing.window_ranks, opt, posted.sleep);
    for (const auto& it : items) {
      Mat& m = mats.emplace_back();
      const RedistPlan& p = *it.plan;
      m.plan = &p;
      m.a = static_cast<const char*>(it.a);
      m.b = static_cast<char*>(it.b);
      m.eb = it.elem_bytes;
      m.sa = Side{p.a.row_axis(), p.a.col_axis(), 0, 0, it.lda, false};
      m.sb = Side{p.b.row_axis(), p.b.col_axis(), p.region.ib - p.region.ia, p.region.jb - p.region.ja, it.ldb, true};
      m.held = it.held;
      for (const HeldArray& h : m.held) m.held_sa.push_back(Side{m.sa.rows, m.sa.cols, 0, 0, h.lda, false});
    }
    stage_aliased();
    build_dirs();
    if (on_node && on_node->empty()) on_node.reset();
    state = State::Started;
    fill();
    if (on_node) {  // after the messages: the other nodes' data is on its way meanwhile
      on_node->begin();
      charge(nullptr, on_node->segment_bytes());  // this rank's segment of the node window
    }
    // The local pieces while the first messages are in flight.
    const double t = MPI_Wtime();
    for (const Local& l : local) {
      const Mat& m = mats[l.item];
      by_size(m.eb, [&]<class E>(E) {
        copy_transfer<E>(*l.src.sa, reinterpret_cast<const E*>(l.src.a), m.sb, reinterpret_cast<E*>(m.b), *l.t);
      });
      st.bytes_local += l.t->elements() * static_cast<std::int64_t>(m.eb);
    }
    st.local_copy_s += MPI_Wtime() - t;
    if (all_done() && !on_node) conclude();
  }

  bool test() {
    if (state != State::Started) return state == State::Done;
    progress(false, false);
    if (all_done()) {
      end_on_node();
      conclude();
    }
    return state == State::Done;
  }

  void finish(ExecStats* stats) {
    if (state == State::Made || state == State::Cancelled)
      throw Error(ErrorCode::InvalidArgument,
                  state == State::Made ? "redist: Exchange::finish() before start()" : "redist: Exchange::finish() after cancel()");
    if (state == State::Started) {
      const double t = MPI_Wtime();
      progress(true);
      end_on_node();
      st.transfer_s += MPI_Wtime() - t;
      conclude();
    }
    if (stats) *stats = st;
  }

  void cancel() {
    if (state == State::Started) {
      end_on_node();  // the peers of this node posted theirs in start() (Collective only)
      for (std::size_t k = 0; k < posted.req.size(); ++k) {
        if (posted.req[k] == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&posted.req[k]);
        MPI_Wait(&posted.req[k], MPI_STATUS_IGNORE);
      }
      for (auto& s : posted.slots)
        if (s.d) {
          --s.d->nflight;
          detail::BufferPool::instance().give(std::move(s.buf));
          s.d = nullptr;
        }
      conclude();
    }
    state = State::Cancelled;
  }
};

Exchange::Exchange(MPI_Comm comm, std::vector<ExchangeItem> items, const ExecOptions& opt, Agreement agreement)
    : impl_(std::make_unique<Impl>(comm, std::move(items), opt, agreement)) {}
Exchange::~Exchange() = default;
Exchange::Exchange(Exchange&&) noexcept = default;
Exchange& Exchange::operator=(Exchange&&) noexcept = default;

void Exchange::start() { impl_->start(); }
bool Exchange::test() { return impl_->test(); }
void Exchange::finish(ExecStats* stats) { impl_->finish(stats); }
void Exchange::cancel() { impl_->cancel(); }
bool Exchange::started() const { return impl_ && impl_->state != Impl::State::Made; }
bool Exchange::finished() const { return impl_ && impl_->state == Impl::State::Done; }

void redistribute(MPI_Comm comm, const std::vector<ExchangeItem>& items, const ExecOptions& opt, ExecStats* stats) {
  // One matrix: its plan's steps with the fused local copies too (the same engine's
  // single-plan executor, exchange.cpp).
  if (items.size() == 1 && items[0].plan && !items[0].plan->a.ranks.holds_several() &&
      (items[0].elem_bytes == 4 || items[0].elem_bytes == 8 || items[0].elem_bytes == 16))
    return exec::redistribute_item(comm, items[0], opt, stats);
  Exchange ex(comm, items, opt);
  ex.start();
  ex.finish(stats);
}

}  // namespace redist
