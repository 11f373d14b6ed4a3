#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One real-trace slice's arms on the emulated cluster under real Slurm daemons and the
# arbiter, with one command, and the simulator's prediction of each run beside it:
#   rigid      every job at its recorded size (once: no job of it depends on the seed)
#   moldable   the malleable jobs ask Slurm for [min, size] and run on what they got
#   malleable  the same jobs by the one recipe (docs/guide/slurm.md: malleable-run --job-dir
#              on every node Slurm gave, one launch per node), growing by expander jobs and
#              giving back any node but the batch host down to their minimum
# For each seed the slice is cut anew (workload/trace_slice.py: the same window, the seed's
# malleable half), the arms run back to back (workload_cluster.sh --workload), and every run
# is simulated as it was submitted (workload_validate.sh --runs: its own start mode, its
# measured costs); workload/slice_table.py then prints the arms' table into NAME.md beside
# the runs (summary rows in NAME.csv; the runs packed in docs/data/slice_arms/runs.tar.xz,
# scripts/bench/data_archive.py).
#
#   scripts/bench/slice_arms.sh [--trace FILE] [--first K] [--seeds "1 2 3"] [--arms "rigid moldable ..."]
#        [--out DIR] [--name NAME] [--lo 10] [--hi 120] [--deadline 1500] [--table-only]
#        [--limits loose|log] [--jobs 40]
# --arms: any of rigid, moldable, moldable_max, moldable_efficient, malleable, malleable_rule,
# growth, giveback (workload_cluster.sh; the simulator's arms), all seven but malleable_rule by
# default: rigid once,
# the arms the targets compare (moldable, moldable_max, malleable) on every seed, the
# others (moldable_efficient, growth, giveback) on the first seed given. --table-only: run nothing; make
# every run's metrics and NAME.csv again, simulate the runs and print the table again.
# After the runs, too, every run of the slice (all seeds and arms there) is reported,
# simulated with the costs measured over all of them, and tabled.
# Defaults: the KTH SP2 log, kept jobs 1040-1079 on 16 nodes (docs/measurements/workload.md),
# seeds 1 2 3, data in docs/data/slice_arms/NAME (NAME: kth-sp2-1040). About 10 min a KTH
# run and 5 min a CTC run on this 2-core machine: 13 runs, about 2 h (KTH) or 1 h (CTC),
# for the whole table. Needs root (namespaces) and Slurm (scripts/setup.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
trace=$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf first=1040 seeds="1 2 3"
arms="rigid moldable moldable_max moldable_efficient malleable growth giveback" name="" out="" lo=10 hi=120 deadline=1500 table_only=0
limits=loose jobs=40
while (($#)); do
  case $1 in
    --trace) trace=$(realpath "$2"); shift 2 ;;
    --first) first=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --arms) arms=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --lo) lo=$2; shift 2 ;;
    --hi) hi=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --table-only) table_only=1; shift ;;
    --limits) limits=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "slice_arms.sh: unknown option $1 (see the header)" >&2; exit 2 ;;
  esac
done
[[ $first =~ ^[0-9]+$ ]] || { echo "slice_arms.sh: --first must be a number, got '$first'" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ ]] && ((jobs > 0)) || { echo "slice_arms.sh: --jobs must be a positive number, got '$jobs'" >&2; exit 2; }
for s in $seeds; do [[ $s =~ ^[0-9]+$ ]] || { echo "slice_arms.sh: a seed must be a number, got '$s'" >&2; exit 2; }; done
[[ $limits == loose || $limits == log ]] || { echo "slice_arms.sh: --limits must be loose or log, got '$limits'" >&2; exit 2; }
known_arms="rigid moldable moldable_max moldable_efficient malleable malleable_rule growth giveback"
every_seed="moldable moldable_max malleable malleable_rule"
for a in $arms; do
  [[ " $known_arms " == *" $a "* ]] || { echo "slice_arms.sh: unknown arm '$a' (one of: $known_arms)" >&2; exit 2; }
done
sim=$build/sim/malleable-clustersim
[[ -x $sim && -x $build/bin/malleable-run ]] || { echo "slice_arms.sh: build malleable-clustersim and malleable-run first" >&2; exit 2; }
base=$(basename "$trace" .swf)
[[ -n $name ]] || name="$(tr 'A-Z' 'a-z' <<<"${base%%-[0-9][0-9][0-9][0-9]-*}")-$first"
[[ -n $out ]] || out=$here/docs/data/slice_arms/$name
mkdir -p "$out"
out=$(realpath "$out")
archive=$here/scripts/bench/data_archive.py
img=$(mktemp -d)
trap 'rm -rf "$img"' EXIT
first_seed=${seeds%% *}
for seed in $seeds; do
  ((table_only)) && break
  d=$out/seed$seed
  mkdir -p "$d"
  python3 "$here/scripts/bench/workload/trace_slice.py" write --sim "$sim" --swf "$trace" --first "$first" \
    --jobs "$jobs" --seed "$seed" -o "$d/slice.json"
  run_arms=()
  for a in $arms; do
    [[ $a == rigid && $seed != "$first_seed" ]] && continue
    [[ $a != rigid && " $every_seed " != *" $a "* && $seed != "$first_seed" ]] && continue
    run_arms+=("$a")
  done
  ((${#run_arms[@]})) || continue
  "$here/scripts/bench/workload_cluster.sh" --workload "$d/slice.json" --arms "${run_arms[*]}" --start recipe \
    --setting "emulated-trace:$name-s$seed" --arbiter --lo "$lo" --hi "$hi" --deadline "$deadline" \
    --limits "$limits" --out "$d" --csv "$out.csv" --img "$img" --build-dir "$build"
done
# the runs loose for the simulation and the table, packed again at the end
study=$(python3 "$archive" study "$out")
if [[ -n $study ]]; then
  [[ -f $study/runs.tar.xz ]] && python3 "$archive" unpack "$study" >/dev/null
  trap 'rm -rf "$img"; python3 "$archive" pack "$study" >/dev/null' EXIT
fi
# every run of the slice, of every seed and arm run so far, not only this call's
# (workload_cluster.sh packs each seed's runs as it ends)
all_runs=()
for sd in $(ls -d "$out"/seed* 2>/dev/null | sort -V); do
  for a in $known_arms; do [[ -f $sd/$a/metrics.json ]] && all_runs+=("$sd/$a"); done
done
# each run's metrics made again from its data (cluster_report.py run: today's rules for the
# runs of every commit, e.g. a job that ran between two polls read from Slurm's job
# completion log) and NAME.csv written anew from them, one row a run
rm -f "$out.csv"
for d in "${all_runs[@]}"; do
  python3 "$here/scripts/bench/workload/cluster_report.py" run "$d" --csv "$out.csv" >/dev/null
done
# every run simulated as it was submitted, with the costs measured over all of them
# (workload_validate.sh exits 1 when a metric is off by more than 15%: that is a finding)
((${#all_runs[@]})) && { "$here/scripts/bench/workload_validate.sh" --runs "${all_runs[@]}" ||
  echo "slice_arms.sh: a simulated metric is off by more than 15% (see validation.md)" >&2; }
python3 "$here/scripts/bench/workload/slice_table.py" "$out" | tee "$out.md"
