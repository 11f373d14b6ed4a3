#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 44 §3, "checked against §2": simulate exactly one workload file (the one the
# emulated cluster ran, 8-16 nodes) with the emulated cluster's cost constants, and compare
# each metric with the emulated run's (scripts/bench/workload/compare.py, target ±15%).
#
#   scripts/bench/workload_validate.sh WORKLOAD.json [EMULATED.json | SUMMARY.csv] [build-dir]
# EMULATED.json: the emulated run's metrics (summary.csv's column names); SUMMARY.csv: its
# latest emulated row with the workload's node count and malleable share. Without either,
# only the simulated metrics are printed. Environment: COSTS (sim/costs/emulated.json),
# SIM_FLAGS (extra flags, default "--start-ranges --interval 2": malleable jobs submitted
# with a node range, the policy asking every 2 s as the real one does; drop --start-ranges
# when the emulated jobs asked for a fixed size), OUT (the simulated
# metrics JSON, default a temporary file), RECORDS (per-job CSV), MEASURED (the emulated
# run's per-job jobs.json: real drivers take their measured run times,
# scripts/bench/workload/measured_runtimes.py), AS_RUN (with MEASURED: the run's stream.json,
# submission times and time limits as the run had them).
#
#   scripts/bench/workload_validate.sh --runs DIR...
# Every emulated run directory (workload_cluster.sh's share_<s>/) against its own
# simulation of the workload as that run submitted it: each driver job with its measured
# run time, each job at its measured submission time with its sbatch time limit
# (measured_runtimes.py --as-run), the run's start mode and Slurm's one-change limit
# (run_flags.py), Slurm's conservative backfilling, costs and Slurm's latencies from docs/data/workload/costs_emulated.json
# (measured on the emulated runs; COSTS overrides): the table printed and written to
# DIR/validation.md. SIM_FLAGS adds flags to every run's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -ge 1 ]] || { sed -n 3,20p "$0" >&2; exit 2; }
if [[ $1 == --runs ]]; then
  shift
  rc=0
  for d in "$@"; do
    flags="--start-ranges --interval 2 --backfill conservative $(python3 "$here/scripts/bench/workload/run_flags.py" "$d") ${SIM_FLAGS:-}"
    echo "== $d ($flags)"
    COSTS=${COSTS:-$here/docs/data/workload/costs_emulated.json} MEASURED=$d/jobs.json AS_RUN=$d/stream.json \
      SIM_FLAGS=$flags "$0" "$d/workload.json" "$d/metrics.json" | grep '^|' | tee "$d/validation.md" || rc=1
  done
  exit $rc
fi
workload=$1
emulated=${2:-}
build=${3:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_validate: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
[[ -r $workload ]] || { echo "workload_validate: cannot read $workload" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/sim.json}
if [[ -n ${MEASURED:-} ]]; then
  python3 "$here/scripts/bench/workload/measured_runtimes.py" "$workload" "$MEASURED" -o "$tmp/measured.json" \
    ${AS_RUN:+--as-run "$AS_RUN"}
  workload=$tmp/measured.json
fi
args=(--workload "$workload" --costs "${COSTS:-$here/sim/costs/emulated.json}" --out "$out")
[[ -n ${RECORDS:-} ]] && args+=(--records "$RECORDS")
# shellcheck disable=SC2086
"$bin" "${args[@]}" ${SIM_FLAGS---start-ranges --interval 2}
echo "simulated: $(cat "$out")"
[[ -z $emulated ]] && exit 0
read -r nodes share < <(python3 -c "import json,sys; w=json.load(open(sys.argv[1])); print(w['nodes'], w['malleable_share'])" "$workload")
if [[ $emulated == *.csv ]]; then
  python3 "$here/scripts/bench/workload/compare.py" --sim "$out" --csv "$emulated" --nodes "$nodes" --share "$share" --md
else
  python3 "$here/scripts/bench/workload/compare.py" --sim "$out" --emulated "$emulated" --md
fi
