#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growing by joining refuses what is not the job's own (docs/guide/joining.md,
# "Refusals"): a PDGEMM job (malleable-run --job-dir, 2x2) runs while, one after
# the other, launches try to join it that must not: one without the job's secret, one of
# another user (it cannot read the job's directory; and a request planted there by
# another uid), a stale launch (started for another run of the job), a launch of another
# program, one killed before the merge (its heartbeat stops while the job's rank 0 is
# stopped), one whose last process is killed right after the connection and one killed
# before it acknowledges the prepare. Each is refused or called off within a bounded
# time (BLACS_DYN_JOIN_TIMEOUT=8) with a message naming it, logged in DIR/join.log, and
# the job goes on on 2x2 unchanged. A second job orders a launch that never comes (its
# remote shell fails): the expansion is called off after the join timeout and the job goes
# on. Both jobs end with their result checked; no process of either is left.
# Usage: join_refusals.sh <source dir> <build dir> <mpiexec>
set -uo pipefail
SRC=$1 BUILD=$2 mpiexec=$3
prog=$BUILD/apps/pdgemm_resizable
work=$(mktemp -d)
chmod 755 "$work"
run=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
export MALLEABLE_MPIEXEC=${MALLEABLE_MPIEXEC:-"$mpiexec --oversubscribe --bind-to none"} OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
export BLACS_DYN_JOIN_TIMEOUT=8
pids=()
cleanup() {
  local rc=$? p
  [[ -n ${rank0:-} ]] && kill -CONT "$rank0" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAILED: $*"; for f in "$work"/*.log "$work"/job*/join.log; do [[ -f $f ]] && { echo "== $f"; cat "$f"; }; done; exit 1; }
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; growing by joining needs it)"; exit 77; }
wait_for() {  # <file> <regex> <seconds>
  local i
  for ((i = 0; i < $3 * 20; ++i)); do grep -Eq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no line '$2' in $1 within $3 s"
}
iterations() { grep -c "^\[pdgemm\] iter" "$work/job.log"; }
# The job computes on, on 2x2, after a refusal: two more iterations, no expansion.
goes_on() {  # <what>
  local k
  k=$(iterations)
  for _ in $(seq 1 600); do (($(iterations) >= k + 2)) && break; sleep 0.05; done
  (($(iterations) >= k + 2)) || fail "the job stopped after $1"
  # (a refused launch the session tried to take is a failed expansion: "expand ... FAILED")
  grep -Eq "expand 2x2 -> [0-9x]+ \(" "$work/job.log" && fail "the job grew after $1"
  echo "ok: $1: refused, the job goes on on 2x2"
}
# A launch that must not join: it ends within <seconds> with a non-zero status, the job
# names it (stderr and join.log) and goes on.
refused() {  # <id> <seconds> <regex in the job's message> <what> <launch command...>
  local id=$1 secs=$2 re=$3 what=$4 rc
  shift 4
  timeout "$secs" "$@" >"$work/$id.log" 2>&1
  rc=$?
  ((rc != 0 && rc != 124)) || { cat "$work/$id.log"; fail "$what: the launch ended with status $rc (it must be refused in time)"; }
  wait_for "$dir/join.log" "refused $id: .*$re" 10
  wait_for "$work/job.log" "blacs-dyn: refused launch $id.*$re" 10  # (forwarded by mpiexec: it may come later)
  goes_on "$what"
}

dir=$work/job
timeout 600 "$run" --job-dir "$dir" -n 4 -- "$prog" -n 240 --nb 16 -g 2x2 -i 1000000 -p fixed \
  --stop-file "$work/stop" >"$work/job.log" 2>&1 &
pids+=("$!")
job=$!
wait_for "$work/job.log" "^\[pdgemm\] iter +2 " 120
if grep -q "the job cannot be joined: this MPI" "$work/job.log"; then
  echo "SKIPPED: $(grep -m1 -o 'the job cannot be joined: .*' "$work/job.log")"
  exit 77
fi

refused nosecret 60 "wrong secret" "a launch without the job's secret" \
  env BLACS_DYN_FAULT=wrong-secret "$run" --join "$dir" -n 2 --id nosecret
refused stale 60 "a stale launch" "a stale launch" \
  env BLACS_DYN_JOIN_INCARNATION=00000000deadbeef "$run" --join "$dir" -n 2 --id stale
refused wrongprog 60 "a wrong program" "a launch of another program" \
  "$run" --join "$dir" -n 2 --id wrongprog -- "$BUILD/apps/pdgemv_resizable" -n 100
refused afterconnect 60 "did not open the hand-shake" "a launch killed right after the connection" \
  env BLACS_DYN_FAULT=kill-joiner-after-connect "$run" --join "$dir" -n 2 --id afterconnect
refused beforeack 60 "did not acknowledge" "a launch killed before it acknowledged the prepare" \
  env BLACS_DYN_FAULT=kill-joiner-before-ack "$run" --join "$dir" -n 2 --id beforeack

# Another user: it cannot read the job's directory, so it never gets in ...
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$run" --join "$dir" -n 2 --id otheruid >"$work/otheruid.log" 2>&1
  rc=$?
  ((rc != 0)) || { cat "$work/otheruid.log"; fail "another user's launch ended with status 0"; }
  echo "ok: another user's launch does not get in (status $rc: $(head -1 "$work/otheruid.log"))"
  goes_on "another user's launch"
fi
# ... and a request planted by another uid is refused for its owner.
{
  echo "launch planted"
  sed -n 's/^incarnation /incarnation /p' "$dir/job"
  echo "port 1.0:1"
  echo "host $(hostname)"
  sed -n 's/^program /program /p' "$dir/job"
  echo "uid 65534"
  echo "pid 1"
  echo "procs 1"
  echo "at_start 0"
} >"$dir/join/planted.tmp"
chmod 600 "$dir/join/planted.tmp"
chown 65534:65534 "$dir/join/planted.tmp"
mv "$dir/join/planted.tmp" "$dir/join/planted.req"  # whole, as a launch writes it
wait_for "$dir/join.log" "refused planted: .*belongs to uid 65534" 10
goes_on "a request planted by another uid"

# Killed before the merge: the job's rank 0 is stopped while the launch asks and is killed;
# when rank 0 goes on, the launch's heartbeat is too old.
rank0=$(sed -n 's/^pid //p' "$dir/job")
kill -STOP "$rank0"
setsid "$run" --join "$dir" -n 2 --id killed >"$work/killed.log" 2>&1 &
killed=$!
pids+=("$killed")
for _ in $(seq 1 600); do [[ -f $dir/join/killed.req ]] && break; sleep 0.05; done
[[ -f $dir/join/killed.req ]] || { kill -CONT "$rank0"; fail "the launch to kill wrote no request"; }
kill -9 -- "-$killed" 2>/dev/null
for pid in $(pgrep -f pdgemm_resizable || true); do  # the launch's processes, whatever their group
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "BLACS_DYN_JOIN_LAUNCH=killed" && kill -9 "$pid"
done
# (the event itself: the request's heartbeat older than the job's 5 s limit)
for _ in $(seq 1 300); do
  ((($(date +%s) - $(stat -c %Y "$dir/join/killed.req" 2>/dev/null || date +%s)) > 6)) && break
  sleep 0.1
done
kill -CONT "$rank0"
rank0=
wait_for "$dir/join.log" "refused killed: .*no heartbeat" 20
goes_on "a launch killed before the merge"

touch "$work/stop"
wait "$job"
jrc=$?
cat "$work/job.log"
((jrc == 0)) || fail "the job ended with status $jrc"
grep -Eiq "result check.*OK" "$work/job.log" || fail "the result check"
grep -Eq "remap after iter [0-9]+: (expand|shrink) [0-9x]+ -> [0-9x]+ \(" "$work/job.log" && fail "the job resized"

# A launch that never comes: the job's order cannot be started (its remote shell fails).
MALLEABLE_RSH=false timeout 300 "$run" --job-dir "$work/job2" -n 4 -- "$prog" -n 240 --nb 16 -g 2x2 -i 8 -p scripted \
  -s 2:expand:3x2@nosuchnode=2 >"$work/job2.log" 2>&1
rc=$?
cat "$work/job2.log"
((rc == 0)) || fail "the job whose launch never came ended with status $rc"
grep -Eq "did not come within 8 s" "$work/job2.log" || fail "no message naming the launch that never came"
grep -Eiq "result check.*OK" "$work/job2.log" || fail "the result check of the job whose launch never came"
grep -q "expansion by joining failed: launch j.* did not come" "$work/job2/join.log" || fail "join.log of the second job"
# No process of either job left: each ends by itself (waited for, 20 s at most).
for _ in $(seq 1 200); do
  left=
  for pid in $(pgrep -f "pdgemm_resizable|pdgemv_resizable|malleable-run --join" || true); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -Eqx "BLACS_DYN_JOB_DIR=($dir|$work/job2)" && left+=" $pid"
  done
  [[ -z $left ]] && break
  sleep 0.1
done
[[ -z $left ]] || fail "processes of the jobs left 20 s after their ends:$left"
cat "$dir/join.log"
echo PASS
