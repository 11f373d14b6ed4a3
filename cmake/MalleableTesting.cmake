# SPDX-License-Identifier: BSD-3-Clause
# Test helpers. Labels: unit (pure, no MPI), mpi, fortran, bench (not in the default run).
# Every MPI test runs under the flavour's mpiexec (MALL_MPIEXEC_FLAGS) with a timeout, so a
# hang fails. Label mpich: the tests the MPICH flavour's build runs (scripts/test.sh).
include(GoogleTest)

# Launcher options and environment differ between the flavours (docs/guide/mpi-flavours.md):
# Open MPI's mpiexec needs --oversubscribe and passes variables with -x VAR; MPICH's
# hydra oversubscribes a single host by itself, passes the whole environment, and sets one
# variable with -genv VAR VALUE. Test scripts read the flavour, the flags and the
# environment flag from MALL_MPI_FLAVOUR, MALL_MPIEXEC_FLAGS and MALL_MPIEXEC_ENV_FLAG.
set(MALL_MPI_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # the sessions' resize history stays in the build tree, not the user's cache
  RESIZE_HISTORY=${CMAKE_BINARY_DIR}/test-resize-history.json
  MALL_MPI_FLAVOUR=${MALLEABLE_MPI})
if(MALLEABLE_MPI STREQUAL "mpich")
  set(MALL_MPIEXEC_FLAGS -bind-to none)
  set(MALL_MPIEXEC_ENV_FLAG -genv)
else()
  list(APPEND MALL_MPI_TEST_ENV
    # spawned processes may oversubscribe the two cores too
    OMPI_MCA_rmaps_base_oversubscribe=1
    # oversubscribed ranks must yield the CPU while they poll
    OMPI_MCA_mpi_yield_when_idle=1
    OMPI_MCA_btl_vader_single_copy_mechanism=none)
  set(MALL_MPIEXEC_FLAGS --oversubscribe --bind-to none)
  set(MALL_MPIEXEC_ENV_FLAG -x)
endif()
list(JOIN MALL_MPIEXEC_FLAGS " " _mall_flags_text)
list(APPEND MALL_MPI_TEST_ENV "MALL_MPIEXEC_FLAGS=${_mall_flags_text}"
                              "MALL_MPIEXEC_ENV_FLAG=${MALL_MPIEXEC_ENV_FLAG}"
                              # the launcher the tests run: the built malleable-run
                              "MALL_LAUNCHER=$<TARGET_FILE:malleable-run>")

# The programs the tests labelled mpich need: scripts/test.sh builds only this target in
# the MPICH flavour's build folder (build-mpich), then runs `ctest -L mpich` there, and
# the unit tests of redist, gridmap and blacs-dyn by name (MALL_MPICH_UNIT_TESTS: labels
# given through gtest_discover_tests do not survive its list handling).
add_custom_target(mall_mpich_suite)
function(mall_mpich_suite_needs)
  add_dependencies(mall_mpich_suite ${ARGN})
endfunction()
mall_mpich_suite_needs(malleable-run)

# Tests that need the libraries' test hooks (MALL_TEST_HOOKS, top CMakeLists.txt: resize's
# RESIZE_FAULT fault injection): where the hooks are not compiled in, such a test is not
# run (DISABLED: ctest reports it "Not Run (Disabled)"), labelled needs_test_hooks
# (`ctest -N -L needs_test_hooks` lists them), and the configure step says how many.
# A folder names the tests whose scripts or programs set RESIZE_FAULT themselves with
# mall_needs_test_hooks(test...); a test given RESIZE_FAULT in its ENVIRONMENT is found
# when its folder is done (mall_tag_tests); MALL_TEST_HOOK_TESTS names those of folders
# that cannot say it themselves (the emulated cluster's, registered by cluster_test).
set(MALL_TEST_HOOK_TESTS
  "^cluster\\.(lost_node|lost_node_levels|lost_node_levels_corrupt|lost_node_slurm|lost_two_nodes_levels)$")
function(mall_needs_test_hooks)
  if(MALL_TEST_HOOKS OR NOT ARGN)
    return()
  endif()
  set_tests_properties(${ARGN} PROPERTIES DISABLED TRUE)
  set_property(TEST ${ARGN} APPEND PROPERTY LABELS needs_test_hooks)
  get_property(_n GLOBAL PROPERTY MALL_TESTS_WITHOUT_HOOKS)
  list(LENGTH ARGN _k)
  math(EXPR _n "0${_n} + ${_k}")
  set_property(GLOBAL PROPERTY MALL_TESTS_WITHOUT_HOOKS ${_n})
endfunction()
function(mall_test_hooks_by_environment test)
  if(MALL_TEST_HOOKS)
    return()
  endif()
  get_property(_env TEST ${test} PROPERTY ENVIRONMENT)
  get_property(_off TEST ${test} PROPERTY DISABLED)
  if(NOT _off AND (_env MATCHES "(^|;)RESIZE_FAULT=" OR test MATCHES "${MALL_TEST_HOOK_TESTS}"))
    mall_needs_test_hooks(${test})
  endif()
endfunction()
if(NOT MALL_TEST_HOOKS)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL mall_test_hooks_summary)
endif()
function(mall_test_hooks_summary)
  get_property(_n GLOBAL PROPERTY MALL_TESTS_WITHOUT_HOOKS)
  message(STATUS "MALL_TEST_HOOKS is OFF: ${_n} tests that inject faults are not run "
                 "(label needs_test_hooks, \"Not Run (Disabled)\")")
endfunction()

# Every test of a folder carries its name in MALL_CTEST_TEST, and so does every process it
# starts: tests/support/leftover_reaper.py (run by scripts/test.sh beside ctest) kills the
# processes a test left behind once it has ended, and names the test. A folder that adds
# tests calls mall_tag_tests_here() once; the names are set when the folder is done
# (cmake_language DEFER), so tests added after the call carry them too. suite.tests_tagged
# fails on a test without it (the unit tests, discovered from GoogleTest, start nothing).
function(mall_tag_tests)
  get_property(_tests DIRECTORY PROPERTY TESTS)
  foreach(_t IN LISTS _tests)
    mall_test_hooks_by_environment(${_t})
    set_property(TEST ${_t} APPEND PROPERTY ENVIRONMENT "MALL_CTEST_TEST=${_t}")
  endforeach()
endfunction()
macro(mall_tag_tests_here)
  get_property(_mall_tagged DIRECTORY PROPERTY MALL_TESTS_TAGGED)
  if(NOT _mall_tagged)
    set_property(DIRECTORY PROPERTY MALL_TESTS_TAGGED ON)
    cmake_language(DEFER CALL mall_tag_tests)
  endif()
endmacro()

# mall_add_unit_test(name SOURCES ... [LIBS ...] [PREFIX module.])
# Each GoogleTest case becomes one ctest test named PREFIX + Suite.Case, so that
# `ctest -R <module>` selects exactly one module's tests.
function(mall_add_unit_test name)
  cmake_parse_arguments(A "" "PREFIX" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest GTest::gtest_main
                        $<BUILD_INTERFACE:mall_build_flags>)
  gtest_discover_tests(${name} TEST_PREFIX "${A_PREFIX}"
                       PROPERTIES LABELS unit TIMEOUT 120 DISCOVERY_TIMEOUT 60)
endfunction()

# mall_add_python_test(name script timeout): `python3 <this folder>/<script>`, a unit test
# (pure Python, no MPI) under `timeout` seconds.
function(mall_add_python_test name script timeout)
  add_test(NAME ${name} COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/${script})
  set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT ${timeout})
endfunction()

# mall_add_mpi_test(name NP n (TARGET tgt | COMMAND cmd...) [ARGS ...] [TIMEOUT s]
#                   [LABELS ...] [ENV ...] [WORKDIR dir])
# Runs `mpiexec --oversubscribe -n NP <target> ARGS` with the root/oversubscription env.
function(mall_add_mpi_test name)
  cmake_parse_arguments(A "" "NP;TARGET;TIMEOUT;WORKDIR" "ARGS;LABELS;ENV;COMMAND" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  if(A_TARGET)
    set(_cmd $<TARGET_FILE:${A_TARGET}>)
  else()
    set(_cmd ${A_COMMAND})
  endif()
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MALL_MPIEXEC_FLAGS} ${MPIEXEC_NUMPROC_FLAG} ${A_NP}
                   ${_cmd} ${A_ARGS})
  set(_labels mpi ${A_LABELS})
  set_tests_properties(${name} PROPERTIES
    TIMEOUT ${A_TIMEOUT}
    LABELS "${_labels}"
    PROCESSORS 2
    ENVIRONMENT "${MALL_MPI_TEST_ENV};${A_ENV}")
  if(A_WORKDIR)
    set_tests_properties(${name} PROPERTIES WORKING_DIRECTORY ${A_WORKDIR})
  endif()
endfunction()

# An MPI GoogleTest executable: tests/support/mpi_gtest_main.cpp initialises MPI, prints
# from rank 0 only and fails the run if any rank failed.
function(mall_add_mpi_gtest name)
  cmake_parse_arguments(A "" "NP;TIMEOUT" "SOURCES;LIBS;LABELS;ENV;ARGS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} mall_mpi_gtest_main
                        $<BUILD_INTERFACE:mall_build_flags>)
  mall_add_mpi_test(${name} NP ${A_NP} TARGET ${name} TIMEOUT ${A_TIMEOUT}
                    LABELS ${A_LABELS} ENV ${A_ENV} ARGS ${A_ARGS})
endfunction()
