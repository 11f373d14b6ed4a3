#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Resize by restart against resize by spawn for the same changes: 2x2 ->
# 3x3 -> 2x2 of an N x N double matrix (N = 4000 by default: 128 MB), side by side in one
# run. The job is life_resizable (a board of N x N doubles, cheap iterations, so the
# resizes dominate; pdgemm at N = 4000 spends minutes per iteration on 2 shared cores);
# DRIVER=pdgemm runs pdgemm_resizable instead. In place: the
# session's spawn/exit, redistribution and other times. By restart (malleable-run,
# --mechanism restart): checkpoint write, exit/start (from the "resize by restart" line to
# the restarted job's "restart from" line, minus its read) and restart read.
# Usage: [DRIVER=life|pdgemm] resize_by_restart_bench.sh [build dir] [N] [NB]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }
driver=${DRIVER:-life}
P=("$build/apps/${driver}_resizable" -n "$n" -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2)
[[ $driver == pdgemm ]] && P+=(--nb "$nb")
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $driver N=$n, 2x2 -> 3x3 -> 2x2"
timeout 900 mpiexec --oversubscribe --bind-to none -n 4 "${P[@]}" 2>&1 | stamp >"$work/spawn.log"
timeout 900 "$build/bin/malleable-run" -n 4 -- "${P[@]}" --mechanism restart --checkpoint "$work/ck" 2>&1 | stamp >"$work/restart.log"
python3 - "$work/spawn.log" "$work/restart.log" <<'PY'
import re, sys
spawn = open(sys.argv[1]).read().splitlines()
rest = open(sys.argv[2]).read().splitlines()
print("by spawn (in place):")
tot_s = 0
for l in spawn:
    m = re.search(r"remap after iter (\d+): (\w+) (\S+) -> (\S+).*?(?:spawn|exit) ([\d.]+) ms, redistribution ([\d.]+) ms, other ([\d.]+) ms, total ([\d.]+) ms", l)
    if m:
        print(f"  {m[3]} -> {m[4]} ({m[2]}): spawn/exit {float(m[5]):8.1f} ms  redistribution {float(m[6]):8.1f} ms  other {float(m[7]):8.1f} ms  total {float(m[8]):8.1f} ms")
        tot_s += float(m[8])
print("by restart (checkpoint, exit 4, malleable-run, restart):")
tot_r = 0
pending = None
for l in rest:
    t, _, text = l.partition(" ")
    t = float(t)
    m = re.search(r"checkpoint after iteration \d+: \S+ \(([\d.]+) ms\)", text)
    if m: write = float(m[1])
    m = re.search(r"resize by restart after iteration \d+: (\S+) -> (\S+) ", text)
    if m: pending = (m[1], m[2], write, t)
    m = re.search(r"restart from .*; ([\d.]+) ms\)", text)
    if m and pending:
        read = float(m[1]); a, b, w, t0 = pending
        gap = (t - t0) * 1e3 - read
        total = w + gap + read
        tot_r += total
        print(f"  {a} -> {b}: write {w:8.1f} ms  exit/start {gap:8.1f} ms  read {read:8.1f} ms  total {total:8.1f} ms")
        pending = None
ok_s = any("result check" in l and ": OK" in l for l in spawn)
ok_r = any("result check" in l and ": OK" in l for l in rest)
print(f"both resizes: by spawn {tot_s:.0f} ms (check {'OK' if ok_s else 'FAILED'}), by restart {tot_r:.0f} ms "
      f"(check {'OK' if ok_r else 'FAILED'}); restart/spawn = {tot_r / tot_s if tot_s else float('nan'):.2f}x")
PY
