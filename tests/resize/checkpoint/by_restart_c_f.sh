#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint cadence and resize by restart through the C API / the Fortran module:
# the program (by_restart_c or by_restart_f) checkpoints every 2 iterations and its
# scripted expansion 2x2 -> 2x3 after iteration 3 is carried out by checkpoint, exit 4 and
# a relaunch on 6 processes by malleable-run. Checks: launches of 4 then 6
# processes, the result check OK (A = A0 + 7*8/2: an iteration lost or repeated fails it),
# the checkpoints written (2 and 3 by the first launch, 4, 6 and the last, 7, by the
# second), the second launch's summary counting its own 3 checkpoints, no .next file left;
# then the checkpoint for the resize failing on one rank: exit 5, said on every rank.
# Usage: by_restart_c_f.sh <mpiexec> <program> <app>
set -uo pipefail
mpiexec=$1 prog=$2 app=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RESIZE_HISTORY=off
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
d=$work/ck/sub  # not there yet: the session creates it
# The C program also writes one checkpoint at the end with resize_checkpoint_in into a
# nested directory that does not exist yet.
final=(); [[ $app == by_restart_c ]] && final=(--final "$work/final/a/b")
out=$(MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 200 "$runner" -n 4 -- "$prog" 40 7 --checkpoint "$d" \
      --every 2 --schedule 3:expand:2x3 --mechanism restart "${final[@]}" 2>&1); rc=$?
[[ $rc -eq 0 ]] || fail "malleable-run exit $rc: $out"
launches=$(grep -o "^malleable-run: launch [0-9]*: [0-9]* processes" <<<"$out" | awk '{print $4}' | tr '\n' ' ')
[[ $launches == "4 6 " ]] || fail "launches with '$launches' processes, expected 4 6: $out"
grep -q "\[$app\] resize by restart after iteration 3: 2x2 -> 2x3 (6 processes)" <<<"$out" || fail "no resize-by-restart line: $out"
grep -q "result check: .*OK" <<<"$out" || fail "result check: $out"
files=$(cd "$d" 2>/dev/null && ls ./*.h5 2>/dev/null | tr '\n' ' ')
want="./$app-000002.h5 ./$app-000003.h5 ./$app-000004.h5 ./$app-000006.h5 ./$app-000007.h5 "
[[ $files == "$want" ]] || fail "checkpoints '$files', expected '$want'"
grep -q "checkpoints: 3 written (every 2)" <<<"$out" || fail "the summary does not count the 3 checkpoints of the second launch: $out"
if ((${#final[@]})); then
  f=$work/final/a/b/$app-000007.h5
  grep -q "^final checkpoint $f\$" <<<"$out" && [[ -f $f ]] || fail "resize_checkpoint_in did not write $f into the directory it was to make: $out"
fi
ls "$d"/*.next >/dev/null 2>&1 && fail "a .next file is left: $(ls "$d")"
# The checkpoint of the resize by restart (after iteration 3) fails on one rank (rank 2
# loses its writes: test-only fault injection): RESIZE_ERR_CHECKPOINT on every rank, the
# program exits 5, no relaunch, no .next, the checkpoint of iteration 2 kept.
d2=$work/ck2
out2=$(MALLEABLE_CHECKPOINT_FAULT=lose-writes:2@3 MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 200 "$runner" -n 4 -- \
       "$prog" 40 7 --checkpoint "$d2" --every 2 --schedule 3:expand:2x3 --mechanism restart 2>&1); rc=$?
[[ $rc -eq 5 ]] || fail "a failed checkpoint: malleable-run exit $rc, expected 5: $out2"
n=$(grep -c "^$app: checkpoint failed: .*by_restart_.-000003.h5" <<<"$out2")
[[ $n -eq 4 ]] || fail "a failed checkpoint: said by $n ranks, expected 4: $out2"
[[ $(grep -c "^malleable-run: launch" <<<"$out2") -eq 1 ]] || fail "a failed checkpoint was relaunched: $out2"
files2=$(cd "$d2" && ls 2>/dev/null | tr '\n' ' ')
[[ $files2 == "$app-000002.h5 " ]] || fail "after the failed checkpoint the directory holds '$files2', expected only $app-000002.h5"
if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo "$app: checkpoints ${files}, launches of $launches processes, $(grep -o 'result check.*' <<<"$out" | head -1)"
echo PASS
