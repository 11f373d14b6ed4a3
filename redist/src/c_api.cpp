// C interface (redist.h) and the BLACS bridge (blacs.hpp). Descriptors naming BLACS
// contexts are resolved collectively into Layouts, then the C++ execution layer runs.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <string>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"

namespace redist {
namespace {

thread_local std::string g_last_error;

int fail_code(ErrorCode c, const std::string& msg) {
  g_last_error = msg;
  return static_cast<int>(c);
}

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(ErrorCode::Mpi, std::string("redist: ") + what + " failed");
}

std::uint64_t hash_blocks(const std::int64_t* b, std::int64_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t k = 0; k < n; ++k) {
    h ^= static_cast<std::uint64_t>(b[k]);
    h *= 1099511628211ull;
  }
  return h;
}

// Where this process sits in a descriptor's grid, or why the descriptor is unusable here.
struct Where {
  bool in_grid = false;
  int pr = -1, pc = -1, nprow = 0, npcol = 0;
};

Where locate(const redist_desc& d, int comm_rank, const char* name) {
  Where w;
  if (d.ctxt >= 0) {
    int myr = -1, myc = -1;
    Cblacs_gridinfo(d.ctxt, &w.nprow, &w.npcol, &myr, &myc);
    if (w.nprow < 0)
      throw Error(ErrorCode::NotInGrid, std::string(name) + ".ctxt = " + std::to_string(d.ctxt) +
                                            " is not a BLACS grid context on this process");
    w.in_grid = myr >= 0 && myc >= 0;
    w.pr = myr;
    w.pc = myc;
    return w;
  }
  if (d.ctxt != -1)
    throw Error(ErrorCode::InvalidLayout, std::string(name) + ".ctxt = " + std::to_string(d.ctxt) +
                                              " is neither a context nor -1");
  if (d.ranks) {
    w.nprow = d.nprow;
    w.npcol = d.npcol;
    if (d.nprow <= 0 || d.npcol <= 0)
      throw Error(ErrorCode::InvalidLayout, std::string(name) + " grid " + std::to_string(d.nprow) + " x " +
                                                std::to_string(d.npcol) + " is empty");
    for (int k = 0; k < d.nprow * d.npcol; ++k)
      if (d.ranks[k] == comm_rank) {
        w.in_grid = true;
        w.pr = k / d.npcol;
        w.pc = k % d.npcol;
      }
  }
  return w;
}

std::vector<std::int64_t> blocks_of(const std::int64_t* sizes, std::int64_t count, std::int64_t total, int b,
                                    const char* name) {
  if (sizes) return std::vector<std::int64_t>(sizes, sizes + count);
  if (b <= 0) throw Error(ErrorCode::InvalidLayout, std::string(name) + " = " + std::to_string(b) + " must be positive");
  std::vector<std::int64_t> v;
  for (std::int64_t s = 0; s < total; s += b) v.push_back(std::min<std::int64_t>(b, total - s));
  return v;
}

// Fields every process of a grid must agree on, in the allgathered record.
enum Field { kIn, kPr, kPc, kNprow, kNpcol, kM, kN, kMb, kNb, kRsrc, kCsrc, kNrb, kNcb, kHr, kHc, kFields };
const char* const kFieldName[kFields] = {"in", "prow", "pcol", "nprow", "npcol", "m", "n", "mb", "nb",
                                         "rsrc", "csrc", "nrow_blocks", "ncol_blocks", "row_blocks", "col_blocks"};

void record(const redist_desc& d, const Where& w, std::int64_t* r) {
  std::fill(r, r + kFields, 0);
  if (!w.in_grid) return;
  r[kIn] = 1;
  r[kPr] = w.pr;
  r[kPc] = w.pc;
  r[kNprow] = w.nprow;
  r[kNpcol] = w.npcol;
  r[kM] = d.m;
  r[kN] = d.n;
  r[kMb] = d.row_blocks ? -1 : d.mb;
  r[kNb] = d.col_blocks ? -1 : d.nb;
  r[kRsrc] = d.rsrc;
  r[kCsrc] = d.csrc;
  r[kNrb] = d.row_blocks ? d.nrow_blocks : 0;
  r[kNcb] = d.col_blocks ? d.ncol_blocks : 0;
  r[kHr] = d.row_blocks ? static_cast<std::int64_t>(hash_blocks(d.row_blocks, d.nrow_blocks) >> 1) : 0;
  r[kHc] = d.col_blocks ? static_cast<std::int64_t>(hash_blocks(d.col_blocks, d.ncol_blocks) >> 1) : 0;
}

// Builds one side's Layout from the allgathered records (identical on every rank, so
// every rank reaches the same verdict) plus a broadcast of explicit block sizes.
Layout assemble(MPI_Comm comm, const std::vector<std::int64_t>& all, int stride, int offset, const redist_desc& mine,
                const char* name) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  auto rec = [&](int r) { return &all[static_cast<std::size_t>(r) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(offset)]; };
  int first = -1;
  for (int r = 0; r < P && first < 0; ++r)
    if (rec(r)[kIn]) first = r;
  if (first < 0) throw Error(ErrorCode::InvalidLayout, std::string("no process is in the grid of ") + name);
  const std::int64_t* f = rec(first);
  for (int r = 0; r < P; ++r) {
    const std::int64_t* x = rec(r);
    if (!x[kIn]) continue;
    for (int k = kNprow; k < kFields; ++k)
      if (x[k] != f[k])
        throw Error(ErrorCode::Inconsistent, std::string(name) + " differs between rank " + std::to_string(first) +
                                                 " and rank " + std::to_string(r) + ": " + kFieldName[k] + " = " +
                                                 std::to_string(f[k]) + " vs " + std::to_string(x[k]));
  }
  const int nprow = static_cast<int>(f[kNprow]), npcol = static_cast<int>(f[kNpcol]);
  std::vector<int> ranks(static_cast<std::size_t>(nprow) * static_cast<std::size_t>(npcol), -1);
  for (int r = 0; r < P; ++r) {
    const std::int64_t* x = rec(r);
    if (!x[kIn]) continue;
    auto& slot = ranks[static_cast<std::size_t>(x[kPr] * npcol + x[kPc])];
    if (slot >= 0)
      throw Error(ErrorCode::Inconsistent, std::string(name) + ": ranks " + std::to_string(slot) + " and " +
                                               std::to_string(r) + " both claim grid coordinate (" +
                                               std::to_string(x[kPr]) + "," + std::to_string(x[kPc]) + ")");
    slot = r;
  }
  for (std::size_t k = 0; k < ranks.size(); ++k)
    if (ranks[k] < 0)
      throw Error(ErrorCode::Inconsistent, std::string(name) + ": grid coordinate (" + std::to_string(k / npcol) +
                                               "," + std::to_string(k % npcol) + ") belongs to no process of the communicator");
  // Explicit block sizes travel from the first process of the grid.
  std::vector<std::int64_t> rb(static_cast<std::size_t>(f[kNrb])), cb(static_cast<std::size_t>(f[kNcb]));
  int me = 0;
  MPI_Comm_rank(comm, &me);
  if (me == first) {
    if (!rb.empty()) std::copy(mine.row_blocks, mine.row_blocks + rb.size(), rb.begin());
    if (!cb.empty()) std::copy(mine.col_blocks, mine.col_blocks + cb.size(), cb.begin());
  }
  if (!rb.empty()) check_mpi(MPI_Bcast(rb.data(), static_cast<int>(rb.size()), MPI_INT64_T, first, comm), "MPI_Bcast");
  if (!cb.empty()) check_mpi(MPI_Bcast(cb.data(), static_cast<int>(cb.size()), MPI_INT64_T, first, comm), "MPI_Bcast");
  if (f[kMb] >= 0) rb = blocks_of(nullptr, 0, f[kM], static_cast<int>(f[kMb]), "mb");
  if (f[kNb] >= 0) cb = blocks_of(nullptr, 0, f[kN], static_cast<int>(f[kNb]), "nb");
  Layout l = Layout::from_blocks(std::move(rb), std::move(cb), nprow, npcol, static_cast<int>(f[kRsrc]),
                                 static_cast<int>(f[kCsrc]), std::move(ranks));
  if (l.m != f[kM] || l.n != f[kN])
    throw Error(ErrorCode::InvalidLayout, std::string(name) + " block sizes sum to " + std::to_string(l.m) + " x " +
                                              std::to_string(l.n) + " but m x n = " + std::to_string(f[kM]) + " x " +
                                              std::to_string(f[kN]));
  return l;
}

// The first local error anywhere, on every rank (message from the first failing rank).
void agree_error(MPI_Comm comm, ErrorCode code, const std::string& msg) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  int mine = code == ErrorCode::Ok ? INT_MAX : me, first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  int meta[2] = {static_cast<int>(code), static_cast<int>(msg.size())};
  check_mpi(MPI_Bcast(meta, 2, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = me == first ? msg : std::string(static_cast<std::size_t>(meta[1]), ' ');
  check_mpi(MPI_Bcast(text.data(), meta[1], MPI_CHAR, first, comm), "MPI_Bcast");
  throw Error(static_cast<ErrorCode>(meta[0]), "redist: rank " + std::to_string(first) + ": " + text);
}

}  // namespace

DescPair layouts_agreed(MPI_Comm comm, const redist_desc& a, const redist_desc& b, ErrorCode prior,
                        const std::string& prior_msg);

namespace {

template <class T>
int c_redistribute(std::int64_t m, std::int64_t n, const void* a, std::int64_t ia, std::int64_t ja,
                   const redist_desc* da, void* b, std::int64_t ib, std::int64_t jb, const redist_desc* db,
                   MPI_Comm comm, int schedule, ErrorCode prior = ErrorCode::Ok, const std::string& prior_msg = "") {
  try {
    // Local faults join the collective check instead of returning early, so no rank is
    // left waiting for one that gave up.
    redist_desc none{};
    none.ctxt = -1;
    std::string why = prior_msg;
    if (prior == ErrorCode::Ok && (!da || !db)) {
      prior = ErrorCode::NullBuffer;
      why = "desca or descb is NULL";
    } else if (prior == ErrorCode::Ok && (schedule < REDIST_CATERPILLAR || schedule > REDIST_DEFAULT)) {
      prior = ErrorCode::InvalidLayout;
      why = "schedule = " + std::to_string(schedule) + " is not a REDIST_* schedule";
    }
    const DescPair p = layouts_agreed(comm, da ? *da : none, db ? *db : none, prior, why);
    const Region g{m, n, ia - 1, ja - 1, ib - 1, jb - 1};  // ScaLAPACK's 1-based IA/JA
    redistribute<T>(comm, p.a, static_cast<const T*>(a), p.lld_a, p.b, static_cast<T*>(b), p.lld_b, g,
                    static_cast<ScheduleKind>(schedule));
    g_last_error.clear();
    return REDIST_SUCCESS;
  } catch (const Error& e) {
    return fail_code(e.code(), e.what());
  } catch (const std::exception& e) {
    return fail_code(ErrorCode::Internal, e.what());
  }
}

int from_scalapack_checked(redist_desc* d, const int* desc) {
  if (!desc) return fail_code(ErrorCode::NullBuffer, "desc is NULL");
  return redist_desc_from_scalapack(d, desc);
}

// Standard DESCs converted here, so a conversion error on one process becomes the prior
// error of the collective call rather than an early return.
template <class T>
int std_desc_redistribute(std::int64_t m, std::int64_t n, const void* a, std::int64_t ia, std::int64_t ja,
                          const int* desca, void* b, std::int64_t ib, std::int64_t jb, const int* descb,
                          MPI_Comm comm, int schedule) {
  redist_desc da{}, db{};
  int rc = from_scalapack_checked(&da, desca);
  if (rc == 0) rc = from_scalapack_checked(&db, descb);
  const std::string msg = g_last_error;
  return c_redistribute<T>(m, n, a, ia, ja, &da, b, ib, jb, &db, comm, schedule, static_cast<ErrorCode>(rc), msg);
}

Layout local_layout(const redist_desc& d) {
  // Index functions need no communicator: the grid shape comes from the descriptor.
  int nprow = d.nprow, npcol = d.npcol;
  if (d.ctxt >= 0) {
    int r = 0, c = 0;
    Cblacs_gridinfo(d.ctxt, &nprow, &npcol, &r, &c);
    if (nprow < 0)
      throw Error(ErrorCode::NotInGrid, "ctxt = " + std::to_string(d.ctxt) + " is not a BLACS grid context on this process");
  }
  std::vector<int> ranks(static_cast<std::size_t>(std::max(0, nprow * npcol)));
  for (std::size_t k = 0; k < ranks.size(); ++k) ranks[k] = static_cast<int>(k);
  Layout l = Layout::from_blocks(blocks_of(d.row_blocks, d.nrow_blocks, d.m, d.mb, "mb"),
                                 blocks_of(d.col_blocks, d.ncol_blocks, d.n, d.nb, "nb"), nprow, npcol, d.rsrc,
                                 d.csrc, std::move(ranks));
  if (l.m != d.m || l.n != d.n)
    throw Error(ErrorCode::InvalidLayout, "block sizes sum to " + std::to_string(l.m) + " x " + std::to_string(l.n) +
                                              " but m x n = " + std::to_string(d.m) + " x " + std::to_string(d.n));
  return l;
}

template <class F>
int guarded(F&& f) {
  try {
    f();
    g_last_error.clear();
    return REDIST_SUCCESS;
  } catch (const Error& e) {
    return fail_code(e.code(), e.what());
  } catch (const std::exception& e) {
    return fail_code(ErrorCode::Internal, e.what());
  }
}

}  // namespace

MPI_Comm blacs_grid_comm(int ctxt) {
  int nprow = -1, npcol = -1, r = -1, c = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &r, &c);
  if (nprow < 0) throw Error(ErrorCode::NotInGrid, "ctxt = " + std::to_string(ctxt) + " is not a BLACS grid context on this process");
  int sys = -1;
  Cblacs_get(ctxt, 10, &sys);
  return Cblacs2sys_handle(sys);
}

DescPair layouts_from_descs(MPI_Comm comm, const redist_desc& a, const redist_desc& b) {
  return layouts_agreed(comm, a, b, ErrorCode::Ok, "");
}

DescPair layouts_agreed(MPI_Comm comm, const redist_desc& a, const redist_desc& b, ErrorCode prior,
                        const std::string& prior_msg) {
  int me = 0, P = 0;
  check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &P), "MPI_Comm_size");
  ErrorCode code = ErrorCode::Ok;
  std::string msg;
  const int stride = 2 * kFields;
  std::vector<std::int64_t> mine(static_cast<std::size_t>(stride), 0);
  DescPair out;
  try {
    if (prior != ErrorCode::Ok) throw Error(prior, prior_msg);
    const Where wa = locate(a, me, "desca"), wb = locate(b, me, "descb");
    // A process in a grid validates its own descriptor first, so the error names it.
    if (wa.in_grid) {
      redist_desc t = a;
      t.ctxt = -1, t.ranks = nullptr, t.nprow = wa.nprow, t.npcol = wa.npcol;
      const Layout l = local_layout(t);
      if (a.lld < l.min_lld(wa.pr))
        throw Error(ErrorCode::LeadingDimension, "desca.lld = " + std::to_string(a.lld) + " is less than max(1, local rows) = " +
                                                     std::to_string(l.min_lld(wa.pr)));
      out.lld_a = a.lld;
    }
    if (wb.in_grid) {
      redist_desc t = b;
      t.ctxt = -1, t.ranks = nullptr, t.nprow = wb.nprow, t.npcol = wb.npcol;
      const Layout l = local_layout(t);
      if (b.lld < l.min_lld(wb.pr))
        throw Error(ErrorCode::LeadingDimension, "descb.lld = " + std::to_string(b.lld) + " is less than max(1, local rows) = " +
                                                     std::to_string(l.min_lld(wb.pr)));
      out.lld_b = b.lld;
    }
    record(a, wa, mine.data());
    record(b, wb, mine.data() + kFields);
  } catch (const Error& e) {
    code = e.code();
    msg = e.what();
    std::fill(mine.begin(), mine.end(), 0);
  }
  agree_error(comm, code, msg);
  std::vector<std::int64_t> all(static_cast<std::size_t>(stride) * static_cast<std::size_t>(P));
  check_mpi(MPI_Allgather(mine.data(), stride, MPI_INT64_T, all.data(), stride, MPI_INT64_T, comm), "MPI_Allgather");
  out.a = assemble(comm, all, stride, 0, a, "desca");
  out.b = assemble(comm, all, stride, kFields, b, "descb");
  return out;
}

BlacsGrid::BlacsGrid(int sys, const Layout& l) {
  std::vector<int> usermap(static_cast<std::size_t>(l.nprow) * static_cast<std::size_t>(l.npcol));
  for (int pr = 0; pr < l.nprow; ++pr)
    for (int pc = 0; pc < l.npcol; ++pc)  // BLACS usermap is column-major
      usermap[static_cast<std::size_t>(pr + pc * l.nprow)] = l.rank_at(pr, pc);
  ctxt_ = sys;
  Cblacs_gridmap(&ctxt_, usermap.data(), l.nprow, l.nprow, l.npcol);
}
BlacsGrid::~BlacsGrid() {
  if (ctxt_ >= 0) Cblacs_gridexit(ctxt_);
}
BlacsGrid& BlacsGrid::operator=(BlacsGrid&& o) noexcept {
  if (this != &o) {
    if (ctxt_ >= 0) Cblacs_gridexit(ctxt_);
    ctxt_ = std::exchange(o.ctxt_, -1);
  }
  return *this;
}

}  // namespace redist

using redist::Error;
using redist::ErrorCode;

extern "C" {

int redist_desc_from_scalapack(redist_desc* d, const int desc[9]) {
  return redist::guarded([&] {
    if (!d || !desc) throw Error(ErrorCode::NullBuffer, "d or desc is NULL");
    if (desc[0] != 1) throw Error(ErrorCode::InvalidLayout, "DESC(DTYPE_) = " + std::to_string(desc[0]) + " is not 1");
    *d = redist_desc{};
    d->ctxt = desc[1];
    d->m = desc[2];
    d->n = desc[3];
    d->mb = desc[4];
    d->nb = desc[5];
    d->rsrc = desc[6];
    d->csrc = desc[7];
    d->lld = desc[8];
    if (d->ctxt >= 0) {
      int r = 0, c = 0;
      Cblacs_gridinfo(d->ctxt, &d->nprow, &d->npcol, &r, &c);
      if (d->nprow < 0)
        throw Error(ErrorCode::NotInGrid, "DESC(CTXT_) = " + std::to_string(desc[1]) + " is not a BLACS grid context on this process");
    }
  });
}

int redist_desc_init_blocks(redist_desc* d, int ctxt, int64_t nrow_blocks, const int64_t* row_blocks,
                            int64_t ncol_blocks, const int64_t* col_blocks, int rsrc, int csrc, int64_t lld) {
  return redist::guarded([&] {
    if (!d) throw Error(ErrorCode::NullBuffer, "d is NULL");
    if ((nrow_blocks > 0 && !row_blocks) || (ncol_blocks > 0 && !col_blocks))
      throw Error(ErrorCode::NullBuffer, "row_blocks/col_blocks is NULL but its count is positive");
    *d = redist_desc{};
    d->ctxt = ctxt;
    d->nrow_blocks = nrow_blocks;
    d->ncol_blocks = ncol_blocks;
    d->row_blocks = row_blocks;
    d->col_blocks = col_blocks;
    d->mb = d->nb = 0;
    for (int64_t k = 0; k < nrow_blocks; ++k) d->m += row_blocks[k];
    for (int64_t k = 0; k < ncol_blocks; ++k) d->n += col_blocks[k];
    d->rsrc = rsrc;
    d->csrc = csrc;
    d->lld = lld;
    if (ctxt >= 0) {
      int r = 0, c = 0;
      Cblacs_gridinfo(ctxt, &d->nprow, &d->npcol, &r, &c);
      if (d->nprow < 0)
        throw Error(ErrorCode::NotInGrid, "ctxt = " + std::to_string(ctxt) + " is not a BLACS grid context on this process");
    }
    (void)redist::local_layout(*d);  // validate now, naming the field
  });
}

int redist_desc_to_scalapack(const redist_desc* d, int desc[9]) {
  return redist::guarded([&] {
    if (!d || !desc) throw Error(ErrorCode::NullBuffer, "d or desc is NULL");
    const auto out = redist::local_layout(*d).to_desc(d->ctxt, static_cast<int>(d->lld));
    std::copy(out.begin(), out.end(), desc);
  });
}

int redist_numroc(const redist_desc* d, int dim, int iproc, int64_t* count) {
  return redist::guarded([&] {
    if (!d || !count) throw Error(ErrorCode::NullBuffer, "d or count is NULL");
    const auto l = redist::local_layout(*d);
    *count = dim == REDIST_ROWS ? l.local_rows(iproc) : l.local_cols(iproc);
  });
}

int redist_g2l(const redist_desc* d, int dim, int64_t ig, int* iproc, int64_t* il) {
  return redist::guarded([&] {
    if (!d || !iproc || !il) throw Error(ErrorCode::NullBuffer, "d, iproc or il is NULL");
    const auto l = redist::local_layout(*d);
    const auto ax = dim == REDIST_ROWS ? l.row_axis() : l.col_axis();
    if (ig < 1 || ig > ax.extent())
      throw Error(ErrorCode::RegionOutOfRange, "ig = " + std::to_string(ig) + " is outside [1, " + std::to_string(ax.extent()) + "]");
    *iproc = ax.owner(ig - 1);
    *il = ax.to_local(ig - 1) + 1;
  });
}

int redist_l2g(const redist_desc* d, int dim, int iproc, int64_t il, int64_t* ig) {
  return redist::guarded([&] {
    if (!d || !ig) throw Error(ErrorCode::NullBuffer, "d or ig is NULL");
    const auto l = redist::local_layout(*d);
    const auto ax = dim == REDIST_ROWS ? l.row_axis() : l.col_axis();
    *ig = ax.to_global(iproc, il - 1) + 1;
  });
}

int redist_pdgemr2d(int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja, const redist_desc* desca, double* b,
                    int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule) {
  return redist::c_redistribute<double>(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}
int redist_psgemr2d(int64_t m, int64_t n, const float* a, int64_t ia, int64_t ja, const redist_desc* desca, float* b,
                    int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule) {
  return redist::c_redistribute<float>(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}
int redist_pzgemr2d(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca, void* b,
                    int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule) {
  return redist::c_redistribute<std::complex<double>>(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}
int redist_pcgemr2d(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca, void* b,
                    int64_t ib, int64_t jb, const redist_desc* descb, MPI_Comm comm, int schedule) {
  return redist::c_redistribute<std::complex<float>>(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}

int redist_pdgemr2d_fstd(int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja, const int* desca,
                         double* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule) {
  return redist::std_desc_redistribute<double>(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm), schedule);
}
int redist_psgemr2d_fstd(int64_t m, int64_t n, const float* a, int64_t ia, int64_t ja, const int* desca,
                         float* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule) {
  return redist::std_desc_redistribute<float>(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm), schedule);
}
int redist_pzgemr2d_fstd(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const int* desca,
                         void* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule) {
  return redist::std_desc_redistribute<std::complex<double>>(m, n, a, ia, ja, desca, b, ib, jb, descb,
                                                             MPI_Comm_f2c(comm), schedule);
}
int redist_pcgemr2d_fstd(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const int* desca,
                         void* b, int64_t ib, int64_t jb, const int* descb, MPI_Fint comm, int schedule) {
  return redist::std_desc_redistribute<std::complex<float>>(m, n, a, ia, ja, desca, b, ib, jb, descb,
                                                            MPI_Comm_f2c(comm), schedule);
}

int redist_Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b, int ib, int jb,
                     const int* descb, int gctxt, int schedule) {
  MPI_Comm comm = MPI_COMM_NULL;
  int rc = redist::guarded([&] { comm = redist::blacs_grid_comm(gctxt); });
  // A gctxt invalid here leaves no communicator to agree on (the caller broke PDGEMR2D's
  // contract that every process of gctxt calls); other local errors go into the
  // collective check below, so no rank returns early for them.
  if (comm == MPI_COMM_NULL) return rc;
  return redist::std_desc_redistribute<double>(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule);
}

int redist_pdgemr2d_f(int64_t m, int64_t n, const double* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      double* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule) {
  return redist_pdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm), schedule);
}

int redist_psgemr2d_f(int64_t m, int64_t n, const float* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      float* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule) {
  return redist_psgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm), schedule);
}
int redist_pzgemr2d_f(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      void* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule) {
  return redist_pzgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm), schedule);
}
int redist_pcgemr2d_f(int64_t m, int64_t n, const void* a, int64_t ia, int64_t ja, const redist_desc* desca,
                      void* b, int64_t ib, int64_t jb, const redist_desc* descb, MPI_Fint comm, int schedule) {
  return redist_pcgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm), schedule);
}

int redist_plan_stats(const redist_desc* desca, const redist_desc* descb, MPI_Comm comm, int schedule,
                      redist_stats* stats) {
  return redist::guarded([&] {
    if (!desca || !descb || !stats) throw Error(ErrorCode::NullBuffer, "desca, descb or stats is NULL");
    int P = 0;
    MPI_Comm_size(comm, &P);
    const auto p = redist::layouts_from_descs(comm, *desca, *descb);
    if (p.a.m != p.b.m || p.a.n != p.b.n)
      throw Error(ErrorCode::SizeMismatch, "desca is " + std::to_string(p.a.m) + " x " + std::to_string(p.a.n) +
                                               " but descb is " + std::to_string(p.b.m) + " x " + std::to_string(p.b.n));
    const auto plan = redist::make_plan(p.a, p.b, redist::Region::whole(p.a), P,
                                        static_cast<redist::ScheduleKind>(schedule));
    const auto& s = plan.stats;
    *stats = redist_stats{s.elements_total, s.elements_local, s.elements_moved, s.messages,
                          s.max_sent_by_one, s.max_recv_by_one, s.steps};
  });
}

const char* redist_error_message(void) { return redist::g_last_error.c_str(); }

const char* redist_strerror(int code) {
  switch (code) {
    case REDIST_SUCCESS: return "success";
    case REDIST_ERR_INVALID_LAYOUT: return "invalid descriptor field";
    case REDIST_ERR_SIZE_MISMATCH: return "global sizes of A and B differ";
    case REDIST_ERR_REGION: return "submatrix out of range";
    case REDIST_ERR_LLD: return "local leading dimension too small";
    case REDIST_ERR_NULL_BUFFER: return "null buffer on a process that holds data";
    case REDIST_ERR_NOT_IN_GRID: return "context not valid on this process";
    case REDIST_ERR_INCONSISTENT: return "processes passed different descriptors";
    case REDIST_ERR_MPI: return "MPI error";
    case REDIST_ERR_INTERNAL: return "internal error";
  }
  return "unknown error code";
}

}  // extern "C"
