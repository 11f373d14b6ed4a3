#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A join against a spawn of the same processes (docs/measurements/joining.md): the resizable
# PDGEMM driver under malleable-run --job-dir grows by the same processes at the
# same remap point, by MPI_Comm_spawn (RESIZE_EXPAND=spawn) or by a launch the job orders
# and joins (the default there), then shrinks back. The run's JSON gives, per expansion,
# the time to the merged world (t_spawn_s: the spawn, or the join from the order to the
# merge) and the whole resize (t_total_s). The arms alternate round by round.
#   node:  one node, 2x2 -> 3x3 (5 new processes)
#   nodes: the emulated cluster (scripts/cluster.sh, 2 nodes; holds its lock): the job on
#          node1 (4 processes) grows onto node2 (4 new processes: 2x2 -> 2x4) and gives
#          node2 back
# Usage: join_bench.sh [--build DIR] [--rounds R] [--where node|nodes|both] [--out DIR]
# Prints one CSV row per expansion (where,arm,round,merged_s,total_s,load1, and for a join
# its parts: request_s,connect_s,merge_s) and a summary (median of each arm, join/spawn, the
# join's parts); with --out, writes DIR/runs.csv and DIR/summary.txt.
# The join's parts come from the run's own trace (BLACS_DYN_TRACE=1: world rank 0 prints
# each phase of the expansion on stderr; they are not in the run's JSON): request_s, the
# expansion's start to the ordered launch's request seen ("checks" + "launch L seen");
# connect_s, MPI_Comm_connect; merge_s, the hand-shake and the merge ("hellos, checks,
# prepare + acks" + "launch L merged").
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build rounds=5 where=both out=
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --where) where=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "join_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]{0,3}$ ]] || { echo "join_bench.sh: --rounds must be a positive number" >&2; exit 2; }
[[ $where == node || $where == nodes || $where == both ]] || { echo "join_bench.sh: --where node|nodes|both" >&2; exit 2; }
prog=$build/apps/pdgemm_resizable
[[ -x $prog ]] || { echo "join_bench.sh: no $prog (build first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off BLACS_DYN_JOIN_TIMEOUT=120
work=$(mktemp -d)
rows=$work/runs.csv
echo "where,arm,round,merged_s,total_s,load1,request_s,connect_s,merge_s" >"$rows"
trap 'rm -rf "$work"' EXIT

# One run: <where> <arm> <round> <runner...>; the expansion's row appended.
one() {
  local w=$1 arm=$2 r=$3 json=$work/$1-$2-$3.json load
  shift 3
  load=$(cut -d' ' -f1 /proc/loadavg)
  if ! "$@" --json "$json" >"$work/$w-$arm-$r.log" 2>&1; then
    echo "join_bench.sh: $w $arm round $r failed:" >&2
    tail -20 "$work/$w-$arm-$r.log" >&2
    return 1
  fi
  python3 - "$json" "$w" "$arm" "$r" "$load" "$work/$w-$arm-$r.log" >>"$rows" <<'PY'
import json, re, sys
f, w, arm, r, load, log = sys.argv[1:]
e = [x for x in json.load(open(f))["resizes"] if x["action"] == "expand"][0]
assert e["ok"] and e["mechanism"] == arm, (e["mechanism"], arm, e["message"])
# The join's parts from its trace: the marks of the first expansion, in order, up to its merge.
parts = ["", "", ""]
if arm == "join":
    marks = re.findall(r"blacs-dyn trace: (.*?)\s+([0-9.]+) ms \(at", open(log, errors="replace").read())
    ms, seen = {}, False
    for name, t in marks:
        t = float(t)
        key = "request" if not seen else "connect" if name == "MPI_Comm_connect" else "merge"
        ms[key] = ms.get(key, 0.0) + t
        seen = seen or name.endswith(" seen")
        if name.endswith(" merged"):
            break
    if seen and "merge" in ms:
        parts = [f"{ms['request'] / 1e3:.4f}", f"{ms.get('connect', 0) / 1e3:.4f}", f"{ms['merge'] / 1e3:.4f}"]
print(f"{w},{arm},{r},{e['t_spawn_s']:.4f},{e['t_total_s']:.4f},{load},{','.join(parts)}")
PY
  tail -1 "$rows"
}

node_run() {  # <arm> <round>
  local env=(BLACS_DYN_TRACE=1)
  [[ $1 == spawn ]] && env+=(RESIZE_EXPAND=spawn)
  one node "$1" "$2" env "${env[@]}" "$build/bin/malleable-run" --job-dir "$work/d-node-$1-$2" -n 4 -- \
    "$prog" -n 480 --nb 32 -g 2x2 -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2 -q
}

if [[ $where != nodes ]]; then
  for ((r = 1; r <= rounds; ++r)); do
    if ((r % 2)); then node_run spawn "$r"; node_run join "$r"; else node_run join "$r"; node_run spawn "$r"; fi
  done
fi

if [[ $where != node ]]; then
  cluster=$here/scripts/cluster.sh
  if why=$("$cluster" check); then
    exec 9>/run/malleable-cluster.lock
    flock -w 900 9 || { echo "join_bench.sh: the cluster lock is held" >&2; exit 1; }
    "$cluster" down >/dev/null
    "$cluster" up 2 --rate 1gbit 9>&- >/dev/null || exit 1
    eval "export $("$cluster" mpi-env | tr '\n' ' ')"
    nodes_run() {  # <arm> <round>
      local env=(BLACS_DYN_TRACE=1)
      [[ $1 == spawn ]] && env+=(RESIZE_EXPAND=spawn)
      one nodes "$1" "$2" "$cluster" exec node1 env "${env[@]}" "$build/bin/malleable-run" --job-dir \
        "$work/d-nodes-$1-$2" --hosts node1 -n 4 -- "$prog" -n 480 --nb 32 -g 2x2 -i 6 -p scripted \
        -s 2:expand:2x4@node2=4,4:shrink:2x2@node2 -q
    }
    for ((r = 1; r <= rounds; ++r)); do
      if ((r % 2)); then nodes_run spawn "$r"; nodes_run join "$r"; else nodes_run join "$r"; nodes_run spawn "$r"; fi
    done
    "$cluster" down >/dev/null
    flock -u 9
  else
    echo "join_bench.sh: no emulated cluster here ($why): one node only" >&2
  fi
fi

summary=$(python3 - "$rows" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("where  arm    runs  merged world s (median, min-max)   whole resize s (median, min-max)   load1")
med = {}
for w in ("node", "nodes"):
    for arm in ("spawn", "join"):
        x = [r for r in rows if r["where"] == w and r["arm"] == arm]
        if not x:
            continue
        m = [float(r["merged_s"]) for r in x]
        t = [float(r["total_s"]) for r in x]
        med[w, arm] = (statistics.median(m), statistics.median(t))
        loads = [float(r["load1"]) for r in x]
        print(f"{w:6s} {arm:6s} {len(x):4d}  {statistics.median(m):7.3f} ({min(m):.3f}-{max(m):.3f})"
              f"              {statistics.median(t):7.3f} ({min(t):.3f}-{max(t):.3f})            "
              f"{min(loads):.1f}-{max(loads):.1f}")
for w in ("node", "nodes"):
    x = [r for r in rows if r["where"] == w and r["arm"] == "join" and r.get("request_s")]
    if x:
        part = lambda k: sorted(float(r[k]) for r in x)
        print(f"{w}: the join's parts from its trace ({len(x)} runs, median (min-max) s): "
              + ", ".join(f"{k[:-2]} {statistics.median(part(k)):.3f} ({part(k)[0]:.3f}-{part(k)[-1]:.3f})"
                          for k in ("request_s", "connect_s", "merge_s")))
for w in ("node", "nodes"):
    if (w, "join") in med and (w, "spawn") in med:
        j, s = med[w, "join"], med[w, "spawn"]
        print(f"{w}: join / spawn = {j[0] / s[0]:.2f}x to the merged world, {j[1] / s[1]:.2f}x the whole resize")
PY
)
echo "$summary"
if [[ -n $out ]]; then
  mkdir -p "$out"
  cp "$rows" "$out/runs.csv"
  {
    echo "# scripts/bench/join_bench.sh --rounds $rounds --where $where, $(date -u +%FT%TZ), $(nproc) cores"
    echo "$summary"
  } >"$out/summary.txt"
fi
