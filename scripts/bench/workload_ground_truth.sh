#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
#   scripts/bench/workload_ground_truth.sh [--swf T.swf] [--first 3000] [--jobs 240]
#        [--nodes 16] [--load 1.3] [--lo 10] [--hi 90] [--out DIR] [--build-dir DIR]
#        [--replay-only]
# Data: DIR (default docs/data/workload/ground_truth/<log>_<first>): stream.json,
# submitted.tsv, sacct.txt, slurm_config.txt, replay.json, ground_truth.md. Takes the
# cluster lock (/run/malleable-cluster.lock) for the run; about (sum of nodes x run) / nodes
# / 60 x 1.1 minutes (15 min with the defaults).
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
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "workload_ground_truth.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $first =~ ^[0-9]+$ && $jobs =~ ^[0-9]+$ && $nodes =~ ^[0-9]+$ ]] ||
  { echo "workload_ground_truth.sh: --first, --jobs and --nodes take whole numbers" >&2; exit 2; }
((jobs >= 200)) || { echo "workload_ground_truth.sh: --jobs must be at least 200 (a ground truth of waits)" >&2; exit 2; }
sim=$build/sim/malleable-clustersim
[[ -x $sim ]] || { echo "workload_ground_truth.sh: $sim missing (scripts/setup.sh)" >&2; exit 1; }
log=$(basename "$swf" .swf | cut -d- -f1-2 | tr 'A-Z' 'a-z')
out=${out:-$here/docs/data/workload/ground_truth/${log}_$first}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ((!replay_only)); then
  [[ $(id -u) -eq 0 ]] || { echo "workload_ground_truth.sh: the emulated cluster needs root" >&2; exit 77; }
  command -v slurmdbd >/dev/null || { echo "workload_ground_truth.sh: slurmdbd is not installed (scripts/setup.sh)" >&2; exit 77; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 "$wl/trace_slice.py" write --sim "$sim" --swf "$swf" --first "$first" --nodes "$nodes" --jobs "$jobs" \
    --malleable-share 0 -o "$tmp/generated.json"
  python3 "$wl/cluster_stream.py" prepare --workload "$tmp/generated.json" --lo "$lo" --hi "$hi" --limits log \
    -o "$tmp/prepared.json"
  cluster=$here/scripts/cluster.sh
  echo "workload_ground_truth.sh: $jobs jobs on $nodes nodes at offered load $load; waiting for the cluster lock"
  (
    flock -w 1800 9 || { echo "workload_ground_truth.sh: the cluster lock is held by another run for 30 min" >&2; exit 1; }
    trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
    "$cluster" down >/dev/null
    "$cluster" up "$nodes" --slurm --slots 2 9>&-
    python3 "$wl/ground_truth.py" submit --workload "$tmp/prepared.json" --load "$load" --out "$out" --src "$here" 9>&-
  ) 9>/run/malleable-cluster.lock
fi
python3 "$wl/ground_truth.py" replay --sim "$sim" --out "$out" --nodes "$nodes"
