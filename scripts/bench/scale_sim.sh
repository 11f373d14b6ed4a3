#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# redist's real plan + execute path (redist_sim, SimGrid SMPI) at 256-4,225
# simulated processes on the fat trees of redist/sim/platforms/ (non-blocking and 2:1
# uplinks), default and caterpillar schedules, matrices folded (--shared, timing only).
# Per run it records the simulated time of redistribute(), the busiest node link's bound
# (inter-node bytes through the busiest node link / 100 Gbit/s, from the rank-local plans,
# as redist::node_traffic computes it for the emulated-cluster bench), the busiest leaf
# switch's uplink bound, and the simulation's own cost (wall, CPU, peak memory). Runs one
# simulation at a time. Output: $OUT/results.tsv (one line per run, appended; a rerun of a
# run replaces its line), $OUT/raw/*.log, $OUT/results.md (tables), and
# $IMG (default docs/data/scale_sim/scale_sim.png: time and bounds against P). docs/measurements/scale.md, "Simulated at 256-4,096 processes" explains.
#
#   scripts/bench/scale_sim.sh [case-name-regex]      # default: every case
#   env: SIM=build/redist-sim/redist_sim  N=16384 (cases without their own N)  OUT=docs/data/scale_sim
#        PLATFORMS="fattree fattree-2to1"  SCHEDULES="default caterpillar"
#        SIMCFG (SimGrid settings, default below)  VARIANT (its label in results.tsv, default "notest")
#        MAXOUT (ExecOptions::max_outstanding; empty: the library's default, 64)
#        FORCE_N (run every selected case at this N, e.g. for the cost comparison)
#        REPORT_ONLY=1 (rebuild tables and plot from results.tsv)
# SIMCFG's default sets smpi/test:0: SMPI (3.32) injects a sleep of smpi/test (1e-4 s) into
# every failed MPI_Test, growing with the count of failed tests (smpi/grow-injected-times),
# and its MPI_Waitsome tests requests that way; that simulated polling cost, not the
# network, made the all-at-once schedule 44x the bound at 289 ranks (docs/measurements/scale.md).
# maxmin/precision:1e-4: SimGrid 3.32's solver aborts ("Cannot saturate more a constraint
# that has no active element") at its default 1e-5 with thousands of flows of 32 KiB.
# smpi/privatization:no: redist keeps no mutable globals that matter; less CPU.
# smpi/allreduce:rdb: SMPI's default MPI_Allreduce is a linear reduce + broadcast whose
# root costs the simulator more than P^2 (minutes of CPU per call at 4,225 ranks);
# recursive doubling is what MPICH uses for small allreduces.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIM=${SIM:-$here/build/redist-sim/redist_sim}
N=${N:-16384}
OUT=${OUT:-$here/docs/data/scale_sim}
IMG=${IMG:-$here/docs/data/scale_sim/scale_sim.png}
SIMCFG=${SIMCFG:-"--cfg=smpi/test:0 --cfg=maxmin/precision:1e-4 --cfg=smpi/privatization:no --cfg=smpi/allreduce:rdb"}
VARIANT=${VARIANT:-notest}
MAXOUT=${MAXOUT:-}
PLATFORMS=${PLATFORMS:-"fattree fattree-2to1"}
SCHEDULES=${SCHEDULES:-"default caterpillar"}
pdir=$here/redist/sim/platforms
filter=${1:-.}

# name  from  to  nb_a  nb_b  [N]  (P = the larger grid; cheapest first; N defaults to $N)
# The coprime and block-size cases run at N = 8,192: at 16,384 a coprime step has 65,536
# messages (one per block: the grids share no divisor), more than this machine simulates
# in the session (docs/measurements/scale.md, "Cost of the simulation").
cases=(
  "exp256      8x8   16x16 64 64"
  "shrink256   16x16 8x8   64 64"
  "coprime289  16x16 17x17 64 64  8192"
  "exp1024     16x16 32x32 64 64"
  "nb1024      32x32 32x32 64 100 8192"
  "coprime1089 32x32 33x33 64 64  8192"
  "wide2048    32x32 64x32 64 64"
  "exp4096     32x32 64x64 64 64"
  "shrink4096  64x64 32x32 64 64"
  "nb4096      64x64 64x64 64 100 8192"
  "coprime4096 45x45 64x64 64 64  8192"
  "coprime4225 64x64 65x65 64 64  8192"
)

mkdir -p "$OUT/raw" "$(dirname "$IMG")"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tsv=$OUT/results.tsv
header="case	P	from	to	nb_a	nb_b	N	schedule	platform	sim_time_s	node_bound_s	ratio	uplink_bound_s	ratio_max_bound	max_partners	wall_s	cpu_s	rss_kb	anon_peak_kb	load1	variant	max_outstanding	messages"
[[ -f $tsv ]] || echo "$header" >"$tsv"

# Largest Anonymous (private, really allocated) memory of process $1 while it lives, in kB.
# time -v's RSS counts every mapping of a folded (shared) page, so it overstates.
sample_anon() {
  local pid=$1 peak=0 v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^Anonymous:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null)
    [[ -n $v && $v -gt $peak ]] && peak=$v
    sleep 1
  done
  echo "$peak"
}

run_one() {  # name from to nb_a nb_b schedule platform N
  local name=$1 from=$2 to=$3 nba=$4 nbb=$5 sched=$6 plat=$7 N=$8
  local pa=$((${from%x*} * ${from#*x})) pb=$((${to%x*} * ${to#*x}))
  local np=$((pa > pb ? pa : pb))
  local uplink=1600
  [[ $plat == fattree-2to1 ]] && uplink=800
  local log=$OUT/raw/$name.$sched.$plat.$VARIANT.log
  local wopt=()
  [[ -n $MAXOUT ]] && wopt=(--max-outstanding "$MAXOUT")
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "== $name $from nb $nba -> $to nb $nbb, P=$np, N=$N, $sched, $plat, $VARIANT ${MAXOUT:+window $MAXOUT }(load $load) $(date -u +%H:%M:%S)"
  # smpirun leaves its unrolled hostfile (smpitmp-*) in the current directory on failure.
  (cd "$scratch" && exec /usr/bin/time -v -o "$log.time" smpirun -np "$np" -platform "$pdir/$plat.xml" -hostfile "$pdir/hostfile.txt" \
    --cfg=smpi/simulate-computation:no --cfg=contexts/stack-size:256 $SIMCFG --log=root.thresh:warning \
    "$SIM" --from "$from" --to "$to" --n "$N" --nb-a "$nba" --nb-b "$nbb" --schedule "$sched" --shared \
    --leaf-uplink-gbit "$uplink" "${wopt[@]}") >"$log" 2>&1 &
  local tpid=$! child="" anon=0  # the subshell exec'd time: $! is time's pid
  local srun=""
  for _ in $(seq 40); do  # the simulator: smpimain, child of smpirun, child of time
    [[ -z $srun ]] && srun=$(pgrep -P "$tpid" | head -1)
    [[ -n $srun ]] && child=$(pgrep -n -P "$srun" smpimain)
    [[ -n $child ]] && break
    sleep 0.25
  done
  [[ -n $child ]] && anon=$(sample_anon "$child")
  wait "$tpid"
  local rc=$?
  local res wall cpu rss
  res=$(grep '^RESULT' "$log")
  if [[ $rc -ne 0 || -z $res ]]; then
    echo "   FAILED (exit $rc), see $log"
    tail -5 "$log"
    return 1
  fi
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log.time")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$log.time")
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log.time")
  local t b r ub p
  t=$(sed -E 's/.*time_s=([^ ]+).*/\1/' <<<"$res")
  b=$(sed -E 's/.*[^_]bound_s=([^ ]+).*/\1/' <<<"$res")
  r=$(sed -E 's/.*ratio=([^ ]+).*/\1/' <<<"$res")
  ub=$(sed -E 's/.*uplink_bound_s=([^ ]+).*/\1/' <<<"$res")
  p=$(sed -E 's/.*partners=([^ ]+).*/\1/' <<<"$res")
  local mo msgs
  mo=$(sed -E 's/.*max_outstanding=([^ ]+).*/\1/' <<<"$res")
  msgs=$(sed -E 's/.*messages=([^ ]+).*/\1/' <<<"$res")
  local rm
  rm=$(awk -v t="$t" -v b="$b" -v u="$ub" 'BEGIN {m = b > u ? b : u; printf "%.3f", t / m}')
  awk -F'\t' -v n="$name" -v N="$N" -v s="$sched" -v p="$plat" -v v="$VARIANT" -v m="$mo" \
    '!($1 == n && $7 == N && $8 == s && $9 == p && $21 == v && $22 == m)' "$tsv" >"$tsv.tmp"
  mv "$tsv.tmp" "$tsv"
  printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$np" "$from" "$to" \
    "$nba" "$nbb" "$N" "$sched" "$plat" "$t" "$b" "$r" "$ub" "$rm" "$p" "$wall" "$cpu" "$rss" "$anon" "$load" "$VARIANT" "$mo" "$msgs" >>"$tsv"
  echo "   simulated $t s, node-link bound $b s (x$r), uplink bound $ub s, partners $p; wall ${wall}s cpu ${cpu}s anon ${anon} kB"
}

if [[ -z ${REPORT_ONLY:-} ]]; then
  if ! command -v smpirun >/dev/null || [[ ! -x $SIM ]]; then
    echo "scale_sim: needs smpirun (libsimgrid-dev) and $SIM (cmake --build build --target redist_sim)" >&2
    exit 1
  fi
  echo "scale_sim: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
  for c in "${cases[@]}"; do
    read -r name from to nba nbb cn <<<"$c"
    [[ $name =~ $filter ]] || continue
    for plat in $PLATFORMS; do
      for sched in $SCHEDULES; do
        run_one "$name" "$from" "$to" "$nba" "$nbb" "$sched" "$plat" "${FORCE_N:-${cn:-$N}}"
      done
    done
  done
fi

# Tables (one per platform and variant: default beside caterpillar) and the plot.
python3 - "$tsv" "$OUT/results.md" "$IMG" <<'EOF'
import csv, subprocess, sys
tsv, md, img = sys.argv[1:4]
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
for r in rows:
    r["variant"] = r.get("variant") or "smpi-test-sleep"
    r["max_outstanding"] = r.get("max_outstanding") or "64"
key = lambda r: (r["platform"], r["variant"], r["case"], r["N"], r["max_outstanding"])
by = {}
for r in rows:
    by.setdefault(key(r), {})[r["schedule"]] = r
first = lambda k: by[k][next(iter(by[k]))]
order = sorted(by, key=lambda k: (k[0], k[1] != "notest", k[1], int(first(k)["P"]), k[2], int(k[3]), -int(k[4])))
ms = lambda x: f"{float(x) * 1e3:.2f} ms"
out = []
for grp in dict.fromkeys((k[0], k[1]) for k in order):
    out.append(f"### {grp[0]}, {grp[1]}\n")
    out.append("| case | P | grids (nb) | N | partners | messages | window | node-link bound | uplink bound | default | ratio | caterpillar | ratio | default / cat. | CPU s, anon. memory (def. / cat.) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in order:
        if (k[0], k[1]) != grp:
            continue
        d, c = by[k].get("default"), by[k].get("caterpillar")
        a = d or c
        cell = lambda r: (ms(r["sim_time_s"]), f"{float(r['ratio']):.2f}") if r else ("not run", "")
        dt, dr = cell(d)
        ct, cr = cell(c)
        rel = f"{float(d['sim_time_s']) / float(c['sim_time_s']):.2f}" if d and c else ""
        cost = " / ".join(f"{float(r['cpu_s']):.0f}, {int(r['anon_peak_kb']) / 1048576:.1f} GiB" if r else "-" for r in (d, c))
        msgs = a.get("messages") or ""
        out.append(f"| {k[2]} | {a['P']} | {a['from']} ({a['nb_a']}) → {a['to']} ({a['nb_b']}) | {a['N']} | "
                   f"{a['max_partners']} | {msgs} | {k[4]} | {ms(a['node_bound_s'])} | {ms(a['uplink_bound_s'])} | {dt} | {dr} | {ct} | {cr} | {rel} | {cost} |")
    out.append("")
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))

# Plot: on the non-blocking tree, variant notest, window 64: time of redistribute() against
# P per kind of case (expansion, shrink, coprime, block size), default and caterpillar,
# with the node-link bound (dashed) of the same runs.
plot_rows = [r for r in rows if r["platform"] == "fattree" and r["variant"] == "notest" and r["max_outstanding"] == "64"]
series = {}
for r in plot_rows:
    kind = "".join(ch for ch in r["case"] if not ch.isdigit())
    lab = f"{kind} (N {r['N']})"
    series.setdefault((lab, r["schedule"]), []).append((int(r["P"]), float(r["sim_time_s"]) * 1e3))
    series.setdefault((lab, "node-link bound"), []).append((int(r["P"]), float(r["node_bound_s"]) * 1e3))
datfile = img.rsplit(".", 1)[0] + ".dat"
plots, blocks = [], []
colours = {}
for i, (k, pts) in enumerate(sorted(series.items())):
    pts = sorted(set(pts))
    blocks.append(f"# {k[0]}, {k[1]}: P time_ms\n" + "\n".join(f"{p} {t}" for p, t in pts))
    c = colours.setdefault(k[0], len(colours) + 1)
    style = {"node-link bound": "linespoints dt 2 pt 2 ps 0.8 lw 1", "default": "linespoints pt 7 ps 0.9 lw 2",
             "caterpillar": "linespoints pt 4 ps 0.9 lw 1 dt 3"}[k[1]]
    plots.append(f"'{datfile}' index {i} with {style} lc {c} title '{k[0]}, {k[1]}'")
open(datfile, "w").write("\n\n\n".join(blocks) + "\n")
if plots:
    gp = f"""set terminal pngcairo size 1100,640 font 'DejaVu Sans,9' noenhanced
set output '{img}'
set title 'redist on a simulated fat tree (SimGrid SMPI 3.32, smpi/test:0): time of redistribute() against P, with the busiest node-link bound'
set xlabel 'processes P (the larger grid)'
set ylabel 'time (ms)'
set logscale x 2
set logscale y
set xrange [200:5500]
set yrange [0.05:100]
# coprime grids sit at 289, 1089 and 4225 processes, too close to 256, 1024 and 4096 for
# labels of their own: the points show them, the title says so
set xtics (256, 512, 1024, 2048, 4096)
set label 1 'coprime grids: P = 289, 1089, 4225 (just right of 256, 1024, 4096)' at graph 0.02, graph 0.04
set key outside right
set grid
plot {", ".join(plots)}
"""
    subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    print(f"plot: {img}")
EOF
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$OUT"
