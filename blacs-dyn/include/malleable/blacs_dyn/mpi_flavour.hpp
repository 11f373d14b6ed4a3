// SPDX-License-Identifier: BSD-3-Clause
// Which MPI library the job runs on, and what a failed MPI_Comm_spawn means there: pure
// functions over MPI_Get_library_version's text and the failure's error class (no mpi.h),
// so blacs-dyn asks the MPI instead of assuming Open MPI (docs/guide/mpi-flavours.md).
#pragma once

#include <string>
#include <string_view>

namespace blacs_dyn {

enum class MpiFlavour { OpenMpi, Mpich, Other };

// From MPI_Get_library_version: "Open MPI v4.1.4, ..." or "MPICH Version: 4.0.2 ..."
// (MPICH derivatives such as Intel MPI and MVAPICH name MPICH in it too).
MpiFlavour flavour_from_library_version(std::string_view version);
// "Open MPI 4.1.4", "MPICH 4.0.2": the library and its version, for messages.
std::string short_library_name(std::string_view version);

// How a failed MPI_Comm_spawn is reported to the caller.
enum class SpawnFailure {
  Refused,      // this request was refused (no such program, no slots): others may work
  Unsupported,  // this MPI cannot spawn here at all: further expansions are refused up front
};

// MPICH's hydra without a working process manager for dynamic processes (Debian 12's
// MPICH 4.0.2 here) fails every spawn with class MPI_ERR_OTHER and "Error in spawn call",
// whatever the program; a refused request has class MPI_ERR_SPAWN. Open MPI reports a
// refused request with MPI_ERR_SPAWN and its other failures are taken as refusals too.
SpawnFailure classify_spawn_failure(MpiFlavour flavour, bool class_is_err_spawn,
                                    std::string_view error_text);

// Open MPI's selected point-to-point layer (PML: "ucx", "ob1", "cm") from the file its
// module's functions live in ("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ucx.so");
// "" for a file whose name holds no "mca_pml_". The probe that finds the file (dladdr on Open
// MPI's `mca_pml` table) is inside libmalleable_blacs_dyn; its verdict is
// blacs_dyn::World::selected_pml().
std::string pml_from_component_file(std::string_view file);

// BLACS_DYN_SPAWN=0|off|no|false: the user declares the job cannot spawn (e.g. a launcher
// without dynamic processes): expansions are refused up front, nothing is attempted.
bool spawn_disabled_by_setting(const char* value);

}  // namespace blacs_dyn
