#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
#   scripts/bench/workload_sim.sh [build-dir]
# Environment: SEED (1), LOAD (0.9), JOBS_1K (3000), JOBS_10K (3000), INTERVAL (300: the
# simulated seconds between a malleable job's policy queries), RANGE (grow, the default:
# [size/2, 2 size] with Slurm starting a job on at most the size asked; requested: malleable
# jobs on [size/2, size]; double: [size/2, 2 size]; the variants run requested, or double
# when RANGE is requested), SCALES ("1000 10000"),
# SHARES ("0 0.2 0.5 1.0"), DATA (docs/data/workload), NO_DOC=1 skips the rendering.
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
