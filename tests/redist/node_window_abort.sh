#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An aborted run leaves no name in /dev/shm (node_window_abort.cpp): the program must have
# gone through the node windows and been aborted; then no /dev/shm/malleable-redist.* name
# may remain. A name seen is looked at again a second later (another job's segment exists
# for microseconds, between its creation and its unlink); one still there fails the test.
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
left=$(ls /dev/shm 2>/dev/null | grep '^malleable-redist\.' || true)
if [[ -n $left ]]; then
  sleep 1
  still=$(comm -12 <(sort <<<"$left") <(ls /dev/shm 2>/dev/null | grep '^malleable-redist\.' | sort))
  [[ -z $still ]] || { echo "FAIL: left in /dev/shm after the aborted run:"; echo "$still"; exit 1; }
fi
echo "OK: aborted (exit $rc) after $bytes bytes through windows; /dev/shm holds no malleable-redist name"
