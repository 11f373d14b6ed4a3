#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The simulator checked against the emulated cluster: simulate exactly one workload file (the one the
# emulated cluster ran, 8-16 nodes) with the emulated cluster's cost constants, and compare
# each metric with the emulated run's (scripts/bench/workload/compare.py, target ±15%).
#
#   scripts/bench/workload_validate.sh WORKLOAD.json [EMULATED.json | SUMMARY.csv] [build-dir]
# EMULATED.json: the emulated run's metrics (summary.csv's column names); SUMMARY.csv: its
# latest emulated row with the workload's node count and malleable share (and with RANGE
# set, e.g. RANGE=grow, that node range: summary.csv's `range`). Without either,
# only the simulated metrics are printed. Environment: COSTS (sim/costs/emulated.json),
# SIM_FLAGS (extra flags, default "--start-ranges --interval 2": malleable jobs submitted
# with a node range, the policy asking every 2 s as the real one does; drop --start-ranges
# when the emulated jobs asked for a fixed size; none when no job of the workload is
# malleable: the simulator refuses options without an effect), OUT (the simulated
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
# (run_flags.py; a rigid run none of the malleable jobs' flags, a moldable run, never
# resized, its node ranges without --interval), Slurm's conservative backfilling, and the
# resize costs and Slurm's
# latencies measured over all the runs given (one build's runs: cluster_report.py costs
# into DIR/../costs_validation.json; COSTS overrides): the table printed and written to
# DIR/validation.md. SIM_FLAGS adds flags to every run's. SPREAD=1 also simulates each
# run with each of Slurm's latencies (launch_s, decision_s, update_s, sched_interval_s)
# at half and at one and a half times its measured value and prints each metric's range
# (how much of an error the noise of those measurements alone can make).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -ge 1 ]] || { sed -n 3,21p "$0" >&2; exit 2; }
spread() {  # DIR FLAGS: the simulated metrics' range under Slurm's latencies x0.5 and x1.5
  local d=$1 flags=$2 tmp costs=$COSTS
  tmp=$(mktemp -d)
  python3 "$here/scripts/bench/workload/measured_runtimes.py" "$d/workload.json" "$d/jobs.json" -o "$tmp/w.json" \
    --as-run "$d/stream.json" 2>/dev/null
  for key in launch_s decision_s update_s sched_interval_s; do
    for f in 0.5 1.5; do
      python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c[sys.argv[2]]=c.get(sys.argv[2],0)*float(sys.argv[3]); \
json.dump(c,open(sys.argv[4],'w'))" "$costs" "$key" "$f" "$tmp/c.json"
      # shellcheck disable=SC2086
      "$here/build/sim/malleable-clustersim" --workload "$tmp/w.json" --costs "$tmp/c.json" $flags \
        --out "$tmp/m_${key}_$f.json" 2>/dev/null
    done
  done
  python3 - "$d/metrics.json" "$tmp"/m_*.json <<'PY' | tee "$d/validation_spread.md"
import json, sys
emu = json.load(open(sys.argv[1]))
runs = [json.load(open(p)) for p in sys.argv[2:]]
print("| metric | simulated, Slurm's latencies x0.5 to x1.5 | error range |")
print("|---|---|---|")
for m in ["makespan_s", "mean_wait_s", "median_wait_s", "mean_turnaround_s", "resize_time_s_per_job"]:
    v = [r[m] for r in runs]
    e = [(x - emu[m]) / emu[m] for x in v] if emu.get(m) else None
    print(f"| {m} | {min(v):.4g} to {max(v):.4g} | " + (f"{min(e):+.1%} to {max(e):+.1%} |" if e else "not compared |"))
PY
  rm -rf "$tmp"
}
if [[ $1 == --runs ]]; then
  shift
  rc=0
  # the runs may be packed (docs/data/workload/runs.tar.xz): the study is unpacked for this
  # script (it writes validation.md into each run) and packed again at its end
  archive=$here/scripts/bench/data_archive.py
  study=$(python3 "$archive" study "$1")
  if [[ -n $study && -f $study/runs.tar.xz ]]; then
    python3 "$archive" unpack "$study" >/dev/null
    trap 'python3 "$archive" pack "$study"' EXIT
  fi
  if [[ -z ${COSTS:-} ]]; then
    COSTS=$(dirname "$1")/costs_validation.json
    python3 "$here/scripts/bench/workload/cluster_report.py" costs "$@" -o "$COSTS"
    python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print('costs over', len(sys.argv) - 2, 'runs:',
      ', '.join(f'{k} {v:.3g}' for k, v in c.items() if not k.startswith('_') and type(v) is float))" "$COSTS" "$@"
  fi
  export COSTS
  for d in "$@"; do
    # only the flags that act in this run: a rigid run (no malleable job) none of the
    # malleable jobs', a moldable one (--policy none) no policy queries
    case $(python3 "$here/scripts/bench/workload/run_flags.py" --kind "$d") in
      rigid) ranges="" ;;
      moldable) ranges="--start-ranges " ;;
      *) ranges="--start-ranges --interval 2 " ;;
    esac
    flags="$ranges--backfill conservative $(python3 "$here/scripts/bench/workload/run_flags.py" "$d") ${SIM_FLAGS:-}"
    echo "== $d ($flags)"
    MEASURED=$d/jobs.json AS_RUN=$d/stream.json \
      SIM_FLAGS=$flags "$0" "$d/workload.json" "$d/metrics.json" | grep '^|' | tee "$d/validation.md" || rc=1
    [[ ${SPREAD:-0} == 1 ]] && spread "$d" "$flags"
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
if [[ -z ${SIM_FLAGS+set} ]]; then  # the default: a node range and 2-s queries, when a job is malleable
  SIM_FLAGS=""
  python3 -c "import json,sys; sys.exit(not any(j.get('malleable') for j in json.load(open(sys.argv[1]))['jobs']))" \
    "$workload" && SIM_FLAGS="--start-ranges --interval 2"
fi
# shellcheck disable=SC2086
"$bin" "${args[@]}" $SIM_FLAGS
echo "simulated: $(cat "$out")"
[[ -z $emulated ]] && exit 0
read -r nodes share < <(python3 -c "import json,sys; w=json.load(open(sys.argv[1])); print(w['nodes'], w['malleable_share'])" "$workload")
if [[ $emulated == *.csv ]]; then
  python3 "$here/scripts/bench/workload/compare.py" --sim "$out" --csv "$emulated" --nodes "$nodes" --share "$share" \
    ${RANGE:+--range "$RANGE"} --md
else
  python3 "$here/scripts/bench/workload/compare.py" --sim "$out" --emulated "$emulated" --md
fi
