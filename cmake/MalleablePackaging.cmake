# SPDX-License-Identifier: BSD-3-Clause
# Debian packages with CPack (`cpack -G DEB` in the build tree; test install.deb_packages):
#   libmalleable0     component runtime: the shared libraries
#   libmalleable-dev  component dev: headers, .so links, CMake package, pkg-config files,
#                     Fortran modules and their sources, example sources
#   malleable-tools   component tools: malleable-config, malleable-plot, malleable-gridmap,
#                     malleable-calibrate and the resizable drivers in libexec/malleable
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
set(CPACK_COMPONENTS_ALL runtime dev tools)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Our own libraries depend on each other: dpkg-shlibdeps finds them in the build tree
# (same sonames as packaged) and leaves them to the component dependencies.
set(_mall_lib_dirs "")
foreach(_t blacs_dyn redist gridmap resize resize_meter redist_gemr2d redist_fortran gridmap_fortran resize_fortran)
  if(TARGET ${_t})
    get_target_property(_d ${_t} BINARY_DIR)
    list(APPEND _mall_lib_dirs ${_d})
  endif()
endforeach()
list(REMOVE_DUPLICATES _mall_lib_dirs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${_mall_lib_dirs})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENT_RUNTIME_DISPLAY_NAME "malleable runtime libraries")
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libmalleable0)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (runtime libraries)\n\
Dynamic BLACS (grow with MPI_Comm_spawn, shrink), redistribution of block-cyclic\n\
matrices between process grids, process mapping and the resize session.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libmalleable-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libopenmpi-dev, libscalapack-openmpi-dev, libopenblas-dev, liblapacke-dev, pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (development files)\n\
Headers, CMake package (find_package(malleable)), pkg-config files, Fortran modules\n\
and example sources.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME malleable-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "openmpi-bin, python3")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "gnuplot-nox")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "Malleable ScaLAPACK: resizable MPI applications (tools)\n\
malleable-config (paths for LD_PRELOAD, flags), malleable-plot, malleable-gridmap,\n\
malleable-calibrate and the resizable PDGEMM/PDGEMV/PDGETRF/Life drivers.")
include(CPack)
