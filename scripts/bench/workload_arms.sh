#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The arms on a real trace, several seeds, with 95% intervals (docs/measurements/workload.md,
# "Targets at a glance"): for each SEED and SHARE of malleable jobs, on the same jobs,
#   rigid               every job rigid (one run: no seed changes it)
#   moldable_requested  a malleable job starts on [ceil(n/2), n], never resized (the old arm)
#   moldable            it starts anywhere in [ceil(n/2), min(M, 2n)], the range a malleable
#                       job may reach, never resized (Slurm starts it on as many as it can give)
#   moldable_efficient  the same range up to the largest size whose added nodes run at 0.5
#                       efficiency or better (the growth's own floor), never resized
#   growth              malleable, growth onto idle nodes only (--no-give-back)
#   giveback            malleable, give-backs for waiting jobs only (--no-growth)
#   malleable           both levers (the project's arbitration, cluster::slurm::arbitrate)
# Malleable arms start on [ceil(n/2), n] (--range-top requested) and reach 2n by growth.
# Time limits kept (the simulator's default: a job ends at its limit, killed; no shrink or
# small start past it). FCFS + EASY, the users' requested times as estimates, the
# scheduler's passes every SCHED_INTERVAL s, a site's prime-time rule where the log shows
# one (PRIME, e.g. "8-17" for KTH: trace_prime_time.py); resize costs
# sim/costs/emulated.json; the policy asked at most every INTERVAL simulated seconds.
# One TSV row per run (runs.tsv), each run's metrics JSON beside it, and the report
# (arms.md: scripts/bench/workload/seed_stats.py, mean and 95% interval of the per-seed
# ratios; an interval holding 1.0 reads "no difference").
#
#   scripts/bench/workload_arms.sh [build-dir]
# Environment: TRACE (sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf), NAME (kth-sp2),
# SEEDS ("1 2 3 4 5"), SHARES ("0.5 1.0"), START (min: the malleable jobs' first launch, the
# simulator's --start), ARMS (all six), INTERVAL (60), SCHED_INTERVAL (60), PRIME (none),
# CORES (1), FIRST/JOBS (a window,
# 0 0: all), SPEEDUP (amdahl | measured: sim/speedup/apps.json), EXTRA (more simulator
# flags for every run, e.g. "--cost-scale 2"; the rigid arm leaves out those the simulator
# refuses without a malleable job), OUT (docs/data/workload/arms/NAME).
# TRACE may be a site's sacct log (its first line JobIDRaw|...: read with --sacct), then
# NODES (the machine's nodes) is needed; NODES also overrides an SWF header's size.
# Runs one simulation at a time under `nice -n 10`.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_arms: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
seeds=${SEEDS:-1 2 3 4 5}
shares=${SHARES:-0.5 1.0}
start=${START:-min}
interval=${INTERVAL:-60}
speedup=${SPEEDUP:-amdahl}
out=${OUT:-$here/docs/data/workload/arms/$name}
arms=" ${ARMS:-rigid moldable_requested moldable moldable_efficient growth giveback malleable} "
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=$out/runs.tsv
log=--swf
head -c 4096 "$trace" | head -n 1 | grep -qE '(^|\|)JobID(Raw)?(\||$)' && log=--sacct
common=("$log" "$trace" --swf-first "${FIRST:-0}" --swf-jobs "${JOBS:-0}"
        --costs "$here/sim/costs/emulated.json" --speedup "$speedup" --sched-interval "${SCHED_INTERVAL:-60}")
[[ -n ${CORES:-} ]] && common+=(--cores-per-node "$CORES")
[[ -n ${NODES:-} ]] && common+=(--nodes "$NODES")
[[ -n ${PRIME:-} ]] && common+=(--prime-time "$PRIME")
[[ $speedup == measured ]] && common+=(--speedup-file "${SPEEDUP_FILE:-$here/sim/speedup/apps.json}")
# shellcheck disable=SC2206
extra=(${EXTRA:-})
# The rigid arm: EXTRA without the options that act on malleable jobs only (refused there).
rigid_extra=() skip=0
for a in "${extra[@]}"; do
  if ((skip)); then skip=0; continue; fi
  case $a in
    --limit-follows-size | --no-expansion | --no-growth | --no-give-back | --start-ranges) continue ;;
    --cost-scale | --one-update | --iteration-s | --interval | --policy | --start | --give-gain-share | \
      --min-growth-efficiency) skip=1; continue ;;
  esac
  rigid_extra+=("$a")
done
echo "workload_arms: $name, seeds $seeds, shares $shares, start $start, speedup $speedup, passes ${SCHED_INTERVAL:-60} s," \
     "prime time ${PRIME:-none} ${EXTRA:-}," \
     "host $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cols="trace share arm seed mean_turnaround_s mean_wait_s median_wait_s makespan_s utilisation killed killed_malleable"
cols+=" time_limit_refusals growth_refusals starts_narrowed resizes_per_job wall_s"
[[ -s $runs ]] || tr ' ' '\t' <<<"$cols" >"$runs"

run() {  # run LABEL SHARE ARM SEED ARGS...: metrics in $out/LABEL.json, one row in runs.tsv
  local label=$1 share=$2 arm=$3 seed=$4
  shift 4
  local t0=$SECONDS
  local more=("${extra[@]}")
  [[ $arm == rigid ]] && more=("${rigid_extra[@]}")
  nice -n 10 "$bin" "${common[@]}" "${more[@]}" --seed "$seed" --malleable-share "$share" "$@" \
    --out "$out/$label.json" --decisions "$tmp/d.jsonl" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  # The decisions' rules counted into the metrics (the log itself is not kept: megabytes).
  python3 - "$out/$label.json" "$tmp/d.jsonl" "$name" "$share" "$arm" "$seed" "$((SECONDS - t0))" "$cols" \
    "$runs" <<'PY'
import collections, json, sys
path, decisions, trace, share, arm, seed, wall, cols, runs = sys.argv[1:]
m = json.load(open(path))
rules = collections.Counter()
shrinks = grows = 0
for line in open(decisions):
    d = json.loads(line)
    rules[d["rule"]] += 1
    shrinks += d["give"] > 0
    grows += d["grow"] > 0
m.update(rules=dict(rules), shrinks=shrinks, grows=grows, wall_s=float(wall))
json.dump(m, open(path, "w"), indent=1)
m.update(trace=trace, share=share, arm=arm, seed=seed)
# A rerun's row replaces the earlier one of the same trace, share, arm and seed.
lines = [l for l in open(runs).read().splitlines()[1:] if l.split("\t")[:4] != [trace, share, arm, seed]]
lines.append("\t".join(str(m.get(c, "")) for c in cols.split()))
with open(runs, "w") as f:
    f.write("\t".join(cols.split()) + "\n" + "\n".join(lines) + "\n")
PY
  echo "workload_arms: $label: turnaround $(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); \
print(f\"{m['mean_turnaround_s']:.0f} s, killed {m['killed']} ({m['killed_malleable']} malleable), refusals \
{m['time_limit_refusals']}\")" "$out/$label.json"), $((SECONDS - t0)) s"
}

if [[ $arms == *" rigid "* ]]; then
  run rigid 0 rigid 0 --trace-report "$out/replay.json"
fi
mal=(--start-ranges --range-top requested --policy arbiter --start "$start" --interval "$interval")
for seed in $seeds; do
  for share in $shares; do
    s=${share}_s$seed
    [[ $arms == *" moldable_requested "* ]] &&
      run "moldable_requested_$s" "$share" moldable_requested "$seed" --start-ranges --range-top requested --policy none
    [[ $arms == *" moldable "* ]] &&
      run "moldable_$s" "$share" moldable "$seed" --start-ranges --range-top max --policy none
    [[ $arms == *" moldable_efficient "* ]] &&
      run "moldable_efficient_$s" "$share" moldable_efficient "$seed" --start-ranges --range-top efficient --policy none
    [[ $arms == *" growth "* ]] && run "growth_$s" "$share" growth "$seed" "${mal[@]}" --no-give-back
    [[ $arms == *" giveback "* ]] && run "giveback_$s" "$share" giveback "$seed" "${mal[@]}" --no-growth
    [[ $arms == *" malleable "* ]] && run "malleable_$s" "$share" malleable "$seed" "${mal[@]}"
  done
done
python3 "$here/scripts/bench/workload/seed_stats.py" report "$runs" --out "$out/arms.md"
