#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Measured on this machine: Arefeen's (time adaptation) comparison "dedicated / not
# adapted / adapted" (and A-MPI's "drop the node that slows the job"), with the
# heterogeneous Life driver and measured powers:
#   1. emulated load (--load: a rank does F times the work in iterations A..B; speeds on
#      the CPU clock, the policy on the compute clock, so that 4 ranks on 2 cores do not
#      blur it), two scenarios, each as three runs -- dedicated (no load, --policy fixed),
#      not adapted (load, fixed), adapted (load, --policy adaptive) -- repeated R times;
#   2. real load: 2 ranks (1x2, one core each), speeds and policy on the wall clock;
#      while the run goes on, world rank 1 is put into a cgroup (cgroup v1 cpu controller)
#      whose CPU quota is set to 25% of a core when rank 0 reports iteration A and lifted
#      at iteration B. Runs: dedicated (no quota), not adapted (fixed), adapted.
# Writes the raw run records (rounded), summary.json and section.md to docs/data/adaptive/
# (or --out DIR) and the plot docs/img/adaptive_load.png, via adaptive_report.py.
#   scripts/bench/adaptive_bench.sh [--quick] [--reps R] [--out DIR] [--img FILE]
#                                   [--build-dir DIR] [--no-cgroup] [--keep DIR]
# --quick: fewer iterations and one repetition (a smoke test, about a minute).
# --no-cgroup: skip part 2 (needs root and a cgroup v1 cpu controller at /sys/fs/cgroup/cpu).
# The resize history is kept in memory per run (RESIZE_HISTORY=off), so that runs
# do not learn from each other or from earlier runs on the machine; a calibrated cost model
# (malleable-calibrate, $REDIST_COST_MODEL) is used if present and recorded as such.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-}
out=$here/docs/data/adaptive
img=$here/docs/img/adaptive_load.png
quick=0 reps=3 cgroup=1 keep=
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --img) img=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --no-cgroup) cgroup=0; shift ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "adaptive_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z $build ]]; then
  for b in "$here/build" "$here/build-adapt"; do
    [[ -x $b/apps/life_hetero_resizable ]] && { build=$b; break; }
  done
fi
[[ -n $build && $build != /* ]] && build=$here/$build
driver=${build:+$build/apps/life_hetero_resizable}
[[ -n $driver && -x $driver ]] || {
  echo "adaptive_bench.sh: life_hetero_resizable not built (cmake --build <dir> --target life_hetero_resizable; --build-dir DIR)" >&2
  exit 1
}
command -v mpiexec >/dev/null || { echo "adaptive_bench.sh: mpiexec not found" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export RESIZE_HISTORY=off
mpi=(mpiexec --oversubscribe --bind-to none -x RESIZE_HISTORY)

# The workload. Emulated: N=960 on 2x2, 120 iterations, 100 updates per generation.
n=960 iters=120 base=100
scen_names=(x4 two_x2)
scen_loads=("3@20-70:x4" "1@20-70:x2,2@20-70:x2")
scen_text=("rank 3 four times slower in iterations 20-70" "ranks 1 and 2 twice slower in iterations 20-70")
# Real load: 2 ranks on 1x2, 200 updates per generation; quota on at A, off at B.
rn=960 riters=120 rbase=200 qa=30 qb=80 period_us=20000 quota_us=5000
if ((quick)); then
  iters=50 reps=1 riters=50 qa=15 qb=32
  scen_loads=("3@12-30:x4" "1@12-30:x2,2@12-30:x2")
  scen_text=("rank 3 four times slower in iterations 12-30" "ranks 1 and 2 twice slower in iterations 12-30")
fi
emu_args=(-n $n -g 2x2 -i $iters --base-reps $base --powers measured --speed-clock cpu --adapt-clock compute --meter-kernels)
real_args=(-n $rn -g 1x2 -i $riters --base-reps $rbase --powers measured --speed-clock wall --adapt-clock wall --meter-kernels)

work=$(mktemp -d)  # raw run records before rounding; removed at exit (--keep DIR copies them)
raw=$work/raw
mkdir -p "$raw" "$out"
cg=/sys/fs/cgroup/cpu/malleable-bench-$$
cleanup() {
  if [[ -d $cg ]]; then
    echo -1 >"$cg/cpu.cfs_quota_us" 2>/dev/null || true
    # processes still inside go back to the root group, then the group goes
    while read -r p; do echo "$p" >/sys/fs/cgroup/cpu/cgroup.procs 2>/dev/null || true; done <"$cg/cgroup.procs" 2>/dev/null || true
    rmdir "$cg" 2>/dev/null || echo "adaptive_bench.sh: could not remove $cg" >&2
  fi
  if [[ -n $keep ]]; then mkdir -p "$keep" && cp -r "$work"/. "$keep"/; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
cost_model=${REDIST_COST_MODEL:-${XDG_CACHE_HOME:-$HOME/.cache}/malleable/cost_model.json}
{
  echo "{"
  echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo "  \"host\": \"$(hostname)\","
  echo "  \"cores\": $(nproc),"
  echo "  \"cpu\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//; s/"//g')\","
  echo "  \"kernel\": \"$(uname -r)\","
  echo "  \"mpi\": \"$(mpiexec --version 2>/dev/null | head -1)\","
  echo "  \"commit\": \"$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)\","
  echo "  \"loadavg_before\": \"$(cut -d' ' -f1-3 /proc/loadavg)\","
  echo "  \"cost_model\": $([[ -f $cost_model ]] && echo "\"$cost_model\"" || echo null),"
  echo "  \"quick\": $quick, \"reps\": $reps,"
  echo "  \"emulated\": {\"n\": $n, \"iterations\": $iters, \"base_reps\": $base, \"grid\": \"2x2\", \"procs\": 4,"
  echo "    \"mpiexec\": \"${mpi[*]} -n 4\", \"args\": \"${emu_args[*]}\","
  echo -n "    \"scenarios\": ["
  for k in "${!scen_names[@]}"; do
    ((k)) && echo -n ", "
    echo -n "{\"name\": \"${scen_names[$k]}\", \"load\": \"${scen_loads[$k]}\", \"text\": \"${scen_text[$k]}\"}"
  done
  echo "]},"
  echo "  \"real\": {\"n\": $rn, \"iterations\": $riters, \"base_reps\": $rbase, \"grid\": \"1x2\", \"procs\": 2,"
  echo "    \"mpiexec\": \"${mpi[*]} -n 2\", \"args\": \"${real_args[*]}\","
  echo "    \"quota_on_after\": $qa, \"quota_off_after\": $qb, \"period_us\": $period_us, \"quota_us\": $quota_us, \"enabled\": $cgroup}"
  echo "}"
} >"$raw/meta.json"

# 1. emulated load -----------------------------------------------------------------------
emu_run() {  # <scenario index> <kind> <rep>
  local k=$1 kind=$2 rep=$3 name=${scen_names[$1]} t0 rc=0
  local -a extra=()
  case $kind in
    dedicated) extra=(--policy fixed) ;;
    fixed) extra=(--policy fixed --load "${scen_loads[$k]}") ;;
    adaptive) extra=(--policy adaptive --load "${scen_loads[$k]}") ;;
  esac
  local base_name=emu_${name}_${kind}_r$rep
  t0=$(date +%s.%N)
  "${mpi[@]}" -n 4 "$driver" "${emu_args[@]}" "${extra[@]}" --json "$raw/$base_name.json" >"$raw/$base_name.log" 2>&1 || rc=$?
  printf '   %-28s %5.1f s  %s\n' "$base_name" "$(echo "$(date +%s.%N) - $t0" | bc)" \
    "$( ((rc)) && echo "FAILED (exit $rc, $raw/$base_name.log)" || grep -c 'remap after' "$raw/$base_name.log" | sed 's/$/ regrids/')"
  ((rc == 0)) || { tail -20 "$raw/$base_name.log" >&2; return 1; }
}
echo "== 1. emulated load, 4 ranks on $(nproc) cores (oversubscribed), $reps repetition(s)"
for rep in $(seq 1 "$reps"); do
  for k in "${!scen_names[@]}"; do
    # the three kinds back to back, so a change of the machine's load hits all three
    for kind in dedicated fixed adaptive; do emu_run "$k" $kind "$rep"; done
  done
done

# 2. real load through a cgroup CPU quota ----------------------------------------------
rank_pid() {  # <mpiexec pid> <world rank>: the pid of that rank among mpiexec's children
  local p
  for p in $(pgrep -P "$1" 2>/dev/null); do
    if grep -qx "OMPI_COMM_WORLD_RANK=$2" <<<"$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null)"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
real_run() {  # <kind: dedicated|fixed|adaptive>
  local kind=$1 policy=fixed quota=1 name=real_$1 fifo=$work/fifo.$1 mpid pid= it line on= off= rc=0 t0
  [[ $kind == adaptive ]] && policy=adaptive
  [[ $kind == dedicated ]] && quota=0
  mkfifo "$fifo"
  echo -1 >"$cg/cpu.cfs_quota_us"
  t0=$(date +%s.%N)
  "${mpi[@]}" -n 2 "$driver" "${real_args[@]}" --policy $policy --json "$raw/$name.json" >"$fifo" 2>"$raw/$name.err" &
  mpid=$!
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$raw/$name.log"
    [[ $line =~ ^\[life_hetero\]\ iter\ +([0-9]+) ]] || continue
    it=${BASH_REMATCH[1]}
    if [[ -z $pid ]]; then
      # rank 1 joins the group at once (no quota yet): the only change later is the quota
      pid=$(rank_pid "$mpid" 1) || pid=
      [[ -n $pid ]] && echo "$pid" >"$cg/cgroup.procs"
    fi
    if ((quota)) && [[ -n $pid && -z $on ]] && ((it >= qa)); then
      echo "$quota_us" >"$cg/cpu.cfs_quota_us"
      on=$it
    elif ((quota)) && [[ -n $on && -z $off ]] && ((it >= qb)); then
      echo -1 >"$cg/cpu.cfs_quota_us"
      off=$it
    fi
  done <"$fifo"
  wait "$mpid" || rc=$?
  rm -f "$fifo"
  echo -1 >"$cg/cpu.cfs_quota_us"
  printf '{"kind": "%s", "pid_rank1": %s, "quota_on_after_iteration": %s, "quota_off_after_iteration": %s, "exit": %d}\n' \
    "$kind" "${pid:-null}" "${on:-null}" "${off:-null}" $rc >"$raw/$name.events.json"
  printf '   %-28s %5.1f s  rank 1 pid %s, quota on after iteration %s, off after %s%s\n' "$name" \
    "$(echo "$(date +%s.%N) - $t0" | bc)" "${pid:-?}" "${on:--}" "${off:--}" "$( ((rc)) && echo ", FAILED (exit $rc)")"
  ((rc == 0)) || { tail -20 "$raw/$name.log" "$raw/$name.err" >&2; return 1; }
  [[ -n $pid ]] || { echo "adaptive_bench.sh: rank 1's pid not found, no quota applied" >&2; return 1; }
}
if ((cgroup)); then
  if [[ ! -w /sys/fs/cgroup/cpu/cgroup.procs || ! -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
    echo "adaptive_bench.sh: no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu: part 2 skipped" >&2
    cgroup=0
    sed -i 's/"enabled": 1}/"enabled": 0}/' "$raw/meta.json"
  else
    mkdir "$cg"
    echo $period_us >"$cg/cpu.cfs_period_us"
    echo "== 2. real load: world rank 1 limited to $((100 * quota_us / period_us))% of a core (cgroup $cg, period $((period_us / 1000)) ms) after iteration $qa, free again after $qb"
    for kind in dedicated fixed adaptive; do real_run $kind; done
  fi
fi

echo "== report ($(($(date +%s) - start)) s of runs)"
echo "\"loadavg_after\": \"$(cut -d' ' -f1-3 /proc/loadavg)\"" >"$raw/loadavg_after.txt"
python3 "$here/scripts/bench/adaptive_report.py" "$raw" --out "$out" --img "$img"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
