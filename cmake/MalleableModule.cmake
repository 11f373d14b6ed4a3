# SPDX-License-Identifier: BSD-3-Clause
# mall_add_library(<name> SOURCES ... [PUBLIC_LIBS ...] [PRIVATE_LIBS ...] [OUTPUT name])
# One library of the project: shared, include/ public, warnings on, exported as
# malleable::<name>, installed as libmalleable_<name> with its headers and listed in the
# pkg-config file (malleable.pc; malleable-fortran.pc for the *_fortran libraries).
# Installed libraries find their siblings through a run path relative to themselves
# ($ORIGIN), so no LD_LIBRARY_PATH is needed wherever the prefix is. They go to MALL_LIBDIR:
# the libdir for Open MPI, <libdir>/malleable-mpich for the MPICH flavour.
function(mall_add_library name)
  cmake_parse_arguments(A "" "OUTPUT" "SOURCES;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
  add_library(${name} SHARED ${A_SOURCES})
  add_library(malleable::${name} ALIAS ${name})
  set_property(GLOBAL APPEND PROPERTY MALL_INSTALLED_TARGETS ${name})
  if(NOT A_OUTPUT)
    set(A_OUTPUT "malleable_${name}")
  endif()
  set_target_properties(${name} PROPERTIES OUTPUT_NAME ${A_OUTPUT}
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    INSTALL_RPATH "$ORIGIN")
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_Fortran_MODULE_DIRECTORY}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<INSTALL_INTERFACE:${MALL_FORTRAN_MODDIR}>)
  # The project's helper targets (mall::scalapack, ...) stay inside the build; the
  # installed package config gives consumers what they stand for.
  list(TRANSFORM A_PUBLIC_LIBS REPLACE "^(mall::.*)$" "$<BUILD_INTERFACE:\\1>")
  target_link_libraries(${name} PUBLIC ${A_PUBLIC_LIBS}
                        PRIVATE ${A_PRIVATE_LIBS} $<BUILD_INTERFACE:mall_build_flags>)
  # Components (cmake/MalleablePackaging.cmake): runtime -> libmalleable0, dev ->
  # libmalleable-dev (the .so links, CMake and pkg-config files), tools ->
  # malleable-tools, common -> malleable-common (headers, Fortran modules: the same for
  # both MPI flavours).
  install(TARGETS ${name} EXPORT malleableTargets
          LIBRARY DESTINATION ${MALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
          ARCHIVE DESTINATION ${MALL_LIBDIR} COMPONENT dev
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
            COMPONENT common)
  endif()
  if(name MATCHES "_fortran$")
    set_property(GLOBAL APPEND PROPERTY MALL_PC_FORTRAN_LIBS -l${A_OUTPUT})
  elseif(name MATCHES "_meter$|_gemr2d$")
    # opt-in (kernel_meter.hpp; the PDGEMR2D drop-in replaces ScaLAPACK's symbols):
    # not linked into every pkg-config consumer
  else()
    set_property(GLOBAL APPEND PROPERTY MALL_PC_LIBS -l${A_OUTPUT})
  endif()
endfunction()

# A Fortran module target's .mod files are installed beside the headers, with the module
# sources (the full signatures a Fortran user reads).
function(mall_install_fortran_modules)
  install(DIRECTORY ${CMAKE_Fortran_MODULE_DIRECTORY}/ DESTINATION ${MALL_FORTRAN_MODDIR}
          COMPONENT common FILES_MATCHING PATTERN "*.mod")
  file(GLOB _sources ${CMAKE_CURRENT_SOURCE_DIR}/fortran/*.f90)
  install(FILES ${_sources} DESTINATION ${MALL_FORTRAN_MODDIR} COMPONENT common)
endfunction()

# mall_install_program(<target> DESTINATION <dir relative to the prefix>)
# Installs a program with a run path from its directory to the installed libraries.
# The MPICH flavour's programs go to libexec/malleable-mpich (docs/guide/mpi-flavours.md), so
# both flavours can share a prefix without one's programs replacing the other's.
function(mall_install_program target)
  cmake_parse_arguments(A "" "DESTINATION" "" ${ARGN})
  if(MALLEABLE_MPI STREQUAL "mpich")
    set(A_DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/malleable-mpich)
  endif()
  file(RELATIVE_PATH _rel "/${A_DESTINATION}" "/${MALL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${_rel}")
  set_property(GLOBAL APPEND PROPERTY MALL_INSTALLED_TARGETS ${target})
  install(TARGETS ${target} RUNTIME DESTINATION ${A_DESTINATION} COMPONENT tools)
endfunction()
