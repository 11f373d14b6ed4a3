#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growing by joining on one node (docs/guide/joining.md), the resizable PDGEMM driver under
# malleable-run --job-dir, result checked against serial OpenBLAS each time:
#  1. ordered by the job: a scripted 2x2 -> 3x3 at iteration 3 is carried out by a second
#     launch of 5 processes that the job orders from its launcher and joins; the shrink
#     back to 2x2 at iteration 6 lets that launch go: it ends (its mpiexec returns 0)
#     while the job computes on, and the job ends with status 0;
#  2. from another shell: the job runs (sweetspot policy, an empty offer file), a user
#     adds 5 processes with `malleable-run --join DIR -n 5`; the job takes them at its next
#     remap point (2x2 -> 3x3, by join), releases them when the offer file says
#     release=5 (3x3 -> 2x2: the launch ends with status 0), and ends when told.
# Every mpiexec returns (no MPI_Finalize hangs), and no process of the job is left.
# Where the MPI cannot be joined (no ompi-server, MPI_Open_port refused) it is SKIPPED.
# Usage: join_one_node.sh <source dir> <pdgemm_resizable> <mpiexec>
set -uo pipefail
SRC=$1 prog=$2 mpiexec=$3
work=$(mktemp -d)
run=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
export MALLEABLE_MPIEXEC=${MALLEABLE_MPIEXEC:-"$mpiexec --oversubscribe --bind-to none"} OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
export BLACS_DYN_JOIN_TIMEOUT=60
pids=()
cleanup() {
  local rc=$? p
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAILED: $*"; for f in "$work"/*.log "$work"/*/join/*.log "$work"/*/join.log; do [[ -f $f ]] && { echo "== $f"; cat "$f"; }; done; exit 1; }
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; growing by joining needs it to connect launches)"; exit 77; }
# The first line of <file> matching <regex> within <seconds>.
wait_for() {
  local i
  for ((i = 0; i < $3 * 20; ++i)); do grep -Eq "$2" "$1" 2>/dev/null && { grep -Em1 "$2" "$1"; return 0; }; sleep 0.05; done
  fail "no line '$2' in $1 within $3 s"
}
none_left() {  # <job dir>: each process of the job ends by itself (waited for, 20 s at most)
  local pid left=
  for _ in $(seq 1 200); do
    left=
    for pid in $(pgrep -f "$(basename "$prog")" || true); do
      tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "BLACS_DYN_JOB_DIR=$1" && left+=" $pid"
    done
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  fail "processes of the job in $1 left 20 s after its end:$left"
}
skip_if_unsupported() {  # <log>
  if grep -q "the job cannot be joined: this MPI" "$1"; then
    echo "SKIPPED: $(grep -m1 -o 'the job cannot be joined: .*' "$1")"
    exit 77
  fi
}

# 1. Ordered by the job.
d1=$work/job1
timeout 240 "$run" --job-dir "$d1" -n 4 -- "$prog" -n 240 --nb 16 -g 2x2 -i 9 -p scripted -s 3:expand:3x3,6:shrink:2x2 \
  --json "$work/one.json" >"$work/one.log" 2>&1
rc=$?
skip_if_unsupported "$work/one.log"
cat "$work/one.log"
((rc == 0)) || fail "the job ordered its launch and ended with status $rc"
grep -Eq "expand 2x2 -> 3x3 \(local2, 9 procs\): join [0-9.]+ ms" "$work/one.log" || fail "no expansion by join"
grep -Eq "shrink 3x3 -> 2x2 .*: exit [0-9.]+ ms" "$work/one.log" || fail "no shrink back"
grep -Eiq "result check.*OK" "$work/one.log" || fail "the result check"
launch_log=$(ls "$d1"/join/j*-1.log 2>/dev/null | head -1)
[[ -n $launch_log ]] || fail "no log of the ordered launch"
cat "$launch_log"
grep -q "ended (it left the job" "$launch_log" || fail "the joined launch's mpiexec did not end with status 0"
grep -q "joined j" "$d1/join.log" || fail "join.log does not record the join"
python3 - "$work/one.json" <<'PY' || fail "the run's JSON: mechanisms"
import json, sys
r = json.load(open(sys.argv[1]))["resizes"]
assert [x["mechanism"] for x in r] == ["join", "exit"], [x["mechanism"] for x in r]
assert all(x["ok"] for x in r), r
print(f"by join: to the merged world {r[0]['t_spawn_s']*1e3:.0f} ms, whole resize {r[0]['t_total_s']*1e3:.0f} ms")
PY
none_left "$d1"

# 2. From another shell.
d2=$work/job2
offer=$work/offer
: >"$offer"
timeout 300 "$run" --job-dir "$d2" -n 4 -- "$prog" -n 240 --nb 16 -g 2x2 -i 1000000 -p sweetspot --offer "$offer" \
  --stop-file "$work/stop" >"$work/two.log" 2>&1 &
job=$!
pids+=("$job")
wait_for "$work/two.log" "^\[pdgemm\] iter +2 " 120 >/dev/null
skip_if_unsupported "$work/two.log"
timeout 200 "$run" --join "$d2" -n 5 --id user-1 >"$work/user.log" 2>&1 &
user=$!
pids+=("$user")
wait_for "$work/two.log" "expand 2x2 -> 3x3 .*: join " 120
echo "release=5" >"$offer"
wait_for "$work/two.log" "shrink 3x3 -> 2x2" 120
wait "$user"
urc=$?
cat "$work/user.log"
((urc == 0)) || fail "the launch added from another shell ended with status $urc"
kill -0 "$job" 2>/dev/null || fail "the job ended with the launch that left it"
touch "$work/stop"
wait "$job"
jrc=$?
cat "$work/two.log"
((jrc == 0)) || fail "the job ended with status $jrc"
grep -Eiq "result check.*OK" "$work/two.log" || fail "the result check"
grep -q "joined user-1 (5 processes" "$d2/join.log" || fail "join.log does not record launch user-1"
none_left "$d2"
echo PASS
