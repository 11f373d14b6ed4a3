#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# the job stream, small: 5 jobs of a seeded Lublin-Feitelson workload (2 of them
# malleable, one a real PDGEMM; 8-20 s each, about a minute in all) on 4 emulated nodes under Slurm, through
# scripts/bench/workload_cluster.sh (which takes the cluster lock itself). Every job must
# have run and ended with its result check passed, each on a node count within its
# [min, max] (rigid jobs: exactly their size), and the run's metrics must be computed
# (makespan, waits, utilisation within (0, 1], slurmctld's RPCs counted).
# Usage: workload_stream.sh <source dir> <build dir>
set -euo pipefail
SRC=$1 BUILD=$2
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
why=$("$SRC/scripts/cluster.sh" check) || { echo "SKIPPED: $why"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$SRC/scripts/bench/workload_cluster.sh" --nodes 4 --jobs 5 --seed 1 --shares 0.5 --lo 8 --hi 20 \
  --out "$work/data" --img "$work" --costs "$work/costs.json" --no-csv --deadline 240 --build-dir "$BUILD" ||
  { echo "FAILED: the stream"; exit 1; }
python3 - "$work/data/share_0.5" <<'PY'
import json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/metrics.json"))
jobs = json.load(open(f"{d}/jobs.json"))
assert m["jobs"] == 5 and not m["jobs_missing"], m
assert not m["checks_failed"] and not m["checks_missing"], m
assert 0 < m["utilisation"] <= 1.0 and m["makespan_s"] > 0 and m["rpcs_jobs"] > 0, m
assert sum(j["malleable"] for j in jobs) == 2 and any(j["program"] == "pdgemm" for j in jobs), jobs
for j in jobs:
    lo, hi = (j["min_nodes"], j["max_nodes"]) if j["malleable"] else (j["req_nodes"], j["req_nodes"])
    assert all(lo <= n <= hi for n in j["nodes_seen"]), j
    print(f"{j['id']}: {'malleable' if j['malleable'] else 'rigid'} {j['program']}, nodes {j['nodes_seen']}, "
          f"waited {j['start_s'] - j['submit_s']:.1f} s, ran {j['end_s'] - j['start_s']:.1f} s, {j['resizes']} resize(s)")
print(f"makespan {m['makespan_s']:.1f} s, mean turnaround {m['mean_turnaround_s']:.1f} s, "
      f"slurmctld {m['slurm_rpcs_per_job_minute']:.1f} RPCs per job per minute")
PY
echo PASS
