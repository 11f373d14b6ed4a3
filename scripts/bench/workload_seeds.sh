#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
#   scripts/bench/workload_seeds.sh [--seeds "1 2 ... 10"] [--share 0.5] [--out FILE] [build-dir]
# Default out: docs/data/workload/seeds/share_<share>.tsv. Takes ~2 min on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seeds="1 2 3 4 5 6 7 8 9 10" share=0.5 out="" build=$here/build
# shellcheck source=scripts/bench/workload/common.sh
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
