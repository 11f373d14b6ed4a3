// SPDX-License-Identifier: BSD-3-Clause
// redist's one engine (exchange.hpp), the only file of its C++ core that posts data
// messages (besides the on-node steps it runs). A batch runs phase by phase; in a phase
// every item's pieces for one peer travel in the same messages (aggregate.hpp), within the
// message window and the memory budget, as a datatype in place or packed (transport); the
// same node's transfers go through on_node; the local copies overlap with the first
// messages or are fused with their packing or unpacking (fused.hpp).
#include "exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "../mpi_guard.hpp"
#include "../staging_pool.hpp"
#include "engine_parts.hpp"
#include "fused.hpp"
#include "held.hpp"
#include "node_window.hpp"
#include "tags.hpp"
#include "transport.hpp"
#include "waiting.hpp"

namespace redist::exec {

using detail::check_mpi;
constexpr int kDataTag = tags::kData, kReadyTag = tags::kReady;

struct Engine::Impl {
  enum class State { Made, Started, Done, Cancelled };

  MPI_Comm user_comm;
  ExecOptions opt;
  Agreement agreement;
  Phases order;
  State state = State::Made;
  std::optional<detail::DupComm> dup;
  MPI_Comm comm = MPI_COMM_NULL;
  int me = 0;
  std::vector<Mat> mats;
  struct {
    std::vector<Local> list;  // this rank's transfers to itself, copied in the first phase
    bool done = true;
  } local;
  struct {
    std::vector<std::vector<Entry>> list;  // this rank's other transfers, phase by phase
    std::size_t at = 0;
    Fuse fuse = Fuse::None;  // the phase's fused pass
  } phases;
  Dir sends, recvs;
  Routing routing;                // each transfer's transport (on_node.hpp)
  std::optional<OnNode> on_node;  // the transfers between ranks of this node, when routed there
  struct {
    std::int64_t fixed = 0, segment = 0, on_node = 0;  // bytes held for the whole exchange or the phase
  } charged;
  Posted posted;
  ExecStats st;
  double t0 = 0;
  Held held{&st.peak_bytes};

  Impl(MPI_Comm c, std::vector<ExchangeItem> it, const ExecOptions& o, Agreement ag, Phases ph)
      : user_comm(c), opt(o), agreement(ag), order(ph) {
    sends.send = true;
    for (const auto& x : it)
      if (x.plan) mats.push_back(make_mat(x));  // a null plan: start() throws before using them
  }

  ~Impl() {
    if (state != State::Started) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) return;
    try {  // every rank posted the matching messages of this phase: complete them all
      posted.discard = true;
      advance(true);
      if (on_node) on_node->close();
    } catch (...) {
    }
  }

  void charge(Dir* d, std::int64_t b) { held.charge(b, d ? &d->inflight : nullptr); }

  struct Busy {  // ExecStats::transfer_s: time in start(), test() and finish() less wait_s
    Impl& x;
    double t = MPI_Wtime(), w = x.st.wait_s;
    ~Busy() { x.st.transfer_s += MPI_Wtime() - t - (x.st.wait_s - w); }
  };

  // ---- Set-up: the items' sides, aliasing, the phases and the window they need.

  void make_phases() {
    auto entry = [&](std::size_t k, const Transfer& t) {
      const Source src = t.src == me ? source_of(mats[k], t) : Source{};
      return Entry{k, &t, routing.route(t, me, mats[k].eb, SendFrom{src.sa, src.a})};
    };
    if (order == Phases::PlanSteps) {
      const RedistPlan& p = *mats[0].plan;
      for (const auto& step : p.steps) {
        std::vector<Entry> ph;
        for (int k : step) {
          const Transfer& t = p.transfers[static_cast<std::size_t>(k)];
          if ((t.src == me) != (t.dst == me)) ph.push_back(entry(0, t));
        }
        if (!ph.empty()) phases.list.push_back(std::move(ph));  // not in this step: no waiting
      }
    } else {
      phases.list.emplace_back();
      for (std::size_t k = 0; k < mats.size(); ++k)
        for (const auto& t : mats[k].plan->transfers)
          if ((t.src == me) != (t.dst == me)) phases.list.back().push_back(entry(k, t));
    }
    for (std::size_t k = 0; k < mats.size(); ++k)
      for (const auto& t : mats[k].plan->transfers)
        if (t.src == me && t.dst == me) local.list.push_back({k, &t, source_of(mats[k], t)});
    local.done = local.list.empty();
    if (phases.list.empty()) phases.list.emplace_back();  // the local copies alone
    charged.fixed = static_cast<std::int64_t>(local.list.capacity() * sizeof(Local));
    for (const auto& ph : phases.list) charged.fixed += static_cast<std::int64_t>(ph.capacity() * sizeof(Entry));
    charge(nullptr, charged.fixed);
    if (!routing.node) return;
    on_node.emplace(comm, user_comm, &routing.window_ranks, opt, posted.sleep);
    const auto [need, wrap] = window_need(phases.list, mats, me);
    on_node->set_window(need, wrap);
    if (need > 0) on_node->open_window();  // now: its segment counts before the budgets are shared
    charged.segment = on_node->segment_bytes();
    charge(nullptr, charged.segment);
  }

  // ---- A phase's messages: peers in posting order (sends: (dst - me) mod P first;
  // receives: (me - src) mod P), each peer's items one after another in its messages.

  // The phase's entries by peer (out: sends, in: receives); the on-node ones go to
  // on_node. Returns the single-copy steps' bookkeeping, held once they begin.
  std::int64_t link_peers(const std::vector<Entry>& ph, LinksByPeer& out, LinksByPeer& in) {
    std::int64_t reads = 0;
    for (const Entry& e : ph) {
      const Transfer& t = *e.t;
      const Mat& m = mats[e.item];
      const bool send = t.src == me;
      // a window receive its sender may leave to a kernel read (Route::HugeRead) reads too
      const bool may_read = e.route == Route::Window && !send && routing.may_read_huge(t, m.eb);
      if (e.route == Route::SingleCopy || may_read) reads += reads == 0 ? OnNode::reader_bytes() + 64 : 64;
      const Source src = send ? source_of(m, t) : Source{};
      if (e.route != Route::Message) {
        on_node->add(e.item, ItemArrays{m.eb, &m.sa, &m.sb, m.a, m.b}, &t, send, e.route, SendFrom{src.sa, src.a});
        continue;
      }
      (send ? out[t.dst] : in[t.src]).push_back(Link{e.item, &t, {}, {}, src});
    }
    return reads;
  }

  void make_dirs(const std::vector<Entry>& ph) {
    LinksByPeer out, in;
    const std::int64_t reads = link_peers(ph, out, in);
    int nranks = 0;
    check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
    fill_dir(sends, out, mats, opt, me, nranks);
    fill_dir(recvs, in, mats, opt, me, nranks);
    // The memory budget left after what is held, shared between the two directions.
    const std::int64_t budget = opt.memory_budget_bytes > 0 ? opt.memory_budget_bytes : INT64_MAX / 4;
    const std::int64_t avail = std::max<std::int64_t>(0, budget - held.now() - reads);
    const bool out_any = !sends.peers.empty(), in_any = !recvs.peers.empty();
    sends.budget = !in_any ? avail : !out_any ? 0 : avail / 2;
    recvs.budget = !out_any ? avail : !in_any ? 0 : avail - avail / 2;
  }

  void pack(const Peer& p, const Message& m, char* buf) {
    const double t = MPI_Wtime();
    for (const Segment& s : m.segs) {
      const Link& l = p.links[s.piece];
      by_size(mats[l.item].eb, [&]<class E>(E) {
        pack_columns<E>(*l.w, l.packed, reinterpret_cast<const E*>(l.src.a), l.src.sa->ld, s.first, s.ncols,
                        reinterpret_cast<E*>(buf + s.offset));
      });
    }
    st.pack_s += MPI_Wtime() - t;
  }

  void unpack(const Peer& p, const Message& m, const char* buf) {
    const double t = MPI_Wtime();
    for (const Segment& s : m.segs) {
      const Link& l = p.links[s.piece];
      const Mat& x = mats[l.item];
      by_size(x.eb, [&]<class E>(E) {
        unpack_columns<E>(*l.w, l.packed, reinterpret_cast<const E*>(buf + s.offset), s.first, s.ncols,
                          reinterpret_cast<E*>(x.b), x.sb.ld);
      });
    }
    st.unpack_s += MPI_Wtime() - t;
  }

  // A datatype message, every piece in place in its item's array: one piece as its own
  // type over the array, several joined by a struct of absolute addresses (MPI_BOTTOM).
  void post_typed(const Dir& d, const Peer& p, const Message& m, MPI_Request* r) {
    auto base = [&](const Link& l) { return d.send ? static_cast<const void*>(l.src.a) : mats[l.item].b; };
    auto side = [&](const Link& l) -> const Side& { return d.send ? *l.src.sa : mats[l.item].sb; };
    auto post = [&](const void* buf, MPI_Datatype t) {
      if (d.send)
        check_mpi(MPI_Isend(buf, 1, t, p.rank, kDataTag, comm, r), "MPI_Isend");
      else
        check_mpi(MPI_Irecv(const_cast<void*>(buf), 1, t, p.rank, kDataTag, comm, r), "MPI_Irecv");
    };
    if (m.segs.size() == 1) {
      const Link& l = p.links[m.segs[0].piece];
      const PieceType t(element_type(mats[l.item].eb), mats[l.item].eb, side(l), *l.t);
      post(base(l), t.get());  // the posted message keeps what it needs of the type
      return;
    }
    std::vector<PieceType> parts;
    std::vector<MPI_Datatype> types;
    std::vector<MPI_Aint> at;
    parts.reserve(m.segs.size());
    for (const Segment& s : m.segs) {
      const Link& l = p.links[s.piece];
      parts.emplace_back(element_type(mats[l.item].eb), mats[l.item].eb, side(l), *l.t);
      types.push_back(parts.back().get());
      check_mpi(MPI_Get_address(base(l), &at.emplace_back()), "MPI_Get_address");
    }
    const std::vector<int> ones(types.size(), 1);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_struct(static_cast<int>(types.size()), ones.data(), at.data(), types.data(), &t),
              "MPI_Type_create_struct");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
    post(MPI_BOTTOM, t);
    MPI_Type_free(&t);
  }

  void post_packed(Dir& d, Peer& p, Slot& s, MPI_Request* r) {
    const bool prepacked = !p.pre.empty();  // a fused Source pass packed it (and charged it)
    if (prepacked) {
      s.buf = std::move(p.pre);
      p.pre = {};
    } else {
      const auto bytes = static_cast<std::size_t>(s.msg.bytes);
      const std::int64_t room = d.budget - d.inflight;
      s.buf = detail::BufferPool::instance().take(bytes, room > s.msg.bytes ? static_cast<std::size_t>(room) : bytes);
      charge(&d, static_cast<std::int64_t>(s.buf.capacity()));
    }
    const int n = narrow(s.msg.bytes, "message size");
    if (d.send) {
      if (!prepacked) pack(p, s.msg, s.buf.data());
      check_mpi(MPI_Isend(s.buf.data(), n, MPI_BYTE, p.rank, kDataTag, comm, r), "MPI_Isend");
    } else {
      check_mpi(MPI_Irecv(s.buf.data(), n, MPI_BYTE, p.rank, kDataTag, comm, r), "MPI_Irecv");
    }
  }

  // Posts d's next message if it has room (always when nothing of d is in flight). No
  // deadlock under any window or budget: PeerQueue's order (aggregate.hpp).
  bool post(Dir& d) {
    const Message* next = d.queue.peek();
    if (!next || d.nflight >= d.window) return false;
    Peer& p = d.peers[next->peer];
    const std::int64_t cost = (p.posted == 0 ? p.meta : 0) + (p.typed || !p.pre.empty() ? 0 : next->bytes) +
                              (posted.free.empty() ? kSlotBytes : 0);
    if (d.nflight > 0 && d.inflight + cost > d.budget) return false;
    if (p.posted++ == 0) charge(&d, p.meta);
    bool grew = false;
    const int k = posted.take(&grew);
    if (grew) charge(&d, kSlotBytes);  // kept for the exchange's later messages
    Slot& s = posted.slots[static_cast<std::size_t>(k)];
    s.d = &d;
    s.msg = d.queue.take();
    MPI_Request* r = &posted.req[static_cast<std::size_t>(k)];
    if (p.typed)
      post_typed(d, p, s.msg, r);
    else
      post_packed(d, p, s, r);
    (d.send ? st.bytes_sent : st.bytes_received) += s.msg.bytes;
    ++d.nflight;
    ++st.messages;
    st.max_in_flight = std::max(st.max_in_flight, d.nflight);
    return true;
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
    Peer& p = d.peers[s.msg.peer];
    if (!d.send && !p.typed && !posted.discard) {
      if (d.keep) {
        p.pre = std::move(s.buf);  // still counted; the fused pass unpacks it
        s.buf = {};
      } else {
        unpack(p, s.msg, s.buf.data());
      }
    }
    if (s.buf.capacity()) {
      charge(&d, -static_cast<std::int64_t>(s.buf.capacity()));
      detail::BufferPool::instance().give(std::move(s.buf));
      s.buf = {};
    }
    s.d = nullptr;
    --d.nflight;
    posted.free.push_back(k);
    if (++p.done == p.nmsgs) charge(&d, -p.meta);
  }

  bool messages_done() {
    return sends.nflight + recvs.nflight == 0 && sends.queue.empty() && recvs.queue.empty();
  }

  // ---- Fused passes (exec/fused.hpp): a phase's one local copy taken along with the
  // packing of its sends (Source) or the unpacking of its receives (Target), when that
  // side's messages are one per peer, all in flight at once, and of the local copy's item.

  void plan_fusion() {
    phases.fuse = Fuse::None;
    if (!opt.fuse_local || local.done || local.list.size() != 1) return;
    const Local& lt = local.list[0];
    std::vector<Peer*> pk_out, pk_in;
    std::vector<const Walk*> wo, wi;
    for (Dir* d : {&sends, &recvs}) {
      if (!fits_at_once(*d, lt.item, mats, opt.max_outstanding)) continue;
      for (Peer& p : d->peers)
        if (!p.typed) {
          (d->send ? pk_out : pk_in).push_back(&p);
          (d->send ? wo : wi).push_back(&*p.links[0].w);
        }
    }
    const Mat& m = mats[lt.item];
    phases.fuse = choose_fuse(Walk(*lt.src.sa, *lt.t), Walk(m.sb, *lt.t), wo, wi);
    if (phases.fuse == Fuse::Source || phases.fuse == Fuse::SourceRow) {
      for (Peer* p : pk_out) {
        const auto bytes = static_cast<std::size_t>(p->links[0].w->ncols * p->links[0].w->rows_per_col) * m.eb;
        p->pre = detail::BufferPool::instance().take(bytes, bytes);
        charge(&sends, static_cast<std::int64_t>(p->pre.capacity()));
      }
      const double t = MPI_Wtime();
      fused(pk_out);
      st.pack_s += MPI_Wtime() - t;
    }
    recvs.keep = phases.fuse == Fuse::Target || phases.fuse == Fuse::TargetRow;
  }

  void fused(const std::vector<Peer*>& peers) {
    const Local& lt = local.list[0];
    const Mat& m = mats[lt.item];
    by_size(m.eb, [&]<class E>(E) {
      std::vector<FusedChan<E>> fc;
      fc.reserve(peers.size());
      for (Peer* p : peers) fc.push_back({&*p->links[0].w, &p->links[0].packed, reinterpret_cast<E*>(p->pre.data())});
      run_fused<E>(phases.fuse, *lt.src.sa, reinterpret_cast<const E*>(lt.src.a), m.sb, reinterpret_cast<E*>(m.b), *lt.t, fc);
    });
    const std::int64_t bytes = lt.t->elements() * static_cast<std::int64_t>(m.eb);
    st.bytes_local += bytes;
    st.bytes_fused += bytes;
    local.done = true;
  }

  void copy_local() {
    if (local.done) return;
    const double t = MPI_Wtime();
    st.bytes_local += copy_locals(local.list, mats);
    st.local_copy_s += MPI_Wtime() - t;
    local.done = true;
  }

  // split_wait_transfer: an empty message each way with every partner of the phase, so
  // the time until all are ready (wait_s) is apart from the time moving data.
  void handshake(const std::vector<Entry>& ph) {
    const double t = MPI_Wtime();
    std::vector<int> partners;
    for (const Entry& e : ph) partners.push_back(e.t->src == me ? e.t->dst : e.t->src);
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    std::vector<MPI_Request> req;
    req.reserve(2 * partners.size());
    const auto bytes = static_cast<std::int64_t>(partners.capacity() * sizeof(int) + req.capacity() * sizeof(MPI_Request));
    charge(nullptr, bytes);
    for (int q : partners) {
      check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, q, kReadyTag, comm, &req.emplace_back()), "MPI_Irecv (ready)");
      check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, q, kReadyTag, comm, &req.emplace_back()), "MPI_Isend (ready)");
    }
    wait_all(req, posted.sleep, opt.sleep_us, "MPI_Waitall (ready)");
    charge(nullptr, -bytes);
    st.wait_s += MPI_Wtime() - t;
  }

  // Posts the phase's first messages, then starts its on-node transfers (the other nodes'
  // data is on its way meanwhile), then copies the local pieces (or fuses them).
  void begin_phase() {
    const std::vector<Entry>& ph = phases.list[phases.at];
    if (!ph.empty()) ++st.steps;
    if (order == Phases::PlanSteps && opt.split_wait_transfer && !ph.empty()) handshake(ph);
    make_dirs(ph);
    plan_fusion();
    fill();
    if (on_node && !on_node->empty()) {
      on_node->begin();
      charged.on_node = on_node->bytes_held();
      charge(nullptr, charged.on_node);
    }
    if (!recvs.keep) copy_local();
  }

  void end_phase() {
    if (recvs.keep && !local.done && !posted.discard) {
      std::vector<Peer*> pk_in;
      for (Peer& p : recvs.peers)
        if (!p.typed) pk_in.push_back(&p);
      const double t = MPI_Wtime();
      fused(pk_in);
      st.unpack_s += MPI_Wtime() - t;
    }
    for (Dir* d : {&sends, &recvs})
      for (Peer& p : d->peers)
        if (p.pre.capacity()) {
          charge(d, -static_cast<std::int64_t>(p.pre.capacity()));
          detail::BufferPool::instance().give(std::move(p.pre));
          p.pre = {};
        }
    if (on_node && !on_node->empty()) {
      on_node->end(st);  // every rank posted its on-node words in its begin_phase()
      charge(nullptr, -charged.on_node);
      charged.on_node = 0;
    }
    if (!posted.discard) copy_local();
    sends = Dir{};
    sends.send = true;
    recvs = Dir{};
  }

  // Completes what arrived and posts more, phase after phase: until everything is done
  // (block), or as far as one test goes (not block). True once the last phase has ended.
  bool advance(bool block) {
    for (;;) {
      while (!messages_done()) {
        if (block) {
          wait_some(posted.req, posted.done, posted.sleep, opt.sleep_us, "MPI_Waitsome");
        } else {
          posted.done.resize(posted.req.size());
          int n = 0;
          check_mpi(MPI_Testsome(static_cast<int>(posted.req.size()), posted.req.data(), &n, posted.done.data(),
                                 MPI_STATUSES_IGNORE),
                    "MPI_Testsome");
          posted.done.resize(n == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(n));
        }
        for (int k : posted.done) complete(k);
        fill();
        if (!block && !messages_done()) return false;
      }
      end_phase();
      if (posted.discard || ++phases.at >= phases.list.size()) return true;
      begin_phase();
    }
  }

  void conclude() {
    if (on_node) {
      on_node->close();
      on_node.reset();
    }
    charge(nullptr, -(charged.fixed + charged.segment));
    std::vector<Slot>().swap(posted.slots);
    std::vector<MPI_Request>().swap(posted.req);
    for (auto& m : mats) std::vector<char>().swap(m.staged);
    if (opt.memory_budget_bytes > 0) detail::BufferPool::instance().trim(static_cast<std::size_t>(opt.memory_budget_bytes));
    st.total_s = MPI_Wtime() - t0;
    state = State::Done;
  }

  void start(const LocalError& err, std::uint64_t fp) {
    if (state != State::Made) throw Error(ErrorCode::InvalidArgument, "redist: Exchange::start() called twice");
    t0 = MPI_Wtime();
    detail::check_comm(user_comm, "comm");
    check_mpi(MPI_Comm_rank(user_comm, &me), "MPI_Comm_rank");
    if (agreement == Agreement::Collective) {
      dup.emplace(user_comm);
      comm = dup->get();
      agree(comm, err, fp);
    } else {
      if (!err.ok()) throw Error(err.code, "redist: " + detail::rank_name(me) + ": " + err.msg);
      comm = user_comm;
    }
    st.check_s = MPI_Wtime() - t0;
    bool done = false;
    {
      const Busy busy{*this};
      begin(done);
    }
    if (done) conclude();
  }

  void begin(bool& done) {
    posted.sleep = opt.wait == WaitMode::Sleep ||
                   (opt.wait == WaitMode::Auto && (agreement == Agreement::Local || oversubscribed(user_comm, comm)));
    // Under Agreement::Local start() makes no collective call: no node map, all by message.
    routing = make_routing(user_comm, opt, agreement == Agreement::Collective);
    st.bytes_staged += stage_aliased(mats, me);
    make_phases();
    state = State::Started;
    begin_phase();
    if (phases.list.size() == 1 && messages_done() && (!on_node || on_node->empty())) {
      end_phase();
      done = true;
    }
  }

  bool test() {
    if (state != State::Started) return state == State::Done;
    {
      const Busy busy{*this};
      if (!advance(false)) return false;
    }
    conclude();
    return true;
  }

  void finish(ExecStats* stats) {
    if (state == State::Made || state == State::Cancelled)
      throw Error(ErrorCode::InvalidArgument,
                  state == State::Made ? "redist: Exchange::finish() before start()" : "redist: Exchange::finish() after cancel()");
    if (state == State::Started) {
      {
        const Busy busy{*this};
        advance(true);
      }
      conclude();
    }
    if (stats) *stats = st;
  }

  void cancel() {
    if (state == State::Started) {
      if (on_node && !on_node->empty()) on_node->end(st);  // the peers of this node posted theirs (Collective only)
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

Engine::Engine(MPI_Comm user_comm, std::vector<ExchangeItem> items, const ExecOptions& opt, Agreement agreement,
               Phases phases)
    : impl_(std::make_unique<Impl>(user_comm, std::move(items), opt, agreement, phases)) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::start(const LocalError& err, std::uint64_t fp) { impl_->start(err, fp); }
bool Engine::test() { return impl_->test(); }
void Engine::finish(ExecStats* stats) { impl_->finish(stats); }
void Engine::cancel() { impl_->cancel(); }
bool Engine::started() const { return impl_ && impl_->state != Impl::State::Made; }
bool Engine::finished() const { return impl_ && impl_->state == Impl::State::Done; }

void run_batch(MPI_Comm user_comm, std::vector<ExchangeItem> items, const ExecOptions& opt, Phases phases,
               const LocalError& err, std::uint64_t fp, ExecStats* stats) {
  Engine e(user_comm, std::move(items), opt, Agreement::Collective, phases);
  e.start(err, fp);
  e.finish(stats);
}

}  // namespace redist::exec
