#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""malleable-arbiterd live, without a cluster: its own munged in a scratch directory, a
fake Slurm on PATH (squeue and sinfo print recorded output and count their calls), two
uids. Checks, each against the running daemon:
  - uid B's requests about uid A's job (bid, claim, promise, release) are each refused and
    logged with the uid and the reason, and leave the ledger without an entry of A's job;
  - A's own requests are arbitrated (a bid, then a claim of idle nodes);
  - a replayed credential and an expired one are refused;
  - 2,000 bad frames (ARBITER_BAD_FRAMES; oversized, truncated, random bytes, bad credentials, bad bodies in
    good credentials) are each refused or dropped, the daemon stays up and answers;
  - a silent client and one that sends half a frame do not block another's request;
  - the connection cap turns connections away instead of queueing them for ever;
  - kill -9 and a restart keep the ledger: the claim once, not lost, not doubled;
  - Slurm was asked once per view (interval 3600 s): three commands per daemon start;
  - over TCP on 127.0.0.1 (the daemon's `--listen 127.0.0.1:0`, loopback only): the same
    answers, refusals, bad frames, silent clients, and the library's client (tcp://);
  - a slow Slurm (the fake squeue blocks until the test lets it go) does not hold the
    daemon: requests are answered from the last view while the new one is being taken.
Usage: arbiter_daemon_test.py BUILD_DIR   (exit 77: skipped, e.g. not root, no munged)"""
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

UID_A, UID_B, SLURM_UID = 1000, 1001, 64030
# Bad frames sent to the live daemon: a sample in the default suite (the pure parser's unit
# test takes 10,000); ARBITER_BAD_FRAMES=10000 for the full count.
BAD_FRAMES = int(os.environ.get("ARBITER_BAD_FRAMES", "2000"))


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def frame(payload):
    return struct.pack(">I", len(payload)) + payload


def recv_reply(s, limit=10):
    s.settimeout(limit)
    data = b""
    while True:
        if len(data) >= 4:
            n = struct.unpack(">I", data[:4])[0]
            if len(data) >= 4 + n:
                return json.loads(data[4:4 + n])
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return None
        data += chunk


class Rig:
    def __init__(self, build):
        self.daemon_bin = os.path.join(build, "resize", "malleable-arbiterd")
        if not os.path.exists(self.daemon_bin):
            skip("no malleable-arbiterd (built without libmunge)")
        if os.geteuid() != 0:
            skip("needs root: munged as another user, credentials of two uids (setpriv)")
        for tool in ("munged", "munge", "setpriv"):
            if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
                skip(tool + " is missing")
        self.dir = tempfile.mkdtemp(prefix="arbiterd-")
        os.chmod(self.dir, 0o755)
        self.munge_sock = os.path.join(self.dir, "munge.sock")
        key = os.path.join(self.dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        munged = shutil.which("munged") or "/usr/sbin/munged"
        subprocess.run([munged, "--force", "--socket=" + self.munge_sock, "--key-file=" + key,
                        "--pid-file=" + os.path.join(self.dir, "munged.pid"),
                        "--seed-file=" + os.path.join(self.dir, "munged.seed"),
                        "--log-file=" + os.path.join(self.dir, "munged.log")], check=True)
        self.fake = os.path.join(self.dir, "bin")
        os.mkdir(self.fake)
        # squeue blocks while $FAKE/slow exists (the daemon's `timeout 20` ends it at worst)
        slow = 'while [ -e "$FAKE/slow" ]; do touch "$FAKE/blocked"; sleep 0.1; done\n'
        for name, body in (("squeue", slow + 'case "$*" in *%U*) cat "$FAKE/owners";; *) cat "$FAKE/jobs";; esac'),
                           ("sinfo", 'cat "$FAKE/idle"')):
            path = os.path.join(self.fake, name)
            with open(path, "w") as f:
                f.write('#!/bin/sh\necho "%s $*" >> "$FAKE/calls"\n%s\n' % (name, body))
            os.chmod(path, 0o755)
        self.write("jobs", "7|RUNNING|2|node[1-2]|pdgemm\n8|RUNNING|1|node3|jacobi\n")
        self.write("owners", "7|%d\n8|%d\n" % (UID_A, UID_B))
        self.write("idle", "idle node[5-6]\n")
        self.write("calls", "")
        self.sock = os.path.join(self.dir, "arbiter.sock")
        self.state = os.path.join(self.dir, "state")
        self.log = os.path.join(self.dir, "arbiterd.log")
        self.proc = None
        self.tcp = None       # (host, port) the daemon listens on
        self.via_tcp = False  # send() over TCP instead of the Unix socket

    def write(self, name, text):
        with open(os.path.join(self.fake, "..", name), "w") as f:
            f.write(text)

    def start(self, interval=3600):
        env = dict(os.environ, PATH=self.fake + ":" + os.environ["PATH"], FAKE=self.dir)
        starts = open(self.log).read().count("listening on ") if os.path.exists(self.log) else 0
        self.proc = subprocess.Popen([self.daemon_bin, "--socket", self.sock, "--state-dir", self.state,
                                      "--listen", "127.0.0.1:0",  # loopback only; the kernel picks the port
                                      "--munge-socket", self.munge_sock, "--interval", str(interval),
                                      "--slurm-user", str(SLURM_UID), "--deadline", "5",
                                      "--max-connections", "8", "--bid-window", "0"],
                                     env=env, stderr=open(self.log, "a"))
        for _ in range(200):
            lines = [l for l in open(self.log).read().splitlines() if "listening on " in l]
            if len(lines) > starts and os.path.exists(self.sock):
                port = int(lines[-1].split("tcp://127.0.0.1:")[1].split(",")[0])
                self.tcp = ("127.0.0.1", port)
                try:
                    socket.socket(socket.AF_UNIX).connect(self.sock)
                    return
                except OSError:
                    pass
            time.sleep(0.05)
        raise RuntimeError("the daemon did not start: " + open(self.log).read())

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def cred(self, uid, body, ttl=None):
        cmd = ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups",
               "munge", "-S", self.munge_sock, "-s", body]
        if ttl:
            cmd += ["-t", str(ttl)]
        return subprocess.run(cmd, check=True, capture_output=True).stdout.strip()

    def connect(self):
        """A connection to the daemon over the transport in use."""
        if self.via_tcp:
            return socket.create_connection(self.tcp, timeout=10)
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.sock)
        return s

    def stop(self):
        self.proc.terminate()
        self.proc.wait()

    def send(self, payload):
        s = self.connect()
        s.sendall(frame(payload))
        try:
            return recv_reply(s)
        finally:
            s.close()

    def ask(self, uid, request):
        return self.send(self.cred(uid, json.dumps(dict(v=1, **request))))

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        pid = os.path.join(self.dir, "munged.pid")
        if os.path.exists(pid):
            try:
                mpid = int(open(pid).read())
                os.kill(mpid, signal.SIGTERM)
                # munged writes its seed file on the way out: wait for it, or that file
                # lands in a folder already removed and stays behind in /tmp
                for _ in range(100):
                    os.kill(mpid, 0)
                    time.sleep(0.05)
            except (OSError, ValueError):
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def arbitrate(job, hosts, pays=True, min_nodes=1, hold=False):
    growth = [dict(n=n, pays=pays, saving_s=50.0 * n, why="test", pi=-1, pr=-1, mi=-1, left=-1) for n in (1, 2, 3)]
    growth += [dict(n=-1, pays=False, saving_s=-1000.0, why="test", pi=-1, pr=-1, mi=-1, left=-1)]
    return dict(kind="arbitrate", job=job, rank_hosts=hosts, per_node=1, min_nodes=min_nodes, max_nodes=4,
                hold=hold, bid_ttl_s=600, growth=growth)


def send_bad(s, kind, rnd, good_cred, bad_bodies):
    """One bad frame of the given kind (0-4)."""
    if kind == 0:  # a length over the limit
        s.sendall(struct.pack(">I", 65537 + rnd.randrange(1 << 30)) + b"x" * 16)
    elif kind == 1:  # truncated: half of a good frame, then closed
        f = frame(good_cred)
        s.sendall(f[:rnd.randrange(1, len(f))])
        s.shutdown(socket.SHUT_WR)
    elif kind == 2:  # random bytes in a frame
        s.sendall(frame(bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 300)))))
    elif kind == 3:  # a good credential with bytes changed
        b = bytearray(good_cred)
        for _ in range(3):
            b[rnd.randrange(len(b))] = rnd.randrange(32, 127)
        s.sendall(frame(bytes(b)))
    else:  # a bad body in a valid credential (replayed after its first use)
        s.sendall(frame(bad_bodies[rnd.randrange(len(bad_bodies))]))


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok: " + what)


def robustness(rig, count, rnd, good_cred, bad_bodies, how):
    """Bad frames, silent clients and the cap over the transport rig.connect() uses."""
    answered = dropped = 0
    t0 = time.monotonic()
    for i in range(count):
        s = rig.connect()
        kind = i % 5
        try:
            send_bad(s, kind, rnd, good_cred, bad_bodies)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon refused and closed first
        r = recv_reply(s)
        s.close()
        if r is None:
            dropped += 1
        else:
            answered += 1
            if r["ok"]:
                raise AssertionError("a bad frame was accepted: kind %d" % kind)
    check(answered + dropped == count and rig.proc.poll() is None,
          "%s: %d bad frames refused (%d answered with a refusal, %d closed; %.1f s), the daemon up"
          % (how, count, answered, dropped, time.monotonic() - t0))
    check(rig.ask(UID_A, dict(kind="status"))["ok"], how + ": " + "a good request is answered after them")

    # A silent client and a half frame hold their own connections only.
    silent = rig.connect()
    half = rig.connect()
    half.sendall(frame(good_cred)[:10])
    check(rig.ask(UID_A, dict(kind="status"))["ok"], how + ": " + "a request is answered while two clients stay silent")
    silent.settimeout(15)
    check(silent.recv(1) == b"", how + ": " + "the silent client is closed at its deadline")
    half.close()
    # The cap: 8 silent connections open, the ninth is turned away (closed), not queued.
    held = [rig.connect() for _ in range(8)]
    time.sleep(0.3)  # let the daemon accept them: ordering, not a measurement
    extra = rig.connect()
    try:
        extra.sendall(frame(good_cred))
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed before the request went out: turned away
    check(recv_reply(extra, 15) is None, how + ": " + "over the cap a connection is closed, not queued")
    for h in held:
        h.close()
    r = None
    for _ in range(50):  # the daemon sees them closed at its next poll: ordering, not timing
        r = rig.ask(UID_A, dict(kind="status"))
        if r is not None:
            break
        time.sleep(0.1)
    check(r is not None and r["ok"], how + ": " + "answered again once the silent ones are gone")

def ledger_of(rig, job):
    st = rig.ask(UID_A, dict(kind="status"))
    return [e for e in st["status"]["ledger"] if e["job"] == job]


def main():
    rig = Rig(sys.argv[1])
    try:
        rig.start()
        st = rig.ask(UID_A, dict(kind="status"))
        check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == ["7", "8"], "status lists the two jobs")

        # uid B about uid A's job 7: each kind of entry it could write, each refused.
        tries = {"bid": arbitrate("7", ["node1", "node2"]),
                 "claim": arbitrate("7", ["node1", "node2"]),
                 "promise": arbitrate("7", ["node1", "node2"], min_nodes=1),
                 "release": dict(kind="settle", job="7", promises_too=True)}
        for kind, req in tries.items():
            r = rig.ask(UID_B, req)
            check(not r["ok"] and "uid %d does not own job 7" % UID_B in r["error"], "uid B's %s for job 7 refused" % kind)
        log = open(rig.log).read()
        check(log.count("uid %d refused: uid %d does not own job 7" % (UID_B, UID_B)) == 4, "the 4 refusals logged with uid")
        check(ledger_of(rig, "7") == [], "no entry of job 7 after B's tries")

        # A's own job: a bid, then a claim.
        rules = [rig.ask(UID_A, arbitrate("7", ["node1", "node2"]))["rule"] for _ in range(3)]
        check("acquire" in rules, "job 7's owner gets a plan (%s)" % rules)
        claims = [e for e in ledger_of(rig, "7") if e["kind"] == "claim"]
        check(len(claims) == 1, "one claim of job 7 in the ledger")
        out = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", rig.daemon_bin,
                              "--status", rig.sock, "--munge-socket", rig.munge_sock],
                             check=True, capture_output=True, text=True).stdout
        st = json.loads(out)
        check([e["kind"] for e in st["ledger"] if e["job"] == "7"] == ["claim"]
              and any(d.get("rule") == "acquire" for d in st["recent"])
              and any("does not own job 7" in d.get("refused", "") for d in st["recent"]),
              "--status (as uid B) shows the claim, the decision and the refusals")
        # SlurmUser may ask about any job.
        check(rig.ask(SLURM_UID, arbitrate("8", ["node3"], pays=False))["ok"], "SlurmUser may ask about job 8")

        # A replayed credential, an expired one.
        c = rig.cred(UID_B, json.dumps(dict(v=1, kind="status")))
        check(rig.send(c)["ok"], "a fresh credential is taken")
        r = rig.send(c)
        check(not r["ok"] and "Replayed" in r["error"], "the same credential again is refused (%s)" % r.get("error"))
        c = rig.cred(UID_B, json.dumps(dict(v=1, kind="status")), ttl=1)
        time.sleep(2.2)  # past the credential's time-to-live: a wait, not a measurement
        r = rig.send(c)
        check(not r["ok"] and "Expired" in r["error"], "an expired credential is refused (%s)" % r.get("error"))

        # 10,000 bad frames.
        rnd = random.Random(55)
        good_cred = rig.cred(UID_A, json.dumps(dict(v=1, kind="status")))
        bad_bodies = [rig.cred(UID_A, b) for b in ('{"v":1,"kind":"status","x":1}', "[1]", "{", '{"v":1}',
                                                     '{"v":1,"kind":"settle","job":"7;rm","promises_too":true}')]
        check(rig.send(good_cred)["ok"], "used once, so that its copies below are replays at best")
        robustness(rig, BAD_FRAMES, rnd, good_cred, bad_bodies, "unix")

        # kill -9, restart: the claim is there once.
        before = ledger_of(rig, "7")
        rig.kill9()
        rig.start()
        after = ledger_of(rig, "7")
        check(before == after and sum(e["kind"] == "claim" for e in after) == 1,
              "after kill -9 and a restart the ledger holds job 7's claim once (before %s, after %s)" % (before, after))
        check(oct(os.stat(os.path.join(rig.state, "journal")).st_mode & 0o777) == "0o600", "the journal is 0600")
        # Job 8 does not get job 7's claimed nodes.
        claimed = set(after[0]["nodes"]) if after and after[0]["kind"] == "claim" else set()
        for e in after:
            if e["kind"] == "claim":
                claimed = set(e["nodes"])
        for _ in range(3):
            r = rig.ask(UID_B, arbitrate("8", ["node3"]))
            check(r["ok"] and not (set(r["nodes"]) & claimed), "job 8's plan (%s) avoids job 7's claim" % r["rule"])

        # The library's Slurm policy against the daemon, as job 8's owner (a gtest case).
        unit = os.path.join(os.path.dirname(rig.daemon_bin), "..", "tests", "resize", "resize_unit")
        if os.path.exists(unit):
            env = dict(os.environ, ARBITER_LIVE_SOCKET=rig.sock, ARBITER_LIVE_MUNGE=rig.munge_sock)
            p = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", unit,
                                "--gtest_filter=ArbiterLive.*"], env=env, capture_output=True, text=True)
            check(p.returncode == 0 and "[  PASSED  ] 1 test" in p.stdout,
                  "the library's policy asks the daemon with its user's credential" + ("" if p.returncode == 0 else ":\n" + p.stdout[-2000:]))

        # The same over TCP on 127.0.0.1.
        rig.via_tcp = True
        st = rig.ask(UID_A, dict(kind="status"))
        check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == ["7", "8"], "tcp: status lists the two jobs")
        refusal = "uid %d refused: uid %d does not own job 7" % (UID_B, UID_B)
        before = open(rig.log).read().count(refusal)
        r = rig.ask(UID_B, dict(kind="settle", job="7", promises_too=True))
        check(not r["ok"] and "uid %d does not own job 7" % UID_B in r["error"], "tcp: uid B's release for job 7 refused")
        check(open(rig.log).read().count(refusal) == before + 1,
              "tcp: the refusal logged with the uid")
        c = rig.cred(UID_A, json.dumps(dict(v=1, kind="status")))
        check(rig.send(c)["ok"] and "Replayed" in rig.send(c)["error"], "tcp: a replayed credential is refused")
        robustness(rig, max(BAD_FRAMES // 4, 100), rnd, good_cred, bad_bodies, "tcp")
        if os.path.exists(unit):
            env = dict(os.environ, ARBITER_LIVE_SOCKET="tcp://127.0.0.1:%d" % rig.tcp[1], ARBITER_LIVE_MUNGE=rig.munge_sock)
            p = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", unit,
                                "--gtest_filter=ArbiterLive.*"], env=env, capture_output=True, text=True)
            check(p.returncode == 0 and "[  PASSED  ] 1 test" in p.stdout,
                  "tcp: the library's policy asks the daemon at tcp://127.0.0.1:PORT" + ("" if p.returncode == 0 else ":\n" + p.stdout[-2000:]))
        rig.via_tcp = False

        calls = open(os.path.join(rig.dir, "calls")).read().splitlines()
        check(len(calls) == 6, "Slurm asked 3 commands per view, one view per start: %d calls" % len(calls))

        # A slow Slurm: the view is taken on the side, requests are answered from the last one.
        rig.stop()
        rig.start(interval=1)
        st = rig.ask(UID_A, dict(kind="status"))  # the first view (Slurm quick)
        check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == ["7", "8"], "interval 1: the first view")
        rig.write("jobs", "7|RUNNING|2|node[1-2]|pdgemm\n8|RUNNING|1|node3|jacobi\n9|RUNNING|1|node4|cg\n")
        rig.write("owners", "7|%d\n8|%d\n9|%d\n" % (UID_A, UID_B, UID_A))
        rig.write("slow", "")
        blocked = os.path.join(rig.dir, "blocked")
        time.sleep(1.5)  # past the interval, so that the next request starts a new view: a wait, not a measurement
        r = rig.ask(UID_A, dict(kind="status"))
        check(r is not None and r["ok"] and [j["id"] for j in r["status"]["jobs"]] == ["7", "8"],
              "a stale view: the request that starts a new one is answered from the last")
        for _ in range(100):  # until the daemon's squeue is blocked: ordering, not timing
            if os.path.exists(blocked):
                break
            time.sleep(0.1)
        check(os.path.exists(blocked), "the daemon's squeue is blocked (the fake slow Slurm)")
        for how in (False, True):
            rig.via_tcp = how
            r = rig.ask(UID_B, arbitrate("8", ["node3"]))
            check(r is not None and r["ok"] and os.path.exists(os.path.join(rig.dir, "slow")),
                  "%s: another client is answered while squeue is blocked (%s)" % ("tcp" if how else "unix", r and r.get("rule")))
        rig.via_tcp = False
        os.unlink(os.path.join(rig.dir, "slow"))
        jobs = []
        for _ in range(300):  # the new view arrives once squeue returns (generous: 30 s)
            st = rig.ask(UID_A, dict(kind="status"))
            jobs = [j["id"] for j in st["status"]["jobs"]]
            if "9" in jobs:
                break
            time.sleep(0.1)
        check(jobs == ["7", "8", "9"], "the new view is taken once Slurm answers (%s)" % jobs)
        check("asking Slurm failed" not in open(rig.log).read(), "no Slurm query failed (none hit the 20-s timeout)")
        return 0
    except AssertionError as e:
        print("FAIL: %s" % e)
        print(open(rig.log).read()[-3000:])
        return 1
    finally:
        rig.close()


if __name__ == "__main__":
    sys.exit(main())
