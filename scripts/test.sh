#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set-up (packages + build), then the whole default test suite: unit, mpi and fortran
# tests; benchmarks (label bench) and extra random walks (label walks) are left out.
# Fails too when the suite left a file in the source tree (tests/support/source_tree.sh).
# MALL_SANITIZE=1 runs it under ASan+UBSan.
# Then the MPICH flavour (docs/guide/mpi-flavours.md): configured in build-mpich with
# -DMALLEABLE_MPI=mpich, only what its tests need is built (target mall_mpich_suite), and
# the tests labelled mpich run there. MALL_MPICH=0 leaves it out (it is left out under
# the sanitizers). Fails if either flavour fails. Extra arguments go to both ctest runs
# (e.g. -L unit, -R redist).
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
# The source tree before the suite: a test must write into the build tree or a temporary
# folder, never the source tree (tests/support/source_tree.sh compares at the end). Python's byte
# code of the scripts the tests run goes to the build tree too.
tree_before=$here/$build_dir/source-tree-before.txt
"$here/tests/support/source_tree.sh" snapshot "$here" "$tree_before" || tree_before=""
export PYTHONPYCACHEPREFIX=$here/$build_dir/pycache
cd "$here/$build_dir"
# A test that times out is run once more, alone (-j 1), after the whole run, so that one
# hang does not cost the whole run; but a rerun never hides it: every test that needed a
# second try is named at the end (tests/support/suite_hangs.sh) with the count, and a test that
# timed out and then failed or timed out again fails the run. Debian 12's Open MPI 4.1.4 +
# PMIx can still hang inside MPI_Comm_spawn, mostly when two jobs spawn at once
# (measured rates in docs/reference/blacs-dyn.md, "The spawn hang"): the second try runs
# alone so that it tests the test, not the two-jobs hang again.
status=0
# Each ctest run is also written to a log; at the end the output of every failed test is
# printed again (its last 60 lines), so the end of the run says why (a CI shows the tail).
logs=()
run_ctest() {  # run_ctest <log> <ctest args...>
  local log=$1; shift
  logs+=("$log")
  ctest "$@" 2>&1 | tee "$log"
}
# The leftover reaper (tests/support/leftover_reaper.py): a process that outlives its test
# (an MPI process spinning in a hung spawn after ctest killed the test at its timeout)
# would take a core from every test after it; the reaper kills it and names the test in
# leftovers.log, printed at the end. It ends with this script.
leftovers=$here/$build_dir/leftovers.log
rm -f "$leftovers"
python3 "$here/tests/support/leftover_reaper.py" "$leftovers" &
reaper=$!
# A suite that runs long (the default run takes about 22 minutes on 2 cores) prints what
# is running and the last tests ctest finished (its CTestCheckpoint.txt, written as they
# end: ctest's own output reaches a pipe in blocks), every 10 minutes from minute 40
# (MALL_SUITE_LOOK_S): where a CI stops a run, its output shows what held it. It only
# looks; it ends with this script. (Not stdbuf on ctest: its LD_PRELOAD would reach every
# test's processes, and an ASan build refuses a library ahead of its runtime.)
# Its sleeps hold none of the run's output (a process left holding it would keep a CI
# waiting after the script ended), and it stops when the script is gone.
(
  sleep "${MALL_SUITE_LOOK_S:-2400}" </dev/null >/dev/null 2>&1
  while kill -0 $$ 2>/dev/null; do
    echo "=== test.sh: $(date -u +%T) the suite is still running; its processes (ps --forest) ==="
    ps -eo pid,ppid,etimes,stat,cmd --forest | grep -v '\[' | cut -c1-250 | tail -n 80
    for done_list in "$here"/build*/Testing/Temporary/CTestCheckpoint.txt; do
      [[ -f $done_list ]] || continue
      echo "--- the last tests ended ($done_list, by number):"
      names=$(cd "${done_list%/Testing/Temporary/CTestCheckpoint.txt}" && ctest -N 2>/dev/null)
      tail -n 12 "$done_list" | while read -r k; do grep -m1 "Test *#$k: " <<<"$names" || echo "#$k"; done
    done
    sleep 600 </dev/null >/dev/null 2>&1
  done
) >&2 &
looker=$!
trap 'pkill -P $looker 2>/dev/null || true; kill $reaper $looker 2>/dev/null || true' EXIT
digest() {
  local log
  for log in "${logs[@]}"; do
    grep -qE '^[[:space:]]*[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)' "$log" || continue
    echo "=== failed tests of $log, their output again (last 60 lines each) ==="
    awk 'function flush() { if (head != "") { print head; s = n > 60 ? n - 59 : 1; for (k = s; k <= n; ++k) print buf[k] } head = ""; n = 0 }
         /^[[:space:]]*[0-9]+\/[0-9]+ Test +#[0-9]+: / { flush(); if ($0 ~ /\*\*\*(Failed|Timeout|Exception)/) head = $0; next }
         /^[[:space:]]*Start +[0-9]+: / || /^[0-9]+% tests passed/ { flush(); next }
         head != "" { buf[++n] = $0 }
         END { flush() }' "$log"
  done
}
# Label walks: seeded random walks beyond the default suite's (tests/blacs-dyn), run with
# `ctest -L walks` when BLACS_DYN_WALKS_MORE is set.
suite_log=$here/$build_dir/ctest-suite.log
run_ctest "$suite_log" -LE 'bench|walks' --output-on-failure -j 2 "$@" ||
  "$here/tests/support/suite_rerun.sh" "$suite_log" -LE 'bench|walks' "$@" || status=1

if [[ "${MALL_MPICH:-1}" == 1 && "${MALL_SANITIZE:-0}" != 1 ]]; then
  mpich_dir=$here/${MPICH_BUILD_DIR:-build-mpich}
  launcher=()
  if command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$here}  # as setup.sh: a clone elsewhere hits
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
              -DCMAKE_Fortran_COMPILER_LAUNCHER=ccache)
  fi
  start=$(date +%s)
  if [[ ! -f $mpich_dir/CMakeCache.txt ]]; then
    cmake -S "$here" -B "$mpich_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DMALLEABLE_MPI=mpich \
      -DMALL_OTHER_FLAVOUR_BUILD="$here/$build_dir" "${launcher[@]}" >/dev/null
  elif ! grep -qxF "MALL_OTHER_FLAVOUR_BUILD:PATH=$here/$build_dir" "$mpich_dir/CMakeCache.txt"; then
    # A build folder configured by hand: the install tests with both flavours in one
    # prefix (install.mpi_flavour, install.deb_packages) need the Open MPI build.
    cmake "$mpich_dir" -DMALL_OTHER_FLAVOUR_BUILD="$here/$build_dir" >/dev/null
  fi
  if cmake --build "$mpich_dir" -j "${JOBS:-$(nproc)}" --target mall_mpich_suite >"$mpich_dir.log" 2>&1; then
    echo "test: MPICH flavour built in $mpich_dir ($(( $(date +%s) - start )) s; log $mpich_dir.log)"
    cd "$mpich_dir"
    # Tests that need MPI_Comm_spawn report SKIPPED with the reason (MPICH 4.0.2 here).
    run_ctest "$mpich_dir/ctest-suite.log" -L mpich -LE bench --output-on-failure -j 2 "$@" || status=1
    # The pure unit tests of redist, gridmap and blacs-dyn, linked against MPICH's stack
    # (chosen by name: gtest_discover_tests gives them the label unit only).
    run_ctest "$mpich_dir/ctest-unit.log" -L unit -R '^(redist|gridmap|blacs_dyn)\.' --output-on-failure -j 2 "$@" || status=1
  else
    tail -n 40 "$mpich_dir.log" >&2
    echo "test: FAILED to build the MPICH flavour (log $mpich_dir.log)" >&2
    status=1
  fi
fi
# A rerun never hides a hang (tests/support/suite_hangs.sh): every test that timed out is named,
# as FLAKY if it passed on the second try (with the count), as HUNG if it did not, and a
# HUNG test fails the run (and so .ci/run) even where ctest's own status would not.
"$here/tests/support/suite_hangs.sh" "${logs[@]}" || status=1
# What the tests left behind (killed by the reaper), by test: a bug of that test's clean-up.
if [[ -s $leftovers ]]; then
  echo "=== processes left behind by tests (killed by the leftover reaper; $leftovers) ==="
  cut -c1-400 "$leftovers"
fi
# Nothing the suite wrote may be left in the source tree (untracked or ignored files that
# were not there before; the build folders do not count).
if [[ -n $tree_before ]]; then "$here/tests/support/source_tree.sh" compare "$here" "$tree_before" || status=1; fi
[[ $status -eq 0 ]] || digest
exit $status
