#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The emulated cluster, Slurm and the arbiter (docs/measurements/cluster.md, adaptive.md; docs/guide/arbiter-operation.md): one command, the case first:
#   scripts/bench/slurm.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

#@case cluster
# the measurements on the emulated cluster (scripts/cluster.sh, links shaped to
# 1 Gbit/s per node like the thesis's cluster), all in one run:
#   1. growing onto nodes (one spawn group per node, spawned at the same time) against
#      one raw MPI_Comm_spawn + merge of the same processes, and giving the nodes back
#      (malleable-blacs-dyn-bench expand-nodes);
#   2. redistribution 4 -> 9 and 9 -> 16 processes over 3-16 nodes, N = 4000, every
#      placement (Global, Local1, Local2, optimal, node-aware optimal) and schedule beside
#      PDGEMR2D, with the link bound (the busiest node link's bytes / its rate) and the
#      wait/transfer split of the thesis Tables 4.4-4.6;
#   3. the same 4 -> 9 redistribution on one node beside the memcpy floor.
# Results: JSON in docs/data/cluster/ (or --out DIR), rendered into docs/measurements/results.md by
# scripts/bench/report.py (section "On the emulated cluster"); a summary is printed.
#   scripts/bench/slurm.sh cluster [--quick] [--out DIR] [--build-dir DIR]
# --quick: N = 1500, one repetition, fewer cases (a couple of minutes). Needs root (the
# cluster); leaves no namespace or process behind.
case_cluster() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out=$here/docs/data/cluster
quick=0
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    -h | --help) _help cluster; exit 0 ;;
    *) echo "slurm.sh cluster: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $build = /* ]] || build=$here/$build
for exe in blacs-dyn/malleable-blacs-dyn-bench apps/reproduce/repro_redist; do
  [[ -x $build/$exe ]] || { echo "slurm.sh cluster: $build/$exe missing: build first (scripts/setup.sh)" >&2; exit 1; }
done
SRC=$here BUILD=$build
. "$here/tests/cluster/harness.sh"
mkdir -p "$out"
n=4000 reps=3 nodes_reps=6
((quick)) && n=1500 reps=1 nodes_reps=3

start=$(date +%s)
# 1. growing onto nodes and giving them back
cluster_begin 4 --rate 1gbit
echo "== 1. growing onto nodes vs raw spawn + merge (4 parents on node1, 2 processes per node)"
mpirun_on node1 -n 4 "$build/blacs-dyn/malleable-blacs-dyn-bench" expand-nodes $nodes_reps 2 node2 node3 node4 | tee "$out/nodes.txt"
"$CLUSTER" down >/dev/null

# 2. redistribution over shaped links. A case: name, nodes, slots per node (mapping by slot,
# so the old grid's ranks fill the first nodes), grids, block size (0 = block distribution).
redist_case() {  # <name> <slots per node, comma list> <from> <to> <nb>
  local name=$1 slots=$2 from=$3 to=$4 nb=$5 hf=$out/.hostfile i=0 procs=0
  local -a s
  IFS=, read -r -a s <<<"$slots"
  "$CLUSTER" up ${#s[@]} --rate 1gbit >/dev/null
  eval "export $("$CLUSTER" mpi-env | tr '\n' ' ')"
  : >"$hf"
  for k in "${s[@]}"; do
    i=$((i + 1))
    procs=$((procs + k))
    echo "node$i slots=$k" >>"$hf"
  done
  echo "== 2. $name: $from -> $to over ${#s[@]} nodes (slots $slots), N=$n, nb=$nb"
  mpirun_on node1 --hostfile "$hf" --map-by slot -n "$procs" "$build/apps/reproduce/repro_redist" \
    -n "$n" --nb "$nb" --from "$from" --to "$to" --placements global,local1,local2,optimal,optimal-nodes \
    --schedules allatonce,matching,caterpillar,pdgemr2d --split caterpillar,allatonce --reps "$reps" \
    --link-rate 1e9 --json "$out/redist_$name.json" >/dev/null
  rm -f "$hf"
  "$CLUSTER" down >/dev/null
}
redist_case 4to9_3nodes 3,3,3 2x2 3x3 0
redist_case 9to16_4nodes 4,4,4,4 3x3 4x4 0
if ((!quick)); then
  redist_case 9to16_5nodes 4,3,3,3,3 3x3 4x4 0
  redist_case 9to16_4nodes_nb64 4,4,4,4 3x3 4x4 64
  # the thesis's cluster: one process per node
  redist_case 4to9_9nodes 1,1,1,1,1,1,1,1,1 2x2 3x3 0
  redist_case 9to16_16nodes 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 3x3 4x4 0
fi

# 3. one node: the same redistribution beside the memcpy floor (no cluster settings)
unset OMPI_MCA_plm_rsh_agent OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include OMPI_MCA_orte_default_hostfile
echo "== 3. one node: 2x2 -> 3x3, N=$n"
OMPI_MCA_btl_vader_single_copy_mechanism=none mpiexec --oversubscribe --bind-to none -n 9 \
  "$build/apps/reproduce/repro_redist" -n "$n" --nb 0 --from 2x2 --to 3x3 \
  --placements global,local1,local2,optimal --schedules allatonce,matching,caterpillar,pdgemr2d \
  --split "" --reps "$reps" --json "$out/redist_4to9_1node.json" >/dev/null

python3 - "$out" "$(( $(date +%s) - start ))" "$quick" <<'PY'
import json, os, sys, platform, subprocess
out, secs, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
load = open("/proc/loadavg").read().split()[:3]
json.dump({"seconds": secs, "quick": quick, "commit": commit, "load_at_end": load,
           "machine": platform.node(), "cores": os.cpu_count()}, open(os.path.join(out, "meta.json"), "w"), indent=1)
PY
python3 "$here/scripts/bench/cluster_report.py" --data "$out" --plot "$here/docs/img/cluster_redist.png" --summary
python3 "$here/scripts/bench/splice_sections.py" --only cluster --data "$(dirname "$out")" || true
# the raw runs go into OUT/runs.tar.xz (scripts/bench/data_archive.py; the report reads them there)
python3 "$here/scripts/bench/data_archive.py" pack "$out" >/dev/null
}

#@case slurm
# the comparison under the emulated cluster's Slurm (4 nodes, 1 Gbit/s links): the
# same two jobs (a 4-node PDGEMM job, then a rigid 2-node job arriving while it runs) once
# with the first job malleable (-p slurm: it gives 2 nodes back and grows again, the
# payoff test on) and once rigid (first come, first served). Slurm's view is recorded
# every 0.5 s; scripts/bench/slurm_report.py turns it into makespan, response times, node
# utilization and the timeline plot (docs/img/slurm_timeline.png), and report.py puts the
# section into docs/measurements/results.md.
#   scripts/bench/slurm.sh slurm [--quick] [--out DIR] [--build-dir DIR]
# --quick: N = 800, 120 iterations (about 2 minutes). Needs root; leaves nothing behind.
case_slurm() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out=$here/docs/data/slurm
n=1600 iters=200 quick=0
while (($#)); do
  case $1 in
    --quick) quick=1; n=800; iters=120; shift ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    -h | --help) _help slurm; exit 0 ;;
    *) echo "slurm.sh slurm: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $build = /* ]] || build=$here/$build
SRC=$here BUILD=$build
. "$here/tests/cluster/harness.sh"
start=$(date +%s)
cluster_begin 4 --slurm --rate 1gbit
for mode in malleable rigid; do
  echo "== $mode: N=$n, $iters iterations"
  rm -rf "$out/$mode"
  "$here/scripts/bench/slurm.sh" scenario --out "$out/$mode" --mode "$mode" --n "$n" --iters "$iters" \
    --rigid-iters 20 --submit-after 8 --build-dir "$build" --deadline 1200
  grep -E '^\[slurm\]|remap after' "$out/$mode/${mode}_job.out" || true
done
python3 - "$out" "$(( $(date +%s) - start ))" "$quick" "$n" "$iters" <<'PY'
import json, os, sys, subprocess
out, secs, quick, n, iters = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5])
commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
json.dump({"seconds": secs, "quick": quick, "n": n, "iterations": iters, "commit": commit,
           "load_at_end": open("/proc/loadavg").read().split()[:3]}, open(os.path.join(out, "meta.json"), "w"), indent=1)
PY
# the per-run scripts embed this machine's paths; the data stays
rm -f "$out"/*/first.sh "$out"/*/rigid.sh "$out"/*/slurm_job_*_resize.*
python3 "$here/scripts/bench/slurm_report.py" --data "$out" --plot "$here/docs/img/slurm_timeline.png" --summary
python3 "$here/scripts/bench/splice_sections.py" --only slurm --data "$(dirname "$out")" || true
# the raw runs go into OUT/runs.tar.xz (scripts/bench/data_archive.py; the report reads them there)
python3 "$here/scripts/bench/data_archive.py" pack "$out" >/dev/null
}

#@case scenario
# the scenario on the emulated cluster's Slurm (cluster.sh up 4 --slurm must be up):
# a malleable PDGEMM job gets 4 nodes; a rigid job asking for 2 nodes arrives; with
# --mode malleable the first job gives 2 nodes back at its next remap point (Slurm policy,
# -p slurm), the rigid job runs, and the first job grows back when it ends; with --mode
# rigid the same first job keeps its 4 nodes (8 processes, -p fixed) and the rigid job
# waits (first come, first served). Slurm's view is recorded every 0.5 s (squeue).
#   slurm.sh scenario --out DIR [--mode malleable|rigid] [--n N] [--iters I]
#                     [--rigid-iters I] [--submit-after S] [--build-dir DIR] [--deadline S]
#                     [--stop-when-regrown]
# --stop-when-regrown (malleable): once the first job has given nodes back, the rigid job
# has left the queue and the first job has grown again, ask it to end at its next
# iteration (pdgemm_resizable --stop-file), whatever --iters says: the test's way of not
# depending on how fast this machine runs the iterations.
# Writes DIR/timeline.tsv (t, job, name, state, nodes, nodelist), DIR/<mode>_job.out,
# DIR/rigid_job.out, DIR/<mode>.json (the first job's run); exit 0 when both jobs ended
# and both result checks passed.
case_scenario() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out="" mode=malleable n=1600 iters=200 rigid_iters=20 submit_after=5 deadline=900 stop_when_regrown=0
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --rigid-iters) rigid_iters=$2; shift 2 ;;
    --submit-after) submit_after=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --stop-when-regrown) stop_when_regrown=1; shift ;;
    *) echo "slurm.sh scenario: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -n $out ]] || { echo "slurm.sh scenario: --out DIR is required" >&2; exit 2; }
[[ $mode == malleable || $mode == rigid ]] || { echo "slurm.sh scenario: --mode malleable|rigid" >&2; exit 2; }
[[ $build = /* ]] || build=$here/$build
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/stop"
cluster=$here/scripts/cluster.sh
head_do() { "$cluster" exec head "$@"; }
head_do sinfo -h >/dev/null || { echo "slurm.sh scenario: no Slurm: run cluster.sh up 4 --slurm" >&2; exit 1; }

# Each job keeps Open MPI's session directories in a folder of its own (TMPDIR, removed when
# it ends): the emulated nodes share the host's /tmp, and two mpiruns starting in the same
# second on one node race to create its /tmp/ompi.<node>.<uid>; the daemons inherit TMPDIR
# through cluster-rsh. A job Slurm ends gets SIGTERM, which would kill bash without its
# EXIT trap: SIGTERM makes it exit (once the running command has ended) and so clean up.
common="export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_METER_KERNELS=1
export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24
export TMPDIR=\$(mktemp -d /tmp/malleable-job.XXXXXX); trap 'rm -rf \"\$TMPDIR\"' EXIT; trap 'exit 143' TERM"
# The first job. Open MPI's Slurm launcher would start its daemons as one Slurm step over
# every node and a shrink of the allocation kills that step, and with it the job: the
# daemons are started through the rsh agent instead (docs, "Under Slurm").
if [[ $mode == malleable ]]; then
  run="mpirun --oversubscribe --bind-to none -n 2 $build/apps/pdgemm_resizable -n $n --nb 64 -g 1x2 -i $iters -p slurm"
  run+=" --stop-file $out/stop"
else
  run="mpirun --oversubscribe --bind-to none -n 8 $build/apps/pdgemm_resizable -n $n --nb 64 -g 2x4 -i $iters -p fixed"
fi
cat >"$out/first.sh" <<EOF
#!/bin/bash
$common
export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$here/scripts/cluster-rsh RESIZE_SLURM_INTERVAL=1
echo "first job \$SLURM_JOB_ID on \$(hostname), allocation \$SLURM_JOB_NODELIST"
$run --json $out/$mode.json
EOF
cat >"$out/rigid.sh" <<EOF
#!/bin/bash
$common
echo "rigid job \$SLURM_JOB_ID on \$SLURM_JOB_NODELIST"
mpirun --oversubscribe --bind-to none -n 4 $build/apps/pdgemm_resizable -n 400 --nb 32 -g 2x2 -i $rigid_iters -q
EOF
chmod +x "$out/first.sh" "$out/rigid.sh"

t0=$(date +%s.%N)
since() { echo "$(date +%s.%N) - $t0" | bc -l; }
first=$(cd "$out" && head_do sbatch --parsable -J first -N 4 --ntasks-per-node=2 -o "$out/${mode}_job.out" "$out/first.sh")
rigid=""
printf 't\tjob\tname\tstate\tnodes\tnodelist\n' >"$out/timeline.tsv"
while :; do
  t=$(since)
  lines=$(head_do squeue -h -o '%i|%j|%T|%D|%N' 2>/dev/null || true)
  while IFS='|' read -r id name state nodes list; do
    [[ -n $id ]] && printf '%.2f\t%s\t%s\t%s\t%s\t%s\n' "$t" "$id" "$name" "$state" "$nodes" "$list" >>"$out/timeline.tsv"
  done <<<"$lines"
  if [[ -z $rigid ]]; then
    running=$(awk -F'\t' -v j="$first" '$2 == j && $4 == "RUNNING"' "$out/timeline.tsv" | head -1)
    # submit once the first job has run for a while (and, malleable, spread over its nodes)
    if [[ -n $running ]] && (($(echo "$t > $submit_after" | bc -l))) &&
      { [[ $mode == rigid ]] || grep -q "expand 1x2" "$out/${mode}_job.out" 2>/dev/null; }; then
      rigid=$(cd "$out" && head_do sbatch --parsable -J rigid -N 2 -o "$out/rigid_job.out" "$out/rigid.sh")
    fi
  fi
  [[ -n $rigid && -z $lines ]] && break
  # Slurm 22.05 sometimes keeps nodes returned by a NodeList shrink unallocatable after a
  # job ran on them: sinfo lists them idle, yet every request for them pends (Reason
  # Resources; the backfill log says "Requested nodes are busy") for ~200 s, until
  # slurmctld rebuilds its node bitmaps. Seen in 1 of 3-4 runs here, with select/linear and
  # select/cons_tres alike. As this cluster's administrator the scenario rebuilds them
  # (scontrol reconfigure) once, when Slurm has refused the first job's request for nodes
  # after the rigid job left; the policy's next request then gets them.
  if [[ -n $rigid ]] && grep -q "^$rigid|" <<<"$lines"; then rigid_seen=1; fi
  if [[ $mode == malleable && -n ${rigid_seen:-} && -z ${reconfigured:-} ]] && ! grep -q "^$rigid|" <<<"$lines" &&
    awk '/gave back/{s=1} s && /growing refused/{r=1} END{exit !r}' "$out/${mode}_job.out" 2>/dev/null; then
    echo "t=$(printf '%.1f' "$t") s: Slurm refused the first job's request for nodes after the rigid job left; idle: $(head_do sinfo -h -t idle -o %N 2>/dev/null || true): scontrol reconfigure"
    head_do scontrol reconfigure || true
    reconfigured=1
  fi
  if ((stop_when_regrown)) && [[ $mode == malleable && -n $rigid && ! -e $out/stop ]] &&
    ! grep -q "^$rigid|" <<<"$lines" &&
    awk '/gave back/{s=1} s && /remap after.*: expand /{g=1} END{exit !g}' "$out/${mode}_job.out" 2>/dev/null; then
    echo "t=$(printf '%.1f' "$t") s: the rigid job ended and the first job grew back: asking it to stop"
    touch "$out/stop"
  fi
  if (($(echo "$t > $deadline" | bc -l))); then
    head_do scancel "$first" ${rigid:+"$rigid"} || true
    echo "slurm.sh scenario: FAILED: the jobs did not end within $deadline s" >&2
    exit 1
  fi
  sleep 0.5
done
echo "first job $first ($mode) and rigid job $rigid ended after $(printf '%.1f' "$(since)") s"
ok=0
grep -q "result check.*OK" "$out/${mode}_job.out" || { echo "FAILED: the first job's result check" >&2; ok=1; }
grep -q "result check.*OK" "$out/rigid_job.out" || { echo "FAILED: the rigid job's result check" >&2; ok=1; }
exit $ok
}

#@case giveback
# Giving a node back under the one recipe (docs/guide/slurm.md; docs/measurements/cluster.md,
# "Giving a node back"): on the emulated cluster (scripts/cluster.sh up 4 --slurm
# --no-expansion), R rounds, each a fresh malleable PDGEMM job submitted by the recipe
# (sbatch -N 2-4, malleable-run --job-dir, -p slurm; here also -w node[1-3], so that every
# round starts alike: Slurm's emulated nodes were now and then slow to be free again
# between rounds) while node4 is busy, one launch per node. In each round:
#   start:    a rigid job (1 node) waits; the job gives back a node it started on (a
#             shrink off it, then scontrol update NodeList=)
#   expander: node4 frees, the job grows onto a free node by an expander job; a rigid
#             job waits again (for that node, -w); the job gives the expander's node back
#             (its launch leaves, the expander ends)
# For each give-back: from the decision (the job's line "[slurm] shrinking to give back",
# seen by polling its output every 20 ms) to the node out of the job (squeue: not in the
# job's node list, and for an expander, the expander ended) and to the waiting rigid job
# running there. Slurm's own latency beside it: a rigid job waiting for a node (-w) that a
# job holds, from that job's cancellation to the rigid job running there (the same polling).
# Usage: slurm.sh giveback [--rounds R] [--build-dir DIR] [--out FILE]
# Prints one CSV row per give-back (round,kind,node,decision_to_out_s,decision_to_rigid_s)
# and one per Slurm-alone start (round,slurm-start,node,,cancel_to_running_s), then the
# medians; with --out, writes the rows there.
case_giveback() {
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build} rounds=5 outfile=
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) outfile=$2; shift 2 ;;
    -h | --help) _help giveback; exit 0 ;;
    *) echo "slurm.sh giveback: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "slurm.sh giveback: --rounds must be 1..99" >&2; exit 2; }
[[ $build = /* ]] || build=$here/$build
[[ -x $build/apps/pdgemm_resizable ]] || { echo "slurm.sh giveback: no $build/apps/pdgemm_resizable (build first)" >&2; exit 2; }
SRC=$here BUILD=$build
. "$here/tests/cluster/harness.sh"
set +e
slurm_begin "recipe rigid blocker" 4 --no-expansion
run=$build/bin/malleable-run
app=pdgemm_resizable
rows=$work/rows.csv
echo "round,kind,node,decision_to_out_s,decision_to_rigid_s" >"$rows"
now() { date +%s.%N; }
retries=0
sq() { "$CLUSTER" exec head squeue -h "$@"; }
# The time the job's output first shows a line matching <regex>, polled every 20 ms (120 s).
seen_at() {  # <file> <regex>
  local i
  for ((i = 0; i < 6000; ++i)); do grep -Eq -- "$2" "$1" 2>/dev/null && { now; return 0; }; sleep 0.02; done
  fail "no line '$2' in $1 within 120 s"
}
until_true() {  # <seconds> <command...>: polls every 20 ms, prints the time it first held
  local i n=$(($1 * 50))
  shift
  for ((i = 0; i < n; ++i)); do "$@" && { now; return 0; }; sleep 0.02; done
  fail "not within the time: $*"
}
not_in_job() { [[ $(sq -j "$job" -o %N) != *"$1"* ]] && { [[ -z ${2:-} ]] || [[ -z $(sq -j "$2" -o %T 2>/dev/null) ]]; }; }
running_on() { [[ $(sq -j "$1" -o "%T|%N") == "RUNNING|$2" ]]; }
for ((r = 1; r <= rounds; ++r)); do
  # (the last round's jobs gone and node1-3 idle: the job starts on exactly those)
  until_true 120 eval '[[ $("$CLUSTER" exec head sinfo -h -n node[1-4] -o %t | sort -u) == idle ]]' >/dev/null
  blocker=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J blocker -N 1 -w node4 -o /dev/null --wrap "sleep 900")
  until_true 60 running_on "$blocker" node4 >/dev/null
  out=$work/job$r.out
  slurm_job_script "$work/job$r.sh" \
    "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_SHARED=off BLACS_DYN_JOIN_TIMEOUT=90" \
    "exec $run --job-dir $work/dir$r -- $build/apps/$app -n 240 --nb 16 -g 2x\$SLURM_JOB_NUM_NODES -i 1000000 -p slurm --stop-file $work/stop$r"
  job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J recipe -N 2-4 -w "node[1-3]" --ntasks-per-node=2 --time=30 -o "$out" "$work/job$r.sh")
  for _ in $(seq 1 3000); do grep -Eq "^\[pdgemm\] iter +3 " "$out" 2>/dev/null && break; sleep 0.1; done
  if ! grep -Eq "^\[pdgemm\] iter +3 " "$out" 2>/dev/null; then
    echo "round $r: job $job did not compute within 300 s ($(sq -j "$job" -o '%T %r %N'); nodes: $("$CLUSTER" exec head sinfo -h -N -o '%N %t' | tr '\n' ' ')); the round is run again" >&2
    cat "$out" >&2 2>/dev/null
    for name in recipe rigid blocker "malleable-expand-$job"; do "$CLUSTER" exec head scancel --name="$name" >/dev/null 2>&1; done
    until_true 60 eval '[[ -z $("$CLUSTER" exec head squeue -h -o %i) ]]' >/dev/null
    ((++retries <= 3)) || fail "three rounds did not start"
    ((--r))
    continue
  fi
  # a start node
  rigid=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -o /dev/null --wrap "sleep 900")
  t0=$(seen_at "$out" "^\[slurm\] shrinking to give back node[23] ")
  node=$(grep -m1 -oE "shrinking to give back node[23]" "$out" | awk '{print $NF}')
  t1=$(until_true 60 not_in_job "$node") || fail "round $r: $node stayed in the job"
  t2=$(until_true 60 running_on "$rigid" "$node") || fail "round $r: the rigid job did not run on $node"
  echo "$r,start,$node,$(echo "$t1 - $t0" | bc -l),$(echo "$t2 - $t0" | bc -l)" | tee -a "$rows"
  # Slurm alone: a job waiting for node4 (-w) starts there once the blocker ends, from the
  # blocker's cancellation to it running (the malleable job does not race for node4: a
  # job waits for it)
  probe=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -w node4 -o /dev/null --wrap "sleep 120")
  until_true 30 eval '[[ $(sq -j "$probe" -o %T) == PENDING ]]' >/dev/null || fail "round $r: the probe job is not waiting"
  ts=$(now)
  "$CLUSTER" exec head scancel "$blocker"
  t3=$(until_true 60 running_on "$probe" node4) || fail "round $r: the probe job did not run on node4"
  echo "$r,slurm-start,node4,,$(echo "$t3 - $ts" | bc -l)" | tee -a "$rows"
  "$CLUSTER" exec head scancel "$probe"
  # an expander's node: the job grows onto a freed node by an expander job (whichever node
  # Slurm and the policy choose; a round where it does not within 240 s has no such row)
  grown=
  for _ in $(seq 1 12000); do
    grown=$(grep -oE "growing onto node[0-9]+ by joining" "$out" | tail -1 | awk '{print $3}')
    [[ -n $grown ]] && grep -Eq "expand [0-9x]+ -> [0-9x]+ .*join" "$out" && break
    grown=
    sleep 0.02
  done
  if [[ -n $grown ]]; then
    exp=$(grep -oE "submitted expander job\(s\) [0-9]+ on $grown" "$out" | tail -1 | awk '{print $4}')
    n0=$(grep -c "shrinking to give back" "$out")
    rigid2=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -w "$grown" -o /dev/null --wrap "sleep 900")
    for _ in $(seq 1 6000); do (($(grep -c "shrinking to give back" "$out") > n0)) && break; sleep 0.02; done
    t4=$(now)
    node=$(grep -oE "shrinking to give back node[0-9]+" "$out" | tail -1 | awk '{print $NF}')
    kind=expander
    [[ $node == "$grown" ]] || { kind=start; exp=; }
    t5=$(until_true 60 not_in_job "$node" "$exp") || fail "round $r: $node stayed in the job"
    t6=$(until_true 60 running_on "$rigid2" "$node") || fail "round $r: the rigid job did not run on $node"
    echo "$r,$kind,$node,$(echo "$t5 - $t4" | bc -l),$(echo "$t6 - $t4" | bc -l)" | tee -a "$rows"
  else
    echo "round $r: the job did not grow within 240 s: no expander give-back this round" >&2
  fi
  touch "$work/stop$r"
  slurm_wait_end "$job" 120
  grep -Eq "result check.*OK" "$out" || fail "round $r: the result check"
  for name in rigid blocker "malleable-expand-$job"; do "$CLUSTER" exec head scancel --name="$name" >/dev/null 2>&1; done
  until_true 60 eval '[[ -z $("$CLUSTER" exec head squeue -h -o %i) ]]' >/dev/null
done
cat "$rows"
python3 - "$rows" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def med(kind, col):
    v = [float(r[col]) for r in rows if r["kind"] == kind and r[col]]
    return f"{statistics.median(v):.2f} s (n={len(v)}, {min(v):.2f}-{max(v):.2f})" if v else "-"
print(f"load {sys.argv[2]}")
for kind in ("start", "expander"):
    print(f"{kind:9s} node: decision -> out of the job {med(kind, 'decision_to_out_s')}, "
          f"-> the waiting job running there {med(kind, 'decision_to_rigid_s')}")
print(f"Slurm alone: a job waiting for a node, from its holder's cancellation -> running {med('slurm-start', 'decision_to_rigid_s')}")
PY
[[ -n $outfile ]] && cp "$rows" "$outfile"
exit 0
}

#@case rpc
# slurmctld's load from the Slurm policy as jobs multiply, measured with
# slurmctld's own counters (sdiag): on the emulated cluster (cluster.sh up 5 --slurm, under
# the cluster lock), for each mode and each number of jobs K, K one-node jobs run
# pdgemm_resizable -p slurm (1 process, RESIZE_SLURM_MAX_NODES=1: the policy looks at
# Slurm every interval and never acts), then `sdiag -r`, a window of W seconds, `sdiag`:
# the RPCs slurmctld received in the window, less those of the same window with no job
# (slurmd registrations, the bench's own sdiag), per job per minute.
#   alone   RESIZE_SLURM_SHARED=off: every job asks Slurm itself (the policy:
#           scontrol show job, sinfo, squeue each interval)
#   shared  the cluster view cached in a shared directory: one squeue + one sinfo per
#           interval for the whole cluster, whichever job finds the view stale
#   slurm.sh rpc [--jobs "1 2 4"] [--window 30] [--interval 2] [--modes "alone shared"]
#                      [--build-dir DIR] [--out FILE]
# Prints a table (also to FILE, TSV): mode, jobs, window_s, rpcs, rpcs_per_min (less the
# no-job baseline), rpcs_per_job_minute; and each run's RPCs by message type.
case_rpc() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build jobs_list="1 2 4" window=30 interval=2 modes="alone shared" out=""
while (($#)); do
  case $1 in
    --jobs) jobs_list=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "slurm.sh rpc: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $build = /* ]] || build=$here/$build
[[ -x $build/apps/pdgemm_resizable ]] || { echo "slurm.sh rpc: build pdgemm_resizable first ($build)" >&2; exit 1; }
command -v slurmctld >/dev/null || { echo "slurm.sh rpc: Slurm is not installed" >&2; exit 1; }
cluster=$here/scripts/cluster.sh
work=$(mktemp -d)
exec 9>/run/malleable-cluster.lock
flock -w 3600 9 || { echo "slurm.sh rpc: the cluster lock stayed busy for an hour" >&2; exit 1; }
trap '"$cluster" exec head scancel --name=rpcbench >/dev/null 2>&1 || true; "$cluster" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$cluster" down >/dev/null
"$cluster" up 5 --slurm 9>&- >/dev/null
head_do() { "$cluster" exec head "$@"; }

# The sum of sdiag's "by message type" counts.
rpcs() { awk '/by message type/{on=1; next} /by user/{on=0} on && /count:/{sub(/.*count:/, ""); sub(/ .*/, ""); s += $1} END{print s + 0}' "$1"; }

run() {  # <mode> <jobs>
  local mode=$1 k=$2 i shared=off
  [[ $mode == shared ]] && shared=$work/shared-$k
  cat >"$work/job.sh" <<EOF
#!/bin/bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24
export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$here/scripts/cluster-rsh
export RESIZE_SLURM_INTERVAL=$interval RESIZE_SLURM_MAX_NODES=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_SHARED=$shared
exec mpirun --oversubscribe --bind-to none -n 1 $build/apps/pdgemm_resizable -n 96 --nb 32 -g 1x1 -i 100000000 -p slurm -q --stop-file $work/stop
EOF
  chmod +x "$work/job.sh"
  rm -f "$work/stop"
  for ((i = 0; i < k; ++i)); do
    (cd "$work" && head_do sbatch --parsable -J rpcbench -N 1 -o "$work/$mode-$k-$i.out" "$work/job.sh") >/dev/null
  done
  # Every job running and its policy past its first look (a "[slurm]" line).
  for ((i = 0; i < 600; ++i)); do
    [[ $(head_do squeue -h -n rpcbench -t R -o %i | wc -l) -eq $k && $(cat "$work/$mode-$k-"*.out 2>/dev/null | grep -c '^\[slurm\] job') -eq $k ]] && break
    sleep 0.2
  done
  ((i < 600)) || { echo "slurm.sh rpc: the $k jobs did not start" >&2; cat "$work/$mode-$k-"*.out >&2; exit 1; }
  sleep 3
  measure "$mode" "$k"
  touch "$work/stop"
  for ((i = 0; i < 300; ++i)); do [[ -z $(head_do squeue -h -n rpcbench -o %i) ]] && break; sleep 0.2; done
  head_do scancel --name=rpcbench >/dev/null 2>&1 || true
}

measure() {  # <mode> <jobs>
  head_do sdiag -r >/dev/null
  sleep "$window"
  head_do sdiag >"$work/sdiag-$1-$2.txt"
  local n
  n=$(rpcs "$work/sdiag-$1-$2.txt")
  echo "$n" >"$work/count-$1-$2"
  echo "== $1, $2 job(s): $n RPCs in $window s" >&2
  awk '/by message type/{on=1; next} /by user/{on=0} on && /count:/' "$work/sdiag-$1-$2.txt" | sed 's/ ave_time.*//' >&2
}

measure none 0
for mode in $modes; do
  for k in $jobs_list; do run "$mode" "$k"; done
done
base=$(cat "$work/count-none-0")
{
  printf 'mode\tjobs\twindow_s\trpcs\trpcs_per_min\trpcs_per_job_minute\n'
  printf 'none\t0\t%s\t%s\t%.1f\t-\n' "$window" "$base" "$(echo "$base * 60 / $window" | bc -l)"
  for mode in $modes; do
    for k in $jobs_list; do
      n=$(cat "$work/count-$mode-$k")
      awk -v m="$mode" -v k="$k" -v w="$window" -v n="$n" -v b="$base" \
        'BEGIN{r = (n - b) * 60 / w; printf "%s\t%d\t%s\t%d\t%.1f\t%.1f\n", m, k, w, n, r, r / k}'
    done
  done
} | tee "${out:-/dev/null}"
}

#@case sdiag
# slurmctld's load with malleable-arbiterd, measured with sdiag on the emulated cluster
# (scripts/cluster.sh; root; takes the cluster lock, brings it up with Slurm and takes
# everything down at the end). The daemon runs in the head's namespace (interval 2 s,
# TCP on the cluster's private address 10.213.7.10:7070); N fake jobs (held Slurm jobs,
# so that they exist in Slurm, each asked about by a client thread in node1) send one
# arbitrate request a second each for SECONDS. All the clients share node1's address, one
# client to the per-client cap (--max-connections-per-uid, 8 by default; on a site each
# job's node is its own client): the cap is raised to 128 so that it turns none away.
# For each of: no clients, 4, 16, 64 clients, sdiag before and after, and the RPCs
# slurmctld served in between by message type.
# With accounting (slurmdbd and its MariaDB server) when they are installed, so that the
# daemon's sacctmgr is real; sdiag counts slurmctld's RPCs only, not slurmdbd's.
# Usage: scripts/bench/slurm.sh sdiag [BUILD_DIR] [SECONDS]   (docs/guide/arbiter-operation.md, "Slurm's load")
case_sdiag() {
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$SRC/build}
SECS=${2:-60}
source "$SRC/tests/cluster/harness.sh"
[[ -x $BUILD/cluster/malleable-arbiterd ]] || { echo "no $BUILD/cluster/malleable-arbiterd" >&2; exit 1; }
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed"; exit 77; }
acct=(--no-accounting)
acct_note="without accounting"
if command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
  acct=()
  acct_note="with accounting (slurmdbd)"
fi
cluster_begin 2 --slurm "${acct[@]}"
eval "export $("$CLUSTER" slurm-env)"
work=$(mktemp -d)
chmod 755 "$work"
dpid=
finish() {
  local rc=$?
  [[ -n $dpid ]] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
  "$CLUSTER" exec head scancel --name=arbsdiag >/dev/null 2>&1 || true
  rm -rf "$work"
  cluster_end $rc
}
trap finish EXIT
MS=/run/malleable-cluster/slurm/munge/munge.socket
ids=()
for ((i = 0; i < 64; ++i)); do
  ids+=("$("$CLUSTER" exec head sbatch --parsable -H -J arbsdiag -N 1 -o /dev/null --wrap 'sleep 600')")
done
"$CLUSTER" exec head "$BUILD/cluster/malleable-arbiterd" --socket "$work/arbiter.sock" --state-dir "$work/state" \
  --listen 10.213.7.10:7070 --munge-socket "$MS" --interval 2 --slurm-user 0 \
  --max-connections-per-uid 128 2>"$work/arbiterd.log" &
dpid=$!
for ((i = 0; i < 100; ++i)); do grep -q "listening on" "$work/arbiterd.log" && break; sleep 0.1; done
grep -q "listening on" "$work/arbiterd.log" || { cat "$work/arbiterd.log"; exit 1; }

# sdiag's RPCs by message type: "NAME count" lines.
rpcs() {
  "$CLUSTER" exec head sdiag | awk '/^Remote Procedure Call statistics by message type/ {on=1; next}
    /^Remote Procedure Call statistics by user/ {on=0} on && /count:/ {
      for (i = 1; i <= NF; ++i) if ($i ~ /^count:/) { sub("count:", "", $i); print $1, $i } }'
}
echo "sdiag on the emulated cluster (2 nodes, Slurm $(sinfo -V | awk '{print $2}') $acct_note); daemon interval 2 s; $SECS s per row; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '| clients | requests | slurmctld RPCs | per second | by type |\n|---|---|---|---|---|\n'
for n in 0 4 16 64; do
  rpcs >"$work/before"
  if ((n == 0)); then
    sleep "$SECS"
    asked="0"
  else
    asked=$("$CLUSTER" exec node1 python3 "$SRC/scripts/bench/slurm_report.py" sdiag-clients 10.213.7.10 7070 "$MS" "$SECS" \
            "${ids[@]:0:$n}")
  fi
  rpcs >"$work/after"
  awk -v n="$n" -v secs="$SECS" -v asked="$asked" 'NR == FNR {b[$1] = $2; next} {d = $2 - b[$1]; if (d > 0) { t += d; s = s sprintf("%s %d; ", $1, d) } }
    END {printf "| %d | %s | %d | %.2f | %s |\n", n, asked, t, t / secs, s}' "$work/before" "$work/after"
done
echo "the daemon's Slurm queries: $(grep -c 'asking Slurm failed' "$work/arbiterd.log" || true) failed; QOS: $(grep -c 'QOS limits' "$work/arbiterd.log" || true) log lines"
grep 'QOS limits' "$work/arbiterd.log" | head -3 || true
}

#@case resubmit-cost
# What growing by resubmission costs on a Slurm without job expansion (the emulated
# cluster, `cluster.sh up 3 --slurm --no-expansion`): a malleable PDGEMM job G under
# BUILD/bin/malleable-run --hosts slurm starts on node1 and grows onto node2 by restart into a
# new allocation (malleable-run submits its successor with --dependency=afterany and ends).
# Two rounds, each on a fresh cluster:
#   idle   nothing else runs: the seconds from G's checkpoint for the restart to the
#          successor running, and to its first iteration on the larger grid;
#   queued a rigid 2-node job W is submitted the moment G decides to grow (after the
#          policy checked that nobody waits): Slurm starts W on the nodes G frees (W was
#          submitted before the successor, so it is ahead of it), and the successor waits
#          for W's whole run: its queue position is lost.
# Polls Slurm and G's output every 0.1 s; prints one line per round:
#   resubmit ROUND ckpt_to_running_s ckpt_to_iteration_s successor_waited_for_W(0/1) old_id new_id
# Takes the cluster lock (at most a few minutes).
#   scripts/bench/slurm.sh resubmit-cost [--build-dir build] [--out FILE]
case_resubmit_cost() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build out=
while (($#)); do
  case $1 in
    --build-dir) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) _help resubmit-cost; exit 0 ;;
    *) echo "slurm.sh resubmit-cost: unknown option $1" >&2; exit 2 ;;
  esac
done
CLUSTER=$here/scripts/cluster.sh
work=$(mktemp -d)
exec 9>/run/malleable-cluster.lock
flock -w 900 9 || { echo "slurm.sh resubmit-cost: the cluster lock is busy" >&2; exit 1; }
trap '"$CLUSTER" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
S() { "$CLUSTER" exec head "$@"; }
now() { date +%s.%N; }
round() {  # <idle|queued>
  local mode=$1 g t_ckpt= t_run= t_iter= succ= w= waited=0 t0
  "$CLUSTER" down >/dev/null
  "$CLUSTER" up 3 --slurm --no-expansion 9>&- >/dev/null
  eval "export $("$CLUSTER" slurm-env)"
  rm -rf "$work/ck" && mkdir -p "$work/ck"
  {
    echo "#!/bin/bash"
    echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
    echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off SLURM_CONF=$SLURM_CONF"
    echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
    echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$here/scripts/cluster-rsh"
    echo "export RESIZE_SLURM_INTERVAL=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2 RESIZE_SLURM_SHARED=$work/shared-$mode"
    echo "exec $build/bin/malleable-run -n 2 --hosts slurm -- $build/apps/pdgemm_resizable -n 400 --nb 32 -g 1x2 -i 1000000 -p slurm --checkpoint $work/ck --keep 2 --stop-file $work/stop"
  } >"$work/g.sh"
  chmod +x "$work/g.sh"
  rm -f "$work/stop" "$work/g.out"
  g=$(cd "$work" && S sbatch --parsable -J grow -N 1 -w node1 --ntasks-per-node=2 -o "$work/g.out" "$work/g.sh")
  t0=$SECONDS
  while ((SECONDS - t0 < 240)); do
    if [[ $mode == queued && -z $w ]] && grep -q "growing by restart into a new allocation" "$work/g.out" 2>/dev/null; then
      w=$(cd "$work" && S sbatch --parsable -J W -N 2 -t 1 -o /dev/null --wrap "sleep 20")
    fi
    if [[ -z $t_ckpt ]] && grep -q "resize by restart after iteration" "$work/g.out" 2>/dev/null; then t_ckpt=$(now); fi
    if [[ -z $succ ]]; then succ=$(grep -o "submitted job [0-9]*" "$work/g.out" 2>/dev/null | head -1 | awk '{print $3}' || true); fi
    if [[ -n $succ && -z $t_run && $(S squeue -h -j "$succ" -o %T 2>/dev/null) == RUNNING ]]; then t_run=$(now); fi
    if [[ -n $w && -n $succ && -z $t_run && $(S squeue -h -j "$w" -o %T 2>/dev/null) == RUNNING ]]; then waited=1; fi
    if [[ -n $t_run ]] && grep -Eq "\] iter +[0-9]+ +grid 2x2" "$work/g.out" 2>/dev/null; then t_iter=$(now); break; fi
    sleep 0.1
  done
  touch "$work/stop"
  [[ -n $t_ckpt && -n $t_run && -n $t_iter ]] || { cat "$work/g.out" >&2; echo "slurm.sh resubmit-cost: round $mode did not complete" >&2; return 1; }
  local line
  line="resubmit $mode $(awk -v a="$t_ckpt" -v b="$t_run" 'BEGIN{printf "%.1f", b - a}') $(awk -v a="$t_ckpt" -v b="$t_iter" 'BEGIN{printf "%.1f", b - a}') $waited $g $succ"
  echo "$line"
  [[ -z $out ]] || echo "$line" >>"$out"
  for ((t0 = 0; t0 < 100; ++t0)); do [[ -z $(S squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.3; done
}
[[ -z $out ]] || echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); resubmit ROUND ckpt_to_running_s ckpt_to_iteration_s successor_waited_for_W old new" >"$out"
round idle
round queued
}

#@case adaptive
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
#   scripts/bench/slurm.sh adaptive [--quick] [--reps R] [--out DIR] [--img FILE]
#                                   [--build-dir DIR] [--no-cgroup] [--keep DIR]
# --quick: fewer iterations and one repetition (a smoke test, about a minute).
# --no-cgroup: skip part 2 (needs root and a cgroup v1 cpu controller at /sys/fs/cgroup/cpu).
# The resize history is kept in memory per run (RESIZE_HISTORY=off), so that runs
# do not learn from each other or from earlier runs on the machine; a calibrated cost model
# (malleable-calibrate, $REDIST_COST_MODEL) is used if present and recorded as such.
case_adaptive() {
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
    -h | --help) _help adaptive; exit 0 ;;
    *) echo "slurm.sh adaptive: unknown option $1" >&2; exit 2 ;;
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
  echo "slurm.sh adaptive: life_hetero_resizable not built (cmake --build <dir> --target life_hetero_resizable; --build-dir DIR)" >&2
  exit 1
}
command -v mpiexec >/dev/null || { echo "slurm.sh adaptive: mpiexec not found" >&2; exit 1; }

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
    rmdir "$cg" 2>/dev/null || echo "slurm.sh adaptive: could not remove $cg" >&2
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
  [[ -n $pid ]] || { echo "slurm.sh adaptive: rank 1's pid not found, no quota applied" >&2; return 1; }
}
if ((cgroup)); then
  if [[ ! -w /sys/fs/cgroup/cpu/cgroup.procs || ! -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
    echo "slurm.sh adaptive: no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu: part 2 skipped" >&2
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
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
