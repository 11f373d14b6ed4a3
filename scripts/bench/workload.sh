#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Workload studies in the simulator and on the emulated cluster (docs/measurements/workload.md; scripts/bench/workload/ holds their helpers): one command, the case first:
#   scripts/bench/workload.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

#@case sim
# the same workload rigid and 20%, 50%, 100% malleable, simulated at 1,000
# and 10,000 nodes (malleable-clustersim, docs/measurements/workload.md). Workloads from
# scripts/bench/workload/generate.py (Lublin & Feitelson 2003, seed SEED, offered load
# LOAD); FCFS + EASY backfilling; malleable jobs start on a node range (Slurm
# --nodes=min-max) and resize by the project's Slurm policy (the multi-job arbitration,
# cluster::slurm::arbitrate); resize costs from
# sim/costs/scale.json. Appends one row per run to docs/data/workload/summary.csv
# (scripts/bench/workload/summary.py), keeps each run's metrics JSON in
# docs/data/workload/sim/, runs the variants (malleable jobs starting on one process, node
# ranges but no resizes, the other node range (RANGE); at 1,000 nodes also no node
# ranges and the single-job policy cluster::slurm::decide)
# into sim/variants.tsv, and renders the table of docs/data/workload/notes/history.md
# ("Simulated at 1,000 and 10,000 nodes", moved there from docs/measurements/workload.md)
# and docs/img/workload_sim.png.
#
#   scripts/bench/workload.sh sim [build-dir]
# Environment: SEED (1), LOAD (0.9), JOBS_1K (3000), JOBS_10K (3000), INTERVAL (300: the
# simulated seconds between a malleable job's policy queries), RANGE (grow, the default:
# [size/2, 2 size] with Slurm starting a job on at most the size asked; requested: malleable
# jobs on [size/2, size]; double: [size/2, 2 size]; the variants run requested, or double
# when RANGE is requested), SCALES ("1000 10000"),
# SHARES ("0 0.2 0.5 1.0"), DATA (docs/data/workload), NO_DOC=1 skips the rendering.
case_sim() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_sim: $bin not built (cmake --build $build --target malleable-clustersim; needs libsimgrid-dev)" >&2; exit 1; }
seed=${SEED:-1}
load=${LOAD:-0.9}
interval=${INTERVAL:-300}
range=${RANGE:-grow}  # a malleable job's node range (generate.py --range); the variants run the other
gen_range=$range top=()
# grow: [size/2, 2 size], Slurm asked for at most the size asked (the simulator's --range-top requested)
[[ $range == grow ]] && gen_range=double top=(--range-top requested)
other_range=double
[[ $range != requested ]] && other_range=requested
data=${DATA:-$here/docs/data/workload}
gen=$here/scripts/bench/workload/generate.py
summary=$here/scripts/bench/workload/summary.py
costs=$here/sim/costs/scale.json
mkdir -p "$data/sim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
variants=$data/sim/variants.tsv
printf 'nodes\tmalleable_share\tvariant\tmean_turnaround_s\tmakespan_s\tmean_wait_s\tresizes_per_job\n' > "$variants"
echo "workload_sim: host $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), seed $seed, offered load $load, interval $interval s, node range $range"

field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

for nodes in ${SCALES:-1000 10000}; do
  jobs=${JOBS_1K:-3000}
  [[ $nodes -ge 10000 ]] && jobs=${JOBS_10K:-3000}
  for share in ${SHARES:-0 0.2 0.5 1.0}; do
    w=$tmp/w_${nodes}_${share}.json
    python3 "$gen" --nodes "$nodes" --jobs "$jobs" --seed "$seed" --load "$load" --malleable-share "$share" \
      --range "$gen_range" -o "$w"
    wd=$tmp/wd_${nodes}_${share}.json  # the other node range, for the variants
    python3 "$gen" --nodes "$nodes" --jobs "$jobs" --seed "$seed" --load "$load" --malleable-share "$share" \
      --range "$other_range" -o "$wd"
    out=$data/sim/n${nodes}_m${share}.json
    start=$(date +%s.%N)
    # share 0: every job rigid, none of the malleable jobs' options (the simulator refuses them)
    mal=(--start-ranges --interval "$interval" "${top[@]}")
    [[ $share == 0 ]] && mal=()
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" --workload "$w" --costs "$costs" "${mal[@]}" \
      --out "$out" 2>"$tmp/err" || { cat "$tmp/err" "$tmp/time" >&2; exit 1; }
    read -r wall rss < "$tmp/time"
    echo "workload_sim: $nodes nodes, $jobs jobs, ${share} malleable: turnaround $(field "$out" mean_turnaround_s) s," \
         "makespan $(field "$out" makespan_s) s, resizes/job $(field "$out" resizes_per_job);" \
         "$wall s wall, $((rss / 1024)) MiB ($(tail -1 "$tmp/err"))"
    rs=("range=$range" start=full)
    [[ $share == 0 ]] && rs=(range=- start=-)
    python3 "$summary" --csv "$data/summary.csv" --metrics "$out" setting=simulated nodes="$nodes" \
      malleable_share="$share" seed="$seed" "${rs[@]}"
    printf '%s\t%s\tarbiter + ranges\t%s\t%s\t%s\t%s\n' "$nodes" "$share" "$(field "$out" mean_turnaround_s)" \
      "$(field "$out" makespan_s)" "$(field "$out" mean_wait_s)" "$(field "$out" resizes_per_job)" >> "$variants"
    if [[ $share != 0 ]]; then
      variants_here=("arbiter + ranges, start one:--policy arbiter --start-ranges --start one"
                     "ranges, no resizes:--policy none --start-ranges"
                     "range $other_range, arbiter + ranges:--policy arbiter --start-ranges"
                     "range $other_range, arbiter + ranges, start one:--policy arbiter --start-ranges --start one"
                     "range $other_range, ranges, no resizes:--policy none --start-ranges")
      [[ $nodes -lt 10000 ]] && variants_here+=("arbiter, no ranges:--policy arbiter" \
        "decide + ranges:--policy decide --start-ranges" "decide, no ranges:--policy decide")
      for variant in "${variants_here[@]}"; do
        # shellcheck disable=SC2086
        wv=$w vt=("${top[@]}")
        [[ $variant == "range $other_range"* ]] && wv=$wd vt=()
        [[ $variant == *--start-ranges* ]] || vt=()  # --range-top needs a range (the simulator refuses it alone)
        queries=(--interval "$interval")
        [[ $variant == *"--policy none"* ]] && queries=()  # no resizes, no policy queries
        "$bin" --workload "$wv" --costs "$costs" "${queries[@]}" ${variant#*:} "${vt[@]}" --out "$tmp/p.json" 2>/dev/null
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$nodes" "$share" "${variant%%:*}" "$(field "$tmp/p.json" mean_turnaround_s)" \
          "$(field "$tmp/p.json" makespan_s)" "$(field "$tmp/p.json" mean_wait_s)" "$(field "$tmp/p.json" resizes_per_job)" >> "$variants"
      done
    fi
  done
done
if [[ ${NO_DOC:-0} != 1 ]]; then
  python3 "$here/scripts/bench/workload/sim_report.py" --csv "$data/summary.csv" --doc "$here/docs/data/workload/notes/history.md" \
    --plot "$here/docs/img/workload_sim.png" --variants "$variants"
  echo "workload_sim: docs/data/workload/notes/history.md and docs/img/workload_sim.png rendered"
fi
}

#@case trace
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
#   scripts/bench/workload.sh trace [build-dir]
# Environment: TRACE (sim/traces/NASA-iPSC-1993-3.1-cln.swf), NAME (nasa-ipsc), CORES (1:
# processors per node), FIRST (0) and JOBS (0: all) a window of the cleaned jobs, SEED (1),
# INTERVAL (60), SHARES ("0.5 1.0"), SENSITIVITY (1: run it), NO_CSV=1 (no summary rows),
# ARRIVAL (1): the submission times times this factor (0.5: the same jobs arriving twice as
# fast, a loaded variant of a light trace; the setting's name gets "-arrivals-x0.5"),
# ARMS ("rigid moldable malleable": the arms to run; the others' files from an earlier run),
# START (full): how a malleable job starts on the nodes Slurm gave (the simulator's --start:
# full, min, one; a job gives back only nodes beyond its first launch's).
case_trace() {
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
}

#@case arms
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
#   scripts/bench/workload.sh arms [build-dir]
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
case_arms() {
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
}

#@case seeds
# Is the emulated workload's seed representative, and which policy variant moves it? The
# emulated cluster's workload (10 nodes, 32 jobs, Lublin-Feitelson, offered load 0.9,
# compressed into [20 s, 120 s] by cluster_stream.py prepare, its time limits) simulated
# for several seeds (the simulator that predicts the emulated runs' mean turnaround
# within 8%; Slurm's conservative backfilling, the costs fitted on the emulated runs),
# every job rigid against the malleable share with each variant of the policy; then the
# same model with a wider compression and uncompressed (the model's own run times, EASY,
# the costs of sim/costs/scale.json), where only the node range changes. Node ranges:
# requested [size/2, size], double [size/2, 2 size], grow [size/2, 2 size] with Slurm
# asked for at most the size asked (workload_cluster.sh --range). Writes one TSV
# row per seed and variant (ratio = rigid mean turnaround / the variant's) and prints the
# mean ratio of each variant over the seeds as a markdown table.
#
#   scripts/bench/workload.sh seeds [--seeds "1 2 ... 10"] [--share 0.5] [--out FILE] [build-dir]
# Default out: docs/data/workload/seeds/share_<share>.tsv. Takes ~2 min on 2 cores.
case_seeds() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seeds="1 2 3 4 5 6 7 8 9 10" share=0.5 out="" build=$here/build
. "$here/scripts/bench/workload/common.sh"
wl_args "seeds share out" 3,15 "$@"
out=${out:-$here/docs/data/workload/seeds/share_$share.tsv}
wl_setup workload_seeds
printf 'seed\tworkload\tvariant\trigid_turnaround_s\tturnaround_s\tratio\trigid_makespan_s\tmakespan_s\tresizes_per_job\n' >"$out"

# workload W (compressed into [lo, hi] s, or "raw"), node range R -> $tmp/w.json
make() {  # seed range lo hi
  python3 "$wl/generate.py" --nodes 10 --jobs 32 --seed "$1" --malleable-share "$share" --load 0.9 --range "$2" \
    -o "$tmp/g.json"
  if [[ $3 == raw ]]; then cp "$tmp/g.json" "$tmp/w.json"; return; fi
  wl_compress "$tmp/g.json" "$3" "$4" "$tmp/w.json"
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
row() {  # seed workload variant rigid.json run.json
  python3 - "$@" >>"$out" <<'PY'
import json, sys
seed, wl, var, r, m = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4])), json.load(open(sys.argv[5]))
print(f"{seed}\t{wl}\t{var}\t{r['mean_turnaround_s']:.2f}\t{m['mean_turnaround_s']:.2f}\t"
      f"{r['mean_turnaround_s'] / m['mean_turnaround_s']:.4f}\t{r['makespan_s']:.1f}\t{m['makespan_s']:.1f}\t"
      f"{m['resizes_per_job']:.3f}")
PY
}
# only the options that act in each run (the simulator refuses the others): the rigid run
# none of the malleable jobs' (node ranges, policy queries, Slurm's one change), the arms
# without resizes (--policy none) no policy queries
rigid=(--costs "$emu_costs" --backfill conservative)
emu=("${rigid[@]}" --start-ranges --one-update off)
for seed in $seeds; do
  for range in requested double; do
    make "$seed" "$range" 20 120
    cp "$tmp/w.json" "$tmp/c_$range.json"
  done
  "$bin" --workload "$tmp/c_requested.json" "${rigid[@]}" --rigid --out "$tmp/rigid.json" 2>/dev/null
  for v in "requested|arbitration (the default)|--policy arbiter" "requested|ranges, no resizes|--policy none" \
           "requested|arbitration, start on the minimum|--policy arbiter --start min" \
           "requested|arbitration, always give|--policy arbiter --give-gain-share 0" \
           "double|arbitration|--policy arbiter" "double|ranges, no resizes|--policy none" \
           "grow|arbitration|--policy arbiter --range-top requested" \
           "grow|arbitration, start on the minimum|--policy arbiter --range-top requested --start min" \
           "double|arbitration, start on the minimum|--policy arbiter --start min" \
           "double|arbitration, no efficiency floor|--policy arbiter --min-growth-efficiency 0"; do
    IFS='|' read -r range what flags <<<"$v"
    wfile=$tmp/c_$range.json
    [[ $range == grow ]] && wfile=$tmp/c_double.json  # grow: the double range, Slurm asked for at most the size asked
    queries=(--interval 2)
    [[ $flags == *"--policy none"* ]] && queries=()
    # shellcheck disable=SC2086
    "$bin" --workload "$wfile" "${emu[@]}" "${queries[@]}" $flags --out "$tmp/o.json" 2>/dev/null
    row "$seed" "compressed [20, 120] s" "$range: $what" "$tmp/rigid.json" "$tmp/o.json"
  done
  for lohi in "5 600" "raw"; do
    for range in requested double grow; do
      top=()
      [[ $range == grow ]] && top=(--range-top requested)
      # shellcheck disable=SC2086
      make "$seed" "${range/grow/double}" $lohi
      if [[ $lohi == raw ]]; then
        wname="uncompressed (the model's run times)"
        rflags=(--costs "$here/sim/costs/scale.json")
        flags=("${rflags[@]}" --start-ranges --interval 300)
      else
        wname="compressed [5, 600] s"
        rflags=("${rigid[@]}")
        flags=("${emu[@]}" --interval 2)
      fi
      "$bin" --workload "$tmp/w.json" "${rflags[@]}" --rigid --out "$tmp/rigid.json" 2>/dev/null
      "$bin" --workload "$tmp/w.json" "${flags[@]}" --policy arbiter "${top[@]}" --out "$tmp/o.json" 2>/dev/null
      row "$seed" "$wname" "$range: arbitration" "$tmp/rigid.json" "$tmp/o.json"
    done
  done
done
python3 - "$out" "$share" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
seeds = sorted({r["seed"] for r in rows}, key=int)
print(f"Simulated, 10 nodes, 32 jobs, {float(sys.argv[2]):.0%} malleable, seeds {', '.join(seeds)}; "
      "ratio = all-rigid mean turnaround / the variant's (same workload)")
print()
print("| workload | node range: malleable jobs | mean ratio | min | max | seed 1 | makespan vs rigid (mean) |")
print("|---|---|---|---|---|---|---|")
keys = []
for r in rows:
    if (r["workload"], r["variant"]) not in keys:
        keys.append((r["workload"], r["variant"]))
for wl, var in keys:
    sel = [r for r in rows if r["workload"] == wl and r["variant"] == var]
    ratios = [float(r["ratio"]) for r in sel]
    s1 = [float(r["ratio"]) for r in sel if r["seed"] == "1"]
    mk = statistics.mean(float(r["rigid_makespan_s"]) / float(r["makespan_s"]) for r in sel)
    print(f"| {wl} | {var} | {statistics.mean(ratios):.3f}x | {min(ratios):.2f}x | {max(ratios):.2f}x | "
          f"{(f'{s1[0]:.2f}x' if s1 else '-')} | {mk:.2f}x |")
PY
}

#@case sensitivity
# Malleable over moldable against the jobs' serial fraction and the resize costs
# (docs/measurements/workload.md, "Sensitivity"): on a real trace (a window of its jobs),
# 50% malleable, for each SEED, every job's Amdahl serial fraction set to S (0 to 0.3) and
# the resize costs scaled by F (x0.5 to x5): the moldable arms (they do not resize, so F
# leaves them alone) and the malleable arm (both levers); the ratio per seed is the best
# moldable arm's mean turnaround over the malleable one's, reported as its mean and 95%
# interval over the seeds (seed_stats.py), in sensitivity.tsv, and drawn with gnuplot.
#
#   scripts/bench/workload.sh sensitivity [build-dir]
# Environment: TRACE (KTH), NAME (kth-sp2), PRIME (8-17), FIRST (0), JOBS (8000), SEEDS
# ("1 2 3"), SERIALS ("0 0.1 0.2 0.3"), SCALES ("0.5 1 2 5"), START (min), OUT
# (docs/data/workload/sensitivity/NAME), IMG (docs/img/workload_sensitivity.png).
case_sensitivity() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_sensitivity: $bin not built" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
out=${OUT:-$here/docs/data/workload/sensitivity/$name}
img=${IMG:-$here/docs/img/workload_sensitivity.png}
seeds=${SEEDS:-1 2 3}
mkdir -p "$out"
common=(--swf "$trace" --cores-per-node 1 --swf-first "${FIRST:-0}" --swf-jobs "${JOBS:-8000}"
        --costs "$here/sim/costs/emulated.json" --sched-interval 60 --malleable-share 0.5)
[[ -n ${PRIME-8-17} ]] && common+=(--prime-time "${PRIME-8-17}")
runs=$out/runs.tsv
echo -e "serial\tscale\tarm\tseed\tmean_turnaround_s\tkilled_malleable\tresizes_per_job" >"$runs"
echo "workload_sensitivity: $name, jobs ${JOBS:-8000} from ${FIRST:-0}, seeds $seeds, host $(nproc) cores," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
one() {  # one SERIAL SCALE ARM SEED ARGS...
  local s=$1 f=$2 arm=$3 seed=$4
  shift 4
  # only the options that act in the arm (the simulator refuses the others): the moldable
  # arms (--policy none, scale 1) neither policy queries nor a cost scale
  local resizes=()
  [[ $arm == malleable ]] && resizes=(--interval 60 --cost-scale "$f")
  nice -n 10 "$bin" "${common[@]}" --serial "$s" "$s" "${resizes[@]}" --seed "$seed" "$@" --out "$out/m.json" \
    2>/dev/null || { echo "workload_sensitivity: run failed: $s $f $arm $seed" >&2; exit 1; }
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print('\t'.join(sys.argv[2:] + [str(m['mean_turnaround_s']),
str(m['killed_malleable']), str(m['resizes_per_job'])]))" "$out/m.json" "$s" "$f" "$arm" "$seed" >>"$runs"
}
for seed in $seeds; do
  for s in ${SERIALS:-0 0.1 0.2 0.3}; do
    one "$s" 1 moldable_requested "$seed" --start-ranges --range-top requested --policy none
    one "$s" 1 moldable_efficient "$seed" --start-ranges --range-top efficient --policy none
    for f in ${SCALES:-0.5 1 2 5}; do
      one "$s" "$f" malleable "$seed" --start-ranges --range-top requested --policy arbiter --start "${START:-min}"
    done
    echo "workload_sensitivity: seed $seed, serial $s done"
  done
done
rm -f "$out/m.json"
python3 "$here/scripts/bench/workload/seed_stats.py" sensitivity "$runs" --out "$out/sensitivity.tsv"
gnuplot <<EOF
set terminal pngcairo size 800,500
set output "$img"
set title "${name}, 50% malleable: best moldable / malleable (seeds ${seeds// /, }; bars: 95% interval)" font ",11"
set xlabel "serial fraction of every job (Amdahl)"
set ylabel "moldable / malleable mean turnaround"
set key top right
set grid
set xrange [-0.02:0.32]
nblocks = $(echo ${SCALES:-0.5 1 2 5} | wc -w)
plot for [i=0:nblocks-1] "$out/sensitivity.tsv" index i using (\$1+0.004*(i-1.5)):2:3:4 with yerrorlines title columnheader(1), 1 with lines dt 2 lc rgb "gray" notitle
EOF
echo "workload_sensitivity: $out/sensitivity.tsv, $img"
}

#@case settings
# Which emulated-cluster setting (node count, jobs, the compression of run times) lets the
# workload show what malleability gains, averaged over seeds so that no choice rests on one
# lucky seed? For each setting "NODES JOBS LO HI" the workload model (generate.py,
# Lublin-Feitelson, offered load 0.9, node range double) is compressed as the emulated
# runner does (cluster_stream.py prepare --lo LO --hi HI, its time limits) and simulated as
# the emulated cluster runs it (Slurm's conservative backfilling in 60-s blocks, a query every 2 s, the
# costs fitted on the emulated runs): every job rigid against the malleable share with the
# node range grow (the arbitration, Slurm asked for at most the size asked). Writes one TSV
# row per setting and seed and prints per setting the mean ratio (rigid mean turnaround /
# malleable), its range, the makespans (whether an emulated run fits the time budget) and
# the share of run-time spread the compression keeps (hi/lo against the model's).
#
#   scripts/bench/workload.sh settings [--settings "10 32 20 120;16 32 20 120"] [--seeds "1 ... 10"]
#        [--share 0.5] [--flags "SIMULATOR FLAGS"] [--out FILE] [build-dir]
# --flags: added to the malleable run's simulator flags (a variant of the policy, e.g.
# "--start min" or "--give-gain-share 0"; malleable-clustersim --help).
# Default out: docs/data/workload/seeds/settings_<share>.tsv. ~20 s per setting on 2 cores.
case_settings() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
settings="10 32 20 120;16 32 20 120" seeds="1 2 3 4 5 6 7 8 9 10" share=0.5 flags="" out="" build=$here/build
. "$here/scripts/bench/workload/common.sh"
wl_args "settings seeds share out flags" 3,19 "$@"
out=${out:-$here/docs/data/workload/seeds/settings_$share.tsv}
wl_setup workload_settings
printf 'nodes\tjobs\tlo_s\thi_s\tseed\trigid_turnaround_s\tturnaround_s\tratio\trigid_makespan_s\tmakespan_s\trigid_mean_wait_s\tmean_wait_s\tresizes_per_job\tmodel_spread\n' >"$out"
# only the options that act in each run (the simulator refuses the others): the rigid run
# none of the malleable jobs' (node ranges, policy queries, Slurm's one change)
rigid=(--costs "$emu_costs" --backfill conservative --bf-resolution 60)
emu=("${rigid[@]}" --start-ranges --interval 2 --one-update off)
IFS=';' read -r -a list <<<"$settings"
for s in "${list[@]}"; do
  read -r nodes jobs lo hi <<<"$s"
  for seed in $seeds; do
    python3 "$wl/generate.py" --nodes "$nodes" --jobs "$jobs" --seed "$seed" --malleable-share "$share" --load 0.9 \
      --range double -o "$tmp/g.json"
    wl_compress "$tmp/g.json" "$lo" "$hi" "$tmp/w.json"
    "$bin" --workload "$tmp/w.json" "${rigid[@]}" --rigid --out "$tmp/rigid.json" 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" --workload "$tmp/w.json" "${emu[@]}" --policy arbiter --range-top requested $flags --out "$tmp/o.json" 2>/dev/null
    python3 - "$nodes" "$jobs" "$lo" "$hi" "$seed" "$tmp/rigid.json" "$tmp/o.json" "$tmp/g.json" >>"$out" <<'PY'
import json, sys
nodes, jobs, lo, hi, seed = sys.argv[1:6]
r, m, g = (json.load(open(p)) for p in sys.argv[6:9])
rts = [j["work_node_s"] * (j["serial_fraction"] + (1 - j["serial_fraction"]) / j["nodes"]) for j in g["jobs"]]
print(f"{nodes}\t{jobs}\t{lo}\t{hi}\t{seed}\t{r['mean_turnaround_s']:.2f}\t{m['mean_turnaround_s']:.2f}\t"
      f"{r['mean_turnaround_s'] / m['mean_turnaround_s']:.4f}\t{r['makespan_s']:.1f}\t{m['makespan_s']:.1f}\t"
      f"{r['mean_wait_s']:.2f}\t{m['mean_wait_s']:.2f}\t{m['resizes_per_job']:.3f}\t{max(rts) / min(rts):.1f}")
PY
  done
done
python3 - "$out" "$share" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print(f"Simulated, {float(sys.argv[2]):.0%} malleable, range grow; ratio = all-rigid mean turnaround / malleable "
      "(same workload), mean over the seeds")
print()
print("| nodes | jobs | run times s | spread kept | mean ratio | min | max | seed 1 | makespan vs rigid | "
      "rigid makespan s (mean, max) | rigid mean wait s | resizes/job |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
keys = []
for r in rows:
    k = (r["nodes"], r["jobs"], r["lo_s"], r["hi_s"])
    if k not in keys:
        keys.append(k)
for k in keys:
    sel = [r for r in rows if (r["nodes"], r["jobs"], r["lo_s"], r["hi_s"]) == k]
    ratios = [float(r["ratio"]) for r in sel]
    s1 = [float(r["ratio"]) for r in sel if r["seed"] == "1"]
    mk = statistics.mean(float(r["rigid_makespan_s"]) / float(r["makespan_s"]) for r in sel)
    rmk = [float(r["rigid_makespan_s"]) for r in sel]
    kept = statistics.mean((float(k[3]) / float(k[2])) / float(r["model_spread"]) for r in sel)
    print(f"| {k[0]} | {k[1]} | [{k[2]}, {k[3]}] | {kept:.2%} | {statistics.mean(ratios):.3f}x | {min(ratios):.2f}x | "
          f"{max(ratios):.2f}x | {(f'{s1[0]:.2f}x' if s1 else '-')} | {mk:.2f}x | "
          f"{statistics.mean(rmk):.0f}, {max(rmk):.0f} | "
          f"{statistics.mean(float(r['rigid_mean_wait_s']) for r in sel):.1f} | "
          f"{statistics.mean(float(r['resizes_per_job']) for r in sel):.2f} |")
PY
}

#@case replay
# A rigid replay against its log (docs/measurements/workload.md, "A replay that matches its
# log"): the trace's jobs, every one rigid, under FCFS + EASY alone, with the scheduler's
# passes every 60 s, with a site's prime-time rule (PRIME), with both, and with both and the
# rules chosen on the second log (CTC: the log's outages, whole-machine spells and 24-h
# windows, counting as waiting only the jobs the prime-time rule lets start); each run's mean
# and median wait against the log's, and the share of jobs that waited at most 0, 60, 120,
# 240, 600, 3600, 14400 and 86400 s and the busy processors by weekday hour
# (trace_prime_time.py), into OUT/replay.md.
#   scripts/bench/workload.sh replay [build-dir]
# Environment: TRACE (KTH), NAME (kth-sp2), CORES (1), PRIME (8-17), OUT
# (docs/data/workload/replay/NAME).
case_replay() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
prime=${PRIME-8-17}
out=${OUT:-$here/docs/data/workload/replay/$name}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--swf "$trace" --cores-per-node "${CORES:-1}" --costs "$here/sim/costs/emulated.json" --malleable-share 0)
variants=("easy|--sched-interval 0" "passes_60s|--sched-interval 60")
[[ -n $prime ]] && variants+=("prime_${prime}|--sched-interval 0 --prime-time $prime"
                              "prime_${prime}_passes_60s|--sched-interval 60 --prime-time $prime"
                              "prime_${prime}_passes_60s_outages_24h|--sched-interval 60 --prime-time $prime --outages infer --outage-window-h 24")
records=()
{
  echo "$name: rigid replays against the log (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD))"
  echo
  echo "| variant | mean wait s | vs log | median wait s | vs log | mean turnaround s | utilisation |"
  echo "|---|---|---|---|---|---|---|"
} >"$out/replay.md"
for v in "${variants[@]}"; do
  label=${v%%|*}
  # shellcheck disable=SC2206
  args=(${v#*|})
  nice -n 10 "$bin" "${common[@]}" "${args[@]}" --out "$tmp/$label.json" --records "$tmp/$label.csv" \
    --trace-report "$tmp/rep.json" 2>/dev/null
  records+=(--records "$tmp/$label.csv")
  python3 - "$tmp/$label.json" "$tmp/rep.json" "$label" >>"$out/replay.md" <<'PY'
import json, sys
m, rep, label = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
rec = rep["recorded"]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | {d('median_wait_s')} | "
      f"{m['mean_turnaround_s']:,.0f} | {m['utilisation']:.4f} |")
PY
done
python3 - "$tmp/rep.json" >>"$out/replay.md" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["recorded"]
print(f"| the log | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | {rec['mean_turnaround_s']:,.0f} | "
      f"{rec['utilisation']:.4f} |")
PY
echo >>"$out/replay.md"
(cd "$here" && python3 scripts/bench/workload/trace_prime_time.py "${trace#$here/}" --prime-time "${prime:-8-17}" "${records[@]}") |
  sed "s|$tmp/||g" >>"$out/replay.md"
cat "$out/replay.md"
}

#@case second-log
# A log with waits, any Standard Workload Format log or a site's sacct --parsable2 log,
# replayed rigid against it (docs/measurements/workload.md, "A second log with waits"): the
# evidence for each site rule the simulator has, computed from this log's own schedule
# (workload/second_log_evidence.py and trace_prime_time.py: the pass interval its short
# waits show, weekday starts by hour, waits in whole minutes, waiting while nodes were free,
# idle nodes while a job waited; --infer-user-limits: per-user limits; --outages infer:
# spells with nothing running and a queue), then the log's jobs, every one rigid, under
# FCFS + EASY with the defaults, with passes at the interval the log shows (when it shows
# one) and every 60 s, with each rule (its evidence beside it in the table), and on a
# smaller machine (the machine less the idle nodes the log had beyond the default replay's
# while a job waited: a sensitivity, not a rule); each run's mean and median wait against
# the log's, into OUT/table.md (the table), OUT/evidence.md (the reports) and OUT/meta.txt.
#   TRACE=LOG [NODES=N] [CORES=C] scripts/bench/workload.sh second-log [build-dir]
# Environment: TRACE (required: an SWF log, or a sacct log: its first line sacct's header),
# NODES (the machine's nodes: required for a sacct log, sacct does not record them; for an
# SWF log the header's MaxNodes, or MaxProcs / CORES when the two disagree, said in the
# output), CORES (processors per node, default 1; a sacct log's jobs then count
# ceil(NCPUS / CORES) nodes instead of NNodes), NAME (the log's file name, lower case, up to
# its first year), PRIME (8-17: the weekday hours a prime-time rule would hold), SMALLER
# (the smaller machine's nodes; default derived as above, the row left out when the log
# left no more nodes idle than the replay), FIRST and JOBS (a window of the log's kept jobs
# for the replays; the evidence is the whole log's), OUT (docs/data/workload/NAME).
# E.g. TRACE=tests/clustersim/data/site.sacct NODES=8 OUT=/tmp/site (seconds);
# TRACE=sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf FIRST=2000 JOBS=2000 OUT=/tmp/kth.
case_second_log() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
wl=$here/scripts/bench/workload
die() { echo "workload_second_log: $*" >&2; exit 2; }
[[ -x $bin ]] || { echo "workload_second_log: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-}
[[ -n $trace ]] || { _help second-log >&2; die "give the log: TRACE=FILE"; }
[[ -f $trace && -r $trace ]] || die "cannot read $trace"
trace=$(realpath "$trace")
num() { [[ $2 =~ ^[0-9]{1,9}$ ]] || die "$1 must be a whole number, got '$2'"; }
nodes_env=${NODES:-} cores=${CORES:-1} prime=${PRIME:-8-17} smaller=${SMALLER:-} first=${FIRST:-0} jobs=${JOBS:-0}
[[ -z $nodes_env ]] || { num NODES "$nodes_env"; ((nodes_env > 0)) || die "NODES must be at least 1"; }
num CORES "$cores"; ((cores > 0)) || die "CORES must be at least 1"
[[ -z $smaller ]] || num SMALLER "$smaller"
num FIRST "$first"; num JOBS "$jobs"
[[ $prime =~ ^([0-9]{1,2})-([0-9]{1,2})$ ]] && ((BASH_REMATCH[1] < BASH_REMATCH[2] && BASH_REMATCH[2] <= 24)) ||
  die "PRIME must be START-END hours, 0 <= START < END <= 24, got '$prime'"
base=$(basename "$trace")
default_name=$(tr 'A-Z' 'a-z' <<<"${base%%-[0-9][0-9][0-9][0-9]-*}")
default_name=${default_name%.swf}
default_name=${default_name%.sacct}
name=${NAME:-$default_name}
[[ $name =~ ^[A-Za-z0-9._-]{1,64}$ ]] || die "NAME must be letters, digits, '.', '_' or '-', got '$name'"
out=${OUT:-$here/docs/data/workload/$name}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rel() { sed "s|$here/||g; s|$tmp/||g"; }

# The log's kind (a sacct log's first line is its header, naming JobIDRaw or JobID).
kind=$(python3 - "$trace" <<'PY'
import sys
with open(sys.argv[1], errors="replace") as f:
    for line in f:
        if line.strip():
            fields = [x.strip().lower() for x in line[:65536].split("|")]
            print("sacct" if len(fields) > 1 and ({"jobidraw", "jobid"} & set(fields)) else "swf")
            break
    else:
        print("empty")
PY
)
[[ $kind != empty ]] || die "$trace is empty"
nodes_note=""
cores_opt=(--cores-per-node "$cores") nodes_opt=()
if [[ $kind == sacct ]]; then
  [[ -n $nodes_env ]] || die "a sacct log needs NODES, the machine's nodes (scontrol show nodes --oneliner | wc -l)"
  src=(--sacct "$trace")
  [[ -n ${CORES:-} ]] || cores_opt=()  # a sacct job's nodes: its NNodes unless CORES asks for NCPUS / CORES
  nodes_opt=(--nodes "$nodes_env")
  nodes_note="nodes: $nodes_env (NODES)"
else
  src=(--swf "$trace")
  if [[ -n $nodes_env ]]; then
    nodes_opt=(--nodes "$nodes_env") nodes_note="nodes: $nodes_env (NODES)"
  else
    # the header's MaxNodes, or MaxProcs / CORES where the two disagree (the simulator refuses
    # a header whose MaxProcs / CORES is not its MaxNodes without --nodes)
    read -r hn hp < <(python3 - "$trace" <<'PY'
import re, sys
val = {"maxnodes": 0, "maxprocs": 0}
with open(sys.argv[1], errors="replace") as f:
    for line in f:
        if not line.startswith(";"):
            break
        key, _, v = line[1:200].partition(":")
        m = re.match(r"\s*(\d{1,9})\b", v)
        if key.strip().lower() in val and m:
            val[key.strip().lower()] = int(m.group(1))
print(val["maxnodes"], val["maxprocs"])
PY
)
    if ((hp > 0 && (hp + cores - 1) / cores != hn)); then
      nodes_opt=(--nodes "$(((hp + cores - 1) / cores))")
      nodes_note="nodes: $(((hp + cores - 1) / cores)) (the header's MaxProcs $hp / CORES $cores; its MaxNodes reads $hn)"
    else
      nodes_note="nodes: $hn (the header's MaxNodes; MaxProcs $hp, CORES $cores)"
    fi
  fi
fi
log=(${src[@]+"${src[@]}"} ${cores_opt[@]+"${cores_opt[@]}"} ${nodes_opt[@]+"${nodes_opt[@]}"})
window=(--swf-first "$first" --swf-jobs "$jobs")
# The log as the simulator reads it: its machine (and a malformed log refused here, with its line).
"$bin" "${log[@]}" --write-workload /dev/null --trace-report "$tmp/probe.json" 2>"$tmp/probe.err" ||
  { cat "$tmp/probe.err" >&2; die "the simulator cannot read $trace"; }
machine=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["machine_nodes"]))' "$tmp/probe.json")
num machine "$machine"
echo "workload_second_log: $name ($kind), $machine nodes; $nodes_note"
# The log as SWF text for the evidence scripts, in nodes.
ev_cores=$cores
if [[ $kind == sacct ]]; then
  python3 "$wl/sacct_swf.py" "$trace" --nodes "$machine" ${CORES:+--cores-per-node "$cores"} -o "$tmp/log.swf"
  swf=$tmp/log.swf ev_cores=1
else
  swf=$trace
fi
ev=(--machine "$machine" --cores-per-node "$ev_cores")
{ read -r pass; read -r pass_ev; } < <(python3 "$wl/second_log_evidence.py" passes "$swf" "${ev[@]}")
num pass "$pass"
prime_ev=$(python3 "$wl/second_log_evidence.py" prime "$swf" --prime-time "$prime")
sched_ev=$(python3 "$wl/second_log_evidence.py" scheduler "$swf")
# per-user limits: a node limit at the machine's size limits nothing (the simulator refuses it)
"$bin" "${log[@]}" --infer-user-limits >"$tmp/infer.txt"
read -r ujobs unodes < <(sed -n 's/^the tightest limits the log allows: --user-max-jobs \([0-9]\{1,9\}\) --user-max-nodes \([0-9]\{1,9\}\)$/\1 \2/p' "$tmp/infer.txt")
[[ -n ${ujobs:-} && -n ${unodes:-} ]] || { cat "$tmp/infer.txt" >&2; die "no limits in the report"; }
user_ev=$(sed -n 's/^job-seconds waited while the job.s user ran its own most jobs at once: [0-9]* of [0-9]* (\([0-9.]*%\))$/\1/p' "$tmp/infer.txt")
user_ev="the log: ${user_ev:-?} of its waiting passed while the job's user ran its most jobs at once"
lim="--user-max-jobs $ujobs"
if ((unodes < machine)); then
  lim+=" --user-max-nodes $unodes"
else
  user_ev+="; --user-max-nodes left out: a user's most nodes at once ($unodes) is the machine's $machine"
fi
# the outages the log's own schedule shows (malleable-clustersim --outages infer)
"$bin" "${log[@]}" --outages infer --outage-window-h 24 --write-workload /dev/null 2>&1 | grep 'outage' |
  rel >"$tmp/outages.txt" || true
outage_ev=$(sed -n 's/.*: \([0-9]*\) outage(s) of the whole machine inferred, \([0-9.]*\) h in all.*/the log: \1 spell(s) of 1 h or more with nothing running and a queue, \2 h/p' "$tmp/outages.txt")
window_ev=$(sed -n 's/.*; \([0-9]*\) window(s) of 24 h with nodes down, \([0-9.]*\) node-hours.*/the log: \1 window(s) of 24 h whose queue never emptied with nodes it never used, \2 node-hours/p' "$tmp/outages.txt")
common=("${log[@]}" "${window[@]}" --costs "$here/sim/costs/emulated.json" --malleable-share 0)

# label|evidence|options (each row only options that act in a rigid replay)
p=$pass
((p > 0)) || p=60
variants=("FCFS + EASY (defaults)|-|--sched-interval 0")
((pass > 0 && pass != 60)) && variants+=("+ passes every $pass s|$pass_ev|--sched-interval $pass")
variants+=("+ passes every 60 s|$pass_ev|--sched-interval 60"
           "+ $p-s passes + the log's outages|${outage_ev:-the log: no outage inferred}|--sched-interval $p --outages infer"
           "+ $p-s passes + outages + the nodes it left idle (24-h windows)|${window_ev:-the log: no window inferred}|--sched-interval $p --outages infer --outage-window-h 24"
           "+ prime-time rule $prime|$prime_ev|--sched-interval 0 --prime-time $prime"
           "+ inferred per-user limits ($lim)|$user_ev|--sched-interval 0 $lim"
           "conservative backfilling, $p-s passes (sensitivity)|$sched_ev|--sched-interval $p --backfill conservative"
           "the same + the log's outages (sensitivity)|-|--sched-interval $p --outages infer --backfill conservative")
records=() runs_line="runs:"
{
  echo "$name: rigid replays against the log (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD)); $machine nodes"
  echo
  echo "| replay | evidence in the log | mean wait s | vs log | median wait s | vs log | jobs | utilisation |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$out/table.md"
row() {  # row INDEX LABEL EVIDENCE OPTIONS...
  local i=$1 label=$2 evidence=$3
  shift 3
  nice -n 10 "$bin" "${common[@]}" "$@" --out "$tmp/$i.json" --records "$tmp/run$i.csv" \
    --trace-report "$tmp/rep$i.json" 2>"$tmp/err$i" || { cat "$tmp/err$i" >&2; die "the replay '$label' failed"; }
  python3 - "$tmp/$i.json" "$tmp/rep$i.json" "$label" "$evidence" >>"$out/table.md" <<'PY'
import json, sys
m, rep, label, ev = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
rec = rep["recorded"]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {ev} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | "
      f"{d('median_wait_s')} | {rep['kept']:,} | {m['utilisation']:.4f} |")
PY
}
i=0
for v in "${variants[@]}"; do
  IFS='|' read -r label evidence opts <<<"$v"
  # shellcheck disable=SC2206  # the options are this script's own words and numbers
  args=($opts)
  row "$i" "$label" "$evidence" "${args[@]}"
  records+=(--records "$tmp/run$i.csv")
  runs_line+=" run$i.csv $label;"
  i=$((i + 1))
done
# the smaller machine: the idle nodes the log had beyond the default replay's while a job waited
{ read -r idle; read -r idle_ev; } < <(python3 "$wl/second_log_evidence.py" idle "$swf" "$tmp/run0.csv" "${ev[@]}")
num idle "$idle"
small_label=""
if [[ -n $smaller ]]; then
  small_label="on $smaller nodes (SMALLER; sensitivity, not a rule)"
elif ((idle > 0 && idle < machine)); then
  smaller=$((machine - idle)) small_label="on $smaller nodes (sensitivity, not a rule)"
fi
if [[ -n $small_label ]]; then
  if ((smaller >= 1 && smaller <= machine)); then
    row "$i" "$small_label" "$idle_ev" --sched-interval 0 --nodes "$smaller"
  else
    die "SMALLER must be 1 to the machine's $machine nodes, got $smaller"
  fi
else
  echo "workload_second_log: no smaller machine: the log left no more nodes idle while a job waited than the replay ($idle_ev)"
fi
python3 - "$tmp/rep0.json" >>"$out/table.md" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rec = rep["recorded"]
print(f"| the log | | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | {rep['kept']:,} | {rec['utilisation']:.4f} |")
PY
{
  echo "$runs_line"
  echo
  echo "$pass_ev"
  echo
  (cd "$here" && python3 "$wl/trace_prime_time.py" "$swf" --prime-time "$prime" "${ev[@]}" "${records[@]}") | rel
  echo
  rel <"$tmp/infer.txt"
  echo
  cat "$tmp/outages.txt"
} >"$out/evidence.md"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$here" rev-parse HEAD)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "log: ${trace#"$here"/} ($kind, sha256 $(sha256sum "$trace" | cut -d' ' -f1)); $nodes_note"
  echo "command: TRACE=${trace#"$here"/} ${NODES:+NODES=$NODES }${CORES:+CORES=$CORES }${FIRST:+FIRST=$FIRST }${JOBS:+JOBS=$JOBS }scripts/bench/workload.sh" second-log
  echo "runs: $bin ${common[*]} <options of each row of table.md>" | rel
  for v in "${variants[@]}"; do IFS='|' read -r label _ opts <<<"$v"; echo "  $label: $opts"; done
  [[ -z $small_label ]] || echo "  $small_label: --sched-interval 0 --nodes $smaller"
  echo "evidence: python3 scripts/bench/workload/second_log_evidence.py passes|prime|idle|scheduler; trace_prime_time.py --prime-time $prime --machine $machine --cores-per-node $ev_cores --records <each run's CSV but the smaller machine's>"
  echo "          $bin ${log[*]} --infer-user-limits" | rel
  [[ $kind != sacct ]] || echo "          the sacct log as SWF: python3 scripts/bench/workload/sacct_swf.py --nodes $machine"
} >"$out/meta.txt"
cat "$out/table.md"
}

#@case out-of-sample
# The simulator checked out of sample (docs/measurements/workload.md, "Out of sample"): the
# resize costs and Slurm's latencies fitted on one set of emulated runs (FIT: a study's
# share_* runs, scripts/bench/workload/cluster_report.py costs) predict another set
# (PREDICT: the same setting at another seed), each run simulated as it was submitted
# (workload_validate.sh --runs). Each metric's error is printed beside the in-sample
# error (PREDICT's runs with the costs fitted on PREDICT itself), both directions.
#
#   scripts/bench/workload.sh out-of-sample [FIT PREDICT]
# FIT, PREDICT: studies under docs/data/workload (default emulated_16n emulated_16n_seed6:
# 16 nodes, 32 jobs, seeds 1 and 6), read from the packed runs (runs.tar.xz) into a scratch
# copy; nothing under docs/ is written. The table goes to stdout (OUT=FILE: also there).
case_out_of_sample() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
a=${1:-emulated_16n}
b=${2:-emulated_16n_seed6}
data=$here/docs/data/workload
[[ -x $here/build/sim/malleable-clustersim ]] || { echo "workload_out_of_sample: build malleable-clustersim first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in "$a" "$b"; do
  python3 "$here/scripts/bench/data_archive.py" extract "$data/$s" "$tmp/$s"
  rm -f "$tmp/$s"/*/validation*.md
  python3 "$here/scripts/bench/workload/cluster_report.py" costs "$tmp/$s"/share_* -o "$tmp/costs_$s.json" >/dev/null
done
# validate RUNS_OF COSTS_OF: every run of RUNS_OF simulated with COSTS_OF's fitted costs,
# each run's table kept as $tmp/RUNS_OF/share_*/v_COSTS_OF.md
validate() {
  COSTS=$tmp/costs_$2.json "$here/scripts/bench/workload_validate.sh" --runs "$tmp/$1"/share_* >/dev/null || true
  for d in "$tmp/$1"/share_*; do mv "$d/validation.md" "$d/v_$2.md"; done
}
for pair in "$a $a" "$b $a" "$b $b" "$a $b"; do
  # shellcheck disable=SC2086
  validate $pair
done
python3 - "$tmp" "$a" "$b" <<'PY' | tee ${OUT:+"$OUT"}
import glob, os, sys
tmp, a, b = sys.argv[1:]
def table(path):  # {metric: (simulated, emulated, error)} from a validation.md
    out = {}
    for line in open(path):
        f = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(f) >= 4 and f[0] not in ("metric", "---") and f[3].endswith("%"):
            out[f[0]] = (f[1], f[2], f[3])
    return out
metrics = ["makespan_s", "mean_wait_s", "median_wait_s", "mean_turnaround_s", "bounded_slowdown", "utilisation",
           "resizes_per_job", "resize_time_s_per_job"]
print("| runs predicted | fitted on | run | " + " | ".join(metrics) + " |")
print("|---" * (3 + len(metrics)) + "|")
for runs, other in ((b, a), (a, b)):
    for d in sorted(glob.glob(os.path.join(tmp, runs, "share_*"))):
        for fit in (runs, other):
            t = table(os.path.join(d, f"v_{fit}.md"))
            label = "in sample" if fit == runs else f"**{fit}** (out of sample)"
            print(f"| {runs} | {label} | {os.path.basename(d)} | " +
                  " | ".join(t[m][2] if m in t else "-" for m in metrics) + " |")
PY
}

#@case user-limits
# Per-user limits read off a log and replayed (docs/measurements/workload.md, "Per-user
# limits"): the simulator's --infer-user-limits report (each user's most jobs and nodes at
# once in the log's own schedule, and the wait that passed while it ran its most), then the
# log's jobs every one rigid, replayed with the trace's replay rules (RULES) without
# per-user limits and with the inferred ones (--user-max-jobs / --user-max-nodes at the
# most any user ran at once: the tightest the log allows; a node limit at the machine's size
# limits nothing and is left out, said in the output), each run's mean and median wait
# against the log's; then with Slurm's multifactor priority with fair-share instead of FCFS
# (--fair-share-weight FS_WEIGHT --age-weight AGE_WEIGHT, default 10000 and 1000, a common
# site setting; the half-life and the maximum age Slurm's defaults, 7 days), and with both;
# into OUT/NAME.md.
#   scripts/bench/workload.sh user-limits [build-dir]
# Environment: TRACE (KTH), NAME (kth-sp2), CORES (1), RULES (the trace's replay rules with
# their evidence; for KTH "--sched-interval 60 --prime-time 8-17", docs/data/workload/replay;
# other traces: "--sched-interval 60"), OUT (docs/data/workload/user_limits).
case_user_limits() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_user_limits: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
rules=${RULES---sched-interval 60 --prime-time 8-17}
out=${OUT:-$here/docs/data/workload/user_limits}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--swf "$trace" --cores-per-node "${CORES:-1}" --costs "$here/sim/costs/emulated.json" --malleable-share 0)
"$bin" --swf "$trace" --cores-per-node "${CORES:-1}" --infer-user-limits >"$tmp/infer.txt"
read -r jobs nodes < <(sed -n 's/^the tightest limits the log allows: --user-max-jobs \([0-9]*\) --user-max-nodes \([0-9]*\)$/\1 \2/p' "$tmp/infer.txt")
[[ -n ${jobs:-} && -n ${nodes:-} ]] || { cat "$tmp/infer.txt" >&2; echo "workload_user_limits: no limits in the report" >&2; exit 1; }
# the machine's nodes as the simulator reads them (the trace's header and CORES)
"$bin" --swf "$trace" --cores-per-node "${CORES:-1}" --write-workload /dev/null --trace-report "$tmp/machine.json" 2>/dev/null
machine=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["machine_nodes"]))' "$tmp/machine.json")
lim="--user-max-jobs $jobs" lim_note=""
if ((nodes < machine)); then
  lim+=" --user-max-nodes $nodes"
else  # a limit at the machine's size limits nothing (the simulator refuses it)
  lim_note="--user-max-nodes left out: the most nodes a user ran at once ($nodes) is the machine's $machine"
fi
{
  echo "$name: per-user limits (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD))"
  echo
  sed "s|$here/||" "$tmp/infer.txt"
  echo
  echo "Rigid replays, rules: ${rules:-none}"
  [[ -z $lim_note ]] || echo "($lim_note)"
  echo
  echo "| per-user rules | mean wait s | vs log | median wait s | vs log | jobs held by a limit |"
  echo "|---|---|---|---|---|---|"
} >"$out/$name.md"
fs="--fair-share-weight ${FS_WEIGHT:-10000} --age-weight ${AGE_WEIGHT:-1000}"
for v in "none|" "inferred: $lim|$lim" "fair-share: $fs|$fs" "both|$lim $fs"; do
  # shellcheck disable=SC2206
  args=($rules ${v#*|})
  nice -n 10 "$bin" "${common[@]}" "${args[@]}" --out "$tmp/m.json" --trace-report "$tmp/rep.json" 2>/dev/null
  python3 - "$tmp/m.json" "$tmp/rep.json" "${v%%|*}" >>"$out/$name.md" <<'PY'
import json, sys
m, rec, label = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["recorded"], sys.argv[3]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | {d('median_wait_s')} | "
      f"{m.get('user_limit_held', '-')} |")
PY
done
python3 - "$tmp/rep.json" >>"$out/$name.md" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["recorded"]
print(f"| the log | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | |")
PY
cat "$out/$name.md"
}

#@case ground-truth
# The simulator against a Slurm whose rules are known (docs/measurements/workload.md,
# "The simulator against a real Slurm"): a window of a public log's jobs, every one rigid,
# sizes mapped onto the emulated machine and run times compressed into [lo, hi] seconds
# (workload/trace_slice.py, workload/cluster_stream.py prepare --limits log: each job's limit
# as its log gave it against its run), arrivals scaled to an offered load above 1 so that
# waits dominate, run as sleeping batch jobs under the emulated cluster's real Slurm 22.05
# with accounting (slurmdbd); its sacct log is then replayed by malleable-clustersim with
# the rules read from that Slurm's `scontrol show config` (workload/ground_truth.py), and
# the replay's mean and median wait are set against the accounting's.
#
#   scripts/bench/workload.sh ground-truth [--swf T.swf] [--first 3000] [--jobs 240]
#        [--nodes 16] [--load 1.3] [--lo 10] [--hi 90] [--out DIR] [--build-dir DIR]
#        [--replay-only]
# Data: DIR (default docs/data/workload/ground_truth/<log>_<first>): stream.json,
# submitted.tsv, sacct.txt, slurm_config.txt, replay.json, ground_truth.md. Takes the
# cluster lock (/run/malleable-cluster.lock) for the run; about (sum of nodes x run) / nodes
# / 60 x 1.1 minutes (15 min with the defaults).
case_ground_truth() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
wl=$here/scripts/bench/workload
swf=$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf
first=3000 jobs=240 nodes=16 load=1.3 lo=10 hi=90 out="" build=$here/build replay_only=0
while (($#)); do
  case $1 in
    --swf) swf=$2; shift 2 ;;
    --first) first=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --lo) lo=$2; shift 2 ;;
    --hi) hi=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --replay-only) replay_only=1; shift ;;
    -h|--help) _help ground-truth | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "workload.sh ground-truth: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $first =~ ^[0-9]+$ && $jobs =~ ^[0-9]+$ && $nodes =~ ^[0-9]+$ ]] ||
  { echo "workload.sh ground-truth: --first, --jobs and --nodes take whole numbers" >&2; exit 2; }
((jobs >= 200)) || { echo "workload.sh ground-truth: --jobs must be at least 200 (a ground truth of waits)" >&2; exit 2; }
sim=$build/sim/malleable-clustersim
[[ -x $sim ]] || { echo "workload.sh ground-truth: $sim missing (scripts/setup.sh)" >&2; exit 1; }
log=$(basename "$swf" .swf | cut -d- -f1-2 | tr 'A-Z' 'a-z')
out=${out:-$here/docs/data/workload/ground_truth/${log}_$first}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ((!replay_only)); then
  [[ $(id -u) -eq 0 ]] || { echo "workload.sh ground-truth: the emulated cluster needs root" >&2; exit 77; }
  command -v slurmdbd >/dev/null || { echo "workload.sh ground-truth: slurmdbd is not installed (scripts/setup.sh)" >&2; exit 77; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 "$wl/trace_slice.py" write --sim "$sim" --swf "$swf" --first "$first" --nodes "$nodes" --jobs "$jobs" \
    --malleable-share 0 -o "$tmp/generated.json"
  python3 "$wl/cluster_stream.py" prepare --workload "$tmp/generated.json" --lo "$lo" --hi "$hi" --limits log \
    -o "$tmp/prepared.json"
  cluster=$here/scripts/cluster.sh
  echo "workload.sh ground-truth: $jobs jobs on $nodes nodes at offered load $load; waiting for the cluster lock"
  (
    flock -w 1800 9 || { echo "workload.sh ground-truth: the cluster lock is held by another run for 30 min" >&2; exit 1; }
    trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
    "$cluster" down >/dev/null
    "$cluster" up "$nodes" --slurm --slots 2 9>&-
    python3 "$wl/ground_truth.py" submit --workload "$tmp/prepared.json" --load "$load" --out "$out" --src "$here" 9>&-
  ) 9>/run/malleable-cluster.lock
fi
python3 "$wl/ground_truth.py" replay --sim "$sim" --out "$out" --nodes "$nodes"
}

#@case diagnose
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
#   scripts/bench/workload.sh diagnose RUN_DIR [build-dir]
# RUN_DIR: workload_cluster.sh's share_<s>/ (workload.json, jobs.json, stream.json).
case_diagnose() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
archive=$here/scripts/bench/data_archive.py
if [[ $# -lt 1 ]] || ! python3 "$archive" cat "$1/workload.json" >/dev/null 2>&1; then
  _help diagnose >&2
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
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
