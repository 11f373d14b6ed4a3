#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster: a job of 6 processes (2x3, 2 per node on node1-3)
# checkpoints every 5 iterations; every process of it on node3 is SIGKILLed, once during
# iteration 13 (held there by the test hook RESIZE_FAULT=pause-in-iteration) and once during
# a resize after iteration 12 (a shrink 2x3 -> 2x2 held in its redistribution by
# RESIZE_FAULT=pause-in-redistribution, after matrix A moved), each pause lasting until the
# test has killed (its release file); the kills are therefore at a known point, and 2 completed iterations (11, 12) are lost each time. The job must end
# within 30 s with a message naming node3, none of its processes left on node1/node2, and
# malleable-run --on-failure restart must restart it from the newest complete
# checkpoint on node1,node2 (4 processes, 2x2); the restarted job runs one iteration (a stop
# file made before the kill) and passes the driver's check against serial OpenBLAS. Prints
# iterations lost and the time from the kill to the end of the job and to the first
# iteration after the restart.
# Usage: lost_node.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
cluster_begin 3
work=$(mktemp -d)
trap 'rc=$?; kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"; cluster_end $rc' EXIT
export RESIZE_HISTORY=off
prog=pdgemm_resizable
now() { echo "$EPOCHREALTIME"; }

scenario() {  # <name> <trigger regex> <environment (VAR=VALUE ...)> [driver args...]
  local name=$1 trigger=$2 envs=$3 d=$work/$1 log=$work/$1.log; shift 3
  mkdir -p "$d"
  # The launcher's output, each line stamped (harness.sh).
  stamp_both "$log" "$CLUSTER" exec node1 env $envs MALLEABLE_MPIEXEC="mpiexec --oversubscribe --bind-to none" \
    timeout 120 "$BUILD/bin/malleable-run" -n 6 --hosts node1,node2,node3 --on-failure restart -- \
    "$BUILD/apps/$prog" -n 240 --nb 16 -g 2x3 -i 100000 --checkpoint "$d" --checkpoint-every 5 --keep 3 \
    --stop-file "$d/stop" "$@" &
  local job=$!
  # The job's processes per node, found once it iterates (so that the kill follows the
  # trigger line at once).
  wait_for "$log" "\] iter +1 +grid 2x3" 60 >/dev/null
  local victims survivors t_kill
  victims=$(pids_on node3 $prog) survivors="$(pids_on node1 $prog) $(pids_on node2 $prog)"
  [[ $(wc -w <<<"$victims") -eq 2 && $(wc -w <<<"$survivors") -eq 4 ]] ||
    fail "$name: expected 2 processes of the job on node3 ($victims) and 4 on node1/2 ($survivors)"
  wait_for "$log" "$trigger" 60 >/dev/null
  # The stop file before the kill, while every process is held (no process looks for it
  # before the pause ends): the restarted job, which can only start after the kill, ends
  # after its first iteration whatever the load (touched after the lost-node line, the
  # restart could run more iterations before it existed).
  touch "$d/stop"
  t_kill=$(now)
  kill -9 $victims
  # The survivors go on once node3's processes are dead (the pause ends on the release
  # file, 120 s at most): the kill lands inside the pause whatever the load.
  touch "$d/go"
  local lost t_end
  lost=$(wait_for "$log" "malleable-run: lost node" 60)
  t_end=${lost%% *}
  echo "$name: ${lost#* }"
  grep -q "lost node node3 " <<<"$lost" || fail "$name: the message does not name node3 alone: $lost"
  awk -v a="$t_kill" -v b="$t_end" 'BEGIN{exit !(b - a <= 30)}' || fail "$name: the job took $(secs "$t_kill" "$t_end") s to end"
  # Nothing of the failed job may outlive the 30 s (a zombie awaiting its parent counts).
  local pid left t_gone
  while :; do
    left=
    for pid in $survivors; do
      if [[ -d /proc/$pid ]]; then left+=" $pid($(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true))"; fi
    done
    t_gone=$(now)
    if [[ -z $left ]]; then break; fi
    if awk -v a="$t_kill" -v b="$t_gone" 'BEGIN{exit !(b - a > 30)}'; then
      fail "$name: processes of the failed job still there on node1/node2 30 s after the kill:$left"
    fi
    sleep 0.05
  done
  local rc=0
  wait $job || rc=$?
  [[ $rc -eq 0 ]] || { cat "$log"; fail "$name: malleable-run exit $rc"; }
  wait_for "$log" "stderr closed" 30 >/dev/null
  local restart file it_ck it_last first t_first
  restart=$(grep -m1 "malleable-run: restarting from" "$log") || fail "$name: no restart"
  echo "$name: ${restart#* }"
  grep -q "on node1,node2: 4 processes, grid 2x2" <<<"$restart" || fail "$name: not restarted on node1,node2 2x2"
  file=$(sed -E 's/.*restarting from ([^ ]*) .*/\1/' <<<"$restart")
  it_ck=$((10#$(sed -E 's/.*-([0-9]{6})\.h5$/\1/' <<<"$file")))
  # the last iteration the 6 processes completed, and the first one of the restarted job
  it_last=$(grep -E "\] iter +[0-9]+ +grid 2x3" "$log" | tail -1 | awk '{print $4}')
  first=$(grep -m1 -E "\] iter +[0-9]+ +grid 2x2 " "$log") || fail "$name: the restarted job did not iterate on 2x2"
  t_first=${first%% *}
  [[ $(awk '{print $4}' <<<"$first") -eq $((it_ck + 1)) ]] || fail "$name: restarted from iteration $it_ck but continued at: $first"
  grep -q "result check: B = (sA)^$((it_ck + 1)) B0: .*OK" "$log" || { cat "$log"; fail "$name: the restarted job's result check"; }
  [[ $(grep -c "stop requested" "$log") -eq 1 ]] || { cat "$log"; fail "$name: expected one stop (the restarted job's)"; }
  [[ $it_last -eq 12 && $it_ck -eq 10 ]] || fail "$name: killed after iteration $it_last (expected 12), restarted from $it_ck (expected 10)"
  echo "$name: $(grep -o 'result check.*' "$log")"
  echo "RESULT $name: killed after iteration $it_last, restarted from the checkpoint of iteration $it_ck:" \
    "$((it_last - it_ck)) iterations lost; job ended $(secs "$t_kill" "$t_end") s after the kill (its last process on" \
    "node1/node2 gone after $(secs "$t_kill" "$t_gone") s), first iteration" \
    "on node1,node2 $(secs "$t_kill" "$t_first") s after it"
}

# During an iteration: iteration 13 holds every process after its computation until the
# test has killed node3's processes (RESIZE_FAULT=pause-in-iteration, its release file
# $work/<scenario>/go, 120 s at most); the last checkpoint was taken after iteration 10.
scenario iteration "fault injection - every process pauses 120 s in iteration 13" \
  RESIZE_FAULT=pause-in-iteration:13:120:$work/iteration/go
# During a resize: the shrink 2x3 -> 2x2 after iteration 12 waits after moving A, until
# the kill.
scenario resize "fault injection - every process pauses 120 s in the redistribution" \
  RESIZE_FAULT=pause-in-redistribution:120:$work/resize/go \
  -p scripted -s 12:shrink:2x2
grep -q "remap after iter" "$work/resize.log" && fail "resize: the shrink completed before the kill"
echo "PASS"
