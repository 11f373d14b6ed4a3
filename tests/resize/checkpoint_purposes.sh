#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every checkpoint file the session writes is counted in the summary, with its purpose:
# by_restart_c checkpoints every 3 iterations (keep 0: every file stays) and
# expands 2x2 -> 2x3 by spawn after iteration 2, so the expansion fallback writes one
# before the spawn the cadence did not ask for. The directory then holds 4 files
# (iterations 2, 3, 6, 7) and the summary must say "4 written ...: 2 scheduled, 1 before
# a spawn, 1 final" (it said 3 before: the fallback's file was not counted). The same
# count of files and of records in the JSON.
# Usage: checkpoint_purposes.sh <mpiexec> <by_restart_c>
set -uo pipefail
mpiexec=$1 prog=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RESIZE_HISTORY=off
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
d=$work/ck
out=$(cd "$work" && timeout 120 "$mpiexec" "${flags[@]}" -n 4 "$prog" 40 7 --checkpoint "$d" --every 3 \
      --schedule 2:expand:2x3 --mechanism spawn 2>&1); rc=$?
[[ $rc -eq 0 ]] || fail "exit $rc: $out"
grep -q "result check: .*OK" <<<"$out" || fail "result check: $out"
files=$(cd "$d" 2>/dev/null && ls ./*.h5 2>/dev/null | tr '\n' ' ')
want="./by_restart_c-000002.h5 ./by_restart_c-000003.h5 ./by_restart_c-000006.h5 ./by_restart_c-000007.h5 "
[[ $files == "$want" ]] || fail "checkpoints '$files', expected '$want'"
n=$(ls "$d"/*.h5 2>/dev/null | wc -l)
line=$(grep "checkpoints: .* written" <<<"$out")
grep -q "checkpoints: $n written (every 3), .*: 2 scheduled, 1 before a spawn, 1 final$" <<<"$line" ||
  fail "the summary does not count the $n files with their purposes: '$line'"
if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo "summary: $line"
echo PASS
