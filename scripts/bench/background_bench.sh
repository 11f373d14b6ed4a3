#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# what a background resize saves, measured side by side in one run on this
# machine. 2x2 -> 3x3 -> 4x4 -> 3x3 -> 2x2 (one resize at each of the first four remap
# points), N >= 4000, for
#   pdgemm  B <- s*(A*B) with A constant (--constant A): half the registered bytes,
#   pdgemv  x <- s*(A*x) with A constant (--constant A): nearly all the registered bytes;
#           its iterations last milliseconds, far less than a spawn, so it runs with
#           --background continue (keep iterating until the background part arrived) and
#           the resizes GEMV_SPACING iterations apart (default 300, 5 x that iterations),
#   life    the Game of Life board, all variable (nothing to overlap: must not lose),
# each run blocking (--background off) and in the background (--background wait; pdgemv
# continue), in
# alternating order, R repetitions. Prints per run the time the application was stopped
# by resizes (sum of the resizes' t_total: for a background resize the begin plus the
# completing point) and the end-to-end time, then the ratios background / blocking.
# --cluster runs it on the emulated cluster instead (scripts/cluster.sh, the set-up:
# 3 nodes, links shaped to --rate, default 1gbit): the job starts on node1, the 3x3 adds
# its 5 processes on node2, the 4x4 its 7 on node3, so data moves over the shaped links.
#   scripts/bench/background_bench.sh [--n N] [--reps R] [--apps "pdgemm life"] [--cluster] [--rate R] [--build-dir DIR] [--out DIR]
# Writes the runs' JSON, table.md, plot.dat and background.png (gnuplot) to --out (default /tmp/background_bench).
# Not a test (label bench in spirit): timings depend on the machine and its load.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out=/tmp/background_bench
n=4000 reps=1 apps="pdgemm pdgemv life" cluster=0 rate=1gbit
gemv_spacing=${GEMV_SPACING:-300}
while (($#)); do
  case $1 in
    --n) n=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --apps) apps=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --cluster) cluster=1; shift ;;
    --rate) rate=$2; shift 2 ;;
    *) echo "usage: $0 [--n N] [--reps R] [--apps LIST] [--cluster] [--rate R] [--build-dir DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export RESIZE_HISTORY=off   # no learning between runs
# Six iterations: a resize begun at remap point k completes at k+1, where the next one
# begins; the last begun (after 4) completes after 5.
at2='' at3='' launch=(mpiexec) where="one node ($(nproc) cores)"
if ((cluster)); then
  SRC=$here BUILD=$build
  # shellcheck source=../../tests/cluster/harness.sh
  . "$here/tests/cluster/harness.sh"
  cluster_begin 3 --rate "$rate"
  at2=@node2 at3=@node3 launch=("$CLUSTER" exec node1 mpiexec --bind-to none) where="emulated cluster: 3 nodes, links $rate"
fi
schedule=1:expand:3x3:local2$at2,2:expand:4x4:local2$at3,3:shrink:3x3,4:shrink:2x2
iters=6
run() {  # app mode rep
  local app=$1 mode=$2 rep=$3 extra=() cli_mode=$2 sched=$schedule it=$iters
  [[ $app == pdgemm || $app == pdgemv ]] && extra=(--nb 64 --constant A)
  if [[ $app == pdgemv ]]; then
    local g=$gemv_spacing
    [[ $mode == wait ]] && cli_mode=continue
    sched=$g:expand:3x3:local2$at2,$((2 * g)):expand:4x4:local2$at3,$((3 * g)):shrink:3x3,$((4 * g)):shrink:2x2
    it=$((5 * g))
  fi
  local json=$out/$app.$mode.$rep.json t0 t1
  t0=$(date +%s.%N)
  timeout 1800 "${launch[@]}" --oversubscribe -n 4 "$build/apps/${app}_resizable" -n "$n" -i "$it" -p scripted -q \
    -s "$sched" --background "$cli_mode" --resize-timeout 600 --json "$json" "${extra[@]}" > "$out/$app.$mode.$rep.log" 2>&1
  t1=$(date +%s.%N)
  python3 - "$json" "$t0" "$t1" "$app" "$mode" "$rep" >> "$out/runs.tsv" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
stopped = sum(r["t_total_s"] for r in j["resizes"] if r["ok"])
overlap = sum((r.get("background") or {}).get("t_overlapped_s", 0.0) for r in j["resizes"])
slow = [r["background"]["iteration_slowdown"] for r in j["resizes"] if r.get("background") and r["background"]["iteration_slowdown"] is not None]
bg = sum(1 for r in j["resizes"] if r.get("background"))
log = open(sys.argv[1][:-len(".json")] + ".log").read()
check = "OK" if "result check:" in log and log.split("result check:")[-1].split("\n")[0].rstrip().endswith("OK") else "FAILED"
print("\t".join([sys.argv[4], sys.argv[5], sys.argv[6], "%.3f" % stopped, "%.3f" % (float(sys.argv[3]) - float(sys.argv[2])),
                 "%.3f" % overlap, str(bg), "%.2f" % (sum(slow) / len(slow)) if slow else "-", check]))
EOF
}
: > "$out/runs.tsv"
for rep in $(seq "$reps"); do
  for app in $apps; do
    if ((rep % 2)); then order=(off wait); else order=(wait off); fi
    for mode in "${order[@]}"; do
      echo "== $app $mode rep $rep (N=$n)" >&2
      run "$app" "$mode" "$rep"
    done
  done
done
{ echo "Where: $where; $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg) at the end."; echo; } > "$out/table.md"
python3 - "$out/runs.tsv" "$n" >> "$out/table.md" <<'EOF'
import sys, statistics
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
by = {}
for app, mode, rep, stopped, e2e, overlap, bg, slow, check in rows:
    by.setdefault((app, mode), []).append((float(stopped), float(e2e), float(overlap), int(bg), slow, check))
print("| app (N=%s) | stopped blocking s | stopped background s | stopped ratio | end-to-end blocking s | end-to-end background s | end-to-end ratio | resizes in background | overlapped s | iteration slowdown during background | result checks |" % sys.argv[2])
print("|---|---|---|---|---|---|---|---|---|---|---|")
for app in ("pdgemm", "pdgemv", "life"):
    off, on = by.get((app, "off")), by.get((app, "wait"))
    if not off or not on: continue
    so, sw = statistics.median(x[0] for x in off), statistics.median(x[0] for x in on)
    eo, ew = statistics.median(x[1] for x in off), statistics.median(x[1] for x in on)
    label = app + {"life": " (all variable)", "pdgemv": " (A constant, continue)"}.get(app, " (A constant, wait)")
    checks = "all OK" if all(x[5] == "OK" for x in off + on) else "FAILED"
    print("| %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx | %d of 4 | %.2f | %s | %s |" % (
        label, so, sw, sw / so, eo, ew, ew / eo, on[0][3], statistics.median(x[2] for x in on), on[0][4], checks))
EOF
cat "$out/table.md"
# The plot (gnuplot): per app, the medians of the time stopped by resizes and
# of the end-to-end time, blocking vs background, from runs.tsv.
python3 - "$out/runs.tsv" > "$out/plot.dat" <<'EOF'
import sys, statistics
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
med = lambda app, mode, k: statistics.median(float(r[k]) for r in rows if r[0] == app and r[1] == mode)
print("# app stopped_blocking stopped_background end_to_end_blocking end_to_end_background")
for app in ("pdgemm", "pdgemv", "life"):
    if any(r[0] == app and r[1] == "off" for r in rows) and any(r[0] == app and r[1] == "wait" for r in rows):
        print(app, *("%.3f" % med(app, m, k) for k in (3, 4) for m in ("off", "wait")))
EOF
if command -v gnuplot > /dev/null; then
  gnuplot <<EOF
set terminal pngcairo size 900,420 font ",10"
set output "$out/background.png"
set title "Background vs blocking resizes, 2x2 -> 3x3 -> 4x4 -> 3x3 -> 2x2, N = $n, $where (medians)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "seconds"
set grid ytics
set key top right
plot "$out/plot.dat" using 2:xtic(1) title "stopped, blocking", '' using 3 title "stopped, background", \
     '' using 4 title "end-to-end, blocking", '' using 5 title "end-to-end, background"
EOF
  echo "plot: $out/background.png" >&2
fi
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
