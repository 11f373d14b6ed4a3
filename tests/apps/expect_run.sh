#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# expect_run.sh RC REGEX MAX_SECONDS -- command...
# Runs the command; passes if its exit status matches RC ("0" or "nonzero"), its output
# matches REGEX (grep -E) and it finished within MAX_SECONDS. Used by the fault tests,
# where both the outcome and the message matter.
set -u
want_rc=$1 regex=$2 max_s=$3
shift 4
# With EXPECT_RUN_NOTHING_LEFT=1 it also fails if any process of the run (found by a
# token in its environment, which spawned processes inherit) is still there 5 s after
# the command ended; those are killed.
run_token="expect_run_$$_$RANDOM$RANDOM"
leftovers() {
  grep -lzx "MALL_EXPECT_RUN_TOKEN=$run_token" /proc/[0-9]*/environ 2>/dev/null |
    sed -e 's|/proc/||' -e 's|/environ||'
}
start=$(date +%s)
out=$(MALL_EXPECT_RUN_TOKEN=$run_token timeout --signal=KILL "$max_s" "$@" 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
printf '%s\n' "$out"
echo "---- expect_run: exit status $rc after ${elapsed}s (want $want_rc, within ${max_s}s, output matching /$regex/)"
if [[ ${EXPECT_RUN_NOTHING_LEFT:-0} == 1 ]]; then
  left=""
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=$(leftovers)
    [[ -z $left ]] && break
    sleep 0.5
  done
  if [[ -n $left ]]; then
    echo "FAIL: processes of the run still there after it ended:"
    for p in $left; do ps -o pid=,args= -p "$p"; done
    kill -9 $left 2>/dev/null
    exit 1
  fi
  echo "---- expect_run: no process of the run left"
fi
if [[ $rc -eq 137 && $elapsed -ge $max_s ]]; then
  echo "FAIL: did not finish within ${max_s}s"; exit 1
fi
if [[ $want_rc == 0 && $rc -ne 0 ]]; then echo "FAIL: exit status $rc"; exit 1; fi
if [[ $want_rc == nonzero && $rc -eq 0 ]]; then echo "FAIL: exit status 0, expected a failure"; exit 1; fi
if ! grep -Eq "$regex" <<<"$out"; then echo "FAIL: output does not match /$regex/"; exit 1; fi
echo "PASS"
