# SPDX-License-Identifier: BSD-3-Clause
# Installs the CMake package (find_package(malleable)) and the pkg-config files
# malleable.pc (C and C++) and malleable-fortran.pc (adds the Fortran module libraries).
include(CMakePackageConfigHelpers)
# MPICH flavour: lib/cmake/malleable-mpich, which find_package(malleable) also searches; its
# version file accepts only a consumer on the same MPI (malleable_MPI), so with both
# flavours in one prefix each consumer gets the one matching its MPI.
set(MALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/malleable${MALL_PACKAGE_SUFFIX})
install(EXPORT malleableTargets NAMESPACE malleable:: DESTINATION ${MALL_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/malleableConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/malleableConfig.cmake INSTALL_DESTINATION ${MALL_CMAKE_DIR}
  PATH_VARS MALL_FORTRAN_MODDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/malleableConfigVersionBase.cmake
  COMPATIBILITY SameMinorVersion)
configure_file(cmake/malleableConfigVersion.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/malleableConfigVersion.cmake @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/malleableConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/malleableConfigVersion.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/malleableConfigVersionBase.cmake
              ${PROJECT_SOURCE_DIR}/cmake/malleableMpiFlavour.cmake
        DESTINATION ${MALL_CMAKE_DIR} COMPONENT dev)

get_property(MALL_PC_LIBS GLOBAL PROPERTY MALL_PC_LIBS)
# blacs-dyn first: its BLACS entry points must come ahead of ScaLAPACK's.
if("-lmalleable_blacs_dyn" IN_LIST MALL_PC_LIBS)
  list(REMOVE_ITEM MALL_PC_LIBS -lmalleable_blacs_dyn)
  list(PREPEND MALL_PC_LIBS -lmalleable_blacs_dyn)
endif()
list(JOIN MALL_PC_LIBS " " MALL_PC_LIBS)
get_property(MALL_PC_FORTRAN_LIBS GLOBAL PROPERTY MALL_PC_FORTRAN_LIBS)
list(JOIN MALL_PC_FORTRAN_LIBS " " MALL_PC_FORTRAN_LIBS)
# Relocatable: the prefix is found from the .pc file's own directory.
file(RELATIVE_PATH MALL_PC_UP "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" MALL_PC_UP "${MALL_PC_UP}")
# Per flavour: malleable.pc / malleable-fortran.pc (Open MPI), malleable-mpich.pc /
# malleable-mpich-fortran.pc (MPICH), each with a variable malleable_MPI.
if(MALLEABLE_MPI STREQUAL "mpich")
  set(MALL_PC_MPI_REQUIRES "mpich")
  set(MALL_PC_MPI_FORT_REQUIRES "mpich")
else()
  set(MALL_PC_MPI_REQUIRES "ompi-c")
  set(MALL_PC_MPI_FORT_REQUIRES "ompi-fort")
endif()
# ScaLAPACK by name, not through Debian's scalapack-<mpi>.pc: that one requires `mpi`,
# which follows the system's default MPI (update-alternatives), so malleable-mpich.pc
# would have linked Open MPI's libmpi.so.40 beside libmpich.
get_filename_component(_mall_scalapack_dir "${MALL_SCALAPACK_LIBRARY}" DIRECTORY)
set(MALL_PC_SCALAPACK_LIBS "-L${_mall_scalapack_dir} -lscalapack-${MALLEABLE_MPI}")
set(MALL_PC_DEP_MODULES "${MALL_PC_MPI_REQUIRES} lapacke lapack blas")
set(MALL_PC_NAME malleable${MALL_PACKAGE_SUFFIX})
foreach(_pc malleable malleable-fortran)
  string(REPLACE "malleable" "malleable${MALL_PACKAGE_SUFFIX}" _out ${_pc})
  configure_file(cmake/${_pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${_out}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${_out}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT dev)
endforeach()

# bin/malleable-config: full paths for LD_PRELOAD, flags, version and MPI, with the prefix
# found relative to the script (relocatable like the .pc files). The script is the same
# for both MPI flavours (both install it, same content); each flavour adds its answers
# as <datadir>/malleable/config/<mpi>.sh, and `malleable-config --mpi mpich` picks one.
file(RELATIVE_PATH MALL_CONFIG_UP "/${CMAKE_INSTALL_BINDIR}" "/")
string(REGEX REPLACE "/$" "" MALL_CONFIG_UP "${MALL_CONFIG_UP}")
if(NOT MALL_CONFIG_UP)
  set(MALL_CONFIG_UP ".")
endif()
set(MALL_CONFIG_FLAVOURS_DIR ${CMAKE_INSTALL_DATADIR}/malleable/config)
# Which MPI: the launcher says it (mpiexec --version: "mpiexec (OpenRTE) 4.1.4" for Open MPI,
# "HYDRA build details: Version: 4.0.2" for MPICH).
set(MALL_CONFIG_MPI "${MALLEABLE_MPI}")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mall_mpiexec_version
                ERROR_VARIABLE _mall_mpiexec_version RESULT_VARIABLE _rc TIMEOUT 20)
if(_mall_mpiexec_version MATCHES "(OpenRTE|Open MPI)\\)?[ \t]*([0-9][0-9.]*)")
  set(MALL_CONFIG_MPI "openmpi ${CMAKE_MATCH_2}")
elseif(_mall_mpiexec_version MATCHES "HYDRA.*Version:[ \t]*([0-9][0-9.a-z]*)")
  set(MALL_CONFIG_MPI "mpich ${CMAKE_MATCH_1}")
endif()
# The dependencies' flags as pkg-config gives them for the .pc files' Requires, plus
# ScaLAPACK; --libs then links a PBLAS program with a plain compiler too.
function(mall_pkg_config out)
  if(NOT PKG_CONFIG_EXECUTABLE)
    message(FATAL_ERROR "malleable: pkg-config not found (Debian package pkg-config)")
  endif()
  execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} ${ARGN} OUTPUT_VARIABLE _o
                  RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_VARIABLE _e)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "malleable: pkg-config ${ARGN} failed: ${_e}")
  endif()
  string(REGEX REPLACE "[ \t]+" " " _o "${_o}")
  set(${out} "${_o}" PARENT_SCOPE)
endfunction()
separate_arguments(_mall_dep_modules UNIX_COMMAND "${MALL_PC_DEP_MODULES}")
mall_pkg_config(MALL_DEP_CFLAGS --cflags ${_mall_dep_modules})
mall_pkg_config(_mall_dep_libs --libs ${_mall_dep_modules})
set(MALL_DEP_LIBS "${MALL_PC_SCALAPACK_LIBS} ${_mall_dep_libs}")
if(MALLEABLE_MPI STREQUAL "mpich")
  set(MALL_DEP_FORTRAN_FLAGS "-lmpichfort ${MALL_DEP_LIBS}")
else()
  mall_pkg_config(_mall_dep_fort --libs ompi-fort)
  set(MALL_DEP_FORTRAN_FLAGS "${_mall_dep_fort} ${MALL_DEP_LIBS}")
endif()
configure_file(cmake/malleable-config.in ${CMAKE_CURRENT_BINARY_DIR}/malleable-config @ONLY)
configure_file(cmake/malleable-config-flavour.sh.in
               ${CMAKE_CURRENT_BINARY_DIR}/malleable-config-${MALLEABLE_MPI}.sh @ONLY)
# The script in malleable-common, a flavour's answers with its libraries (so --preload
# works wherever the libraries are installed).
install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/malleable-config DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT common)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/malleable-config-${MALLEABLE_MPI}.sh
        DESTINATION ${MALL_CONFIG_FLAVOURS_DIR} RENAME ${MALLEABLE_MPI}.sh COMPONENT runtime)
