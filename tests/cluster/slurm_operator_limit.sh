#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The right the arbiter's --extend-limits needs (docs/guide/arbiter.md, "Time limits that
# follow the size"), on the emulated cluster's Slurm with its accounting (slurmdbd): a user
# who is not the job's owner, root or SlurmUser cannot raise another user's job's TimeLimit
# (`scontrol update JobId=J TimeLimit=M` refused), and can once accounting makes it an
# operator (`sacctmgr add user U account=root AdminLevel=Operator`); the limit read back
# with `scontrol show job`. The test makes the user (and removes it).
# Usage: slurm_operator_limit.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
for tool in setpriv useradd userdel sacctmgr; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is needed"; exit 77; }
done
slurm_begin "oplimit" 2
U=mallc-op-limit
. "$SRC/tests/support/test_users.sh"
test_user_make $U /nonexistent || exit 1
finish() {  # the user out of accounting and removed, then slurm_end's work with this status
  local rc=$?
  "$CLUSTER" exec head scancel --name=oplimit >/dev/null 2>&1 || true
  "$CLUSTER" exec head sacctmgr -i delete user $U >/dev/null 2>&1 || true
  test_users_remove
  rm -rf "$work"
  cluster_end $rc
}
trap finish EXIT
chmod 755 "$work"
slurm_job_script "$work/job.sh" "sleep 300"
chmod 755 "$work/job.sh"
job=$("$CLUSTER" exec head sbatch --parsable -J oplimit -N 1 --time=10 -o "$work/job.out" "$work/job.sh")
limit() { "$CLUSTER" exec head scontrol show job "$job" | grep -o 'TimeLimit=[^ ]*'; }
as_u() { "$CLUSTER" exec head setpriv --reuid=$U --regid="$(id -g $U)" --clear-groups env SLURM_CONF="$SLURM_CONF" "$@"; }
[[ $(limit) == TimeLimit=00:10:00 ]] || fail "job $job submitted with --time=10 shows $(limit)"
if said=$(as_u scontrol update JobId="$job" TimeLimit=15 2>&1); then fail "a plain user raised root's job's limit: $(limit)"; fi
echo "a plain user's raise refused: $said"
[[ $(limit) == TimeLimit=00:10:00 ]] || fail "the refused raise changed the limit: $(limit)"
"$CLUSTER" exec head sacctmgr -i add user $U account=root AdminLevel=Operator >/dev/null ||
  fail "sacctmgr could not make $U an operator"
said=$(as_u scontrol update JobId="$job" TimeLimit=15 2>&1) || fail "the operator's raise was refused: $said"
[[ $(limit) == TimeLimit=00:15:00 ]] || fail "after the operator's raise: $(limit)"
echo "the operator's raise made: job $job TimeLimit 10 -> 15 min"
echo "PASS"
