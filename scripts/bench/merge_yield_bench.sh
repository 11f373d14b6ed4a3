#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's yield for merged jobs (docs/measurements/respawn.md, "Yield after a merge"): the
# pairs of a job grown by spawn, with the spawn's mpi_yield_when_idle as Open MPI chooses it
# (default) and set to 0 through the spawn's "env" key (yield0, PINGPONG_SPAWN_YIELD=0),
# against a fresh pair, in one run, the arms' order rotating each round
# (tests/blacs-dyn/runtime/pingpong_grown.cpp: 8-byte round trip and 8 MiB bandwidth, median of 5):
#   fresh          two processes started together;
#   fresh3         three started together (3 on this machine's 2 cores: Open MPI has them
#                  yield), ranks 0 and 1, the third asleep; yield0: OMPI_MCA_mpi_yield_when_idle=0
#                  in mpiexec's environment;
#   grow-1slot     one process started with one slot (--host localhost:1) grown by one:
#                  the grid (2) fits the cores, but the spawn sees the node oversubscribed;
#   merge          one process grown by two (3 on this machine's 2 cores): original<->newcomer
#                  and newcomer<->newcomer, the idle third asleep (MPI_Test every ms);
#   merge-spin     the same with the idle third polling (PINGPONG_IDLE=spin): the grid
#                  oversubscribes the cores.
# Prints one line per run (with Open MPI's view: "yield when idle" per rank) and a table of
# medians (min-max, runs). ARMS="fresh grow-1slot:default ..." runs those arms alone.
#   scripts/bench/merge_yield_bench.sh [BUILD_DIR] [ROUNDS] [OUT_FILE]
set -uo pipefail
build=${1:-build} rounds=${2:-5} out=${3:-}
pp=$build/tests/blacs-dyn/blacs_dyn_pingpong_grown
[[ -x $pp ]] || { echo "merge_yield_bench.sh: build $build first (target blacs_dyn_pingpong_grown)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
unset OMPI_MCA_mpi_yield_when_idle PINGPONG_SPAWN_YIELD PINGPONG_IDLE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results.tsv
: >"$results"
{
echo "merge_yield_bench: $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(mpiexec --version | head -1), $rounds rounds, $(date -u +%FT%TZ)"
read -r -a arms <<<"${ARMS:-fresh fresh3:default fresh3:yield0 grow-1slot:default grow-1slot:yield0 merge:default merge:yield0 merge-spin:default merge-spin:yield0}"
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < ${#arms[@]}; ++k)); do
    a=${arms[$(((k + r) % ${#arms[@]}))]}
    kind=${a%%:*} set=${a#*:}
    [[ $kind == fresh ]] && set=-
    env=() args=(-n 1) mode=merge
    [[ $set == yield0 ]] && env+=(PINGPONG_SPAWN_YIELD=0)
    [[ $kind == fresh3 ]] && args=(-n 3) mode=fresh
    [[ $kind == fresh3 && $set == yield0 ]] && env=(OMPI_MCA_mpi_yield_when_idle=0)
    [[ $kind == merge-spin ]] && env+=(PINGPONG_IDLE=spin)
    [[ $kind == grow-1slot ]] && args=(--host localhost:1 -n 1) mode=grow
    [[ $kind == fresh ]] && args=(-n 2) mode=fresh
    log=$(env "${env[@]}" timeout 120 mpiexec --oversubscribe --bind-to none -x PINGPONG_SPAWN_YIELD -x PINGPONG_IDLE \
      "${args[@]}" "$pp" "$mode" 8 5 2>&1)
    echo "round $r $kind $set: $(grep -E '^(pingpong|launch:)' <<<"$log" | tr '\n' ';' || true)"
    grep -q '^launch:' <<<"$log" || echo "  FAILED: $(tail -3 <<<"$log" | tr '\n' ' ')"
    while read -r line; do
      pair=$(sed -n 's/^pingpong \([^:]*\):.*/\1/p' <<<"$line")
      lat=$(sed -n 's/.*round trip \([0-9.]*\) us.*/\1/p' <<<"$line") bw=$(sed -n 's/.* \([0-9.]*\) GB\/s.*/\1/p' <<<"$line")
      [[ -n $lat && -n $bw ]] && printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$set" "$pair" "$lat" "$bw" >>"$results"
    done < <(grep '^pingpong' <<<"$log")
  done
done
python3 - "$results" <<'PY'
import statistics, sys
val = {}
for l in open(sys.argv[1]):
    kind, s, pair, lat, bw = l.rstrip("\n").split("\t")
    v = val.setdefault((kind, s, pair), ([], []))
    v[0].append(float(lat)), v[1].append(float(bw))
def fmt(v):
    return f"{statistics.median(v):.4g} ({min(v):.4g}-{max(v):.4g}, {len(v)})"
fresh = val.get(("fresh", "-", "two originals"))
print("\n| arm | spawn's yield | pair | latency_us | bandwidth_gbs | latency / fresh | bandwidth / fresh |")
print("|---|---|---|---|---|---|---|")
order = ["fresh", "fresh3", "grow-1slot", "merge", "merge-spin", "-", "default", "yield0", "two originals", "original<->newcomer",
         "newcomer<->newcomer"]
for (kind, s, pair), (lat, bw) in sorted(val.items(), key=lambda kv: [order.index(x) for x in kv[0]]):
    rl = f"{statistics.median(lat) / statistics.median(fresh[0]):.2f}" if fresh else "-"
    rb = f"{statistics.median(bw) / statistics.median(fresh[1]):.2f}" if fresh else "-"
    print(f"| {kind} | {s} | {pair} | {fmt(lat)} | {fmt(bw)} | {rl} | {rb} |")
PY
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$tmp/report.txt"
[[ -n $out ]] && cp "$tmp/report.txt" "$out"
exit 0
