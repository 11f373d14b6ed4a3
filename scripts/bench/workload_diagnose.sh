#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What the policy adds on one emulated run's workload, simulated: the run's jobs as it
# submitted them (measured_runtimes.py --as-run: the drivers' measured run times, the
# submission times and time limits of the run), Slurm's conservative backfilling and
# latencies (the costs fitted on the runs, costs_validation.json beside the run, else
# COSTS or sim/costs/emulated.json), Slurm with accounting; then the same jobs every one
# rigid, and the malleable ones with node ranges but no resizes, with the arbitration
# (start-full and start on the minimum), each with the three node ranges ([size/2, size],
# "requested"; [size/2, 2 size], "double"; and "grow", [size/2, 2 size] with Slurm asked
# for at most the size asked). Prints one markdown table; ratios are
# against the rigid run of the same invocation (the simulation is deterministic).
#
#   scripts/bench/workload_diagnose.sh RUN_DIR [build-dir]
# RUN_DIR: workload_cluster.sh's share_<s>/ (workload.json, jobs.json, stream.json).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
archive=$here/scripts/bench/data_archive.py
if [[ $# -lt 1 ]] || ! python3 "$archive" cat "$1/workload.json" >/dev/null 2>&1; then
  sed -n 3,13p "$0" >&2
  exit 2
fi
build=${2:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_diagnose: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the run may be packed (docs/data/workload/runs.tar.xz): read from a copy of its files
d=$tmp/run
python3 "$archive" extract "$1" "$d"
costs=${COSTS:-}
if [[ -z $costs ]] && python3 "$archive" cat "$1/../costs_validation.json" >"$tmp/costs_validation.json" 2>/dev/null; then
  costs=$tmp/costs_validation.json
fi
costs=${costs:-$here/sim/costs/emulated.json}
python3 "$here/scripts/bench/workload/measured_runtimes.py" "$d/workload.json" "$d/jobs.json" -o "$tmp/w.json" \
  --as-run "$d/stream.json" 2>/dev/null
for range in requested double; do
  python3 - "$tmp/w.json" "$range" "$tmp/w_$range.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
for j in w["jobs"]:
    if j["malleable"]:
        j["max_nodes"] = j["nodes"] if sys.argv[2] == "requested" else min(w["nodes"], 2 * j["nodes"])
json.dump(w, open(sys.argv[3], "w"))
PY
done
# only the options that act in each run (the simulator refuses the others): the rigid run
# none of the malleable jobs', the ranges without resizes (--policy none) no policy queries
rigid=(--costs "$costs" --backfill conservative)
base=("${rigid[@]}" --start-ranges --one-update off)
"$bin" --workload "$tmp/w_requested.json" "${rigid[@]}" --rigid --out "$tmp/rigid.json" 2>/dev/null
rows=()
for range in requested double grow; do
  wr=$range top=()
  # grow: the double range, Slurm asked for at most the size asked
  [[ $range == grow ]] && wr=double top=(--range-top requested)
  for v in "ranges, no resizes:--policy none" "arbitration, start full:--policy arbiter --start full" \
           "arbitration, start on the minimum:--policy arbiter --start min"; do
    out=$tmp/${range}_${#rows[@]}.json
    queries=(--interval 2)
    [[ $v == *"--policy none"* ]] && queries=()
    # shellcheck disable=SC2086
    "$bin" --workload "$tmp/w_$wr.json" "${base[@]}" "${queries[@]}" ${v#*:} "${top[@]}" --out "$out" 2>/dev/null
    rows+=("$range|${v%%:*}|$out")
  done
done
python3 - "$tmp/rigid.json" "$d" "${rows[@]}" <<'PY'
import json, sys
rigid = json.load(open(sys.argv[1]))
print(f"Simulated: {sys.argv[2]} as the run submitted it; every job rigid: mean turnaround "
      f"{rigid['mean_turnaround_s']:.1f} s, makespan {rigid['makespan_s']:.0f} s, mean wait {rigid['mean_wait_s']:.1f} s")
print()
print("| node range | malleable jobs | mean turnaround s | vs rigid | makespan s | mean wait s | resizes/job |")
print("|---|---|---|---|---|---|---|")
for row in sys.argv[3:]:
    rng, what, path = row.split("|")
    m = json.load(open(path))
    print(f"| {rng} | {what} | {m['mean_turnaround_s']:.1f} | {rigid['mean_turnaround_s'] / m['mean_turnaround_s']:.2f}x "
          f"| {m['makespan_s']:.0f} | {m['mean_wait_s']:.1f} | {m['resizes_per_job']:.2f} |")
PY
