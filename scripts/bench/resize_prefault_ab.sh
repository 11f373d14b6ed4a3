#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One of the move's switches, on against off, paired (docs/measurements/results.md, "A resize
# against its limits"): the same driver grown 1x2 -> 2x2 on one node with the variable
# (--env; RESIZE_PREFAULT: the move's arrays faulted in ahead; RESIZE_FREE_ON_THREAD: the
# old arrays freed on a thread after the move; RESIZE_HUGEPAGES: the new arrays on huge
# pages) =on and =off, one right after the other, the order alternating from round to round. Per run the JSON record's spawn, move, other and
# total, the move's stage, exchange and commit phases, the prefault thread's time, the
# other phase's hand-over and BLACS grids (other_phases) and the first
# iteration after the resize; the report gives each quantity's median per setting and the
# median (min-max) of the per-round ratios on/off.
# --redist: each round also times `redistribute` alone on the same matrices (malleable-redist-bench
# redist --shapes, 1x2 -> 2x2 on 4 ranks, as resize_phases.sh does; pdgemm and pdgetrf), and the
# report adds the move over it, warm (its fastest repetition) and cold (its first call into
# fresh pages), per setting: median (min-max) of the per-round ratios.
# --warm-before GIB: right before each resize run, a process writes GIB of memory on huge
# pages and frees it (scripts/bench/first_touch.c), so that the run finds memory its host
# has backed: on a virtual machine whose host takes freed memory back within seconds (free
# page reporting), the nearest to a machine whose memory stays backed.
#   scripts/bench/resize_prefault_ab.sh [--env RESIZE_PREFAULT] [--driver pdgemm] [--n 4000]
#                                       [--rounds 5] [--redist] [--warm-before GIB] [--out DIR]
# --out defaults to docs/data/resize_phases/prefault_ab (RESIZE_PREFAULT),
# docs/data/resize_phases/free_ab (RESIZE_FREE_ON_THREAD) or docs/data/hugepages/move
# (RESIZE_HUGEPAGES).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
driver=pdgemm n=4000 rounds=5 out="" var=RESIZE_PREFAULT redist=0 warm_before=0
while (($#)); do
  case $1 in
    --env) var=$2; shift 2 ;;
    --driver) driver=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --redist) redist=1; shift ;;
    --warm-before) warm_before=$2; shift 2 ;;
    -h | --help) sed -n '2,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "resize_prefault_ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case $var in
  RESIZE_PREFAULT) out=${out:-$here/docs/data/resize_phases/prefault_ab} ;;
  RESIZE_FREE_ON_THREAD) out=${out:-$here/docs/data/resize_phases/free_ab} ;;
  RESIZE_HUGEPAGES) out=${out:-$here/docs/data/hugepages/move} ;;
  *) echo "resize_prefault_ab.sh: --env takes RESIZE_PREFAULT, RESIZE_FREE_ON_THREAD or RESIZE_HUGEPAGES, not $var" >&2; exit 2 ;;
esac
exe=$build/apps/${driver}_resizable
[[ -x $exe ]] || { echo "resize_prefault_ab.sh: $exe missing: build first" >&2; exit 2; }
case $driver in  # the registered matrices, 1x2 -> 2x2, as malleable-redist-bench redist --shapes takes them
  pdgemm) shapes="${n}x${n}:64x64@1x2:64x64@2x2 ${n}x${n}:64x64@1x2:64x64@2x2" ;;
  pdgetrf) shapes="${n}x${n}:64x64@1x2:64x64@2x2 ${n}x1:64x1@1x2:64x1@2x2" ;;
  *) ((redist == 0)) || { echo "resize_prefault_ab.sh: --redist takes pdgemm or pdgetrf" >&2; exit 2; } ;;
esac
bench=$build/redist/malleable-redist-bench
((redist == 0)) || [[ -x $bench ]] || { echo "resize_prefault_ab.sh: $bench missing" >&2; exit 2; }
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"
warm=""
if [[ $warm_before != 0 ]]; then
  warm=$(mktemp -d /tmp/resize_prefault_ab.XXXXXX)
  trap 'rm -rf "$warm"' EXIT
  cc -O2 "$here/scripts/bench/first_touch.c" -o "$warm/first_touch"
fi
rm -f "$out"/*.json "$out"/redist.*.log
commit=$(sed -n 's/^#define MALLEABLE_GIT_COMMIT "\(.*\)"$/\1/p' "$build/generated/include/malleable/version.h" 2>/dev/null)
echo "# $(date -u +%FT%TZ), build ${commit:-unknown}, $(env -u OMP_NUM_THREADS nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); $driver N $n, $rounds rounds, $var on/off, warm-before $warm_before GiB" | tee "$out/meta.txt"
for ((r = 1; r <= rounds; ++r)); do
  order=(on off)
  ((r % 2)) || order=(off on)
  for s in "${order[@]}"; do
    [[ -z $warm ]] || "$warm/first_touch" 1 2 "$warm_before" | awk -F'\t' -v s="$s" -v r="$r" '$1 == "warm_host" {print "warm_before " s "." r " " $4 " ms"}' >>"$out/meta.txt"
    env "$var=$s" timeout 600 mpiexec --oversubscribe --bind-to none -n 2 -x "$var" "$exe" -n "$n" --nb 64 -g 1x2 \
      -i 2 -p scripted -s 1:expand:2x2 --no-check -q --json "$out/$s.$r.json" >/dev/null 2>&1 ||
      echo "round $r $s: the run failed" >&2
  done
  if ((redist)); then
    # shellcheck disable=SC2086
    timeout 600 mpiexec --oversubscribe --bind-to none -n 4 "$bench" redist --shapes $shapes --reps 3 \
      --json "$out/redist.$r.json" >"$out/redist.$r.log" 2>&1 || echo "round $r: malleable-redist-bench redist failed" >&2
  fi
done
echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
python3 - "$out" "$rounds" <<'PY' | tee "$out/summary.txt"
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
keys = [("spawn", "t_spawn_s"), ("move", "t_redist_s"), ("other", "t_other_s"), ("total", "t_total_s")]
def rec(s, r):
    try:
        x = json.load(open(os.path.join(out, f"{s}.{r}.json")))["resizes"][0]
    except (OSError, KeyError, IndexError, ValueError):
        return None
    q = {k: x[j] for k, j in keys}
    ph = x.get("move_phases", {})
    for k in ("exchange", "commit", "prefault"):
        q[k] = ph.get(k + "_s", 0.0)
    q["iter_after"] = x.get("measured", {}).get("t_iteration_after_s") or 0.0
    for k in ("stage",):
        q[k] = ph.get(k + "_s", 0.0)
    for k in ("handover", "grids"):  # of other (the record's other_phases; 0 in older records)
        q[k] = (x.get("other_phases") or {}).get(k + "_s", 0.0)
    return q
runs = [(rec("on", r), rec("off", r)) for r in range(1, rounds + 1)]
runs = [(a, b) for a, b in runs if a and b]
print(f"# {len(runs)} paired rounds; ms, medians; on/off: median (min-max) of the per-round ratios")
print(f"{'phase':10} {'on':>8} {'off':>8} {'on/off':>22}")
for k in [k for k, _ in keys] + ["stage", "exchange", "commit", "prefault", "handover", "grids", "iter_after"]:
    on = [a[k] for a, _ in runs]; off = [b[k] for _, b in runs]
    ratio = [a[k] / b[k] for a, b in runs if b[k] > 0]
    rs = f"{statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f})" if ratio else "-"
    print(f"{k:10} {statistics.median(on) * 1e3:8.1f} {statistics.median(off) * 1e3:8.1f} {rs:>22}")
def redist(r):  # `redistribute` alone in round r: (warm, cold) seconds, summed over the matrices
    try:
        cases = json.load(open(os.path.join(out, f"redist.{r}.json")))
        return sum(c["redist_s"] for c in cases), sum(c["redist_cold_s"] for c in cases)
    except (OSError, KeyError, TypeError, ValueError):
        return None
rd = {r: redist(r) for r in range(1, rounds + 1)}
if any(rd.values()):
    def spread(v):
        return f"{statistics.median(v):.2f}x ({min(v):.2f}-{max(v):.2f})" if v else "-"
    warm = [w for w, _ in filter(None, rd.values())]; cold = [c for _, c in filter(None, rd.values())]
    print(f"redistribute alone: warm {statistics.median(warm) * 1e3:.1f} ms, cold {statistics.median(cold) * 1e3:.1f} ms (medians)")
    for s in ("on", "off"):
        pairs = [(rec(s, r), rd[r]) for r in range(1, rounds + 1) if rd[r]]
        pairs = [(q["move"], d) for q, d in pairs if q]
        print(f"move {s:3} / redistribute: warm {spread([m / d[0] for m, d in pairs])}, cold {spread([m / d[1] for m, d in pairs])}")
PY
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"
