#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster's Slurm (4 nodes): a growth that would delay a higher-priority
# waiting job does not happen. A rigid job R holds node2 until M has taken 3 decisions (the
# test lets it end then); a malleable PDGEMM job M
# starts on node1 (RESIZE_SLURM_MAX_NODES=4, growth whenever nodes are idle); a job P of 3
# nodes not on node1, submitted before M and so ahead of any growth request of M's, waits
# for node2: the backfill plan starts it on node[2-4] when R ends. node3 and node4 stand idle
# meanwhile; growing onto them would push P's start back by M's whole run. Checked from
# Slurm's view every 0.5 s: M holds node1 alone for as long as P waits, P starts once R has
# ended, and M grows onto idle nodes after P (so it could grow). Every decision of M is
# logged with its rule and reason; the result checks.
# Usage: slurm_priority_plan.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
cluster_begin 4 --slurm
work=$(mktemp -d)
# shellcheck disable=SC2154  # rc is set inside the trap
trap 'rc=$?; "$CLUSTER" exec head scancel --user=root >/dev/null 2>&1 || true; if [[ $rc -ne 0 ]]; then echo "kept $work"; else rm -rf "$work"; fi; cluster_end $rc' EXIT
head_do() { "$CLUSTER" exec head "$@"; }
{
  echo "#!/bin/bash"
  echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
  echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off"
  echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
  echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$SRC/scripts/cluster-rsh"
  echo "export TMPDIR=\$(mktemp -d $work/job-tmp.XXXXXX); trap 'rm -rf \"\$TMPDIR\"' EXIT; trap 'exit 143' TERM"
  echo "export RESIZE_SLURM_INTERVAL=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=4 RESIZE_SLURM_SHARED=$work/shared"
  # M's launcher runs on node1 alone (its allocation): its growth's spawn starts the
  # daemons on the nodes Slurm grants (add-host); a launch onto a node M does not hold is
  # refused (scripts/cluster-rsh).
  echo "mpirun --oversubscribe --bind-to none -n 2 $BUILD/apps/pdgemm_resizable -n 400 --nb 32 -g 1x2 -i 1000000 -p slurm --stop-file $work/stop"
} >"$work/M.sh"
chmod +x "$work/M.sh"
submit() { (cd "$work" && head_do sbatch --parsable -o "$work/$1.out" -J "$@"); }
printf '' >"$work/timeline.tsv"
timeline() {
  local t
  t=$(date +%s.%N)
  head_do squeue -h -o '%i|%j|%T|%D|%N' 2>/dev/null | awk -F'|' -v t="$t" 'NF == 5 {printf "%s\t%s\t%s\t%s\t%s\t%s\n", t, $1, $2, $3, $4, $5}' >>"$work/timeline.tsv"
}
watch_until() {  # <seconds> <condition command...>
  local end=$((SECONDS + $1))
  shift
  while ((SECONDS < end)); do
    timeline
    "$@" && return 0
    sleep 0.5
  done
  return 1
}
# R holds node2 until M has decided a few times while P waits: a file, not a time (with
# "sleep 25", a loaded M could have started deciding only after R had ended).
job_r=$(submit R -N 1 -w node2 -t 5 --wrap "while [ ! -e $work/r-go ]; do sleep 0.1; done")
running() { [[ $(head_do squeue -h -j "$1" -o %T 2>/dev/null) == RUNNING ]]; }
watch_until 30 running "$job_r" || fail "the rigid job R did not start"
job_p=$(submit P -N 3 -x node1 -t 2 --wrap "sleep 5")
pending() { [[ $(head_do squeue -h -j "$1" -o %T 2>/dev/null) == PENDING ]]; }
watch_until 10 pending "$job_p" || fail "P did not wait"
job_m=$(submit M -N 1 -w node1 --ntasks-per-node=2 "$work/M.sh")
watch_until 30 running "$job_m" || fail "M did not start"
decided() { (($(cat "$work/shared/log/$job_m.jsonl" 2>/dev/null | wc -l) >= 3)); }
watch_until 90 decided || { tail -n 20 "$work/M.out"; fail "M took no 3 decisions while P waited"; }
touch "$work/r-go"
watch_until 90 running "$job_p" || { tail -n 20 "$work/M.out"; fail "P did not start"; }
t_p=$(date +%s.%N)
grown() { awk -F'\t' -v j="$job_m" -v t="$t_p" '$2 == j && $4 == "RUNNING" && $5 > 1 && $1 > t {ok=1} END {exit !ok}' "$work/timeline.tsv"; }
watch_until 90 grown || { tail -n 20 "$work/M.out"; fail "M did not grow after P"; }
# Stopped once the spawned processes compute (a stop during the spawn cancels it).
more_procs() { grep -Eq '\( *([3-9]|[1-9][0-9]+) procs\)' "$work/M.out"; }
watch_until 90 more_procs || { tail -n 20 "$work/M.out"; fail "M's new processes did not compute"; }
touch "$work/stop"
watch_until 60 bash -c "[[ -z \$($CLUSTER exec head squeue -h -o %i) ]]" || fail "the jobs did not end"
grep -E "^\[slurm\]" "$work/M.out"
python3 - "$work" "$job_m" "$job_p" "$job_r" <<'PY'
import json, os, sys
work, m, p, r = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(work, "timeline.tsv")) if l.strip()]
pending = [float(t) for t, j, name, state, n, nl in rows if j == p and state == "PENDING"]
p_start = min(float(t) for t, j, name, state, n, nl in rows if j == p and state == "RUNNING")
r_end = max(float(t) for t, j, name, state, n, nl in rows if j == r and state == "RUNNING")
assert pending, "Slurm never showed P waiting"
m_while = {(n, nl) for t, j, name, state, n, nl in rows if j == m and state == "RUNNING" and float(t) < p_start}
print(f"P waited {p_start - min(pending):.1f} s, started {p_start - r_end:.1f} s after R's last view; M meanwhile: {m_while}")
assert m_while == {("1", "node1")}, f"M held more than node1 while P waited: {m_while}"
assert p_start > r_end, "P started before R ended?"
logs = [json.loads(l) for l in open(os.path.join(work, "shared", "log", m + ".jsonl"))]
before = [d for d in logs if d["t"] < p_start]
assert before, "M took no decision while P waited"
assert all(d["plan"] not in ("acquire",) for d in before), [d for d in before if d["plan"] == "acquire"]
print("M's decisions while P waited:", sorted({(d["rule"], d["why"][:90]) for d in before}))
after = [d for d in logs if d["plan"] == "acquire" and d["t"] > p_start]
assert after, "M acquired nothing after P started"
print("M's growth after P:", [(d["rule"], d["nodes"]) for d in after][:3])
PY
c=$(grep -o "result check.*" "$work/M.out" | tail -1) || fail "M: no result check"
echo "M: $c"
grep -q OK <<<"$c" || fail "M: the result check failed"
echo "PASS"
