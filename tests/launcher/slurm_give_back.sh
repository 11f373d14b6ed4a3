#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# malleable-run --hosts slurm with a stand-in Slurm on PATH (squeue answering in the
# arbiter's format, scontrol update recording the node list, sinfo): a resize by restart
# onto fewer nodes gives the others back ("gave node2 back to Slurm; job 7 now holds node1")
# and relaunches on what is kept, its Slurm environment naming it; a give-back Slurm refuses
# ends the job with status 4 saying so; a node Slurm reports down is left out.
# Usage: slurm_give_back.sh <malleable-run>
set -uo pipefail
RUN=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
mkdir -p "$work/bin" "$work/ck"
cat >"$work/bin/mpiexec" <<'EOS'
#!/usr/bin/env bash
n=$2 host=$4
shift 4
echo "JOB $n on $host: nodelist=$SLURM_JOB_NODELIST tasks=$SLURM_TASKS_PER_NODE run_hosts=$MALLEABLE_RUN_HOSTS"
if [[ $* != *--restart* ]]; then
  printf '%s\nhosts %s\n' "$NEXT" "$NEXT_HOSTS" >"$WORK/ck/app.next"
  exit 4
fi
exit 0
EOS
# squeue -h -j 7 -o FORMAT: the job's record in that format, its nodes from $WORK/nodes
cat >"$work/bin/squeue" <<'EOS'
#!/usr/bin/env python3
import os, re, sys
fmt = sys.argv[sys.argv.index("-o") + 1]
nodes = open(os.environ["WORK"] + "/nodes").read().strip()
f = {"i": "7", "T": "RUNNING", "D": str(len(nodes.split(","))), "Q": "1", "V": "2026-11-27T10:00:00",
     "S": "2026-11-27T10:00:01", "L": "1:00:00", "U": str(os.getuid()), "N": nodes, "Y": nodes.split(",")[0],
     "P": "box", "q": "normal", "r": "None", "j": "job", "k": "(null)"}
out = re.sub(r"%(\.?)(\d*)([A-Za-z])", lambda m: (f.get(m.group(3), "")[: int(m.group(2))].ljust(int(m.group(2))) if m.group(2) else f.get(m.group(3), "")), fmt)
print(out)
EOS
cat >"$work/bin/scontrol" <<'EOS'
#!/usr/bin/env bash
[[ $1 == update && $2 == JobId=7 && $3 == NodeList=* ]] || { echo "unexpected scontrol $*" >&2; exit 1; }
[[ -n ${REFUSE:-} ]] && { echo "scontrol: error: Access/permission denied" >&2; exit 1; }
echo "${3#NodeList=}" >"$WORK/nodes"
EOS
printf '#!/usr/bin/env bash\ncase " $* " in *" node2 "*) echo "${NODE2_STATE:-alloc}" ;; *) echo alloc ;; esac\n' >"$work/bin/sinfo"
chmod +x "$work/bin/"*
launch() {  # <env...>: malleable-run on node1,node2 (8 processes), the job asks for NEXT on NEXT_HOSTS
  echo node1,node2 >"$work/nodes"
  rm -f "$work/ck/app.next"
  env PATH="$work/bin:$PATH" WORK="$work" SLURM_JOB_ID=7 SLURM_JOB_NODELIST='node[1-2]' SLURM_TASKS_PER_NODE='4(x2)' \
    MALLEABLE_MPIEXEC=mpiexec "$@" "$RUN" -n 8 --hosts slurm -- app --checkpoint "$work/ck" 2>&1
}

out=$(launch NEXT="2 2 $work/ck/app-000003.h5" NEXT_HOSTS=node1); rc=$?
echo "$out"
((rc == 0)) || fail "the shrink by restart ended with status $rc"
grep -qx "malleable-run: gave node2 back to Slurm; job 7 now holds node1" <<<"$out" || fail "no give-back message"
grep -qx "JOB 4 on node1:4: nodelist=node1 tasks=4 run_hosts=node1" <<<"$out" || fail "the relaunch is not on node1 alone"
[[ $(cat "$work/nodes") == node1 ]] || fail "Slurm was not asked to keep node1 only"

out=$(launch NEXT="2 2 $work/ck/app-000003.h5" NEXT_HOSTS=node1 REFUSE=1); rc=$?
echo "$out"
((rc == 4)) || fail "a refused give-back ended with status $rc, not 4"
grep -q "malleable-run: giving node2 back to Slurm failed (.*Access/permission denied.*); the job holds node\[1-2\]" <<<"$out" ||
  fail "no message naming the refused give-back"
grep -q "^JOB 4" <<<"$out" && fail "relaunched although Slurm kept the nodes"

out=$(launch NEXT="2 4 $work/ck/app-000003.h5" NEXT_HOSTS=node1,node2 NODE2_STATE=down); rc=$?
echo "$out"
((rc == 0)) || fail "the relaunch without the down node ended with status $rc"
grep -q "malleable-run: Slurm took node2 (down) back from job 7 during the resize (it holds node\[1-2\]): relaunching on node1 with 4 processes, grid 2x2, instead of 2x4" <<<"$out" ||
  fail "the down node was not left out"
grep -qx "JOB 4 on node1:4: nodelist=node1 tasks=4 run_hosts=node1" <<<"$out" || fail "the relaunch is not on node1 alone"
echo "PASS"
