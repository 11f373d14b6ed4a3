#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# suite_hangs.sh on real ctest logs (tests/suite/CMakeLists.txt says what is checked).
# Usage: suite_hangs_test.sh SUITE_HANGS_SH CMAKE CTEST (suite_rerun.sh is beside SUITE_HANGS_SH)
set -uo pipefail
report=$1 cmake=$2 ctest=$3
rerun=$(dirname "$report")/suite_rerun.sh
export PATH="$(dirname "$ctest"):$PATH"  # suite_rerun.sh calls ctest
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bad=0
fail() { echo "FAILED: $*"; bad=1; }

# project <dir> <with the test that hangs twice and the failing one: 1|0>
project() {
  mkdir -p "$1/src"
  {
    echo 'cmake_minimum_required(VERSION 3.16)'
    echo 'project(fake NONE)'
    echo 'enable_testing()'
    echo 'add_test(NAME ok.pass COMMAND true)'
    # the first try hangs (leaves a mark), the second passes at once
    echo 'add_test(NAME hang.once COMMAND sh -c "if [ -e once ]; then exit 0; fi; touch once; exec sleep 60")'
    echo 'set_tests_properties(hang.once PROPERTIES TIMEOUT 2)'
    if [[ $2 == 1 ]]; then
      echo 'add_test(NAME hang.twice COMMAND sleep 60)'
      echo 'set_tests_properties(hang.twice PROPERTIES TIMEOUT 2)'
      echo 'add_test(NAME fails.plain COMMAND false)'
    fi
  } >"$1/src/CMakeLists.txt"
  "$cmake" -S "$1/src" -B "$1/build" >/dev/null || fail "configure $1"
  # as scripts/test.sh runs the suite: ctest, and on a failure the timed-out tests' second try
  (cd "$1/build" && { "$ctest" -j 2 >ctest-suite.log 2>&1 || "$rerun" ctest-suite.log >/dev/null; echo $? >rerun.rc; })
}

# 1. a hang on both tries: named as HUNG, the run fails; the flaky one is still named
project "$scratch/a" 1
out=$("$report" "$scratch/a/build/ctest-suite.log"); rc=$?
echo "$out"
[[ $rc == 1 ]] || fail "a test that timed out twice: exit status $rc, not 1"
grep -q '^test: HUNG: 1 test(s)' <<<"$out" || fail "no HUNG line with count 1"
grep -qx '  hang.twice (timed out twice) (build)' <<<"$out" || fail "hang.twice not named as HUNG"
grep -q '^test: FLAKY: 1 test(s) timed out and passed only on the second try' <<<"$out" ||
  fail "no FLAKY line with count 1"
grep -qx '  hang.once (build)' <<<"$out" || fail "hang.once not named as FLAKY"
grep -q 'ok.pass\|fails.plain' <<<"$out" && fail "a test that did not time out is named"

[[ $(cat "$scratch/a/build/rerun.rc") == 1 ]] || fail "second tries with a failed and a hung test: status 0"

# 2. only a hang that passed on the second try: named as FLAKY, the run does not fail on it
project "$scratch/b" 0
out=$("$report" "$scratch/b/build/ctest-suite.log"); rc=$?
echo "$out"
[[ $rc == 0 ]] || fail "only a flaky test: exit status $rc, not 0"
grep -qx '  hang.once (build)' <<<"$out" || fail "hang.once not named as FLAKY (second log)"
grep -q HUNG <<<"$out" && fail "HUNG reported without a test that hung twice"
[[ $(cat "$scratch/b/build/rerun.rc") == 0 ]] || fail "only a flaky test: the second tries' status is not 0"

# 3. two logs (the Open MPI and the MPICH runs): both read, a missing one skipped
out=$("$report" "$scratch/b/build/ctest-suite.log" "$scratch/a/build/ctest-suite.log" "$scratch/none.log"); rc=$?
[[ $rc == 1 ]] || fail "two logs, one with a test that hung twice: exit status $rc"
grep -q '^test: FLAKY: 2 test(s)' <<<"$out" || fail "two logs: FLAKY count not 2"

# 4. a run without any timeout
printf '1/1 Test #1: ok.pass ....   Passed    0.01 sec\n\n100%% tests passed, 0 tests failed out of 1\n' >"$scratch/c.log"
out=$("$report" "$scratch/c.log"); rc=$?
[[ $rc == 0 && $out == "test: 0 tests needed a second try" ]] || fail "clean log: '$out' (exit $rc)"

((bad)) && exit 1
echo "PASS: suite_hangs.sh names flaky and hung tests and fails on a test that hung twice"
