#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Giving a node back under the one recipe (docs/guide/slurm.md; docs/measurements/cluster.md,
# "Giving a node back"): on the emulated cluster (scripts/cluster.sh up 4 --slurm
# --no-expansion), R rounds, each a fresh malleable PDGEMM job submitted by the recipe
# (sbatch -N 2-4, malleable-run --job-dir, -p slurm) while node4 is busy, so that it starts
# on node[1-3], one launch per node. In each round:
#   start:    a rigid job (1 node) waits; the job gives back a node it started on (a
#             shrink off it, then scontrol update NodeList=)
#   expander: node4 frees, the job grows onto it by an expander job; a rigid job waits
#             again; the job gives the expander's node back (its launch leaves, the
#             expander ends)
# For each give-back: from the decision (the job's line "[slurm] shrinking to give back",
# seen by polling its output every 20 ms) to the node out of the job (squeue: not in the
# job's node list, and for an expander, the expander ended) and to the waiting rigid job
# running there. Slurm's own latency beside it: a rigid job submitted while a node is idle,
# from its submission to it running (the same squeue polling).
# Usage: slurm_giveback.sh [--rounds R] [--build-dir DIR] [--out FILE]
# Prints one CSV row per give-back (round,kind,node,decision_to_out_s,decision_to_rigid_s)
# and one per Slurm-alone start (round,slurm-start,node,,submit_to_running_s), then the
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
run=${MALLEABLE_RUN:-$here/scripts/malleable-run}
app=pdgemm_resizable
rows=$work/rows.csv
echo "round,kind,node,decision_to_out_s,decision_to_rigid_s" >"$rows"
now() { date +%s.%N; }
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
  blocker=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J blocker -N 1 -w node4 -o /dev/null --wrap "sleep 900")
  until_true 60 running_on "$blocker" node4 >/dev/null
  out=$work/job$r.out
  slurm_job_script "$work/job$r.sh" \
    "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_SHARED=off BLACS_DYN_JOIN_TIMEOUT=90" \
    "exec $run --job-dir $work/dir$r -- $build/apps/$app -n 240 --nb 16 -g 2x3 -i 1000000 -p slurm --stop-file $work/stop$r"
  job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J recipe -N 2-4 --ntasks-per-node=2 --time=30 -o "$out" "$work/job$r.sh")
  wait_for "$out" "^\[pdgemm\] iter +3 " 120 >/dev/null
  # a start node
  rigid=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -o /dev/null --wrap "sleep 900")
  t0=$(seen_at "$out" "^\[slurm\] shrinking to give back node[23] ")
  node=$(grep -m1 -oE "shrinking to give back node[23]" "$out" | awk '{print $4}')
  t1=$(until_true 60 not_in_job "$node")
  t2=$(until_true 60 running_on "$rigid" "$node")
  echo "$r,start,$node,$(echo "$t1 - $t0" | bc -l),$(echo "$t2 - $t0" | bc -l)" >>"$rows"
  # Slurm alone: node4 idle, a rigid job submitted onto it (the malleable job may want it
  # too: it is stopped from growing by the rigid job taking it first, or not; only the
  # rigid job's start is timed)
  "$CLUSTER" exec head scancel "$blocker"
  until_true 60 eval '[[ $("$CLUSTER" exec head sinfo -h -n node4 -o %t) == idle ]]' >/dev/null
  ts=$(now)
  probe=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -w node4 -o /dev/null --wrap "sleep 1")
  t3=$(until_true 60 running_on "$probe" node4)
  echo "$r,slurm-start,node4,,$(echo "$t3 - $ts" | bc -l)" >>"$rows"
  # an expander's node: node4 frees again, the job grows onto it, a rigid job waits
  wait_for "$out" "expand [0-9x]+ -> [0-9x]+ .*join" 240 >/dev/null
  exp=$(grep -oE "submitted expander job\(s\) [0-9]+ on node4" "$out" | tail -1 | awk '{print $4}')
  n0=$(grep -c "shrinking to give back" "$out")
  rigid2=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -o /dev/null --wrap "sleep 900")
  for _ in $(seq 1 6000); do (($(grep -c "shrinking to give back" "$out") > n0)) && break; sleep 0.02; done
  t4=$(now)
  node=$(grep -oE "shrinking to give back node[0-9]+" "$out" | tail -1 | awk '{print $4}')
  [[ $node == node4 ]] || fail "round $r: the job gave back $node, not the expander's node4"
  t5=$(until_true 60 not_in_job node4 "$exp")
  t6=$(until_true 60 running_on "$rigid2" node4)
  echo "$r,expander,node4,$(echo "$t5 - $t4" | bc -l),$(echo "$t6 - $t4" | bc -l)" >>"$rows"
  touch "$work/stop$r"
  slurm_wait_end "$job" 120
  grep -Eq "result check.*OK" "$out" || fail "round $r: the result check"
  "$CLUSTER" exec head scancel --name=rigid >/dev/null 2>&1
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
print(f"Slurm alone: a job submitted onto an idle node -> running {med('slurm-start', 'decision_to_rigid_s')}")
PY
[[ -n $outfile ]] && cp "$rows" "$outfile"
exit 0
