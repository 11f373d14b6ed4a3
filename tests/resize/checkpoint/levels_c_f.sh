#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint levels through the C API / the Fortran module: by_restart_c or
# by_restart_f runs 4 iterations on 4 processes on 2 emulated nodes (MALLEABLE_NODE_MAP)
# with the local level every iteration and the partner level every 2; node2's storage is
# deleted; 2 processes on node1 restart from the levels (--restart-levels) on 1x2 and run to
# iteration 7: A = A0 + 7*8/2 holds only if iteration 4 came back exactly (local copies of
# node1, partner copies of node2 kept on node1). No global checkpoint exists.
# Usage: levels_c_f.sh <mpiexec> <program> <app>
set -uo pipefail
mpiexec=$1 prog=$2 app=$3
work=$(mktemp -d /dev/shm/malleable-levels-cf.XXXXXX)
trap 'rm -rf "$work"' EXIT
export RESIZE_HISTORY=off
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
out=$(MALLEABLE_NODE_MAP=every=2 timeout 100 "$mpiexec" "${flags[@]}" -n 4 "$prog" 40 4 --local 1 --partner 2 \
      --local-dir "$work/l" 2>&1); rc=$?
[[ $rc -eq 0 ]] || fail "first run: exit $rc: $out"
[[ -f $work/l/node1/$app.partner.r2-4.v000004 ]] || fail "no partner copy of rank 2 on node1: $(ls -R "$work")"
rm -rf "$work/l/node2"
out=$(MALLEABLE_NODE_MAP=node1,node1 timeout 100 "$mpiexec" "${flags[@]}" -n 2 "$prog" 40 7 --local 1 --partner 2 \
      --local-dir "$work/l" -g 1x2 --restart-levels 2>&1); rc=$?
echo "$out" | grep -E "restart from levels|A = A0|FAILED" | sed 's/^/    /'
[[ $rc -eq 0 ]] || fail "restart from levels: exit $rc: $out"
grep -q "restart from levels in $work/l at iteration 4: 2 old processes from local copies, 2 from partner copies" <<<"$out" ||
  fail "no restart-from-levels line"
grep -q "A = A0 + .*OK" <<<"$out" || fail "result check not OK"
((fails)) && exit 1
echo "PASS: $app: levels written and recovered after a lost node through the $([[ $app == *_c ]] && echo C API || echo Fortran module)"
