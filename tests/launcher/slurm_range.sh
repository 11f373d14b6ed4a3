#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# malleable-run --job-dir inside a Slurm job reads the node range the job asked for back from
# Slurm and gives the program RESIZE_POLICY=slurm, RESIZE_SLURM_MIN_NODES and _MAX_NODES,
# with a stand-in Slurm on PATH (scontrol show job / write batch_script, sacct's SubmitLine)
# and a stand-in mpiexec (no Open MPI: no ompi-server) that prints what the program gets:
# the batch script's -N; the command line's winning over it (asked again while slurmdbd has
# no record of the job yet); a variable the user set kept;
# no -N, Slurm answering nothing and a value that is no range each said and nothing guessed;
# a script whose -N holds a command substitution read as text, never run.
# Usage: slurm_range.sh <malleable-run>
set -uo pipefail
RUN=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
mkdir -p "$work/bin"
cat >"$work/bin/mpiexec" <<'EOS'
#!/usr/bin/env bash
[[ $1 == --version ]] && { echo "stand-in mpiexec"; exit 0; }
echo "PROGRAM RESIZE_POLICY=${RESIZE_POLICY-unset} MIN=${RESIZE_SLURM_MIN_NODES-unset} MAX=${RESIZE_SLURM_MAX_NODES-unset}"
EOS
cat >"$work/bin/scontrol" <<'EOS'
#!/usr/bin/env bash
case "$1 $2" in
  "show job") echo "JobId=7 JobName=x y UserId=u(1) JobState=RUNNING NumNodes=1 Command=$WORK/job.sh WorkDir=$WORK StdOut=$WORK/o" ;;
  "write batch_script") [[ -n ${SCRIPT-} ]] || { echo "scontrol: error: no script" >&2; exit 1; }; printf '%b' "$SCRIPT" ;;
  *) echo "unexpected scontrol $*" >&2; exit 1 ;;
esac
EOS
cat >"$work/bin/sacct" <<'EOS'
#!/usr/bin/env bash
[[ -n ${SUBMIT-} ]] || { echo "sacct: error: Slurm accounting storage is disabled" >&2; exit 1; }
# EMPTY_FIRST=K: the first K answers empty (slurmdbd has no record of the job yet)
k=$(($(cat "$WORK/sacct.calls" 2>/dev/null || echo 0) + 1))
echo $k >"$WORK/sacct.calls"
((k <= ${EMPTY_FIRST:-0})) && exit 0
echo "$SUBMIT"
EOS
chmod +x "$work/bin/"*
n=0
launch() {  # <env...>: the recipe's malleable-run in job 7 on node1
  n=$((n + 1))
  (cd "$work" && env PATH="$work/bin:$PATH" WORK="$work" SLURM_JOB_ID=7 SLURM_JOB_NODELIST=node1 SLURM_TASKS_PER_NODE=2 \
    MALLEABLE_MPIEXEC=mpiexec "$@" "$RUN" --job-dir "$work/jd$n" -- app 2>&1)
}
expect() {  # <output> <line>
  grep -qxF -- "$2" <<<"$1" || { echo "$1"; fail "no line '$2'"; }
}

out=$(launch SCRIPT='#!/bin/bash\n#SBATCH -N 2-4 --ntasks-per-node=2\nexec malleable-run\n')
expect "$out" "malleable-run: Slurm job 7 (-N 2-4, the batch script): RESIZE_POLICY=slurm RESIZE_SLURM_MIN_NODES=2 RESIZE_SLURM_MAX_NODES=4 for the program"
expect "$out" "PROGRAM RESIZE_POLICY=slurm MIN=2 MAX=4"

out=$(launch SCRIPT='#SBATCH -N 2-4\n' SUBMIT="sbatch --parsable -N 1-8 ./job.sh -N 9")
expect "$out" "malleable-run: Slurm job 7 (-N 1-8, the sbatch command line): RESIZE_POLICY=slurm RESIZE_SLURM_MIN_NODES=1 RESIZE_SLURM_MAX_NODES=8 for the program"
expect "$out" "PROGRAM RESIZE_POLICY=slurm MIN=1 MAX=8"

# a record that reaches slurmdbd 2 s after the start: asked again until it is there
rm -f "$work/sacct.calls"
out=$(launch SCRIPT='#SBATCH -N 2-4\n' SUBMIT="sbatch -N 3-5 job.sh" EMPTY_FIRST=2)
expect "$out" "PROGRAM RESIZE_POLICY=slurm MIN=3 MAX=5"
[[ $(cat "$work/sacct.calls") == 3 ]] || fail "sacct was asked $(cat "$work/sacct.calls") times, not 3"

out=$(launch SCRIPT='#SBATCH -N 2-4\n' RESIZE_SLURM_MAX_NODES=3 RESIZE_POLICY=fixed)
expect "$out" "malleable-run: Slurm job 7 (-N 2-4, the batch script): RESIZE_SLURM_MIN_NODES=2 for the program"
expect "$out" "PROGRAM RESIZE_POLICY=fixed MIN=2 MAX=3"

out=$(launch SCRIPT='#!/bin/bash\n#SBATCH -n 4\n')
grep -q "^malleable-run: cannot read the node range Slurm job 7 asked for (no -N in its batch script or command line): set RESIZE_SLURM_MIN_NODES and RESIZE_SLURM_MAX_NODES" <<<"$out" ||
  { echo "$out"; fail "no -N was not said"; }
expect "$out" "malleable-run: Slurm job 7: RESIZE_POLICY=slurm for the program"
expect "$out" "PROGRAM RESIZE_POLICY=slurm MIN=unset MAX=unset"

out=$(launch)
grep -q "^malleable-run: cannot read the node range Slurm job 7 asked for (scontrol: .*no script; sacct: .*accounting storage is disabled)" <<<"$out" ||
  { echo "$out"; fail "Slurm's silence was not said with its reasons"; }
expect "$out" "PROGRAM RESIZE_POLICY=slurm MIN=unset MAX=unset"

out=$(launch SCRIPT="#SBATCH -N \$(touch $work/pwned)-4\n")
grep -q "^malleable-run: cannot read the node range Slurm job 7 asked for (-N '\$(touch' is no node count" <<<"$out" ||
  { echo "$out"; fail "a -N that is no range was not said"; }
[[ ! -e $work/pwned ]] || fail "the script's -N was run"
expect "$out" "PROGRAM RESIZE_POLICY=slurm MIN=unset MAX=unset"
echo "PASS"
