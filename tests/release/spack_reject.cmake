# SPDX-License-Identifier: BSD-3-Clause
# The Spack recipe check must fail on a misspelt dependency and an unknown variant in
# `when=`: a copy of the recipe with both is rejected, naming them.
file(READ ${SRC}/packaging/spack/package.py recipe)
string(REPLACE "\"nlohmann-json@3:\"" "\"nlohman-json@3:\"" bad "${recipe}")
string(REPLACE "when=\"+hdf5\"" "when=\"+hdf\"" bad "${bad}")
file(WRITE ${OUT}/bad_package.py "${bad}")
execute_process(COMMAND python3 ${SRC}/tests/release/check_spack_package.py ${OUT}/bad_package.py
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "nlohman-json" OR NOT out MATCHES "no variant 'hdf'")
  message(FATAL_ERROR "the check accepted a bad recipe (rc ${rc}):\n${out}")
endif()
message(STATUS "bad recipe rejected:\n${out}")
