# SPDX-License-Identifier: BSD-3-Clause
# Which MPI a project that consumes malleable uses: openmpi or mpich (or "" when unknown).
# Shared by the installed package's version and config files (docs/guide/mpi-flavours.md).
# Order: an explicit MALLEABLE_MPI; the libraries FindMPI found; the MPI compiler wrappers
# the project named; the project's compiler if it is a wrapper (CC=mpicc.mpich); else the
# wrapper FindMPI would pick (mpicc in PATH, through Debian's alternatives), i.e. the
# system's default MPI. A wrapper is asked what it is (Open MPI's `-showme:version` says
# "Open MPI", MPICH's `-show` names -lmpich), not judged by its file name: Debian's mpicc
# resolves to /usr/bin/opal_wrapper, which names neither MPI.

# malleable_mpi_of_wrapper(<out> <wrapper>): openmpi, mpich or "" for one compiler wrapper.
function(malleable_mpi_of_wrapper out wrapper)
  set(${out} "" PARENT_SCOPE)
  if(NOT wrapper OR NOT EXISTS "${wrapper}")
    return()
  endif()
  execute_process(COMMAND "${wrapper}" -showme:version OUTPUT_VARIABLE _said ERROR_VARIABLE _said
                  RESULT_VARIABLE _rc TIMEOUT 20)
  if(_rc EQUAL 0 AND _said MATCHES "Open MPI")
    set(${out} openmpi PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND "${wrapper}" -show OUTPUT_VARIABLE _said ERROR_VARIABLE _said
                  RESULT_VARIABLE _rc TIMEOUT 20)
  if(_rc EQUAL 0 AND _said MATCHES "-lmpich|/mpich")
    set(${out} mpich PARENT_SCOPE)
  elseif(_rc EQUAL 0 AND _said MATCHES "-lmpi([ \t\n]|$)|openmpi")
    set(${out} openmpi PARENT_SCOPE)
  endif()
endfunction()

# malleable_mpi_of_libraries(<out> <libraries>): openmpi, mpich or "" from MPI library paths.
function(malleable_mpi_of_libraries out libs)
  if(libs MATCHES "mpich")
    set(${out} mpich PARENT_SCOPE)
  elseif(libs MATCHES "openmpi|libmpi\\.so|ompi")
    set(${out} openmpi PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# malleable_detect_mpi_flavour(<out> [FOUND]): the consumer's MPI. With FOUND (after
# find_package(MPI)) only the MPI actually found counts: its libraries, else its wrappers.
function(malleable_detect_mpi_flavour out)
  set(_found_only FALSE)
  list(FIND ARGN FOUND _i)  # (not IN_LIST: this file runs under the consumer's policies)
  if(NOT _i EQUAL -1)
    set(_found_only TRUE)
  endif()
  if(MALLEABLE_MPI AND NOT _found_only)
    set(${out} "${MALLEABLE_MPI}" PARENT_SCOPE)
    return()
  endif()
  set(_libs "")
  foreach(_lang C CXX Fortran)
    if(MPI_${_lang}_LIBRARIES)
      string(APPEND _libs " ${MPI_${_lang}_LIBRARIES}")
    endif()
  endforeach()
  if(_libs)
    malleable_mpi_of_libraries(_mpi "${_libs}")
    set(${out} "${_mpi}" PARENT_SCOPE)
    return()
  endif()
  foreach(_lang C CXX Fortran)
    if(MPI_${_lang}_COMPILER)
      set(_wrapper "${MPI_${_lang}_COMPILER}")
      if(NOT IS_ABSOLUTE "${_wrapper}")
        unset(_mall_named_wrapper)  # find_program(NO_CACHE) keeps a value already set
        find_program(_mall_named_wrapper NAMES "${_wrapper}" NO_CACHE)
        set(_wrapper "${_mall_named_wrapper}")
      endif()
      malleable_mpi_of_wrapper(_mpi "${_wrapper}")
      if(_mpi)
        set(${out} "${_mpi}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  # A project compiled with an MPI wrapper as its compiler (CC=mpicc.mpich): FindMPI takes
  # that compiler's MPI.
  foreach(_lang C CXX Fortran)
    if(CMAKE_${_lang}_COMPILER)
      malleable_mpi_of_wrapper(_mpi "${CMAKE_${_lang}_COMPILER}")
      if(_mpi)
        set(${out} "${_mpi}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  if(_found_only)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  unset(_mall_default_mpicc)
  find_program(_mall_default_mpicc NAMES mpicc NO_CACHE)
  malleable_mpi_of_wrapper(_mpi "${_mall_default_mpicc}")
  set(${out} "${_mpi}" PARENT_SCOPE)
endfunction()
