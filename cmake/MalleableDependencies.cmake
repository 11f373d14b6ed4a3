# SPDX-License-Identifier: BSD-3-Clause
# Every dependency comes from a Debian 12 package; a missing one stops configuration
# with the package name to install (scripts/setup.sh installs them all).
include(FindPackageHandleStandardArgs)
find_package(PkgConfig)

function(mall_require found what pkg)
  if(NOT ${found})
    message(FATAL_ERROR "malleable: ${what} not found. Install the Debian package(s): ${pkg}\n"
                        "  (scripts/setup.sh installs every dependency)")
  endif()
endfunction()

find_package(MPI COMPONENTS C CXX Fortran)
mall_require(MPI_FOUND "MPI (C, C++ and Fortran bindings)" "libopenmpi-dev openmpi-bin")

# ScaLAPACK (with BLACS and PBLAS) built for Open MPI.
set(_scalapack_lib "")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_SCALAPACK QUIET scalapack-openmpi)
endif()
find_library(MALL_SCALAPACK_LIBRARY
  NAMES scalapack-openmpi scalapack
  HINTS ${PC_SCALAPACK_LIBRARY_DIRS})
mall_require(MALL_SCALAPACK_LIBRARY "ScaLAPACK for Open MPI" "libscalapack-openmpi-dev")

find_library(MALL_OPENBLAS_LIBRARY NAMES openblas)
mall_require(MALL_OPENBLAS_LIBRARY "OpenBLAS" "libopenblas-dev")
find_library(MALL_LAPACKE_LIBRARY NAMES lapacke)
find_path(MALL_LAPACKE_INCLUDE_DIR NAMES lapacke.h PATH_SUFFIXES openblas)
mall_require(MALL_LAPACKE_LIBRARY "LAPACKE" "liblapacke-dev")
mall_require(MALL_LAPACKE_INCLUDE_DIR "lapacke.h" "liblapacke-dev")
find_path(MALL_CBLAS_INCLUDE_DIR NAMES cblas.h PATH_SUFFIXES openblas x86_64-linux-gnu/openblas-pthread)
mall_require(MALL_CBLAS_INCLUDE_DIR "cblas.h" "libopenblas-dev")

# Inside this build each library names the MPI component it is written in; the exported
# targets name no dependency: the installed package config attaches MPI (for the
# languages the consumer enabled: a C++-only project must not need MPI's Fortran
# bindings), ScaLAPACK and OpenBLAS to them, so consumers see only malleable:: targets.
foreach(_lang C CXX Fortran)
  set(MALL_MPI_${_lang} "$<BUILD_INTERFACE:MPI::MPI_${_lang}>")
endforeach()

if(NOT TARGET mall::scalapack)
  # libscalapack-openmpi.so carries its own dependency on libmpi (BLACS is C).
  add_library(mall::scalapack INTERFACE IMPORTED GLOBAL)
  set_target_properties(mall::scalapack PROPERTIES
    INTERFACE_LINK_LIBRARIES "${MALL_SCALAPACK_LIBRARY};${MALL_OPENBLAS_LIBRARY};MPI::MPI_C")
  add_library(mall::lapacke INTERFACE IMPORTED GLOBAL)
  set_target_properties(mall::lapacke PROPERTIES
    INTERFACE_LINK_LIBRARIES "${MALL_LAPACKE_LIBRARY};${MALL_OPENBLAS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${MALL_LAPACKE_INCLUDE_DIR};${MALL_CBLAS_INCLUDE_DIR}")
endif()

# Parallel HDF5 for checkpoint/restart (issue 20): Debian's Open MPI build, through its
# pkg-config file (the serial libhdf5-dev has no MPI-IO driver).
if(PKG_CONFIG_FOUND)
  pkg_check_modules(MALL_HDF5 QUIET IMPORTED_TARGET GLOBAL hdf5-openmpi)
endif()
mall_require(MALL_HDF5_FOUND "parallel HDF5 (Open MPI)" "libhdf5-openmpi-dev")

find_package(nlohmann_json 3 QUIET)
mall_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")
find_package(CLI11 QUIET)
mall_require(CLI11_FOUND "CLI11" "libcli11-dev")

if(MALL_BUILD_TESTS)
  find_package(GTest QUIET)
  mall_require(GTest_FOUND "GoogleTest" "libgtest-dev")
  find_program(MALL_MPIEXEC NAMES mpiexec mpirun HINTS ${MPIEXEC_EXECUTABLE})
endif()
