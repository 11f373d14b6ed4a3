#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The routes between ranks of one node against the single-copy bound, interleaved in one
# run: the node window (two copies), the kernel's single copy and mapped arrays (one copy in
# user space: docs/reference/mapped-arrays.md). Compiles scripts/bench/mapped_bound.cpp against
# a build's libmalleable_redist and runs it on 2 ranks (one node).
#
#   scripts/bench/mapped_bound.sh [--build DIR] [--mib 64,256] [--reps 5] [--changes LIST]
#                                 [--resize-ab ROUNDS] --out DIR
#
# Writes DIR/mapped.txt: the run's date, commit, cores, command and uptime before and after,
# and the table (per change and size the copy rate, the single-copy bound, each route's best
# and median time and their fractions of the bound, whether every B was identical, load1).
# --resize-ab ROUNDS: then a real resize, RESIZE_MAPPED_ARRAYS on against off, paired: the
# build's pdgemm_resizable (N = 4000, blocks 64) on 2 processes grown 1x2 -> 2x2 by spawn
# (the newcomers copy out of the old processes' arrays), on and off one right after the
# other, the order alternating by round; DIR/mapped_resize.txt gets each run's move
# (t_redist_s) and exchange, load1 before it, and the medians and per-round ratios on/off.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build mib=64,256 reps=5 changes="64@1x2:64@2x1,64@1x2:100@1x2,64@2x1:100@1x2" out= ab=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --changes) changes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --resize-ab) ab=$2; shift 2 ;;
    *) echo "mapped_bound.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "mapped_bound.sh: --out DIR is required" >&2; exit 2; }
[ -e "$build/redist/libmalleable_redist.so" ] || { echo "mapped_bound.sh: no $build/redist/libmalleable_redist.so" >&2; exit 2; }
mkdir -p "$out"
exe=$build/mapped_bound
mpicxx -O2 -std=c++20 -I"$here/redist/include" "$here/scripts/bench/mapped_bound.cpp" -o "$exe" \
  -L"$build/redist" -lmalleable_redist -lmalleable_redist_plan -Wl,-rpath,"$build/redist"
file=$out/mapped.txt table=$(mktemp)
trap 'rm -f "$table"' EXIT
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$here" rev-parse --short HEAD)"
  echo "cores: $(nproc)"
  echo "uptime before: $(uptime)"
  echo "command: mpiexec -n 2 mapped_bound --mib $mib --reps $reps --changes $changes"
} > "$file.tmp"
mpiexec --oversubscribe --bind-to none -n 2 "$exe" --mib "$mib" --reps "$reps" --changes "$changes" --out "$table"
{
  echo "uptime after: $(uptime)"
  echo
  cat "$table"
} >> "$file.tmp"
mv "$file.tmp" "$file"
[ "$ab" -gt 0 ] || exit 0
drv=$build/apps/pdgemm_resizable
[ -x "$drv" ] || { echo "mapped_bound.sh: $drv missing: build pdgemm_resizable" >&2; exit 2; }
export PMIX_MCA_gds=hash OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
runs=$(mktemp -d)
trap 'rm -rf "$runs" "$table"' EXIT
for ((r = 1; r <= ab; ++r)); do
  order=(on off)
  ((r % 2)) || order=(off on)
  for s in "${order[@]}"; do
    cut -d' ' -f1 /proc/loadavg > "$runs/$s.$r.load"
    RESIZE_MAPPED_ARRAYS=$s timeout 300 mpiexec --oversubscribe --bind-to none -n 2 -x RESIZE_MAPPED_ARRAYS "$drv" -n 4000 \
      --nb 64 -g 1x2 -i 2 -p scripted -s 1:expand:2x2 --no-check -q --json "$runs/$s.$r.json" > /dev/null 2>&1 ||
      echo "round $r $s: the run failed" >&2
  done
done
python3 - "$runs" "$ab" "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$(git -C "$here" rev-parse --short HEAD)" <<'PY' > "$out/mapped_resize.txt"
import json, os, statistics, sys
runs, rounds, when, commit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
print(f"pdgemm_resizable N=4000 nb=64, 2 processes grown 1x2 -> 2x2 by spawn, RESIZE_MAPPED_ARRAYS on/off paired; ended {when}, commit {commit}")
print()
print("| round | setting | load1 before | move s (t_redist_s) | exchange s |")
print("|---|---|---|---|---|")
move = {"on": {}, "off": {}}
for r in range(1, rounds + 1):
    for s in ("on", "off"):
        try:
            x = json.load(open(os.path.join(runs, f"{s}.{r}.json")))["resizes"][0]
        except (OSError, KeyError, IndexError, ValueError):
            print(f"| {r} | {s} | - | failed | - |")
            continue
        load = open(os.path.join(runs, f"{s}.{r}.load")).read().strip()
        move[s][r] = x["t_redist_s"]
        print(f"| {r} | {s} | {load} | {x['t_redist_s']:.4f} | {x['move_phases']['exchange_s']:.4f} |")
both = [r for r in move["on"] if r in move["off"]]
print()
if both:
    ratios = [move["on"][r] / move["off"][r] for r in both]
    print(f"median move on {statistics.median(move['on'][r] for r in both):.4f} s, off {statistics.median(move['off'][r] for r in both):.4f} s; "
          f"on/off per round median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}), {len(both)} rounds")
PY
