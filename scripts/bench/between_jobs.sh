#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Between jobs on one node (docs/measurements/results.md, "Between jobs on one node"): after
# MPI_Comm_spawn + merge, how fast an original process talks to a newcomer compared with
# another original, under each Open MPI setting tried. spawn_pingpong.c (compiled here with
# mpicc into a scratch directory) measures 8 B latency and 1-8 MiB bandwidth for both pairs;
# the settings run round robin, `--rounds` times, so every setting sees the same load.
# Settings:
#   ob1        Open MPI's default (ob1 PML: vader shared memory within a job, TCP otherwise)
#   ob1-frag   ob1 with TCP fragments of 1 MiB and a 4 MiB pipeline (btl_tcp_max_send_size,
#              btl_tcp_rdma_pipeline_send_length, btl_tcp_rdma_pipeline_frag_size)
#   ob1-links2 ob1 with two TCP connections per pair (btl_tcp_links 2)
#   ucx        the UCX PML (pml ucx, pml_ucx_tls any, pml_ucx_devices any: Open MPI 4.1.4
#              declines UCX without those when it sees no InfiniBand device), UCX's own
#              transport choice
# Then redist's `redistribute` between jobs (malleable-redist-bench between-jobs, redist/bench/between_jobs_redist.cpp, when
# built): N x N, 1x2 -> 2x2 onto 2 spawned processes against 4 processes of one job, per
# transport (message, node window, single copy, auto), `--rounds` times round robin:
# docs/data/between_jobs/redistribute.txt.
# Output: docs/data/between_jobs/pingpong.txt (every round's lines, prefixed by setting and
# round) and a summary (median over rounds; bandwidth in GB/s, latency in us) on stdout and
# in docs/data/between_jobs/summary.txt.
#   scripts/bench/between_jobs.sh [--rounds R] [--reps K] [--n N] [--out DIR] [--summary-only]
# --summary-only: no runs, the summary of the files already in DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$here/docs/data/between_jobs rounds=5 reps=20 n=3200 only=0
build=${MALLEABLE_BUILD_DIR:-$here/build}
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --summary-only) only=1; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "between_jobs.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mpicc -O2 -Wall -Wextra "$here/scripts/bench/spawn_pingpong.c" -o "$scratch/spawn_pingpong"
# PMIX_MCA_gds=hash as the library sets it before MPI_Init (docs/reference/blacs-dyn.md): without it a
# spawn of the raw programs hung in PMIx_Init / PMIx_Lookup here.
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1
declare -A mca=(
  [ob1]=""
  [ob1-frag]="--mca btl_tcp_max_send_size 1048576 --mca btl_tcp_rdma_pipeline_send_length 1048576 --mca btl_tcp_rdma_pipeline_frag_size 4194304"
  [ob1-links2]="--mca btl_tcp_links 2"
  [ucx]="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
)
settings="ob1 ob1-frag ob1-links2 ucx"
mkdir -p "$out"
raw=$out/pingpong.txt
bench=$build/redist/malleable-redist-bench
red=$out/redistribute.txt
if ((!only)); then
{
  echo "# scripts/bench/between_jobs.sh on $(hostname), $(env -u OMP_NUM_THREADS nproc) cpus, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); $(mpiexec --version | head -1)"
  echo "# rounds $rounds, $reps round trips per batch (8 B: 20x), best batch of 5; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# setting round pair bytes latency_us bandwidth_GBps"
} >"$raw"
cd "$scratch"
for r in $(seq 1 "$rounds"); do
  for s in $settings; do
    # shellcheck disable=SC2086
    if ! timeout 120 mpiexec --oversubscribe --bind-to none ${mca[$s]} -n 2 ./spawn_pingpong "$reps" >"$scratch/run.txt" 2>&1; then
      echo "# $s round $r failed: $(tail -1 "$scratch/run.txt")" >>"$raw"
      continue
    fi
    grep -E '^original' "$scratch/run.txt" | sed "s/^/$s $r /" >>"$raw"
  done
done
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw"
if [[ -x $bench ]]; then
  echo "# malleable-redist-bench between-jobs N=$n nb=64, $rounds rounds (best of 3 per round); load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >"$red"
  for r in $(seq 1 "$rounds"); do
    timeout 300 mpiexec --oversubscribe --bind-to none -n 2 "$bench" between-jobs --spawn "$n" 64 3 2>&1 | sed "s/^/$r /" >>"$red" || echo "# round $r between jobs failed" >>"$red"
    timeout 300 mpiexec --oversubscribe --bind-to none -n 4 "$bench" between-jobs --same-job "$n" 64 3 2>&1 | sed "s/^/$r /" >>"$red" || echo "# round $r same job failed" >>"$red"
  done
  echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$red"
else
  echo "between_jobs.sh: $bench not built: redistribute between jobs skipped"
fi
fi
python3 - "$raw" <<'PY' | tee "$out/summary.txt"
import collections, statistics, sys
rows = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    s, r, pair, b, lat, bw = line.split()
    key = (s, pair, int(b))
    if key not in rows:
        order.append(key)
    rows[key].append(float(lat) if int(b) <= 8 else float(bw))
print("# median over rounds (min-max); 8 B: one-way latency in us, else bandwidth in GB/s (2 x bytes per round trip);")
print("# newcomer/orig: of the medians, then of the best rounds (least latency, most bandwidth)")
print(f"{'setting':11s} {'bytes':>8s} {'orig-orig':>20s} {'orig-newcomer':>20s} {'median':>8s} {'best':>7s}")
for s in dict.fromkeys(k[0] for k in order):
    for b in sorted({k[2] for k in order if k[0] == s}):
        oo, on = rows.get((s, "original-original", b)), rows.get((s, "original-newcomer", b))
        if not oo or not on:
            continue
        mo, mn = statistics.median(oo), statistics.median(on)
        cell = lambda v, m: f"{m:.2f} ({min(v):.2f}-{max(v):.2f})"
        best = (min(on) / min(oo)) if b <= 8 else (max(on) / max(oo))
        print(f"{s:11s} {b:8d} {cell(oo, mo):>20s} {cell(on, mn):>20s} {mn / mo:7.2f}x {best:6.2f}x")
PY
[[ -f $red ]] || exit 0
python3 - "$red" <<'PY' | tee -a "$out/summary.txt"
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 7 and not f[0].startswith("#") and not f[1].startswith("#"):
        t[(f[1], f[2])].append(float(f[3]))
print("# redistribute 1x2 -> 2x2 onto 2 spawned processes (between jobs) or within one job: median over rounds of the best of 3, ms (min-max)")
print(f"{'transport':12s} {'same job':>22s} {'between jobs':>22s} {'between/same':>13s}")
for tr in ("message", "window", "single-copy", "auto", "other-jobs"):
    s, b = t.get(("same-job", tr)), t.get(("between-jobs", tr))
    if s and b:
        ms, mb = statistics.median(s), statistics.median(b)
        cell = lambda v, m: f"{m * 1e3:.1f} ({min(v) * 1e3:.1f}-{max(v) * 1e3:.1f})"
        print(f"{tr:12s} {cell(s, ms):>22s} {cell(b, mb):>22s} {mb / ms:12.2f}x")
PY
