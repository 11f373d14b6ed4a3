// SPDX-License-Identifier: BSD-3-Clause
// The one grid switch after a resize (switch_grid) and what it does: moving the registered
// matrices between two grids of the current world (every resize's redistribution), for
// block-cyclic and extended-descriptor matrices, and the move's accounting (MoveAccounting:
// each rank's share, move/move_share.cpp, reduced over the world).
#include "parts/grid_switch.hpp"

#include "common/broadcast.hpp"
#include "common/config.hpp"
#include "common/fault.hpp"
#include "move/move_batches.hpp"
#include "move/move_items.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <unistd.h>

#include "malleable/redist/redistribute.hpp"

namespace resize {

// The move's accounting (MoveAccounting, grid_switch.hpp): each rank's share of every
// matrix's move (move/move_share.cpp), reduced over the world.
namespace detail {

namespace {
constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
}  // namespace

MoveAccounting::MoveAccounting(MPI_Comm world, const redist::CostParams* params, const std::vector<int>& node_of_rank)
    : world_(world), node_of_rank_(node_of_rank) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &size_);
  mapped_ = static_cast<int>(node_of_rank.size()) >= size_;
  // Rank 0's cost model to every rank: [predict?, the parameters, cores_per_node, measured?].
  double buf[redist::kCostParamCount + 3] = {};
  if (rank_ == 0 && params) {
    buf[0] = 1;
    const auto v = redist::to_array(*params);
    std::copy(v.begin(), v.end(), buf + 1);
    buf[redist::kCostParamCount + 1] = params->cores_per_node;
    buf[redist::kCostParamCount + 2] = params->inter_node_measured ? 1 : 0;
  }
  MPI_Bcast(buf, redist::kCostParamCount + 3, MPI_DOUBLE, 0, world);
  predict_ = buf[0] != 0;
  if (!predict_) return;
  std::array<double, redist::kCostParamCount> v{};
  std::copy(buf + 1, buf + 1 + redist::kCostParamCount, v.begin());
  redist::assign(params_, v);
  params_.cores_per_node = static_cast<int>(buf[redist::kCostParamCount + 1]);
  params_.inter_node_measured = buf[redist::kCostParamCount + 2] != 0;
  // The regime (ranks per core on the most crowded node) once per resize: O(P) over the map.
  regime_ = cost_regime(params_, mapped_ ? std::span<const int>(node_of_rank.data(), static_cast<std::size_t>(size_))
                                         : std::span<const int>(), size_);
  if (params_.cores_per_node > 0) {
    if (mapped_)
      MPI_Comm_split(world, node_of_rank[static_cast<std::size_t>(rank_)], rank_, &node_);
    else
      MPI_Comm_dup(world, &node_);  // one node
  }
}

MoveAccounting::~MoveAccounting() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

void MoveAccounting::add(Scalar type, const redist::Layout& la, const redist::Layout& lb) {
  add(type, redist::make_plan(la, lb, redist::Region::whole(la), size_, redist::ScheduleKind::Default, rank_));
}

void MoveAccounting::add(Scalar type, const redist::RedistPlan& plan) {
  const std::size_t eb = scalar_bytes(type);
  const std::span<const int> nodes =
      mapped_ ? std::span<const int>(node_of_rank_.data(), static_cast<std::size_t>(size_)) : std::span<const int>();
  const RankShare s = rank_share(plan, eb, nodes, predict_ ? &params_ : nullptr, regime_);
  const auto b = static_cast<std::int64_t>(eb);
  bytes_moved += s.sent * b;
  bytes_intra_node += s.sent_intra * b;
  bytes_inter_node += s.sent_inter * b;
  if (!predict_) return;
  // The job's span of step numbers: max of (-lo, hi).
  const StepSpan own = own_span(s);
  std::int64_t span[2] = {own.hi >= own.lo ? -own.lo : kNone, own.hi >= own.lo ? own.hi : kNone};
  MPI_Allreduce(MPI_IN_PLACE, span, 2, MPI_INT64_T, MPI_MAX, world_);
  const StepSpan job = span[1] == kNone ? StepSpan{} : StepSpan{-span[0], span[1]};
  const CostSlots c = cost_slots(s, job);
  const std::size_t n = c.work.size();
  std::vector<double> node_bound(n, 0.0);
  if (node_ != MPI_COMM_NULL) {
    std::vector<double> sums(c.work);
    sums.insert(sums.end(), c.active.begin(), c.active.end());
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, node_);
    node_bound = node_bounds(params_, std::span<const double>(sums.data(), n), std::span<const double>(sums.data() + n, n));
  }
  std::vector<double> all(c.work);
  all.insert(all.end(), node_bound.begin(), node_bound.end());
  all.insert(all.end(), c.active.begin(), c.active.end());
  all.insert(all.end(), c.message.begin(), c.message.end());
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX, world_);
  const std::span<const double> m(all);
  predicted_s += predicted_seconds(params_, regime_, m.subspan(0, n), m.subspan(n, n), m.subspan(2 * n, n),
                                   m.subspan(3 * n, n));
}

void MoveAccounting::reduce() {
  std::int64_t v[3] = {bytes_moved, bytes_intra_node, bytes_inter_node};
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_SUM, world_);
  bytes_moved = v[0];
  bytes_intra_node = v[1];
  bytes_inter_node = v[2];
  MPI_Allreduce(MPI_IN_PLACE, &peak_bytes, 1, MPI_INT64_T, MPI_MAX, world_);
  double t[8] = {phases.stage_s,      phases.plan_s,   phases.exchange_s, phases.pack_s, phases.unpack_s,
                 phases.local_copy_s, phases.commit_s, phases.prefault_s};
  MPI_Allreduce(MPI_IN_PLACE, t, 8, MPI_DOUBLE, MPI_MAX, world_);
  phases = MovePhases{t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]};
}

}  // namespace detail

using namespace detail;

namespace {
// Test hook (common/fault.hpp; a node lost during a resize): RESIZE_FAULT=
// pause-in-redistribution[:S] makes every process of the resize sleep S seconds with the
// data half moved: the redist mover's exchange started (messages posted, local pieces
// copied), not finished; the PDGEMR2D mover after the first registered matrix has moved.
void fault_pause(const config::Text& named, int world_rank, const std::string& moved) {
  if (!fault::armed(named, fault::Point::PauseInRedistribution)) return;  // never armed without the test hooks
  fault::inject(named, fault::Point::PauseInRedistribution, true, world_rank,
                "in the redistribution (from matrix '" + moved + "' on, half moved)");
}
}  // namespace

namespace {
// A grid's BLACS context on this process, -1 outside it.
int context_of(const blacs_dyn::Grid& g) { return g.in_grid() ? g.context() : -1; }
}  // namespace

// The descriptor of a matrix that is not registered (Session::make_desc): its layout on
// `g`, and the descriptor derived from it (parts/descriptor.hpp).
void GridSwitch::desc_for(const redist::MatrixSpec& mat, const blacs_dyn::Grid& g, int* d) const {
  const Grid s = shape_of(g);
  const redist::Layout l = mat.layout_on(s.nprow, s.npcol, s.ranks);
  const std::array<int, 9> v = detail::descriptor(mat, &l, context_of(g), job.rank());
  std::copy(v.begin(), v.end(), d);
}

// The local buffer an application's descriptor needs on this process (Session::local_size,
// public, for Session::make_desc's descriptors: the C/Fortran edge, read from the caller's
// descriptor; the session's own matrices size theirs from their layouts).
std::size_t detail::local_elements(const int* desc) {
  if (desc[1] < 0) return 0;
  int nprow = 0, npcol = 0, myrow = 0, mycol = 0;
  Cblacs_gridinfo(desc[1], &nprow, &npcol, &myrow, &mycol);
  // The local columns: redist's map of the column dimension (first block on column CSRC).
  const redist::Axis cols(redist::BlockSizes::uniform(desc[3], desc[5]), npcol, desc[7]);
  const auto nloc = cols.local_count(mycol);
  return static_cast<std::size_t>(desc[8]) * static_cast<std::size_t>(std::max<std::int64_t>(nloc, 1));
}

// Redistributes every registered matrix from grid `from` to grid `to` (both contexts
// on the current world); returns bytes moved between ranks (job-wide, on every rank).
// Collective over the world, newcomers included (they pass no record). The figures come
// from each rank's own plan and reductions (detail::MoveAccounting): no
// process plans the whole job.
std::int64_t GridSwitch::move_all(const blacs_dyn::Grid& from, const blacs_dyn::Grid& to, ResizeRecord* rec) {
  // Rank 0 decides (it holds the record and the cost model) and tells the others.
  const bool predict = rec && job.root() && recorder.cost_model && opt.mover == Mover::Redist;
  detail::MoveAccounting acct(job.world, predict ? &*recorder.cost_model : nullptr, job.node_of_rank);
  // The local arrays the move replaced, freed on the prefault thread once the data moved
  // (Prefault::release): their pages going back to the system is not the move's wait.
  std::vector<std::shared_ptr<void>> replaced;
  if (opt.mover == Mover::Redist)
    move_together(from, to, acct, &replaced);
  else
    move_one_by_one(from, to, acct);
  acct.phases.prefault_s = prefault.take_seconds();
  acct.reduce();
  // After the reduction, which waits for the slowest process's exchange: freeing beside
  // it took the CPU from the processes still unpacking (on a node with fewer cores than
  // processes).
  prefault.release(std::move(replaced));
  const std::int64_t moved = acct.bytes_moved;
  if (rec && job.root()) {
    rec->move.batches = acct.batches;
    rec->move.peak_bytes = acct.peak_bytes;
    rec->move.phases = acct.phases;
    if (acct.mapped()) {
      rec->move.bytes_intra_node += acct.bytes_intra_node;
      rec->move.bytes_inter_node += acct.bytes_inter_node;
    }
    if (acct.predicting()) {
      rec->predicted.t_redist = acct.predicted_s;
      rec->predicted.redist_by = PredictedBy::CostModel;
    } else if (const auto t = recorder.history.predict_redist(static_cast<double>(moved))) {
      // No calibration: the bytes this resize's plans move, on the line through the
      // earlier resizes (known before the data moved; set here where the count is).
      rec->predicted.t_redist = *t;
      rec->predicted.redist_by = PredictedBy::History;
    }
  }
  return moved;
}

// Background resizes: a matrix whose data reached the target grid in the background (its staged
// buffer) is committed, not moved.
void GridSwitch::commit_background(Registered& r, const blacs_dyn::Grid& to) {
  r.store->commit();
  r.place(layout_of(r, shape_of(to)), context_of(to), job.rank());
  r.moved_in_background = false;
}

// The registered matrices in redist exchanges (redist::Exchange, redist's one engine): each
// peer on another node gets one message per round carrying every matrix's pieces of the
// exchange, instead of one redistribution (and its messages, its waits) after another; a
// peer on this node reads them in one copy, or through the node-shared window when it is
// of another MPI job (an original and a newcomer, which MPI joins over TCP; one job's
// peers keep MPI's shared memory: WindowPairs::OtherJobs; docs/reference/redist.md, "One
// engine for every move"). Without a budget
// (SessionOptions::move_budget_bytes = 0) every matrix goes in one exchange, its new buffer
// staged before any data moves, so the old and new buffers of all of them are held at
// once; a failure (agreed on every rank: a buffer one process cannot allocate, stage_batch,
// or redist's checks) leaves every matrix as it was. With a
// budget they go in consecutive batches (move_batches.hpp) whose new buffers fit it on the
// most loaded process, agreed by one MPI_Allreduce of one entry per matrix; a batch is
// committed (its old buffers freed) before the next one stages. A failure in a later
// batch leaves the earlier batches on the new grid: the error says so.
void GridSwitch::move_together(const blacs_dyn::Grid& from, const blacs_dyn::Grid& to,
                                  detail::MoveAccounting& acct, std::vector<std::shared_ptr<void>>* keep) {
  std::vector<MovePart> parts;
  std::vector<Registered*> in_background;
  parts.reserve(registry.mats.size());
  for (auto& r : registry.mats) {
    if (r.moved_in_background)
      in_background.push_back(&r);
    else
      parts.push_back(move_part(r, from, to));
  }
  // The batches: every process plans them alike from the per-matrix maxima.
  std::vector<std::int64_t> max_new(parts.size()), own_old(parts.size()), own_new(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    max_new[k] = own_new[k] = parts[k].new_bytes;
    own_old[k] = parts[k].old_bytes;
  }
  if (opt.move_budget_bytes > 0 && parts.size() > 1)
    MPI_Allreduce(MPI_IN_PLACE, max_new.data(), static_cast<int>(max_new.size()), MPI_INT64_T, MPI_MAX, job.world);
  const std::vector<detail::MoveBatch> batches = detail::plan_move_batches(max_new, opt.move_budget_bytes);
  acct.batches = static_cast<int>(batches.size());
  std::int64_t staging_peak = 0;
  // Batches free their old arrays before the next one stages (the budget); one batch holds
  // the old and new arrays of every matrix at once anyway, so freeing the old ones after
  // the move raises no peak.
  if (batches.size() != 1 || !cfg.session.free_on_thread) keep = nullptr;
  for (std::size_t b = 0; b < batches.size(); ++b) {
    try {
      staging_peak = std::max(staging_peak, move_batch(parts, batches[b].begin, batches[b].end, b == 0, acct, keep));
    } catch (const std::exception& e) {
      if (b == 0) throw;
      std::vector<std::string> moved;
      for (std::size_t k = 0; k < batches[b].begin; ++k) moved.push_back(parts[k].r->mat().name);
      throw Error("session: the move failed in batch " + std::to_string(b + 1) + " of " + std::to_string(batches.size()) +
                  " (move budget " + std::to_string(opt.move_budget_bytes) + " bytes) after matrices " +
                  detail::comma_list(moved) + " reached the new grid: " + e.what());
    }
  }
  for (Registered* r : in_background) commit_background(*r, to);
  acct.peak_bytes = detail::held_peak(own_old, own_new, batches) + staging_peak;
}

// One matrix's move: from its layout on the current grid (kept since its last placement;
// from its record where a shrink dropped it) to its record's layout on `to`, with its form
// there (context and leading dimension, derived once: the placement it is given) and a
// block-cyclic matrix's on the source (its leading dimension its buffer's, held since its
// placement).
GridSwitch::MovePart GridSwitch::move_part(Registered& r, const blacs_dyn::Grid& from, const blacs_dyn::Grid& to) const {
  MovePart p;
  p.r = &r;
  p.la = r.layout() ? *r.layout() : layout_of(r, shape_of(from));
  p.lb = layout_of(r, shape_of(to));
  p.pb = detail::placement(r.mat(), p.lb, context_of(to), job.rank());  // the form it is placed in
  if (r.mat().extended()) {
    const auto [br, bc] = local_dims(p.lb);
    p.new_elements = static_cast<std::size_t>(br * bc);
  } else {
    p.pa = detail::placement(r.mat(), p.la, context_of(from), job.rank());
    if (r.layout() && p.pa.context >= 0) p.pa.lld = r.lld();  // placed as la: its buffer's, held
    p.new_elements = detail::descriptor_elements(p.lb, job.rank());
  }
  const auto [ar, ac] = local_dims(p.la);
  p.old_bytes = r.held(ar * ac);
  p.new_bytes = r.held(static_cast<std::int64_t>(p.new_elements));
  return p;
}

// Every process stages its new buffers of parts[begin, end), then all agree that every one
// could (one MPI_Allreduce, MINLOC over (matrix, rank)) before any message is posted: a
// buffer that does not fit in memory on one process is the same Error on every process
// (that process's message, broadcast: the matrix, its elements, the GiB), nothing of the
// batch staged any more. Test hook (test builds only): RESIZE_FAULT=no-memory-in-move[:K]
// (common/fault.hpp).
std::vector<void*> GridSwitch::stage_batch(std::vector<MovePart>& parts, std::size_t begin, std::size_t end) {
  prefault.wait();  // the arrays staged ahead (prefault_for) are taken below
  std::vector<void*> nbuf(end - begin, nullptr);
  std::string why;
  for (std::size_t k = begin; k < end; ++k) {
    try {
      nbuf[k - begin] = parts[k].r->stage(fault::staged_elements(cfg.session.fault, k, job.rank(), parts[k].new_elements));
    } catch (const Error& e) {
      why = e.what();
      if (why.empty()) why = "out of memory";
      break;
    }
  }
  const auto first = lowest_failure(job.world, why);
  if (!first) return nbuf;
  for (std::size_t k = begin; k < end; ++k) parts[k].r->unstage();
  why = first->text;
  const std::string here = " on this process", there = " on world rank " + std::to_string(first->rank);
  if (const auto at = why.find(here); at != std::string::npos)
    why.replace(at, here.size(), there);
  else
    why += " (" + there.substr(1) + ")";
  throw Error(why + "; no data of this exchange moved");
}

std::int64_t GridSwitch::move_batch(std::vector<MovePart>& parts, std::size_t begin, std::size_t end, bool first,
                                       detail::MoveAccounting& acct, std::vector<std::shared_ptr<void>>* keep) {
  MoveItems batch;
  const double t0 = MPI_Wtime();
  const std::vector<void*> nbuf = stage_batch(parts, begin, end);
  const double t1 = MPI_Wtime();
  double t2 = t1;
  redist::ExecStats stats;
  try {
    for (std::size_t k = begin; k < end; ++k) {
      MovePart& p = parts[k];
      Registered& r = *p.r;
      const auto [ar, ac] = local_dims(p.la);
      const auto [br, bc] = local_dims(p.lb);
      const bool blocks = r.mat().extended();
      const bool has_a = blocks ? ar * ac > 0 : p.pa.context >= 0, has_b = blocks ? br * bc > 0 : p.pb.context >= 0;
      const std::int64_t lda = blocks ? std::max<std::int64_t>(1, ar) : has_a ? p.pa.lld : 1;
      const std::int64_t ldb = blocks ? std::max<std::int64_t>(1, br) : has_b ? p.pb.lld : 1;
      batch.add(p.la, has_a ? r.data() : nullptr, lda, p.lb, has_b ? nbuf[k - begin] : nullptr, ldb, r.mat().type,
                job.size(), job.rank());
    }
    t2 = MPI_Wtime();
    redist::ExecOptions xo;
    xo.window_pairs = redist::WindowPairs::OtherJobs;  // one job's pairs: MPI's shared memory
    batch.start(job.world, xo);
    if (first && begin < end) fault_pause(cfg.session.fault, job.rank(), parts[begin].r->mat().name);
    batch.finish(&stats);
  } catch (...) {
    batch.close();  // its messages complete before the staged buffers they write go
    for (std::size_t k = begin; k < end; ++k) parts[k].r->unstage();  // harmless where none was staged
    throw;
  }
  const double t3 = MPI_Wtime();
  for (std::size_t k = begin; k < end; ++k) {
    Registered& r = *parts[k].r;
    if (keep) {  // the old buffer freed after the move (move_all)
      if (auto old = r.store->commit_keeping()) keep->push_back(std::move(old));
    } else {
      r.store->commit();  // the old buffer is freed here, before the next batch stages
    }
    r.place(parts[k].lb, parts[k].pb);
    acct.add(r.mat().type, batch.plan(k - begin));
  }
  MovePhases& ph = acct.phases;
  ph.stage_s += t1 - t0;
  ph.plan_s += t2 - t1;
  ph.exchange_s += t3 - t2;
  ph.pack_s += stats.pack_s;
  ph.unpack_s += stats.unpack_s;
  ph.local_copy_s += stats.local_copy_s;
  ph.commit_s += MPI_Wtime() - t3;
  return stats.peak_bytes;
}

// The PDGEMR2D mover: one matrix after another (ScaLAPACK moves one per call).
void GridSwitch::move_one_by_one(const blacs_dyn::Grid& from, const blacs_dyn::Grid& to,
                                    detail::MoveAccounting& acct) {
  const blacs_dyn::Grid whole = detail::blacs_grid(job.world, Grid{1, job.size(), {}});
  const Grid from_shape = shape_of(from), to_shape = shape_of(to);
  prefault.wait();  // the arrays staged ahead (prefault_for) are taken by r.stage
  for (auto& r : registry.mats) {
    if (r.mat().extended()) {
      move_blocks(r, from, to, acct);
      continue;
    }
    if (r.moved_in_background) {
      commit_background(r, to);
      continue;
    }
    const MovePart p = move_part(r, from, to);
    // PDGEMR2D's descriptors: the edge, derived from the form on each grid
    std::array<int, 9> da = detail::descriptor(r.mat(), &p.la, p.pa), db = detail::descriptor(r.mat(), &p.lb, p.pb);
    void* nbuf = r.stage(p.new_elements);
    const detail::DescriptorMove mv{.type = r.mat().type, .a = r.data(), .desca = da.data(), .b = nbuf,
                                    .descb = db.data(), .grid_a = &from_shape, .grid_b = &to_shape};
    detail::move_matrix(opt.mover, mv, job.world, whole.context());
    acct.add(r.mat().type, p.la, p.lb);
    r.store->commit();
    r.place(p.lb, p.pb);
    if (&r == &registry.mats.front()) fault_pause(cfg.session.fault, job.rank(), r.mat().name);
  }
}

std::size_t GridSwitch::new_elements_on(const Registered& r, const Grid& to) const {
  const redist::Layout lb = layout_of(r, to);
  if (r.mat().extended()) {
    const auto [lr, lc] = local_dims(lb);
    return static_cast<std::size_t>(lr * lc);
  }
  return detail::descriptor_elements(lb, job.rank());
}

std::int64_t GridSwitch::sent_bytes_on(const Registered& r, const Grid& to) const {
  const redist::Layout la = r.mat().extended() && r.layout() ? *r.layout() : layout_of(r, job.shape);
  const redist::Layout lb = layout_of(r, to);
  const int me = job.rank();
  const redist::RedistPlan p =
      redist::make_plan(la, lb, redist::Region::whole(la), std::max(to.size(), job.size()), redist::ScheduleKind::Default, me);
  std::int64_t elements = 0;
  for (const auto& t : p.transfers)
    if (t.src == me && t.dst != me) elements += t.elements();
  return r.bytes(elements);
}

void GridSwitch::prefault_for(const Grid& to, bool window, bool handed_over) {
  if (opt.move_budget_bytes > 0 || !cfg.session.prefault) return;
  // An extended-descriptor matrix's layout on `to` comes from the application's block
  // sizes, which may need the state the hand-over brings (e.g. the new processes' powers):
  // before it, such a matrix is left to the move.
  const auto ahead = [&](const Registered& r) { return !r.moved_in_background && (handed_over || !r.mat().extended()); };
  std::vector<detail::Prefault::Task> tasks;
  if (window) {
    // The node window the move's exchange packs into (what this process sends to others;
    // the exchange keeps a segment up to 4x its need): made now on the thread. The first
    // call, here, registers its MPI_Finalize hook (an MPI call: not on the thread).
    std::int64_t sent = 0;
    for (const auto& r : registry.mats)
      if (ahead(r)) sent += (sent_bytes_on(r, to) + 63) / 64 * 64;
    if (sent > 0) {
      redist::reserve_node_window(0);
      tasks.push_back([sent]() -> std::pair<void*, std::size_t> {
        redist::reserve_node_window(sent);
        return {nullptr, 0};
      });
    }
  }
  for (auto& r : registry.mats) {
    if (!ahead(r)) continue;
    const std::size_t n = new_elements_on(r, to);
    tasks.push_back([&r, n] { return r.prestage(n); });
  }
  if (!tasks.empty()) prefault.start(std::move(tasks));
}

void GridSwitch::drop_prestaged() {
  prefault.wait();
  for (auto& r : registry.mats)
    if (r.holds_prestaged()) r.unstage();
}

// A matrix's layout on a grid (its record's rule: an extended-descriptor matrix's block
// sizes, or the block-cyclic blocks on that grid).
redist::Layout GridSwitch::layout_of(const Registered& r, const Grid& g) const {
  return r.mat().layout_on(g.nprow, g.npcol, g.ranks);
}

// Local rows and columns of this process in a layout (0 x 0 off the grid).
std::pair<std::int64_t, std::int64_t> GridSwitch::local_dims(const redist::Layout& l) const {
  return detail::local_extent(l, job.rank());
}

// A matrix's first placement on `g`, the session's grid (lay_out): its buffer for the
// layout there, then the layout and what derives from it.
void GridSwitch::place_first(Registered& r, const Grid& g, ArrayFor use) {
  redist::Layout l = layout_of(r, g);
  const auto [lr, lc] = local_dims(l);
  r.reset(r.mat().extended() ? static_cast<std::size_t>(lr * lc) : detail::descriptor_elements(l, job.rank()), use);
  r.place(std::move(l), context_of(job.grid), job.rank());
}

void GridSwitch::move_blocks(Registered& r, const blacs_dyn::Grid& from, const blacs_dyn::Grid& to,
                                detail::MoveAccounting& acct) {
  const redist::Layout la = r.layout() ? *r.layout() : layout_of(r, shape_of(from)), lb = layout_of(r, shape_of(to));
  const auto [ar, ac] = local_dims(la);
  const auto [br, bc] = local_dims(lb);
  void* nbuf = r.stage(static_cast<std::size_t>(br * bc));
  detail::move_layout(r.mat().type, job.world, la, ar * ac > 0 ? r.data() : nullptr, std::max<std::int64_t>(1, ar), lb,
                      br * bc > 0 ? nbuf : nullptr, std::max<std::int64_t>(1, br));
  r.store->commit();
  r.place(lb, context_of(to), job.rank());
  acct.add(r.mat().type, la, lb);
}

std::int64_t GridSwitch::total_bytes() const {
  std::int64_t t = 0;
  for (const auto& r : registry.mats) t += r.bytes(static_cast<std::int64_t>(r.mat().m) * r.mat().n);
  return t;
}

// Same blocks and buffers on the session's grid made anew (after the world changed under
// them: a new context, the ranks renumbered, as a respawn's newcomers are): a matrix laid
// out on a grid of this shape is placed again with the grid's ranks, so that its kept
// layout, the next move's source, names them; any other keeps its layout and takes the
// new context.
void GridSwitch::place_again_on_grid() {
  const int ctx = context_of(job.grid);
  for (auto& r : registry.mats) {
    const auto& l = r.layout();
    if (l && l->nprow == job.shape.nprow && l->npcol == job.shape.npcol) {
      r.place(redist::Layout::from_blocks(l->row_blocks, l->col_blocks, l->nprow, l->npcol, l->rsrc, l->csrc,
                                          job.shape.rank_map()),
              ctx, job.rank());
    } else {
      r.recontext(ctx);
    }
  }
}

// The one grid switch after a resize, used by an expansion and its newcomers' join, a
// background expansion's completion, a shrink and a regrid; and the grid made without
// moving data (start and restart, a shrink's new world, a cancelled expansion).
std::int64_t GridSwitch::switch_grid(const std::optional<Grid>& from, const Grid& to, ResizeRecord* rec,
                                        const char* phase, Adopt adopt) {
  // Every process of the world makes the same grids in the same order (collective).
  watchdog.phase("BLACS grids");
  const double t0 = MPI_Wtime();
  blacs_dyn::Grid old_grid = from ? detail::blacs_grid(job.world, *from) : blacs_dyn::Grid{};
  blacs_dyn::Grid new_grid = detail::blacs_grid(job.world, to);
  watchdog.phase(phase);
  const double t1 = MPI_Wtime();
  const std::int64_t moved = move_all(from ? old_grid : job.grid, new_grid, rec);
  const double t2 = MPI_Wtime();
  if (rec) {
    rec->t_redist = t2 - t1;
    rec->other.grids_s = t1 - t0;
    rec->bytes_moved = moved;
    rec->move.bytes_total = total_bytes();
  }
  // The old grid released and the new one adopted: the record's release_s.
  const auto released = [&] {
    if (rec) rec->other.release_s = MPI_Wtime() - t2;
  };
  if (adopt == Adopt::No) {
    // A shrink: the world is about to lose processes; settle_grid makes the grid on the
    // world that is left.
    job.grid.release();
    new_grid.release();
    released();
    return moved;
  }
  job.grid = std::move(new_grid);
  old_grid.release();
  job.shape = to;
  released();
  return moved;
}

void GridSwitch::settle_grid(const Grid& g) {
  job.grid = detail::blacs_grid(job.world, g);
  job.shape = g;
  place_again_on_grid();
}

}  // namespace resize
