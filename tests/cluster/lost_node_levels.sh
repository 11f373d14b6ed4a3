#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster: a job of 6 processes (2x3, 2 per node on node1-3) keeps
# checkpoint levels in node-local storage (/dev/shm, each node its own <dir>/<host>): the
# local level every iteration, the partner level (a copy on the next node of the ring)
# every 2, and a global HDF5 checkpoint every 5. During iteration 13 (held there by
# RESIZE_FAULT=pause-in-iteration) every process of node3 is SIGKILLed and node3's storage
# removed (its memory is gone); the global checkpoint directory is moved away, so no
# file-system read is possible. malleable-run --on-failure restart relaunches on
# node1,node2 (4 processes, 2x2) with --restart-levels: the survivors rebuild iteration 12
# from their local copies and the partner copies of node3's processes that node1 keeps,
# run one iteration (a stop file made before the kill) and pass the driver's check against
# serial OpenBLAS.
# Prints iterations lost and the time from the kill to the first iteration after the
# restart (compare cluster.lost_node: the global checkpoint every 5, 2 iterations lost).
# Leaves nothing behind (the level directory, the cluster).
# Usage: lost_node_levels.sh <source dir> <build dir> [levels|global|corrupt]
# `global` (scripts/bench/levels.sh recovery): the same job and kill without levels,
# relaunched from the global HDF5 checkpoint (today's path), for the comparison: iterations
# lost, time to compute again, bytes of the HDF5 file read.
# `corrupt` (cluster.lost_node_levels_corrupt): as `levels`, but every partner copy of old
# rank 4 (node3's first process) that node1 keeps has a payload byte flipped and the global
# directory stays: each is refused by its checksum when chosen, and rank 4's blocks, in no
# level any more, come from the global checkpoint of iteration 10 (said).
SRC=$1 BUILD=$2 MODE=${3:-levels}
[[ $MODE == levels || $MODE == global || $MODE == corrupt ]] ||
  { echo "usage: $0 SRC BUILD [levels|global|corrupt]" >&2; exit 2; }
. "$SRC/tests/cluster/harness.sh"
cluster_begin 3
work=$(mktemp -d)
levels=$(mktemp -d /dev/shm/malleable-lost-node-levels.XXXXXX)
trap 'rc=$?; kill $(jobs -p) 2>/dev/null || true; rm -rf "$work" "$levels"; cluster_end $rc' EXIT
export RESIZE_HISTORY=off
prog=pdgemm_resizable
now() { echo "$EPOCHREALTIME"; }

d=$work/global log=$work/job.log
mkdir -p "$d"
level_flags=(--checkpoint-local 1 --checkpoint-partner 2 --checkpoint-local-dir "$levels")
[[ $MODE == global ]] && level_flags=()
stamp_both "$log" "$CLUSTER" exec node1 env RESIZE_FAULT=pause-in-iteration:13:120:$work/go MALLEABLE_MPIEXEC="mpiexec --oversubscribe --bind-to none" \
  timeout 120 "$BUILD/bin/malleable-run" -n 6 --hosts node1,node2,node3 --on-failure restart -- \
  "$BUILD/apps/$prog" -n 240 --nb 16 -g 2x3 -i 100000 --checkpoint "$d" --checkpoint-every 5 --keep 3 \
  "${level_flags[@]}" --stop-file "$work/stop" &
job=$!
wait_for "$log" "\] iter +1 +grid 2x3" 60 >/dev/null
victims=$(pids_on node3 $prog) survivors="$(pids_on node1 $prog) $(pids_on node2 $prog)"
[[ $(wc -w <<<"$victims") -eq 2 && $(wc -w <<<"$survivors") -eq 4 ]] ||
  fail "expected 2 processes of the job on node3 ($victims) and 4 on node1/2 ($survivors)"
wait_for "$log" "fault injection - every process pauses 120 s in iteration 13" 60 >/dev/null
# While every process is held (it reads and writes no level, no checkpoint, and looks for
# no stop file until the pause ends), before the kill and so before any relaunch: node3's
# storage removed, the global checkpoint out of reach, the partner copies damaged (corrupt),
# and the stop file made, so that the relaunch ends after its first iteration whatever the
# load (made after the lost-node line, a relaunch could run more iterations first).
rm -rf "$levels/node3"           # node3's memory is gone
[[ $MODE == levels ]] && mv "$d" "$work/global.unreachable"  # no global checkpoint can be read
if [[ $MODE == corrupt ]]; then  # one payload byte of each of rank 4's partner copies flipped
  copies=("$levels"/node1/pdgemm.partner.r4-6.v*)
  [[ -f ${copies[0]} ]] || fail "no partner copy of rank 4 on node1: $(ls "$levels/node1")"
  for f in "${copies[@]}"; do
    at=$(($(stat -c %s "$f") - 100))
    byte=$(od -An -tu1 -j "$at" -N1 "$f" | tr -d ' ')
    printf "\\$(printf '%03o' $((byte ^ 0xff)))" | dd of="$f" bs=1 seek="$at" conv=notrunc status=none
  done
fi
touch "$work/stop"
t_kill=$(now)
kill -9 $victims
touch "$work/go"  # the survivors go on once node3's processes are dead (the pause's release file)
lost=$(wait_for "$log" "malleable-run: lost node" 60)
echo "${lost#* }"
grep -q "lost node node3 " <<<"$lost" || fail "the message does not name node3 alone: $lost"
rc=0
wait $job || rc=$?
[[ $rc -eq 0 ]] || { cat "$log"; fail "malleable-run exit $rc"; }
wait_for "$log" "stderr closed" 30 >/dev/null
[[ $(grep -c "stop requested" "$log") -eq 1 ]] || { cat "$log"; fail "expected one stop (the relaunch's)"; }
if [[ $MODE == corrupt ]]; then
  grep -q "restart from levels: .*pdgemm.partner.r4-6.v000012: checksum mismatch: the data is damaged; choosing again" "$log" ||
    { cat "$log"; fail "the damaged partner copy of rank 4 (version 12) was not refused"; }
  fallback=$(grep -m1 "are in no level; reading iteration" "$log") || { cat "$log"; fail "no fallback to the global level"; }
  echo "${fallback#* }"
  grep -q "the blocks of 1 of 6 old processes (ranks 4) are in no level; reading iteration 10 from the global checkpoint" \
    <<<"$fallback" || fail "not rank 4 alone from the global checkpoint of iteration 10"
  grep -q "result check: B = (sA)^11 B0: .*OK" "$log" || { cat "$log"; fail "the restarted job's result check"; }
  echo "$(grep -o 'result check.*' "$log")"
  echo "PASS"
  exit 0
fi
if [[ $MODE == global ]]; then  # today's relaunch from the HDF5 file, for the comparison
  restart=$(grep -m1 "malleable-run: restarting from" "$log") || { cat "$log"; fail "no restart"; }
  echo "${restart#* }"
  file=$(sed -E 's/.*restarting from ([^ ]*) .*/\1/' <<<"$restart")
  it_ck=$((10#$(sed -E 's/.*-([0-9]{6})\.h5$/\1/' <<<"$file")))
  bytes=$(stat -c %s "$file") || fail "the checkpoint read ($file) is not there"
  it_last=$(grep -E "\] iter +[0-9]+ +grid 2x3" "$log" | tail -1 | awk '{print $4}')
  first=$(grep -m1 -E "\] iter +[0-9]+ +grid 2x2 " "$log") || fail "the restarted job did not iterate on 2x2"
  # Matrices read back: the session's restart line (before its first iteration).
  ready=$(grep -m1 -E "\] restart from .*\.h5" "$log") || ready=$first
  grep -q "result check: B = (sA)^$((it_ck + 1)) B0: .*OK" "$log" || { cat "$log"; fail "the restarted job's result check"; }
  echo "RESULT global: killed after iteration $it_last, restarted from the global checkpoint of iteration $it_ck:" \
    "$((it_last - it_ck)) iterations lost, $bytes bytes read from the file system; matrices read back and computing" \
    "$(secs "$t_kill" "${ready%% *}") s after the kill (first iteration done after $(secs "$t_kill" "${first%% *}") s)"
  echo "PASS"
  exit 0
fi
restart=$(grep -m1 "malleable-run: restarting from" "$log") || { cat "$log"; fail "no restart"; }
echo "${restart#* }"
grep -q "restarting from the checkpoint levels on node1,node2: 4 processes, grid 2x2" <<<"$restart" ||
  fail "not restarted from the levels on node1,node2 2x2"
line=$(grep -m1 "restart from levels in $levels at iteration" "$log") || { cat "$log"; fail "no restart-from-levels line"; }
echo "${line#* }"
grep -q "at iteration 12: 4 old processes from local copies, 2 from partner copies, 0 bytes from the global checkpoint; 6 -> 4 processes, now on 2x2" <<<"$line" ||
  fail "not rebuilt from 4 local and 2 partner copies of iteration 12"
grep -q "global checkpoint" <(grep -v "0 bytes from the global checkpoint" "$log") && fail "the global checkpoint was used"
# The relaunch made the global directory again for its own last checkpoint only.
[[ $(ls "$d" 2>/dev/null | tr '\n' ' ') == "pdgemm-000013.h5 " ]] || fail "the global directory holds: $(ls "$d")"
it_last=$(grep -E "\] iter +[0-9]+ +grid 2x3" "$log" | tail -1 | awk '{print $4}')
first=$(grep -m1 -E "\] iter +[0-9]+ +grid 2x2 " "$log") || fail "the restarted job did not iterate on 2x2"
t_first=${first%% *}
[[ $(awk '{print $4}' <<<"$first") -eq 13 ]] || fail "restarted from iteration 12 but continued at: $first"
grep -q "result check: B = (sA)^13 B0: .*OK" "$log" || { cat "$log"; fail "the restarted job's result check"; }
[[ $it_last -eq 12 ]] || fail "killed after iteration $it_last (expected 12)"
echo "$(grep -o 'result check.*' "$log")"
# The relaunched job meets the same injected 20 s pause in its first iteration (13), so the
# time to compute again is taken when its matrices are rebuilt (the restart line).
t_ready=${line%% *}
echo "RESULT levels: killed after iteration $it_last, rebuilt iteration 12 from the levels: 0 iterations lost," \
  "0 bytes read from the file system; matrices rebuilt on node1,node2 and computing $(secs "$t_kill" "$t_ready") s" \
  "after the kill (first iteration done after $(secs "$t_kill" "$t_first") s)"
echo "PASS"
