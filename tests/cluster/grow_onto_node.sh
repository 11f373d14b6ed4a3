#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster: a job of 4 processes on node1 grows to 3x3 with the
# 5 new processes on node2 (schedule "@node2"), computes, and every rank reports its node;
# PDGEMM checked against serial OpenBLAS by the driver (exit status). Also checks that
# processes on different nodes talk over TCP: shared memory alone cannot reach across.
# Usage: grow_onto_node.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
cluster_begin 2 --rate 1gbit
work=$(mktemp -d)

# Shared memory (vader) cannot connect node1 to node2; TCP can.
if mpirun_on node1 -n 2 --host node1,node2 --mca btl self,vader "$BUILD/apps/pdgemm_smoke" 64 8 1 2 \
  >"$work/vader.log" 2>&1; then
  fail "a job across two nodes ran with shared memory only: the nodes are not separate"
fi
grep -qiE "unreachable|unable to reach each other" "$work/vader.log" || { cat "$work/vader.log"; fail "expected Open MPI to find node2 unreachable without TCP"; }
mpirun_on node1 -n 2 --host node1,node2 --mca btl self,tcp "$BUILD/apps/pdgemm_smoke" 64 8 1 2 \
  || fail "PDGEMM across node1 and node2 over TCP"

timeout 240 "$CLUSTER" exec node1 mpiexec --oversubscribe --bind-to none -n 4 \
  "$BUILD/apps/pdgemm_resizable" -n 480 --nb 32 -i 4 -p scripted -s 2:expand:3x3:local2@node2 \
  --json "$work/run.json" | tee "$work/run.log" || fail "the resizable PDGEMM (result check or resize) failed"
python3 - "$work/run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["resizes"]
assert len(r) == 1 and r[0]["ok"], r
hosts = r[0]["rank_hosts"]
print("ranks per node after the expansion:", {h: [i for i, x in enumerate(hosts) if x == h] for h in sorted(set(hosts))})
assert hosts == ["node1"] * 4 + ["node2"] * 5, hosts
assert r[0]["to"] == {"rows": 3, "cols": 3} and r[0]["bytes_inter_node"] > 0, r[0]
print(f"expansion 2x2 -> 3x3 onto node2: total {r[0]['t_total_s']*1e3:.0f} ms (spawn {r[0]['t_spawn_s']*1e3:.0f} ms),"
      f" {r[0]['bytes_inter_node']/2**20:.2f} MiB between nodes, {r[0]['bytes_intra_node']/2**20:.2f} MiB within")
PY
rm -rf "$work"
echo "PASS"
