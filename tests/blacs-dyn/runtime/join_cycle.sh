#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growing by joining through blacs-dyn's API, on one node (join_cycle.cpp says what the
# program does): three launches of one program, A the job (2 processes), B and C (2 each)
# joining it one after the other by name through the job's private directory and an
# ompi-server started for the job; B, the middle one, leaves while A and C compute on.
# Every mpiexec must return 0 within its bound (no MPI_Finalize hangs anywhere: the
# issue's three-launch run hung in the first launch's MPI_Finalize without a leave
# protocol), B's before the job ends, and no process of the job may be left.
# Where the MPI opens no port (Debian's MPICH 4.0.2: "not supported with ucx netmod") the
# test is SKIPPED with that reason.
# Usage: join_cycle.sh MPIEXEC PROGRAM
set -u
mpiexec=$1 prog=$2
work=$(mktemp -d)
dir=$work/job
mkdir -m 700 "$dir"
srv=
cleanup() {
  local rc=$?
  for p in ${a:-} ${b:-} ${c:-}; do kill -9 "$p" 2>/dev/null; done
  [[ -n $srv ]] && kill "$srv" 2>/dev/null
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAILED: $*"; for f in "$work"/*.log; do echo "== $f"; cat "$f"; done; exit 1; }
if ! command -v ompi-server >/dev/null || ! "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  # MPICH: its own launcher, no ompi-server; the job says whether it can be joined.
  BLACS_DYN_JOB_DIR=$dir timeout 60 "$mpiexec" -n 2 "$prog" >"$work/a.log" 2>&1
  if grep -q "^SKIPPED" "$work/a.log"; then grep "^SKIPPED" "$work/a.log"; exit 77; fi
  fail "no ompi-server and the job did not say it cannot be joined"
fi
ompi-server --no-daemonize --report-uri "$dir/server.uri" &
srv=$!
for _ in $(seq 100); do [[ -s $dir/server.uri ]] && break; sleep 0.1; done
[[ -s $dir/server.uri ]] || fail "ompi-server wrote no URI"
M=("$mpiexec" --oversubscribe --bind-to none --ompi-server "file:$dir/server.uri")
export BLACS_DYN_JOB_DIR=$dir BLACS_DYN_JOIN_TIMEOUT=60 JOIN_CYCLE_GONE=$work/b_gone
t0=$(date +%s.%N)
timeout 150 "${M[@]}" -n 2 "$prog" b,c >"$work/a.log" 2>&1 &
a=$!
BLACS_DYN_JOIN_LAUNCH=b timeout 150 "${M[@]}" -n 2 "$prog" >"$work/b.log" 2>&1 &
b=$!
BLACS_DYN_JOIN_LAUNCH=c timeout 150 "${M[@]}" -n 2 "$prog" >"$work/c.log" 2>&1 &
c=$!
wait $b
rb=$?
tb=$(date +%s.%N)
a_alive=0
kill -0 $a 2>/dev/null && a_alive=1
touch "$work/b_gone"  # A and C end once they see it
wait $a
ra=$?
wait $c
rc=$?
ta=$(date +%s.%N)
if grep -q "^SKIPPED" "$work/a.log"; then grep "^SKIPPED" "$work/a.log"; exit 77; fi
cat "$work/a.log"
((ra != 124 && rb != 124 && rc != 124)) || fail "an mpiexec did not return within 150 s (A $ra, B $rb, C $rc): a hang"
((ra == 0)) || fail "launch A (the job) ended with status $ra"
((rb == 0)) || fail "launch B (joined, then left) ended with status $rb"
((rc == 0)) || fail "launch C (joined) ended with status $rc"
grep -q "^PASS" "$work/a.log" || fail "the job did not pass its checks"
grep -q "^step 3: world 4 " "$work/a.log" || fail "A and C did not compute on after B left"
((a_alive)) || fail "the job ended before launch B's mpiexec returned: B did not leave while the others went on"
grep -q "joined b " "$dir/join.log" && grep -q "joined c " "$dir/join.log" || fail "join.log does not record both joins"
printf 'B left and its mpiexec returned %.1f s before the job ended; all three mpiexec returned 0\n' \
  "$(echo "$ta - $tb" | bc -l)"
# No process of the job left: each ends by itself (waited for, 20 s at most).
for _ in $(seq 1 200); do
  left=
  for pid in $(pgrep -f "$(basename "$prog")" || true); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "BLACS_DYN_JOB_DIR=$dir" && left+=" $pid"
  done
  [[ -z $left ]] && break
  sleep 0.1
done
[[ -z $left ]] || fail "processes of the job left 20 s after its end:$left"
cat "$dir/join.log"
echo PASS
