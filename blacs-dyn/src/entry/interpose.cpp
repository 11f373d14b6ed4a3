// SPDX-License-Identifier: BSD-3-Clause
// BLACS entry points of blacs-dyn (the BLACS internals they touch: blacs_glue.cpp).
//
// Interposition: libmalleable_blacs_dyn defines Cblacs_pinfo, blacs_pinfo_, Cblacs_setup,
// blacs_setup_, Cblacs_get, blacs_get_, Cblacs_exit, blacs_exit_, Cblacs_gridmap and
// blacs_gridmap_. Linked ahead of libscalapack-openmpi (or preloaded), the dynamic linker
// binds the program's calls *and ScaLAPACK's own internal calls* (they go through its
// PLT: Cblacs_gridmap calls Cblacs_pinfo, blacs_gridinit_ calls blacs_gridmap_, ...) to
// these definitions. Each one either answers with the current world or does its
// bookkeeping and forwards to the stock function found with dlsym(RTLD_NEXT).
// MPI_Init, MPI_Init_thread and MPI_Finalize are wrapped through the PMPI profiling
// interface for the join and the final release.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "malleable/blacs_dyn/error.hpp"
#include "entry/background_seat.hpp"
#include "platform/blacs_glue.hpp"
#include "platform/config.hpp"
#include "runtime/expand.hpp"
#include "runtime/runtime.hpp"

// BLACS' own handle conversions (exported by ScaLAPACK, not in a public header).
extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
MPI_Comm Cblacs2sys_handle(int handle);
}

namespace {

template <class F>
F real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr,
                 "blacs-dyn: cannot find the stock %s after libmalleable_blacs_dyn; link ScaLAPACK "
                 "after it\n",
                 name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

using cget_t = void (*)(int, int, int*);
using fget_t = void (*)(int*, int*, int*);
using cexit_t = void (*)(int);
using fexit_t = void (*)(int*);
using cmap_t = void (*)(int*, int*, int, int, int);
using fmap_t = void (*)(int*, int*, int*, int*, int*);

// BLACS entry points have no error return: like the stock BLACS (BI_BlacsErr), a
// failure to initialise or join is fatal.
void init_or_abort() {
  try {
    blacs_dyn::Runtime::get().ensure_init();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blacs-dyn: %s\n", e.what());
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// Stock blacs_pinfo, on the current world.
void pinfo(int* me, int* np) {
  auto& rt = blacs_dyn::Runtime::get();
  init_or_abort();
  const blacs_dyn::BackgroundExpansion* bg = blacs_dyn::calling_thread_background();
  const MPI_Comm w = rt.world(bg);
  if (w == MPI_COMM_NULL) {  // a process that left: it has no world until it exits
    *me = -1;
    *np = 0;
    return;
  }
  blacs_dyn::blacs_publish_world(w, rt.rank(bg), rt.size(bg));
  *me = rt.rank(bg);
  *np = rt.size(bg);
}

// blacs_setup (§3.3.4): after blacs_exit(1), expand as the schema file says; with no
// schema file, or in a newcomer (which joined at its first call), it is blacs_pinfo.
void setup(int* me, int* np) {
  auto& rt = blacs_dyn::Runtime::get();
  init_or_abort();
  if (rt.active() && rt.exited_since_change()) {
    blacs_dyn::BackgroundExpansion* bg = blacs_dyn::calling_thread_background();
    try {
      blacs_dyn::Expand(rt, bg).from_schema(nullptr, true);
    } catch (const blacs_dyn::Error& e) {
      blacs_dyn::set_last_error(e);
      if (rt.rank(bg) == 0)
        std::fprintf(stderr, "blacs_setup: %s; the world is unchanged\n", e.what());
    }
  }
  pinfo(me, np);
}

// The world SGET_SYSCONTXT answers with, published to BLACS first if need be.
MPI_Comm dyn_world() {
  int me = 0, np = 0;
  if (!blacs_dyn::blacs_world_published()) pinfo(&me, &np);
  auto& rt = blacs_dyn::Runtime::get();
  init_or_abort();
  return rt.world(blacs_dyn::calling_thread_background());
}

}  // namespace

extern "C" {

void Cblacs_pinfo(int* mypnum, int* nprocs) { pinfo(mypnum, nprocs); }
void blacs_pinfo_(int* mypnum, int* nprocs) { pinfo(mypnum, nprocs); }
void Cblacs_setup(int* mypnum, int* nprocs) { setup(mypnum, nprocs); }
void blacs_setup_(int* mypnum, int* nprocs) { setup(mypnum, nprocs); }

// what = 0 (SGET_SYSCONTXT) is "the world": a BLACS system handle in C, an MPI
// communicator handle in Fortran. Everything else is stock.
void Cblacs_get(int ctxt, int what, int* val) {
  static const auto stock = real<cget_t>("Cblacs_get");
  if (what == 0) {
    const MPI_Comm w = dyn_world();
    *val = w == MPI_COMM_NULL ? -1 : Csys2blacs_handle(w);
    return;
  }
  stock(ctxt, what, val);
}

void blacs_get_(int* ctxt, int* what, int* val) {
  static const auto stock = real<fget_t>("blacs_get_");
  if (*what == 0) {
    *val = static_cast<int>(MPI_Comm_c2f(dyn_world()));
    return;
  }
  stock(ctxt, what, val);
}

// blacs_exit(1) arms blacs_setup for an expansion (§3.3.3); blacs_exit(0) finalizes
// through our MPI_Finalize.
void Cblacs_exit(int not_done) {
  static const auto stock = real<cexit_t>("Cblacs_exit");
  blacs_dyn::blacs_note_exit();  // every context is freed (blacs_dyn::Grid's release)
  stock(not_done);
  if (not_done) blacs_dyn::Runtime::get().note_blacs_exit();
}

void blacs_exit_(int* not_done) {
  static const auto stock = real<fexit_t>("blacs_exit_");
  blacs_dyn::blacs_note_exit();
  stock(not_done);
  if (*not_done) blacs_dyn::Runtime::get().note_blacs_exit();
}

// Grids on the world are recorded on the stack (§3.3.5: "a stack of communicators along
// with the corresponding processor grid sizes").
void Cblacs_gridmap(int* ctxt, int* usermap, int ldup, int nprow, int npcol) {
  static const auto stock = real<cmap_t>("Cblacs_gridmap");
  const MPI_Comm sys = Cblacs2sys_handle(*ctxt);
  stock(ctxt, usermap, ldup, nprow, npcol);
  blacs_dyn::Runtime::get().note_grid(sys, nprow, npcol);
}

void blacs_gridmap_(int* ctxt, int* usermap, int* ldup, int* nprow, int* npcol) {
  static const auto stock = real<fmap_t>("blacs_gridmap_");
  const MPI_Comm sys = MPI_Comm_f2c(*ctxt);
  const int r = *nprow, c = *npcol;
  stock(ctxt, usermap, ldup, nprow, npcol);
  blacs_dyn::Runtime::get().note_grid(sys, r, c);
}

// ---- PMPI wrappers ----------------------------------------------------------------
// A newcomer joins as soon as MPI is up, whatever its first BLACS call is.
// A process of a job that grows by joining (BLACS_DYN_JOB_DIR) starts its side here too:
// a joining launch joins, the job writes its record and takes its start's launches.
int MPI_Init(int* argc, char*** argv) {
  blacs_dyn::prepare_mpi_init();
  if (blacs_dyn::read_config().join) blacs_dyn::Runtime::get().watch_newcomer_init();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && (blacs_dyn::read_config().join || blacs_dyn::read_join_config().job_dir)) init_or_abort();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  blacs_dyn::prepare_mpi_init();
  if (blacs_dyn::read_config().join) blacs_dyn::Runtime::get().watch_newcomer_init();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && (blacs_dyn::read_config().join || blacs_dyn::read_join_config().job_dir)) init_or_abort();
  return rc;
}

// Fortran's MPI_INIT (mpif.h, `use mpi`, `use mpi_f08`) calls PMPI_Init directly in Open
// MPI, past the wrappers above: these set the same environment first (prepare_mpi_init:
// PMIx's store, the MPI-IO shared-file-pointer components) and forward to the stock entry.
// The newcomer's join stays at its first BLACS call there, as before.
using finit_t = void (*)(MPI_Fint*);
using finit_thread_t = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
void mpi_init_(MPI_Fint* ierr) {
  static const auto stock = real<finit_t>("mpi_init_");
  blacs_dyn::prepare_mpi_init();
  stock(ierr);
}
void mpi_init__(MPI_Fint* ierr) {
  static const auto stock = real<finit_t>("mpi_init__");
  blacs_dyn::prepare_mpi_init();
  stock(ierr);
}
void mpi_init_f08_(MPI_Fint* ierr) {
  static const auto stock = real<finit_t>("mpi_init_f08_");
  blacs_dyn::prepare_mpi_init();
  stock(ierr);
}
void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  static const auto stock = real<finit_thread_t>("mpi_init_thread_");
  blacs_dyn::prepare_mpi_init();
  stock(required, provided, ierr);
}
void mpi_init_thread__(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  static const auto stock = real<finit_thread_t>("mpi_init_thread__");
  blacs_dyn::prepare_mpi_init();
  stock(required, provided, ierr);
}
void mpi_init_thread_f08_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  static const auto stock = real<finit_thread_t>("mpi_init_thread_f08_");
  blacs_dyn::prepare_mpi_init();
  stock(required, provided, ierr);
}

int MPI_Finalize(void) {
  try {
    blacs_dyn::Runtime::get().before_finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blacs-dyn: at MPI_Finalize: %s\n", e.what());
  }
  const int rc = PMPI_Finalize();
  blacs_dyn::Runtime::get().after_finalize();
  return rc;
}

// Fortran MPI_FINALIZE (mpif.h / use mpi) calls PMPI_Finalize directly in Open MPI.
void mpi_finalize_(MPI_Fint* ierr) {
  const int rc = MPI_Finalize();
  if (ierr) *ierr = static_cast<MPI_Fint>(rc);
}
void mpi_finalize__(MPI_Fint* ierr) { mpi_finalize_(ierr); }
// ... and so does `use mpi_f08`'s MPI_Finalize (ierror is optional: may be NULL).
void mpi_finalize_f08_(MPI_Fint* ierror) { mpi_finalize_(ierror); }

}  // extern "C"
