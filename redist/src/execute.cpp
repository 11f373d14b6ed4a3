// SPDX-License-Identifier: BSD-3-Clause
// The exchange of redist: the only file of the module's C++ core that sends data. Plans
// come from plan.cpp (pure); arguments are checked collectively (exec/checks), then each
// transfer moves straight between the local column-major arrays, as a datatype or packed
// (exec/transport), copied by the local-copy kernels (exec/local_copy), waited for by
// exec/waiting.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/checks.hpp"
#include "exec/local_copy.hpp"
#include "exec/transport.hpp"
#include "exec/waiting.hpp"
#include "malleable/redist/redistribute.hpp"
#include "mpi_guard.hpp"
#include "staging_pool.hpp"

namespace redist {
namespace {

using detail::check_mpi;
using detail::DupComm;
using namespace exec;

constexpr int kDataTag = 0x5ED1;
constexpr int kReadyTag = 0x5ED2;

template <class T>
class Executor {
 public:
  Executor(MPI_Comm comm, const RedistPlan& p, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
           const ExecOptions& opt, bool sleep, ExecStats& st)
      : comm_(comm), p_(p), a_(a), b_(b), opt_(opt), st_(st), sleep_(sleep) {
    MPI_Comm_rank(comm, &me_);
    sa_ = Side{p.a.row_axis(), p.a.col_axis(), 0, 0, lda, false};
    sb_ = Side{p.b.row_axis(), p.b.col_axis(), p.region.ib - p.region.ia, p.region.jb - p.region.ja, ldb, true};
  }

  void run() {
    for (const auto& t : p_.transfers)
      if (t.src == me_ && t.dst == me_) local_.push_back(&t);
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
      exchange(out, in);
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
    const Walk wa(sa_, t), wb(sb_, t);
    ColCursor xa(wa), xb(wb);
    for (std::int64_t o = 0; o < wa.ncols;) {
      // Both sides at the start of pieces of one length: a run of pieces in one loop.
      const auto pa = xa.pieces(), pb = xb.pieces();
      if (pa.len == pb.len && pa.left > 1 && pb.left > 1) {
        const std::int64_t k = std::min({pa.left, pb.left, (wa.ncols - o) / pa.len});
        if (k > 1) {
          copy_pieces<T>(wa.rows, a_ + pa.first * sa_.ld, sa_.ld, pa.stride * sa_.ld, wb.rows,
                         b_ + pb.first * sb_.ld, sb_.ld, pb.stride * sb_.ld, pa.len, k);
          xa.skip_pieces(k);
          xb.skip_pieces(k);
          o += k * pa.len;
          continue;
        }
      }
      const auto [ca, na] = xa.at();
      const auto [cb, nb] = xb.at();
      // One side a run of short pieces, the other inside one long stretch (column blocks
      // of 3 gathered onto one process: 1 x N, 1x2 -> 2x1): the stretch taken as pieces of
      // the same length, so the run still goes in one call.
      if (pb.left > 1 && na >= 2 * pb.len) {
        const std::int64_t k = std::min({pb.left, na / pb.len, (wa.ncols - o) / pb.len});
        if (k > 1) {
          copy_pieces<T>(wa.rows, a_ + ca * sa_.ld, sa_.ld, pb.len * sa_.ld, wb.rows, b_ + pb.first * sb_.ld, sb_.ld,
                         pb.stride * sb_.ld, pb.len, k);
          xa.next(k * pb.len);
          xb.skip_pieces(k);
          o += k * pb.len;
          continue;
        }
      }
      if (pa.left > 1 && nb >= 2 * pa.len) {
        const std::int64_t k = std::min({pa.left, nb / pa.len, (wa.ncols - o) / pa.len});
        if (k > 1) {
          copy_pieces<T>(wa.rows, a_ + pa.first * sa_.ld, sa_.ld, pa.stride * sa_.ld, wb.rows, b_ + cb * sb_.ld, sb_.ld,
                         pa.len * sb_.ld, pa.len, k);
          xa.skip_pieces(k);
          xb.next(k * pa.len);
          o += k * pa.len;
          continue;
        }
      }
      const std::int64_t w = std::min({na, nb, wa.ncols - o});
      copy_cols<T>(wa.rows, a_ + ca * sa_.ld, sa_.ld, wb.rows, b_ + cb * sb_.ld, sb_.ld, w);
      xa.next(w);
      xb.next(w);
      o += w;
    }
    st_.bytes_local += t.elements() * static_cast<std::int64_t>(sizeof(T));
  }

  void handshake(const std::vector<const Transfer*>& out, const std::vector<const Transfer*>& in) {
    std::vector<int> partners;
    for (auto* t : out) partners.push_back(t->dst);
    for (auto* t : in) partners.push_back(t->src);
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    std::vector<MPI_Request> req;
    for (int q : partners) {
      req.emplace_back();
      check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, q, kReadyTag, comm_, &req.back()), "MPI_Irecv (ready)");
      req.emplace_back();
      check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, q, kReadyTag, comm_, &req.back()), "MPI_Isend (ready)");
    }
    wait_all(req, sleep_, opt_.sleep_us, "MPI_Waitall (ready)");
  }

  // The step's transfers: those sent as datatypes are posted first (nonblocking), then the
  // packed ones run their rounds (the local copies overlap with whichever goes first), and
  // the datatype requests are waited for last; every rank posts in that order, so no wait
  // depends on a message not yet posted.
  void exchange(const std::vector<const Transfer*>& out, const std::vector<const Transfer*>& in) {
    std::vector<const Transfer*> dt_out, dt_in, pk_out, pk_in;
    for (auto* t : out) (packs(*t, opt_.transport, sizeof(T)) ? pk_out : dt_out).push_back(t);
    for (auto* t : in) (packs(*t, opt_.transport, sizeof(T)) ? pk_in : dt_in).push_back(t);
    std::vector<PieceType> types;
    std::vector<MPI_Request> req;
    post_datatype(dt_out, dt_in, types, req);
    if (!pk_out.empty() || !pk_in.empty()) exchange_packed(pk_out, pk_in);
    do_local();
    wait_all(req, sleep_, opt_.sleep_us, "MPI_Waitall");
  }

  void post_datatype(const std::vector<const Transfer*>& out, const std::vector<const Transfer*>& in,
                     std::vector<PieceType>& types, std::vector<MPI_Request>& req) {
    types.reserve(out.size() + in.size());
    req.assign(out.size() + in.size(), MPI_REQUEST_NULL);
    std::size_t k = 0;
    for (auto* t : in) {  // receives first, so senders find them posted
      types.emplace_back(mpi_type<T>(), sizeof(T), sb_, *t);
      check_mpi(MPI_Irecv(b_, 1, types.back().get(), t->src, kDataTag, comm_, &req[k++]), "MPI_Irecv");
      st_.bytes_received += t->elements() * static_cast<std::int64_t>(sizeof(T));
    }
    for (auto* t : out) {
      types.emplace_back(mpi_type<T>(), sizeof(T), sa_, *t);
      check_mpi(MPI_Isend(a_, 1, types.back().get(), t->dst, kDataTag, comm_, &req[k++]), "MPI_Isend");
      st_.bytes_sent += t->elements() * static_cast<std::int64_t>(sizeof(T));
    }
  }

  struct Chan {
    const Transfer* t;
    Walk w;
    std::vector<LocalRun> packed;  // the row pieces' places in the staging buffer
    std::int64_t cols_per_msg, next;
    detail::Staging<T> buf;
  };

  // Which pass, if any, takes this step's local copy along (one round only, one local
  // transfer, long enough columns). Target: every transfer received here writes the same
  // local columns of B as the local copy, so the copy and the unpacking write each column
  // in one pass after the messages arrived (blocks of 1-3 rows interleave the two within a
  // column, and apart each pass writes every cache line of B). Source: every transfer sent
  // from here reads the same local columns of A as the local copy, so the packing and the
  // copy read each column once. TargetRow and SourceRow: the same along one local row
  // (1 x N matrices in column blocks of 1-3, where the pieces interleave along the row).
  enum class Fuse { None, Target, Source, TargetRow, SourceRow };
  static constexpr std::int64_t kFuseMinRows = 64;  // per column; below, per-column calls cost more than they save

  Fuse fuse_plan(const std::vector<Chan>& outs, const std::vector<Chan>& ins) const {
    if (!opt_.fuse_local || local_done_ || local_.size() != 1) return Fuse::None;
    for (const auto* side : {&outs, &ins})
      for (const auto& c : *side)
        if (c.w.ncols > c.cols_per_msg) return Fuse::None;  // several rounds
    const Transfer& lt = *local_[0];
    const Walk la(sa_, lt), lb(sb_, lt);
    if (lb.rows_per_col == 1 && lb.ncols >= kFuseMinRows) {
      auto all_on_row = [](const std::vector<Chan>& cs, const Walk& w) {
        return !cs.empty() && std::all_of(cs.begin(), cs.end(), [&](const Chan& c) {
          return c.w.rows_per_col == 1 && only_row(c.w) == only_row(w);
        });
      };
      if (all_on_row(ins, lb)) return Fuse::TargetRow;
      if (all_on_row(outs, la)) return Fuse::SourceRow;
      return Fuse::None;
    }
    if (lb.rows_per_col < kFuseMinRows) return Fuse::None;
    auto all_same = [](const std::vector<Chan>& cs, const Walk& w) {
      return !cs.empty() && std::all_of(cs.begin(), cs.end(), [&](const Chan& c) { return same_columns(c.w, w); });
    };
    if (all_same(ins, lb)) return Fuse::Target;
    if (all_same(outs, la)) return Fuse::Source;
    return Fuse::None;
  }

  // The local copy with the unpacking of `ins` (Target) or the packing of `outs` (Source),
  // column by column of the shared side; within a column, copy_merged tiles all of them.
  void fused_pass(Fuse how, std::vector<Chan>& chans) {
    const Transfer& lt = *local_[0];
    const Walk la(sa_, lt), lb(sb_, lt);
    const bool target = how == Fuse::Target;
    ColCursor xa(la), xb(lb);
    std::vector<RowStream<T>> streams(chans.size() + 1);
    streams[0].src = &la.rows;
    streams[0].dst = &lb.rows;
    for (std::size_t q = 0; q < chans.size(); ++q) {
      streams[q + 1].src = target ? &chans[q].packed : &chans[q].w.rows;
      streams[q + 1].dst = target ? &chans[q].w.rows : &chans[q].packed;
    }
    for (std::int64_t o = 0; o < la.ncols;) {
      const auto [ca, na] = xa.at();
      const auto [cb, nb] = xb.at();
      const std::int64_t w = std::min({na, nb, la.ncols - o});
      for (std::int64_t j = 0; j < w; ++j) {
        const T* acol = a_ + (ca + j) * sa_.ld;
        T* bcol = b_ + (cb + j) * sb_.ld;
        streams[0].s = acol;
        streams[0].d = bcol;
        for (std::size_t q = 0; q < chans.size(); ++q) {
          T* packed_col = chans[q].buf.data() + (o + j) * chans[q].w.rows_per_col;
          streams[q + 1].s = target ? packed_col : acol;
          streams[q + 1].d = target ? bcol : packed_col;
        }
        copy_merged<T>(streams);
      }
      xa.next(w);
      xb.next(w);
      o += w;
    }
    st_.bytes_local += lt.elements() * static_cast<std::int64_t>(sizeof(T));
    st_.bytes_fused += lt.elements() * static_cast<std::int64_t>(sizeof(T));
    local_done_ = true;
  }

  // The local index of a walk's only row (rows_per_col == 1).
  static std::int64_t only_row(const Walk& w) {
    for (const auto& r : w.rows)
      if (r.len * r.count > 0) return r.start;
    return 0;
  }

  // Column runs as runs of elements along one row: scaled by the leading dimension, and
  // when it is not 1 (or the partner side's is not), split into runs of single elements
  // so that the pieces stay contiguous; both sides of a stream split alike.
  static std::vector<LocalRun> along_row(const std::vector<LocalRun>& cols, std::int64_t ld, bool split) {
    if (!split) return cols;
    std::vector<LocalRun> out;
    for (const auto& c : cols)
      for (std::int64_t e = 0; e < c.len; ++e) out.push_back({(c.start + e) * ld, 1, c.count, c.stride * ld});
    return out;
  }

  // TargetRow / SourceRow: the local copy and the unpacking of `ins` (or the packing of
  // `outs`) along the one local row they share, in one tiled pass (copy_merged).
  void fused_row_pass(Fuse how, std::vector<Chan>& chans) {
    const Transfer& lt = *local_[0];
    const Walk la(sa_, lt), lb(sb_, lt);
    const bool target = how == Fuse::TargetRow;
    std::vector<std::vector<LocalRun>> runs;
    runs.reserve(2 * (chans.size() + 1));
    std::vector<RowStream<T>> streams;
    auto add = [&](const std::vector<LocalRun>& src, std::int64_t src_ld, const T* s, const std::vector<LocalRun>& dst,
                   std::int64_t dst_ld, T* d) {
      const bool split = src_ld != 1 || dst_ld != 1;
      runs.push_back(along_row(src, src_ld, split));
      runs.push_back(along_row(dst, dst_ld, split));
      streams.push_back({&runs[runs.size() - 2], s, &runs.back(), d});
    };
    add(la.cols, sa_.ld, a_ + only_row(la), lb.cols, sb_.ld, b_ + only_row(lb));
    for (auto& c : chans) {
      const auto packed = packed_runs(c.w.cols);
      if (target)
        add(packed, 1, c.buf.data(), c.w.cols, sb_.ld, b_ + only_row(c.w));
      else
        add(c.w.cols, sa_.ld, a_ + only_row(c.w), packed, 1, c.buf.data());
    }
    copy_merged<T>(streams);
    st_.bytes_local += lt.elements() * static_cast<std::int64_t>(sizeof(T));
    st_.bytes_fused += lt.elements() * static_cast<std::int64_t>(sizeof(T));
    local_done_ = true;
  }

  // Bounded staging: each transfer goes as messages of whole columns of at most
  // staging_bytes; round r moves chunk r of every transfer of the step, so staging is
  // (partners in the step) x staging_bytes, never a copy of the matrix.
  void exchange_packed(const std::vector<const Transfer*>& out, const std::vector<const Transfer*>& in) {
    auto make = [&](const Transfer* t, const Side& s) {
      Walk w(s, *t);
      auto packed = packed_runs(w.rows);
      const std::int64_t col_bytes = std::max<std::int64_t>(1, w.rows_per_col * static_cast<std::int64_t>(sizeof(T)));
      const std::int64_t cols_per_msg = std::max<std::int64_t>(1, opt_.staging_bytes / col_bytes);
      const auto n = static_cast<std::size_t>(std::min<std::int64_t>(cols_per_msg, w.ncols) * w.rows_per_col);
      return Chan{t, std::move(w), std::move(packed), cols_per_msg, 0, detail::Staging<T>(n)};
    };
    std::vector<Chan> ins, outs;
    ins.reserve(in.size());
    outs.reserve(out.size());
    for (auto* t : in) ins.push_back(make(t, sb_));
    for (auto* t : out) outs.push_back(make(t, sa_));
    const Fuse fuse = fuse_plan(outs, ins);
    std::vector<MPI_Request> req;
    for (;;) {
      req.clear();
      std::vector<std::pair<Chan*, std::int64_t>> unpack;  // channel, first column
      for (auto& c : ins) {
        const std::int64_t ncols = c.w.ncols;
        if (c.next >= ncols) continue;
        const std::int64_t nc = std::min(c.cols_per_msg, ncols - c.next);
        req.emplace_back();
        check_mpi(MPI_Irecv(c.buf.data(), narrow(nc * c.w.rows_per_col, "message size"), mpi_type<T>(), c.t->src,
                            kDataTag, comm_, &req.back()),
                  "MPI_Irecv");
        unpack.emplace_back(&c, c.next);
        c.next += nc;
        st_.bytes_received += nc * c.w.rows_per_col * static_cast<std::int64_t>(sizeof(T));
      }
      const bool source = fuse == Fuse::Source || fuse == Fuse::SourceRow;
      if (source && !local_done_) {
        const double t0 = MPI_Wtime();
        if (fuse == Fuse::Source)
          fused_pass(fuse, outs);
        else
          fused_row_pass(fuse, outs);
        st_.pack_s += MPI_Wtime() - t0;
      }
      for (auto& c : outs) {
        const std::int64_t ncols = c.w.ncols;
        if (c.next >= ncols) continue;
        const std::int64_t nc = std::min(c.cols_per_msg, ncols - c.next);
        if (!source) {
          T* dst = c.buf.data();
          const double t0 = MPI_Wtime();
          ColCursor(c.w, c.next).walk(nc, [&](std::int64_t lc, std::int64_t w, std::int64_t stride, std::int64_t k) {
            const std::int64_t step = w * c.w.rows_per_col;
            copy_pieces<T>(c.w.rows, a_ + lc * sa_.ld, sa_.ld, stride * sa_.ld, c.packed, dst, c.w.rows_per_col, step, w,
                           k);
            dst += k * step;
          });
          st_.pack_s += MPI_Wtime() - t0;
        }
        req.emplace_back();
        check_mpi(MPI_Isend(c.buf.data(), narrow(nc * c.w.rows_per_col, "message size"), mpi_type<T>(), c.t->dst,
                            kDataTag, comm_, &req.back()),
                  "MPI_Isend");
        c.next += nc;
        st_.bytes_sent += nc * c.w.rows_per_col * static_cast<std::int64_t>(sizeof(T));
      }
      if (req.empty()) break;
      const bool target = fuse == Fuse::Target || fuse == Fuse::TargetRow;
      if (!target) do_local();
      wait_all(req, sleep_, opt_.sleep_us, "MPI_Waitall");
      const double t0 = MPI_Wtime();
      if (target && !local_done_) {
        if (fuse == Fuse::Target)
          fused_pass(fuse, ins);
        else
          fused_row_pass(fuse, ins);
        unpack.clear();
      }
      for (auto [c, first] : unpack) {
        const std::int64_t nc = std::min(c->cols_per_msg, c->w.ncols - first);
        const T* src = c->buf.data();
        ColCursor(c->w, first).walk(nc, [&](std::int64_t lc, std::int64_t w, std::int64_t stride, std::int64_t k) {
          const std::int64_t step = w * c->w.rows_per_col;
          copy_pieces<T>(c->packed, src, c->w.rows_per_col, step, c->w.rows, b_ + lc * sb_.ld, sb_.ld, stride * sb_.ld, w, k);
          src += k * step;
        });
      }
      st_.unpack_s += MPI_Wtime() - t0;
    }
    do_local();
  }

  MPI_Comm comm_;
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
};

template <class T>
void execute_checked(MPI_Comm user_comm, LocalError err, const RedistPlan* plan, std::uint64_t fp, const T* a,
                     std::int64_t lda, T* b, std::int64_t ldb, const ExecOptions& opt, ExecStats* stats) {
  const double t0 = MPI_Wtime();
  DupComm comm(user_comm);
  int me = 0, n = 0;
  MPI_Comm_rank(comm.get(), &me);
  MPI_Comm_size(comm.get(), &n);
  if (err.ok() && plan) err = check_buffers(*plan, me, n, a, lda, b, ldb, opt, sizeof(T));
  agree(comm.get(), err, fp);
  ExecStats st;
  st.check_s = MPI_Wtime() - t0;
  const bool sleep = opt.wait == WaitMode::Sleep || (opt.wait == WaitMode::Auto && oversubscribed(user_comm, comm.get()));
  // Aliasing (issue 21 §3): when this rank's local arrays of A and B share storage (one
  // array, B(:,2:6) := A(:,1:5)), reading A in place while B is written would read values
  // already overwritten, by the local copies or by messages arriving. PDGEMR2D answers as if
  // A had been read first, and so does redist: A's local array is copied once before any
  // data moves, and everything is read from the copy. Each rank decides for itself.
  std::vector<T> staged;
  const std::int64_t span_a = local_span(plan->a, me, lda), span_b = local_span(plan->b, me, ldb);
  if (a && b && span_a > 0 && span_b > 0 && overlap(a, span_a, b, span_b)) {
    staged.assign(a, a + span_a);
    a = staged.data();
    st.bytes_staged = span_a * static_cast<std::int64_t>(sizeof(T));
  }
  Executor<T>(comm.get(), *plan, a, lda, b, ldb, opt, sleep, st).run();
  st.total_s = MPI_Wtime() - t0;
  if (stats) *stats = st;
}

template <class T>
void plan_and_execute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb, T* b,
                      std::int64_t ldb, const Region& region, bool whole, ScheduleKind schedule,
                      const ExecOptions& opt, ExecStats* stats) {
  detail::check_comm(comm, "comm");
  int n = 0;
  check_mpi(MPI_Comm_size(comm, &n), "MPI_Comm_size");
  LocalError err;
  RedistPlan plan;
  if (whole && (la.m != lb.m || la.n != lb.n)) {
    err = {ErrorCode::SizeMismatch, "a is " + std::to_string(la.m) + " x " + std::to_string(la.n) + " but b is " +
                                        std::to_string(lb.m) + " x " + std::to_string(lb.n)};
  } else {
    try {
      int me = 0;
      MPI_Comm_rank(comm, &me);
      plan = make_plan(la, lb, region, n, schedule, me);
    } catch (const Error& e) {
      err = {e.code(), e.what()};
    }
  }
  RedistPlan probe;  // the fingerprint must not depend on whether planning succeeded
  probe.a = la;
  probe.b = lb;
  probe.region = region;
  probe.schedule = resolve(schedule);
  execute_checked(comm, err, err.ok() ? &plan : nullptr, run_fingerprint(probe, opt), a, lda, b, ldb, opt, stats);
}

}  // namespace

template <class T>
void redistribute(MPI_Comm comm, const RedistPlan& plan, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
                  const ExecOptions& opt, ExecStats* stats) {
  execute_checked(comm, LocalError{}, &plan, run_fingerprint(plan, opt), a, lda, b, ldb, opt, stats);
}

template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb, T* b,
                  std::int64_t ldb, const Region& region, ScheduleKind schedule, const ExecOptions& opt,
                  ExecStats* stats) {
  plan_and_execute(comm, la, a, lda, lb, b, ldb, region, false, schedule, opt, stats);
}

template <class T>
void redistribute(MPI_Comm comm, const Layout& la, const T* a, std::int64_t lda, const Layout& lb, T* b,
                  std::int64_t ldb, ScheduleKind schedule, const ExecOptions& opt, ExecStats* stats) {
  plan_and_execute(comm, la, a, lda, lb, b, ldb, Region::whole(la), true, schedule, opt, stats);
}

#define REDIST_INSTANTIATE(T)                                                                                    \
  template void redistribute<T>(MPI_Comm, const RedistPlan&, const T*, std::int64_t, T*, std::int64_t,          \
                                const ExecOptions&, ExecStats*);                                                 \
  template void redistribute<T>(MPI_Comm, const Layout&, const T*, std::int64_t, const Layout&, T*,             \
                                std::int64_t, const Region&, ScheduleKind, const ExecOptions&, ExecStats*);      \
  template void redistribute<T>(MPI_Comm, const Layout&, const T*, std::int64_t, const Layout&, T*,             \
                                std::int64_t, ScheduleKind, const ExecOptions&, ExecStats*);
REDIST_INSTANTIATE(float)
REDIST_INSTANTIATE(double)
REDIST_INSTANTIATE(std::complex<float>)
REDIST_INSTANTIATE(std::complex<double>)
#undef REDIST_INSTANTIATE

}  // namespace redist
