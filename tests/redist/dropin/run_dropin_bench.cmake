# SPDX-License-Identifier: BSD-3-Clause
# Script mode (cmake -P): the PDGEMR2D-heavy program gemr2d_bench_program, run stock and
# with libmalleable_redist_gemr2d preloaded, alternating ROUNDS times (a load burst from
# other jobs then hits both alike); prints the fastest round trip of each side by side and
# fails if their checksums differ. docs/reference/redist.md "Drop-in PDGEMR2D" quotes its output.
# In (lists |-separated): MPIEXEC, MPIEXEC_FLAGS, PROGRAM, DROPIN, SIZES (N values), NB,
#     REPS, ROUNDS; PRELOAD_FIRST (optional: a library preloaded ahead of DROPIN, ASan's
#     runtime in sanitizer builds).
foreach(v MPIEXEC_FLAGS SIZES)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
unset(ENV{REDIST_GEMR2D})
unset(ENV{REDIST_GEMR2D_VERBOSE})

function(run_once n mpiargs outtime outsum)
  execute_process(COMMAND ${MPIEXEC} ${MPIEXEC_FLAGS} -n 4 ${mpiargs} ${PROGRAM} ${n} ${NB} ${REPS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "round_trip_s=([0-9.]+) checksum=([0-9a-f]+)")
    message(FATAL_ERROR "run failed (exit ${rc}):\n${out}${err}")
  endif()
  set(${outtime} ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${outsum} ${CMAKE_MATCH_2} PARENT_SCOPE)
endfunction()

# A decimal string of seconds as integer microseconds, for math(EXPR) and comparisons.
function(to_us s out)
  string(REGEX REPLACE "^([0-9]+)\\.([0-9]+)$" "\\1;\\2" parts "${s}")
  list(GET parts 0 whole)
  list(GET parts 1 frac)
  string(SUBSTRING "${frac}000000" 0 6 frac)
  string(REGEX MATCH "[1-9][0-9]*$" frac "${frac}")  # no leading zeros (REGEX REPLACE
  if(frac STREQUAL "")                                # re-anchors ^ after each match)
    set(frac 0)
  endif()
  math(EXPR us "${whole} * 1000000 + ${frac}")
  set(${out} ${us} PARENT_SCOPE)
endfunction()

set(table "| N | NB | change | stock PDGEMR2D | drop-in | stock / drop-in |\n|---|---|---|---|---|---|\n")
foreach(n ${SIZES})
  set(best_stock 999999999999)
  set(best_drop 999999999999)
  foreach(round RANGE 1 ${ROUNDS})
    run_once(${n} "" ts ss)
    if(PRELOAD_FIRST)  # sanitizer builds: ASan's runtime ahead of the drop-in
      run_once(${n} "-x;LD_PRELOAD=${PRELOAD_FIRST}:${DROPIN}" td sd)
    else()
      run_once(${n} "-x;LD_PRELOAD=${DROPIN}" td sd)
    endif()
    if(NOT ss STREQUAL sd)
      message(FATAL_ERROR "N=${n}: checksum stock ${ss} != drop-in ${sd}")
    endif()
    to_us(${ts} us_s)
    to_us(${td} us_d)
    message(STATUS "N=${n} round ${round}: stock ${ts} s, drop-in ${td} s (checksums equal)")
    if(us_s LESS best_stock)
      set(best_stock ${us_s})
    endif()
    if(us_d LESS best_drop)
      set(best_drop ${us_d})
    endif()
  endforeach()
  math(EXPR ratio100 "(${best_stock} * 100 + ${best_drop} / 2) / ${best_drop}")
  math(EXPR ri "${ratio100} / 100")
  math(EXPR rf "${ratio100} % 100")
  if(rf LESS 10)
    set(rf "0${rf}")
  endif()
  foreach(side stock drop)
    math(EXPR ms "${best_${side}} / 1000")
    math(EXPR tenth "(${best_${side}} / 100) % 10")
    set(${side}_ms "${ms}.${tenth}")
  endforeach()
  string(APPEND table "| ${n} | ${NB} | 2x2 -> 1x4 -> 2x2 | ${stock_ms} ms | ${drop_ms} ms | ${ri}.${rf}x |\n")
endforeach()
message("fastest round trip of ${REPS} repetitions x ${ROUNDS} alternating rounds, 4 ranks, time = slowest rank:\n${table}")
