#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# the comparison under the emulated cluster's Slurm (4 nodes, 1 Gbit/s links): the
# same two jobs (a 4-node PDGEMM job, then a rigid 2-node job arriving while it runs) once
# with the first job malleable (-p slurm: it gives 2 nodes back and grows again, the
# payoff test on) and once rigid (first come, first served). Slurm's view is recorded
# every 0.5 s; scripts/bench/slurm_report.py turns it into makespan, response times, node
# utilization and the timeline plot (docs/img/slurm_timeline.png), and report.py puts the
# section into docs/measurements/results.md.
#   scripts/bench/slurm_bench.sh [--quick] [--out DIR] [--build-dir DIR]
# --quick: N = 800, 120 iterations (about 2 minutes). Needs root; leaves nothing behind.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out=$here/docs/data/slurm
n=1600 iters=200 quick=0
while (($#)); do
  case $1 in
    --quick) quick=1; n=800; iters=120; shift ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "slurm_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $build = /* ]] || build=$here/$build
SRC=$here BUILD=$build
# shellcheck source=../../tests/cluster/harness.sh
. "$here/tests/cluster/harness.sh"
start=$(date +%s)
cluster_begin 4 --slurm --rate 1gbit
for mode in malleable rigid; do
  echo "== $mode: N=$n, $iters iterations"
  rm -rf "$out/$mode"
  "$here/scripts/bench/slurm_scenario.sh" --out "$out/$mode" --mode "$mode" --n "$n" --iters "$iters" \
    --rigid-iters 20 --submit-after 8 --build-dir "$build" --deadline 1200
  grep -E '^\[slurm\]|remap after' "$out/$mode/${mode}_job.out" || true
done
python3 - "$out" "$(( $(date +%s) - start ))" "$quick" "$n" "$iters" <<'PY'
import json, os, sys, subprocess
out, secs, quick, n, iters = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5])
commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
json.dump({"seconds": secs, "quick": quick, "n": n, "iterations": iters, "commit": commit,
           "load_at_end": open("/proc/loadavg").read().split()[:3]}, open(os.path.join(out, "meta.json"), "w"), indent=1)
PY
# the per-run scripts embed this machine's paths; the data stays
rm -f "$out"/*/first.sh "$out"/*/rigid.sh "$out"/*/slurm_job_*_resize.*
python3 "$here/scripts/bench/slurm_report.py" --data "$out" --plot "$here/docs/img/slurm_timeline.png" --summary
python3 "$here/scripts/bench/splice_sections.py" --only slurm --data "$(dirname "$out")" || true
# the raw runs go into OUT/runs.tar.xz (scripts/bench/data_archive.py; the report reads them there)
python3 "$here/scripts/bench/data_archive.py" pack "$out" >/dev/null
