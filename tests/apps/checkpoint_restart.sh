#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Drivers checkpointed on 2x2 and restarted elsewhere. Each restarted run
# must pass the driver's own check against the serial reference, and its final matrices
# (--checksums: order-independent, any grid) must equal those of a run never interrupted:
#   pdgemm   restart on 2x2 == uninterrupted 2x2; restart on 1x5 checked against OpenBLAS
#   life     (block layout) restart on 1x5 == uninterrupted 2x2 (exact arithmetic)
#   hetero   (life_hetero, extended descriptor) restart on 3x3 == uninterrupted 2x2
#   refused  another program's file, another size: exit 3, the message on every rank,
#            the file unchanged, no new file in the directory
#   expand   restart on 3x3 == a run that expanded 2x2 -> 3x3 by spawn at the same point
#   byrestart 2x2 -> 3x3 -> 2x2 by restart (malleable-run) == the same resizes in place
#   fallback  an expansion whose spawn is refused is carried out by restart
#   refresh   RESIZE_REFRESH_AFTER=3 (malleable-run): the expansion that would take the launch
#             past 3 spawned processes is carried out by restart (launches 4 6), the rest in
#             place, checksums equal to the same resizes all in place; off: one launch;
#             a bad value refused before anything is written
#   launcher  malleable-run --help; on one host with --on-failure restart, a rank killed
#             mid-run: the job restarts from the newest checkpoint with the same processes
#             and ends with the uninterrupted run's checksums; no Open MPI exit banner
#   pdgetrf   (inverse iteration, b carried) restart on 2x2 == uninterrupted 2x2; restart
#             on 3x3 checked against serial LAPACKE_dgesv and its residual bound
#   pdgemv    (power iteration, block layout) restart on 2x2 == uninterrupted 2x2; restart
#             on 1x5 checked against serial cblas_dgemv
# Usage: checkpoint_restart.sh <mpiexec> <mode> <pdgemm> <life> <life_hetero> [<pdgetrf> <pdgemv>]
set -uo pipefail
mpiexec=$1 mode=$2 pdgemm=$3 life=$4 hetero=$5 pdgetrf=${6:-} pdgemv=${7:-}
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"  # work, fail, fails, flags
export RESIZE_HISTORY=off
run() { local np=$1; shift; timeout 150 "$mpiexec" "${flags[@]}" -n "$np" "$@" -q --checksums; }
sums() { grep '^checksum ' <<<"$1"; }
# same <what> <reference output> <np> <command...>: passes its check, same checksums
same() {
  local what=$1 ref=$2 np=$3 out rc; shift 3
  out=$(run "$np" "$@" 2>&1); rc=$?
  [[ $rc -eq 0 ]] && grep -q "result check: .*OK" <<<"$out" || { fail "$what: exit $rc / check: $out"; return; }
  [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] || fail "$what: checksums $(sums "$out" | tr '\n' ' ') differ from the uninterrupted run's $(sums "$ref" | tr '\n' ' ')"
  echo "$what: check OK, checksums equal to the uninterrupted run ($(sums "$out" | tr '\n' ' '))"
}
d=$work/ck
mkdir -p "$d"
case $mode in
pdgemm)
  P=("$pdgemm" -n 240 --nb 16)
  run 4 "${P[@]}" -i 2 --checkpoint "$d" >"$work/w.log" 2>&1 || fail "checkpoint run: $(cat "$work/w.log")"
  f=$d/pdgemm-000002.h5
  [[ -f $f ]] || fail "no $f"
  ref=$(run 4 "${P[@]}" -i 4 2>&1) || fail "uninterrupted run"
  same "pdgemm 2x2 -> restart on 2x2" "$ref" 4 "${P[@]}" -i 4 --restart "$f"
  out=$(run 5 "${P[@]}" -i 4 -g 1x5 --restart "$f" 2>&1)
  grep -q "result check: B = (sA)^4 B0: .*OK" <<<"$out" || fail "pdgemm restart on 1x5: $out"
  echo "pdgemm 2x2 -> restart on 1x5: $(grep -o 'result check.*' <<<"$out")"
  ;;
pdgetrf | pdgemv)
  # another grid (3x3 / 1x5): a different reduction order, so only the serial check holds
  if [[ $mode == pdgetrf ]]; then P=("$pdgetrf" -n 180 --nb 16) other=3x3 np=9
  else P=("$pdgemv" -n 300 --nb 16 --dist block) other=1x5 np=5; fi
  run 4 "${P[@]}" -i 2 --checkpoint "$d" >"$work/w.log" 2>&1 || fail "checkpoint run: $(cat "$work/w.log")"
  f=$d/$mode-000002.h5
  [[ -f $f ]] || fail "no $f"
  ref=$(run 4 "${P[@]}" -i 4 2>&1) || fail "uninterrupted run"
  same "$mode 2x2 -> restart on 2x2" "$ref" 4 "${P[@]}" -i 4 --restart "$f"
  out=$(run "$np" "${P[@]}" -i 4 -g "$other" --restart "$f" 2>&1)
  grep -q "result check: .*OK" <<<"$out" || fail "$mode restart on $other: $out"
  # resumed, not recomputed: the summary lists only iterations 3-4 on the new grid
  grep -qE "^ +$other +$np +3-4 " <<<"$out" || fail "$mode restart on $other did not resume after iteration 2: $out"
  echo "$mode 2x2 -> restart on $other: $(grep -o 'result check.*' <<<"$out")"
  ;;
life)
  run 4 "$life" -n 120 -i 2 --checkpoint "$d" >"$work/w.log" 2>&1 || fail "checkpoint run: $(cat "$work/w.log")"
  ref=$(run 4 "$life" -n 120 -i 4 2>&1) || fail "uninterrupted run"
  same "life 2x2 -> restart on 1x5" "$ref" 5 "$life" -n 120 -i 4 -g 1x5 --restart "$d/life-000002.h5"
  ;;
hetero)
  # Powers whose matrix is rank 1 on both grids (row x column weights), so that the
  # driver's load-balance check holds on 2x2 and on 3x3 in grid order.
  H=("$hetero" -n 120 --base-reps 1 --powers 2,1,4,2,1,4,4,2,8)
  run 4 "${H[@]}" -i 2 --checkpoint "$d" >"$work/w.log" 2>&1 || fail "checkpoint run: $(cat "$work/w.log")"
  ref=$(run 4 "${H[@]}" -i 4 2>&1) || fail "uninterrupted run"
  f=$(ls "$d"/*-000002.h5)
  same "life_hetero (extended layout) 2x2 -> restart on 3x3" "$ref" 9 "${H[@]}" -i 4 -g 3x3 --restart "$f"
  ;;
refused)
  run 4 "$life" -n 120 -i 1 --checkpoint "$d" >"$work/w.log" 2>&1 || fail "life checkpoint run"
  run 4 "$pdgemm" -n 240 --nb 16 -i 1 --checkpoint "$d" >"$work/w2.log" 2>&1 || fail "pdgemm checkpoint run"
  refused() {  # refused <what> <expected text> <file> <args...>
    local what=$1 text=$2 file=$3 before list out rc n; shift 3
    before=$(md5sum <"$file") list=$(ls -l --time-style=+%s.%N "$d")
    out=$(run 4 "$@" --restart "$file" --checkpoint "$d" 2>&1); rc=$?
    n=$(grep -c "restart refused: $text" <<<"$out")
    [[ $rc -eq 3 ]] || fail "$what: exit code $rc, expected 3: $out"
    [[ $n -eq 4 ]] || fail "$what: the message on $n of 4 ranks: $out"
    [[ $(md5sum <"$file") == "$before" && $(ls -l --time-style=+%s.%N "$d") == "$list" ]] || fail "$what: a file changed"
    grep -q "iter " <<<"$out" && fail "$what: the job ran"
    echo "$what: refused on $n ranks, exit $rc: $(grep -m1 -o 'restart refused.*' <<<"$out")"
  }
  refused "another program" "checkpoint $d/life-000001.h5: written by program 'life', this is 'pdgemm'" \
    "$d/life-000001.h5" "$pdgemm" -n 240 --nb 16 -i 2
  refused "another size" "checkpoint $d/pdgemm-000001.h5: matrix 'A' is 240 x 240 in the file, this program registered 200 x 200" \
    "$d/pdgemm-000001.h5" "$pdgemm" -n 200 --nb 16 -i 2
  ;;
expand)
  P=("$pdgemm" -n 240 --nb 16)
  run 4 "${P[@]}" -i 2 --checkpoint "$d" >"$work/w.log" 2>&1 || fail "checkpoint run: $(cat "$work/w.log")"
  ref=$(run 4 "${P[@]}" -i 4 -p scripted -s 2:expand:3x3 2>&1) || fail "uninterrupted run with an expansion: $ref"
  grep -Eq "^ +3x3 +9 " <<<"$ref" || fail "the uninterrupted run did not expand: $ref"
  same "pdgemm 2x2 -> restart on 3x3 vs 2x2 -> expand to 3x3" "$ref" 9 "${P[@]}" -i 4 -g 3x3 --restart "$d/pdgemm-000002.h5"
  ;;
byrestart)
  # §3: 2x2 -> 3x3 -> 2x2 carried out by checkpoint, exit 4 and restart (malleable-run),
  # against the same schedule carried out by spawn and shrink in place.
  runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
  P=("$pdgemm" -n 240 --nb 16 -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2)
  ref=$(run 4 "${P[@]}" 2>&1) || fail "the in-place run: $ref"
  out=$(MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 250 "$runner" -n 4 -- "${P[@]}" \
        --mechanism restart --checkpoint "$d" -q --checksums 2>&1); rc=$?
  [[ $rc -eq 0 ]] || fail "malleable-run exit $rc: $out"
  launches=$(grep -o "^malleable-run: launch [0-9]*: [0-9]* processes" <<<"$out" | awk '{print $4}' | tr '\n' ' ')
  [[ $launches == "4 9 4 " ]] || fail "launches with '$launches' processes, expected 4 9 4: $out"
  ! grep -q "terminated normally, but\|exited with non-zero status" <<<"$out" ||
    fail "a resize by restart showed Open MPI's failure banner: $(grep -m1 -B1 -A2 'terminated normally, but\|non-zero status' <<<"$out")"
  grep -q "result check: B = (sA)^6 B0: .*OK" <<<"$out" || fail "result check: $out"
  if grep -q "spawn not supported" <<<"$ref"; then
    # An MPI that cannot spawn (MPICH here) has no in-place run to compare with: the
    # result check against the serial reference above is the oracle.
    echo "2x2 -> 3x3 -> 2x2 by restart: launches of $launches processes, check OK (no in-place reference: spawn not supported)"
  else
    [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] || fail "checksums $(sums "$out" | tr '\n' ' ') differ from the in-place run's $(sums "$ref" | tr '\n' ' ')"
    echo "2x2 -> 3x3 -> 2x2 by restart: launches of $launches processes, check OK, checksums equal to the in-place resizes"
  fi
  ;;
fallback)
  # §3: an expansion whose spawn fails (blacs-dyn refuses to grow past BLACS_DYN_MAX_PROCS=6)
  # is carried out by restart when the job has a checkpoint directory; the shrink back to
  # 2x2 then happens in place.
  runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
  P=("$pdgemm" -n 240 --nb 16 -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2 --checkpoint "$d")
  out=$(BLACS_DYN_MAX_PROCS=6 MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 250 "$runner" -n 4 -- \
        "${P[@]}" -q --checksums 2>&1); rc=$?
  [[ $rc -eq 0 ]] || fail "malleable-run exit $rc: $out"
  grep -q "the expansion by spawn failed (.*too many processes.*): resizing by restart instead" <<<"$out" || fail "no fallback message: $out"
  launches=$(grep -o "^malleable-run: launch [0-9]*: [0-9]* processes" <<<"$out" | awk '{print $4}' | tr '\n' ' ')
  [[ $launches == "4 9 " ]] || fail "launches with '$launches' processes, expected 4 9: $out"
  grep -q "result check: B = (sA)^6 B0: .*OK" <<<"$out" || fail "result check: $out"
  echo "spawn refused -> resize by restart: launches of $launches processes, $(grep -o 'result check.*' <<<"$out")"
  ;;
refresh)
  # The refresh (resize/src/checkpoint/refresh.hpp): +2 processes at iterations 2, 6 and 10.
  # With RESIZE_REFRESH_AFTER=3 the second expansion (2 + 2 > 3) is carried out by restart,
  # which starts every process anew; the third is in place again (the new launch spawned 0).
  runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
  P=("$pdgemm" -n 240 --nb 16 -i 12 -p scripted -s 2:expand:3x2,4:shrink:2x2,6:expand:3x2,8:shrink:2x2,10:expand:3x2)
  ref=$(run 4 "${P[@]}" 2>&1) || fail "the in-place run: $ref"
  grep -q "refresh after" <<<"$ref" && fail "a refresh without RESIZE_REFRESH_AFTER: $ref"
  for after in 3 off; do
    rm -rf "$d"
    out=$(RESIZE_REFRESH_AFTER=$after MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 250 "$runner" -n 4 -- "${P[@]}" \
          --checkpoint "$d" -q --checksums 2>&1); rc=$?
    [[ $rc -eq 0 ]] || fail "RESIZE_REFRESH_AFTER=$after: malleable-run exit $rc: $out"
    launches=$(grep -o "^malleable-run: launch [0-9]*: [0-9]* processes" <<<"$out" | awk '{print $4}' | tr '\n' ' ')
    refreshes=$(grep -c "refresh after iteration" <<<"$out")
    if [[ $after == 3 ]]; then
      [[ $launches == "4 6 " ]] || fail "RESIZE_REFRESH_AFTER=3: launches with '$launches' processes, expected 4 6: $out"
      grep -q "^\[pdgemm\] refresh after iteration 6: this launch spawned 2 processes; 2 more would pass RESIZE_REFRESH_AFTER=3" <<<"$out" &&
        [[ $refreshes -eq 1 ]] || fail "RESIZE_REFRESH_AFTER=3: expected one refresh after iteration 6, got $refreshes: $out"
      # the launch that leaves for the restart does not warn of the entries the next one runs
      ! grep -q "warning: schedule entry" <<<"$out" || fail "a launch left for the refresh warned: $(grep 'warning: schedule' <<<"$out")"
    else
      [[ $launches == "4 " && $refreshes -eq 0 ]] || fail "RESIZE_REFRESH_AFTER=off: launches '$launches', refreshes $refreshes: $out"
    fi
    ! grep -q "terminated normally, but\|exited with non-zero status" <<<"$out" || fail "RESIZE_REFRESH_AFTER=$after: Open MPI's failure banner: $out"
    grep -q "result check: B = (sA)^12 B0: .*OK" <<<"$out" || fail "RESIZE_REFRESH_AFTER=$after: result check: $out"
    [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] ||
      fail "RESIZE_REFRESH_AFTER=$after: checksums $(sums "$out" | tr '\n' ' ') differ from the in-place run's $(sums "$ref" | tr '\n' ' ')"
    echo "RESIZE_REFRESH_AFTER=$after: launches of $launches processes, $refreshes refresh, checksums equal to the in-place resizes"
  done
  rm -rf "$d"
  out=$(RESIZE_REFRESH_AFTER=ten run 4 "${P[@]}" --checkpoint "$d" 2>&1); rc=$?
  [[ $rc -ne 0 ]] || fail "RESIZE_REFRESH_AFTER=ten accepted: $out"
  grep -q "rank 0): error: RESIZE_REFRESH_AFTER: expected off or the number of processes a launch may spawn (1 or more), got 'ten'" <<<"$out" ||
    fail "RESIZE_REFRESH_AFTER=ten: no clear error: $out"
  [[ -z $(ls -A "$d" 2>/dev/null) ]] || fail "RESIZE_REFRESH_AFTER=ten: files written: $(ls "$d")"
  echo "RESIZE_REFRESH_AFTER=ten: refused (exit $rc), nothing written"
  ;;
launcher)
  runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
  help=$("$runner" --help 2>&1); rc=$?
  [[ $rc -eq 0 && $help == usage:* && $help == *"--on-failure restart"* && $help == *"DIR/<app>.next"* ]] ||
    fail "malleable-run --help: exit $rc: $help"
  # One host, --on-failure restart: a rank killed during iteration 4 (every process pauses
  # 6 s there, after checkpoints 1-3); the job restarts from pdgemm-000003.h5 on 4 processes.
  # The kill follows the checkpoint's file at once (iteration 4 and its 6 s are the margin;
  # a second's wait before it only narrowed that).
  P=("$pdgemm" -n 240 --nb 16 -i 6)
  ref=$(run 4 "${P[@]}" 2>&1) || fail "the uninterrupted run: $ref"
  (
    for _ in $(seq 1 600); do [[ -f $d/pdgemm-000003.h5 ]] && break; sleep 0.05; done
    victim=$(pgrep -f -- "--checkpoint $d" | while read -r pid; do
               [[ $(cat /proc/"$pid"/comm 2>/dev/null) == pdgemm_resizab* ]] && echo "$pid"; done | head -1)
    [[ -n $victim ]] && kill -9 "$victim"
  ) &
  killer=$!
  out=$(RESIZE_FAULT=pause-in-iteration:4:6 MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 250 "$runner" -n 4 \
        --on-failure restart -- "${P[@]}" --checkpoint "$d" --checkpoint-every 1 -q --checksums 2>&1); rc=$?
  wait "$killer"
  [[ $rc -eq 0 ]] || fail "malleable-run on one host, a rank killed: exit $rc: $out"
  grep -q "^malleable-run: launch 1 failed (status [0-9]*): restarting on the same host" <<<"$out" || fail "no restart on the same host: $out"
  grep -q "^malleable-run: restarting from $d/pdgemm-00000[34].h5 (the newest complete checkpoint): 4 processes, grid 2x2" <<<"$out" ||
    fail "not restarted from the newest checkpoint on 4 processes: $(grep '^malleable-run' <<<"$out")"
  grep -q "result check: .*OK" <<<"$out" || fail "result check after the restart: $out"
  [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] || fail "checksums after the restart differ from the uninterrupted run's"
  echo "one host, a rank killed: $(grep -m1 '^malleable-run: restarting from' <<<"$out"); check OK, checksums equal to the uninterrupted run"
  ;;
*) fail "unknown mode $mode" ;;
esac
if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo PASS
