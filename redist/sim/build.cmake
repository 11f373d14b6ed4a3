# SPDX-License-Identifier: BSD-3-Clause
# redist_sim (docs/measurements/scale.md, "Simulated at 256-4,096 processes"): redist's plan + execute path as a SimGrid
# SMPI program, built when smpicxx is found (Debian: libsimgrid-dev, in scripts/setup.sh).
# A separate CMake project (redist/sim/CMakeLists.txt) configured with smpicxx as its C++
# compiler; the binary is ${MALL_REDIST_SIM}. MALL_SIMGRID=OFF leaves it out.
option(MALL_SIMGRID "Build redist_sim with SimGrid's smpicxx when found" ON)
set(MALL_REDIST_SIM "" CACHE INTERNAL "redist_sim binary, empty without SimGrid")
if(NOT MALL_SIMGRID)
  return()
endif()
find_program(MALL_SMPICXX smpicxx)
find_program(MALL_SMPIRUN smpirun)
if(NOT MALL_SMPICXX OR NOT MALL_SMPIRUN)
  message(STATUS "redist_sim: smpicxx/smpirun not found (Debian: libsimgrid-dev); simulated runs will report SKIPPED")
  return()
endif()
include(ExternalProject)
ExternalProject_Add(redist_sim
  SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/redist-sim
  CMAKE_ARGS -DCMAKE_CXX_COMPILER=${MALL_SMPICXX} -DCMAKE_BUILD_TYPE=Release
             -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  USES_TERMINAL_BUILD OFF
  # its configure and build output in files (build/redist/redist_sim-prefix/src/
  # redist_sim-stamp/*.log), shown when a step fails: make's progress lines of this separate
  # build (its own 0-100%) interleaved with the main build's in scripts/setup.sh's counter
  LOG_CONFIGURE ON
  LOG_BUILD ON
  LOG_OUTPUT_ON_FAILURE ON)
set(MALL_REDIST_SIM ${CMAKE_BINARY_DIR}/redist-sim/redist_sim CACHE INTERNAL "redist_sim binary, empty without SimGrid")
