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

# The MPI flavour (docs/guide/mpi-flavours.md): Open MPI (default) or MPICH, each with Debian's
# ScaLAPACK (and parallel HDF5) built for it. Both flavours install side by side: MPICH's
# libraries go to their own directory (MALL_LIBDIR), Open MPI's keep the plain names.
set(MALLEABLE_MPI openmpi CACHE STRING "MPI flavour to build against: openmpi or mpich")
set_property(CACHE MALLEABLE_MPI PROPERTY STRINGS openmpi mpich)
if(MALLEABLE_MPI STREQUAL "openmpi")
  set(MALL_MPI_PACKAGES "libopenmpi-dev openmpi-bin")
  set(MALL_MPI_NAME "Open MPI")
  set(MALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
  set(MALL_PACKAGE_SUFFIX "")
elseif(MALLEABLE_MPI STREQUAL "mpich")
  set(MALL_MPI_PACKAGES "libmpich-dev mpich")
  set(MALL_MPI_NAME "MPICH")
  set(MALL_LIBDIR ${CMAKE_INSTALL_LIBDIR}/malleable-mpich)
  set(MALL_PACKAGE_SUFFIX "-mpich")
  # Debian's MPICH wrappers and launcher carry the .mpich suffix; the unsuffixed names
  # follow the system's default MPI (update-alternatives), which may be Open MPI.
  foreach(_lang C CXX Fortran)
    set(_wrapper_C mpicc.mpich)
    set(_wrapper_CXX mpicxx.mpich)
    set(_wrapper_Fortran mpif90.mpich)
    if(NOT MPI_${_lang}_COMPILER)
      find_program(MPI_${_lang}_COMPILER NAMES ${_wrapper_${_lang}})
    endif()
  endforeach()
  if(NOT MPIEXEC_EXECUTABLE)
    find_program(MPIEXEC_EXECUTABLE NAMES mpiexec.mpich mpiexec.hydra)
  endif()
else()
  message(FATAL_ERROR "malleable: MALLEABLE_MPI must be openmpi or mpich, got '${MALLEABLE_MPI}'")
endif()

find_package(MPI COMPONENTS C CXX Fortran)
mall_require(MPI_FOUND "MPI (${MALL_MPI_NAME}; C, C++ and Fortran bindings)" "${MALL_MPI_PACKAGES}")
# The wrappers found must be the flavour asked for: mixing the two MPIs in one process
# fails at run time in ways that are hard to read.
string(FIND "${MPI_C_LIBRARIES}" "mpich" _mall_is_mpich)
if(MALLEABLE_MPI STREQUAL "mpich" AND _mall_is_mpich EQUAL -1)
  message(FATAL_ERROR "malleable: MALLEABLE_MPI=mpich but FindMPI found ${MPI_C_LIBRARIES} "
                      "(MPI_C_COMPILER=${MPI_C_COMPILER}); install ${MALL_MPI_PACKAGES} or point "
                      "MPI_C_COMPILER/MPI_CXX_COMPILER/MPI_Fortran_COMPILER at the MPICH wrappers")
elseif(MALLEABLE_MPI STREQUAL "openmpi" AND NOT _mall_is_mpich EQUAL -1)
  message(FATAL_ERROR "malleable: MALLEABLE_MPI=openmpi but FindMPI found MPICH (${MPI_C_LIBRARIES}); "
                      "configure with -DMALLEABLE_MPI=mpich, or point MPI_C_COMPILER at mpicc.openmpi")
endif()

# ScaLAPACK (with BLACS and PBLAS) built for the same MPI.
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_SCALAPACK QUIET scalapack-${MALLEABLE_MPI})
endif()
find_library(MALL_SCALAPACK_LIBRARY
  NAMES scalapack-${MALLEABLE_MPI}
  HINTS ${PC_SCALAPACK_LIBRARY_DIRS})
mall_require(MALL_SCALAPACK_LIBRARY "ScaLAPACK for ${MALL_MPI_NAME}" "libscalapack-${MALLEABLE_MPI}-dev")

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
  # libscalapack-<flavour>.so carries its own dependency on the MPI library (BLACS is C).
  add_library(mall::scalapack INTERFACE IMPORTED GLOBAL)
  set_target_properties(mall::scalapack PROPERTIES
    INTERFACE_LINK_LIBRARIES "${MALL_SCALAPACK_LIBRARY};${MALL_OPENBLAS_LIBRARY};MPI::MPI_C")
  add_library(mall::lapacke INTERFACE IMPORTED GLOBAL)
  set_target_properties(mall::lapacke PROPERTIES
    INTERFACE_LINK_LIBRARIES "${MALL_LAPACKE_LIBRARY};${MALL_OPENBLAS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${MALL_LAPACKE_INCLUDE_DIR};${MALL_CBLAS_INCLUDE_DIR}")
endif()

# Parallel HDF5 for checkpoint/restart: Debian's build for the flavour's MPI
# (hdf5-openmpi or hdf5-mpich), through its pkg-config file (the serial libhdf5-dev has
# no MPI-IO driver; the other MPI's HDF5 would load a second MPI into the process).
if(PKG_CONFIG_FOUND)
  pkg_check_modules(MALL_HDF5 QUIET IMPORTED_TARGET GLOBAL hdf5-${MALLEABLE_MPI})
endif()
mall_require(MALL_HDF5_FOUND "parallel HDF5 (${MALLEABLE_MPI})" "libhdf5-${MALLEABLE_MPI}-dev")

# OpenSSL's libcrypto: the HMAC-SHA256 proofs of growing by joining (blacs-dyn).
find_package(OpenSSL QUIET COMPONENTS Crypto)
mall_require(OpenSSL_FOUND "OpenSSL's libcrypto" "libssl-dev")

find_package(nlohmann_json 3 QUIET)
mall_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")
find_package(CLI11 QUIET)
mall_require(CLI11_FOUND "CLI11" "libcli11-dev")

if(MALL_BUILD_TESTS)
  find_package(GTest QUIET)
  mall_require(GTest_FOUND "GoogleTest" "libgtest-dev")
  set(MALL_MPIEXEC "${MPIEXEC_EXECUTABLE}" CACHE FILEPATH "MPI launcher of the chosen flavour")
  message(STATUS "malleable: MPI flavour ${MALLEABLE_MPI}: ${MPI_C_LIBRARIES}, ${MALL_SCALAPACK_LIBRARY}, launcher ${MPIEXEC_EXECUTABLE}")
endif()
