#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An aborted run leaves no name in /dev/shm (node_window_abort.cpp): the program must have
# gone through the node windows and been aborted; then no /dev/shm/malleable-redist.PID.*
# name of its processes (it prints their pids) may remain once mpiexec has returned.
# Another job's segments (other pids, there for microseconds between their creation and
# their unlink) are not this run's: no second look after a wait.
#   node_window_abort.sh MPIEXEC NP PROGRAM [MPIEXEC_FLAGS...]
set -uo pipefail
mpiexec=$1 np=$2 prog=$3
shift 3
out=$(timeout 120 "$mpiexec" "$@" -n "$np" "$prog" 2>&1)
rc=$?
echo "$out" | tail -5
[[ $rc -ne 0 ]] || { echo "FAIL: the run was not aborted (exit 0)"; exit 1; }
bytes=$(sed -n 's/^bytes through windows: //p' <<<"$out")
[[ -n $bytes && $bytes -gt 0 ]] || { echo "FAIL: no bytes went through the node windows before the abort"; exit 1; }
read -r -a pids <<<"$(sed -n 's/^pids: //p' <<<"$out")"
[[ ${#pids[@]} -eq $np ]] || { echo "FAIL: the run did not print its $np processes' pids"; exit 1; }
for pid in "${pids[@]}"; do
  [[ $pid =~ ^[0-9]+$ ]] || { echo "FAIL: '$pid' is not a pid"; exit 1; }
done
pattern="^malleable-redist\.($(IFS='|'; echo "${pids[*]}"))\."
left=$(ls /dev/shm 2>/dev/null | grep -E "$pattern" || true)
[[ -z $left ]] || { echo "FAIL: left in /dev/shm after the aborted run:"; echo "$left"; exit 1; }
echo "OK: aborted (exit $rc) after $bytes bytes through windows; /dev/shm holds no malleable-redist name of its processes (${pids[*]})"
