// SPDX-License-Identifier: BSD-3-Clause
// The part of blacs-dyn that reaches into ScaLAPACK 2.2's BLACS internals (BI_Iam,
// BI_Np, BI_COMM_WORLD, BI_AuxBuff, BI_Stats, BI_MaxNCtxt, BI_MyContxts). Kept to one file so the version
// assumption sits in one place; blacs-dyn/CMakeLists.txt checks the symbol sizes at
// configure time and blacs_glue.cpp checks the library version at run time. The
// interposed entry points that call it are in interpose.cpp; this file knows no runtime.
#ifndef BLACS_DYN_BLACS_GLUE_HPP
#define BLACS_DYN_BLACS_GLUE_HPP

#include <mpi.h>

namespace blacs_dyn {

// Publishes `world` as BLACS' world (BI_COMM_WORLD, allocated on first use, BI_Iam,
// BI_Np), as the stock blacs_pinfo does for MPI_COMM_WORLD.
void blacs_publish_world(MPI_Comm world, int rank, int size);
// Whether BLACS has a world handle yet (blacs_pinfo ran).
bool blacs_world_published();

// Makes BLACS' cached notion of the world match `world`: rank and size, the Fortran
// world handle, and the per-process request/status buffers grown to `size` if BLACS
// already allocated them (contexts can outlive a world change).
void blacs_sync_world(MPI_Comm world);

// BLACS' exits so far (counted by the interposed blacs_exit entry points), and whether
// `ctxt` is a live context in BLACS' table (BI_MaxNCtxt, BI_MyContxts). No MPI calls.
void blacs_note_exit();
int blacs_exits();
bool blacs_context_live(int ctxt);

// True if this library's Cblacs_pinfo / MPI_Finalize are the ones the program calls,
// i.e. libmalleable_blacs_dyn was linked ahead of ScaLAPACK and MPI (or preloaded).
bool blacs_entry_points_interposed();
bool finalize_interposed();

// Warns once on stderr if the ScaLAPACK in use is not the 2.2.x this glue was written
// against, unless `allow_any` (BLACS_DYN_ALLOW_ANY_SCALAPACK).
void check_scalapack_version(bool allow_any);

}  // namespace blacs_dyn
#endif
