// SPDX-License-Identifier: BSD-3-Clause
// The MPI execution layer of redist: the only file of the module's C++ core that sends
// data. Plans come from plan.cpp (pure); this file checks arguments collectively, then
// moves each transfer straight between the local column-major arrays.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

#include <sched.h>

#include "malleable/redist/redistribute.hpp"
#include "mpi_guard.hpp"
#include "staging_pool.hpp"

namespace redist {
namespace {

constexpr int kDataTag = 0x5ED1;
constexpr int kReadyTag = 0x5ED2;

template <class T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <> MPI_Datatype mpi_type<std::complex<float>>() { return MPI_C_FLOAT_COMPLEX; }
template <> MPI_Datatype mpi_type<std::complex<double>>() { return MPI_C_DOUBLE_COMPLEX; }

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(ErrorCode::Mpi, std::string("redist: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

struct LocalError {
  ErrorCode code = ErrorCode::Ok;
  std::string msg;
  bool ok() const { return code == ErrorCode::Ok; }
};

}  // namespace

namespace detail {

void check_comm(MPI_Comm comm, const char* name) {
  if (comm == MPI_COMM_NULL)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + " is MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) throw Error(ErrorCode::InvalidArgument, std::string(name) + " is an intercommunicator; redist needs an intracommunicator");
}

DupComm::DupComm(MPI_Comm c) {
  check_comm(c, "comm");
  check_mpi(MPI_Comm_dup(c, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}
DupComm::~DupComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

namespace {
thread_local const RankNames* g_rank_names = nullptr;
}

RankNames::RankNames(std::vector<int> names, std::string of)
    : prev_(g_rank_names), names_(std::move(names)), of_(std::move(of)) {
  g_rank_names = this;
}
RankNames::~RankNames() { g_rank_names = prev_; }

std::string rank_name(int r) {
  const RankNames* n = g_rank_names;
  if (!n || r < 0 || r >= static_cast<int>(n->names_.size())) return "rank " + std::to_string(r);
  return "rank " + std::to_string(n->names_[static_cast<std::size_t>(r)]) + " of " + n->of_;
}

}  // namespace detail

namespace {

using detail::DupComm;

// Every rank learns whether any rank failed, before any data moves: one allreduce of
// (error flag, fingerprint, -fingerprint). On failure the first failing rank's message is
// broadcast so that all ranks throw the same, specific error.
void agree(MPI_Comm comm, const LocalError& err, std::uint64_t fp) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto f = static_cast<long long>(fp >> 1);
  long long v[3] = {err.ok() ? 0 : 1, f, -f}, r[3] = {0, 0, 0};
  check_mpi(MPI_Allreduce(v, r, 3, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce (argument check)");
  if (r[0] == 0 && r[1] == -r[2]) return;
  if (r[0] == 0)
    throw Error(ErrorCode::Inconsistent,
                "redist: processes passed different layouts, regions, schedules or transports");
  int mine = err.ok() ? INT_MAX : rank, first = 0;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce (error owner)");
  int meta[2] = {static_cast<int>(err.code), static_cast<int>(err.msg.size())};
  check_mpi(MPI_Bcast(meta, 2, MPI_INT, first, comm), "MPI_Bcast (error)");
  std::string msg = rank == first ? err.msg : std::string(static_cast<std::size_t>(meta[1]), ' ');
  check_mpi(MPI_Bcast(msg.data(), meta[1], MPI_CHAR, first, comm), "MPI_Bcast (error text)");
  throw Error(static_cast<ErrorCode>(meta[0]), "redist: " + detail::rank_name(first) + ": " + msg);
}

std::uint64_t run_fingerprint(const RedistPlan& p, const ExecOptions& opt) {
  std::uint64_t h = fingerprint(p.a, p.b, p.region);
  h ^= (static_cast<std::uint64_t>(p.schedule) + 1) * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<std::uint64_t>(opt.transport) + 7) * 0xC2B2AE3D27D4EB4Full;
  if (opt.transport != Transport::Datatype) h ^= static_cast<std::uint64_t>(opt.staging_bytes) * 0x165667B19E3779F9ull;
  h ^= opt.split_wait_transfer ? 0x27D4EB2F165667C5ull : 0;
  h ^= opt.wait == WaitMode::Auto ? 0 : (static_cast<std::uint64_t>(opt.wait) + 3) * 0x94D049BB133111EBull;
  return h;
}

// lda x (local columns) elements of esize bytes must be addressable, or indexing the
// local array (column * ld) overflows before any byte is touched (issue 14, class 1).
bool addressable(std::int64_t ld, std::int64_t cols, std::size_t esize) {
  std::int64_t elems = 0, bytes = 0;
  return !__builtin_mul_overflow(ld, std::max<std::int64_t>(1, cols), &elems) &&
         !__builtin_mul_overflow(elems, static_cast<std::int64_t>(esize), &bytes);
}

LocalError check_buffers(const RedistPlan& p, int me, int nranks, const void* a, std::int64_t lda, const void* b,
                         std::int64_t ldb, const ExecOptions& opt, std::size_t esize) {
  if (opt.transport != Transport::Datatype && opt.transport != Transport::Packed && opt.transport != Transport::Auto)
    return {ErrorCode::InvalidArgument, "opt.transport = " + std::to_string(static_cast<int>(opt.transport)) +
                                            " is not a Transport (0 Datatype, 1 Packed, 2 Auto)"};
  if (opt.wait != WaitMode::Auto && opt.wait != WaitMode::Spin && opt.wait != WaitMode::Sleep)
    return {ErrorCode::InvalidArgument, "opt.wait = " + std::to_string(static_cast<int>(opt.wait)) +
                                            " is not a WaitMode (0 Auto, 1 Spin, 2 Sleep)"};
  {
    const int v = static_cast<int>(p.schedule);
    if (v < static_cast<int>(ScheduleKind::Caterpillar) || v > static_cast<int>(ScheduleKind::AllAtOnce))
      return {ErrorCode::InvalidArgument, "plan.schedule = " + std::to_string(v) + " is not a resolved schedule"};
  }
  if (p.comm_size != nranks)
    return {ErrorCode::Inconsistent, "plan was made for " + std::to_string(p.comm_size) +
                                         " ranks but the communicator has " + std::to_string(nranks)};
  if (p.materialized_for >= 0 && p.materialized_for != me)
    return {ErrorCode::Inconsistent, "plan was materialized for rank " + std::to_string(p.materialized_for) +
                                         ", not for this rank"};
  if (opt.sleep_us < 0)
    return {ErrorCode::InvalidLayout, "sleep_us = " + std::to_string(opt.sleep_us) + " is negative"};
  if (opt.transport != Transport::Datatype && opt.staging_bytes <= 0)
    return {ErrorCode::InvalidLayout, "staging_bytes = " + std::to_string(opt.staging_bytes) + " must be positive"};
  int pr = 0, pc = 0;
  if (p.a.coords_of(me, pr, pc) && lda < p.a.min_lld(pr))
    return {ErrorCode::LeadingDimension, "lda = " + std::to_string(lda) + " is less than max(1, local rows of A) = " +
                                             std::to_string(p.a.min_lld(pr)) + " at grid coordinate (" +
                                             std::to_string(pr) + "," + std::to_string(pc) + ")"};
  if (p.b.coords_of(me, pr, pc) && ldb < p.b.min_lld(pr))
    return {ErrorCode::LeadingDimension, "ldb = " + std::to_string(ldb) + " is less than max(1, local rows of B) = " +
                                             std::to_string(p.b.min_lld(pr)) + " at grid coordinate (" +
                                             std::to_string(pr) + "," + std::to_string(pc) + ")"};
  if (p.a.coords_of(me, pr, pc) && !addressable(lda, p.a.local_cols(pc), esize))
    return {ErrorCode::LeadingDimension, "lda = " + std::to_string(lda) + " times " + std::to_string(p.a.local_cols(pc)) +
                                             " local columns of A overflows the address space"};
  if (p.b.coords_of(me, pr, pc) && !addressable(ldb, p.b.local_cols(pc), esize))
    return {ErrorCode::LeadingDimension, "ldb = " + std::to_string(ldb) + " times " + std::to_string(p.b.local_cols(pc)) +
                                             " local columns of B overflows the address space"};
  std::int64_t sends = 0, recvs = 0;
  for (const auto& t : p.transfers) {
    if (t.src == me) sends += t.elements();
    if (t.dst == me) recvs += t.elements();
  }
  if (sends > 0 && a == nullptr)
    return {ErrorCode::NullBuffer, "a is null but this process holds " + std::to_string(sends) +
                                       " elements of A inside the region"};
  if (recvs > 0 && b == nullptr)
    return {ErrorCode::NullBuffer, "b is null but this process receives " + std::to_string(recvs) +
                                       " elements of B inside the region"};
  return {};
}

int narrow(std::int64_t v, const char* what) {
  if (v > INT_MAX) throw Error(ErrorCode::Internal, std::string(what) + " = " + std::to_string(v) + " exceeds MPI's int");
  return static_cast<int>(v);
}

// MPI_Get_library_version names MPICH (or a derivative: Intel MPI, MVAPICH).
bool mpi_is_mpich() {
  static const bool mpich = [] {
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return false;
    const std::string s(v, static_cast<std::size_t>(len));
    return s.find("MPICH") != std::string::npos || s.find("Intel(R) MPI") != std::string::npos ||
           s.find("MVAPICH") != std::string::npos;
  }();
  return mpich;
}

// Whether ranks of `comm` on this node so far outnumber the CPUs this process may run on
// that spinning waiters starve the ranks doing the copies.
// The answer is kept on the caller's communicator (an attribute of a private keyval; each
// call works on a fresh duplicate, which does not inherit it): MPI_Comm_split_type is a
// collective that creates a communicator, and under MPICH with oversubscribed, busy-polling
// ranks it cost ~0.7 s per call here, more than the redistribution itself (docs/mpi-flavours.md).
// Every rank of `comm` asks at the same calls, so all find the attribute or none does.
int oversubscribed_keyval() {
  static const int kv = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, nullptr),
              "MPI_Comm_create_keyval");
    return k;
  }();
  return kv;
}

bool oversubscribed_uncached(MPI_Comm comm);

bool oversubscribed(MPI_Comm user_comm, MPI_Comm comm) {
  void* cached = nullptr;
  int flag = 0;
  check_mpi(MPI_Comm_get_attr(user_comm, oversubscribed_keyval(), &cached, &flag), "MPI_Comm_get_attr");
  if (flag) return reinterpret_cast<std::intptr_t>(cached) == 2;
  const bool over = oversubscribed_uncached(comm);
  check_mpi(MPI_Comm_set_attr(user_comm, oversubscribed_keyval(), reinterpret_cast<void*>(std::intptr_t{over ? 2 : 1})),
            "MPI_Comm_set_attr");
  return over;
}

bool oversubscribed_uncached(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = CPU_COUNT(&set);
  if (cpus <= 0) cpus = static_cast<int>(std::thread::hardware_concurrency());
  // Measured on a 2-CPU node (docs/redist.md): with 9 or 16 ranks (4.5, 8 per CPU)
  // spinning was faster, with 25 (12.5 per CPU) sleeping was 2-4x faster. That is Open MPI
  // with mpi_yield_when_idle; MPICH's waiters spin without yielding, and with 9 ranks on 2
  // CPUs sleeping was already 1.5-3x faster than spinning (docs/mpi-flavours.md), so under
  // MPICH (asked of the library, not assumed) any oversubscription sleeps.
  const int ranks_per_cpu_to_sleep = mpi_is_mpich() ? 1 : 8;
  return cpus > 0 && local > ranks_per_cpu_to_sleep * cpus;
}

void wait_all(std::vector<MPI_Request>& req, bool sleep, int sleep_us, const char* what) {
  if (req.empty()) return;
  if (!sleep) {
    check_mpi(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE), what);
    return;
  }
  for (;;) {
    int done = 0;
    check_mpi(MPI_Testall(static_cast<int>(req.size()), req.data(), &done, MPI_STATUSES_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  }
}

// One side (A or B) of the redistribution as seen from the local array.
struct Side {
  Axis rows, cols;
  std::int64_t row_shift = 0, col_shift = 0;  // A-space index + shift = this side's index
  std::int64_t ld = 0;
  bool is_b = false;  // which of a run's local strides applies
};

// A run in one local array: count pieces of len indices, the first at start, stride apart.
struct LocalRun {
  std::int64_t start = 0, len = 0, count = 1, stride = 0;
};

std::vector<LocalRun> local_runs(const std::vector<Run>& runs, const Axis& ax, std::int64_t shift, bool is_b) {
  std::vector<LocalRun> out;
  out.reserve(runs.size());
  for (const auto& r : runs)
    out.push_back({ax.to_local(r.start + shift), r.len, r.count, is_b ? r.b_stride : r.a_stride});
  return out;
}

// A datatype for the pieces of `runs` over `elem` (whose extent is one step of the local
// index): the single pieces as one indexed type, each strided run as one vector, joined
// by a struct in run order (both ends build theirs from the same runs, so the n-th
// element sent is the n-th received). O(runs) entries, never one per block.
MPI_Datatype runs_type(const std::vector<LocalRun>& runs, MPI_Datatype elem, MPI_Aint extent) {
  std::vector<MPI_Datatype> parts;
  std::vector<MPI_Aint> displ;
  std::vector<int> single_len, single_at;
  auto flush_singles = [&] {
    if (single_len.empty()) return;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_indexed(static_cast<int>(single_len.size()), single_len.data(), single_at.data(), elem, &t),
              "MPI_Type_indexed");
    parts.push_back(t);
    displ.push_back(0);
    single_len.clear();
    single_at.clear();
  };
  for (const auto& r : runs) {
    if (r.count == 1) {
      single_len.push_back(narrow(r.len, "run length"));
      single_at.push_back(narrow(r.start, "local index"));
      continue;
    }
    flush_singles();
    MPI_Datatype v = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_vector(narrow(r.count, "run pieces"), narrow(r.len, "run length"), narrow(r.stride, "run stride"),
                              elem, &v),
              "MPI_Type_vector");
    parts.push_back(v);
    displ.push_back(static_cast<MPI_Aint>(r.start) * extent);
  }
  flush_singles();
  if (parts.size() == 1 && displ[0] == 0) return parts[0];
  MPI_Datatype t = MPI_DATATYPE_NULL;
  std::vector<int> ones(parts.size(), 1);
  check_mpi(MPI_Type_create_struct(static_cast<int>(parts.size()), ones.data(), displ.data(), parts.data(), &t),
            "MPI_Type_create_struct");
  for (auto& x : parts) MPI_Type_free(&x);
  return t;
}

// Indexed rows x indexed columns of a column-major array with leading dimension ld: the
// pieces of one transfer, described in place so MPI reads/writes them directly.
class PieceType {
 public:
  PieceType(MPI_Datatype base, std::size_t esize, const Side& s, const Transfer& t) {
    MPI_Datatype col = runs_type(local_runs(t.rows, s.rows, s.row_shift, s.is_b), base, static_cast<MPI_Aint>(esize));
    MPI_Datatype col_ld = MPI_DATATYPE_NULL;
    const MPI_Aint col_bytes = static_cast<MPI_Aint>(s.ld) * static_cast<MPI_Aint>(esize);
    check_mpi(MPI_Type_create_resized(col, 0, col_bytes, &col_ld), "MPI_Type_create_resized");
    type_ = runs_type(local_runs(t.cols, s.cols, s.col_shift, s.is_b), col_ld, col_bytes);
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
    MPI_Type_free(&col);
    if (col_ld != type_) MPI_Type_free(&col_ld);
  }
  ~PieceType() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  PieceType(PieceType&& o) noexcept : type_(o.type_) { o.type_ = MPI_DATATYPE_NULL; }
  PieceType(const PieceType&) = delete;
  PieceType& operator=(const PieceType&) = delete;
  PieceType& operator=(PieceType&&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// A transfer's pieces on one side in the order they travel: columns in run order, and in
// each column the row pieces in run order. Columns are walked from the runs by ColCursor
// (never expanded into a list: a 1 x 4,194,304 matrix in column blocks of 1 would need
// one entry per column).
struct Walk {
  std::vector<LocalRun> rows, cols;
  std::int64_t ncols = 0, rows_per_col = 0;
  Walk(const Side& s, const Transfer& t)
      : rows(local_runs(t.rows, s.rows, s.row_shift, s.is_b)), cols(local_runs(t.cols, s.cols, s.col_shift, s.is_b)) {
    for (const auto& c : cols) ncols += c.len * c.count;
    for (const auto& r : rows) rows_per_col += r.len * r.count;
  }
};

// Walks the columns of a Walk piece by piece without a search or a division per step:
// at() is the current local column and how many consecutive local columns follow from
// it (the rest of its piece; a run whose pieces touch is one piece), next(n) moves on by
// n <= at().second columns.
class ColCursor {
 public:
  explicit ColCursor(const Walk& w, std::int64_t o = 0) : w_(w) {  // at the o-th column
    for (; k_ < w_.cols.size(); ++k_) {
      const std::int64_t n = w_.cols[k_].len * w_.cols[k_].count;
      if (o < n) break;
      o -= n;
    }
    enter();
    if (len_ > 0) {
      piece_ = o / len_;
      off_ = o % len_;
    }
  }
  std::pair<std::int64_t, std::int64_t> at() const { return {start_ + piece_ * stride_ + off_, len_ - off_}; }
  void next(std::int64_t n) {
    off_ += n;
    if (off_ < len_) return;
    off_ = 0;
    if (++piece_ < count_) return;
    piece_ = 0;
    ++k_;
    enter();
  }
  // Whole pieces from here on at one stride: {first local column, piece length, stride,
  // pieces left in the run}; pieces left 0 when the cursor is inside a piece.
  struct Pieces {
    std::int64_t first, len, stride, left;
  };
  Pieces pieces() const {
    return {start_ + piece_ * stride_, len_, stride_, off_ == 0 ? count_ - piece_ : 0};
  }
  void skip_pieces(std::int64_t k) {  // k <= pieces().left
    piece_ += k;
    if (piece_ < count_) return;
    piece_ = 0;
    ++k_;
    enter();
  }
  // Runs of whole pieces at a stride go in one call, without a cursor step per piece
  // (blocks of 1-3 columns are millions of pieces).
  // Calls f(first local column, width, stride, k) for k pieces of `width` consecutive local
  // columns at `stride` covering the next n columns: a run of whole pieces in one call.
  template <class F>
  void walk(std::int64_t n, F&& f) {
    while (n > 0) {
      const Pieces p = pieces();
      const std::int64_t k = p.left > 1 ? std::min(p.left, n / p.len) : 0;
      if (k > 1) {
        f(p.first, p.len, p.stride, k);
        skip_pieces(k);
        n -= k * p.len;
        continue;
      }
      const auto [c, w0] = at();
      const std::int64_t w = std::min(w0, n);
      f(c, w, std::int64_t{0}, std::int64_t{1});
      next(w);
      n -= w;
    }
  }

 private:
  void enter() {  // the run k_ as pieces: touching pieces merged into one; empty runs skipped
    while (k_ < w_.cols.size() && w_.cols[k_].len * w_.cols[k_].count == 0) ++k_;
    if (k_ >= w_.cols.size()) return;
    const LocalRun& c = w_.cols[k_];
    const bool merged = c.stride == c.len || c.count == 1;
    start_ = c.start;
    len_ = merged ? c.len * c.count : c.len;
    count_ = merged ? 1 : c.count;
    stride_ = merged ? 0 : c.stride;
  }
  const Walk& w_;
  std::size_t k_ = 0;
  std::int64_t start_ = 0, len_ = 1, count_ = 0, stride_ = 0, piece_ = 0, off_ = 0;
};

// Whether two walks visit the same local columns in the same order (a run of equal pieces
// at a time, so equal run structures cost O(runs), not O(columns)).
bool same_columns(const Walk& x, const Walk& y) {
  if (x.ncols != y.ncols) return false;
  ColCursor cx(x), cy(y);
  for (std::int64_t o = 0; o < x.ncols;) {
    const auto px = cx.pieces(), py = cy.pieces();
    if (px.left > 1 && py.left > 1 && px.first == py.first && px.len == py.len && px.stride == py.stride) {
      const std::int64_t k = std::min({px.left, py.left, (x.ncols - o) / px.len});
      if (k > 1) {
        cx.skip_pieces(k);
        cy.skip_pieces(k);
        o += k * px.len;
        continue;
      }
    }
    const auto [a, na] = cx.at();
    const auto [b, nb] = cy.at();
    if (a != b) return false;
    const std::int64_t w = std::min({na, nb, x.ncols - o});
    cx.next(w);
    cy.next(w);
    o += w;
  }
  return true;
}

// Whether `runs` are one contiguous piece of local rows [0, ld): then consecutive local
// columns are one contiguous stretch of ld elements each.
bool whole_columns(const std::vector<LocalRun>& runs, std::int64_t ld) {
  if (runs.size() != 1) return false;
  const LocalRun& r = runs[0];
  return r.start == 0 && (r.count == 1 || r.stride == r.len) && r.len * r.count == ld;
}

// `count` pieces of L elements (L a compile-time 1-4): the loop a memcpy call per 8-32
// byte piece would cost several times over (blocks of 1-3 elements make millions of them).
template <class T, int L>
void copy_short(const T* s, std::int64_t ss, T* d, std::int64_t ds, std::int64_t count) {
  for (std::int64_t t = 0; t < count; ++t)
    for (int e = 0; e < L; ++e) d[t * ds + e] = s[t * ss + e];
}

// `count` pieces of `len` elements, the t-th at s + t * ss (source) and d + t * ds.
template <class T>
void copy_strided(const T* s, std::int64_t ss, T* d, std::int64_t ds, std::int64_t len, std::int64_t count) {
  switch (len) {
    case 1: return copy_short<T, 1>(s, ss, d, ds, count);
    case 2: return copy_short<T, 2>(s, ss, d, ds, count);
    case 3: return copy_short<T, 3>(s, ss, d, ds, count);
    case 4: return copy_short<T, 4>(s, ss, d, ds, count);
    default: break;
  }
  const auto bytes = static_cast<std::size_t>(len) * sizeof(T);
  for (std::int64_t t = 0; t < count; ++t) std::memcpy(d + t * ds, s + t * ss, bytes);
}

// Row pieces of one column: `src` and `dst` walk the same runs (same order, same lengths),
// each with its own local starts and strides.
//
// Several runs of one periodic pattern interleave (blocks 2 -> 3 on 2 ranks: a period of 12
// rows holds pieces of 3 runs), and each run alone touches every cache line of the column.
// Run by run, a long column would be read from memory once per run; in tiles of
// kTilePieces pieces of every run it is read once (4,194,304 x 1, blocks 2 -> 3: the local
// copy went from 2.4 ms to 1.4 ms, the whole redistribution from 6.9 ms to 4.8 ms).
constexpr std::int64_t kTilePieces = 512;

template <class T>
void copy_rows(const std::vector<LocalRun>& src_runs, const T* src, const std::vector<LocalRun>& dst_runs, T* dst) {
  std::int64_t most = 0;
  for (const auto& r : src_runs) most = std::max(most, r.count);
  if (src_runs.size() == 1 || most <= kTilePieces) {
    for (std::size_t k = 0; k < src_runs.size(); ++k) {
      const LocalRun& s = src_runs[k];
      const LocalRun& d = dst_runs[k];
      copy_strided(src + s.start, s.stride, dst + d.start, d.stride, s.len, s.count);
    }
    return;
  }
  for (std::int64_t t0 = 0; t0 < most; t0 += kTilePieces)
    for (std::size_t k = 0; k < src_runs.size(); ++k) {
      const LocalRun& s = src_runs[k];
      const LocalRun& d = dst_runs[k];
      const std::int64_t n = std::min(kTilePieces, s.count - t0);
      if (n > 0) copy_strided(src + s.start + t0 * s.stride, s.stride, dst + d.start + t0 * d.stride, d.stride, s.len, n);
    }
}

// Several transfers' row pieces of one column each, tiled together like copy_rows' runs:
// stream q copies rows *src of column s to rows *dst of column d (same runs, in order).
// Streams writing one column of B (the local copy and the unpacking) or reading one column
// of A (the local copy and the packing) then touch each cache line once.
template <class T>
struct RowStream {
  const std::vector<LocalRun>* src = nullptr;
  const T* s = nullptr;
  const std::vector<LocalRun>* dst = nullptr;
  T* d = nullptr;
};

template <class T>
void copy_merged(const std::vector<RowStream<T>>& streams) {
  // The first tile of every run, then the further tiles of the runs that have them only:
  // irregular layouts (per-block sizes) give many runs of few pieces, which must not be
  // visited once per tile of the long ones.
  auto tile = [](const RowStream<T>& x, std::size_t k, std::int64_t t0) {
    const LocalRun& s = (*x.src)[k];
    const LocalRun& d = (*x.dst)[k];
    const std::int64_t n = std::min(kTilePieces, s.count - t0);
    if (n > 0) copy_strided(x.s + s.start + t0 * s.stride, s.stride, x.d + d.start + t0 * d.stride, d.stride, s.len, n);
  };
  std::vector<std::pair<std::size_t, std::size_t>> long_runs;  // stream, run
  std::int64_t most = 0;
  for (std::size_t q = 0; q < streams.size(); ++q)
    for (std::size_t k = 0; k < streams[q].src->size(); ++k) {
      tile(streams[q], k, 0);
      const std::int64_t c = (*streams[q].src)[k].count;
      if (c > kTilePieces) long_runs.emplace_back(q, k);
      most = std::max(most, c);
    }
  for (std::int64_t t0 = kTilePieces; t0 < most; t0 += kTilePieces)
    for (auto [q, k] : long_runs) tile(streams[q], k, t0);
}

// `width` consecutive local columns: rows `src_runs` of the columns from `src` (leading
// dimension src_ld) to rows `dst_runs` of those from `dst` (dst_ld); one memcpy when both
// sides are whole columns.
template <class T>
void copy_cols(const std::vector<LocalRun>& src_runs, const T* src, std::int64_t src_ld, const std::vector<LocalRun>& dst_runs,
               T* dst, std::int64_t dst_ld, std::int64_t width) {
  if (src_ld == dst_ld && whole_columns(src_runs, src_ld) && whole_columns(dst_runs, dst_ld)) {
    copy_strided(src, 0, dst, 0, width * src_ld, 1);
    return;
  }
  if (src_runs.size() == 1 && src_runs[0].count == 1 && dst_runs[0].count == 1) {  // one piece a column
    copy_strided(src + src_runs[0].start, src_ld, dst + dst_runs[0].start, dst_ld, src_runs[0].len, width);
    return;
  }
  for (std::int64_t c = 0; c < width; ++c) copy_rows<T>(src_runs, src + c * src_ld, dst_runs, dst + c * dst_ld);
}

// `k` pieces of `len` consecutive local columns each, the q-th at src + q * src_step and
// dst + q * dst_step (elements): one call for a whole run of column pieces, so a 1 x N row
// in column blocks of 1-3 costs a loop iteration per piece, not a call and its checks.
template <class T>
void copy_pieces(const std::vector<LocalRun>& src_runs, const T* src, std::int64_t src_ld, std::int64_t src_step,
                 const std::vector<LocalRun>& dst_runs, T* dst, std::int64_t dst_ld, std::int64_t dst_step,
                 std::int64_t len, std::int64_t k) {
  if (src_ld == dst_ld && whole_columns(src_runs, src_ld) && whole_columns(dst_runs, dst_ld)) {
    copy_strided(src, src_step, dst, dst_step, len * src_ld, k);  // each piece one stretch
    return;
  }
  if (len == 1 && src_runs.size() == 1 && src_runs[0].count == 1 && dst_runs[0].count == 1) {  // one piece a column
    copy_strided(src + src_runs[0].start, src_step, dst + dst_runs[0].start, dst_step, src_runs[0].len, k);
    return;
  }
  for (std::int64_t q = 0; q < k; ++q)
    copy_cols<T>(src_runs, src + q * src_step, src_ld, dst_runs, dst + q * dst_step, dst_ld, len);
}

// The row runs of a packed buffer: one contiguous stretch per piece, in order.
std::vector<LocalRun> packed_runs(const std::vector<LocalRun>& runs) {
  std::vector<LocalRun> out;
  out.reserve(runs.size());
  std::int64_t at = 0;
  for (const auto& r : runs) {
    out.push_back({at, r.len, r.count, r.len});
    at += r.len * r.count;
  }
  return out;
}

// Under Transport::Auto a transfer is packed when its contiguous pieces are short: MPI's
// datatype engine then walks a vector of vectors element by element, slower than redist's
// own copy loops (docs/redist.md, "Execution"). Both ends decide from the transfer's runs,
// which they share, so they always agree on the message format.
constexpr std::int64_t kAutoPackBelowBytes = 256;

// Transfers whose columns hold one element each (a long row: 1 x N, or one row of a
// region) are packed when both sides' column pieces are short: a run of them is one
// strided loop (copy_pieces), 3.4 ms against 7.7 ms as a datatype for 1 x 4,194,304 on 2
// ranks, blocks 1 -> 2. When one side's pieces are long stretches (column blocks of 3
// gathered onto one process: the sender's columns are all its own), the datatype reads or
// writes that side in place and saves the copy into staging: 3.1 against 4.0 ms for blocks
// 3 -> 1 across 1x2 -> 2x1. Before runs went in one call, such rows always went as datatypes.
std::int64_t col_pieces(const Transfer& t, bool b_side) {  // touching pieces counted as one
  std::int64_t n = 0;
  for (const auto& c : t.cols) n += c.count == 1 || (b_side ? c.b_stride : c.a_stride) == c.len ? 1 : c.count;
  return n;
}

bool packs(const Transfer& t, Transport tr, std::size_t esize) {
  if (tr != Transport::Auto) return tr == Transport::Packed;
  std::int64_t pieces = 0, elems = 0;
  for (const auto& r : t.rows) pieces += r.count, elems += r.len * r.count;
  if (elems == 1) {
    std::int64_t cols = 0;
    for (const auto& c : t.cols) cols += c.len * c.count;
    const std::int64_t fewest = std::min(col_pieces(t, false), col_pieces(t, true));
    return cols * static_cast<std::int64_t>(esize) < kAutoPackBelowBytes * fewest;
  }
  return pieces > 0 && elems * static_cast<std::int64_t>(esize) < kAutoPackBelowBytes * pieces;
}

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

// Elements from the start of this rank's local array of l to its last local element
// (lld x (columns - 1) + rows), 0 outside l's grid or without local elements.
std::int64_t local_span(const Layout& l, int rank, std::int64_t ld) {
  int pr = 0, pc = 0;
  if (!l.coords_of(rank, pr, pc)) return 0;
  const std::int64_t rows = l.local_rows(pr), cols = l.local_cols(pc);
  return rows > 0 && cols > 0 ? ld * (cols - 1) + rows : 0;
}

// Whether [x, x + nx) and [y, y + ny) (elements of T) share a byte. Compared as integers:
// relational operators on pointers into different arrays are unspecified.
template <class T>
bool overlap(const T* x, std::int64_t nx, const T* y, std::int64_t ny) {
  const auto x0 = reinterpret_cast<std::uintptr_t>(x), y0 = reinterpret_cast<std::uintptr_t>(y);
  const auto x1 = x0 + static_cast<std::uintptr_t>(nx) * sizeof(T), y1 = y0 + static_cast<std::uintptr_t>(ny) * sizeof(T);
  return x0 < y1 && y0 < x1;
}

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
