#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster's Slurm: a malleable job holding 4 nodes gives 2 back
# to a waiting rigid job (whole nodes, then scontrol update), the rigid job runs there
# while the first continues on 2, and when it ends the first grows back onto 2 nodes
# acquired from Slurm (expand dependency). Both results are checked; Slurm's own view
# (squeue every 0.5 s) must show the two jobs side by side. Small problem, and the payoff
# test off (RESIZE_SLURM_ITERATIONS=0: grow whenever nodes are idle) so that it runs in
# about a minute; scripts/bench/slurm.sh slurm runs the payoff-aware version. The first
# job has iterations to spare and is asked to stop (--stop-when-regrown) once it has grown
# back, so the scenario does not depend on how fast this machine computes.
# Usage: slurm_scenario.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
cluster_begin 4 --slurm
work=$(mktemp -d)
export RESIZE_SLURM_ITERATIONS=0
"$SRC/scripts/bench/slurm.sh" scenario --out "$work" --mode malleable --n 400 --iters 1000000 --rigid-iters 30 \
  --submit-after 3 --build-dir "$BUILD" --deadline 240 --stop-when-regrown || { tail -30 "$work"/*_job.out; fail "the scenario"; }
log=$work/malleable_job.out
grep -E '^\[slurm\]|remap after' "$log"
grep -q "growing onto held node(s) node\[2-4\]" "$log" || fail "the job did not spread over its 4 nodes"
grep -Eq "gave back node[34],node[34]" "$log" || fail "the job did not give node3 and node4 back"
grep -q "returned the nodes to Slurm; the job now holds node\[1-2\]" "$log" || fail "Slurm did not take the nodes back"
grep -q "Slurm granted node\[3-4\]" "$log" || fail "the job did not get node3 and node4 back from Slurm"
awk '/gave back/{s=1} s && /remap after.*expand 2x2 -> 2x4/{g=1} END{exit !g}' "$log" || fail "no expansion after the shrink"
python3 - "$work/timeline.tsv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by_t = {}
for r in rows:
    by_t.setdefault(r["t"], {})[r["name"]] = r
side = [t for t, j in by_t.items() if j.get("rigid", {}).get("state") == "RUNNING" and j.get("first", {}).get("state") == "RUNNING"]
assert side, "Slurm never showed the rigid job running beside the first one"
t = side[0]
print(f"at t={t} s Slurm shows first on {by_t[t]['first']['nodelist']} and rigid on {by_t[t]['rigid']['nodelist']}")
assert by_t[t]["first"]["nodes"] == "2" and by_t[t]["rigid"]["nodes"] == "2", by_t[t]
assert set(by_t[t]["rigid"]["nodelist"].strip("node[]").replace("-", ",").split(",")) <= {"3", "4"}, by_t[t]
PY
grep "result check" "$work/malleable_job.out" "$work/rigid_job.out"
rm -rf "$work"
echo "PASS"
