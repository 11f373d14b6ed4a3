#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every checkpoint file the session writes is counted in the summary, with its purpose:
# by_restart_c checkpoints every 3 iterations (keep 0: every file stays) and
# expands 2x2 -> 2x3 by spawn after iteration 2, so the expansion fallback writes one
# before the spawn the cadence did not ask for. The directory then holds 4 files
# (iterations 2, 3, 6, 7) and the summary must say "4 written ...: 2 scheduled, 1 before
# a spawn, 1 final" (it said 3 before: the fallback's file was not counted). The same
# count of files and of records in the JSON.
# The node-local level files are counted the same way: pdgemm_resizable (when given) keeps a
# local level every 3 iterations (keep 0) and expands 2x2 -> 3x2 after iteration 2, so the
# expansion fallback secures the state in the local level there; the summary's line
# "checkpoint levels: 2 versions written ..., 8 files ...: 1 scheduled, 1 before a spawn"
# must count the 8 files the level directory holds (it had no such line: the level files
# were not counted at all), and the JSON the same versions with their purposes.
# Usage: checkpoint_purposes.sh <mpiexec> <by_restart_c> [<pdgemm_resizable>]
set -uo pipefail
mpiexec=$1 prog=$2 pdgemm=${3:-}
. "$(dirname "${BASH_SOURCE[0]}")/../../support/checks.sh"  # work, fail, fails, flags
export RESIZE_HISTORY=off
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
echo "summary: $line"
if [[ -n $pdgemm ]]; then
  lv=$work/lv
  out=$(cd "$work" && timeout 120 "$mpiexec" "${flags[@]}" -n 4 "$pdgemm" -n 64 --nb 16 -i 5 -p scripted \
        -s 2:expand:3x2,4:shrink:2x2 --checkpoint "$work/ck2" --keep 0 --checkpoint-local 3 \
        --checkpoint-local-dir "$lv" --json "$work/run.json" 2>&1); rc=$?
  [[ $rc -eq 0 ]] || fail "levels: exit $rc: $out"
  n=$(find "$lv" -type f 2>/dev/null | wc -l)
  line=$(grep "checkpoint levels: .* written" <<<"$out")
  grep -qE "checkpoint levels: [0-9]+ versions written \([0-9]+ local, 0 local\+partner\), $n files, .*: [0-9]+ scheduled, 1 before a spawn$" <<<"$line" ||
    fail "levels: the summary does not count the $n level files with their purposes: '$line'"
  ((n > 0)) || fail "levels: no level file written: $out"
  python3 - "$work/run.json" "$n" <<'PY' || fail "levels: the JSON's checkpoint_levels do not add up to the files"
import json, sys
lv = json.load(open(sys.argv[1]))["checkpoint_levels"]
assert sum(v["files"] for v in lv) == int(sys.argv[2]), lv
assert [v["purpose"] for v in lv].count("before a spawn") == 1, lv
PY
  echo "levels: $line"
fi
if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo PASS
