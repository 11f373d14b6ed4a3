#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster's Slurm: several malleable jobs under one Slurm,
# arbitrating through the shared directory (cluster view, ledger, decision logs).
# Mode expansion (cluster.sh up 5 --slurm, permit_job_expansion): three malleable PDGEMM
# jobs, A and B on 2 nodes each, C on 1 (2 processes a node, at most 2 nodes each; they
# spread over their allocations). A rigid job asking for 2 nodes arrives: A and B can each
# give 1, C nothing (its minimum), so A and B each give exactly 1 (offers, then shares):
# no over-shrink. While the rigid job waits, neither takes a node back (no oscillation).
# When it has ended, the 2 idle nodes are raced for by all three (each wants 1): they go
# to the best bids (equal payoff here: the lower job ids), one each to two jobs, never one
# node to two. (The jobs give back before they grow, not after: Slurm 22.05 without an
# accounting database refuses to shrink a job that merged an expansion, see docs/reference/apps.md.)
# Mode no-expansion (cluster.sh up 3 --slurm --no-expansion): the policy finds no
# permit_job_expansion (scontrol show config), and a malleable job run by malleable-run
# --hosts slurm grows by restart: checkpoint, the job script submitted again onto its
# node and the idle one, continued there from the checkpoint.
# Checked: Slurm's own view every 0.5 s (no node in two jobs at once), the decision logs
# (one JSON line per decision with its rule and reason), and every job's result check.
# Usage: slurm_many_jobs.sh <source dir> <build dir> [expansion|no-expansion]
SRC=$1 BUILD=$2 MODE=${3:-expansion}
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
if [[ $MODE == expansion ]]; then cluster_begin 5 --slurm; else cluster_begin 3 --slurm --no-expansion; fi
work=$(mktemp -d)
# On failure the outputs, logs and ledger are kept (the path is printed).
# shellcheck disable=SC2154  # rc is set inside the trap
trap 'rc=$?; "$CLUSTER" exec head scancel --user=root >/dev/null 2>&1 || true; if [[ $rc -ne 0 ]]; then echo "kept $work"; else rm -rf "$work"; fi; cluster_end $rc' EXIT
head_do() { "$CLUSTER" exec head "$@"; }
job_script() {  # <name> <command...>
  local name=$1
  {
    echo "#!/bin/bash"
    echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
    echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off"
    echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
    echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$SRC/scripts/cluster-rsh"
    # Open MPI's session directories in a folder of the job's own: the emulated nodes share
    # the host's /tmp, and two mpiruns starting in the same second on one node race to
    # create its /tmp/ompi.<node>.<uid>; the daemons inherit TMPDIR through cluster-rsh.
    # The job removes it (a job Slurm ends gets SIGTERM: bash would die of it without its
    # EXIT trap). In $work: the job a growth by restart submits inherits its submitter's
    # TMPDIR, which Slurm's step daemon makes again, and the test's cleanup removes it.
    echo "export TMPDIR=\$(mktemp -d $work/job-tmp.XXXXXX); trap 'rm -rf \"\$TMPDIR\"' EXIT; trap 'exit 143' TERM"
    echo "export RESIZE_SLURM_INTERVAL=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2 RESIZE_SLURM_SHARED=$work/shared"
    echo "echo \"job \$SLURM_JOB_ID ($1) on \$SLURM_JOB_NODELIST\""
    shift
    echo "$*"
  } >"$work/$name.sh"
  chmod +x "$work/$name.sh"
}
submit() { (cd "$work" && head_do sbatch --parsable -J "$1" -N "$2" -o "$work/$1.out" "${@:3}" "$work/$1.sh"); }
timeline() {  # appends Slurm's view now: t id name state nodes nodelist
  local t
  t=$(date +%s.%N)
  head_do squeue -h -o '%i|%j|%T|%D|%N' 2>/dev/null | awk -F'|' -v t="$t" 'NF == 5 {printf "%s\t%s\t%s\t%s\t%s\t%s\n", t, $1, $2, $3, $4, $5}' >>"$work/timeline.tsv"
}
watch_until() {  # <seconds> <condition command...>: records the timeline until the condition holds
  local end=$((SECONDS + $1))
  shift
  while ((SECONDS < end)); do
    timeline
    "$@" && return 0
    sleep 0.5
  done
  return 1
}
pdgemm="mpirun --oversubscribe --bind-to none -n 2 $BUILD/apps/pdgemm_resizable -n 400 --nb 32 -g 1x2 -i 1000000 -p slurm"

if [[ $MODE == no-expansion ]]; then
  job_script grow "$BUILD/bin/malleable-run -n 2 --hosts slurm -- $BUILD/apps/pdgemm_resizable -n 400 --nb 32 -g 1x2 -i 1000000 -p slurm --checkpoint $work/ck --keep 2 --stop-file $work/stop"
  mkdir -p "$work/ck"
  first=$(submit grow 1 --ntasks-per-node=2)
  continued() { grep -q "continues from" "$work/grow.out" 2>/dev/null && grep -Eq "\] iter +[0-9]+ +grid 2x2" "$work/grow.out"; }
  watch_until 150 continued || { cat "$work/grow.out"; fail "the job did not continue on 2 nodes"; }
  touch "$work/stop"
  watch_until 60 bash -c "[[ -z \$($CLUSTER exec head squeue -h -o %i) ]]" || fail "the jobs did not end"
  out=$work/grow.out
  grep -E "^\[slurm\]|malleable-run:|resize by restart" "$out"
  grep -q "\[slurm\] job $first: .*growth by restart into a new allocation (no permit_job_expansion); from scontrol show config" "$out" ||
    fail "the policy did not say it grows by restart"
  grep -q "\[slurm\] growing by restart into a new allocation with node[23] (Slurm does not permit job expansion; acquire:" "$out" ||
    fail "no growth by restart decided"
  grep -Eq "malleable-run: no job expansion in this Slurm: submitted job [0-9]+ on node1,node[23] \(4 processes, grid 2x2\)" "$out" ||
    fail "malleable-run did not submit the larger job"
  second=$(grep -o "submitted job [0-9]*" "$out" | head -1 | awk '{print $3}')
  awk -F'\t' -v j="$second" '$2 == j && $4 == "RUNNING" && $5 == 2 {ok=1} END {exit !ok}' "$work/timeline.tsv" ||
    fail "Slurm never showed job $second running on 2 nodes"
  awk -F'\t' -v a="$first" -v b="$second" '$4 == "RUNNING" {r[$1] = r[$1] " " $2} END {for (t in r) if (index(r[t], " " a) && index(r[t], " " b)) exit 1}' \
    "$work/timeline.tsv" || fail "the old and the new job ran at once"
  grep -q '"rule":"acquire".*"by_restart":true' "$work/shared/log/$first.jsonl" || fail "the decision log has no growth by restart"
  c=$(grep -o "result check.*" "$out" | tail -1) || fail "no result check"
  echo "$c"
  grep -q OK <<<"$c" || fail "the result check failed"
  echo "PASS"
  exit 0
fi

printf '' >"$work/timeline.tsv"
for n in A B C; do job_script "$n" "$pdgemm --stop-file $work/stop-$n"; done
job_script R "mpirun --oversubscribe --bind-to none -n 4 $BUILD/apps/pdgemm_resizable -n 400 --nb 32 -g 2x2 -i 40 -q"
declare -A id
id[A]=$(submit A 2 --ntasks-per-node=2)
id[B]=$(submit B 2 --ntasks-per-node=2)
id[C]=$(submit C 1 --ntasks-per-node=2)
spread() { grep -q "grid 2x2" "$work/A.out" 2>/dev/null && grep -q "grid 2x2" "$work/B.out" 2>/dev/null; }
watch_until 90 spread || { tail -n 5 "$work"/[ABC].out; fail "A and B did not spread over their nodes"; }
id[R]=$(submit R 2)
rigid_done() { [[ -z $(head_do squeue -h -j "${id[R]}" -o %i 2>/dev/null) ]] && grep -q "result check" "$work/R.out" 2>/dev/null; }
watch_until 150 rigid_done || { tail -n 5 "$work"/*.out; fail "the rigid job did not run"; }
t_rigid=$(date +%s.%N)
regrown() { [[ $(cat "$work"/shared/log/*.jsonl | awk -v t="$t_rigid" -F'"t":' '{split($2, a, ","); if (a[1] > t) print}' | grep -c '"rule":"acquire"') -ge 2 ]]; }
watch_until 90 regrown || { tail -n 5 "$work"/[ABC].out; fail "the idle nodes were not taken again after the rigid job"; }
# Three more decisions of each job after the regrowth (lines of their decision logs: the
# events themselves, not a wait): a job that took nodes again would show it below.
t_regrown=$(date +%s.%N)
decided_again() {
  local n
  for n in A B C; do
    [[ $(awk -v t="$t_regrown" -F'"t":' '{split($2, a, ","); if (a[1] > t) print}' "$work/shared/log/${id[$n]}.jsonl" | wc -l) -ge 3 ]] ||
      return 1
  done
}
watch_until 60 decided_again || { tail -n 5 "$work"/[ABC].out; fail "the jobs did not decide again after the regrowth"; }
timeline
touch "$work/stop-A" "$work/stop-B" "$work/stop-C"
watch_until 60 bash -c "[[ -z \$($CLUSTER exec head squeue -h -o %i) ]]" || fail "the jobs did not end"
for n in A B C; do grep -E "^\[slurm\]" "$work/$n.out" | sed "s/^/$n: /"; done
python3 - "$work" "${id[A]}" "${id[B]}" "${id[C]}" "${id[R]}" <<'PY'
import json, os, sys
work, a, b, c, r = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(work, "timeline.tsv")) if l.strip()]
def hosts(spec):
    out = []
    if spec.startswith("node[") and spec.endswith("]"):
        for part in spec[5:-1].split(","):
            lo, _, hi = part.partition("-")
            out += ["node%d" % k for k in range(int(lo), int(hi or lo) + 1)]
    elif spec.startswith("node"):
        out += spec.split(",")
    return out
by_t = {}
for t, jid, name, state, n, nl in rows:
    if state == "RUNNING":
        by_t.setdefault(t, []).append((jid, hosts(nl)))
for t, jobs in by_t.items():
    seen = {}
    for jid, hs in jobs:
        for h in hs:
            assert h not in seen, f"at {t} node {h} is in jobs {seen[h]} and {jid}"
            seen[h] = jid
print(f"timeline: {len(by_t)} views of Slurm, no node in two jobs at once")
r_start = min(float(t) for t, jid, name, state, n, nl in rows if jid == r and state == "RUNNING")
logs = {}
for j in (a, b, c):
    logs[j] = [json.loads(l) for l in open(os.path.join(work, "shared", "log", j + ".jsonl"))]
    assert logs[j], f"job {j} logged no decision"
    for d in logs[j]:
        assert d["rule"] and d["why"] and d["job"] == j, d
print("decisions: " + ", ".join(f"{j}: {len(logs[j])}" for j in logs) + "; every one with a rule and a reason")
r_end = max(float(t) for t, jid, name, state, n, nl in rows if jid == r and state == "RUNNING")
given = [(j, d) for j in logs for d in logs[j] if d["plan"] == "give-back" and d["for"] == r]
nodes = sorted(n for j, d in given for n in d["nodes"])
print("given back for the rigid job:", [(j, d["rule"], d["nodes"]) for j, d in given])
assert len(nodes) == 2 and len(set(nodes)) == 2, f"{len(nodes)} node(s) given back for a job of 2: {nodes}"
assert sorted(j for j, d in given) == sorted([a, b]), "A and B should give one node each, C none"
for j, d in given:
    later = [e for e in logs[j] if d["t"] < e["t"] < r_start and e["plan"] in ("acquire", "use-held")]
    assert not later, f"job {j} took nodes again before the rigid job started: {later}"
print("no over-shrink, no oscillation")
after = [(j, d) for j in logs for d in logs[j] if d["plan"] == "acquire" and d["t"] > r_end]
print("acquisitions after the rigid job:", [(j, d["nodes"]) for j, d in after])
got = [n for j, d in after for n in d["nodes"]]
assert len(got) == len(set(got)) == 2 and len({j for j, d in after}) == 2, f"2 idle nodes, one each to two jobs: {after}"
PY
for n in A B C R; do
  c=$(grep -o "result check.*" "$work/$n.out" | tail -1) || fail "job $n: no result check"
  echo "$n: $c"
  grep -q OK <<<"$c" || fail "job $n: the result check failed"
done
echo "PASS"
