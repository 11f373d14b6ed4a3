// SPDX-License-Identifier: BSD-3-Clause
// The glue to ScaLAPACK 2.2's BLACS internals (BI_Iam, BI_Np, BI_COMM_WORLD, BI_AuxBuff,
// BI_Stats): the one file that knows their layout. It knows nothing of the runtime; the
// interposed entry points (interpose.cpp) and the runtime both call it.
#include <dlfcn.h>
#include <malloc.h>
#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "malleable/blacs_dyn/error.hpp"
#include "platform/blacs_glue.hpp"

// ---- ScaLAPACK 2.2 BLACS internals (BLACS/SRC/Bdef.h), with Int = int (32-bit) -------
// Only the globals are touched, never a function's private state. Layout of
// BLACBUFF as in Bdef.h; blacs-dyn/CMakeLists.txt checks the symbol sizes with nm.
extern "C" {
struct blacs_dyn_blacs_buffer {
  char* Buff;
  int Len;
  int nAops;
  MPI_Request* Aops;
  MPI_Datatype dtype;
  int N;
  blacs_dyn_blacs_buffer *prev, *next;
};
extern int BI_Iam;
extern int BI_Np;
extern int* BI_COMM_WORLD;  // Fortran handle of the world, malloc'ed by blacs_pinfo
extern blacs_dyn_blacs_buffer BI_AuxBuff;
extern MPI_Status* BI_Stats;
extern int BI_MaxNCtxt;        // slots in BI_MyContxts (0 after blacs_exit)
extern void** BI_MyContxts;    // BLACSCONTEXT* per context number, NULL when freed

}
// MPI_Datatype is a pointer in Open MPI (56 bytes in all) and an int in MPICH (48 bytes);
// blacs-dyn/CMakeLists.txt checks the library's BI_AuxBuff has the same size.
static_assert(sizeof(blacs_dyn_blacs_buffer) == (sizeof(MPI_Datatype) == 8 ? 56 : 48),
              "BLACBUFF layout of ScaLAPACK 2.2 (x86_64)");


namespace blacs_dyn {

void blacs_publish_world(MPI_Comm world, int rank, int size) {
  if (BI_COMM_WORLD == nullptr) BI_COMM_WORLD = static_cast<int*>(std::malloc(sizeof(int)));
  *BI_COMM_WORLD = static_cast<int>(MPI_Comm_c2f(world));
  BI_Iam = rank;
  BI_Np = size;
}

bool blacs_world_published() { return BI_COMM_WORLD != nullptr; }

namespace {
std::atomic<int> g_blacs_exits{0};
}
void blacs_note_exit() { g_blacs_exits.fetch_add(1); }
int blacs_exits() { return g_blacs_exits.load(); }
bool blacs_context_live(int ctxt) {
  return ctxt >= 0 && BI_MyContxts != nullptr && ctxt < BI_MaxNCtxt && BI_MyContxts[ctxt] != nullptr;
}

void blacs_sync_world(MPI_Comm world) {
  int r = 0, n = 0;
  MPI_Comm_rank(world, &r);
  MPI_Comm_size(world, &n);
  // BLACS sized these by BI_Np at the first blacs_gridmap after blacs_exit; contexts
  // that live across an expansion need them as large as the new world.
  if (BI_AuxBuff.Aops && malloc_usable_size(BI_AuxBuff.Aops) < n * sizeof(MPI_Request)) {
    auto* p = static_cast<MPI_Request*>(std::realloc(BI_AuxBuff.Aops, n * sizeof(MPI_Request)));
    if (!p) throw Error(BLACS_DYN_ERR_MPI, "out of memory growing BLACS request buffer");
    BI_AuxBuff.Aops = p;
  }
  if (BI_Stats && malloc_usable_size(BI_Stats) < n * sizeof(MPI_Status)) {
    auto* p = static_cast<MPI_Status*>(std::realloc(BI_Stats, n * sizeof(MPI_Status)));
    if (!p) throw Error(BLACS_DYN_ERR_MPI, "out of memory growing BLACS status buffer");
    BI_Stats = p;
  }
  BI_Iam = r;
  BI_Np = n;
  if (BI_COMM_WORLD) *BI_COMM_WORLD = static_cast<int>(MPI_Comm_c2f(world));
}

// Whether the program's global lookup of `name` lands in this library. (Comparing with
// &Cblacs_pinfo would not do: inside this library that address is also looked up
// globally.)
static bool resolves_here(const char* name) {
  void* sym = dlsym(RTLD_DEFAULT, name);
  Dl_info found{}, self{};
  return sym && dladdr(sym, &found) &&
         dladdr(reinterpret_cast<void*>(&blacs_world_published), &self) &&
         found.dli_fbase == self.dli_fbase;
}

bool blacs_entry_points_interposed() {
  return resolves_here("Cblacs_pinfo") && resolves_here("blacs_pinfo_") &&
         resolves_here("Cblacs_get") && resolves_here("blacs_get_");
}

bool finalize_interposed() { return resolves_here("MPI_Finalize"); }

void check_scalapack_version(bool allow_any) {
  Dl_info info{};
  if (!dladdr(static_cast<void*>(&BI_Np), &info) || !info.dli_fname) return;
  char resolved[PATH_MAX];
  const char* name = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  if (!std::strstr(name, ".so.2.2.") && !allow_any)
    std::fprintf(stderr,
                 "blacs-dyn: warning: BLACS internals come from %s; blacs-dyn was written "
                 "against ScaLAPACK 2.2.x (set BLACS_DYN_ALLOW_ANY_SCALAPACK=1 to silence)\n",
                 name);
}

}  // namespace blacs_dyn

