// SPDX-License-Identifier: BSD-3-Clause
// The part of blacs-dyn that reaches into ScaLAPACK 2.2's BLACS internals (BI_Iam,
// BI_Np, BI_COMM_WORLD, BI_AuxBuff, BI_Stats). Kept to one file so the version
// assumption sits in one place; blacs-dyn/CMakeLists.txt checks the symbol sizes at
// configure time and blacs_glue.cpp checks the library version at run time.
#ifndef BLACS_DYN_BLACS_GLUE_HPP
#define BLACS_DYN_BLACS_GLUE_HPP

#include <mpi.h>

namespace blacs_dyn {

// Makes BLACS' cached notion of the world match `world`: rank and size, the Fortran
// world handle, and the per-process request/status buffers grown to `size` if BLACS
// already allocated them (contexts can outlive a world change).
void blacs_sync_world(MPI_Comm world);

// True if this library's Cblacs_pinfo / MPI_Finalize are the ones the program calls,
// i.e. libmalleable_blacs_dyn was linked ahead of ScaLAPACK and MPI (or preloaded).
bool blacs_entry_points_interposed();
bool finalize_interposed();

// Warns once on stderr if the ScaLAPACK in use is not the 2.2.x this glue was written
// against.
void check_scalapack_version();

}  // namespace blacs_dyn
#endif
