#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One running Slurm job changes size four times, with the commands the Slurm policy uses
# (cluster/src/slurm/commands.cpp): grow by an expansion allocation handed over and merged
# (salloc --dependency=expand, scontrol update NumNodes=0 / NumNodes=ALL), shrink by
# scontrol update NodeList=, grow again, shrink again. With accounting through slurmdbd
# (cluster.sh's default) every change must be accepted and Slurm must show the new size.
# Mode no-accounting: Slurm 22.05 without slurmdbd accepts a first shrink and refuses the
# second ("the DB index is being set"): the limit accounting removes.
# Usage: slurm_resize_repeated.sh <source dir> <build dir> [accounting|no-accounting]
SRC=$1 BUILD=$2 MODE=${3:-accounting}
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs it)"; exit 77; }
opts=()
if [[ $MODE == accounting ]]; then
  command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null ||
    { echo "SKIPPED: slurmdbd or mariadbd is not installed (scripts/setup.sh installs slurmdbd mariadb-server)"; exit 77; }
else
  opts=(--no-accounting)
fi
cluster_begin 4 --slurm --slots 1 "${opts[@]}"
# Slurm's commands in a folder of the test's own: `scontrol update ... NumNodes=` writes
# slurm_job_<id>_resize.{sh,csh} into its working folder (the test's is the build tree).
work=$(mktemp -d)
trap 'rc=$?; rm -rf "$work"; cluster_end $rc' EXIT
S() { (cd "$work" && "$CLUSTER" exec head "$@"); }
acct=$(S scontrol show config | awk -F= '/^AccountingStorageType/{gsub(/ /, "", $2); print $2}')
echo "AccountingStorageType=$acct"
if [[ $MODE == accounting ]]; then
  [[ $acct == accounting_storage/slurmdbd ]] || fail "accounting is $acct, not slurmdbd"
fi
if [[ $MODE == accounting ]]; then
  start=node1 steps=("grow 2" "shrink node1" "grow 1" "shrink node1")
else
  # without accounting an expansion's merge is answered with the DB-index message even
  # as the first change (and may be performed): two shrinks show the limit unambiguously
  start=node[1-3] steps=("shrink node[1-2]" "shrink node1")
fi
job=$(S sbatch --parsable -N "$(S scontrol show hostnames "$start" | wc -l)" -w "$start" -J resized -o /dev/null --wrap "sleep 300")
for ((i = 0; i < 60; ++i)); do
  [[ $(S squeue -h -j "$job" -o %T) == RUNNING ]] && break
  sleep 0.5
done
[[ $(S squeue -h -j "$job" -o %T) == RUNNING ]] || fail "job $job did not start"
size() { S squeue -h -j "$job" -o %D; }
nodes() { S squeue -h -j "$job" -o %N; }
# grow <n nodes>: 0 when Slurm accepted every command and the job holds n more nodes
grow() {
  local before got other out
  before=$(size)
  got=$(S salloc -N "$1" --no-shell --immediate=10 -J expand --dependency=expand:"$job" 2>&1) || { echo "$got"; return 1; }
  other=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$got")
  [[ -n $other ]] || { echo "$got"; return 1; }
  S scontrol update JobId="$other" NumNodes=0 || return 1
  if ! out=$(S scontrol update JobId="$job" NumNodes=ALL 2>&1); then
    echo "merge refused: $out"
    S scancel "$other" || true
    return 1
  fi
  [[ $(size) == $((before + $1)) ]] || { echo "size $(size) after growing from $before by $1"; return 1; }
}
shrink() {  # <node list to keep>
  local out
  out=$(S scontrol update JobId="$job" NodeList="$1" 2>&1) || { echo "shrink refused: $out"; return 1; }
  [[ $(nodes) == "$1" ]] || { echo "holds $(nodes) after shrinking to $1"; return 1; }
}
done_n=0
for step in "${steps[@]}"; do
  # shellcheck disable=SC2086
  if out=$($step 2>&1); then
    done_n=$((done_n + 1))
    echo "change $done_n ($step): accepted, job $job now on $(nodes) ($(size) node(s))"
  else
    echo "change $((done_n + 1)) ($step): refused: $out"
    break
  fi
done
if [[ $MODE == accounting ]]; then
  ((done_n == ${#steps[@]})) || fail "with slurmdbd the job changed size $done_n time(s), not ${#steps[@]}"
else
  ((done_n == 1)) || fail "without accounting the job changed size $done_n time(s); Slurm 22.05 allows one"
  grep -q "DB index" <<<"$out" || fail "the second change was refused for another reason: $out"
fi
S scancel "$job"
echo "PASS"
