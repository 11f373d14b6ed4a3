#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# malleable-run --on-failure restart with several hosts lost at once,
# without MPI: MALLEABLE_MPIEXEC is a stand-in that runs no program. The "job" fails (exit
# 137) and prints what Open MPI would (one lost node named, or none); the stand-in's probe
# (`-n 1 --host H:1 true`) fails for the hosts in FAKE_DEAD. The launcher must leave out
# every lost host (named or not answering) and relaunch on the others with
# -g PxQ --restart-levels; with no host lost it must not restart.
# Usage: launcher_lost_hosts.sh <source dir>
set -euo pipefail
SRC=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
cat >"$work/mpiexec" <<'EOS'
#!/usr/bin/env bash
n=$2; host=$4; shift 4
if [[ $1 == true ]]; then  # the launcher's probe of one host
  [[ " $FAKE_DEAD " == *" ${host%%:*} "* ]] && { echo "no answer from ${host%%:*}" >&2; exit 1; }
  exit 0
fi
echo "JOB $n processes on $host: $*"
[[ $* == *--restart-levels* ]] && exit 0
[[ -n $FAKE_SAY ]] && echo "$FAKE_SAY"
exit 137
EOS
chmod +x "$work/mpiexec"
run() {  # <dead hosts> <what mpiexec says> -> output in $out, status in $rc
  rc=0
  out=$(FAKE_DEAD=$1 FAKE_SAY=$2 MALLEABLE_MPIEXEC="$work/mpiexec" "${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}" -n 8 \
    --hosts hA,hB,hC,hD --on-failure restart -- prog -g 2x4 --checkpoint-local 1 2>&1) || rc=$?
  echo "$out"
}
echo "== hC named by mpiexec, hA does not answer"
run "hA hC" "mpiexec noticed that process rank 4 with PID 9 on node hC exited on signal 9 (Killed)."
[[ $rc -eq 0 ]] || fail "exit $rc"
grep -q "lost node hA hC (status 137; .*on node hC exited on signal 9.*hA does not answer" <<<"$out" || fail "not hA and hC lost"
grep -q "^JOB 4 processes on hB:2,hD:2: prog --checkpoint-local 1 -g 2x2 --restart-levels$" <<<"$out" ||
  fail "not relaunched on hB,hD 2x2 with --restart-levels"
echo "== none named (the remote shells gone), hB and hD do not answer"
run "hB hD" "ORTE was unable to reliably start one or more daemons."
[[ $rc -eq 0 ]] || fail "exit $rc"
grep -q "lost node hB hD (status 137; hB does not answer .*; hD does not answer" <<<"$out" || fail "not hB and hD lost"
grep -q "^JOB 4 processes on hA:2,hC:2: prog --checkpoint-local 1 -g 2x2 --restart-levels$" <<<"$out" ||
  fail "not relaunched on hA,hC"
echo "== none named, every host answers: not a lost node, no restart"
run "" ""
[[ $rc -eq 137 ]] || fail "expected the job's status 137, got $rc"
grep -q "names no lost node among hA,hB,hC,hD and every one answers: not restarting" <<<"$out" || fail "no refusal said"
[[ $(grep -c "^JOB" <<<"$out") -eq 1 ]] || fail "relaunched"
echo "PASS"
