#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The arbiter's --extend-limits (docs/guide/arbiter.md, "Time limits that follow the size")
# end to end on the emulated cluster's Slurm 22.05 with its accounting (slurmdbd), 8 nodes.
# malleable-arbiterd runs in the head's namespace as the unprivileged user slurm, made a
# Slurm operator by the test (sacctmgr ... AdminLevel=Operator), --interval 1. Every job is
# submitted with --time=10. The test makes two Unix users A and B (it removes what it made).
#   1. The recipe: root's job R (malleable-run --job-dir, PDGEMM -p slurm, sbatch -N 1-2,
#      asking the arbiter) starts on node1-2, the only idle nodes: rigid jobs X and Y (never
#      ask) hold node3 and node8, user A's jobs C and D node4-5 and node6-7 (sleep). A job
#      waits for one node: the arbiter has R give node2 back, R shrinks, the waiting job
#      starts there, and R's TimeLimit in Slurm (scontrol show job)
#      rises from 10 min to the journal's limit-extended line's new_min, which the test
#      recomputes from Slurm's record (start, limit as submitted, nodes at the start and
#      after) and the line's figures (the limit left at the view, the model's ratio, the
#      resize's cost): the rule's amount in whole minutes (rounded up within the cap), not capped.
#   2. A claim beyond the cap: the test's client asks about C with A's own credential and a
#      model claiming a 100x slowdown on one node fewer and a 5000-s resize (no driver can be
#      told to claim that: the client stands for a job whose model lies). A second job waits;
#      the arbiter has C give node5 back, A shrinks C (scontrol update NodeList=node4), and C's
#      limit rises only to the cap: start + 600 s x 2 / 1 + 600 s (the resize cost's bound)
#      = 30 min exactly, "capped" in its line.
#   3. Another user: B asks about A's 2-node job D with B's own credential and the same model
#      while a third job waits: refused ("does not own job"); A then gives node7 back by hand
#      (as it did C's node5); two views later D's limit is unchanged and no line names it.
#      X and Y, running throughout, are still at 10 min.
#   4. The switch off: the daemon restarted with --extend-limits off (same state directory),
#      X and Y cancelled; root's recipe job R2 starts on their nodes (node3, node8) and gives
#      node8 back by the arbiter's decision to a fourth waiting job; two views later its limit
#      is unchanged, no line names it, --status says "extend": false.
# No job is started on a node given back after another job ran there: Slurm 22.05 keeps
# such a node unallocatable for minutes (scripts/bench/slurm.sh scenario; seen here in both
# tries: a 2-node job asking for it pended with Reason Resources, a 1-node job with
# ReqNodeNotAvail, while sinfo listed it idle+planned); hence fresh nodes for each case.
# At the end: the journal holds exactly the two limit-extended lines (R, C), the log their
# "TimeLimit 10 -> M min" lines; D and R2 are still at 10 min, R at its one raise.
#   5. A start below the range: the daemon again with --extend-limits on (same state
#      directory); root's recipe job S, sbatch -N 2-3 --time=4, while only node1 and node3
#      are free (the jobs of cases 1 and 4 ended there; every other node is held): Slurm
#      starts it on 2, and S's TimeLimit read back with scontrol rises from 4 min to the
#      rule's amount (limits::raise_at_start: 240 s x its model's t(2)/t(3), at most the cap
#      240 x 3/2 = 360 s, rounded up to Slurm's minute within the cap), recomputed from its
#      journal line ("at": "start-below-range"); one line only, the limit unchanged, after two
#      more views and after a restart of the daemon (never raised twice for one start).
# Every wait polls Slurm, the job's output, the journal or --status with a bound.
# Usage: arbiter_extend_limits.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; joins between launches need it)"; exit 77; }
DAEMON=$BUILD/cluster/malleable-arbiterd
[[ -x $DAEMON ]] || { echo "SKIPPED: no malleable-arbiterd (built without libmunge)"; exit 77; }
for tool in setpriv useradd userdel munge unmunge sacctmgr slurmdbd; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is needed"; exit 77; }
done
getent passwd slurm >/dev/null || { echo "SKIPPED: no user slurm (the Debian slurm packages make it)"; exit 77; }
LIB=$(ldd "$DAEMON" | awk '$1 ~ /^libmalleable_cluster/ {print $3}')
[[ -f $LIB ]] || { echo "SKIPPED: ldd names no libmalleable_cluster for $DAEMON"; exit 77; }
USERS=(mallc-lim-a mallc-lim-b)
NAMES=limR,limR2,limS,limF,limX,limY,limC,limD,limW
. "$SRC/tests/support/test_users.sh"
work=""
daemon_pid=""
stop_daemon() {
  [[ -n $daemon_pid ]] || return 0
  kill "$daemon_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
  daemon_pid=""
}
finish() {
  local rc=$? u j
  if [[ -n $work ]]; then
    for j in ${jobR:-} ${jobR2:-}; do "$CLUSTER" exec head scancel --name="malleable-expand-$j" >/dev/null 2>&1 || true; done
    "$CLUSTER" exec head scancel --name=$NAMES >/dev/null 2>&1 || true
    "$CLUSTER" exec head sacctmgr -i delete user slurm >/dev/null 2>&1 || true
  fi
  stop_daemon
  # userdel refuses a user whose processes still run: the cancelled jobs' are given 20 s to
  # end, then killed (tests/support/test_users.sh: uids no other test's processes hold).
  test_users_remove 20
  if [[ -n $work ]]; then if [[ $rc -ne 0 ]]; then echo "kept $work"; else rm -rf "$work"; fi; fi
  cluster_end $rc
}
cluster_begin 8 --slurm --no-expansion
trap finish EXIT
eval "export $("$CLUSTER" slurm-env)"
MSOCK=/run/malleable-cluster/slurm/munge/munge.socket
work=$(mktemp -d)
chmod 755 "$work"
d=$work/ck
mkdir -p "$d"
# The daemon runs as slurm: a copy of it and of its one library of the project's, in this
# 0755 folder, reaches it also from a checkout in a folder only root may enter (CI's clone).
mkdir -p "$work/bin"
cp "$DAEMON" "$work/bin/"
cp -L "$LIB" "$work/bin/"
setpriv --reuid=65534 --regid=65534 --clear-groups -- env LD_LIBRARY_PATH="$work/bin" "$work/bin/malleable-arbiterd" --help >/dev/null 2>&1 ||
  { echo "SKIPPED: another user cannot run the daemon's copy in $work (a parent folder's mode)"; exit 77; }
for u in "${USERS[@]}"; do
  test_user_make "$u" "$work/home-$u" || exit 1
  mkdir -p "$work/home-$u"
  chown "$u" "$work/home-$u"
done
A=${USERS[0]} B=${USERS[1]}
UA=$(id -u "$A") UB=$(id -u "$B")
echo "users: A $A (uid $UA), B $B (uid $UB)"
"$CLUSTER" exec head sacctmgr -i add user slurm account=root AdminLevel=Operator >/dev/null ||
  fail "sacctmgr could not make slurm an operator"
mkdir -p "$work/arbiter"
chown slurm "$work/arbiter"
SOCK=$work/arbiter/socket STATE=$work/arbiter/state JOURNAL=$work/arbiter/state/journal
start_daemon() {  # <on|off>: the daemon as the unprivileged user slurm, in the head's namespace
  rm -f "$SOCK"
  "$CLUSTER" exec head sh -c "echo \$\$ >$work/arbiter.pid; exec setpriv --reuid=slurm --regid=slurm --clear-groups \
    env SLURM_CONF=$SLURM_CONF LD_LIBRARY_PATH=$work/bin $work/bin/malleable-arbiterd --socket $SOCK --state-dir $STATE --munge-socket $MSOCK \
    --interval 1 --expansion off --recent 100000 --extend-limits $1" 2>>"$work/arbiter.log" &
  for _ in $(seq 100); do [[ -S $SOCK ]] && break; sleep 0.1; done
  daemon_pid=$(cat "$work/arbiter.pid")
  [[ -S $SOCK ]] || { cat "$work/arbiter.log"; fail "the arbiter did not start"; }
}
start_daemon on
status() { "$DAEMON" --status "$SOCK" --munge-socket "$MSOCK" --arbiter-user slurm; }

as_user() {  # <user> <command...> in the head's namespace
  local u=$1
  shift
  (cd "$work/home-$u" && "$CLUSTER" exec head setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups \
    env SLURM_CONF="$SLURM_CONF" "$@")
}
sub() { (cd "$work" && "$CLUSTER" exec head sbatch --parsable "$@"); }  # root's job
sq() { "$CLUSTER" exec head squeue -h -j "$1" -o "$2" 2>/dev/null; }
wait_state() {  # <job> <squeue %T|%N wanted> <seconds>
  local i
  for ((i = 0; i < $3 * 10; ++i)); do
    [[ $(sq "$1" "%T|%N") == "$2" ]] && return 0
    sleep 0.1
  done
  "$CLUSTER" exec head squeue -o "%i %j %u %T %N %r" >&2 || true
  "$CLUSTER" exec head sinfo -N >&2 || true
  fail "job $1 is '$(sq "$1" "%T|%N|%r")', not '$2' within $3 s"
}
limit_of() {  # <job>: its TimeLimit in minutes, from scontrol show job
  "$CLUSTER" exec head scontrol show job "$1" | grep -o 'TimeLimit=[^ ]*' | cut -d= -f2 |
    awk -F'[-:]' '{ if (NF == 4) print $1 * 1440 + $2 * 60 + $3; else if (NF == 3) print $1 * 60 + $2; else print "?" $0 }'
}
start_of() { date -d "$("$CLUSTER" exec head scontrol show job "$1" | grep -o 'StartTime=[^ ]*' | cut -d= -f2)" +%s; }
lines() {  # <rule> [job]: the journal's recent lines of that rule (and job), one JSON each
  python3 - "$JOURNAL" "$@" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
for l in j.get("recent", []):
    x = json.loads(l)
    if x.get("rule") == sys.argv[2] and (len(sys.argv) < 4 or x.get("job") == sys.argv[3]):
        print(json.dumps(x))
PY
}
wait_line() {  # <rule> <job> <seconds>: the first such journal line
  local i l
  for ((i = 0; i < $3 * 4; ++i)); do
    l=$(lines "$1" "$2" | head -n 1)
    [[ -n $l ]] && { echo "$l"; return 0; }
    sleep 0.25
  done
  tail -n 20 "$work/arbiter.log" >&2
  fail "no journal line '$1' for job $2 within $3 s"
}
# Two views the daemon took after <t> (epoch s): by then a raise that the view showing a
# give-back done had made due was run and journalled (the raise is made at the start of the
# refresh after that view). Each status request also asks the daemon for a fresh view.
two_views_after() {  # <t>
  local i seen=() v
  for ((i = 0; i < 100; ++i)); do
    v=$(status 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["view_taken_at"] or 0)' 2>/dev/null) || v=0
    if awk -v a="$v" -v b="$1" 'BEGIN{exit !(a > b)}' && [[ " ${seen[*]} " != *" $v "* ]]; then seen+=("$v"); fi
    ((${#seen[@]} >= 2)) && return 0
    sleep 0.3
  done
  fail "the arbiter took no two views after $1 within 30 s"
}
# One arbitrate request about <job> as <user> (its MUNGE credential, for the daemon's user
# only), growth table: one node fewer costs `ratio` x the iteration, its resize <cost> s; the
# reply on stdout (one line of JSON).
cat >"$work/ask.py" <<'PY'
import json, pwd, socket, struct, subprocess, sys
sock, msock, user, job, hosts, ratio, cost = sys.argv[1:]
hosts = hosts.split(",")
pw = pwd.getpwnam(user)
asu = ["setpriv", "--reuid=" + user, "--regid=%d" % pw.pw_gid, "--clear-groups"]
growth = [dict(n=1, pays=False, saving_s=0.0, why="claimed", pi=-1, pr=-1, mi=1.0, left=-1),
          dict(n=-1, pays=False, saving_s=0.0, why="claimed", pi=float(ratio), pr=float(cost), mi=1.0, left=-1)]
req = dict(v=2, kind="arbitrate", job=job, rank_hosts=hosts, per_node=1, min_nodes=1, max_nodes=len(hosts),
           hold=False, bid_ttl_s=10, growth=growth)
def frame(s):
    d = b""
    while len(d) < 4 or len(d) < 4 + struct.unpack(">I", d[:4])[0]:
        k = s.recv(65536)
        if not k:
            sys.exit("the daemon closed the connection")
        d += k
    return d[4:]
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(sock)
req["challenge"] = json.loads(frame(s))["challenge"]
cred = subprocess.run(asu + ["munge", "-S", msock, "-u", "slurm", "-s", json.dumps(req)],
                      check=True, capture_output=True).stdout.strip()
s.sendall(struct.pack(">I", len(cred)) + cred)
opened = subprocess.run(asu + ["unmunge", "-S", msock], input=frame(s), capture_output=True)
meta, _, payload = opened.stdout.decode().partition("\n\n")
if opened.returncode != 0 or not any(l.startswith("UID:") and "slurm (" in l for l in meta.splitlines()):
    sys.exit("the reply is not the daemon's credential: %s %s" % (meta, opened.stderr.decode()))
print(json.dumps(json.loads(payload)))
PY
ask() { python3 "$work/ask.py" "$SOCK" "$MSOCK" "$@"; }
# Asks (once a second, 60 s at most) until the reply's plan is <plan>; prints the reply.
ask_until() {  # <plan> <user> <job> <hosts> <ratio> <cost>
  local i r
  for ((i = 0; i < 60; ++i)); do
    r=$(ask "${@:2}") || fail "the request about job $3 as $2 failed: $r"
    [[ $(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("plan"))' "$r") == "$1" ]] && { echo "$r"; return 0; }
    sleep 1
  done
  fail "no '$1' for job $3 as $2 within 60 s; the last reply: $r"
}

# ---- 1. the recipe: R gives node2 back, its limit rises by the rule ----------------------
jobX=$(sub -J limX -N 1 -w node3 --time=10 -o /dev/null --wrap "sleep 600") || fail "X refused"
jobY=$(sub -J limY -N 1 -w node8 --time=10 -o /dev/null --wrap "sleep 600") || fail "Y refused"
jobC=$(as_user "$A" sbatch --parsable -J limC -N 2 -w node4,node5 --time=10 -o /dev/null --wrap "sleep 600") ||
  fail "A's job C refused"
jobD=$(as_user "$A" sbatch --parsable -J limD -N 2 -w node6,node7 --time=10 -o /dev/null --wrap "sleep 600") ||
  fail "A's job D refused"
wait_state "$jobX" "RUNNING|node3" 60
wait_state "$jobY" "RUNNING|node8" 60
wait_state "$jobC" "RUNNING|node[4-5]" 60
wait_state "$jobD" "RUNNING|node[6-7]" 60
recipe_job() {  # <name> <job dir> [MIN MAX MINUTES STOP]: root's recipe job (-N 1-2, 10 min), asking the arbiter; its id
  local lo=${3:-1} hi=${4:-2} minutes=${5:-10} stop=${6:-$d/stop}
  slurm_job_script "$work/$1.sh" \
    "export RESIZE_ARBITER=$SOCK RESIZE_ARBITER_MUNGE=$MSOCK RESIZE_ARBITER_USER=slurm" \
    "export RESIZE_SLURM_MIN_NODES=$lo RESIZE_SLURM_MAX_NODES=$hi RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_GROW=off BLACS_DYN_JOIN_TIMEOUT=90 RESIZE_SLURM_JOIN_DEADLINE=120" \
    "exec $BUILD/bin/malleable-run --job-dir $2 -- $BUILD/apps/pdgemm_resizable -n 240 --nb 16 -g 2x2 -i 1000000 -p slurm --stop-file $stop"
  sub -J "$1" -N "$lo-$hi" --ntasks-per-node=2 --time="$minutes" -o "$work/$1.out" "$work/$1.sh"
}
jobR=$(recipe_job limR "$work/jobR") || fail "R refused"
wait_for "$work/limR.out" "malleable-run: launch 1: 4 processes on node1:2 \(joined at its start by the launches" 120 >/dev/null
wait_for "$work/limR.out" "^\[pdgemm\] iter +3 " 120 >/dev/null
wait_state "$jobR" "RUNNING|node[1-2]" 5
limitR0=$(limit_of "$jobR") startR=$(start_of "$jobR")
[[ $limitR0 == 10 ]] || fail "R submitted with --time=10 shows $limitR0 min"
echo "jobs: R $jobR (recipe, node[1-2]), X $jobX and Y $jobY (rigid, node3, node8), C $jobC and D $jobD (user A, node[4-5], node[6-7]); all 10 min"
jobW1=$(sub -J limW -N 1 --time=5 -o /dev/null --wrap "sleep 600") || fail "W1 refused"
wait_for "$work/limR.out" "shrink [0-9x]+ -> [0-9x]+ .*gave back node2" 120 >/dev/null
wait_state "$jobW1" "RUNNING|node2" 60
wait_state "$jobR" "RUNNING|node1" 5
lineR=$(wait_line limit-extended "$jobR" 60)
echo "R's line: $lineR"
limitR1=$(limit_of "$jobR")
newR=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["new_min"])' "$lineR")
[[ $(start_of "$jobR") == "$startR" ]] || fail "R's StartTime changed with its shrink: $(start_of "$jobR"), was $startR"
decR=$(python3 - "$JOURNAL" "$jobR" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for l in j["recent"]:
    x = json.loads(l)
    if x.get("job") == sys.argv[2] and x.get("plan") == "give-back":
        print(json.dumps(x)); break
PY
)
[[ -n $decR ]] || fail "no give-back decision of the arbiter for R in the journal"
# The rule recomputed: Slurm's record (the start, 10 min as submitted on 2 nodes, 1 after),
# the line's figures (the limit left at the view that showed the give-back done, the ratio,
# the resize's cost), Slurm's whole minutes; the limit read back with scontrol.
python3 - "$lineR" "$decR" "$startR" "$limitR1" <<'PY' || fail "R's raise is not the rule's"
import json, math, re, sys
line, dec, start, now_min = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
m = re.match(r"a give-back to (\d+) node\(s\): (\d+) s of its limit left, scaled by ([\d.]+) \((its model|perfect scaling)\), "
             r"plus a (\d+)-s resize: \+(\d+) s(, capped)? \(cap (\d+) s after its start: (\d+) s submitted on (\d+) node\(s\), "
             r"(\d+) s of resizes\)", line["why"])
assert m, line["why"]
after, left, ratio, how, cost, by, capped, cap, submitted, start_nodes, costs = m.groups()
after, left, ratio, cost, by, cap, submitted, start_nodes = int(after), int(left), float(ratio), int(cost), int(by), int(cap), int(submitted), int(start_nodes)
assert (after, submitted, start_nodes) == (1, 600, 2), (after, submitted, start_nodes)
assert line["old_min"] == 10 and not line["capped"] and capped is None, line
assert abs(cap - (600 * 2 / 1 + cost)) <= 1, "cap %d, not 1200 + %d" % (cap, cost)
if how == "perfect scaling":
    assert ratio == 2.0, ratio
assert ratio > 1, "a give-back that speeds the job up raises nothing: %s" % ratio
# the view the raise was computed at: after the decision, before the line
view = start + 600 - left
assert dec["t"] - 2 <= view <= line["t"] + 1, "view at %.1f: not between the decision %.1f and the line %.1f" % (view, dec["t"], line["t"])
want_by = min(cost + left * (ratio - 1), cap - 600)
tol = 1.5 + left * 0.0005
assert abs(by - want_by) <= tol, "by %d s, the rule gives %.1f s" % (by, want_by)
# Slurm's whole minutes rounded up within the cap
lo, hi = (min(math.ceil((600 + want_by + d) / 60), math.floor(cap / 60)) for d in (-tol, tol))
assert lo <= line["new_min"] <= hi and line["new_min"] > 10, "new %d min, the rule gives %d-%d" % (line["new_min"], lo, hi)
assert now_min == line["new_min"], "scontrol shows %d min, the line says %d" % (now_min, line["new_min"])
print("ok: R's TimeLimit 10 -> %d min (scontrol): %d s left at the view, ratio %.3f (%s), %d-s resize: +%.1f s by the rule, "
      "+%d s in the line; cap %d s after the start (1200 + %d), not reached" % (now_min, left, ratio, how, cost, want_by, by, cap, cost))
PY

# ---- 2. a claim beyond the cap: C's model claims a 100x slowdown -------------------------
jobW2=$(sub -J limW -N 1 --time=5 -o /dev/null --wrap "sleep 600") || fail "W2 refused"
for _ in $(seq 100); do [[ $(sq "$jobW2" %T) == PENDING ]] && break; sleep 0.1; done
replyC=$(ask_until give-back "$A" "$jobC" node4,node5 100 5000)
echo "A's request about C: $replyC"
[[ $replyC == *'"nodes": ["node5"]'* || $replyC == *'"nodes":["node5"]'* ]] || fail "C was not told to give node5: $replyC"
as_user "$A" scontrol update JobId="$jobC" NodeList=node4 || fail "A could not shrink its job C"
wait_state "$jobC" "RUNNING|node4" 30
wait_state "$jobW2" "RUNNING|node5" 60
lineC=$(wait_line limit-extended "$jobC" 60)
echo "C's line: $lineC"
limitC=$(limit_of "$jobC")
python3 - "$lineC" "$limitC" <<'PY' || fail "C's raise is not capped at the cap"
import json, sys
line, now_min = json.loads(sys.argv[1]), int(sys.argv[2])
assert line["old_min"] == 10 and line["new_min"] == 30 and line["capped"], line
for part in ("scaled by 100.000 (its model), plus a 600-s resize: +1200 s, capped",
             "(cap 1800 s after its start: 600 s submitted on 2 node(s), 600 s of resizes)"):
    assert part in line["why"], (part, line["why"])
assert now_min == 30, "scontrol shows %d min" % now_min
print("ok: C's claimed 100x slowdown and 5000-s resize raised 10 -> 30 min (scontrol) only: the cap 600 x 2/1 + 600 s")
PY

# ---- 3. another user: B asks about A's job D --------------------------------------------
jobW3=$(sub -J limW -N 1 --time=5 -o /dev/null --wrap "sleep 600") || fail "W3 refused"
for _ in $(seq 100); do [[ $(sq "$jobW3" %T) == PENDING ]] && break; sleep 0.1; done
two_views_after "$(date +%s.%N)"  # the arbiter sees D running and W3 waiting
replyB=$(ask "$B" "$jobD" node6,node7 100 5000) || fail "B's request failed: $replyB"
[[ $replyB == *"uid $UB does not own job $jobD"* && $replyB == *'"ok": false'* ]] || fail "B's request about D not refused: $replyB"
echo "B's request about A's job D refused: $replyB"
as_user "$A" scontrol update JobId="$jobD" NodeList=node6 || fail "A could not shrink its job D"
wait_state "$jobD" "RUNNING|node6" 30
wait_state "$jobW3" "RUNNING|node7" 60
two_views_after "$(date +%s.%N)"
[[ -z $(lines limit-extended "$jobD") && -z $(lines limit-refused "$jobD") ]] || fail "D's limit was touched: $(lines limit-extended "$jobD")"
[[ $(limit_of "$jobD") == 10 ]] || fail "D's limit is $(limit_of "$jobD") min"
echo "ok: D (A's, B asked) gave a node back: its limit stays 10 min, no line in the journal"
[[ $(limit_of "$jobX") == 10 && $(limit_of "$jobY") == 10 ]] || fail "X's or Y's limit: $(limit_of "$jobX"), $(limit_of "$jobY") min"
[[ -z $(lines limit-extended "$jobX")$(lines limit-extended "$jobY") ]] || fail "a line for X or Y"
echo "ok: the rigid jobs X and Y (never asked) stay at 10 min"
status >"$work/status-on.json"
python3 - "$work/status-on.json" <<'PY' || fail "the status's limits"
import json, sys
l = json.load(open(sys.argv[1]))["limits"]
assert l["extend"] is True and l["raised"] == 2 and l["refused"] == 0 and l["error"] is None, l
print("status: %s" % l)
PY

# ---- 4. the switch off: R2 gives node5 back, nothing is extended ---------------------------
stop_daemon
"$CLUSTER" exec head scancel "$jobX" "$jobY"
start_daemon off
for _ in $(seq 300); do [[ -z $(sq "$jobX" %T)$(sq "$jobY" %T) ]] && break; sleep 0.1; done
jobR2=$(recipe_job limR2 "$work/jobR2") || fail "R2 refused"
wait_for "$work/limR2.out" "malleable-run: launch 1: 4 processes on node3:2 \(joined at its start by the launches" 120 >/dev/null
wait_for "$work/limR2.out" "^\[pdgemm\] iter +3 " 120 >/dev/null
wait_state "$jobR2" "RUNNING|node[3,8]" 5
jobW4=$(sub -J limW -N 1 --time=5 -o /dev/null --wrap "sleep 600") || fail "W4 refused"
wait_for "$work/limR2.out" "shrink [0-9x]+ -> [0-9x]+ .*gave back node8" 120 >/dev/null
wait_state "$jobW4" "RUNNING|node8" 60
wait_state "$jobR2" "RUNNING|node3" 5
two_views_after "$(date +%s.%N)"
[[ -n $(python3 -c '
import json, sys
for l in json.load(open(sys.argv[1]))["recent"]:
    x = json.loads(l)
    if x.get("job") == sys.argv[2] and x.get("plan") == "give-back": print(l); break' "$JOURNAL" "$jobR2") ]] ||
  fail "no give-back decision of the arbiter for R2"
[[ -z $(lines limit-extended "$jobR2") ]] || fail "R2's limit was raised with the switch off"
[[ $(limit_of "$jobR2") == 10 ]] || fail "R2's limit is $(limit_of "$jobR2") min"
status >"$work/status-off.json"
python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["limits"]; assert l["extend"] is False and l["raised"] == 0, l; print("status: %s" % l)' \
  "$work/status-off.json" || fail "the status's limits with the switch off"
echo "ok: with --extend-limits off R2 gave node8 back by the arbiter's decision: its limit stays 10 min"

# ---- the journal and the log ----------------------------------------------------------------
touch "$d/stop"
slurm_wait_end "$jobR" 120
slurm_wait_end "$jobR2" 120
stop_daemon
[[ $(limit_of "$jobD") == 10 && $(limit_of "$jobR") == "$newR" ]] || fail "D's or R's limit changed: $(limit_of "$jobD"), $(limit_of "$jobR") min"
all=$(lines limit-extended)
[[ $(wc -l <<<"$all") == 2 && $(lines limit-extended "$jobR" | wc -l) == 1 && $(lines limit-extended "$jobC" | wc -l) == 1 ]] ||
  fail "the journal's limit-extended lines: $all"
[[ -z $(lines limit-refused) ]] || fail "limit-refused lines: $(lines limit-refused)"
grep -q "job $jobR: TimeLimit 10 -> $newR min" "$work/arbiter.log" || fail "no log line for R's raise"
grep -q "job $jobC: TimeLimit 10 -> 30 min" "$work/arbiter.log" || fail "no log line for C's raise"
for f in limR limR2; do grep -Eq "result check.*OK" "$work/$f.out" || { tail -n 20 "$work/$f.out"; fail "$f: no passing result check"; }; done
echo "journal: the 2 limit-extended lines (R $jobR 10 -> $newR, C $jobC 10 -> 30), none for X $jobX, Y $jobY, D $jobD, R2 $jobR2"

# ---- 5. a start below the range: S, -N 2-3 on the 2 free nodes, its limit rises ------------
start_daemon on
# node1 and node3 free (R and R2 ended there); a filler F holds whatever else is idle now (W's
# and C's and D's limits may have passed; it may pend on a node given back, which nobody gets)
# (grep finding nothing is no error: every idle node may be node1 or node3)
others=$("$CLUSTER" exec head sinfo -h -N -t idle -o %N | sort -u | { grep -vxE 'node[13]' || true; } | paste -sd, -)
if [[ -n $others ]]; then
  jobF=$(sub -J limF -N "$(tr , '\n' <<<"$others" | wc -l)" -w "$others" --time=10 -o /dev/null --wrap "sleep 600") || fail "F refused"
  echo "filler F $jobF on $others: $(sq "$jobF" "%T %N %r")"
fi
jobS=$(recipe_job limS "$work/jobS" 2 3 4 "$d/stopS") || fail "S refused"
wait_state "$jobS" "RUNNING|node[1,3]" 90
wait_for "$work/limS.out" "^\[pdgemm\] iter +3 " 120 >/dev/null
startS=$(start_of "$jobS")
lineS=$(wait_line limit-extended "$jobS" 60) ||
  fail "S not raised at its start; its lines: $(lines limit-start-kept "$jobS")$(lines limit-start-refused "$jobS")"
echo "S's line: $lineS"
check_start_line() {  # <journal line> <scontrol's minutes>: the rule's raise, recomputed
  python3 - "$1" "$2" <<'PY'
import json, math, re, sys
line, now_min = json.loads(sys.argv[1]), int(sys.argv[2])
assert line["at"] == "start-below-range" and line["old_min"] == 4, line
m = re.search(r"^start-below-range: -N 2-3 \(the sbatch command line\), started on 2 of the 3 node\(s\) at the top of its "
              r"range: its limit of 240 s scaled by ([\d.]+) \((its model|perfect scaling)\): \+(\d+) s(, capped)? "
              r"\(cap 360 s: the limit x 3/2\)$", line["why"])
assert m, line["why"]
ratio, how, by = float(m.group(1)), m.group(2), int(m.group(3))
assert 1 < ratio <= 1.5, ratio
assert abs(by - 240 * (ratio - 1)) <= 1, (by, ratio)
want = min(math.ceil(240 * ratio / 60 - 1e-6), 6)
assert line["new_min"] == want, "new %d min, the rule gives %d" % (line["new_min"], want)
assert now_min == want, "scontrol shows %d min, the rule %d" % (now_min, want)
print("ok: S started on 2 of -N 2-3: TimeLimit 4 -> %d min (scontrol), 240 s x %.3f (%s) = %.0f s, cap 360 s" %
      (now_min, ratio, how, 240 * ratio))
PY
}
check_start_line "$lineS" "$(limit_of "$jobS")" || fail "S's raise at its start is not the rule's"
[[ $(start_of "$jobS") == "$startS" ]] || fail "S's StartTime changed"
two_views_after "$(date +%s.%N)"
stop_daemon
start_daemon on  # a restart: the start is judged, never raised again
two_views_after "$(date +%s.%N)"
[[ $(lines limit-extended "$jobS" | wc -l) == 1 ]] || fail "S's limit-extended lines: $(lines limit-extended "$jobS")"
check_start_line "$lineS" "$(limit_of "$jobS")" || fail "S's limit changed after more views and a restart"
grep -q "job $jobS: TimeLimit 4 -> $(limit_of "$jobS") min (start-below-range" "$work/arbiter.log" || fail "no log line for S's raise"
touch "$d/stopS"
slurm_wait_end "$jobS" 120
stop_daemon
echo "ok: S raised once at its start, by the rule, from Slurm's record"
echo "PASS"
