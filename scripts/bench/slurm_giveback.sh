#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
# Usage: slurm_giveback.sh [--rounds R] [--build-dir DIR] [--out FILE]
# Prints one CSV row per give-back (round,kind,node,decision_to_out_s,decision_to_rigid_s)
# and one per Slurm-alone start (round,slurm-start,node,,cancel_to_running_s), then the
# medians; with --out, writes the rows there.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build} rounds=5 outfile=
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) outfile=$2; shift 2 ;;
    -h | --help) sed -n '2,22p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "slurm_giveback.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "slurm_giveback.sh: --rounds must be 1..99" >&2; exit 2; }
[[ $build = /* ]] || build=$here/$build
[[ -x $build/apps/pdgemm_resizable ]] || { echo "slurm_giveback.sh: no $build/apps/pdgemm_resizable (build first)" >&2; exit 2; }
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
