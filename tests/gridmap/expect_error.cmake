# SPDX-License-Identifier: BSD-3-Clause
# cmake -DCMD=<exe> -DARGS="a|b|c" -DEXPECT=<regex> -P expect_error.cmake
# Passes only if the command exits with status 2 (a reported input error, not a crash)
# and its stderr matches EXPECT.
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit status 2, got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
