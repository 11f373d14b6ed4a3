// SPDX-License-Identifier: BSD-3-Clause
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
#include "mpi_guard.hpp"

namespace redist {
namespace {

thread_local std::string g_last_error;

using detail::rank_name;

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

// How messages name one descriptor's fields and its submatrix origin: the user's own
// argument names, "desca->mb" for a redist_desc, "DESCA(MB_)" for a 9-integer DESC.
struct DescNames {
  const char* side = "desca";  // "desca" / "descb" or "DESCA" / "DESCB"
  bool std_desc = false;
  const char* i = "IA";
  const char* j = "JA";
  std::string field(const std::string& f) const {
    if (!std_desc) return std::string(side) + "->" + f;
    std::string up;
    for (char c : f) up += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    if (f == "ctxt" || f == "m" || f == "n" || f == "mb" || f == "nb" || f == "rsrc" || f == "csrc" || f == "lld")
      return std::string(side) + "(" + up + "_)";
    return std::string(side) + " " + f;  // not a DESC entry (grid shape)
  }
};
DescNames names_a(bool std_desc) { return {std_desc ? "DESCA" : "desca", std_desc, "IA", "JA"}; }
DescNames names_b(bool std_desc) { return {std_desc ? "DESCB" : "descb", std_desc, "IB", "JB"}; }

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

// Builds one side's Layout from the allgathered records (identical on every rank, so
// every rank reaches the same verdict) plus a broadcast of explicit block sizes.
Layout assemble(MPI_Comm comm, const std::vector<std::int64_t>& all, int stride, int offset, const redist_desc& mine,
                const DescNames& nm, std::int64_t* origin) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  auto rec = [&](int r) { return &all[static_cast<std::size_t>(r) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(offset)]; };
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
  origin[0] = f[kI];
  origin[1] = f[kJ];
  const int nprow = static_cast<int>(f[kNprow]), npcol = static_cast<int>(f[kNpcol]);
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
  int me = 0;
  MPI_Comm_rank(comm, &me);
  int mine = code == ErrorCode::Ok ? INT_MAX : me, first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  int meta[2] = {static_cast<int>(code), static_cast<int>(msg.size())};
  check_mpi(MPI_Bcast(meta, 2, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = me == first ? msg : std::string(static_cast<std::size_t>(meta[1]), ' ');
  check_mpi(MPI_Bcast(text.data(), meta[1], MPI_CHAR, first, comm), "MPI_Bcast");
  throw Error(static_cast<ErrorCode>(meta[0]), "redist: " + rank_name(first) + ": " + text);
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
    // o - 1 + len > ext without the sum, which can overflow (issue 14, class 1)
    if (len > ext - (o - 1))
      throw Error(ErrorCode::RegionOutOfRange, std::string(oname) + " = " + std::to_string(o) + " with " + lname +
                                                   " = " + std::to_string(len) + " runs past the " +
                                                   std::to_string(ext) + " " + what + " of " + (nm.side[4] == 'a' || nm.side[4] == 'A' ? "A" : "B") +
                                                   " (" + ext_name + ")");
  };
  one(i, m, l.m, nm.i, "M", nm.field("m"), "rows");
  one(j, n, l.n, nm.j, "N", nm.field("n"), "columns");
}

}  // namespace

DescPair layouts_agreed(MPI_Comm comm, const redist_desc& a, const redist_desc& b, ErrorCode prior,
                        const std::string& prior_msg, bool std_desc, std::int64_t ia, std::int64_t ja,
                        std::int64_t ib, std::int64_t jb);

namespace {

// The PDGEMR2D-shaped entry points. Order of examination (docs/redist.md, "Error
// contract"): the communicator handle (locally: with no communicator there is no one to
// tell); then, collectively, the schedule, M and N; if M or N is 0 nothing else is
// examined, as in PDGEMR2D; otherwise the descriptors, the submatrix origins taken from
// each grid's processes, LLDs and buffers. Local faults join the collective checks
// instead of returning early, so no rank is left waiting for one that gave up.
template <class T>
int c_redistribute(std::int64_t m, std::int64_t n, const void* a, std::int64_t ia, std::int64_t ja,
                   const redist_desc* da, void* b, std::int64_t ib, std::int64_t jb, const redist_desc* db,
                   MPI_Comm comm, int schedule, ErrorCode prior = ErrorCode::Ok, const std::string& prior_msg = "",
                   bool std_desc = false) {
  try {
    detail::DupComm dup(comm);
    ErrorCode code = ErrorCode::Ok;
    std::string why;
    if (!valid_schedule(schedule)) {
      code = ErrorCode::InvalidArgument;
      why = bad_schedule(schedule);
    } else if (m < 0 || n < 0) {
      code = ErrorCode::RegionOutOfRange;
      why = std::string(m < 0 ? "M = " + std::to_string(m) : "N = " + std::to_string(n)) + " is negative";
    }
    agree_sizes(dup.get(), code, why, m, n);
    if (m == 0 || n == 0) {
      g_last_error.clear();
      return REDIST_SUCCESS;
    }
    redist_desc none{};
    none.ctxt = -1;
    std::string msg = prior_msg;
    if (prior == ErrorCode::Ok && (!da || !db)) {
      prior = ErrorCode::NullBuffer;
      msg = std::string(!da ? "desca" : "descb") + " is NULL";
    }
    const DescPair p = layouts_agreed(dup.get(), da ? *da : none, db ? *db : none, prior, msg, std_desc, ia, ja, ib, jb);
    check_origin(p.ia, p.ja, m, n, p.a, names_a(std_desc));
    check_origin(p.ib, p.jb, m, n, p.b, names_b(std_desc));
    const Region g{m, n, p.ia - 1, p.ja - 1, p.ib - 1, p.jb - 1};  // ScaLAPACK's 1-based IA/JA
    redistribute<T>(dup.get(), p.a, static_cast<const T*>(a), p.lld_a, p.b, static_cast<T*>(b), p.lld_b, g,
                    static_cast<ScheduleKind>(schedule));
    g_last_error.clear();
    return REDIST_SUCCESS;
  } catch (const Error& e) {
    return fail_code(e.code(), e.what());
  } catch (const std::exception& e) {
    return fail_code(ErrorCode::Internal, e.what());
  }
}

int from_scalapack_checked(redist_desc* d, const int* desc, const char* name) {
  if (!desc) return fail_code(ErrorCode::NullBuffer, std::string(name) + " is NULL");
  const int rc = redist_desc_from_scalapack(d, desc);
  if (rc != REDIST_SUCCESS) g_last_error = std::string(name) + ": " + g_last_error;
  return rc;
}

// Standard DESCs converted here, so a conversion error on one process becomes the prior
// error of the collective call rather than an early return.
template <class T>
int std_desc_redistribute(std::int64_t m, std::int64_t n, const void* a, std::int64_t ia, std::int64_t ja,
                          const int* desca, void* b, std::int64_t ib, std::int64_t jb, const int* descb,
                          MPI_Comm comm, int schedule, ErrorCode prior = ErrorCode::Ok,
                          const std::string& prior_msg = "") {
  redist_desc da{}, db{};
  da.ctxt = db.ctxt = -1;
  std::string msg = prior_msg;
  if (prior == ErrorCode::Ok) {
    int rc = from_scalapack_checked(&da, desca, "DESCA");
    if (rc == 0) rc = from_scalapack_checked(&db, descb, "DESCB");
    prior = static_cast<ErrorCode>(rc);
    msg = g_last_error;
  }
  return c_redistribute<T>(m, n, a, ia, ja, &da, b, ib, jb, &db, comm, schedule, prior, msg, true);
}

Layout local_layout(const redist_desc& d) {
  // Index functions need no communicator: the grid shape comes from the descriptor.
  int nprow = d.nprow, npcol = d.npcol;
  if (d.ctxt >= 0) {
    int r = 0, c = 0;
    Cblacs_gridinfo(d.ctxt, &nprow, &npcol, &r, &c);
    if (nprow < 0)
      throw Error(ErrorCode::NotInGrid, "ctxt = " + std::to_string(d.ctxt) + " is not a BLACS grid context on this process");
  } else if (d.ctxt == -1 && !d.ranks && nprow == 0 && npcol == 0) {
    throw Error(ErrorCode::NotInGrid, "ctxt = -1: this process is not in the descriptor's grid, so it has no local part");
  }
  if (nprow <= 0 || npcol <= 0)
    throw Error(ErrorCode::InvalidLayout, "grid " + std::to_string(nprow) + " x " + std::to_string(npcol) + " is empty");
  std::vector<int> ranks(static_cast<std::size_t>(nprow) * static_cast<std::size_t>(npcol));
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

void check_dim(int dim) {
  if (dim != REDIST_ROWS && dim != REDIST_COLS)
    throw Error(ErrorCode::InvalidArgument, "dim = " + std::to_string(dim) +
                                                " is neither REDIST_ROWS (0) nor REDIST_COLS (1)");
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

using redist::Error;
using redist::ErrorCode;

extern "C" {

static int from_scalapack_into(redist_desc* d, const int desc[9]) {
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

static int init_blocks_into(redist_desc* d, int ctxt, int64_t nrow_blocks, const int64_t* row_blocks,
                            int64_t ncol_blocks, const int64_t* col_blocks, int rsrc, int csrc, int64_t lld) {
  return redist::guarded([&] {
    if (!d) throw Error(ErrorCode::NullBuffer, "d is NULL");
    *d = redist_desc{};
    d->ctxt = -1;
    if (ctxt < -1)
      throw Error(ErrorCode::InvalidArgument, "ctxt = " + std::to_string(ctxt) + " is neither a context nor -1");
    if (nrow_blocks < 0 || ncol_blocks < 0)
      throw Error(ErrorCode::InvalidLayout, std::string(nrow_blocks < 0 ? "nrow_blocks = " + std::to_string(nrow_blocks)
                                                                        : "ncol_blocks = " + std::to_string(ncol_blocks)) +
                                                " is negative");
    // A process outside the grid (ctxt -1) gets a "not in this grid" descriptor: the
    // grid's processes supply the layout in a redistribution, so nothing here is examined.
    if (ctxt >= 0 && ((nrow_blocks > 0 && !row_blocks) || (ncol_blocks > 0 && !col_blocks)))
      throw Error(ErrorCode::NullBuffer, std::string(nrow_blocks > 0 && !row_blocks ? "row_blocks" : "col_blocks") +
                                             " is NULL but its count is positive");
    d->ctxt = ctxt;
    // An empty dimension needs no list: a NULL pointer with count 0 is an empty list.
    d->nrow_blocks = row_blocks ? nrow_blocks : 0;
    d->ncol_blocks = col_blocks ? ncol_blocks : 0;
    d->row_blocks = row_blocks;
    d->col_blocks = col_blocks;
    d->mb = d->nb = 0;
    d->rsrc = rsrc;
    d->csrc = csrc;
    d->lld = lld;
    if (ctxt < 0) return;
    for (int64_t k = 0; k < nrow_blocks; ++k)
      if (row_blocks[k] <= 0 || __builtin_add_overflow(d->m, row_blocks[k], &d->m))
        throw Error(ErrorCode::InvalidLayout, "row_blocks[" + std::to_string(k) + "] = " + std::to_string(row_blocks[k]) +
                                                  (row_blocks[k] <= 0 ? " must be positive" : " makes m overflow 64 bits"));
    for (int64_t k = 0; k < ncol_blocks; ++k)
      if (col_blocks[k] <= 0 || __builtin_add_overflow(d->n, col_blocks[k], &d->n))
        throw Error(ErrorCode::InvalidLayout, "col_blocks[" + std::to_string(k) + "] = " + std::to_string(col_blocks[k]) +
                                                  (col_blocks[k] <= 0 ? " must be positive" : " makes n overflow 64 bits"));
    int r = 0, c = 0;
    Cblacs_gridinfo(ctxt, &d->nprow, &d->npcol, &r, &c);
    if (d->nprow < 0)
      throw Error(ErrorCode::NotInGrid, "ctxt = " + std::to_string(ctxt) + " is not a BLACS grid context on this process");
    (void)redist::local_layout(*d);  // validate now, naming the field
  });
}

// On failure the descriptor is left "not in this grid" (ctxt -1), never half-filled.
static int finish_desc(redist_desc* out, const redist_desc& made, int rc) {
  if (!out) return rc;
  if (rc == REDIST_SUCCESS) {
    *out = made;
  } else {
    *out = redist_desc{};
    out->ctxt = -1;
  }
  return rc;
}

int redist_desc_from_scalapack(redist_desc* d, const int desc[9]) {
  redist_desc made{};
  return finish_desc(d, made, from_scalapack_into(d ? &made : nullptr, desc));
}

int redist_desc_init_blocks(redist_desc* d, int ctxt, int64_t nrow_blocks, const int64_t* row_blocks,
                            int64_t ncol_blocks, const int64_t* col_blocks, int rsrc, int csrc, int64_t lld) {
  redist_desc made{};
  return finish_desc(d, made, init_blocks_into(d ? &made : nullptr, ctxt, nrow_blocks, row_blocks, ncol_blocks,
                                               col_blocks, rsrc, csrc, lld));
}

int redist_desc_to_scalapack(const redist_desc* d, int desc[9]) {
  return redist::guarded([&] {
    if (!d || !desc) throw Error(ErrorCode::NullBuffer, "d or desc is NULL");
    if (d->lld < INT_MIN || d->lld > INT_MAX)
      throw Error(ErrorCode::InvalidLayout, "lld = " + std::to_string(d->lld) + " does not fit a DESC int");
    const auto out = redist::local_layout(*d).to_desc(d->ctxt, static_cast<int>(d->lld));
    std::copy(out.begin(), out.end(), desc);
  });
}

int redist_numroc(const redist_desc* d, int dim, int iproc, int64_t* count) {
  return redist::guarded([&] {
    if (!d || !count) throw Error(ErrorCode::NullBuffer, std::string(!d ? "d" : "count") + " is NULL");
    redist::check_dim(dim);
    const auto l = redist::local_layout(*d);
    const int np = dim == REDIST_ROWS ? l.nprow : l.npcol;
    if (iproc < 0 || iproc >= np)
      throw Error(ErrorCode::InvalidArgument, "iproc = " + std::to_string(iproc) + " is outside [0, " +
                                                  (dim == REDIST_ROWS ? "nprow = " : "npcol = ") + std::to_string(np) + ")");
    *count = dim == REDIST_ROWS ? l.local_rows(iproc) : l.local_cols(iproc);
  });
}

int redist_g2l(const redist_desc* d, int dim, int64_t ig, int* iproc, int64_t* il) {
  return redist::guarded([&] {
    if (!d || !iproc || !il) throw Error(ErrorCode::NullBuffer, std::string(!d ? "d" : !iproc ? "iproc" : "il") + " is NULL");
    redist::check_dim(dim);
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
    if (!d || !ig) throw Error(ErrorCode::NullBuffer, std::string(!d ? "d" : "ig") + " is NULL");
    redist::check_dim(dim);
    const auto l = redist::local_layout(*d);
    const auto ax = dim == REDIST_ROWS ? l.row_axis() : l.col_axis();
    if (iproc < 0 || iproc >= ax.nprocs())
      throw Error(ErrorCode::InvalidArgument, "iproc = " + std::to_string(iproc) + " is outside [0, " +
                                                  std::to_string(ax.nprocs()) + ")");
    if (il < 1 || il > ax.local_count(iproc))
      throw Error(ErrorCode::RegionOutOfRange, "il = " + std::to_string(il) + " is outside [1, " +
                                                   std::to_string(ax.local_count(iproc)) + "] on process " +
                                                   std::to_string(iproc));
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
  // The communicator: BLACS's system communicator when gctxt spans every process of it
  // (the usual 1 x P or P x Q grid of all processes), so that a process whose gctxt is
  // invalid still takes part in the collective check and every process returns its error.
  // When gctxt covers only some processes, a process with an invalid gctxt cannot know
  // which processes wait for it: it returns alone (docs/redist.md, "Error contract").
  // Ranks in messages are BLACS process numbers (Cblacs_pinfo) either way.
  MPI_Comm world = MPI_COMM_NULL, grid = MPI_COMM_NULL;
  int rc = redist::guarded([&] {
    int sys = -1;
    Cblacs_get(0, 0, &sys);
    world = Cblacs2sys_handle(sys);
  });
  if (rc != REDIST_SUCCESS || world == MPI_COMM_NULL)
    return rc != REDIST_SUCCESS ? rc : redist::fail_code(ErrorCode::Mpi, "BLACS has no system communicator");
  ErrorCode prior = ErrorCode::Ok;
  std::string why;
  rc = redist::guarded([&] { grid = redist::blacs_grid_comm(gctxt); });
  if (rc != REDIST_SUCCESS) {
    prior = static_cast<ErrorCode>(rc);
    why = "gctxt = " + std::to_string(gctxt) + " is not a BLACS grid context on this process";
  }
  int wsize = 0, gsize = 0;
  MPI_Comm_size(world, &wsize);
  if (grid != MPI_COMM_NULL) MPI_Comm_size(grid, &gsize);
  if (grid == MPI_COMM_NULL || gsize == wsize)
    return redist::std_desc_redistribute<double>(m, n, a, ia, ja, desca, b, ib, jb, descb, world, schedule, prior, why);
  // Grid comm ranks named by their BLACS process numbers.
  MPI_Group gg, wg;
  MPI_Comm_group(grid, &gg);
  MPI_Comm_group(world, &wg);
  std::vector<int> in(static_cast<std::size_t>(gsize)), out(static_cast<std::size_t>(gsize));
  for (int k = 0; k < gsize; ++k) in[static_cast<std::size_t>(k)] = k;
  MPI_Group_translate_ranks(gg, gsize, in.data(), wg, out.data());
  MPI_Group_free(&gg);
  MPI_Group_free(&wg);
  redist::detail::RankNames names(out, "");
  return redist::std_desc_redistribute<double>(m, n, a, ia, ja, desca, b, ib, jb, descb, grid, schedule);
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
    redist::detail::DupComm dup(comm);  // MPI_COMM_NULL: InvalidArgument here, no one to tell
    // Collective from here: a local fault on one process is every process's error.
    ErrorCode prior = ErrorCode::Ok;
    std::string why;
    if (!desca || !descb || !stats) {
      prior = ErrorCode::NullBuffer;
      why = std::string(!desca ? "desca" : !descb ? "descb" : "stats") + " is NULL";
    } else if (!redist::valid_schedule(schedule)) {
      prior = ErrorCode::InvalidArgument;
      why = redist::bad_schedule(schedule);
    }
    redist_desc none{};
    none.ctxt = -1;
    int P = 0;
    MPI_Comm_size(dup.get(), &P);
    const auto p = redist::layouts_agreed(dup.get(), desca ? *desca : none, descb ? *descb : none, prior, why, false,
                                          1, 1, 1, 1);
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
    case REDIST_ERR_INVALID_ARGUMENT: return "invalid handle or enumeration value";
  }
  return "unknown error code";
}

}  // extern "C"
