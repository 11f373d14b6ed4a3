#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real trace replayed in the cluster simulator (docs/measurements/workload.md,
# "Real traces"): the Parallel Workloads Archive log TRACE (sim/traces/, README there), its
# jobs on their recorded nodes and run times, FCFS + EASY backfilling, the users' requested
# times as estimates when the log has them (else the exact run times).
#   1. rigid replay: every job rigid, against what the log records (trace_replay.json);
#   2. three arms on the same jobs for each malleable SHARE: rigid; moldable (a malleable job
#      starts on a node range [size/2, size], never resized: --policy none); malleable (the
#      same range and growth to 2 size, resizes by the project's arbitration,
#      cluster::slurm::arbitrate, asked at most every INTERVAL simulated seconds);
#   3. sensitivity at 50% malleable: the resize costs x0.5, x2, x5 and the Amdahl serial
#      fractions halved and doubled (sensitivity.tsv).
# Malleable jobs: a seeded share (SEED); speedup Amdahl's law with serial fractions uniform
# in [0.01, 0.10]; resize costs sim/costs/emulated.json (the project's measured spawn,
# release and redistribution costs on the emulated cluster). Appends one row per arm to
# docs/data/workload/summary.csv (setting trace:NAME, policy rigid|moldable|malleable) and
# keeps each run's metrics and decisions counts in docs/data/workload/trace/NAME/.
#
#   scripts/bench/workload_trace.sh [build-dir]
# Environment: TRACE (sim/traces/NASA-iPSC-1993-3.1-cln.swf), NAME (nasa-ipsc), CORES (1:
# processors per node), FIRST (0) and JOBS (0: all) a window of the cleaned jobs, SEED (1),
# INTERVAL (60), SHARES ("0.5 1.0"), SENSITIVITY (1: run it), NO_CSV=1 (no summary rows),
# ARRIVAL (1): the submission times times this factor (0.5: the same jobs arriving twice as
# fast, a loaded variant of a light trace; the setting's name gets "-arrivals-x0.5"),
# ARMS ("rigid moldable malleable": the arms to run; the others' files from an earlier run),
# START (full): how a malleable job starts on the nodes Slurm gave (the simulator's --start:
# full, min, one; a job gives back only nodes beyond its first launch's).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_trace: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/NASA-iPSC-1993-3.1-cln.swf}
arrival=${ARRIVAL:-1}
name=${NAME:-nasa-ipsc}
[[ $arrival != 1 ]] && name=${NAME:-nasa-ipsc}-arrivals-x$arrival
seed=${SEED:-1}
interval=${INTERVAL:-60}
costs=$here/sim/costs/emulated.json
out=${OUT:-$here/docs/data/workload/trace/$name}
summary=$here/scripts/bench/workload/summary.py
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--swf "$trace" --cores-per-node "${CORES:-1}" --swf-first "${FIRST:-0}" --swf-jobs "${JOBS:-0}" --seed "$seed"
        --arrival-scale "$arrival"
        --costs "$costs")
# each arm only the options that act in it (the simulator refuses the others): the rigid runs
# none of the malleable jobs', the moldable arm (--policy none) no policy queries
queries=(--interval "$interval")
echo "workload_trace: $name, host $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), seed $seed, interval $interval s"

run() {  # run LABEL ARGS...: metrics in $out/LABEL.json, time and memory in $tmp/LABEL.time
  local label=$1
  shift
  /usr/bin/time -f '%e %M' -o "$tmp/$label.time" "$bin" "${common[@]}" "$@" --out "$out/$label.json" \
    --decisions "$tmp/$label.jsonl" 2>"$tmp/$label.err" || { cat "$tmp/$label.err" >&2; exit 1; }
  python3 - "$out/$label.json" "$tmp/$label.jsonl" "$tmp/$label.time" <<'PY'
import collections, json, sys
m = json.load(open(sys.argv[1]))
shrinks = grows = 0
rules = collections.Counter()
for line in open(sys.argv[2]):
    d = json.loads(line)
    shrinks += d["give"] > 0
    grows += d["grow"] > 0
    rules[d["rule"]] += 1
m["rules"] = dict(rules)
wall, rss = open(sys.argv[3]).read().split()
m.update(shrinks=shrinks, grows=grows, wall_s=float(wall), max_rss_mib=int(rss) // 1024)
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
row() {  # row LABEL SHARE POLICY RANGE START
  [[ ${NO_CSV:-0} == 1 ]] && return
  python3 "$summary" --csv "$here/docs/data/workload/summary.csv" --metrics "$out/$1.json" setting="trace:$name" \
    nodes="$(field "$out/replay.json" machine_nodes)" malleable_share="$2" policy="$3" range="$4" start="$5" seed="$seed"
}

arms=" ${ARMS:-rigid moldable malleable} "
start=${START:-full}
mal=malleable
[[ $start != full ]] && mal=malleable_$start

# 1. Rigid replay against the log.
if [[ $arms == *" rigid "* ]]; then
run rigid --malleable-share 0 --trace-report "$out/replay.json"
python3 - "$out/replay.json" "$out/rigid.json" <<'PY'
import json, sys
rep, sim = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rec = rep["recorded"]
rep["simulated"] = {k: sim[k] for k in ("makespan_s", "mean_wait_s", "mean_turnaround_s", "utilisation")}
rep["difference"] = {k: (sim[k] - rec[k]) / rec[k] if rec[k] > 0 else None
                     for k in ("makespan_s", "mean_wait_s", "mean_turnaround_s", "utilisation")}
json.dump(rep, open(sys.argv[1], "w"), indent=1)
print("workload_trace: replay", json.dumps({"recorded": rec, "simulated": rep["simulated"]}))
PY
row rigid 0 rigid - -
fi

# 2. The three arms.
for share in ${SHARES:-0.5 1.0}; do
  if [[ $arms == *" moldable "* ]]; then
    run "moldable_$share" --malleable-share "$share" --start-ranges --range-top requested --policy none
    row "moldable_$share" "$share" moldable grow full
  fi
  if [[ $arms == *" malleable "* ]]; then
    run "${mal}_$share" --malleable-share "$share" --start-ranges --range-top requested --policy arbiter --start "$start" \
      "${queries[@]}"
    row "${mal}_$share" "$share" malleable grow "$start"
  fi
  python3 - "$out" "$share" "$mal" <<'PY'
import json, sys
d, s, mal = sys.argv[1:]
r, mo, ma = (json.load(open(f"{d}/{n}.json")) for n in ("rigid", f"moldable_{s}", f"{mal}_{s}"))
print(f"workload_trace: share {s}: turnaround rigid {r['mean_turnaround_s']:.0f} s, moldable {mo['mean_turnaround_s']:.0f} s,"
      f" {mal} {ma['mean_turnaround_s']:.0f} s; vs rigid {r['mean_turnaround_s'] / ma['mean_turnaround_s']:.3f}x,"
      f" vs moldable {mo['mean_turnaround_s'] / ma['mean_turnaround_s']:.3f}x; makespan {r['makespan_s']:.0f} /"
      f" {mo['makespan_s']:.0f} / {ma['makespan_s']:.0f} s; shrinks {ma['shrinks']}, grows {ma['grows']},"
      f" resizes/job {ma['resizes_per_job']:.3f}; {ma['wall_s']} s wall, {ma['max_rss_mib']} MiB")
PY
done

# 3. Sensitivity at 50% malleable (moldable and rigid do not resize: only the serial
# fractions move them).
if [[ ${SENSITIVITY:-1} == 1 ]]; then
  tsv=$out/sensitivity.tsv
  [[ $start != full ]] && tsv=$out/sensitivity_$start.tsv
  printf 'variant\trigid_turnaround_s\tmoldable_turnaround_s\tmalleable_turnaround_s\tvs_rigid\tvs_moldable\tmalleable_makespan_s\trigid_makespan_s\tshrinks\tgrows\n' > "$tsv"
  variants=("costs x0.5:--cost-scale 0.5" "costs x2:--cost-scale 2" "costs x5:--cost-scale 5"
            "serial x0.5:--serial 0.005 0.05" "serial x2:--serial 0.02 0.2")
  for v in "${variants[@]}"; do
    label=${v%%:*}
    args=(${v#*:})
    lab=${label// /_}
    [[ $start != full ]] && lab=${start}_$lab  # (rigid and moldable do not depend on the start)
    # the resize costs act on malleable jobs alone: the rigid run without --cost-scale
    rargs=("${args[@]}")
    [[ ${args[0]} == --cost-scale ]] && rargs=()
    run "s_${lab}_rigid" --malleable-share 0 "${rargs[@]}"
    run "s_${lab}_moldable" --malleable-share 0.5 --start-ranges --range-top requested --policy none "${args[@]}"
    run "s_${lab}_malleable" --malleable-share 0.5 --start-ranges --range-top requested --policy arbiter --start "$start" \
      "${queries[@]}" "${args[@]}"
    python3 - "$out" "$lab" "$label" >> "$tsv" <<'PY'
import json, sys
d, lab, label = sys.argv[1:]
r, mo, ma = (json.load(open(f"{d}/s_{lab}_{n}.json")) for n in ("rigid", "moldable", "malleable"))
t = lambda m: m["mean_turnaround_s"]
print(f"{label}\t{t(r):.1f}\t{t(mo):.1f}\t{t(ma):.1f}\t{t(r) / t(ma):.3f}\t{t(mo) / t(ma):.3f}\t{ma['makespan_s']:.0f}"
      f"\t{r['makespan_s']:.0f}\t{ma['shrinks']}\t{ma['grows']}")
PY
  done
  column -t -s $'\t' "$tsv"
fi
