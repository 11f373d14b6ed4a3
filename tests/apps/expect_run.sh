#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# expect_run.sh RC REGEX MAX_SECONDS -- command...
# Runs the command; passes if its exit status matches RC ("0" or "nonzero"), its output
# matches REGEX (grep -E) and it finished within MAX_SECONDS. Used by the fault tests,
# where both the outcome and the message matter.
set -u
want_rc=$1 regex=$2 max_s=$3
shift 4
start=$(date +%s)
out=$(timeout --signal=KILL "$max_s" "$@" 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
printf '%s\n' "$out"
echo "---- expect_run: exit status $rc after ${elapsed}s (want $want_rc, within ${max_s}s, output matching /$regex/)"
if [[ $rc -eq 137 && $elapsed -ge $max_s ]]; then
  echo "FAIL: did not finish within ${max_s}s"; exit 1
fi
if [[ $want_rc == 0 && $rc -ne 0 ]]; then echo "FAIL: exit status $rc"; exit 1; fi
if [[ $want_rc == nonzero && $rc -eq 0 ]]; then echo "FAIL: exit status 0, expected a failure"; exit 1; fi
if ! grep -Eq "$regex" <<<"$out"; then echo "FAIL: output does not match /$regex/"; exit 1; fi
echo "PASS"
