# SPDX-License-Identifier: BSD-3-Clause
# Script mode (cmake -P), run at every build: writes malleable/version.h with the git
# commit of the source tree, touching the file only when its content changes.
# In: MALL_SOURCE_DIR, MALL_OUT, MALL_VERSION.
set(MALL_GIT_COMMIT unknown)
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${MALL_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${MALL_SOURCE_DIR}" OUTPUT_VARIABLE _commit
                  RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0 AND _commit)
    set(MALL_GIT_COMMIT "${_commit}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${MALL_SOURCE_DIR}" OUTPUT_VARIABLE _dirty ERROR_QUIET)
    if(_dirty)
      string(APPEND MALL_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
string(REPLACE "." ";" _parts "${MALL_VERSION}")
list(GET _parts 0 MALL_VERSION_MAJOR)
list(GET _parts 1 MALL_VERSION_MINOR)
list(GET _parts 2 MALL_VERSION_PATCH)
configure_file("${CMAKE_CURRENT_LIST_DIR}/version.h.in" "${MALL_OUT}.tmp" @ONLY)
file(COPY_FILE "${MALL_OUT}.tmp" "${MALL_OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${MALL_OUT}.tmp")
