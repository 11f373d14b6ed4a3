#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# malleable-run --hosts slurm after an expansion merged node2 into a job that
# started on node1, without MPI or Slurm: stand-ins for mpiexec, scontrol, squeue and sinfo. The
# job's environment is the one Slurm set at its start (SLURM_JOB_NODELIST=node1,
# SLURM_TASKS_PER_NODE=4); the first launch asks for a resize by restart onto node1,node2
# (2x4, as the spawn fallback after a growth does). Open MPI's Slurm allocator places
# processes only on the nodes SLURM_JOB_NODELIST names (seen: all 8 on node1, node2 running
# nothing, and the Slurm policy growing onto it again at every relaunch): the relaunch must
# see the allocation it runs on, node1,node2 with 4 tasks each, and MALLEABLE_RUN_HOSTS.
# Usage: launcher_slurm_env.sh <source dir>
set -euo pipefail
SRC=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
mkdir -p "$work/bin" "$work/ck"
cat >"$work/bin/mpiexec" <<'EOS'
#!/usr/bin/env bash
shift 3  # --oversubscribe --bind-to none (MALLEABLE_MPIEXEC), then -n N --host H PROGRAM...
n=$2 host=$4
echo "JOB $n on $host: nodelist=$SLURM_JOB_NODELIST nodes=$SLURM_NNODES tasks=$SLURM_TASKS_PER_NODE cpus=$SLURM_JOB_CPUS_PER_NODE ntasks=$SLURM_NTASKS run_hosts=${MALLEABLE_RUN_HOSTS-unset}"
if [[ $* != *--restart* ]]; then
  printf '2 4 %s/ck/app-000003.h5\nhosts node1,node2\n' "$WORK" >"$WORK/ck/app.next"
  exit 4
fi
exit 0
EOS
cat >"$work/bin/scontrol" <<'EOS'
#!/usr/bin/env bash
case "$1 $2" in
  "show hostnames") case $3 in node1) echo node1 ;; "node[1-2]" | node1,node2) printf 'node1\nnode2\n' ;; esac ;;
  "show job") echo "JobId=7 JobName=x JobState=RUNNING NumNodes=2 NodeList=node[1-2] BatchHost=node1" ;;
  *) echo "unexpected scontrol $*" >&2; exit 1 ;;
esac
EOS
printf '#!/usr/bin/env bash\necho idle\n' >"$work/bin/sinfo"
# squeue -h -j 7 -o FORMAT: the job's record in that format (the launcher reads it as the
# arbiter does), holding node[1-2] after the merge
cat >"$work/bin/squeue" <<'EOS'
#!/usr/bin/env python3
import os, re, sys
fmt = sys.argv[sys.argv.index("-o") + 1]
f = {"i": "7", "T": "RUNNING", "D": "2", "Q": "1", "V": "2026-11-27T10:00:00", "S": "2026-11-27T10:00:01",
     "L": "1:00:00", "U": str(os.getuid()), "N": "node[1-2]", "Y": "node1", "P": "box", "q": "normal",
     "r": "None", "j": "job", "k": "(null)"}
width = lambda m: f.get(m.group(3), "")[: int(m.group(2))].ljust(int(m.group(2)))
print(re.sub(r"%(\.?)(\d*)([A-Za-z])", lambda m: width(m) if m.group(2) else f.get(m.group(3), ""), fmt))
EOS
chmod +x "$work/bin/"*
rc=0
out=$(PATH="$work/bin:$PATH" WORK=$work SLURM_JOB_ID=7 SLURM_JOB_NODELIST=node1 SLURM_NODELIST=node1 SLURM_NNODES=1 \
  SLURM_JOB_NUM_NODES=1 SLURM_TASKS_PER_NODE=4 SLURM_JOB_CPUS_PER_NODE=8 SLURM_NTASKS=4 MALLEABLE_MPIEXEC="mpiexec --oversubscribe --bind-to none" \
  "${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}" -n 4 --hosts slurm -- app -g 2x2 --checkpoint "$work/ck" 2>&1) || rc=$?
echo "$out"
((rc == 0)) || fail "malleable-run ended with status $rc"
grep -q "^JOB 4 on node1:4: nodelist=node1 nodes=1 tasks=4 cpus=8 ntasks=4 run_hosts=node1$" <<<"$out" ||
  fail "the first launch's environment is not the allocation node1 with 4 tasks"
grep -q "^JOB 8 on node1:4,node2:4: nodelist=node1,node2 nodes=2 tasks=4(x2) cpus=8(x2) ntasks=8 run_hosts=node1,node2$" <<<"$out" ||
  fail "the relaunch onto node1,node2 does not see them in its Slurm environment (Open MPI would place all 8 on node1)"
echo "PASS"
