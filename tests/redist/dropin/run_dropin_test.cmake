# SPDX-License-Identifier: BSD-3-Clause
# Script mode (cmake -P): one unmodified ScaLAPACK program run four ways under mpiexec,
#   stock    the program linked with ScaLAPACK only (must not mention the drop-in)
#   linked   the same source linked with libmalleable_redist_gemr2d ahead of ScaLAPACK
#   preload  the stock binary with LD_PRELOAD=libmalleable_redist_gemr2d.so
#   forced   the linked binary with REDIST_GEMR2D=scalapack (the original must serve)
# with REDIST_GEMR2D_VERBOSE=1. Each run must succeed (the program checks its own results),
# every rank's dump must be byte-identical to the stock run's, and the verbose lines must
# show who served each entry point, once per process.
# In (lists |-separated): MPIEXEC, MPIEXEC_FLAGS, NP, STOCK, LINKED, DROPIN, WORKDIR,
#     SERVED (entries redist must serve), DECLINED (entries with a call redist must refuse
#     and ScaLAPACK must then serve). An entry in SERVED but not in DECLINED must never be
#     forwarded to ScaLAPACK (no "forwarded" line for it on any process).
foreach(v MPIEXEC NP STOCK LINKED DROPIN WORKDIR SERVED)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_dropin_test.cmake: ${v} not set")
  endif()
endforeach()
foreach(v MPIEXEC_FLAGS SERVED DECLINED)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
set(ENV{REDIST_GEMR2D_VERBOSE} 1)

function(run variant)
  cmake_parse_arguments(A "" "EXE" "MPIARGS;ENV" ${ARGN})
  unset(ENV{REDIST_GEMR2D})
  foreach(kv ${A_ENV})
    string(REGEX REPLACE "=.*" "" k "${kv}")
    string(REGEX REPLACE "^[^=]*=" "" val "${kv}")
    set(ENV{${k}} "${val}")
  endforeach()
  execute_process(
    COMMAND ${MPIEXEC} ${MPIEXEC_FLAGS} -n ${NP} ${A_MPIARGS} ${A_EXE} "${WORKDIR}/${variant}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 90)
  file(WRITE "${WORKDIR}/${variant}.log" "${out}${err}")
  message(STATUS "${variant}: exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${variant} run failed (exit ${rc}); log in ${WORKDIR}/${variant}.log")
  endif()
  set(${variant}_log "${out}${err}" PARENT_SCOPE)
endfunction()

# How many lines of `log` contain `text` (a literal).
function(count_lines log text outvar)
  string(REPLACE "\n" ";" lines "${log}")
  set(n 0)
  foreach(line IN LISTS lines)
    string(FIND "${line}" "${text}" pos)
    if(pos GREATER -1)
      math(EXPR n "${n} + 1")
    endif()
  endforeach()
  set(${outvar} ${n} PARENT_SCOPE)
endfunction()

function(expect_lines variant text want)
  count_lines("${${variant}_log}" "${text}" n)
  if(NOT n EQUAL want)
    message(FATAL_ERROR "${variant}: ${n} lines contain '${text}', expected ${want}")
  endif()
endfunction()

# NO_PRELOAD (the sanitizer build): an instrumented library cannot be preloaded into an
# uninstrumented binary (the ASan runtime must come first), so that variant is left out.
set(served_variants linked)
if(NOT NO_PRELOAD)
  list(APPEND served_variants preload)
endif()
run(stock EXE ${STOCK})
run(linked EXE ${LINKED})
if(NOT NO_PRELOAD)
  # Only the MPI processes get the preload, not the launcher: Open MPI's -x VAR=VALUE,
  # MPICH's -genv VAR VALUE (ENV_FLAG).
  if(ENV_FLAG STREQUAL "-genv")
    run(preload EXE ${STOCK} MPIARGS -genv LD_PRELOAD ${DROPIN})
  else()
    run(preload EXE ${STOCK} MPIARGS -x LD_PRELOAD=${DROPIN})
  endif()
endif()
run(forced EXE ${LINKED} ENV REDIST_GEMR2D=scalapack)

expect_lines(stock "redist_gemr2d:" 0)
foreach(variant ${served_variants})
  foreach(entry ${SERVED})
    expect_lines(${variant} ": ${entry} served by malleable redist" ${NP})
  endforeach()
  foreach(entry ${DECLINED})
    expect_lines(${variant} ": ${entry} forwarded to ScaLAPACK: redist declined" ${NP})
  endforeach()
  foreach(entry ${SERVED})
    list(FIND DECLINED "${entry}" at)
    if(at EQUAL -1)
      expect_lines(${variant} ": ${entry} forwarded to ScaLAPACK" 0)
    endif()
  endforeach()
endforeach()
expect_lines(forced "served by malleable redist" 0)
foreach(entry ${SERVED})
  expect_lines(forced ": ${entry} served by ScaLAPACK (REDIST_GEMR2D=scalapack)" ${NP})
endforeach()

math(EXPR last "${NP} - 1")
foreach(variant ${served_variants} forced)
  foreach(r RANGE ${last})
    set(ref "${WORKDIR}/stock.${r}")
    set(got "${WORKDIR}/${variant}.${r}")
    if(NOT EXISTS "${ref}" OR NOT EXISTS "${got}")
      message(FATAL_ERROR "missing dump ${ref} or ${got}")
    endif()
    file(SIZE "${ref}" size)
    if(size EQUAL 0)
      message(FATAL_ERROR "empty dump ${ref}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${ref}" "${got}" RESULT_VARIABLE diff)
    if(NOT diff EQUAL 0)
      message(FATAL_ERROR "${variant}: rank ${r}'s local arrays differ from the stock run (${got} vs ${ref})")
    endif()
  endforeach()
endforeach()
list(JOIN served_variants ", " _variants)
message(STATUS "stock, ${_variants} and forced runs: ${NP} dumps each, bit-identical")
