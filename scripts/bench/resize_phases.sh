#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A resize timed phase by phase against its limits (docs/measurements/results.md, "A resize against its
# limits"). Per driver (PDGEMM, PDGETRF, Life), order N and setting, ROUNDS rounds, each
# round side by side in one run:
#   resize  the driver started on 1x2 grows to 2x2 after iteration 1 (2 newcomers) and
#           iterates on; its JSON record gives the phases: spawn, move (the session's
#           redistribution of every registered matrix, through redist's engine), other
#           (state hand-over, BLACS grid switch, bookkeeping), and the iteration times after
#           the resize;
#   fresh   the same driver started on 2x2 (iteration times of a job that never resized);
#           resize and fresh alternate their order from round to round;
#   redist  malleable-redist-bench redist --shapes: `redistribute` alone on the same matrices, 1x2 -> 2x2 on
#           4 ranks of one job (5 repetitions: the fastest and the median of the warm calls,
#           and the first call), with the memcpy floor and (cluster) the busiest link's bound;
#   raw     spawn_pingpong.c's spawn mode: a raw MPI_Comm_spawn + merge of the same 2
#           processes onto the same host (median of its repetitions after a warm-up, and
#           the warm-up: the job's first spawn), twice: the program alone (raw.R.txt) and
#           linked with the driver's libraries (rawlibs.R.txt: its newcomers load and
#           initialise what the driver's do, blacs-dyn's MPI_Init included, then merge).
#           Cluster: the raw job has both nodes in its allocation from its start; twice
#           more (raw_addhost.R.txt, rawlibs_addhost.R.txt) from a job started on node1
#           alone that reaches node2 with Open MPI's add-host, as the resize's job does
#           (node2's daemon starts inside the first spawn: the like-for-like raw spawn).
# The report takes the median of every quantity over the rounds and gives each ratio's
# spread (min-max of the per-round ratios). The drivers run with --no-check (the serial
# check would repeat the work on one process; the tests check the results).
# Settings: node     one node, Open MPI's default (the newcomers sit beside the old
#                    processes: growth "within");
#           node-ucx one node, the UCX PML (pml ucx, pml_ucx_tls any, pml_ucx_devices any);
#           node-tcp one node, every process pair over TCP (btl tcp,self): a fresh job
#                    whose processes talk as an old and a newcomer do;
#           cluster  the emulated cluster (scripts/cluster.sh, 2 nodes, links shaped to
#                    1 Gbit/s): the job starts on node1, the newcomers go to node2 (growth
#                    by whole nodes: "node"); the fresh job has node1's 2 ranks + node2's 2.
#                    The cluster lock is taken per (driver, N) and the cluster taken down
#                    before it is released.
# Results: JSON/text per run in docs/data/resize_phases/<driver>_<N>_<setting>/ (or --out),
# then scripts/bench/resize_phases_report.py writes summary.csv, the plot
# docs/img/resize_phases.png and prints the table.
#   scripts/bench/resize_phases.sh [--quick] [--ns "4000 8000"] [--drivers "pdgemm pdgetrf life"]
#                                  [--settings "node cluster"] [--rounds R] [--iters K] [--out DIR]
#                                  [--no-report] [--lock-held]
# --lock-held: the caller holds the cluster lock (flock /run/malleable-cluster.lock ...), so
# several invocations run as one hold; without it each (driver, N) takes the lock itself.
# --quick: N = 1600, 1 round. Needs a build (scripts/setup.sh) and, for the
# cluster, root (it is skipped with a note where namespaces cannot be made).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out=$here/docs/data/resize_phases
ns="4000 8000" drivers="pdgemm pdgetrf life" settings="node cluster" iters=4 nb=64 raw_reps=5 redist_reps=5 limit=1800 rounds=3
report=1 lock_held=0
while (($#)); do
  case $1 in
    --quick) ns="1600" rounds=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-report) report=0; shift ;;
    --lock-held) lock_held=1; shift ;;
    --ns) ns=$2; shift 2 ;;
    --drivers) drivers=$2; shift 2 ;;
    --settings) settings=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,47p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "resize_phases.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for exe in apps/pdgemm_resizable apps/pdgetrf_resizable apps/life_resizable redist/malleable-redist-bench; do
  [[ -x $build/$exe ]] || { echo "resize_phases.sh: $build/$exe missing: build first (scripts/setup.sh)" >&2; exit 2; }
done
CLUSTER=$here/scripts/cluster.sh
# shellcheck source=scripts/bench/raw_spawn_lib.sh
. "$here/scripts/bench/raw_spawn_lib.sh"  # the raw spawns' build, environment and runs
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# The commit the build was made from (malleable/version.h, written at every build; "-dirty":
# with uncommitted changes), not the source tree's HEAD, which may have moved on since.
build_commit=$(sed -n 's/^#define MALLEABLE_GIT_COMMIT "\(.*\)"$/\1/p' "$build/generated/include/malleable/version.h" 2>/dev/null)
build_commit=${build_commit:-unknown}
LOCK=/run/malleable-cluster.lock
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
raw_spawn_build "$scratch/spawn_pingpong"

shapes() {  # <driver> <N>: the registered matrices, 1x2 -> 2x2, as malleable-redist-bench redist --shapes
  local n=$2
  case $1 in
    pdgemm) echo "${n}x${n}:${nb}x${nb}@1x2:${nb}x${nb}@2x2 ${n}x${n}:${nb}x${nb}@1x2:${nb}x${nb}@2x2" ;;  # A and B
    pdgetrf) echo "${n}x${n}:${nb}x${nb}@1x2:${nb}x${nb}@2x2 ${n}x1:${nb}x1@1x2:${nb}x1@2x2" ;;            # A and b
    life) life_shapes "$n" ;;
  esac
}

# mpiexec for a setting: one node directly, the cluster from inside node1.
launch() {  # <setting> <mpiexec arguments...>; every run ends within $limit seconds
  local setting=$1
  shift
  case $setting in
    node) timeout "$limit" mpiexec --oversubscribe --bind-to none "$@" ;;
    node-tcp) timeout "$limit" mpiexec --oversubscribe --bind-to none --mca btl tcp,self "$@" ;;
    node-ucx) timeout "$limit" mpiexec --oversubscribe --bind-to none --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any "$@" ;;
    cluster) timeout "$limit" "$CLUSTER" exec node1 mpiexec --oversubscribe --bind-to none "$@" ;;
  esac
}

life_shapes() {  # <N>: the board, one block per process (Distribution::Block)
  local n=$1 h=$((($1 + 1) / 2))
  echo "${n}x${n}:${n}x${h}@1x2:${h}x${h}@2x2"
}

# The measurements of one (driver, N, setting) into <dir>, ROUNDS times; resize and
# fresh take turns going first.
measure() {  # <driver> <N> <setting> <dir>
  local d=$1 n=$2 setting=$3 dir=$4 exe=$build/apps/${1}_resizable
  local old=(-n 2) fresh=(-n 4) bench=(-n 4) raw=(-n 2) sched="1:expand:2x2" host="" link=0 it=$iters
  [[ $d == life ]] && it=$((iters * 3))  # a generation is short: more of them for the medians
  if [[ $setting == cluster ]]; then
    old=(--host node1:2 -n 2) fresh=(--host "node1:2,node2:2" -n 4) bench=(--host "node1:2,node2:2" -n 4)
    raw=(-n 2) sched="1:expand:2x2:local2@node2" host=node2 link=1e9  # raw: the hostfile, so node2 is in its allocation
  fi
  mkdir -p "$dir"
  [[ -x $scratch/spawn_pingpong_$d ]] || raw_with_libs "$exe" "$scratch/spawn_pingpong_$d"
  rm -f "$dir"/*.json "$dir"/*.log "$dir"/raw*.txt
  echo "load_before $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir/meta.txt"
  local r
  for ((r = 1; r <= rounds; ++r)); do
    echo "== $d N=$n $setting round $r/$rounds: load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "load_round$r $(cut -d' ' -f1-3 /proc/loadavg)" >>"$dir/meta.txt"
    local order=(resize fresh) what
    ((r % 2)) || order=(fresh resize)
    for what in "${order[@]}"; do
      if [[ $what == resize ]]; then
        launch "$setting" "${old[@]}" "$exe" -n "$n" --nb "$nb" -g 1x2 -i "$it" -p scripted -s "$sched" --no-check -q \
          --json "$dir/resize.$r.json" >"$dir/resize.$r.log" 2>&1 || { echo "   resize run failed:"; tail -5 "$dir/resize.$r.log"; }
      else
        launch "$setting" "${fresh[@]}" "$exe" -n "$n" --nb "$nb" -g 2x2 -i "$((it - 1))" --no-check -q \
          --json "$dir/fresh.$r.json" >"$dir/fresh.$r.log" 2>&1 || { echo "   fresh run failed:"; tail -5 "$dir/fresh.$r.log"; }
      fi
    done
    # shellcheck disable=SC2046
    launch "$setting" "${bench[@]}" "$build/redist/malleable-redist-bench" redist --shapes $(shapes "$d" "$n") --reps "$redist_reps" \
      --link-rate "$link" --json "$dir/redist.$r.json" >"$dir/redist.$r.log" 2>&1 || { echo "   malleable-redist-bench redist failed:"; tail -5 "$dir/redist.$r.log"; }
    # shellcheck disable=SC2086
    launch "$setting" "${raw[@]}" "$scratch/spawn_pingpong" spawn 2 "$raw_reps" $host \
      >"$dir/raw.$r.txt" 2>&1 || { echo "   raw spawn failed:"; tail -5 "$dir/raw.$r.txt"; }
    # shellcheck disable=SC2086
    launch "$setting" "${raw[@]}" "$scratch/spawn_pingpong_$d" spawn 2 "$raw_reps" $host \
      >"$dir/rawlibs.$r.txt" 2>&1 || { echo "   raw spawn (driver's libraries) failed:"; tail -5 "$dir/rawlibs.$r.txt"; }
    if [[ $setting == cluster ]]; then  # the same from a job on node1 alone, with add-host
      local prog
      for prog in spawn_pingpong spawn_pingpong_$d; do
        local f=$dir/raw_addhost.$r.txt
        [[ $prog == spawn_pingpong ]] || f=$dir/rawlibs_addhost.$r.txt
        raw_spawn_cluster add-host "$scratch/$prog" "$raw_reps" "$limit" >"$f" 2>&1 ||
          { echo "   raw spawn with add-host ($prog) failed:"; tail -5 "$f"; }
      done
    fi
    grep -E "remap after" "$dir/resize.$r.log" | sed 's/^ */   /' || true
  done
  { echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)"; echo "commit $build_commit"; } >>"$dir/meta.txt"
  # No machine paths in the committed records: the build and source directories made relative.
  sed -i "s|$build/|build/|g; s|$here/||g; s|$scratch/|scratch/|g" "$dir"/*.json "$dir"/*.log "$dir"/raw*.txt 2>/dev/null || true
}

start=$(date +%s)
cluster_ok=1
if [[ " $settings " == *" cluster "* ]] && ! why=$("$CLUSTER" check); then
  echo "resize_phases.sh: no cluster here ($why): cluster rows skipped"
  cluster_ok=0
fi
for d in $drivers; do
  for n in $ns; do
    for setting in $settings; do
      dir=$out/${d}_${n}_${setting}
      if [[ $setting != cluster ]]; then
        measure "$d" "$n" "$setting" "$dir"
      elif ((cluster_ok)); then
        # One short hold of the machine's cluster lock per (driver, N): up, measure, down.
        (
          if ((!lock_held)); then
            exec 9>"$LOCK"
            flock -w 1800 9 || { echo "resize_phases.sh: cluster lock busy for 30 min" >&2; exit 1; }
          fi
          trap '"$CLUSTER" down >/dev/null 2>&1 || true' EXIT
          raw_cluster_up
          measure "$d" "$n" cluster "$dir"
        )
      fi
    done
  done
done
{
  echo "seconds $(($(date +%s) - start))"
  echo "commit $build_commit"
  echo "date $(date -u +%FT%TZ)"
  echo "machine $(hostname) $(env -u OMP_NUM_THREADS nproc) cpus; $(mpiexec --version | head -1)"
  echo "load_at_end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "iters $iters nb $nb rounds $rounds"
} >"$out/meta.txt"
((report)) || exit 0
python3 "$here/scripts/bench/resize_phases_report.py" --data "$out" --plot "$here/docs/img/resize_phases.png" --section
[[ $out != "$here/docs/data/resize_phases" ]] || python3 "$here/scripts/bench/splice_sections.py" --only resize_phases
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
