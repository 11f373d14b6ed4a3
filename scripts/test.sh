#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set-up (packages + build), then the whole default test suite: unit, mpi and fortran
# tests; benchmarks (label bench) are left out. MALL_SANITIZE=1 runs it under ASan+UBSan.
# Extra arguments go to ctest (e.g. -L unit, -R redist).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
build_dir=${BUILD_DIR:-build}
[[ "${MALL_SANITIZE:-0}" == 1 ]] && build_dir=${BUILD_DIR:-build-asan}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ "${MALL_SANITIZE:-0}" == 1 ]]; then
  # Open MPI keeps process-lifetime allocations that LeakSanitizer would report.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
cd "$here/$build_dir"
# --repeat after-timeout:2 reruns a test once only if it timed out: a safety net from when
# Debian 12's Open MPI 4.1.4 + PMIx 4.2 hung inside MPI_Comm_spawn (cured: blacs-dyn
# avoids PMIx's shared-memory store, docs/blacs-dyn.md). A test that fails is never rerun.
ctest -LE bench --output-on-failure -j 2 --repeat after-timeout:2 "$@"
