#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# slurmctld's load from the Slurm policy as jobs multiply, measured with
# slurmctld's own counters (sdiag): on the emulated cluster (cluster.sh up 5 --slurm, under
# the cluster lock), for each mode and each number of jobs K, K one-node jobs run
# pdgemm_resizable -p slurm (1 process, RESIZE_SLURM_MAX_NODES=1: the policy looks at
# Slurm every interval and never acts), then `sdiag -r`, a window of W seconds, `sdiag`:
# the RPCs slurmctld received in the window, less those of the same window with no job
# (slurmd registrations, the bench's own sdiag), per job per minute.
#   alone   RESIZE_SLURM_SHARED=off: every job asks Slurm itself (the policy:
#           scontrol show job, sinfo, squeue each interval)
#   shared  the cluster view cached in a shared directory: one squeue + one sinfo per
#           interval for the whole cluster, whichever job finds the view stale
#   slurm_rpc_bench.sh [--jobs "1 2 4"] [--window 30] [--interval 2] [--modes "alone shared"]
#                      [--build-dir DIR] [--out FILE]
# Prints a table (also to FILE, TSV): mode, jobs, window_s, rpcs, rpcs_per_min (less the
# no-job baseline), rpcs_per_job_minute; and each run's RPCs by message type.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build jobs_list="1 2 4" window=30 interval=2 modes="alone shared" out=""
while (($#)); do
  case $1 in
    --jobs) jobs_list=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "slurm_rpc_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $build = /* ]] || build=$here/$build
[[ -x $build/apps/pdgemm_resizable ]] || { echo "slurm_rpc_bench.sh: build pdgemm_resizable first ($build)" >&2; exit 1; }
command -v slurmctld >/dev/null || { echo "slurm_rpc_bench.sh: Slurm is not installed" >&2; exit 1; }
cluster=$here/scripts/cluster.sh
work=$(mktemp -d)
exec 9>/run/malleable-cluster.lock
flock -w 3600 9 || { echo "slurm_rpc_bench.sh: the cluster lock stayed busy for an hour" >&2; exit 1; }
trap '"$cluster" exec head scancel --name=rpcbench >/dev/null 2>&1 || true; "$cluster" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$cluster" down >/dev/null
"$cluster" up 5 --slurm 9>&- >/dev/null
head_do() { "$cluster" exec head "$@"; }

# The sum of sdiag's "by message type" counts.
rpcs() { awk '/by message type/{on=1; next} /by user/{on=0} on && /count:/{sub(/.*count:/, ""); sub(/ .*/, ""); s += $1} END{print s + 0}' "$1"; }

run() {  # <mode> <jobs>
  local mode=$1 k=$2 i shared=off
  [[ $mode == shared ]] && shared=$work/shared-$k
  cat >"$work/job.sh" <<EOF
#!/bin/bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24
export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$here/scripts/cluster-rsh
export RESIZE_SLURM_INTERVAL=$interval RESIZE_SLURM_MAX_NODES=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_SHARED=$shared
exec mpirun --oversubscribe --bind-to none -n 1 $build/apps/pdgemm_resizable -n 96 --nb 32 -g 1x1 -i 100000000 -p slurm -q --stop-file $work/stop
EOF
  chmod +x "$work/job.sh"
  rm -f "$work/stop"
  for ((i = 0; i < k; ++i)); do
    (cd "$work" && head_do sbatch --parsable -J rpcbench -N 1 -o "$work/$mode-$k-$i.out" "$work/job.sh") >/dev/null
  done
  # Every job running and its policy past its first look (a "[slurm]" line).
  for ((i = 0; i < 600; ++i)); do
    [[ $(head_do squeue -h -n rpcbench -t R -o %i | wc -l) -eq $k && $(cat "$work/$mode-$k-"*.out 2>/dev/null | grep -c '^\[slurm\] job') -eq $k ]] && break
    sleep 0.2
  done
  ((i < 600)) || { echo "slurm_rpc_bench.sh: the $k jobs did not start" >&2; cat "$work/$mode-$k-"*.out >&2; exit 1; }
  sleep 3
  measure "$mode" "$k"
  touch "$work/stop"
  for ((i = 0; i < 300; ++i)); do [[ -z $(head_do squeue -h -n rpcbench -o %i) ]] && break; sleep 0.2; done
  head_do scancel --name=rpcbench >/dev/null 2>&1 || true
}

measure() {  # <mode> <jobs>
  head_do sdiag -r >/dev/null
  sleep "$window"
  head_do sdiag >"$work/sdiag-$1-$2.txt"
  local n
  n=$(rpcs "$work/sdiag-$1-$2.txt")
  echo "$n" >"$work/count-$1-$2"
  echo "== $1, $2 job(s): $n RPCs in $window s" >&2
  awk '/by message type/{on=1; next} /by user/{on=0} on && /count:/' "$work/sdiag-$1-$2.txt" | sed 's/ ave_time.*//' >&2
}

measure none 0
for mode in $modes; do
  for k in $jobs_list; do run "$mode" "$k"; done
done
base=$(cat "$work/count-none-0")
{
  printf 'mode\tjobs\twindow_s\trpcs\trpcs_per_min\trpcs_per_job_minute\n'
  printf 'none\t0\t%s\t%s\t%.1f\t-\n' "$window" "$base" "$(echo "$base * 60 / $window" | bc -l)"
  for mode in $modes; do
    for k in $jobs_list; do
      n=$(cat "$work/count-$mode-$k")
      awk -v m="$mode" -v k="$k" -v w="$window" -v n="$n" -v b="$base" \
        'BEGIN{r = (n - b) * 60 / w; printf "%s\t%d\t%s\t%d\t%.1f\t%.1f\n", m, k, w, n, r, r / k}'
    done
  done
} | tee "${out:-/dev/null}"
