#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every part of a resize against its bound on this machine (docs/measurements/
# redist.md, "Against the machine's bound"), all in one run on the same cores:
#   1. copy: node_copy.c (a memcpy per rank, all ranks at once, STREAM copy) at 256 MiB;
#   2. start: a bare mpiexec of the same RANKS processes to MPI_Init + barrier (node_copy
#      with 1 MiB, 1 repetition; wall clock of mpiexec, median of 5), a bare
#      MPI_Comm_spawn + merge of 2 processes (spawn_pingpong.c's spawn mode) and a bare
#      join of 2 processes (bare_join.c through an ompi-server: a separate mpiexec's launch
#      to the merged world): each the JOB'S FIRST spawn or join, median over 5 jobs, as a
#      resize is its job's first (the warm repetitions after it, which a first join is
#      slower than, printed beside; scripts/bench/start_split.sh splits the difference);
#   3. malleable-redist-bench bound: redist, PDGEMR2D (and COSTA with --costa-native or
#      MALLEABLE_COSTA_NATIVE, run with OMP_NUM_THREADS=1) against the copy/shared-memory
#      bound of the same redistribution, 1 MiB to --max-mib MiB per rank (capped so that
#      the ranks' 3 arrays fit in half the memory available);
#   4. (not with --skip-sweep) one resize of the PDGEMM driver (N 2048, 1x2 -> 2x2 by spawn and back) with the bench's
#      rates at 16 MiB per rank (a matrix's share on 1x2) and the bare spawn in the environment, and once with the
#      report's own probe: the JSON's "bound" of each resize; then the same resize by a
#      join (malleable-run --job-dir) with the probe and the bare join.
# The load average is written beside every figure: on a shared machine the numbers are noisy.
# The sweep's repetitions are interleaved (each runs every arm once: copy, shm, PDGEMR2D,
# redist, COSTA), best and median of each reported; each row carries its load1 before and
# after and the runnable processes besides the ranks (/proc/stat), marked quiet or LOADED.
# meta.txt states the machine, the commit and the load before and after the sweep; bound.md
# is the table (scripts/bench/bound_report.py: fractions of the single-copy bound).
# Usage: bound_bench.sh [--build DIR] [--out DIR] [--ranks N] [--max-mib M] [--reps R]
#                       [--costa-native SO] [--skip-sweep | --sweep-only]
#                       [--require-quiet] [--wait-quiet S]
# --skip-sweep: the starts and the resizes by the report's probe only (no step 3).
# --sweep-only: step 3 alone.
# --require-quiet: refuse to run (exit 3) when the machine is loaded before the sweep (load1
#   above the ranks, or more other runnable processes than the cores leave free); without it
#   a loaded run is marked (meta.txt, bound.md). --wait-quiet S: wait up to S seconds for a
#   quiet machine first (checked every 10 s).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
args="$*"
build=$here/build out='' ranks=2 max_mib=1024 reps=5 costa=${MALLEABLE_COSTA_NATIVE:-} sweep=1 only=0 require=0 wait_s=0
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --max-mib) max_mib=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --costa-native) costa=$2; shift 2 ;;
    --skip-sweep) sweep=0; shift ;;
    --sweep-only) only=1; shift ;;
    --require-quiet) require=1; shift ;;
    --wait-quiet) wait_s=$2; shift 2 ;;
    *) echo "bound_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $ranks =~ ^[1-9][0-9]{0,2}$ && $max_mib =~ ^[1-9][0-9]*$ && $reps =~ ^[1-9][0-9]?$ && $wait_s =~ ^[0-9]+$ ]] ||
  { echo "bound_bench.sh: --ranks, --max-mib, --reps and --wait-quiet are positive numbers" >&2; exit 2; }
((sweep || !only)) || { echo "bound_bench.sh: --skip-sweep and --sweep-only exclude each other" >&2; exit 2; }
quiet_now() { python3 "$here/scripts/bench/bound_report.py" load "$ranks"; }
# The load before anything of ours runs: refuse (--require-quiet) or mark.
for ((waited = 0; ; waited += 10)); do
  before=$(quiet_now)
  [[ $before == *quiet || $waited -ge $wait_s ]] && break
  sleep 10
done
if [[ $before == *LOADED && $require == 1 ]]; then
  echo "bound_bench.sh: the machine is loaded ($before; ranks $ranks): refused (--require-quiet)" >&2
  exit 3
fi
bench=$build/redist/malleable-redist-bench prog=$build/apps/pdgemm_resizable
[[ -x $bench && -x $prog ]] || { echo "bound_bench.sh: build malleable_redist_bench and pdgemm_resizable first" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 RESIZE_HISTORY=off PMIX_MCA_gds=hash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${out:-$work/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
load() { cut -d' ' -f1 /proc/loadavg; }
mpirun_n() { mpiexec --oversubscribe -n "$@"; }

# The sizes: 1 MiB .. max, while RANKS x 3 arrays x size fit in half of MemAvailable.
avail_mib=$(awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)
sizes=
for s in 1 4 16 64 256 1024 4096; do
  ((s <= max_mib && ranks * 3 * s <= avail_mib / 2)) && sizes+=${sizes:+,}$s
done
{
  echo "# scripts/bench/bound_bench.sh $args (--ranks $ranks --max-mib $max_mib --reps $reps), $(date -u +%FT%TZ)"
  echo "# $(getconf _NPROCESSORS_ONLN) cores ($(lscpu | sed -n 's/^Model name: *//p')), MemAvailable $avail_mib MiB, sizes $sizes MiB per rank"
  echo "# $(mpiexec --version | head -1)"
  echo "# machine: $(hostname), $(getconf _NPROCESSORS_ONLN) cores; commit $(git -C "$here" describe --always --dirty --abbrev=8 2>/dev/null || echo unknown)"
  echo "# before: $before"
} >"$out/meta.txt"

mpicc -O2 "$here/scripts/bench/node_copy.c" -o "$work/node_copy"
mpicc -O2 "$here/scripts/bench/spawn_pingpong.c" -o "$work/spawn_pingpong"
mpicc -O2 "$here/scripts/bench/bare_join.c" -o "$work/bare_join"

if ((only)); then
  mpirun_n "$ranks" "$bench" bound --mib "$sizes" --max-mib "$max_mib" --reps "$reps" \
    ${costa:+--costa-native "$costa"} --json "$out/bound.json" | tee "$out/bound.txt"
  echo "# after: $(quiet_now)" >>"$out/meta.txt"
  python3 "$here/scripts/bench/bound_report.py" table "$out" >"$out/bound.md"
  echo "bound_bench.sh: wrote $out"
  exit 0
fi
# 1. The node's copy rate, STREAM copy on every rank (the bench measures its own per size too).
l=$(load)
best=$(mpirun_n "$ranks" "$work/node_copy" 256 10 | grep '^best')
echo "node_copy	$best	load1 $l" | tee "$out/starts.txt"

# 2. Bare starts.
times=()
for i in 1 2 3 4 5 6; do
  t0=$(date +%s.%N)
  mpirun_n "$ranks" "$work/node_copy" 1 1 >/dev/null
  t1=$(date +%s.%N)
  ((i > 1)) && times+=("$(echo "$t1 - $t0" | bc -l)")  # the first warms the file cache
done
l=$(load)
bare_mpiexec=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)
echo "bare_mpiexec_s	$bare_mpiexec	(median of 5, mpiexec -n $ranks to MPI_Init + barrier + exit; all: ${times[*]})	load1 $l" |
  tee -a "$out/starts.txt"
l=$(load)
firsts=() warms=()
for i in 1 2 3 4 5; do  # a job's first spawn (the resize's), then 3 warm ones
  spawn_line=$(mpirun_n "$ranks" "$work/spawn_pingpong" spawn 2 3 | grep raw_spawn_merge_ms)
  firsts+=("$(awk '{print $4 / 1000}' <<<"$spawn_line")") warms+=("$(awk '{print $3 / 1000}' <<<"$spawn_line")")
done
bare_spawn_s=$(printf '%s\n' "${firsts[@]}" | sort -g | sed -n 3p)
echo "bare_spawn_s	$bare_spawn_s	(MPI_Comm_spawn of 2 + merge, the job's first spawn, median of 5 jobs; all: ${firsts[*]}; each job's warm median after it: ${warms[*]})	load1 $l" |
  tee -a "$out/starts.txt"
rm -f "$work/uri"
ompi-server --no-daemonize --report-uri "$work/uri" </dev/null &
server=$!
for ((i = 0; i < 100; ++i)); do [[ -s $work/uri ]] && break; sleep 0.1; done
l=$(load)
joins=() warms=()
for j in 1 2 3 4 5; do  # a job's first join (the resize's), then 2 warm ones
  rm -f "$work/join.out"
  mpirun_n 2 --ompi-server "file:$work/uri" "$work/bare_join" job "$work/port$j" 3 >"$work/join.out" &
  job=$!
  for r in 1 2 3; do
    t0=$(date +%s.%N)
    timeout 120 mpiexec --oversubscribe --ompi-server "file:$work/uri" -n 2 "$work/bare_join" launch "$work/port$j.$r"
    for ((i = 0; i < 1000; ++i)); do grep -q "^merged $r " "$work/join.out" && break; sleep 0.01; done
    t1=$(awk -v r="$r" '$1 == "merged" && $2 == r {print $3}' "$work/join.out")
    if ((r == 1)); then joins+=("$(echo "$t1 - $t0" | bc -l)"); else warms+=("$(echo "$t1 - $t0" | bc -l)"); fi
  done
  wait "$job"
done
kill "$server" 2>/dev/null || true
bare_join_s=$(printf '%s\n' "${joins[@]}" | sort -g | sed -n 3p)
echo "bare_join_s	$bare_join_s	(a separate mpiexec -n 2's launch to the merged world through ompi-server, the job's first join, median of 5 jobs; all: ${joins[*]}; the warm joins after them: ${warms[*]})	load1 $l" |
  tee -a "$out/starts.txt"

# 3. The bound sweep.
arms=(probe)
if ((sweep)); then
arms=(given probe)
costa_opt=()
[[ -n $costa ]] && costa_opt=(--costa-native "$costa")
mpirun_n "$ranks" "$bench" bound --mib "$sizes" --max-mib "$max_mib" --reps "$reps" "${costa_opt[@]}" \
  --json "$out/bound.json" | tee "$out/bound.txt"
echo "# after the sweep: $(quiet_now)" >>"$out/meta.txt"
python3 "$here/scripts/bench/bound_report.py" table "$out" >"$out/bound.md"

# 4. One resize, its report's "bound": with the bench's rates at 16 MiB per rank (the
#    1x2 -> 2x1 change) and the bare spawn, then with the report's own probe.
read -r copy shm < <(python3 - "$out/bound.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["change"] == "64@1x2:64@2x1"]
r = min(rows, key=lambda r: abs(r["mib_per_rank"] - 16))
print(r["copy_Bps"], r["shm_Bps"])
PY
)
fi
for arm in "${arms[@]}" join; do
  env_arm=(MALLEABLE_BARE_SPAWN_S="$bare_spawn_s" MALLEABLE_BARE_JOIN_S="$bare_join_s")
  [[ $arm == given ]] && env_arm+=(MALLEABLE_BOUND_COPY_BPS="$copy" MALLEABLE_BOUND_SHM_BPS="$shm")
  runner=(mpiexec --oversubscribe -n 2)
  [[ $arm == join ]] && runner=("$build/bin/malleable-run" --job-dir "$work/job-dir" -n 2 --)
  l=$(load)
  env "${env_arm[@]}" "${runner[@]}" "$prog" -n 2048 --nb 64 -g 1x2 -i 4 -p scripted \
    -s 2:expand:2x2,3:shrink:1x2 -q --json "$out/resize_$arm.json" >"$work/resize_$arm.log" 2>&1 ||
    { tail -20 "$work/resize_$arm.log" >&2; exit 1; }
  python3 - "$out/resize_$arm.json" "$arm" "$l" <<'PY' | tee -a "$out/resize.txt"
import json, sys
f, arm, load = sys.argv[1:]
for e in json.load(open(f))["resizes"]:
    b = e["bound"]
    frac = "-" if b["fraction_of_bound"] is None else f"{b['fraction_of_bound']:.2f}"
    start = "-" if b["start_over_bare"] is None else f"{b['t_start_s']:.3f} s = {b['start_over_bare']:.2f}x bare {b['bare_start_s']:.3f} s"
    print(f"{arm}\t{e['action']} {e['from']['rows']}x{e['from']['cols']}->{e['to']['rows']}x{e['to']['cols']}\t"
          f"kept {b['bytes_kept'] / 2**20:.1f} MiB\tmoved {b['bytes_moved'] / 2**20:.1f} MiB\t"
          f"t_redist {b['t_redist_s']:.4f} s\t{b['redist_GBps']:.2f} GB/s\tcopy {b['copy_GBps']:.2f} shm {b['shm_GBps']:.2f} GB/s\t"
          f"bound {b['bound_s']:.4f} s\tfraction {frac}\tstart {start}\tload1 {load}")
PY
done
echo "bound_bench.sh: wrote $out"
