#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
#   scripts/bench/workload_settings.sh [--settings "10 32 20 120;16 32 20 120"] [--seeds "1 ... 10"]
#        [--share 0.5] [--flags "SIMULATOR FLAGS"] [--out FILE] [build-dir]
# --flags: added to the malleable run's simulator flags (a variant of the policy, e.g.
# "--start min" or "--give-gain-share 0"; malleable-clustersim --help).
# Default out: docs/data/workload/seeds/settings_<share>.tsv. ~20 s per setting on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
settings="10 32 20 120;16 32 20 120" seeds="1 2 3 4 5 6 7 8 9 10" share=0.5 flags="" out="" build=$here/build
# shellcheck source=scripts/bench/workload/common.sh
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
