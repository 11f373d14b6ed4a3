# SPDX-License-Identifier: BSD-3-Clause
# Debian packages with CPack (`cpack -G DEB` in the build tree; test install.deb_packages).
# Per MPI flavour (docs/guide/mpi-flavours.md; <s> is empty for Open MPI, -mpich for MPICH):
#   libmalleable0<s>     component runtime: the shared libraries, malleable-config's answers
#                        for the flavour (share/malleable/config/<mpi>.sh)
#   libmalleable<s>-dev  component dev: the .so links, CMake package, pkg-config files
#   malleable<s>-tools   component tools: malleable-gridmap, malleable-calibrate and the
#                        resizable drivers in libexec/malleable[-mpich]
# and for both, the same package from either build:
#   malleable-common     component common: headers, Fortran modules and their sources,
#                        example sources, malleable-config, malleable-run, malleable-plot
# so the two flavours' packages install side by side (no file in two packages).
# Installed under /usr (lib/, not the multiarch directory: the prefix is relocatable and
# /usr/lib is on the loader's path). Library dependencies come from dpkg-shlibdeps; the
# -dev package adds the -dev packages its CMake and pkg-config files look up.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME malleable)
set(CPACK_PACKAGE_VENDOR "The malleable authors")
set(CPACK_PACKAGE_CONTACT "The malleable authors <malleable@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL runtime dev tools common)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Our own libraries depend on each other: dpkg-shlibdeps finds them in the build tree
# (same sonames as packaged) and leaves them to the component dependencies.
set(_mall_lib_dirs "")
foreach(_t blacs_dyn redist_plan redist gridmap cluster resize resize_meter redist_gemr2d redist_fortran gridmap_fortran resize_fortran)
  if(TARGET ${_t})
    get_target_property(_d ${_t} BINARY_DIR)
    list(APPEND _mall_lib_dirs ${_d})
  endif()
endforeach()
list(REMOVE_DUPLICATES _mall_lib_dirs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${_mall_lib_dirs})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENT_RUNTIME_DISPLAY_NAME "malleable runtime libraries")
set(CPACK_COMPONENT_DEV_DEPENDS runtime common)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime common)
if(MALLEABLE_MPI STREQUAL "mpich")
  set(_mall_deb_dev_mpi "libmpich-dev, libscalapack-mpich-dev")
  set(_mall_deb_mpi_bin "mpich")
else()
  set(_mall_deb_dev_mpi "libopenmpi-dev, libscalapack-openmpi-dev")
  set(_mall_deb_mpi_bin "openmpi-bin")
endif()
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libmalleable0${MALL_PACKAGE_SUFFIX})
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (runtime libraries, ${MALL_MPI_NAME})\n\
Dynamic BLACS (grow with MPI_Comm_spawn, shrink), redistribution of block-cyclic\n\
matrices between process grids, process mapping and the resize session.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libmalleable${MALL_PACKAGE_SUFFIX}-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${_mall_deb_dev_mpi}, libopenblas-dev, liblapacke-dev, pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (development files, ${MALL_MPI_NAME})\n\
The .so links, CMake package (find_package(malleable)) and pkg-config files; headers\n\
and Fortran modules are in malleable-common.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME malleable${MALL_PACKAGE_SUFFIX}-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${_mall_deb_mpi_bin}")
# With the arbiter (cluster/CMakeLists.txt), its configuration is a conffile: dpkg keeps an
# administrator's edits across upgrades and asks before replacing them. Its path is the one
# the packaged unit names (the full sysconfdir of the packaging prefix, /etc for /usr).
if(TARGET malleable-arbiterd)
  include(${PROJECT_SOURCE_DIR}/packaging/arbiter/arbiter_install.cmake)
  mall_arbiter_paths("${CPACK_PACKAGING_INSTALL_PREFIX}" "${CMAKE_INSTALL_SBINDIR}" "${CMAKE_INSTALL_SYSCONFDIR}"
                     "${CMAKE_INSTALL_DOCDIR}")
  file(WRITE ${PROJECT_BINARY_DIR}/packaging/tools/conffiles "${MALL_ARBITER_CONF}\n")
  # Its user made at install (packaging/arbiter/postinst: systemd-sysusers, in DPKG_ROOT under
  # dpkg --root), and what its path needs: MUNGE's daemon and Slurm's client commands.
  set(CPACK_DEBIAN_TOOLS_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/packaging/tools/conffiles
                                               ${PROJECT_SOURCE_DIR}/packaging/arbiter/postinst)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${_mall_deb_mpi_bin}, munge, slurm-client")
endif()
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (tools, ${MALL_MPI_NAME})\n\
malleable-gridmap, malleable-calibrate and the resizable PDGEMM/PDGEMV/PDGETRF/Life\n\
drivers.")
set(CPACK_DEBIAN_COMMON_PACKAGE_NAME malleable-common)
set(CPACK_DEBIAN_COMMON_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_COMMON_PACKAGE_SUGGESTS "gnuplot-nox")
set(CPACK_DEBIAN_COMMON_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (files shared by the MPI flavours)\n\
Headers, Fortran modules and their sources, example sources, and the scripts\n\
malleable-config, malleable-run and malleable-plot, the same for Open MPI and MPICH.")
include(CPack)
