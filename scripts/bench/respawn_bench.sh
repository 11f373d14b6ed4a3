#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Merge or respawn on one node (docs/reference/apps.md, "Merge or respawn";
# docs/measurements/respawn.md), the arms' order rotating each round:
#   pingpong  rank 0 and rank 1 of a world started with 2 processes (fresh), of one process
#             grown by a spawn of one (grow: an original and a newcomer, two launches) and
#             of that grown job after a respawn (respawn: two processes of one spawn that
#             replaced it): 8-byte round trip and 8 MiB bandwidth, median of 5
#             (tests/blacs-dyn/runtime/pingpong_grown.cpp), and Open MPI's view of the pair;
#   resize    PDGEMM (N, NB 64) started on 2x2: 2:expand:3x3,4:shrink:2x2 and 2:expand:2x4,
#             with RESIZE_RECONFIGURE=merge and =respawn: each resize's t_total from the
#             run's JSON (2x2->3x3, 3x3->2x2, 2x2->2x4).
# On this machine's cores (the load is printed; every arm oversubscribes a 2-core machine
# in the resize runs). A fresh resize history per run (RESIZE_HISTORY=off): no arm
# predicts from another's. Prints one line per run and a table of medians and ranges.
#   scripts/bench/respawn_bench.sh [BUILD_DIR] [ROUNDS] [OUT_DIR]
set -uo pipefail
build=${1:-build} rounds=${2:-3} out=${3:-}
[[ -x $build/tests/blacs-dyn/blacs_dyn_pingpong_grown && -x $build/apps/pdgemm_resizable ]] || {
  echo "respawn_bench.sh: build $build first (targets blacs_dyn_pingpong_grown pdgemm_resizable)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export RESIZE_HISTORY=off
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${N:-1000}
echo "respawn_bench: $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(mpiexec --version | head -1), N $n, $rounds rounds, $(date -u +%FT%TZ)"
results=$tmp/results.tsv
: >"$results"
for ((r = 1; r <= rounds; ++r)); do
  arms=(fresh grow respawn)
  for ((k = 0; k < ${#arms[@]}; ++k)); do
    mode=${arms[$(((k + r) % ${#arms[@]}))]}
    np=1
    [[ $mode == fresh ]] && np=2
    log=$(timeout 120 mpiexec --oversubscribe --bind-to none -n $np \
      "$build/tests/blacs-dyn/blacs_dyn_pingpong_grown" "$mode" 8 5 2>&1)
    line=$(grep "^pingpong" <<<"$log") view=$(grep "^launch:" <<<"$log")
    lat=$(sed -n 's/.*round trip \([0-9.]*\) us.*/\1/p' <<<"$line") bw=$(sed -n 's/.* \([0-9.]*\) GB\/s.*/\1/p' <<<"$line")
    echo "round $r pingpong $mode: ${line:-FAILED}; ${view:-no view}"
    [[ -n $lat ]] && printf 'pingpong\t%s\tlatency_us\t%s\n' "$mode" "$lat" >>"$results"
    [[ -n $bw ]] && printf 'pingpong\t%s\tbandwidth_gbs\t%s\n' "$mode" "$bw" >>"$results"
  done
  hows=(merge respawn)
  for sched in 2:expand:3x3,4:shrink:2x2 2:expand:2x4; do
    for ((k = 0; k < ${#hows[@]}; ++k)); do
      how=${hows[$(((k + r) % ${#hows[@]}))]}
      json=$tmp/$how.$r.json
      rm -f "$json"
      RESIZE_RECONFIGURE=$how timeout 300 mpiexec --oversubscribe --bind-to none -n 4 \
        "$build/apps/pdgemm_resizable" -n "$n" --nb 64 -i 6 -p scripted -s "$sched" --no-check -q \
        --json "$json" >"$tmp/log" 2>&1
      python3 - "$json" "$how" "$r" >>"$results" <<'PY' || echo "round $r resize $how $sched: FAILED ($(tail -1 "$tmp/log"))"
import json, sys
for e in json.load(open(sys.argv[1]))["resizes"]:
    change = f"{e['from']['rows']}x{e['from']['cols']}->{e['to']['rows']}x{e['to']['cols']}" if isinstance(e["from"], dict) else f"{e['from']}->{e['to']}"
    ok = e["ok"] and e.get("reconfigure") == sys.argv[2]
    print(f"resize\t{sys.argv[2]}\t{change}\t{e['t_total_s'] if ok else 'nan'}")
    print(f"round {sys.argv[3]} resize {sys.argv[2]} {change}: total {e['t_total_s']*1e3:.1f} ms (spawn/exit {e['t_spawn_s']*1e3:.1f}, redist {e['t_redist_s']*1e3:.1f}, other {e['t_other_s']*1e3:.1f}), reconfigured by {e.get('reconfigure')}", file=sys.stderr)
PY
    done
  done 2>&1
done
python3 - "$results" <<'PY'
import math, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip() and not l.startswith("round")]
val = {}
for what, a, b, v in rows:
    if v != "nan" and not math.isnan(float(v)):
        val.setdefault((what, a, b), []).append(float(v))
def fmt(v):
    return f"{statistics.median(v):.4g} ({min(v):.4g}-{max(v):.4g}, {len(v)})" if v else "-"
def ratio(x, y):
    return f"{statistics.median(x) / statistics.median(y):.3f}" if x and y else "-"
print("\n| pingpong | fresh pair | original<->newcomer | respawned pair | respawned / fresh |")
print("|---|---|---|---|---|")
for m in ("latency_us", "bandwidth_gbs"):
    f, g, s = (val.get(("pingpong", k, m), []) for k in ("fresh", "grow", "respawn"))
    print(f"| {m} | {fmt(f)} | {fmt(g)} | {fmt(s)} | {ratio(s, f)} |")
print("\n| resize, total s | merge | respawn | respawn / merge |")
print("|---|---|---|---|")
for c in ("2x2->3x3", "3x3->2x2", "2x2->2x4"):
    m, s = val.get(("resize", "merge", c), []), val.get(("resize", "respawn", c), [])
    print(f"| {c} | {fmt(m)} | {fmt(s)} | {ratio(s, m)} |")
PY
[[ -n $out ]] && { mkdir -p "$out" && cp "$results" "$out/respawn_bench.tsv"; }
exit 0
