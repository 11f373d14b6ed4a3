#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A background resize that cannot finish before the job's end is cancelled, not completed
#; a shrink decided while an expansion is pending supersedes it. The test
# hook RESIZE_FAULT=hold-background keeps every helper thread, after its spawn and before it
# posts the moves, until the main thread completes or cancels the resize: each completing
# point of mode continue defers, with no timing involved.
#   end         pdgemv, expansion begun after 2 of 6, deferred 3x, cancelled at the end:
#               the newcomers exit (no process left), nothing moved to them (JSON
#               bytes_background 0, "cancelled": true), the record says "cancelled at the
#               end (not finished after 3 deferrals)", checksums equal to a run that never
#               resized
#   shrink_met  the same with a shrink to 2x2 scheduled after 4: the pending expansion is
#               cancelled (deferred 2x: at 3 and at 4 before the policy is asked), the job
#               is already 2x2 (nothing more), checksums as above
#   shrink_done a shrink to 2x1 after 4 (nothing constant: the shrink is blocking): the
#               expansion is cancelled, then the shrink done; result checked against BLAS
#   c_end, fortran_end  the C and Fortran examples (no MPI_THREAD_MULTIPLE: the spawn and
#               the posting at the begin point) with an expansion begun at the last remap
#               point: resize_cancel after the loop cancels it, the newcomers exit
#   c_complete  the C example with resize_complete after the loop instead: completed
# Usage: background_cancel.sh <mpiexec> <mode> <pdgemv_resizable> <pdgemm_c> <pdgemv_fortran>
set -uo pipefail
mpiexec=$1 mode=$2 pdgemv=$3 pdgemm_c=$4 pdgemv_f=$5
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"  # work, fail, fails, flags
export RESIZE_HISTORY=off
token="bgcancel_$$_$RANDOM"
# run <fault> <np> <command...>: sets $out to the job's output (stdout and stderr), prints
# it; fails on a non-zero exit
out=""
run() {
  local fault=$1 np=$2 rc; shift 2
  out=$(MALL_BG_CANCEL_TOKEN=$token RESIZE_FAULT=$fault timeout 150 "$mpiexec" "${flags[@]}" -n "$np" "$@" 2>&1)
  rc=$?
  printf '%s\n---- exit status %d\n' "$out" "$rc"
  [[ $rc -eq 0 ]] || fail "exit $rc: $*"
}
# Every process of the runs (spawned ones inherit the token) has ended.
nothing_left() {
  local left=""
  for _ in $(seq 1 20); do
    left=$(grep -lzx "MALL_BG_CANCEL_TOKEN=$token" /proc/[0-9]*/environ 2>/dev/null | sed -e 's|/proc/||' -e 's|/environ||')
    [[ -z $left ]] && break
    sleep 0.5
  done
  if [[ -n $left ]]; then
    fail "processes of the run still there: $(ps -o pid=,args= -p $left | tr '\n' ';')"
    kill -9 $left 2>/dev/null
  else
    echo "no process of the run left"
  fi
}
has() { grep -Eq -- "$2" <<<"$1" || fail "$3: no /$2/ in: $1"; }
sums() { grep '^checksum ' <<<"$1"; }
same_sums() {
  [[ -n $(sums "$1") && $(sums "$1") == $(sums "$2") ]] ||
    fail "$3: checksums $(sums "$1" | tr '\n' ' ') differ from the never-resized run's $(sums "$2" | tr '\n' ' ')"
}
P=("$pdgemv" -n 200 --nb 16 -i 6 -q --checksums)
case $mode in
end | shrink_met)
  run "" 4 "${P[@]}"
  ref=$out
  sched=2:expand:3x2:local2
  [[ $mode == shrink_met ]] && sched=2:expand:3x2:local2,4:shrink:2x2
  run hold-background 4 "${P[@]}" -p scripted -s "$sched" --background continue --constant A --json "$work/r.json"
  has "$out" "result check: .*OK" "$mode: check"
  same_sums "$out" "$ref" "$mode"
  has "$out" "2x2->3x2 CANCELLED" "$mode: summary row"
  if [[ $mode == end ]]; then
    has "$out" "cancelled at the end \(not finished after 3 deferrals\); [0-9.]+ ms spent on it" "end: record"
    has "$out" "cancelled by the job \(at the job's end" "end: the newcomer's word"
  else
    has "$out" "cancelled after iteration 4, superseded by the shrink to 2x2 decided after iteration 4 \(not finished after 2 deferrals\)" "shrink_met: record"
    has "$out" "superseded by a shrink the policy decided meanwhile" "shrink_met: the newcomer's word"
    grep -q "REFUSED" <<<"$out" && fail "shrink_met: a request was refused: $out"
  fi
  has "$out" "the newcomers leave \(no data had moved to them\)" "$mode: nothing moved to the newcomers"
  has "$out" "MiB had moved in the background \(none to the newcomers\)" "$mode: record of the bytes"
  grep -q '"cancelled": true' "$work/r.json" || fail "$mode: JSON has no \"cancelled\": true"
  grep -q '"bytes_background": 0,*$' "$work/r.json" || fail "$mode: JSON bytes_background is not 0: $(grep bytes_background "$work/r.json")"
  grep -q "COMPLETED" <<<"$out" && fail "$mode: the expansion completed: $out"
  ;;
shrink_done)
  run hold-background 4 "${P[@]}" -p scripted -s 2:expand:3x2:local2,4:shrink:2x1 --background continue
  has "$out" "result check: .*OK" "shrink_done: check"
  has "$out" "2x2->3x2 CANCELLED" "shrink_done: the expansion's row"
  has "$out" "superseded by the shrink to 2x1" "shrink_done: record"
  has "$out" "      4  2x2->2x1 " "shrink_done: the shrink's row"
  grep -Eq "2x2->2x1 (FAILED|CANCELLED)" <<<"$out" && fail "shrink_done: the shrink did not happen: $out"
  ;;
c_end | c_complete)
  arg=background
  [[ $mode == c_complete ]] && arg=background-complete
  run "" 4 "$pdgemm_c" 160 5 4:expand:3x2:local2 $arg
  has "$out" "max \\|B - B_openblas\\| = .*: OK" "$mode: check"
  if [[ $mode == c_end ]]; then
    has "$out" "pdgemm_c: the expansion under way at the end was cancelled" "c_end"
    has "$out" "CANCELLED \(cancelled at the end \(no remap point could complete it\)" "c_end: record"
    grep -q "COMPLETED" <<<"$out" && fail "c_end: completed: $out"
  else
    has "$out" "COMPLETED \(begun in the background after iter 4\)" "c_complete"
  fi
  ;;
fortran_end)
  run "" 4 "$pdgemv_f" 200 5 4:expand:2x3:local2 background
  has "$out" "max \\|x - x_blas\\| = .*: OK" "fortran_end: check"
  has "$out" "pdgemv_fortran: the resize under way at the end was cancelled" "fortran_end"
  has "$out" "2x2 -> 2x3 begun after iter 4 CANCELLED \(cancelled at the end \(no remap point could complete it\)" "fortran_end: record"
  ;;
*) fail "unknown mode $mode" ;;
esac
nothing_left
echo "$mode: $fails failure(s)"
[[ $fails -eq 0 ]] && echo PASS
