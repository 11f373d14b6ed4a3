#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two Unix users under one arbiter on the emulated cluster's Slurm (5 nodes). The test
# makes two users (unless they exist; it removes what it made), starts malleable-arbiterd
# in the head's namespace as the unprivileged user slurm (--expansion off: growth is by
# restart), and each user submits two malleable PDGEMM jobs of one node (two processes on
# it, started by the job's mpirun as that user, nowhere else) that ask the arbiter through
# RESIZE_ARBITER with their own MUNGE credentials: four jobs want one more node each, and
# one node is idle. A job granted the node cannot grow by restart without a checkpoint
# directory, so it gives the claim back and the next may win it: claims, bids, settles and
# back-offs of both users' jobs interleave. Meanwhile user B tries a bid, a claim, a
# promise and a release for user A's job with B's own credentials. Checked, from the
# arbiter's journal, its log and `malleable-arbiterd --status` (polled every 0.5 s):
#   - Slurm owns the jobs as the two users, and the arbiter decided for all four, the two
#     users' decisions interleaving (the owner changes between consecutive decisions);
#   - no node is held twice: in every status the claims of different jobs are disjoint
#     and hold no node of another job; replaying the journal, no acquisition names a node
#     that another job's live claim holds;
#   - each of B's four tries is refused, with B's uid and the reason, in the reply, the log
#     and the journal;
#   - every job's result check passes.
# Usage: arbiter_two_users.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
DAEMON=$BUILD/cluster/malleable-arbiterd
[[ -x $DAEMON ]] || { echo "SKIPPED: no malleable-arbiterd (built without libmunge)"; exit 77; }
for tool in setpriv useradd userdel munge; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is needed"; exit 77; }
done
getent passwd slurm >/dev/null || { echo "SKIPPED: no user slurm (the Debian slurm packages make it)"; exit 77; }
# The test's users run the build's programs: a build tree below a folder only root may
# enter (a checkout in `mktemp -d`) cannot be tested this way (checked as the user nobody).
for exe in "$BUILD/apps/pdgemm_resizable" "$DAEMON"; do
  setpriv --reuid=65534 --regid=65534 --clear-groups -- test -x "$exe" ||
    { echo "SKIPPED: another user cannot run $exe (a parent folder's mode)"; exit 77; }
done
USERS=(mallc-arb-a mallc-arb-b)
. "$SRC/tests/support/test_users.sh"
work=""
daemon_pid=""
finish() {
  local rc=$? u
  if [[ -n $work ]]; then "$CLUSTER" exec head scancel --name=arbA,arbB >/dev/null 2>&1 || true; fi
  if [[ -n $daemon_pid ]]; then kill "$daemon_pid" 2>/dev/null || true; fi
  # userdel refuses a user whose processes still run: the cancelled jobs' are given 20 s to
  # end, then killed (tests/support/test_users.sh: uids no other test's processes hold).
  test_users_remove 20
  if [[ -n $work ]]; then if [[ $rc -ne 0 ]]; then echo "kept $work"; else rm -rf "$work"; fi; fi
  cluster_end $rc
}
cluster_begin 5 --slurm --no-expansion --no-accounting
trap finish EXIT
eval "export $("$CLUSTER" slurm-env)"
MSOCK=/run/malleable-cluster/slurm/munge/munge.socket
work=$(mktemp -d)
chmod 755 "$work"
for u in "${USERS[@]}"; do
  test_user_make "$u" "$work/home-$u" || exit 1
  mkdir -p "$work/home-$u"
  chown "$u" "$work/home-$u"
done
UA=$(id -u "${USERS[0]}") UB=$(id -u "${USERS[1]}")
echo "users: ${USERS[0]} (uid $UA), ${USERS[1]} (uid $UB)"
mkdir -p "$work/arbiter"
chown slurm "$work/arbiter"
SOCK=$work/arbiter/socket
# The daemon as the unprivileged user slurm, in the head's namespace (it reaches slurmctld).
"$CLUSTER" exec head sh -c "echo \$\$ >$work/arbiter.pid; exec setpriv --reuid=slurm --regid=slurm --clear-groups \
  env SLURM_CONF=$SLURM_CONF $DAEMON --socket $SOCK --state-dir $work/arbiter/state --munge-socket $MSOCK \
  --interval 1 --expansion off --recent 100000" 2>"$work/arbiter.log" &
for _ in $(seq 100); do [[ -S $SOCK ]] && break; sleep 0.1; done
daemon_pid=$(cat "$work/arbiter.pid")
[[ -S $SOCK ]] || { cat "$work/arbiter.log"; fail "the arbiter did not start"; }
status() { "$DAEMON" --status "$SOCK" --munge-socket "$MSOCK" --arbiter-user slurm; }

# A job of user <u>: two processes on its one node, the Slurm policy asking the arbiter.
for u in "${USERS[@]}"; do
  cat >"$work/job-$u.sh" <<EOF
#!/bin/bash
export HOME=$work/home-$u TMPDIR=\$(mktemp -d $work/home-$u/tmp.XXXXXX) SLURM_CONF=$SLURM_CONF
trap 'rm -rf "\$TMPDIR"' EXIT
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24
export RESIZE_ARBITER=$SOCK RESIZE_ARBITER_MUNGE=$MSOCK RESIZE_ARBITER_USER=slurm
export RESIZE_SLURM_INTERVAL=1 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2
echo "job \$SLURM_JOB_ID of \$(id -un) on \$(hostname)"
mpirun --bind-to none -n 2 $BUILD/apps/pdgemm_resizable -n 400 --nb 32 -g 1x2 -i 1000000 -p slurm --stop-file $work/stop
EOF
  chmod 755 "$work/job-$u.sh"
done
submit() {  # <user> <name>: the job's id
  (cd "$work/home-$1" && "$CLUSTER" exec head setpriv --reuid="$1" --regid="$(id -g "$1")" --clear-groups \
    env SLURM_CONF="$SLURM_CONF" sbatch --parsable -J "$2" -N 1 --ntasks-per-node=2 -o "$work/home-$1/$2-%j.out" "$work/job-$1.sh")
}
jobs_a=("$(submit "${USERS[0]}" arbA)") jobs_b=("$(submit "${USERS[1]}" arbB)")
jobs_a+=("$(submit "${USERS[0]}" arbA)") jobs_b+=("$(submit "${USERS[1]}" arbB)")
echo "user A's jobs: ${jobs_a[*]}; user B's jobs: ${jobs_b[*]}"
printf '' >"$work/status.jsonl"
snap() {  # the status, one line of JSON
  status 2>/dev/null | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))' >>"$work/status.jsonl" 2>/dev/null || true
}
# Until the arbiter's view has the four jobs with their owners.
for _ in $(seq 120); do
  snap
  [[ $(tail -n 1 "$work/status.jsonl" | python3 -c "import json,sys; j=json.loads(sys.stdin.read() or '{}'); \
print(sum(1 for x in j.get('jobs',[]) if x['state']=='RUNNING' and x['uid'] is not None))" 2>/dev/null) == 4 ]] && break
  sleep 0.5
done

# User B's bid, claim, promise and release for user A's first job, with B's credentials.
python3 - "$SOCK" "$MSOCK" "${USERS[1]}" "${jobs_a[0]}" "$UB" >"$work/forged.txt" <<'PY' || { cat "$work/forged.txt"; fail "B's tries"; }
import json, pwd, socket, struct, subprocess, sys
sock, msock, user, job, uid = sys.argv[1:]
def arbitrate(pays, min_nodes, hold):
    growth = [dict(n=n, pays=pays, saving_s=50.0 * n, why="forged", pi=-1, pr=-1, mi=-1, left=-1) for n in (1, 2)]
    growth.append(dict(n=-1, pays=not pays, saving_s=5.0, why="forged", pi=-1, pr=-1, mi=-1, left=-1))
    return dict(v=2, kind="arbitrate", job=job, rank_hosts=["node1", "node1"], per_node=2, min_nodes=min_nodes,
                max_nodes=3, hold=hold, bid_ttl_s=600, growth=growth)
# Each a request that, from A, would write that entry: a bid (growth pays, nodes idle), the
# claim that follows it, a promise (shrinking pays: nodes offered to waiting jobs), the release.
tries = {"bid": arbitrate(True, 1, False), "claim": arbitrate(True, 1, False), "promise": arbitrate(False, 1, False),
         "release": dict(v=2, kind="settle", job=job, promises_too=True)}
def one_frame(s):
    d = b""
    while len(d) < 4 or len(d) < 4 + struct.unpack(">I", d[:4])[0]:
        k = s.recv(4 - len(d) if len(d) < 4 else 4 + struct.unpack(">I", d[:4])[0] - len(d))
        if not k:
            sys.exit("closed before the daemon's challenge")
        d += k
    return d[4:]
for what, req in tries.items():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(20)
    s.connect(sock)
    # protocol version 2: the connection's challenge first, the request made for it and
    # readable by the daemon's user only (munge -u slurm)
    req["challenge"] = json.loads(one_frame(s))["challenge"]
    cred = subprocess.run(["setpriv", "--reuid=" + user, "--regid=%d" % pwd.getpwnam(user).pw_gid, "--clear-groups",
                           "munge", "-S", msock, "-u", "slurm", "-s", json.dumps(req)],
                          check=True, capture_output=True).stdout.strip()
    s.sendall(struct.pack(">I", len(cred)) + cred)
    data = b""
    while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    # the reply: a MUNGE credential of the daemon's user (slurm) only B can decode
    # (unmunge prints the credential's metadata, a blank line, then its payload)
    opened = subprocess.run(["setpriv", "--reuid=" + user, "--regid=%d" % pwd.getpwnam(user).pw_gid, "--clear-groups",
                             "unmunge", "-S", msock], input=data[4:], capture_output=True)
    meta, _, payload = opened.stdout.decode().partition("\n\n")
    uid_line = [l for l in meta.splitlines() if l.startswith("UID:")]
    if opened.returncode != 0 or not uid_line or "slurm (" not in uid_line[0]:
        print("the reply is not slurm's credential: %s %s" % (meta, opened.stderr.decode()))
        sys.exit(1)
    r = json.loads(payload)
    want = "uid %s does not own job %s" % (uid, job)
    ok = not r["ok"] and want in r["error"]
    print("%s %s: %s" % ("refused" if ok else "NOT REFUSED", what, r.get("error", r)))
    if not ok:
        sys.exit(1)
PY
cat "$work/forged.txt"

# Until each job took a few decisions and one acquisition happened (90 s at most).
enough() {
  tail -n 1 "$work/status.jsonl" | python3 -c "
import json, sys
j = json.loads(sys.stdin.read() or '{}'); jobs = sys.argv[1:]
d = [x for x in j.get('recent', []) if isinstance(x, dict) and 'rule' in x and x['rule'] != 'settle']
ok = all(sum(x['job'] == k for x in d) >= 4 for k in jobs) and any(x['plan'] == 'acquire' for x in d)
sys.exit(0 if ok else 1)" "${jobs_a[@]}" "${jobs_b[@]}"
}
for _ in $(seq 180); do snap; enough && break; sleep 0.5; done
enough || { tail -n 5 "$work"/home-*/arb*.out; fail "the arbiter did not decide for the four jobs (or no acquisition)"; }
for _ in 1 2 3 4; do snap; sleep 0.5; done
touch "$work/stop"
for _ in $(seq 120); do
  snap
  [[ -z $("$CLUSTER" exec head squeue -h -n arbA,arbB -o %i) ]] && break
  sleep 0.5
done
[[ -z $("$CLUSTER" exec head squeue -h -n arbA,arbB -o %i) ]] || fail "the jobs did not end"
kill "$daemon_pid"
for _ in $(seq 50); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
daemon_pid=""
for f in "$work"/home-*/arb*.out; do
  grep -m1 "^job " "$f"
  grep -E "^\[slurm\]" "$f" | head -n 4
  grep -q "result check.*OK" "$f" || { tail -n 20 "$f"; fail "$f: no passing result check"; }
done
python3 - "$work" "$UA" "$UB" "${jobs_a[0]}" "${jobs_a[*]}" "${jobs_b[*]}" <<'PY'
import json, os, sys
work, ua, ub, forged_job = sys.argv[1:5]
ja, jb = sys.argv[5].split(), sys.argv[6].split()
owner = {j: int(ua) for j in ja}
owner.update({j: int(ub) for j in jb})
snaps = [json.loads(l) for l in open(os.path.join(work, "status.jsonl")) if l.strip()]
# Slurm's owners as the arbiter saw them.
seen = {}
for s in snaps:
    for j in s["jobs"]:
        if j["uid"] is not None:
            seen[j["id"]] = j["uid"]
assert all(seen.get(j) == u for j, u in owner.items()), "owners in the arbiter's view %s, submitted %s" % (seen, owner)
# No node held twice, in every status.
for s in snaps:
    held = {j["id"]: set(j["nodes"]) for j in s["jobs"] if j["state"] == "RUNNING"}
    claims = [(e["job"], set(e["nodes"])) for e in s["ledger"] if e["kind"] == "claim"]
    for a, (ja_, na) in enumerate(claims):
        for jb_, nb in claims[a + 1:]:
            assert ja_ == jb_ or not (na & nb), "two claims hold %s: %s" % (na & nb, s["ledger"])
        for j, nodes in held.items():
            assert j == ja_ or not (na & nodes), "job %s's claim %s holds a node of job %s (%s)" % (ja_, na, j, nodes)
    names = [n for nodes in held.values() for n in nodes]
    assert len(names) == len(set(names)), "a node in two jobs: %s" % held
journal = json.load(open(os.path.join(work, "arbiter", "state", "journal")))
recent = [json.loads(l) for l in journal["recent"]]
dec = sorted((d for d in recent if "rule" in d and d["job"] in owner), key=lambda d: d["t"])
arb = [d for d in dec if d["rule"] != "settle"]
# Replaying the journal: an acquisition never names a node of another job's live claim (a
# claim lives until its job's next decision or settle, or 60 s: claim_ttl_s).
live = {}
for d in dec:
    if d["rule"] != "settle" and d["plan"] == "acquire":
        for j, (t, nodes) in live.items():
            assert j == d["job"] or d["t"] - t > 60 or not (nodes & set(d["nodes"])), \
                "job %s acquired %s while job %s's claim held %s" % (d["job"], d["nodes"], j, nodes)
    live.pop(d["job"], None)
    if d["rule"] != "settle" and d["plan"] == "acquire":
        live[d["job"]] = (d["t"], set(d["nodes"]))
per_job = {j: sum(d["job"] == j for d in arb) for j in owner}
switches = sum(1 for x, y in zip(arb, arb[1:]) if owner[x["job"]] != owner[y["job"]])
acq = [(d["job"], d["nodes"], d["by_restart"]) for d in arb if d["plan"] == "acquire"]
settles = [d["job"] for d in dec if d["rule"] == "settle"]
rules = sorted({d["rule"] for d in arb})
print("decisions per job %s, the owner changed %d times between consecutive decisions; rules %s" % (per_job, switches, rules))
print("acquisitions (job, nodes, by restart): %s; settles by %s" % (acq, settles))
assert all(n >= 4 for n in per_job.values()), per_job
assert switches >= 4, "the two users' decisions did not interleave: %s" % [owner[d["job"]] for d in arb]
assert acq and all(r for _, _, r in acq), acq
assert all(j in settles for j, _, _ in acq), "a job that acquired did not give its claim back: %s %s" % (acq, settles)
# B's four tries: refused in the journal (with B's uid) and the log.
refused = [d for d in recent if "refused" in d and "does not own job %s" % forged_job in d["refused"]]
assert len(refused) == 4 and all(d["uid"] == int(ub) for d in refused), refused
assert sorted(d["refused"].split()[0] for d in refused) == ["arbitrate", "arbitrate", "arbitrate", "settle"], refused
log = open(os.path.join(work, "arbiter.log")).read()
line = "uid %s refused: uid %s does not own job %s" % (ub, ub, forged_job)
assert log.count(line) == 4, "the log has %d lines '%s'" % (log.count(line), line)
print("B's 4 tries refused, in the journal with uid %s and in the log: %s" % (ub, line))
PY
echo "PASS"
