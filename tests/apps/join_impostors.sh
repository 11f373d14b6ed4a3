#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growing by joining holds against strangers (docs/guide/threat-model.md, "Growing by
# joining"). A PDGEMM job (malleable-run --job-dir, 2x2, BLACS_DYN_JOIN_TIMEOUT=60,
# BLACS_DYN_JOIN_PROOF_TIMEOUT=3) meets three fake launches of 2 processes
# (tests/blacs-dyn/runtime/join_impostor.cpp), each of which passes the checks made before
# the connection and is connected to: one that stays silent, one that sends garbage where
# its challenge belongs, and one that claims the job's uid and program with a made-up
# proof. Each is dropped by the proof deadline or its proof, logged by what it is (pid,
# host, the uid it claimed) in the job's stderr and DIR/join.log, and the job goes on on
# 2x2. The silent one costs the job the proof deadline, not the join timeout (dropped
# well within 30 s of the connection: a behaviour bound, not a speed target), and, asking
# again under a new id from the same process, is refused without a connection, naming
# its peer (pid, host). Then a real launch joins the job. A fake job then connects to a real
# launch: the launch sends its challenge and, the fake's proof being wrong, a decline, and
# ends naming it; the bytes the fake job received hold neither the secret nor any proof.
# Usage: join_impostors.sh <source dir> <pdgemm_resizable> <mpiexec> <join_impostor>
set -uo pipefail
SRC=$1 prog=$2 mpiexec=$3 imp=$4
work=$(mktemp -d)
chmod 755 "$work"
run=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
export MALLEABLE_MPIEXEC=${MALLEABLE_MPIEXEC:-"$mpiexec --oversubscribe --bind-to none"} OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
export BLACS_DYN_JOIN_TIMEOUT=60 BLACS_DYN_JOIN_PROOF_TIMEOUT=3
pids=()
cleanup() {
  local rc=$? p
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  [[ -n ${server:-} ]] && kill "$server" 2>/dev/null
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAILED: $*"; for f in "$work"/*.log "$work"/*/join.log; do [[ -f $f ]] && { echo "== $f"; cat "$f"; }; done; exit 1; }
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; growing by joining needs it)"; exit 77; }
wait_for() {  # <file> <regex> <seconds>
  local i
  for ((i = 0; i < $3 * 20; ++i)); do grep -Eq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no line '$2' in $1 within $3 s"
}
iterations() { grep -c "^\[pdgemm\] iter" "$work/job.log"; }
goes_on() {  # <what>: two more iterations on 2x2, no expansion
  local k
  k=$(iterations)
  for _ in $(seq 1 600); do (($(iterations) >= k + 2)) && break; sleep 0.05; done
  (($(iterations) >= k + 2)) || fail "the job stopped after $1"
  grep -Eq "expand 2x2 -> [0-9x]+ \(" "$work/job.log" && fail "the job grew after $1"
  echo "ok: $1: dropped, the job goes on on 2x2"
}

dir=$work/job
timeout 600 "$run" --job-dir "$dir" -n 4 -- "$prog" -n 240 --nb 16 -g 2x2 -i 1000000 -p fixed \
  --stop-file "$work/stop" >"$work/job.log" 2>&1 &
job=$!
pids+=("$job")
wait_for "$work/job.log" "^\[pdgemm\] iter +2 " 120
if grep -q "the job cannot be joined: this MPI" "$work/job.log"; then
  echo "SKIPPED: $(grep -m1 -o 'the job cannot be joined: .*' "$work/job.log")"
  exit 77
fi
uid=$(id -u)

# A fake launch: connected to, then dropped with a message naming it and what it claimed.
fake() {  # <mode> <regex of the refusal> <what>
  local id=fake-$1 p
  "$mpiexec" --oversubscribe --ompi-server "file:$dir/server.uri" -n 2 "$imp" launch "$dir" "$id" "$1" \
    >"$work/$id.log" 2>&1 &
  p=$!
  pids+=("$p")
  wait_for "$work/$id.log" "accepted the job's connection" 60
  wait_for "$dir/join.log" "refused $id: launch $id(, process [01])? \(pid [0-9]+ on [^,]+, uid $uid claimed\).*$2" 60
  wait_for "$work/job.log" "blacs-dyn: refused launch $id[ ,].*$2" 20
  goes_on "$3"
  kill -9 "$p" 2>/dev/null
  wait "$p" 2>/dev/null
}
# A silent fake launch: dropped at the proof deadline (3 s), not the join timeout (60 s);
# the same process asking again under a new id is refused without a connection.
id=fake-again
"$mpiexec" --oversubscribe --ompi-server "file:$dir/server.uri" -n 2 "$imp" launch "$dir" "$id" again \
  >"$work/$id.log" 2>&1 &
p=$!
pids+=("$p")
k0=$(iterations)
wait_for "$work/$id.log" "accepted the job's connection" 60
t0=$(date +%s.%N)
wait_for "$dir/join.log" "refused $id: launch $id(, process [01])? \(pid [0-9]+ on [^,]+, uid $uid claimed\).*did not open the hand-shake \(its challenge\) within 3 s of the connection \(the proof deadline, BLACS_DYN_JOIN_PROOF_TIMEOUT\)" 60
t1=$(date +%s.%N)
wait_for "$work/job.log" "blacs-dyn: refused launch $id[ ,].*within 3 s of the connection \(the proof deadline" 20
wait_for "$work/$id.log" "impostor $id, process 0: dropped [0-9.]+ s after the connection" 20
dropped=$(sed -n "s/^impostor $id, process 0: dropped \([0-9.]*\) s after the connection.*/\1/p" "$work/$id.log")
seen=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
awk -v d="$dropped" 'BEGIN { exit !(d < 30) }' ||
  fail "the silent fake launch held the job $dropped s (proof deadline 3 s, join timeout 60 s)"
echo "ok: a silent fake launch is dropped $dropped s after the connection (the test saw $seen s; proof deadline 3 s, join timeout 60 s)"
wait_for "$work/$id.log" "impostor $id-2, process 0: asks again as pid [0-9]+ on " 60
ipid=$(sed -n "s/^impostor $id-2, process 0: asks again as pid \([0-9]*\) on .*/\1/p" "$work/$id.log")
wait_for "$work/$id.log" "impostor $id-2, process 0: refused without a connection: refused: launch $id-2 \(pid $ipid on [^,]+, uid $uid claimed\): its peer \(pid $ipid on [^)]+\) failed a hand-shake as launch $id " 60
wait_for "$dir/join.log" "refused $id-2: launch $id-2 \(pid $ipid on [^,]+, uid $uid claimed\): its peer \(pid $ipid on [^)]+\) failed a hand-shake as launch $id " 10
wait_for "$work/job.log" "blacs-dyn: refused launch $id-2 .*its peer \(pid $ipid on" 20
(($(grep -c "process 0: accepted the job's connection" "$work/$id.log") == 1)) ||
  fail "the job connected to the silent fake launch's second request"
grep -q "$id-2.*accepted" "$work/$id.log" && fail "the job connected to the silent fake launch's second request"
echo "ok: its second request (pid $ipid, launch $id-2) is refused without a connection"
goes_on "a fake launch that stays silent, then asks again"
echo "ok: the job computed $(($(iterations) - k0)) iterations from the silent fake's start to its second refusal"
kill -9 "$p" 2>/dev/null
wait "$p" 2>/dev/null
fake garbage "no challenge: " "a fake launch that sends garbage"
fake noproof "wrong secret: its proof does not match" "a fake launch that claims the job's uid without the secret"
grep -q "fake-noproof, process 0: answer kind 5" "$work/fake-noproof.log" || fail "the job did not prove itself to the launch that claimed its uid"

# A real launch joins after them.
timeout 200 "$run" --join "$dir" -n 2 --id real >"$work/real.log" 2>&1 &
real=$!
pids+=("$real")
wait_for "$work/job.log" "expand 2x2 -> [0-9x]+ \(.*\): join " 120
echo "ok: a real launch joins after the strangers"
touch "$work/stop"
wait "$job"
jrc=$?
((jrc == 0)) || fail "the job ended with status $jrc"
grep -Eiq "result check.*OK" "$work/job.log" || fail "the result check"
wait "$real"

# A fake job: a directory with a secret and a job record, an ompi-server, a real launch.
d2=$work/fakejob
mkdir -m 700 "$d2" "$d2/join" "$d2/orders"
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && printf '%s\n' "$secret" >"$d2/secret")
printf 'incarnation %s\nprogram %s\nhost %s\nuid %s\npid %s\n' "$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
  "$(readlink -f "$prog")" "$(hostname)" "$uid" "$$" >"$d2/job"
chmod 600 "$d2/job"
touch "$d2/alive"
ompi-server --no-daemonize --report-uri "$d2/server.uri" </dev/null >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 200); do [[ -s $d2/server.uri ]] && break; sleep 0.05; done
[[ -s $d2/server.uri ]] || fail "ompi-server did not start"
timeout 120 "$run" --join "$d2" -n 2 --id victim -- "$prog" -n 240 --nb 16 -g 2x2 -i 4 >"$work/victim.log" 2>&1 &
victim=$!
pids+=("$victim")
timeout 120 "$mpiexec" --oversubscribe --ompi-server "file:$d2/server.uri" -n 1 "$imp" job "$d2" "$work/captured" \
  >"$work/fakejob.log" 2>&1
wait "$victim"
vrc=$?
cat "$work/fakejob.log" "$work/victim.log"
((vrc != 0)) || fail "the launch that met a fake job ended with status 0"
grep -q "did not prove it holds the job's secret" "$work/victim.log" || fail "the launch did not name the fake job"
[[ $(grep -c "^message .* challenge " "$work/fakejob.log") -eq 2 ]] || fail "the fake job did not get both challenges"
grep -q "^message .* hello-with-proof" "$work/fakejob.log" && fail "a launch sent its proof to a fake job"
[[ -s $work/captured ]] || fail "the fake job captured nothing"
python3 - "$work/captured" "$secret" <<'PY' || fail "the fake job received the secret"
import sys
data = open(sys.argv[1], "rb").read()
secret = sys.argv[2].encode()
for needle in (secret, bytes.fromhex(sys.argv[2])):
    assert needle not in data, "the secret is in the bytes the fake job received"
print(f"ok: the fake job received {len(data)} bytes, none of them the secret")
PY
echo "PASS"
