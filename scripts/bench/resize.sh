#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# resize's benchmarks around its drivers: a resize's phases, the move, merge or respawn (docs/measurements/resize.md, respawn.md): one command, the case first:
#   scripts/bench/resize.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

# ab_builds CASE BUILD...: each build has apps/pdgemm_resizable (else a clear error and exit
# 2), and the environment the paired runs share.
ab_builds() {
  local c=$1 b
  shift
  for b in "$@"; do
    [[ -x $b/apps/pdgemm_resizable ]] || { echo "resize.sh $c: $b/apps/pdgemm_resizable missing" >&2; exit 2; }
  done
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
}

#@case phases
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
#   raw     spawn_pingpong's (probes.c) spawn mode: a raw MPI_Comm_spawn + merge of the same 2
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
#   scripts/bench/resize.sh phases [--quick] [--ns "4000 8000"] [--drivers "pdgemm pdgetrf life"]
#                                  [--settings "node cluster"] [--rounds R] [--iters K] [--out DIR]
#                                  [--no-report] [--lock-held]
# --lock-held: the caller holds the cluster lock (flock /run/malleable-cluster.lock ...), so
# several invocations run as one hold; without it each (driver, N) takes the lock itself.
# --quick: N = 1600, 1 round. Needs a build (scripts/setup.sh) and, for the
# cluster, root (it is skipped with a note where namespaces cannot be made).
case_phases() {
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
    -h | --help) _help phases; exit 0 ;;
    *) echo "resize.sh phases: unknown option $1" >&2; exit 2 ;;
  esac
done
for exe in apps/pdgemm_resizable apps/pdgetrf_resizable apps/life_resizable redist/malleable-redist-bench; do
  [[ -x $build/$exe ]] || { echo "resize.sh phases: $build/$exe missing: build first (scripts/setup.sh)" >&2; exit 2; }
done
CLUSTER=$here/scripts/cluster.sh
lib_raw_spawn  # the raw spawns' build, environment and runs
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
  echo "resize.sh phases: no cluster here ($why): cluster rows skipped"
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
            flock -w 1800 9 || { echo "resize.sh phases: cluster lock busy for 30 min" >&2; exit 1; }
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
}

#@case ab
# Side-by-side timing of two builds of the resizable PDGEMM driver: the same expansion
# and shrink (2x2 -> 3x3 after iteration 2, back to 2x2 after 4, Local2) run by the old
# and the new build in alternating rounds (round k runs old then new for odd k, new then
# old for even k, so neither build always runs first), and each phase of the session's
# own record (spawn or exit, redistribution, other, total; wall ms) compared. Whole-run
# wall seconds are compared too. For "a restructuring of the session costs no time".
#   scripts/bench/resize.sh ab OLD_BUILD NEW_BUILD [--runs K] [--n N] [--nb NB]
# Build an older commit's driver for the first argument, e.g.
#   git worktree add --detach /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/build \
#     -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/old/build --target pdgemm_resizable
# Prints, per change and phase: the old and the new build's median over the K rounds, the
# ratio of the medians, and the spread of the K paired ratios (new/old of round k): their
# median, their quartiles (p25..p75) and their range; "within noise" when the paired
# ratios' quartiles hold 1.0. The load average before and after is printed: on a shared
# machine the spread, not the ratio alone, says whether two builds differ.
case_ab() {
set -euo pipefail
[[ $# -ge 2 ]] || { _help ab | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2; shift 2
runs=7 n=1200 nb=64
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    *) echo "resize.sh ab: unknown option $1" >&2; exit 2 ;;
  esac
done
ab_builds ab "$old" "$new"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load before $(cut -d' ' -f1-3 /proc/loadavg); rounds $runs, N $n, nb $nb"
echo "# old $old, new $new"
run() {  # build tag k
  local t0 t1 log=$out/$2.$3
  t0=$(date +%s.%N)
  mpiexec --oversubscribe --bind-to none -n 4 "$1/apps/pdgemm_resizable" -n "$n" --nb "$nb" -i 6 -p scripted \
    -s "2:expand:3x3:local2,4:shrink:2x2" >"$log" 2>&1 || { echo "resize.sh ab: run $3 of $1 failed:" >&2; tail -5 "$log" >&2; return 1; }
  t1=$(date +%s.%N)
  grep -q "result check: .*OK" "$log" || { echo "resize.sh ab: run $3 of $1 did not check OK" >&2; return 1; }
  # The record's table, the only one whose rows begin with the iteration:
  # "after change placement [by] spawn/exit redist other total moved" (the "by" column,
  # spawn or exit, is in newer builds only: the four times are the first numbers after it)
  awk -v t0="$t0" -v t1="$t1" '
    /^ *[0-9]+ +[0-9]+x[0-9]+->[0-9]+x[0-9]+ +[a-z]/ {
      for (i = 3; i <= NF && $i !~ /^[0-9.]+$/; i++) {}
      print $2, $i, $(i + 1), $(i + 2), $(i + 3)}
    END {print "run", (t1 - t0) * 1000, 0, 0, 0}' "$log" >"$log.rows"
}
for k in $(seq 1 "$runs"); do
  if ((k % 2)); then
    run "$old" old "$k"
    run "$new" new "$k"
  else
    run "$new" new "$k"
    run "$old" old "$k"
  fi
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
# Quantile q of the numbers on stdin (linear between order statistics).
quantile() {
  sort -g | awk -v q="$1" '{v[NR] = $1} END {
    if (NR == 0) {print 0; exit}
    h = (NR - 1) * q + 1; i = int(h); f = h - i
    print (i < NR) ? v[i] + f * (v[i + 1] - v[i]) : v[NR]}'
}
# Column i of change c's row in every round's file of build b.
values() { cat "$out"/"$1".*.rows | awk -v c="$2" -v i="$3" '$1 == c {print $i}'; }
echo "change | phase | old ms (median) | new ms (median) | new/old of medians | paired new/old: median [p25..p75] (min..max) | verdict"
report() {  # change column phase
  local o w ratios
  o=$(values old "$1" "$2" | quantile 0.5)
  w=$(values new "$1" "$2" | quantile 0.5)
  ratios=$(for k in $(seq 1 "$runs"); do
    awk -v c="$1" -v i="$2" '
      FNR == NR && $1 == c && !o {o = $i; next}
      FNR != NR && $1 == c && !n {n = $i}
      END {if (o > 0) print n / o}' "$out/old.$k.rows" "$out/new.$k.rows"
  done)
  awk -v c="$1" -v p="$3" -v o="$o" -v w="$w" -v mid="$(quantile 0.5 <<<"$ratios")" \
    -v q1="$(quantile 0.25 <<<"$ratios")" -v q3="$(quantile 0.75 <<<"$ratios")" \
    -v lo="$(quantile 0 <<<"$ratios")" -v hi="$(quantile 1 <<<"$ratios")" 'BEGIN {
      v = (q1 <= 1 && 1 <= q3) ? "within noise" : (q1 > 1 ? "new slower" : "new faster")
      printf "%s | %s | %.1f | %.1f | %.2f | %.2f [%.2f..%.2f] (%.2f..%.2f) | %s\n",
             c, p, o, w, (o > 0 ? w / o : 0), mid, q1, q3, lo, hi, v}'
}
for change in $(awk '{print $1}' "$out"/new.1.rows | grep -v '^run$'); do
  for col in 2:spawn/exit 3:redistribution 4:other 5:total; do
    report "$change" "${col%%:*}" "${col#*:}"
  done
done
report run 2 "whole run wall"
}

#@case move-ab
# The move phase of a real resize, two builds side by side: pdgemm_resizable on 4
# processes expands 2x2 -> 3x3 (spawning 5 newcomers onto this node: old and new
# processes of different jobs) after iteration 2 and shrinks back to 2x2 after iteration
# 4; each round runs the old build, then the new one. Prints each run's redistribution
# time of the expansion and of the shrink (the session's own line), the medians and
# new/old per phase.
#   scripts/bench/resize.sh move-ab OLD_BUILD NEW_BUILD [--rounds N] [--n N]
case_move_ab() {
set -euo pipefail
[[ $# -ge 2 ]] || { _help move-ab | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2; shift 2
rounds=5 n=2000
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    *) echo "resize.sh move-ab: unknown option $1" >&2; exit 2 ;;
  esac
done
ab_builds move-ab "$old" "$new"
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); rounds $rounds, n $n; old $old, new $new"
echo "round | build | expand redistribution ms | shrink redistribution ms"
run() {  # build -> "expand_ms shrink_ms"
  local out
  out=$(cd "$1" && timeout 600 mpiexec --oversubscribe --bind-to none -n 4 apps/pdgemm_resizable -n "$n" --nb 64 -i 6 \
    -p scripted -s 2:expand:3x3,4:shrink:2x2 2>&1) || { echo "resize.sh move-ab: run with $1 failed" >&2; echo "$out" >&2; return 1; }
  grep -q 'result check:.*OK' <<<"$out" || { echo "resize.sh move-ab: $1's result check failed" >&2; return 1; }
  # The measured time is the first "redistribution X ms" of the line (a prediction follows).
  awk 'function first(   i) {for (i = 1; i <= NF; i++) if ($i == "redistribution") return $(i + 1)}
       /remap after iter/ && /expand/ {e = first()} /remap after iter/ && /shrink/ {s = first()}
       END {print e, s}' <<<"$out"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
  for b in old new; do
    dir=$old; [[ $b == new ]] && dir=$new
    read -r e s < <(run "$dir")
    echo "$r | $b | $e | $s"
    echo "$b $e $s" >>"$tmp"
  done
done
python3 - "$tmp" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {(b, k): statistics.median(float(r[k + 1]) for r in rows if r[0] == b) for b in ("old", "new") for k in (0, 1)}
for k, name in ((0, "expand"), (1, "shrink")):
    print(f"{name}: median old {med['old', k]:.1f} ms, new {med['new', k]:.1f} ms, new/old {med['new', k] / med['old', k]:.2f}x")
PY
}

#@case prefault-ab
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
# redist --shapes, 1x2 -> 2x2 on 4 ranks, as resize.sh phases does; pdgemm and pdgetrf), and the
# report adds the move over it, warm (its fastest repetition) and cold (its first call into
# fresh pages), per setting: median (min-max) of the per-round ratios.
# --warm-before GIB: right before each resize run, a process writes GIB of memory on huge
# pages and frees it (first_touch in scripts/bench/probes.c), so that the run finds memory its host
# has backed: on a virtual machine whose host takes freed memory back within seconds (free
# page reporting), the nearest to a machine whose memory stays backed.
#   scripts/bench/resize.sh prefault-ab [--env RESIZE_PREFAULT] [--driver pdgemm] [--n 4000]
#                                       [--rounds 5] [--redist] [--warm-before GIB] [--out DIR]
# --out defaults to docs/data/resize_phases/prefault_ab (RESIZE_PREFAULT),
# docs/data/resize_phases/free_ab (RESIZE_FREE_ON_THREAD) or docs/data/hugepages/move
# (RESIZE_HUGEPAGES).
case_prefault_ab() {
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
    -h | --help) _help prefault-ab; exit 0 ;;
    *) echo "resize.sh prefault-ab: unknown option $1" >&2; exit 2 ;;
  esac
done
case $var in
  RESIZE_PREFAULT) out=${out:-$here/docs/data/resize_phases/prefault_ab} ;;
  RESIZE_FREE_ON_THREAD) out=${out:-$here/docs/data/resize_phases/free_ab} ;;
  RESIZE_HUGEPAGES) out=${out:-$here/docs/data/hugepages/move} ;;
  *) echo "resize.sh prefault-ab: --env takes RESIZE_PREFAULT, RESIZE_FREE_ON_THREAD or RESIZE_HUGEPAGES, not $var" >&2; exit 2 ;;
esac
exe=$build/apps/${driver}_resizable
[[ -x $exe ]] || { echo "resize.sh prefault-ab: $exe missing: build first" >&2; exit 2; }
case $driver in  # the registered matrices, 1x2 -> 2x2, as malleable-redist-bench redist --shapes takes them
  pdgemm) shapes="${n}x${n}:64x64@1x2:64x64@2x2 ${n}x${n}:64x64@1x2:64x64@2x2" ;;
  pdgetrf) shapes="${n}x${n}:64x64@1x2:64x64@2x2 ${n}x1:64x1@1x2:64x1@2x2" ;;
  *) ((redist == 0)) || { echo "resize.sh prefault-ab: --redist takes pdgemm or pdgetrf" >&2; exit 2; } ;;
esac
bench=$build/redist/malleable-redist-bench
((redist == 0)) || [[ -x $bench ]] || { echo "resize.sh prefault-ab: $bench missing" >&2; exit 2; }
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"
warm=""
if [[ $warm_before != 0 ]]; then
  warm=$(mktemp -d /tmp/resize_prefault_ab.XXXXXX)
  trap 'rm -rf "$warm"' EXIT
  cc -O2 -DPROBE_FIRST_TOUCH "$here/scripts/bench/probes.c" -o "$warm/first_touch"
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
}

#@case by-restart
# Resize by restart against resize by spawn for the same changes: 2x2 ->
# 3x3 -> 2x2 of an N x N double matrix (N = 4000 by default: 128 MB), side by side in one
# run. The job is life_resizable (a board of N x N doubles, cheap iterations, so the
# resizes dominate; pdgemm at N = 4000 spends minutes per iteration on 2 shared cores);
# DRIVER=pdgemm runs pdgemm_resizable instead. In place: the
# session's spawn/exit, redistribution and other times. By restart (malleable-run,
# --mechanism restart): checkpoint write, exit/start (from the "resize by restart" line to
# the restarted job's "restart from" line, minus its read) and restart read.
# Usage: [DRIVER=life|pdgemm] resize.sh by-restart [build dir] [N] [NB]
case_by_restart() {
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }
driver=${DRIVER:-life}
P=("$build/apps/${driver}_resizable" -n "$n" -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2)
[[ $driver == pdgemm ]] && P+=(--nb "$nb")
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $driver N=$n, 2x2 -> 3x3 -> 2x2"
timeout 900 mpiexec --oversubscribe --bind-to none -n 4 "${P[@]}" 2>&1 | stamp >"$work/spawn.log"
timeout 900 "$build/bin/malleable-run" -n 4 -- "${P[@]}" --mechanism restart --checkpoint "$work/ck" 2>&1 | stamp >"$work/restart.log"
python3 - "$work/spawn.log" "$work/restart.log" <<'PY'
import re, sys
spawn = open(sys.argv[1]).read().splitlines()
rest = open(sys.argv[2]).read().splitlines()
print("by spawn (in place):")
tot_s = 0
for l in spawn:
    m = re.search(r"remap after iter (\d+): (\w+) (\S+) -> (\S+).*?(?:spawn|exit) ([\d.]+) ms, redistribution ([\d.]+) ms, other ([\d.]+) ms, total ([\d.]+) ms", l)
    if m:
        print(f"  {m[3]} -> {m[4]} ({m[2]}): spawn/exit {float(m[5]):8.1f} ms  redistribution {float(m[6]):8.1f} ms  other {float(m[7]):8.1f} ms  total {float(m[8]):8.1f} ms")
        tot_s += float(m[8])
print("by restart (checkpoint, exit 4, malleable-run, restart):")
tot_r = 0
pending = None
for l in rest:
    t, _, text = l.partition(" ")
    t = float(t)
    m = re.search(r"checkpoint after iteration \d+: \S+ \(([\d.]+) ms\)", text)
    if m: write = float(m[1])
    m = re.search(r"resize by restart after iteration \d+: (\S+) -> (\S+) ", text)
    if m: pending = (m[1], m[2], write, t)
    m = re.search(r"restart from .*; ([\d.]+) ms\)", text)
    if m and pending:
        read = float(m[1]); a, b, w, t0 = pending
        gap = (t - t0) * 1e3 - read
        total = w + gap + read
        tot_r += total
        print(f"  {a} -> {b}: write {w:8.1f} ms  exit/start {gap:8.1f} ms  read {read:8.1f} ms  total {total:8.1f} ms")
        pending = None
ok_s = any("result check" in l and ": OK" in l for l in spawn)
ok_r = any("result check" in l and ": OK" in l for l in rest)
print(f"both resizes: by spawn {tot_s:.0f} ms (check {'OK' if ok_s else 'FAILED'}), by restart {tot_r:.0f} ms "
      f"(check {'OK' if ok_r else 'FAILED'}); restart/spawn = {tot_r / tot_s if tot_s else float('nan'):.2f}x")
PY
}

#@case respawn
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
#   scripts/bench/resize.sh respawn [BUILD_DIR] [ROUNDS] [OUT_DIR]
case_respawn() {
set -uo pipefail
build=${1:-build} rounds=${2:-3} out=${3:-}
[[ -x $build/tests/blacs-dyn/blacs_dyn_pingpong_grown && -x $build/apps/pdgemm_resizable ]] || {
  echo "resize.sh respawn: build $build first (targets blacs_dyn_pingpong_grown pdgemm_resizable)" >&2; exit 1; }
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
}

#@case merge-yield
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
#   scripts/bench/resize.sh merge-yield [BUILD_DIR] [ROUNDS] [OUT_FILE]
case_merge_yield() {
set -uo pipefail
build=${1:-build} rounds=${2:-5} out=${3:-}
pp=$build/tests/blacs-dyn/blacs_dyn_pingpong_grown
[[ -x $pp ]] || { echo "resize.sh merge-yield: build $build first (target blacs_dyn_pingpong_grown)" >&2; exit 1; }
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
}

#@case move-budget
# What a move budget (SessionOptions::move_budget_bytes, --move-budget; docs/reference/apps.md
# "Memory of a resize") costs and saves: pdgemm_resizable (its matrices A and B, N x N
# doubles) expands 2x2 -> 2x3 and shrinks back to 2x2, once with no budget (every matrix
# in one exchange) and once with a budget that puts each matrix in its own batch, R times
# each, alternating. Prints per resize the batches, the most bytes one process held during
# the move (move_peak_bytes) and the redistribution time, then the medians and their
# ratios (budget / none). Timings on a shared machine are noisy: compare the ratios of one
# run, and read the load average it prints.
#   scripts/bench/resize.sh move-budget [--n N] [--budget SIZE] [--reps R] [--build-dir DIR]
# Defaults: N 2000, budget 8M (a process's share of one matrix on 2x2 is 8 MB), 3 reps.
case_move_budget() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
n=2000 budget=8M reps=3
while (($#)); do
  case $1 in
    --n) n=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: $0 move-budget [--n N] [--budget SIZE] [--reps R] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
exe=$build/apps/pdgemm_resizable
[[ -x $exe ]] || { echo "no $exe (build the project first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_HISTORY=off
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < reps; ++r)); do
  for mode in none budget; do
    extra=()
    [[ $mode == budget ]] && extra=(--move-budget "$budget")
    mpiexec --oversubscribe -n 4 "$exe" -n "$n" --nb 64 -i 3 -p scripted -s "1:expand:2x3,2:shrink:2x2" -q \
      "${extra[@]}" --json "$tmp/$mode.$r.json" > "$tmp/$mode.$r.log" 2>&1 ||
      { echo "run $mode $r failed:" >&2; tail -5 "$tmp/$mode.$r.log" >&2; exit 1; }
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp" "$reps" "$n" "$budget" <<'PY'
import json, statistics, sys
tmp, reps, n, budget = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = {}
for mode in ("none", "budget"):
    for r in range(reps):
        d = json.load(open(f"{tmp}/{mode}.{r}.json"))
        for k, x in enumerate(d["resizes"]):
            key = (k, f'{x["action"]} {x["from"]["rows"]}x{x["from"]["cols"]}->{x["to"]["rows"]}x{x["to"]["cols"]}')
            rows.setdefault(key, {}).setdefault(mode, []).append((x["move_batches"], x["move_peak_bytes"], x["t_redist_s"]))
print(f"pdgemm_resizable -n {n}: A and B, {reps} runs each; budget {budget}")
print(f'{"resize":<22}{"mode":<8}{"batches":>8}{"peak MiB":>10}{"t_redist ms (median)":>22}')
for key in sorted(rows):
    med = {}
    for mode in ("none", "budget"):
        v = rows[key][mode]
        med[mode] = (v[0][0], statistics.median(p for _, p, _ in v), statistics.median(t for _, _, t in v))
        print(f"{key[1]:<22}{mode:<8}{med[mode][0]:>8}{med[mode][1] / 2**20:>10.1f}{med[mode][2] * 1e3:>22.1f}")
    print(f'{"":<22}{"ratio":<8}{"":>8}{med["budget"][1] / med["none"][1]:>10.2f}{med["budget"][2] / med["none"][2]:>22.2f}')
PY
}

#@case move-vs-redistribute
# A resize's move against `redistribute` alone on the same matrices, side by side in one
# run (the target: the move at most 1.1x `redistribute`). Same world, no spawn: the driver starts
# on 6 processes with a 2x2 grid and expands to 2x3 after iteration 1 (the two idle
# processes join); its JSON record gives the move (t_redist_s) and its phases (stage,
# local copy, exchange). Beside it malleable-redist-bench redist --shapes moves the driver's registered
# matrices 2x2 -> 2x3 on 6 ranks of one job (--reps warm calls: the fastest, the median,
# and the cold first call into fresh pages). The two alternate their order from round to
# round (ABAB, BABA). Prints per round and case, then medians, ranges and move/redistribute.
# --before-env "VAR=VALUE": each round also runs the driver with that setting (the code
# before a change that the setting switches off), its order alternating with the other
# two; its rows are labelled "before" and a last table sets the two moves side by side
# (with the whole resize, t_total_s, since work moved ahead of the move is not gone).
# The "touched" column is that bench's first call on a new communicator into a B
# faulted in before, caches flushed (redist_touched_s): the move's situation once its
# arrays are populated ahead. --keep DIR keeps the runs' JSON records and logs there.
#   scripts/bench/resize.sh move-vs-redistribute [BUILD] [--rounds N] [--cases "pdgemm:2000 ..."] [--before-env VAR=VALUE] [--keep DIR]
case_move_vs_redistribute() {
set -euo pipefail
build=${1:-build}; [[ $# -ge 1 ]] && shift
rounds=3 cases="pdgemm:2000 pdgemm:3000 pdgetrf:2000" nb=64 reps=5 before_env="" keep=""
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --before-env) before_env=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "resize.sh move-vs-redistribute: unknown option $1" >&2; exit 2 ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mpi=(timeout 300 mpiexec --oversubscribe --bind-to none -n 6)
shapes() {  # <driver> <N>: the registered matrices, 2x2 -> 2x3
  local n=$2 s="${nb}x${nb}@2x2:${nb}x${nb}@2x3"
  case $1 in
    pdgemm) echo "${n}x${n}:$s ${n}x${n}:$s" ;;                                # A and B
    pdgetrf) echo "${n}x${n}:$s ${n}x1:${nb}x1@2x2:${nb}x1@2x3" ;;             # A and b
  esac
}
tmp=$(mktemp -d)
trap '[[ -z $keep ]] || { mkdir -p "$keep" && cp "$tmp"/* "$keep"/; }; rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), 6 ranks on $(nproc) cores (oversubscribed); rounds $rounds, nb $nb${before_env:+, before: $before_env}"
resize() {  # driver n r [tag env...]
  local tag=${4:-resize}
  env "${@:5}" "${mpi[@]}" "$build/apps/${1}_resizable" -n "$2" --nb "$nb" -g 2x2 -i 3 -p scripted -s 1:expand:2x3 \
    --no-check -q --json "$tmp/$tag.$1.$2.$3.json" >"$tmp/$tag.$1.$2.$3.log" 2>&1
}
before() { [[ -z $before_env ]] || resize "$1" "$2" "$3" before "$before_env"; }
redist() {  # driver n r
  # shellcheck disable=SC2046
  "${mpi[@]}" "$build/redist/malleable-redist-bench" redist --shapes $(shapes "$1" "$2") --reps "$reps" \
    --json "$tmp/redist.$1.$2.$3.json" >"$tmp/redist.$1.$2.$3.log" 2>&1
}
for r in $(seq 1 "$rounds"); do
  for c in $cases; do
    d=${c%%:*} n=${c##*:}
    if ((r % 2)); then before "$d" "$n" "$r"; resize "$d" "$n" "$r"; redist "$d" "$n" "$r"
    else redist "$d" "$n" "$r"; resize "$d" "$n" "$r"; before "$d" "$n" "$r"; fi
  done
done
python3 - "$tmp" "$rounds" "$cases" "$before_env" <<'PY'
import json, statistics, sys
tmp, rounds, cases, before_env = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
print("round | case | move ms | stage ms | local copy ms | exchange ms | redistribute warm ms (fastest) | median | cold first call ms | touched first call ms | move/warm")
agg = {}
for c in cases:
    d, n = c.split(":")
    for r in range(1, rounds + 1):
        x = json.load(open(f"{tmp}/resize.{d}.{n}.{r}.json"))["resizes"][0]
        ph = x["move_phases"]
        rd = json.load(open(f"{tmp}/redist.{d}.{n}.{r}.json"))
        w = sum(e["redist_s"] for e in rd); m = sum(e["redist_med_s"] for e in rd); cold = sum(e["redist_cold_s"] for e in rd)
        touched = sum(e["redist_touched_s"] for e in rd)
        mv = x["t_redist_s"]
        row = (mv, ph["stage_s"], ph["local_copy_s"], ph["exchange_s"], w, m, cold, touched)
        agg.setdefault(c, []).append(row)
        print(f"{r} | {c} | " + " | ".join(f"{v * 1e3:.1f}" for v in row) + f" | {mv / w:.2f}x")
print()
print("case | move ms median (range) | redistribute warm ms median (range) | warm median-of-reps ms | cold ms | touched ms | move/warm median (range of per-round ratios) | move/median | move/cold | move/touched")
for c, rows in agg.items():
    col = lambda i: [row[i] for row in rows]
    med = lambda i: statistics.median(col(i))
    rat = [row[0] / row[4] for row in rows]
    print(f"{c} | {med(0) * 1e3:.1f} ({min(col(0)) * 1e3:.1f}-{max(col(0)) * 1e3:.1f}) | {med(4) * 1e3:.1f} ({min(col(4)) * 1e3:.1f}-{max(col(4)) * 1e3:.1f}) | "
          f"{med(5) * 1e3:.1f} | {med(6) * 1e3:.1f} | {med(7) * 1e3:.1f} | {statistics.median(rat):.2f}x ({min(rat):.2f}-{max(rat):.2f}x) | {med(0) / med(5):.2f}x | {med(0) / med(6):.2f}x | {med(0) / med(7):.2f}x")
if before_env:
    print()
    print(f"before ({before_env}) and after, side by side: round | case | move ms before | after | stage ms before | after | prefault ms after (its thread, not the move) | whole resize ms before | after")
    pair = {}
    for c in cases:
        d, n = c.split(":")
        for r in range(1, rounds + 1):
            b = json.load(open(f"{tmp}/before.{d}.{n}.{r}.json"))["resizes"][0]
            a = json.load(open(f"{tmp}/resize.{d}.{n}.{r}.json"))["resizes"][0]
            row = (b["t_redist_s"], a["t_redist_s"], b["move_phases"]["stage_s"], a["move_phases"]["stage_s"],
                   a["move_phases"]["prefault_s"], b["t_total_s"], a["t_total_s"])
            pair.setdefault(c, []).append(row)
            print(f"{r} | {c} | " + " | ".join(f"{v * 1e3:.1f}" for v in row))
    print()
    print("case | move ms before, median (range) | after | after/before (median of per-round ratios, range) | whole resize ms before | after | move/warm before | after")
    for c, rows in pair.items():
        col = lambda i: [row[i] for row in rows]
        med = lambda i: statistics.median(col(i))
        rat = [row[1] / row[0] for row in rows]
        warm = statistics.median([row[4] for row in agg[c]])
        print(f"{c} | {med(0) * 1e3:.1f} ({min(col(0)) * 1e3:.1f}-{max(col(0)) * 1e3:.1f}) | {med(1) * 1e3:.1f} ({min(col(1)) * 1e3:.1f}-{max(col(1)) * 1e3:.1f}) | "
              f"{statistics.median(rat):.2f}x ({min(rat):.2f}-{max(rat):.2f}x) | {med(5) * 1e3:.1f} | {med(6) * 1e3:.1f} | {med(0) / warm:.2f}x | {med(1) / warm:.2f}x")
PY
}

#@case first-touch
# The cost of fresh memory, the kernel's page faults on a new array (resize/src/move/pages.hpp,
# RESIZE_HUGEPAGES): first_touch in scripts/bench/probes.c, compiled into a temporary directory, writes
# new anonymous arrays of each size whole, REPS times: 4 KiB pages (small), populated first
# by MADV_POPULATE_WRITE (populate, populate_ms: the madvise alone), transparent huge pages
# (huge: 2 MiB aligned, MADV_HUGEPAGE; huge_MiB: what the kernel gave as huge pages) and the
# same array written again (warm). Repetition 1 is reported apart from the median of the
# others: on a virtual machine whose host backs guest memory at its first touch, the first
# huge pages a process gets are often guest memory never touched since boot.
# --warm-host GIB: first write GIB of memory once and free it (its time: warm_host).
# --after-free "D1 D2 ...": how long written and freed memory stays backed: for each delay
# D (seconds), one process writes and frees 4 GiB, and D seconds later a new process writes
# 512 MiB on small and on huge pages (its first repetition; lines after_free in the table).
# Prints the system's THP settings, free memory and free 2/4 MiB blocks before and after,
# the table, and writes the raw lines to OUT/TAG.tsv and the report to OUT/TAG.txt.
#   scripts/bench/resize.sh first-touch [--sizes 32,128,512] [--reps 5] [--warm-host GIB]
#                                [--tag NAME] [--out docs/data/first_touch]
case_first_touch() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sizes=32,128,512 reps=5 warm=0 tag=run out=$here/docs/data/first_touch after_free=""
while (($#)); do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --warm-host) warm=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --after-free) after_free=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) _help first-touch; exit 0 ;;
    *) echo "resize.sh first-touch: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $reps -ge 2 ]] || { echo "resize.sh first-touch: --reps takes 2 or more" >&2; exit 2; }
tmp=$(mktemp -d /tmp/first_touch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -Wextra -DPROBE_FIRST_TOUCH "$here/scripts/bench/probes.c" -o "$tmp/first_touch"
mkdir -p "$out"
state() {  # free memory and free blocks of order 9 (2 MiB) and 10 (4 MiB), all zones
  awk '/MemFree/ {printf "MemFree %.1f GiB", $2 / 1048576}' /proc/meminfo
  awk '{o9 += $(5 + 9); o10 += $(5 + 10)} END {printf ", free 2 MiB blocks %d, 4 MiB blocks %d\n", o9, o10}' /proc/buddyinfo
}
{
  echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), uptime $(cut -d' ' -f1 /proc/uptime) s"
  echo "# THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null), defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
  echo "# sizes $sizes MiB, $reps repetitions, warm-host ${warm} GiB; before: $(state)"
} | tee "$out/$tag.txt"
"$tmp/first_touch" "$sizes" "$reps" "$warm" >"$out/$tag.tsv"
echo "# after: $(state)" | tee -a "$out/$tag.txt"
awk -F'\t' '$1 == "warm_host" {printf "warm_host: %s MiB written once in %.0f ms (%.0f MB/s), %s MiB of it huge pages\n", $2, $4, $2 * 1.048576 / $4 * 1e3, $5}' \
  "$out/$tag.tsv" | tee -a "$out/$tag.txt"
python3 - "$out/$tag.tsv" <<'PY' | tee -a "$out/$tag.txt"
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
t = {}
for kind, mib, rep, ms, _ in rows:
    if kind != "warm_host":
        t.setdefault((kind, int(mib)), {})[int(rep)] = float(ms)
sizes = sorted({m for _, m in t})
print("| MiB | kind | rep 1 ms | later reps ms: median (min-max) | later median / small's |")
print("|---:|---|---:|---:|---:|")
for m in sizes:
    small = t.get(("small", m), {})
    base = statistics.median([v for r, v in small.items() if r > 1]) if len(small) > 1 else None
    for kind in ("small", "populate_ms", "populate", "huge", "warm"):
        d = t.get((kind, m))
        if not d:
            continue
        later = [v for r, v in d.items() if r > 1]
        med = statistics.median(later)
        rel = f"{med / base:.2f}x" if base else "-"
        print(f"| {m} | {kind} | {d.get(1, float('nan')):.1f} | {med:.1f} ({min(later):.1f}-{max(later):.1f}) | {rel} |")
huge = [r for r in rows if r[0] == "huge" and r[4] != "-"]
short = [r for r in huge if int(r[4]) < int(r[1])]
print(f"huge arrays not wholly on huge pages: {len(short)} of {len(huge)}" + (" (AnonHugePages counts the whole process)" if short else ""))
PY
for d in $after_free; do
  w=$("$tmp/first_touch" 1 2 4 | awk -F'\t' '$1 == "warm_host" {print $4}')
  sleep "$d"
  "$tmp/first_touch" 512 2 | awk -F'\t' -v d="$d" -v w="$w" '$3 == 1 && ($1 == "small" || $1 == "huge") {t[$1] = $4}
    END {printf "after_free: 4 GiB written in %.0f ms and freed; %s s later, a new process: 512 MiB small pages %.0f ms, huge pages %.0f ms\n", w, d, t["small"], t["huge"]}'
done | tee -a "$out/$tag.txt"
}

#@case first-call
# `redistribute` of a one-node resize's matrices (1x2 -> 2x2 on 4 ranks of one job, N = 4,000,
# blocks of 64; Life: one block per process) timed warm (fastest and median of REPS), cold
# (its first call into fresh pages) and as a first call on a new communicator into arrays
# written before, caches flushed (malleable-redist-bench redist --shapes' redist_touched_s): what separates a
# resize's move from a warm `redistribute` (docs/measurements/results.md, "A resize against
# its limits"). One JSON and log per driver into OUT.
#   scripts/bench/resize.sh first-call [--reps K] [--n N] [--out DIR]   (--n: the order, default 4000)
case_first_call() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
reps=5 n=4000 out=$here/docs/data/resize_phases/first_call
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) _help first-call; exit 0 ;;
    *) echo "resize.sh first-call: unknown option $1" >&2; exit 2 ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"
m="${n}x${n}:64x64@1x2:64x64@2x2"
declare -A shapes=([pdgemm]="$m $m" [pdgetrf]="$m ${n}x1:64x1@1x2:64x1@2x2" [life]="${n}x${n}:${n}x$((n / 2))@1x2:$((n / 2))x$((n / 2))@2x2")
for d in pdgemm pdgetrf life; do
  # shellcheck disable=SC2086
  timeout 600 mpiexec --oversubscribe --bind-to none -n 4 "$build/redist/malleable-redist-bench" redist --shapes ${shapes[$d]} \
    --reps "$reps" --json "$out/$d.json" >"$out/$d.log" 2>&1
  python3 - "$out/$d.json" "$d" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
s = lambda k: sum(r[k] for r in rows)
print(f"{sys.argv[2]:8s} warm best {s('redist_s')*1e3:6.1f} ms  median {s('redist_med_s')*1e3:6.1f}  "
      f"cold {s('redist_cold_s')*1e3:6.1f}  first call, touched {s('redist_touched_s')*1e3:6.1f} "
      f"({s('redist_touched_s')/s('redist_s'):.2f}x warm best)")
PY
done | tee "$out/summary.txt"
echo "# $(date -u +%FT%TZ), $(env -u OMP_NUM_THREADS nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/summary.txt"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"
}

#@case generation-check
# The generation check (docs/reference/apps.md, "The generations' reach under UCX") in three
# arms, alternating: Open MPI's ob1 (RESIZE_UCX_CHECK=on: its generations meet over TCP
# loopback), its UCX PML chosen by hand (OMPI_MCA_pml=ucx: blacs-dyn keeps PMIx's hash
# store, so the generations meet over UCX's TCP) and BLACS_DYN_PML=ucx (through shared
# memory). Each run is
# tests/resize/session_respawn merge on 4 processes grown to 6 by spawn, whose first
# expansion runs the check; prints the load and each run's verdict line, then the
# ratio (newcomer over original: the geometric mean of 8 B's and 64 KiB's) per arm: kSlowRatio
# (resize/src/policy/generation_reach.hpp) is chosen between.
#   scripts/bench/resize.sh generation-check [BUILD_DIR] [ROUNDS]
case_generation_check() {
set -uo pipefail
build=${1:-build} rounds=${2:-10}
prog=$build/tests/resize/session_respawn
[[ -x $prog ]] || { echo "resize.sh generation-check: build $build first (target session_respawn)" >&2; exit 1; }
ompi_info 2>/dev/null | grep -q "MCA pml: ucx" || { echo "resize.sh generation-check: this Open MPI has no pml/ucx"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_RECONFIGURE=merge
echo "generation_check: $(nproc --all) cores, $(mpiexec --version | head -1), $rounds rounds, $(date -u +%FT%TZ)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 1; r <= rounds; r++)); do
  echo "round $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
  RESIZE_UCX_CHECK=on timeout 120 mpiexec --oversubscribe -x RESIZE_UCX_CHECK -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 |
    grep "generation check" | sed 's/^/ob1 /' | tee -a "$out"
  OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any timeout 120 mpiexec --oversubscribe \
    -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 | grep "generation check" | sed 's/^/ucx-hash /' | tee -a "$out"
  BLACS_DYN_PML=ucx timeout 120 mpiexec --oversubscribe -x BLACS_DYN_PML -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 |
    grep "generation check" | sed 's/^/ucx /' | tee -a "$out"
done
for arm in ob1 ucx-hash ucx; do
  grep "^$arm " "$out" | sed -n 's/.*times \([0-9.]*\)x at 8 B, \([0-9.]*\)x at 64 KiB.*took \([0-9.]*\) ms.*/\1 \2 \3/p' |
    awk '{printf "%.2f %s\n", sqrt($1 * $2), $3}' | sort -n |
    awk -v arm="$arm" '{r[NR]=$1; t[NR]=$2; if ($0 ~ /./) n++} END {
      if (NR == 0) { print arm ": no verdict"; exit }
      m = asort(t); printf "%s: ratio %s-%s over %d runs; the check took %s ms (median, %s-%s)\n",
        arm, r[1], r[NR], NR, t[int((m + 1) / 2)], t[1], t[m] }'
  echo "$arm: TCP between the pair: $(grep "^$arm " "$out" | grep -o '[a-z]* TCP connection joins them' | sort | uniq -c | tr '\n' ';')"
  echo "$arm: verdicts: $(grep "^$arm " "$out" | grep -o 'through shared memory\|but not through shared memory\|do not reach' | sort | uniq -c | tr '\n' ';')"
done
}

#@case background
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
#   scripts/bench/resize.sh background [--n N] [--reps R] [--apps "pdgemm life"] [--cluster] [--rate R] [--build-dir DIR] [--out DIR]
# Writes the runs' JSON, table.md, plot.dat and background.png (gnuplot) to --out (default /tmp/background_bench).
# Not a test (label bench in spirit): timings depend on the machine and its load.
case_background() {
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
    *) echo "usage: $0 background [--n N] [--reps R] [--apps LIST] [--cluster] [--rate R] [--build-dir DIR] [--out DIR]" >&2; exit 2 ;;
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
}

#@case spawn-addhost
# A raw MPI_Comm_spawn + merge of 2 processes onto node2 of the emulated cluster, from a
# job started two ways (docs/measurements/resize.md, "A resize against its limits"):
#   pool     the job started with the cluster's hostfile (node2 in its allocation), as
#            resize.sh phases's raw spawns are;
#   add-host the job started on node1 alone (--host node1:2), node2 reached with Open MPI's
#            "add-host" info key, as a resize's per-host spawn does (the launcher starts
#            node2's daemon inside the spawn).
# Each prints the median of 5 spawns after a warm-up and the warm-up (the job's first
# spawn); ROUNDS rounds, the order alternating. Takes the cluster lock.
#   scripts/bench/resize.sh spawn-addhost [--rounds 3] [--out DIR]
case_spawn_addhost() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$here/docs/data/resize_phases/spawn_addhost rounds=3
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) _help spawn-addhost; exit 0 ;;
    *) echo "resize.sh spawn-addhost: unknown option $1" >&2; exit 2 ;;
  esac
done
CLUSTER=$here/scripts/cluster.sh
lib_raw_spawn
mkdir -p "$out"
rm -f "$out"/*.txt
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
raw_spawn_build "$scratch/spawn_pingpong"
(
  exec 9>/run/malleable-cluster.lock
  flock -w 1800 9 || { echo "resize.sh spawn-addhost: cluster lock busy for 30 min" >&2; exit 1; }
  trap '"$CLUSTER" down >/dev/null 2>&1 || true' EXIT
  raw_cluster_up
  echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); raw_spawn_merge_ms K MEDIAN FIRST" >"$out/meta.txt"
  for ((r = 1; r <= rounds; ++r)); do
    order=(pool add-host)
    ((r % 2)) || order=(add-host pool)
    for how in "${order[@]}"; do
      raw_spawn_cluster "$how" "$scratch/spawn_pingpong" 5 300 >"$out/$how.$r.txt" 2>&1 || echo "round $r $how failed" >&2
    done
  done
)
grep -H raw_spawn "$out"/*.txt | sed "s|$out/||"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"
}

#@lib raw_spawn
# Called by the cases phases and spawn-addhost: the raw MPI_Comm_spawn + merge
# of spawn_pingpong's (probes.c) spawn mode, built and run the same way by both. Needs $here (the
# source tree) and, for the cluster's, CLUSTER (scripts/cluster.sh).
lib_raw_spawn() {
: "${here:?raw_spawn: set here to the source tree before calling it}"

# PMIX_MCA_gds=hash as the library sets it before MPI_Init (docs/reference/blacs-dyn.md): without
# it a spawn of the raw programs hung in PMIx_Init / PMIx_Lookup here.
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1

raw_spawn_build() {  # <output>: spawn_pingpong alone
  mpicc -O2 -DPROBE_SPAWN_PINGPONG "$here/scripts/bench/probes.c" -o "$1"
}

# spawn_pingpong linked with a driver's libraries (its NEEDED entries and run path): its
# newcomers load and initialise what the driver's do.
raw_with_libs() {  # <driver executable> <output>
  local rp libs
  rp=$(readelf -d "$1" | sed -n 's/.*R[UN]*PATH.*\[\(.*\)\]/\1/p')
  libs=$(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/-l:\1/p' | grep -v -e libmpi.so -e libc.so -e libm.so -e libgcc_s)
  # shellcheck disable=SC2046,SC2086
  mpicc -O2 -DPROBE_SPAWN_PINGPONG "$here/scripts/bench/probes.c" -o "$2" $(tr ':' '\n' <<<"$rp" | grep . | sed 's/^/-L/') \
    -Wl,--no-as-needed $libs -Wl,-rpath,"$rp"
}

# The emulated cluster brought up anew (2 nodes, links shaped to 1 Gbit/s) and its MPI
# environment exported; the caller holds the cluster lock on fd 9 and brings it down.
raw_cluster_up() {
  "$CLUSTER" down >/dev/null
  "$CLUSTER" up 2 --rate 1gbit 9>&- >/dev/null
  eval "export $("$CLUSTER" mpi-env | tr '\n' ' ')"
}

# One raw spawn run on the emulated cluster: 2 processes spawned onto node2, REPS times after
# a warm-up (it prints "raw_spawn_merge_ms 2 MEDIAN FIRST"), from a job started on node1
# either with the cluster's hostfile (pool: node2 in its allocation from the start) or on
# node1 alone reaching node2 with Open MPI's "add-host" (add-host: node2's daemon is started
# inside the first spawn, as in a resize's per-host spawn).
raw_spawn_cluster() {  # <pool|add-host> <program> <reps> <timeout seconds>
  local job=(-n 2) tail=()
  if [[ $1 == add-host ]]; then job=(--host node1:2 -n 2) tail=(add-host); fi
  timeout "$4" "$CLUSTER" exec node1 mpiexec --oversubscribe --bind-to none "${job[@]}" "$2" spawn 2 "$3" node2 "${tail[@]}"
}
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
