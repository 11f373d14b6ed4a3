#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What growing by resubmission costs on a Slurm without job expansion (the emulated
# cluster, `cluster.sh up 3 --slurm --no-expansion`): a malleable PDGEMM job G under
# BUILD/bin/malleable-run --hosts slurm starts on node1 and grows onto node2 by restart into a
# new allocation (malleable-run submits its successor with --dependency=afterany and ends).
# Two rounds, each on a fresh cluster:
#   idle   nothing else runs: the seconds from G's checkpoint for the restart to the
#          successor running, and to its first iteration on the larger grid;
#   queued a rigid 2-node job W is submitted the moment G decides to grow (after the
#          policy checked that nobody waits): Slurm starts W on the nodes G frees (W was
#          submitted before the successor, so it is ahead of it), and the successor waits
#          for W's whole run: its queue position is lost.
# Polls Slurm and G's output every 0.1 s; prints one line per round:
#   resubmit ROUND ckpt_to_running_s ckpt_to_iteration_s successor_waited_for_W(0/1) old_id new_id
# Takes the cluster lock (at most a few minutes).
#   scripts/bench/resubmit_cost.sh [--build-dir build] [--out FILE]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build out=
while (($#)); do
  case $1 in
    --build-dir) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "resubmit_cost.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
CLUSTER=$here/scripts/cluster.sh
work=$(mktemp -d)
exec 9>/run/malleable-cluster.lock
flock -w 900 9 || { echo "resubmit_cost.sh: the cluster lock is busy" >&2; exit 1; }
trap '"$CLUSTER" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
S() { "$CLUSTER" exec head "$@"; }
now() { date +%s.%N; }
round() {  # <idle|queued>
  local mode=$1 g t_ckpt= t_run= t_iter= succ= w= waited=0 t0
  "$CLUSTER" down >/dev/null
  "$CLUSTER" up 3 --slurm --no-expansion 9>&- >/dev/null
  eval "export $("$CLUSTER" slurm-env)"
  rm -rf "$work/ck" && mkdir -p "$work/ck"
  {
    echo "#!/bin/bash"
    echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
    echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off SLURM_CONF=$SLURM_CONF"
    echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
    echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$here/scripts/cluster-rsh"
    echo "export RESIZE_SLURM_INTERVAL=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2 RESIZE_SLURM_SHARED=$work/shared-$mode"
    echo "exec $build/bin/malleable-run -n 2 --hosts slurm -- $build/apps/pdgemm_resizable -n 400 --nb 32 -g 1x2 -i 1000000 -p slurm --checkpoint $work/ck --keep 2 --stop-file $work/stop"
  } >"$work/g.sh"
  chmod +x "$work/g.sh"
  rm -f "$work/stop" "$work/g.out"
  g=$(cd "$work" && S sbatch --parsable -J grow -N 1 -w node1 --ntasks-per-node=2 -o "$work/g.out" "$work/g.sh")
  t0=$SECONDS
  while ((SECONDS - t0 < 240)); do
    if [[ $mode == queued && -z $w ]] && grep -q "growing by restart into a new allocation" "$work/g.out" 2>/dev/null; then
      w=$(cd "$work" && S sbatch --parsable -J W -N 2 -t 1 -o /dev/null --wrap "sleep 20")
    fi
    if [[ -z $t_ckpt ]] && grep -q "resize by restart after iteration" "$work/g.out" 2>/dev/null; then t_ckpt=$(now); fi
    if [[ -z $succ ]]; then succ=$(grep -o "submitted job [0-9]*" "$work/g.out" 2>/dev/null | head -1 | awk '{print $3}' || true); fi
    if [[ -n $succ && -z $t_run && $(S squeue -h -j "$succ" -o %T 2>/dev/null) == RUNNING ]]; then t_run=$(now); fi
    if [[ -n $w && -n $succ && -z $t_run && $(S squeue -h -j "$w" -o %T 2>/dev/null) == RUNNING ]]; then waited=1; fi
    if [[ -n $t_run ]] && grep -Eq "\] iter +[0-9]+ +grid 2x2" "$work/g.out" 2>/dev/null; then t_iter=$(now); break; fi
    sleep 0.1
  done
  touch "$work/stop"
  [[ -n $t_ckpt && -n $t_run && -n $t_iter ]] || { cat "$work/g.out" >&2; echo "resubmit_cost.sh: round $mode did not complete" >&2; return 1; }
  local line
  line="resubmit $mode $(awk -v a="$t_ckpt" -v b="$t_run" 'BEGIN{printf "%.1f", b - a}') $(awk -v a="$t_ckpt" -v b="$t_iter" 'BEGIN{printf "%.1f", b - a}') $waited $g $succ"
  echo "$line"
  [[ -z $out ]] || echo "$line" >>"$out"
  for ((t0 = 0; t0 < 100; ++t0)); do [[ -z $(S squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.3; done
}
[[ -z $out ]] || echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); resubmit ROUND ckpt_to_running_s ckpt_to_iteration_s successor_waited_for_W old new" >"$out"
round idle
round queued
