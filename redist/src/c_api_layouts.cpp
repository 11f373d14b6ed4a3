// SPDX-License-Identifier: BSD-3-Clause
// The BLACS bridge (blacs.hpp): descriptors naming BLACS contexts resolved collectively
// into Layouts, with every local fault agreed on by all ranks before anybody returns.
#include "c_api_detail.hpp"


#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <string>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"
#include "malleable_internal/collective.hpp"
#include "mpi_guard.hpp"
#include <utility>
#include <vector>

namespace redist {
namespace capi {

using detail::rank_name;

std::uint64_t hash_blocks(const std::int64_t* b, std::int64_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t k = 0; k < n; ++k) {
    h ^= static_cast<std::uint64_t>(b[k]);
    h *= 1099511628211ull;
  }
  return h;
}


// An error from the layout code ("rsrc = 2 is outside ...") said of one descriptor.
Error named(const Error& e, const DescNames& nm) {
  return Error(e.code(), std::string(nm.side) + ": " + e.what());
}

// Where this process sits in a descriptor's grid, or why the descriptor is unusable here.
struct Where {
  bool in_grid = false;
  int pr = -1, pc = -1, nprow = 0, npcol = 0;
};

Where locate(const redist_desc& d, int comm_rank, const DescNames& nm) {
  Where w;
  if (d.ctxt >= 0) {
    int myr = -1, myc = -1;
    Cblacs_gridinfo(d.ctxt, &w.nprow, &w.npcol, &myr, &myc);
    if (w.nprow < 0)
      throw Error(ErrorCode::NotInGrid, nm.field("ctxt") + " = " + std::to_string(d.ctxt) +
                                            " is not a BLACS grid context on this process");
    w.in_grid = myr >= 0 && myc >= 0;
    w.pr = myr;
    w.pc = myc;
    return w;
  }
  if (d.ctxt != -1)
    throw Error(ErrorCode::InvalidLayout, nm.field("ctxt") + " = " + std::to_string(d.ctxt) +
                                              " is neither a context nor -1");
  if (d.ranks) {
    w.nprow = d.nprow;
    w.npcol = d.npcol;
    if (d.nprow <= 0 || d.npcol <= 0)
      throw Error(ErrorCode::InvalidLayout, std::string(nm.side) + " grid " + std::to_string(d.nprow) + " x " +
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

// Block sizes of one dimension: the explicit list, or uniform `b` (the last block possibly
// shorter). An empty dimension needs neither a list nor a block size.
BlockSizes blocks_of(const std::int64_t* sizes, std::int64_t count, std::int64_t total, std::int64_t b,
                                    const char* name) {
  if (count < 0)
    throw Error(ErrorCode::InvalidLayout, std::string(name) + " count = " + std::to_string(count) + " is negative");
  if (count > kMaxBlocks)
    throw Error(ErrorCode::InvalidLayout, std::string(name) + " count = " + std::to_string(count) +
                                              " exceeds the limit of " + std::to_string(kMaxBlocks) + " blocks");
  if (sizes) return BlockSizes(std::vector<std::int64_t>(sizes, sizes + count));
  if (count > 0)
    throw Error(ErrorCode::NullBuffer, std::string(name) + " list is NULL but its count is " + std::to_string(count));
  if (total == 0) return BlockSizes(std::vector<std::int64_t>{});
  if (total < 0)
    throw Error(ErrorCode::InvalidLayout, std::string(name[0] == 'm' ? "m" : "n") + " = " + std::to_string(total) +
                                              " is negative");
  if (b <= 0) throw Error(ErrorCode::InvalidLayout, std::string(name) + " = " + std::to_string(b) + " must be positive");
  const std::int64_t nblocks = total / b + (total % b != 0 ? 1 : 0);
  if (nblocks > kMaxBlocks)
    throw Error(ErrorCode::InvalidLayout, std::string(name[0] == 'm' ? "m" : "n") + " = " + std::to_string(total) +
                                              " in blocks of " + name + " = " + std::to_string(b) + " makes " +
                                              std::to_string(nblocks) + " blocks; a dimension may have at most " +
                                              std::to_string(kMaxBlocks));
  return BlockSizes::uniform(total, b);  // compact: no list of nblocks entries
}

// Fields every process of a grid must agree on, in the allgathered record. kI/kJ carry
// the submatrix origin (IA/JA for A, IB/JB for B) as the grid's processes gave it: as in
// PDGEMR2D, a process outside a grid takes the origin from the grid's processes.
enum Field { kIn, kPr, kPc, kNprow, kNpcol, kM, kN, kMb, kNb, kRsrc, kCsrc, kNrb, kNcb, kHr, kHc, kI, kJ, kFields };
const char* const kFieldName[kFields] = {"in", "prow", "pcol", "nprow", "npcol", "m", "n", "mb", "nb",
                                         "rsrc", "csrc", "nrow_blocks", "ncol_blocks", "row_blocks", "col_blocks",
                                         "i", "j"};

std::string field_name(const DescNames& nm, int k) {
  if (k == kI) return nm.i;
  if (k == kJ) return nm.j;
  return nm.field(kFieldName[k]);
}

void record(const redist_desc& d, const Where& w, std::int64_t i, std::int64_t j, std::int64_t* r) {
  std::fill(r, r + kFields, 0);
  if (!w.in_grid) return;
  // An empty dimension is the same whatever block size or list pointer describes it.
  const bool rows_listed = d.row_blocks != nullptr || d.m == 0, cols_listed = d.col_blocks != nullptr || d.n == 0;
  r[kIn] = 1;
  r[kPr] = w.pr;
  r[kPc] = w.pc;
  r[kNprow] = w.nprow;
  r[kNpcol] = w.npcol;
  r[kM] = d.m;
  r[kN] = d.n;
  r[kMb] = rows_listed ? -1 : d.mb;
  r[kNb] = cols_listed ? -1 : d.nb;
  r[kRsrc] = d.rsrc;
  r[kCsrc] = d.csrc;
  r[kNrb] = d.row_blocks && d.m > 0 ? d.nrow_blocks : 0;
  r[kNcb] = d.col_blocks && d.n > 0 ? d.ncol_blocks : 0;
  r[kHr] = r[kNrb] ? static_cast<std::int64_t>(hash_blocks(d.row_blocks, d.nrow_blocks) >> 1) : 0;
  r[kHc] = r[kNcb] ? static_cast<std::int64_t>(hash_blocks(d.col_blocks, d.ncol_blocks) >> 1) : 0;
  r[kI] = i;
  r[kJ] = j;
}

// Two processes of a grid passed different block lists (their hashes differ): both lists
// travel to every rank, which names the first entry that differs, not the hashes.
[[noreturn]] void blocks_differ(MPI_Comm comm, int r0, int r1, std::int64_t count, const std::int64_t* mine,
                                const std::string& name) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::vector<std::int64_t> x(static_cast<std::size_t>(count)), y(static_cast<std::size_t>(count));
  if (me == r0) std::copy(mine, mine + count, x.begin());
  if (me == r1) std::copy(mine, mine + count, y.begin());
  check_mpi(MPI_Bcast(x.data(), static_cast<int>(count), MPI_INT64_T, r0, comm), "MPI_Bcast");
  check_mpi(MPI_Bcast(y.data(), static_cast<int>(count), MPI_INT64_T, r1, comm), "MPI_Bcast");
  std::size_t k = 0;
  while (k + 1 < x.size() && x[k] == y[k]) ++k;
  throw Error(ErrorCode::Inconsistent, name + "[" + std::to_string(k) + "] is " + std::to_string(x[k]) + " on " +
                                           rank_name(r0) + " but " + std::to_string(y[k]) + " on " + rank_name(r1));
}

namespace {

// One side's records in the allgathered array: rank r's fields start at r * stride + offset.
struct SideRecords {
  const std::vector<std::int64_t>& all;
  int stride, offset;
  const std::int64_t* operator()(int r) const {
    return &all[static_cast<std::size_t>(r) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(offset)];
  }
};

// The first of the P processes in the grid; every other process of the grid must pass the
// same fields (differing block lists are named by their first differing entry).
int agreed_first(MPI_Comm comm, const SideRecords& rec, int P, const redist_desc& mine, const DescNames& nm) {
  int first = -1;
  for (int r = 0; r < P && first < 0; ++r)
    if (rec(r)[kIn]) first = r;
  if (first < 0) throw Error(ErrorCode::InvalidLayout, std::string("no process of the communicator is in the grid of ") + nm.side);
  const std::int64_t* f = rec(first);
  for (int r = 0; r < P; ++r) {
    const std::int64_t* x = rec(r);
    if (!x[kIn]) continue;
    for (int k = kNprow; k < kFields; ++k) {
      if (x[k] == f[k]) continue;
      if (k == kHr) blocks_differ(comm, first, r, f[kNrb], mine.row_blocks, nm.field("row_blocks"));
      if (k == kHc) blocks_differ(comm, first, r, f[kNcb], mine.col_blocks, nm.field("col_blocks"));
      throw Error(ErrorCode::Inconsistent, field_name(nm, k) + " is " + std::to_string(f[k]) + " on " +
                                               rank_name(first) + " but " + std::to_string(x[k]) + " on " +
                                               rank_name(r) + " (processes of one grid must agree)");
    }
  }
  return first;
}

// The rank at each coordinate of the nprow x npcol grid (row-major): each coordinate
// claimed by exactly one process.
std::vector<int> grid_ranks(const SideRecords& rec, int P, int nprow, int npcol, const DescNames& nm) {
  std::vector<int> ranks(static_cast<std::size_t>(nprow) * static_cast<std::size_t>(npcol), -1);
  for (int r = 0; r < P; ++r) {
    const std::int64_t* x = rec(r);
    if (!x[kIn]) continue;
    auto& slot = ranks[static_cast<std::size_t>(x[kPr] * npcol + x[kPc])];
    if (slot >= 0)
      throw Error(ErrorCode::Inconsistent, std::string(nm.side) + ": " + rank_name(slot) + " and " + rank_name(r) +
                                               " both claim grid coordinate (" + std::to_string(x[kPr]) + "," +
                                               std::to_string(x[kPc]) + ")");
    slot = r;
  }
  for (std::size_t k = 0; k < ranks.size(); ++k)
    if (ranks[k] < 0)
      throw Error(ErrorCode::Inconsistent, std::string(nm.side) + ": grid coordinate (" + std::to_string(k / npcol) +
                                               "," + std::to_string(k % npcol) + ") belongs to no process of the communicator");
  return ranks;
}

// Explicit block sizes travel from the first process of the grid (f: its record) into rb, cb.
void broadcast_block_lists(MPI_Comm comm, int first, const std::int64_t* f, const redist_desc& mine,
                           std::vector<std::int64_t>& rb, std::vector<std::int64_t>& cb) {
  rb.resize(static_cast<std::size_t>(f[kNrb]));
  cb.resize(static_cast<std::size_t>(f[kNcb]));
  int me = 0;
  MPI_Comm_rank(comm, &me);
  if (me == first) {
    if (!rb.empty()) std::copy(mine.row_blocks, mine.row_blocks + rb.size(), rb.begin());
    if (!cb.empty()) std::copy(mine.col_blocks, mine.col_blocks + cb.size(), cb.begin());
  }
  if (!rb.empty()) check_mpi(MPI_Bcast(rb.data(), static_cast<int>(rb.size()), MPI_INT64_T, first, comm), "MPI_Bcast");
  if (!cb.empty()) check_mpi(MPI_Bcast(cb.data(), static_cast<int>(cb.size()), MPI_INT64_T, first, comm), "MPI_Bcast");
}

}  // namespace

// Builds one side's Layout from the allgathered records (identical on every rank, so
// every rank reaches the same verdict) plus a broadcast of explicit block sizes.
Layout assemble(MPI_Comm comm, const std::vector<std::int64_t>& all, int stride, int offset, const redist_desc& mine,
                const DescNames& nm, std::int64_t* origin) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  const SideRecords rec{all, stride, offset};
  const int first = agreed_first(comm, rec, P, mine, nm);
  const std::int64_t* f = rec(first);
  origin[0] = f[kI];
  origin[1] = f[kJ];
  const int nprow = static_cast<int>(f[kNprow]), npcol = static_cast<int>(f[kNpcol]);
  std::vector<int> ranks = grid_ranks(rec, P, nprow, npcol, nm);
  std::vector<std::int64_t> rb, cb;
  broadcast_block_lists(comm, first, f, mine, rb, cb);
  try {
    BlockSizes rows = f[kMb] >= 0 ? blocks_of(nullptr, 0, f[kM], f[kMb], "mb") : BlockSizes(std::move(rb));
    BlockSizes cols = f[kNb] >= 0 ? blocks_of(nullptr, 0, f[kN], f[kNb], "nb") : BlockSizes(std::move(cb));
    Layout l = Layout::from_blocks(std::move(rows), std::move(cols), nprow, npcol, static_cast<int>(f[kRsrc]),
                                   static_cast<int>(f[kCsrc]), std::move(ranks));
    if (l.m != f[kM] || l.n != f[kN])
      throw Error(ErrorCode::InvalidLayout, "block sizes sum to " + std::to_string(l.m) + " x " + std::to_string(l.n) +
                                                " but m x n = " + std::to_string(f[kM]) + " x " + std::to_string(f[kN]));
    return l;
  } catch (const Error& e) {
    throw named(e, nm);
  }
}

// The first local error anywhere, on every rank (message from the first failing rank).
void agree_error(MPI_Comm comm, ErrorCode code, const std::string& msg) {
  const auto first = malleable::collective::lowest_failure(comm, code != ErrorCode::Ok, static_cast<int>(code), msg,
                                                           malleable::collective::BlockingWait{}, check_mpi);
  if (first) throw Error(static_cast<ErrorCode>(first->code), "redist: " + rank_name(first->rank) + ": " + first->text);
}

// Local errors first, then M and N: every rank must pass the same sizes (a rank with
// M = 0 would otherwise return while the others wait for it).
void agree_sizes(MPI_Comm comm, ErrorCode code, const std::string& msg, std::int64_t m, std::int64_t n) {
  agree_error(comm, code, msg);
  int P = 0;
  MPI_Comm_size(comm, &P);
  std::int64_t mine[2] = {m, n};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(P));
  check_mpi(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm), "MPI_Allgather");
  for (int r = 1; r < P; ++r)
    for (int k = 0; k < 2; ++k)
      if (all[2 * static_cast<std::size_t>(r) + k] != all[static_cast<std::size_t>(k)])
        throw Error(ErrorCode::Inconsistent, std::string(k == 0 ? "M" : "N") + " is " +
                                                 std::to_string(all[static_cast<std::size_t>(k)]) + " on " +
                                                 rank_name(0) + " but " + std::to_string(all[2 * static_cast<std::size_t>(r) + k]) +
                                                 " on " + rank_name(r) + " (every process must pass the same)");
}

bool valid_schedule(int s) { return s >= REDIST_CATERPILLAR && s <= REDIST_DEFAULT; }
std::string bad_schedule(int s) {
  return "schedule = " + std::to_string(s) +
         " is not a REDIST_* schedule (0 CATERPILLAR, 1 CIRCULANT, 2 MATCHING, 3 ALLATONCE, 4 DEFAULT)";
}

// Submatrix origin (1-based, the user's values) and extent against one side's matrix.
void check_origin(std::int64_t i, std::int64_t j, std::int64_t m, std::int64_t n, const Layout& l, const DescNames& nm) {
  auto one = [&](std::int64_t o, std::int64_t len, std::int64_t ext, const char* oname, const char* lname,
                 const std::string& ext_name, const char* what) {
    if (o < 1)
      throw Error(ErrorCode::RegionOutOfRange, std::string(oname) + " = " + std::to_string(o) + " must be at least 1");
    // o - 1 + len > ext without the sum, which can overflow
    if (len > ext - (o - 1))
      throw Error(ErrorCode::RegionOutOfRange, std::string(oname) + " = " + std::to_string(o) + " with " + lname +
                                                   " = " + std::to_string(len) + " runs past the " +
                                                   std::to_string(ext) + " " + what + " of " + (nm.side[4] == 'a' || nm.side[4] == 'A' ? "A" : "B") +
                                                   " (" + ext_name + ")");
  };
  one(i, m, l.m, nm.i, "M", nm.field("m"), "rows");
  one(j, n, l.n, nm.j, "N", nm.field("n"), "columns");
}


}  // namespace capi

using namespace capi;

MPI_Comm blacs_grid_comm(int ctxt) {
  int nprow = -1, npcol = -1, r = -1, c = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &r, &c);
  if (nprow < 0) throw Error(ErrorCode::NotInGrid, "ctxt = " + std::to_string(ctxt) + " is not a BLACS grid context on this process");
  int sys = -1;
  Cblacs_get(ctxt, 10, &sys);
  return Cblacs2sys_handle(sys);
}

DescPair layouts_from_descs(MPI_Comm comm, const redist_desc& a, const redist_desc& b) {
  detail::check_comm(comm, "comm");
  detail::DupComm dup(comm);
  return layouts_agreed(dup.get(), a, b, ErrorCode::Ok, "", false, 1, 1, 1, 1);
}

DescPair layouts_agreed(MPI_Comm comm, const redist_desc& a, const redist_desc& b, ErrorCode prior,
                        const std::string& prior_msg, bool std_desc, std::int64_t ia, std::int64_t ja,
                        std::int64_t ib, std::int64_t jb) {
  int me = 0, P = 0;
  check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &P), "MPI_Comm_size");
  const DescNames na = names_a(std_desc), nb = names_b(std_desc);
  ErrorCode code = ErrorCode::Ok;
  std::string msg;
  const int stride = 2 * kFields;
  std::vector<std::int64_t> mine(static_cast<std::size_t>(stride), 0);
  DescPair out;
  // A process in a grid validates its own descriptor first, so the error names it.
  auto check_own = [&](const redist_desc& d, const Where& w, const DescNames& nm) {
    redist_desc t = d;
    t.ctxt = -1, t.ranks = nullptr, t.nprow = w.nprow, t.npcol = w.npcol;
    Layout l;
    try {
      l = local_layout(t);
    } catch (const Error& e) {
      throw named(e, nm);
    }
    if (d.lld < l.min_lld(w.pr))
      throw Error(ErrorCode::LeadingDimension, nm.field("lld") + " = " + std::to_string(d.lld) +
                                                   " is less than max(1, local rows) = " + std::to_string(l.min_lld(w.pr)));
    return d.lld;
  };
  try {
    if (prior != ErrorCode::Ok) throw Error(prior, prior_msg);
    const Where wa = locate(a, me, na), wb = locate(b, me, nb);
    if (wa.in_grid) out.lld_a = check_own(a, wa, na);
    if (wb.in_grid) out.lld_b = check_own(b, wb, nb);
    record(a, wa, ia, ja, mine.data());
    record(b, wb, ib, jb, mine.data() + kFields);
  } catch (const Error& e) {
    code = e.code();
    msg = e.what();
    std::fill(mine.begin(), mine.end(), 0);
  }
  agree_error(comm, code, msg);
  std::vector<std::int64_t> all(static_cast<std::size_t>(stride) * static_cast<std::size_t>(P));
  check_mpi(MPI_Allgather(mine.data(), stride, MPI_INT64_T, all.data(), stride, MPI_INT64_T, comm), "MPI_Allgather");
  std::int64_t oa[2] = {1, 1}, ob[2] = {1, 1};
  out.a = assemble(comm, all, stride, 0, a, na, oa);
  out.b = assemble(comm, all, stride, kFields, b, nb, ob);
  out.ia = oa[0], out.ja = oa[1], out.ib = ob[0], out.jb = ob[1];
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
