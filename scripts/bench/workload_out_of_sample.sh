#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The simulator checked out of sample (docs/measurements/workload.md, "Out of sample"): the
# resize costs and Slurm's latencies fitted on one set of emulated runs (FIT: a study's
# share_* runs, scripts/bench/workload/cluster_report.py costs) predict another set
# (PREDICT: the same setting at another seed), each run simulated as it was submitted
# (workload_validate.sh --runs). Each metric's error is printed beside the in-sample
# error (PREDICT's runs with the costs fitted on PREDICT itself), both directions.
#
#   scripts/bench/workload_out_of_sample.sh [FIT PREDICT]
# FIT, PREDICT: studies under docs/data/workload (default emulated_16n emulated_16n_seed6:
# 16 nodes, 32 jobs, seeds 1 and 6), read from the packed runs (runs.tar.xz) into a scratch
# copy; nothing under docs/ is written. The table goes to stdout (OUT=FILE: also there).
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
