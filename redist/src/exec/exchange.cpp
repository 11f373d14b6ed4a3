// SPDX-License-Identifier: BSD-3-Clause
// The exchange of redist (exchange.hpp): the only file of the module's C++ core that
// sends data. Each transfer moves straight between the local column-major arrays, as a
// datatype or packed (transport), copied by the local-copy kernels (local_copy, fused),
// waited for by waiting; the same node's long pieces may be read in place (single_copy).
#include "exchange.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "../mpi_guard.hpp"
#include "tags.hpp"
#include "../staging_pool.hpp"
#include "checks.hpp"
#include "fused.hpp"
#include "held.hpp"
#include "local_copy.hpp"
#include "node_window.hpp"
#include "on_node.hpp"
#include "malleable/redist/node_map.hpp"
#include "single_copy.hpp"
#include "transport.hpp"
#include "waiting.hpp"

namespace redist::exec {
namespace {

using detail::check_mpi;

constexpr int kDataTag = tags::kData;
constexpr int kReadyTag = tags::kReady;

template <class T>
class Executor {
 public:
  Executor(MPI_Comm comm, const RedistPlan& p, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
           const ExecOptions& opt, bool sleep, ExecStats& st, const std::vector<int>* node, const NodeWindow* win)
      : comm_(comm), held_(&st.peak_bytes), p_(p), a_(a), b_(b), opt_(opt), st_(st), sleep_(sleep), node_(node), win_(win) {
    MPI_Comm_rank(comm, &me_);
    sa_ = Side{p.a.row_axis(), p.a.col_axis(), 0, 0, lda, false};
    sb_ = Side{p.b.row_axis(), p.b.col_axis(), p.region.ib - p.region.ia, p.region.jb - p.region.ja, ldb, true};
    msg_ = message_size(opt);
    budget_ = opt.memory_budget_bytes > 0 ? opt.memory_budget_bytes : INT64_MAX / 4;
  }

  void run() {
    for (const auto& t : p_.transfers)
      if (t.src == me_ && t.dst == me_) local_.push_back(&t);
    charge(nullptr, static_cast<std::int64_t>(local_.capacity() * sizeof(const Transfer*)));
    if (win_) charge(nullptr, win_->segment_bytes());  // this rank's segment of the node window
    // The local copies overlap with the first step's messages, already in flight (or are
    // fused with that step's packing or unpacking: fuse_plan).
    local_done_ = local_.empty();
    for (const auto& step : p_.steps) {
      std::vector<const Transfer*> out, in;
      for (int k : step) {
        const Transfer& t = p_.transfers[static_cast<std::size_t>(k)];
        if (t.src == me_) out.push_back(&t);
        if (t.dst == me_) in.push_back(&t);
      }
      if (out.empty() && in.empty()) continue;  // not in this step: no waiting, no barrier
      // Rotate by rank so that, when a step holds many transfers (AllAtOnce), rank r
      // starts with r+1, r+2, ... instead of every rank serving rank 0 first.
      const int P = p_.comm_size;
      auto ahead = [&](int q) { return (q - me_ + P) % P; };
      std::sort(out.begin(), out.end(), [&](const Transfer* x, const Transfer* y) { return ahead(x->dst) < ahead(y->dst); });
      std::sort(in.begin(), in.end(), [&](const Transfer* x, const Transfer* y) { return ahead(x->src) > ahead(y->src); });
      ++st_.steps;
      if (opt_.split_wait_transfer) {
        const double t0 = MPI_Wtime();
        handshake(out, in);
        st_.wait_s += MPI_Wtime() - t0;
      }
      const double t0 = MPI_Wtime();
      // Transfers that `pick` takes, moved out of list (order kept).
      auto split = [&](std::vector<const Transfer*>& list, auto&& pick) {
        auto moved = std::stable_partition(list.begin(), list.end(), [&](const Transfer* t) { return !pick(*t); });
        std::vector<const Transfer*> to(moved, list.end());
        list.erase(moved, list.end());
        return to;
      };
      std::optional<SingleCopyStep> one;
      auto pick_read = [&](const Transfer& t) { return single_copy(t); };
      if (node_ && (std::any_of(out.begin(), out.end(), [&](const Transfer* t) { return pick_read(*t); }) ||
                    std::any_of(in.begin(), in.end(), [&](const Transfer* t) { return pick_read(*t); }))) {
        // the same node's partners whose pieces are read in place (reads_in_place), not sent
        auto sc_out = split(out, pick_read);
        auto sc_in = split(in, pick_read);
        one.emplace(SingleCopyStep::Env{comm_, mpi_type<T>(), sizeof(T), &sa_, &sb_, a_, b_, sleep_, opt_.sleep_us},
                    std::move(sc_out), std::move(sc_in));
        one->begin();
        charge(nullptr, one->bytes_held() + SingleCopyStep::kReaderBytes);
      }
      std::optional<WindowStep<T>> shared;
      if (win_ && win_->usable()) {  // the same node's partners: through the shared window
        auto pick = [&](const Transfer& t) { return win_->on_node(t.src == me_ ? t.dst : t.src); };
        auto w_out = split(out, pick);
        auto w_in = split(in, pick);
        shared.emplace(typename WindowStep<T>::Env{comm_, win_, &sa_, &sb_, a_, b_, sleep_, opt_.sleep_us},
                       std::move(w_out), std::move(w_in));
        shared->begin();
      }
      exchange(out, in, static_cast<std::int64_t>((out.capacity() + in.capacity()) * sizeof(const Transfer*)));
      if (shared) {
        const auto moved = shared->end();
        st_.bytes_sent += moved.sent;
        st_.bytes_received += moved.received;
        st_.bytes_window += moved.window;
        st_.pack_s += moved.pack_s;
        st_.unpack_s += moved.unpack_s;
      }
      if (one) {
        const auto moved = one->end();
        st_.bytes_sent += moved.sent;
        st_.bytes_received += moved.received;
        st_.bytes_single_copy += moved.single;
        charge(nullptr, -(one->bytes_held() + SingleCopyStep::kReaderBytes));
      }
      st_.transfer_s += MPI_Wtime() - t0;
    }
    do_local();
  }

 private:
  void do_local() {
    if (local_done_) return;
    const double t0 = MPI_Wtime();
    for (const Transfer* t : local_) copy_local(*t);
    st_.local_copy_s += MPI_Wtime() - t0;
    local_done_ = true;
  }

  void copy_local(const Transfer& t) {
    copy_transfer<T>(sa_, a_, sb_, b_, t);
    st_.bytes_local += t.elements() * static_cast<std::int64_t>(sizeof(T));
  }

  // Single copy on a node (exec/single_copy.hpp; docs/reference/redist.md, "Single copy on a node").
  bool single_copy(const Transfer& t) const {  // both ends decide alike (reads_in_place)
    const int peer = t.src == me_ ? t.dst : t.src;
    return node_ && peer != me_ && std::binary_search(node_->begin(), node_->end(), peer) &&
           reads_in_place(t, sizeof(T), opt_.single_copy, opt_.transport);
  }

  void handshake(const std::vector<const Transfer*>& out, const std::vector<const Transfer*>& in) {
    std::vector<int> partners;
    for (auto* t : out) partners.push_back(t->dst);
    for (auto* t : in) partners.push_back(t->src);
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    std::vector<MPI_Request> req;
    req.reserve(2 * partners.size());
    const auto held = static_cast<std::int64_t>(partners.capacity() * sizeof(int) + req.capacity() * sizeof(MPI_Request));
    charge(nullptr, held);
    for (int q : partners) {
      req.emplace_back();
      check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, q, kReadyTag, comm_, &req.back()), "MPI_Irecv (ready)");
      req.emplace_back();
      check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, q, kReadyTag, comm_, &req.back()), "MPI_Isend (ready)");
    }
    wait_all(req, sleep_, opt_.sleep_us, "MPI_Waitall (ready)");
    charge(nullptr, -held);
  }

  // ---- One step's messages within the memory budget (docs/reference/redist.md, "Memory budget").
  //
  // Each direction (sends, receives) takes its transfers in an order both ends share (by
  // (dst - src) mod P: rank r sends to r+1, r+2, ... first and receives from r-1, r-2,
  // ... first) and each transfer's messages in column order. A direction posts its next
  // message while it has room (fewer than max_outstanding messages in flight, its share
  // of the budget in bytes) and always when nothing of it is in flight; messages complete
  // in any order (MPI_Waitsome) and the window is refilled. No deadlock: the incomplete
  // message earliest in the job-wide order (step, (dst - src) mod P, src, message) is the
  // first incomplete one of its sender's sends and of its receiver's receives, so both
  // have it posted, and it completes. A message's size comes from its transfer and the
  // options only (message_size), so both ends cut a transfer into the same messages.

  struct Shape {
    bool packed = false;
    std::int64_t ncols = 0, rows_per_col = 0, cols_per_msg = 1, nmsgs = 1, meta = 0;
  };
  Shape shape_of(const Transfer& t) const {
    Shape s;
    for (const auto& r : t.rows) s.rows_per_col += r.len * r.count;
    for (const auto& c : t.cols) s.ncols += c.len * c.count;
    const std::int64_t col_bytes = std::max<std::int64_t>(1, s.rows_per_col * static_cast<std::int64_t>(sizeof(T)));
    s.packed = packs(t, opt_.transport, sizeof(T)) && col_bytes <= msg_.max;
    if (s.packed) {
      s.cols_per_msg = std::max<std::int64_t>(1, msg_.cap / col_bytes);
      s.nmsgs = (s.ncols + s.cols_per_msg - 1) / s.cols_per_msg;
    }
    s.meta = kTransferBytes + kRunBytes * static_cast<std::int64_t>(t.rows.size() + t.cols.size());
    return s;
  }

  // A transfer whose messages are under way.
  struct Chan {
    const Transfer* t = nullptr;
    Shape s;
    std::optional<Walk> w;         // packed only
    std::vector<LocalRun> packed;  // the row pieces' places in a staging buffer
    std::int64_t posted = 0, done = 0;
    bool released = false;
    std::vector<char> pre;  // fused passes: the staging of its one message, kept
    T* pre_data() { return reinterpret_cast<T*>(pre.data()); }
  };

  struct Dir {
    bool send = false;
    const std::vector<const Transfer*>* list = nullptr;
    std::deque<Chan> open;       // opened, in list order; front = list[base]
    std::size_t base = 0, cur = 0;  // list index of open.front(); of the transfer posting next
    std::int64_t budget = 0, inflight = 0, total = 0;
    int window = 0, nflight = 0;
    bool keep = false;  // Target fusion: received buffers are kept for the fused pass
    Chan& chan(std::size_t k) { return open[k - base]; }
  };

  struct Msg {
    Dir* d = nullptr;
    std::size_t chan = 0;
    std::int64_t first = 0, ncols = 0, bytes = 0;
    std::vector<char> buf;
    std::optional<PieceType> type;
  };

  void charge(Dir* d, std::int64_t b) { held_.charge(b, d ? &d->inflight : nullptr); }

  Chan& open_next(Dir& d) {
    const Transfer* t = (*d.list)[d.base + d.open.size()];
    Chan& c = d.open.emplace_back();
    c.t = t;
    c.s = shape_of(*t);
    if (c.s.packed) {
      c.w.emplace(d.send ? sa_ : sb_, *t);
      c.packed = packed_runs(c.w->rows);
    }
    charge(&d, c.s.meta);
    return c;
  }

  void release(Dir& d, Chan& c) {
    if (c.released) return;
    c.released = true;
    c.w.reset();
    std::vector<LocalRun>().swap(c.packed);
    if (c.pre.capacity()) {
      charge(&d, -static_cast<std::int64_t>(c.pre.capacity()));
      detail::BufferPool::instance().give(std::move(c.pre));
    }
    charge(&d, -c.s.meta);
  }

  // Posts d's next message if it has room; false when it has none or nothing is left.
  bool post_next(Dir& d, std::vector<Msg>& msgs, std::vector<MPI_Request>& req, std::vector<int>& free_slots) {
    if (d.nflight >= d.window || free_slots.empty()) return false;
    d.cur = std::max(d.cur, d.base);  // the transfer posting last may be done and gone
    while (d.cur < d.list->size()) {  // skip transfers without messages (no columns)
      if (d.cur >= d.base + d.open.size()) {
        const Shape s = shape_of(*(*d.list)[d.cur]);
        const std::int64_t first_msg = s.packed ? s.cols_per_msg * s.rows_per_col * std::int64_t{sizeof(T)} : 0;
        if (d.nflight > 0 && d.inflight + s.meta + first_msg > d.budget) return false;
        if (open_next(d).s.nmsgs == 0) release(d, d.open.back());
      }
      Chan& c = d.chan(d.cur);
      if (c.posted < c.s.nmsgs) break;
      ++d.cur;
    }
    if (d.cur >= d.list->size()) return false;
    Chan& c = d.chan(d.cur);
    const std::int64_t first = c.posted * c.s.cols_per_msg;
    const std::int64_t nc = c.s.packed ? std::min(c.s.cols_per_msg, c.s.ncols - first) : c.s.ncols;
    const std::int64_t bytes = c.s.packed ? nc * c.s.rows_per_col * static_cast<std::int64_t>(sizeof(T)) : 0;
    const bool prepacked = c.pre.capacity() > 0;
    if (d.nflight > 0 && !prepacked && d.inflight + bytes > d.budget) return false;
    const int k = free_slots.back();
    free_slots.pop_back();
    Msg& m = msgs[static_cast<std::size_t>(k)];
    m.d = &d;
    m.chan = d.cur;
    m.first = first;
    m.ncols = nc;
    m.bytes = 0;
    const int peer = d.send ? c.t->dst : c.t->src;
    if (!c.s.packed) {
      m.type.emplace(mpi_type<T>(), sizeof(T), d.send ? sa_ : sb_, *c.t);
      if (d.send)
        check_mpi(MPI_Isend(a_, 1, m.type->get(), peer, kDataTag, comm_, &req[static_cast<std::size_t>(k)]), "MPI_Isend");
      else
        check_mpi(MPI_Irecv(b_, 1, m.type->get(), peer, kDataTag, comm_, &req[static_cast<std::size_t>(k)]), "MPI_Irecv");
      (d.send ? st_.bytes_sent : st_.bytes_received) += c.t->elements() * static_cast<std::int64_t>(sizeof(T));
    } else {
      if (prepacked) {
        m.buf = std::move(c.pre);
        c.pre = {};
      } else {
        const std::int64_t room = d.budget - d.inflight;
        const auto want = static_cast<std::size_t>(bytes);
        m.buf = detail::BufferPool::instance().take(want, room > bytes ? static_cast<std::size_t>(room) : want);
        charge(&d, static_cast<std::int64_t>(m.buf.capacity()));
      }
      m.bytes = static_cast<std::int64_t>(m.buf.capacity());
      const int n = narrow(nc * c.s.rows_per_col, "message size");
      T* buf = reinterpret_cast<T*>(m.buf.data());
      if (d.send) {
        if (!prepacked) {
          const double t0 = MPI_Wtime();
          pack_columns<T>(*c.w, c.packed, a_, sa_.ld, first, nc, buf);
          st_.pack_s += MPI_Wtime() - t0;
        }
        check_mpi(MPI_Isend(buf, n, mpi_type<T>(), peer, kDataTag, comm_, &req[static_cast<std::size_t>(k)]), "MPI_Isend");
        st_.bytes_sent += bytes;
      } else {
        check_mpi(MPI_Irecv(buf, n, mpi_type<T>(), peer, kDataTag, comm_, &req[static_cast<std::size_t>(k)]), "MPI_Irecv");
        st_.bytes_received += bytes;
      }
    }
    ++c.posted;
    ++d.nflight;
    ++st_.messages;
    st_.max_in_flight = std::max(st_.max_in_flight, d.nflight);
    return true;
  }

  void complete(int k, std::vector<Msg>& msgs, std::vector<int>& free_slots) {
    Msg& m = msgs[static_cast<std::size_t>(k)];
    Dir& d = *m.d;
    Chan& c = d.chan(m.chan);
    if (c.s.packed && !d.send && d.keep) {
      c.pre = std::move(m.buf);  // still counted; the fused pass unpacks it
      m.buf = {};
    } else {
      if (c.s.packed && !d.send) {
        const double t0 = MPI_Wtime();
        unpack_columns<T>(*c.w, c.packed, reinterpret_cast<const T*>(m.buf.data()), m.first, m.ncols, b_, sb_.ld);
        st_.unpack_s += MPI_Wtime() - t0;
      }
      if (m.buf.capacity()) {
        charge(&d, -m.bytes);
        detail::BufferPool::instance().give(std::move(m.buf));
        m.buf = {};
      }
    }
    m.type.reset();
    ++c.done;
    --d.nflight;
    free_slots.push_back(k);
    if (d.keep) return;
    if (c.done == c.s.nmsgs && c.posted == c.s.nmsgs) release(d, c);
    while (!d.open.empty() && d.open.front().released) {
      d.open.pop_front();
      ++d.base;
    }
  }

  // Whether all of d's messages can be in flight at once (then its first fill posts them
  // all): the precondition of a fused pass on that side.
  bool fits_at_once(const Dir& d) const {
    if (d.total > opt_.max_outstanding) return false;
    std::int64_t bytes = 0;
    for (const Transfer* t : *d.list) {
      const Shape s = shape_of(*t);
      if (s.packed && s.nmsgs > 1) return false;
      bytes += s.meta + (s.packed ? s.ncols * s.rows_per_col * static_cast<std::int64_t>(sizeof(T)) : 0);
    }
    return bytes <= d.budget;
  }

  // The step's transfers, each way in a window within its share of the budget; the local
  // copies overlap with the first window (or are fused with its packing or unpacking).
  void exchange(const std::vector<const Transfer*>& out, const std::vector<const Transfer*>& in, std::int64_t fixed) {
    Dir ds, dr;
    ds.send = true;
    ds.list = &out;
    dr.list = &in;
    for (auto* t : out) ds.total += shape_of(*t).nmsgs;
    for (auto* t : in) dr.total += shape_of(*t).nmsgs;
    ds.window = static_cast<int>(std::min<std::int64_t>(opt_.max_outstanding, ds.total));
    dr.window = static_cast<int>(std::min<std::int64_t>(opt_.max_outstanding, dr.total));
    const auto nslots = static_cast<std::size_t>(ds.window + dr.window);
    std::vector<Msg> msgs(nslots);
    std::vector<MPI_Request> req(nslots, MPI_REQUEST_NULL);
    std::vector<int> free_slots(nslots), done;
    done.reserve(nslots);
    for (std::size_t k = 0; k < nslots; ++k) free_slots[k] = static_cast<int>(nslots - 1 - k);
    fixed += static_cast<std::int64_t>(nslots * (sizeof(Msg) + sizeof(MPI_Request) + 2 * sizeof(int)));
    charge(nullptr, fixed);
    const std::int64_t avail = std::max<std::int64_t>(0, budget_ - held_.now());
    ds.budget = in.empty() ? avail : out.empty() ? 0 : avail / 2;
    dr.budget = out.empty() ? avail : in.empty() ? 0 : avail - avail / 2;

    // A fused pass needs all of its side's messages at once.
    Fuse fuse = Fuse::None;
    if (opt_.fuse_local && !local_done_ && local_.size() == 1) {
      std::vector<Chan*> pk_out, pk_in;
      for (Dir* d : {&ds, &dr}) {
        if (!fits_at_once(*d)) continue;
        while (d->open.size() < d->list->size()) open_next(*d);
        for (auto& c : d->open)
          if (c.s.packed) (d->send ? pk_out : pk_in).push_back(&c);
      }
      fuse = fuse_plan(pk_out, pk_in);
      if (fuse == Fuse::Source || fuse == Fuse::SourceRow) {
        for (Chan* c : pk_out) {
          const auto bytes = static_cast<std::size_t>(c->s.ncols * c->s.rows_per_col) * sizeof(T);
          c->pre = detail::BufferPool::instance().take(bytes, bytes);
          charge(&ds, static_cast<std::int64_t>(c->pre.capacity()));
        }
        const double t0 = MPI_Wtime();
        fused(fuse, pk_out);
        st_.pack_s += MPI_Wtime() - t0;
      }
      dr.keep = fuse == Fuse::Target || fuse == Fuse::TargetRow;
    }

    auto fill = [&] {
      bool any = false;
      while (post_next(dr, msgs, req, free_slots)) any = true;  // receives first: senders find them posted
      while (post_next(ds, msgs, req, free_slots)) any = true;
      if (any) ++st_.rounds;
    };
    fill();
    if (!dr.keep) do_local();
    while (ds.nflight + dr.nflight > 0) {
      wait_some(req, done, sleep_, opt_.sleep_us, "MPI_Waitsome");
      for (int k : done) complete(k, msgs, free_slots);
      fill();
    }
    if (dr.keep && !local_done_) {
      std::vector<Chan*> pk_in;
      for (auto& c : dr.open)
        if (c.s.packed) pk_in.push_back(&c);
      const double t0 = MPI_Wtime();
      fused(fuse, pk_in);
      st_.unpack_s += MPI_Wtime() - t0;
    }
    for (Dir* d : {&ds, &dr})
      for (auto& c : d->open) release(*d, c);
    charge(nullptr, -fixed);
    do_local();
  }

  // Which pass, if any, takes this step's local copy along (exec/fused.hpp): one message
  // per transfer, all in flight at once, one local transfer, long enough columns.
  Fuse fuse_plan(const std::vector<Chan*>& outs, const std::vector<Chan*>& ins) const {
    if (!opt_.fuse_local || local_done_ || local_.size() != 1) return Fuse::None;
    std::vector<const Walk*> wo, wi;
    for (const Chan* c : outs) wo.push_back(&*c->w);
    for (const Chan* c : ins) wi.push_back(&*c->w);
    for (const auto* side : {&outs, &ins})
      for (const Chan* c : *side)
        if (c->s.nmsgs > 1) return Fuse::None;  // several messages
    const Transfer& lt = *local_[0];
    return choose_fuse(Walk(sa_, lt), Walk(sb_, lt), wo, wi);
  }

  // The local copy with the packing (Source) or unpacking (Target) of `chans`.
  void fused(Fuse how, const std::vector<Chan*>& chans) {
    std::vector<FusedChan<T>> fc;
    fc.reserve(chans.size());
    for (Chan* c : chans) fc.push_back({&*c->w, &c->packed, c->pre_data()});
    const Transfer& lt = *local_[0];
    run_fused<T>(how, sa_, a_, sb_, b_, lt, fc);
    st_.bytes_local += lt.elements() * static_cast<std::int64_t>(sizeof(T));
    st_.bytes_fused += lt.elements() * static_cast<std::int64_t>(sizeof(T));
    local_done_ = true;
  }

  MPI_Comm comm_;
  MessageSize msg_{};
  std::int64_t budget_ = 0;     // memory_budget_bytes, or no limit
  Held held_;                   // held now (ExecStats::peak_bytes is its maximum)
  const RedistPlan& p_;
  const T* a_;
  T* b_;
  const ExecOptions& opt_;
  ExecStats& st_;
  bool sleep_ = false;
  int me_ = 0;
  Side sa_, sb_;
  std::vector<const Transfer*> local_;  // this rank's transfers to itself
  bool local_done_ = true;
  const std::vector<int>* node_ = nullptr;  // ranks on this node when single copy may apply
  const NodeWindow* win_ = nullptr;         // the node-shared staging window, when on
};

}  // namespace

template <class T>
void exchange_plan(MPI_Comm user_comm, MPI_Comm comm, const RedistPlan& p, const T* a, std::int64_t lda, T* b,
                   std::int64_t ldb, const ExecOptions& opt, bool sleep, ExecStats& st, const std::vector<int>* node) {
  // Single copy applies when forced (On, any transport) or chosen per transfer (Auto,
  // under Transport::Auto) and the system can read another process's memory.
  const bool reads = node && single_copy_supported() &&
                     (opt.single_copy == SingleCopy::On ||
                      (opt.single_copy == SingleCopy::Auto && opt.transport == Transport::Auto));
  std::vector<int> joined;  // the ranks the window joins (on_node.hpp, joined_by_window); outlives win
  std::optional<NodeWindow> win;
  if (opt.node_window && opt.transport == Transport::Auto && node_window_supported() && node) {  // Datatype/Packed: messages
    int me = 0;
    MPI_Comm_rank(comm, &me);
    joined = joined_by_window(*node, opt.window_pairs == WindowPairs::OtherJobs ? &job_ranks(user_comm) : nullptr, me);
    const std::int64_t limit = opt.memory_budget_bytes > 0 ? opt.memory_budget_bytes / 2 : INT64_MAX / 4;
    win.emplace(user_comm, joined,
                window_need(p, me, joined, sizeof(T), reads ? opt.single_copy : SingleCopy::Off, opt.transport), limit);
  }
  Executor<T>(comm, p, a, lda, b, ldb, opt, sleep, st, reads ? node : nullptr, win && win->usable() ? &*win : nullptr)
      .run();
  if (win) win->finish();  // the window's steps' last words and messages
}

#define REDIST_EXCHANGE(T)                                                                                 \
  template void exchange_plan<T>(MPI_Comm, MPI_Comm, const RedistPlan&, const T*, std::int64_t, T*, std::int64_t, \
                                 const ExecOptions&, bool, ExecStats&, const std::vector<int>*);
REDIST_EXCHANGE(float)
REDIST_EXCHANGE(double)
REDIST_EXCHANGE(std::complex<float>)
REDIST_EXCHANGE(std::complex<double>)
#undef REDIST_EXCHANGE

}  // namespace redist::exec
