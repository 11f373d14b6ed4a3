// SPDX-License-Identifier: BSD-3-Clause
// C interface (redist.h) and the BLACS bridge (blacs.hpp). Descriptors naming BLACS
// contexts are resolved collectively into Layouts, then the C++ execution layer runs.
#include "c_api_detail.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/redist/blacs.hpp"
#include "malleable/redist/redist.h"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/scalapack_api.h"
#include "mpi_guard.hpp"

namespace redist {
namespace capi {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

int fail_code(ErrorCode c, const std::string& msg) {
  last_error() = msg;
  return static_cast<int>(c);
}

}  // namespace capi

using namespace capi;

namespace {

// The PDGEMR2D-shaped entry points. Order of examination (docs/reference/redist.md, "Error
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
      last_error().clear();
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
    // The caller's communicator (redistribute works on its own duplicate): the node map and
    // the oversubscription check are cached on it, so a drop-in caller's next call finds them.
    redistribute<T>(comm, p.a, static_cast<const T*>(a), p.lld_a, p.b, static_cast<T*>(b), p.lld_b, g,
                    static_cast<ScheduleKind>(schedule));
    last_error().clear();
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
  if (rc != REDIST_SUCCESS) last_error() = std::string(name) + ": " + last_error();
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
    msg = last_error();
  }
  return c_redistribute<T>(m, n, a, ia, ja, &da, b, ib, jb, &db, comm, schedule, prior, msg, true);
}

}  // namespace

Layout capi::local_layout(const redist_desc& d) {
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

namespace {

template <class F>
int guarded(F&& f) {
  try {
    f();
    last_error().clear();
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

}  // namespace redist


using redist::Error;
using redist::ErrorCode;

extern "C" {

static int from_scalapack_into(redist_desc* d, const int desc[9]) {
  return redist::guarded([&] {
    if (!d || !desc) throw Error(ErrorCode::NullBuffer, "d or desc is NULL");
    *d = redist_desc{};
    d->ctxt = -1;
    // A process outside the grid (CTXT_ -1): as PDGEMR2D, no other entry is read, so a
    // DESC of nine -1 (CP2K) or of anything else there is a "not in this grid" descriptor.
    if (redist::desc_outside_grid(desc)) return;
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
  // which processes wait for it: it returns alone (docs/reference/redist.md, "Error contract").
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
    // This rank's own plan, O(its partners); the job's figures by reductions:
    // sums of what each rank keeps / sends / its sends, maxima of sent and received, and
    // the steps as the distinct step numbers over the job's span of them.
    int me = 0;
    MPI_Comm_rank(dup.get(), &me);
    const auto plan = redist::make_plan(p.a, p.b, redist::Region::whole(p.a), P,
                                        static_cast<redist::ScheduleKind>(schedule), me);
    const auto& s = plan.stats;
    std::int64_t sends = 0;
    for (const auto& t : plan.transfers) sends += t.src == me && t.dst != me;
    std::int64_t sum[3] = {s.elements_local, s.sent, sends};
    redist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, sum, 3, MPI_INT64_T, MPI_SUM, dup.get()), "MPI_Allreduce (stats)");
    constexpr std::int64_t kNone = INT64_MIN;
    const bool any = !plan.step_ids.empty();
    std::int64_t max[4] = {s.sent, s.received, any ? -plan.step_ids.front() : kNone, any ? plan.step_ids.back() : kNone};
    redist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, max, 4, MPI_INT64_T, MPI_MAX, dup.get()), "MPI_Allreduce (stats)");
    int steps = 0;
    if (max[3] != kNone) {
      const std::int64_t lo = -max[2];
      std::vector<unsigned char> used(static_cast<std::size_t>(max[3] - lo + 1), 0);
      for (const auto id : plan.step_ids) used[static_cast<std::size_t>(id - lo)] = 1;
      redist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, used.data(), static_cast<int>(used.size()), MPI_UNSIGNED_CHAR,
                                      MPI_MAX, dup.get()),
                        "MPI_Allreduce (stats)");
      for (const auto u : used) steps += u;
    }
    *stats = redist_stats{s.elements_total, sum[0], sum[1], sum[2], max[0], max[1], steps};
  });
}

const char* redist_error_message(void) { return redist::capi::last_error().c_str(); }

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
