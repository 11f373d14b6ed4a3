// SPDX-License-Identifier: BSD-3-Clause
// The MPI flavour from MPI_Get_library_version's text, and what a failed spawn means on it
// (blacs-dyn/include/malleable/blacs_dyn/mpi_flavour.hpp); texts as the two MPIs print them.
#include <gtest/gtest.h>

#include "malleable/blacs_dyn/mpi_flavour.hpp"

using namespace blacs_dyn;

namespace {
const char* kOpenMpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
const char* kMpich = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\n";
// MPI_Error_string of the failed MPI_Comm_spawn under Debian 12's MPICH 4.0.2 (this machine).
const char* kMpichSpawnError =
    "Other MPI error, error stack:\ninternal_Comm_spawn(101)....: MPI_Comm_spawn(command=./sp, "
    "argv=(nil), maxprocs=1, MPI_INFO_NULL, 0, MPI_COMM_SELF) failed\nMPID_Comm_spawn_multiple(86): "
    "Error in spawn call";
}  // namespace

TEST(MpiFlavour, RecognisesBothLibraries) {
  EXPECT_EQ(flavour_from_library_version(kOpenMpi), MpiFlavour::OpenMpi);
  EXPECT_EQ(flavour_from_library_version(kMpich), MpiFlavour::Mpich);
  EXPECT_EQ(flavour_from_library_version("Intel(R) MPI Library 2021.6 for Linux* OS"), MpiFlavour::Mpich);
  EXPECT_EQ(flavour_from_library_version("Some other MPI 1.0"), MpiFlavour::Other);
}

TEST(MpiFlavour, ShortNameKeepsTheVersion) {
  EXPECT_EQ(short_library_name(kOpenMpi), "Open MPI 4.1.4");
  EXPECT_EQ(short_library_name(kMpich), "MPICH 4.0.2");
  EXPECT_EQ(short_library_name("Foo MPI 2\nmore"), "Foo MPI 2");
}

TEST(MpiFlavour, MpichSpawnCallErrorMeansUnsupported) {
  EXPECT_EQ(classify_spawn_failure(MpiFlavour::Mpich, false, kMpichSpawnError), SpawnFailure::Unsupported);
}

TEST(MpiFlavour, RefusedRequestsStayRefusals) {
  // MPI_ERR_SPAWN (no such program, no slots) is about this request, on any MPI.
  EXPECT_EQ(classify_spawn_failure(MpiFlavour::Mpich, true, kMpichSpawnError), SpawnFailure::Refused);
  // Open MPI's failures are never taken as "cannot spawn at all".
  EXPECT_EQ(classify_spawn_failure(MpiFlavour::OpenMpi, false, kMpichSpawnError), SpawnFailure::Refused);
  EXPECT_EQ(classify_spawn_failure(MpiFlavour::Mpich, false, "Other MPI error: out of memory"),
            SpawnFailure::Refused);
}

TEST(MpiFlavour, SpawnSetting) {
  EXPECT_FALSE(spawn_disabled_by_setting(nullptr));
  EXPECT_FALSE(spawn_disabled_by_setting("1"));
  EXPECT_FALSE(spawn_disabled_by_setting("on"));
  EXPECT_TRUE(spawn_disabled_by_setting("0"));
  EXPECT_TRUE(spawn_disabled_by_setting("off"));
  EXPECT_TRUE(spawn_disabled_by_setting("no"));
}

TEST(MpiFlavour, PmlFromTheComponentsFile) {
  EXPECT_EQ(pml_from_component_file("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ucx.so"), "ucx");
  EXPECT_EQ(pml_from_component_file("/opt/ompi/lib/openmpi/mca_pml_ob1.so.0"), "ob1");
  EXPECT_EQ(pml_from_component_file("mca_pml_cm"), "cm");
  // A static build or another MPI: the table's functions live in the MPI library itself.
  EXPECT_EQ(pml_from_component_file("/usr/lib/x86_64-linux-gnu/libmpi.so.40"), "");
  EXPECT_EQ(pml_from_component_file(""), "");
}
