// SPDX-License-Identifier: BSD-3-Clause
#include "move/mover.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <span>
#include <vector>

#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"

// ScaLAPACK's REDIST entry points (C interface); the complex ones take interleaved
// (re, im) arrays, which std::complex is (layout-compatible with T[2]).
extern "C" {
void Cpsgemr2d(int m, int n, const float* a, int ia, int ja, const int* desca, float* b, int ib, int jb,
               const int* descb, int gcontext);
void Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b, int ib, int jb,
               const int* descb, int gcontext);
void Cpcgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b, int ib, int jb,
               const int* descb, int gcontext);
void Cpzgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b, int ib, int jb,
               const int* descb, int gcontext);
}

namespace resize::detail {

std::size_t scalar_bytes(Scalar t) {
  switch (t) {
    case Scalar::S: return sizeof(float);
    case Scalar::D: return sizeof(double);
    case Scalar::C: return sizeof(std::complex<float>);
    case Scalar::Z: return sizeof(std::complex<double>);
  }
  return 0;
}

const char* scalar_name(Scalar t) {
  switch (t) {
    case Scalar::S: return "float";
    case Scalar::D: return "double";
    case Scalar::C: return "complex<float>";
    case Scalar::Z: return "complex<double>";
  }
  return "?";
}

namespace {
// The descriptor + grid as redist's extended descriptor (uniform blocks = block-cyclic).
redist::Layout layout_of(const int* desc, const Grid& g) {
  return redist::Layout::block_cyclic(desc[2], desc[3], desc[4], desc[5], g.nprow, g.npcol,
                                      desc[6], desc[7], g.rank_map());
}

template <class T>
void redist_move(const MatrixMove& mv, MPI_Comm world) {
  const bool in_a = mv.desca[1] >= 0, in_b = mv.descb[1] >= 0;
  redist::redistribute<T>(world, layout_of(mv.desca, *mv.grid_a), in_a ? static_cast<const T*>(mv.a) : nullptr,
                          in_a ? mv.desca[8] : 1, layout_of(mv.descb, *mv.grid_b),
                          in_b ? static_cast<T*>(mv.b) : nullptr, in_b ? mv.descb[8] : 1);
}
}  // namespace

void move_matrix(Mover how, const MatrixMove& mv, MPI_Comm world, int gctxt) {
  if (how == Mover::Pdgemr2d) {
    switch (mv.type) {
      case Scalar::S:
        Cpsgemr2d(mv.m, mv.n, static_cast<const float*>(mv.a), 1, 1, mv.desca, static_cast<float*>(mv.b), 1, 1,
                  mv.descb, gctxt);
        return;
      case Scalar::D:
        Cpdgemr2d(mv.m, mv.n, static_cast<const double*>(mv.a), 1, 1, mv.desca, static_cast<double*>(mv.b), 1,
                  1, mv.descb, gctxt);
        return;
      case Scalar::C: Cpcgemr2d(mv.m, mv.n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt); return;
      case Scalar::Z: Cpzgemr2d(mv.m, mv.n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt); return;
    }
    return;
  }
  switch (mv.type) {
    case Scalar::S: redist_move<float>(mv, world); return;
    case Scalar::D: redist_move<double>(mv, world); return;
    case Scalar::C: redist_move<std::complex<float>>(mv, world); return;
    case Scalar::Z: redist_move<std::complex<double>>(mv, world); return;
  }
}

void move_layout(Scalar type, MPI_Comm world, const redist::Layout& la, const void* a, std::int64_t lda,
                 const redist::Layout& lb, void* b, std::int64_t ldb) {
  const auto run = [&]<class T>(T*) {
    redist::redistribute<T>(world, la, static_cast<const T*>(a), lda, lb, static_cast<T*>(b), ldb);
  };
  switch (type) {
    case Scalar::S: run(static_cast<float*>(nullptr)); return;
    case Scalar::D: run(static_cast<double*>(nullptr)); return;
    case Scalar::C: run(static_cast<std::complex<float>*>(nullptr)); return;
    case Scalar::Z: run(static_cast<std::complex<double>*>(nullptr)); return;
  }
}

redist::Layout matrix_layout(const int* desc, const Grid& g) { return layout_of(desc, g); }

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

}  // namespace resize::detail
