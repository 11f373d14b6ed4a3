#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An expansion by spawn that does not complete becomes a resize by restart (the session's
# expansion fallback, docs/guide/checkpoint.md "When a spawn does not complete"). The driver
# (pdgemm, 2x2 -> 3x3 after iteration 2, back to 2x2 after iteration 4) runs under
# malleable-run with a checkpoint directory; each mode injects one way the
# expansion dies and requires launches of 4 then 9 processes, the driver's own result
# check, final checksums equal to the same resizes carried out in place without a fault,
# and no process of the run left afterwards (found by a token in the environment, which
# spawned processes inherit):
#   stall    the last newcomer stops before its MPI_Init (BLACS_DYN_FAULT=stall-newcomer-in-init):
#            the spawn never returns; the spawn deadline (RESIZE_SPAWN_DEADLINE=5) passes,
#            every process exits 4. Also without the launcher: exit 4, the message names the
#            checkpoint, and a relaunch by hand from it gives the same checksums
#   crash    the last newcomer is SIGKILLed before its MPI_Init (kill-newcomer-in-init):
#            mpiexec ends the job; the launcher finds the marker and resizes by restart
#   success  no fault: the line "before the spawn ... checkpoint ... spawn deadline 150.0 s" and no
#            DIR/<app>.next left; with --checkpoint-every 1 the cadence's checkpoint of that
#            iteration reused; with RESIZE_SPAWN_FALLBACK=off neither line nor checkpoint
#   levels   the job keeps checkpoint levels (--checkpoint-local never, a level directory of
#            its own): the state before the spawn goes to the local level (node memory), not
#            to a global checkpoint; the stall and the crash above relaunch with
#            --restart-levels (launches 4 then 9, check, checksums equal to the in-place
#            run, no pdgemm-000002.h5 written); an expansion that succeeds says "checkpoint
#            the local checkpoint level (node memory)", and with --checkpoint-local 1 the
#            level's own checkpoint of that iteration is reused
#   background  the expansion begun in the background (--background, --constant A; 2x2 -> 3x3
#            after iteration 2, 8 iterations): in mode continue the stalled spawn's deadline
#            (3 s) passes while the old grid computes (iteration 4 made to last 6 s,
#            RESIZE_FAULT=pause-in-iteration:4:6), and the remap point after iteration 4
#            resizes by restart from iteration 4 (nothing computed meanwhile lost); in mode
#            wait the completing point waits for the spawn, so the deadline ends the
#            processes there and the relaunch starts from the checkpoint before the spawn
#            (iteration 2); without a fault (mode wait) the background expansion completes
#            and no DIR/<app>.next is left. Each: launches, check, checksums equal to the
#            same grids in place (3x3 from the iteration the relaunch or the switch began)
# Usage: spawn_fallback.sh <mpiexec> <mode> <pdgemm_resizable>
set -uo pipefail
mpiexec=$1 mode=$2 pdgemm=$3
runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
work=$(mktemp -d)
token="spawn_fallback_$$_$RANDOM$RANDOM"
export MALL_SPAWN_FALLBACK_TOKEN=$token RESIZE_HISTORY=off
# The job's processes (the driver, newcomers included, and mpiexec's), not this script's shells.
leftovers() {
  local p c
  for p in $(grep -lzx "MALL_SPAWN_FALLBACK_TOKEN=$token" /proc/[0-9]*/environ 2>/dev/null | sed -e 's|/proc/||' -e 's|/environ||'); do
    c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
    [[ $c == pdgemm* || $c == mpiexec || $c == mpirun || $c == orted || $c == prted ]] && echo "$p"
  done
}
cleanup() { local l; l=$(leftovers); [[ -n $l ]] && kill -9 $l 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
sums() { grep '^checksum ' <<<"$1"; }
P=("$pdgemm" -n 240 --nb 16 -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2)
nothing_left() {  # <what>
  local left=
  for _ in $(seq 1 20); do left=$(leftovers); [[ -z $left ]] && break; sleep 0.5; done
  if [[ -n $left ]]; then
    fail "$1: processes of the run still there after it ended: $(for p in $left; do ps -o pid=,args= -p "$p"; done | tr '\n' ';')"
  else
    echo "$1: no process of the run left"
  fi
}
# the reference: the same resizes in place, no fault
ref=$(RESIZE_SPAWN_FALLBACK=off timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" -q --checksums 2>&1) ||
  fail "the in-place run: $ref"
[[ -n $(sums "$ref") ]] || fail "no checksums in the in-place run: $ref"
# under_launcher <what> <env...>: malleable-run, launches 4 then 9, check, checksums, nothing left
under_launcher() {
  local what=$1 out rc launches t0 t1; shift
  rm -rf "$work/ck"
  t0=$(date +%s.%N)
  out=$(env "$@" MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 250 "$runner" -n 4 -- "${P[@]}" \
        --checkpoint "$work/ck" "${EXTRA[@]}" -q --checksums 2>&1); rc=$?
  t1=$(date +%s.%N)
  [[ $rc -eq 0 ]] || fail "$what: malleable-run exit $rc: $out"
  launches=$(grep -o "^malleable-run: launch [0-9]*: [0-9]* processes" <<<"$out" | awk '{print $4}' | tr '\n' ' ')
  [[ $launches == "4 9 " ]] || fail "$what: launches with '$launches' processes, expected 4 9: $out"
  grep -q "result check: B = (sA)^$ITERS B0: .*OK" <<<"$out" || fail "$what: result check: $out"
  [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] ||
    fail "$what: checksums $(sums "$out" | tr '\n' ' ') differ from the in-place run's $(sums "$ref" | tr '\n' ' ')"
  nothing_left "$what"
  LAST_OUT=$out
  echo "$what: launches of $launches processes, check OK, checksums equal to the in-place run ($(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') s)"
}
EXTRA=() ITERS=6
# The same grids in place without a fault: 2x2 up to iteration $1, 3x3 after it (8 iterations).
ref_switch() {
  RESIZE_SPAWN_FALLBACK=off timeout 200 "$mpiexec" "${flags[@]}" -n 4 "$pdgemm" -n 240 --nb 16 -i 8 -p scripted \
    -s "$1:expand:3x3" -q --checksums 2>&1
}
case $mode in
background)
  P=("$pdgemm" -n 240 --nb 16 -i 8 -p scripted -s 2:expand:3x3 --constant A) ITERS=8
  ref=$(ref_switch 4)
  EXTRA=(--background continue)
  under_launcher "background continue: newcomer stalled" BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=3 \
    RESIZE_FAULT=pause-in-iteration:4:6
  grep -q "the expansion 2x2 -> 3x3 begun in the background did not complete within its spawn deadline: resizing by restart from iteration 4 instead" <<<"$LAST_OUT" ||
    fail "background continue: no restart from iteration 4: $LAST_OUT"
  grep -q "^malleable-run: launch 2: 9 processes, -g 3x3 --restart .*pdgemm-000004.h5" <<<"$LAST_OUT" ||
    fail "background continue: the relaunch does not start from iteration 4: $LAST_OUT"
  ref=$(ref_switch 2)
  EXTRA=(--background wait)
  under_launcher "background wait: newcomer stalled" BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=3
  grep -q "did not complete within its spawn deadline 3.0 s" <<<"$LAST_OUT" || fail "background wait: no deadline message: $LAST_OUT"
  grep -q "^malleable-run: launch 2: 9 processes, -g 3x3 --restart .*pdgemm-000002.h5" <<<"$LAST_OUT" ||
    fail "background wait: the relaunch does not start from the checkpoint before the spawn: $LAST_OUT"
  rm -rf "$work/ck"
  out=$(RESIZE_SPAWN_DEADLINE=150 timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --background wait --checkpoint "$work/ck" \
        --checksums 2>&1) || fail "background wait without a fault: $out"
  grep -qE "before the spawn after iter 2: checkpoint .*pdgemm-000002.h5 in [0-9.]+ ms; spawn deadline 150.0 s" <<<"$out" ||
    fail "background wait without a fault: no line for the checkpoint before the spawn: $out"
  first=$(grep -m1 -oE "\] iter +[0-9]+ +grid 3x3" <<<"$out" | awk '{print $3}')
  [[ -n $first ]] || fail "background wait without a fault: never on 3x3: $out"
  [[ ! -e $work/ck/pdgemm.next ]] || fail "background wait without a fault: DIR/pdgemm.next left"
  ref=$(ref_switch $((${first:-3} - 1)))
  [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] || fail "background wait without a fault: checksums differ from the in-place run: $out"
  grep -q "result check: B = (sA)^8 B0: .*OK" <<<"$out" || fail "background wait without a fault: result check: $out"
  echo "background wait without a fault: completed, on 3x3 from iteration $first, no DIR/pdgemm.next left, checksums equal"
  ;;
levels)
  EXTRA=(--checkpoint-local never --checkpoint-local-dir "$work/lv")
  rm -rf "$work/lv"
  under_launcher "levels: newcomer stalled in MPI_Init" BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=5
  grep -q "restart the job by hand with -g 3x3 --restart-levels" <<<"$LAST_OUT" || fail "levels: the message does not say --restart-levels: $LAST_OUT"
  grep -q "^malleable-run: launch 2: 9 processes, -g 3x3 --restart-levels" <<<"$LAST_OUT" || fail "levels: no relaunch with --restart-levels: $LAST_OUT"
  [[ ! -e $work/ck/pdgemm-000002.h5 ]] || fail "levels: a global checkpoint of iteration 2 was written"
  ls "$work/lv"/*/pdgemm.local.r0-4.v000002 >/dev/null 2>&1 || fail "levels: no local level of iteration 2 in $work/lv"
  rm -rf "$work/lv"
  under_launcher "levels: newcomer killed in MPI_Init" BLACS_DYN_FAULT=kill-newcomer-in-init
  grep -qE "^malleable-run: launch 1( ended with status [0-9]+ during an expansion by spawn: a resize by restart from the checkpoint levels|: the expansion by spawn did not complete by its deadline)" <<<"$LAST_OUT" ||
    fail "levels: no launcher message for the crashed expansion: $LAST_OUT"
  [[ ! -e $work/ck/pdgemm-000002.h5 ]] || fail "levels (crash): a global checkpoint of iteration 2 was written"
  rm -rf "$work/ck" "$work/lv"
  out=$(RESIZE_SPAWN_DEADLINE=150 timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --checkpoint "$work/ck" "${EXTRA[@]}" \
        --checksums 2>&1) || fail "levels: the run without a fault: $out"
  grep -qE "before the spawn after iter 2: checkpoint the local checkpoint level \(node memory\) in [0-9.]+ ms; spawn deadline 150.0 s" <<<"$out" ||
    fail "levels: no line for the local level before the spawn: $out"
  [[ ! -e $work/ck/pdgemm.next && ! -e $work/ck/pdgemm-000002.h5 ]] || fail "levels: DIR/pdgemm.next left or a global checkpoint of iteration 2 written"
  [[ $(sums "$out") == $(sums "$ref") ]] || fail "levels: checksums differ from the in-place run: $out"
  echo "levels, success: $(grep -o 'before the spawn.*' <<<"$out")"
  rm -rf "$work/ck" "$work/lv"
  out=$(RESIZE_SPAWN_DEADLINE=150 timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --checkpoint "$work/ck" \
        --checkpoint-local 1 --checkpoint-local-dir "$work/lv" --checksums 2>&1) || fail "levels: the run with --checkpoint-local 1: $out"
  grep -qE "before the spawn after iter 2: checkpoint the local checkpoint level \(node memory\) \(this iteration's, reused\)" <<<"$out" ||
    fail "levels: the level's checkpoint of iteration 2 was not reused: $out"
  [[ $(grep -c "checkpoint level local after iteration 2 " <<<"$out") -eq 1 ]] || fail "levels: iteration 2's local level written twice: $out"
  echo "levels, --checkpoint-local 1: $(grep -o 'before the spawn.*' <<<"$out")"
  ;;
stall)
  under_launcher "newcomer stalled in MPI_Init" BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=5
  grep -q "did not complete within its spawn deadline 5.0 s" <<<"$LAST_OUT" || fail "no deadline message: $LAST_OUT"
  grep -q "^malleable-run: launch 1: the expansion by spawn did not complete by its deadline" <<<"$LAST_OUT" ||
    fail "the launcher did not say why it relaunched: $LAST_OUT"
  # Without the launcher: status 4, the message names the checkpoint; relaunched by hand.
  rm -rf "$work/ck"
  out=$(BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=5 timeout 200 "$mpiexec" "${flags[@]}" -n 4 \
        "${P[@]}" --checkpoint "$work/ck" -q --checksums 2>&1); rc=$?
  [[ $rc -eq 4 ]] || fail "without the launcher: exit $rc, expected 4: $out"
  f=$(grep -o "restart the job by hand with -g 3x3 --restart [^ ]*" <<<"$out" | awk '{print $NF}')
  [[ -n $f && -f $f ]] || fail "without the launcher: no checkpoint named, or $f missing: $out"
  grep -qx spawn-fallback "$work/ck/pdgemm.next" || fail "without the launcher: no marker in $work/ck/pdgemm.next"
  nothing_left "without the launcher"
  if [[ -n $f && -f $f ]]; then
    out=$(timeout 200 "$mpiexec" "${flags[@]}" -n 9 "${P[@]}" -g 3x3 --restart "$f" -q --checksums 2>&1) ||
      fail "the relaunch by hand: $out"
    [[ -n $(sums "$out") && $(sums "$out") == $(sums "$ref") ]] || fail "the relaunch by hand: checksums differ: $out"
    echo "without the launcher: exit 4 naming $(basename "$f"); relaunched by hand on 3x3: checksums equal to the in-place run"
  fi
  ;;
crash)
  under_launcher "newcomer killed in MPI_Init" BLACS_DYN_FAULT=kill-newcomer-in-init
  # mpiexec ends the job when the newcomer dies (the launcher finds the marker); should it
  # not, the spawn's deadline ends it with status 4
  grep -qE "^malleable-run: launch 1( ended with status [0-9]+ during an expansion by spawn: a resize by restart from .*pdgemm-000002.h5|: the expansion by spawn did not complete by its deadline)" <<<"$LAST_OUT" ||
    fail "no launcher message for the crashed expansion: $LAST_OUT"
  ;;
success)
  rm -rf "$work/ck"
  # (a floor of 150 s: a spawn slowed by the machine's load must not reach the deadline here)
  out=$(RESIZE_SPAWN_DEADLINE=150 timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --checkpoint "$work/ck" --checksums 2>&1) ||
    fail "the run: $out"
  grep -qE "before the spawn after iter 2: checkpoint .*pdgemm-000002.h5 in [0-9.]+ ms; spawn deadline 150.0 s \(the floor" <<<"$out" ||
    fail "no line for the checkpoint before the spawn: $out"
  [[ ! -e $work/ck/pdgemm.next ]] || fail "DIR/pdgemm.next left after a successful expansion"
  [[ $(sums "$out") == $(sums "$ref") ]] || fail "checksums differ from the in-place run: $out"
  echo "fallback on: $(grep -o 'before the spawn.*' <<<"$out")"
  # a checkpoint of this iteration by the cadence (--checkpoint-every 1) is reused, not written again
  rm -rf "$work/ck"
  out=$(RESIZE_SPAWN_DEADLINE=150 timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --checkpoint "$work/ck" \
        --checkpoint-every 1 --checksums 2>&1) || fail "the run with --checkpoint-every 1: $out"
  grep -qE "before the spawn after iter 2: checkpoint .*pdgemm-000002.h5 \(this iteration's, reused\)" <<<"$out" ||
    fail "the cadence's checkpoint of iteration 2 was not reused: $out"
  [[ $(grep -c "checkpoint after iteration 2:" <<<"$out") -eq 1 ]] || fail "iteration 2 checkpointed twice: $out"
  [[ $(sums "$out") == $(sums "$ref") ]] || fail "with --checkpoint-every 1: checksums differ from the in-place run: $out"
  echo "with --checkpoint-every 1: $(grep -o 'before the spawn.*' <<<"$out")"
  rm -rf "$work/ck"
  out=$(RESIZE_SPAWN_FALLBACK=off timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --checkpoint "$work/ck" --checksums 2>&1) ||
    fail "the run with the fallback off: $out"
  ! grep -q "before the spawn" <<<"$out" || fail "RESIZE_SPAWN_FALLBACK=off still checkpoints before the spawn: $out"
  [[ ! -e $work/ck/pdgemm-000002.h5 ]] || fail "RESIZE_SPAWN_FALLBACK=off: a checkpoint of iteration 2 was written"
  out=$(RESIZE_SPAWN_DEADLINE=abc timeout 200 "$mpiexec" "${flags[@]}" -n 4 "${P[@]}" --checkpoint "$work/ck" 2>&1) &&
    fail "RESIZE_SPAWN_DEADLINE=abc accepted: $out"
  grep -q "RESIZE_SPAWN_DEADLINE: expected FLOOR\[:FACTOR\[:CAP\]\] seconds .*got 'abc'" <<<"$out" || fail "no message for RESIZE_SPAWN_DEADLINE=abc: $out"
  echo "fallback off: no checkpoint before the spawn; RESIZE_SPAWN_DEADLINE=abc refused"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
((fails == 0)) || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
