#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""malleable-arbiterd live, without a cluster: its own munged in a scratch directory, a
fake Slurm on PATH (squeue, sinfo and sacctmgr print recorded output and count their calls), two
uids. Checks, each against the running daemon:
  - uid B's requests about uid A's job (bid, claim, promise, release) are each refused and
    logged with the uid and the reason, and leave the ledger without an entry of A's job;
  - A's own requests are arbitrated (a bid, then a claim of idle nodes);
  - a replayed credential and an expired one are refused;
  - protocol version 2: the daemon sends each connection a challenge first; a
    request of uid A recorded by uid B on a socket and a TCP port B holds (the daemon down)
    cannot be read there (its credential is restricted to the daemon's uid) and, relayed to
    the daemon, is refused (made for another connection's challenge), the ledger untouched;
    a request any uid could read is refused; a key given twice, bytes after the JSON and
    bytes after the credential in its frame are refused with the reason and logged;
  - 250 refused requests of uid B leave uid A's decisions in A's status and the journal
    (they were kept in one shared list, and B's pushed A's out);
  - the fuzz: 10,000 generated bad frames (ARBITER_BAD_FRAMES; seeded; 13 kinds: oversized,
    truncated, random bytes, changed or cut credentials, malformed bodies and uid B's
    requests about A's job in fresh credentials, ...) are each refused or closed as their
    kind allows, none stuck past 15 s, while a silent and a slow client stay connected and
    another client's good requests are answered; the daemon stays up;
  - a silent client and one that sends half a frame do not block another's request;
  - the connection cap turns connections away instead of queueing them for ever;
  - kill -9 and a restart keep the ledger: the claim once, not lost, not doubled;
  - QOS limits (a fake sacctmgr: job 7's QOS small has MaxTRESPerJob node=3): job 7's
    growth is capped at 1 of the 2 idle nodes, the reason in the reply, the status's
    recent decisions and the log;
  - Slurm was asked once per view (interval 3600 s): three commands per daemon start (one
    squeue, whose uid= field gives the owners, sinfo, sacctmgr);
  - over TCP on 127.0.0.1 (the daemon's `--listen 127.0.0.1:0`, loopback only): the same
    answers, refusals, bad frames, silent clients, and the library's client (tcp://);
  - a slow Slurm (the fake squeue blocks until the test lets it go) does not hold the
    daemon: requests are answered from the last view while the new one is being taken;
  - sacctmgr failing (no slurmdbd) at --qos-interval 1 over several views: the daemon still
    arbitrates, logs the failure once, and its status says no QOS limit is applied;
  - more recent decisions than a reply's frame holds: a status is still answered (the
    oldest left out), the daemon stays up;
  - --max-connections-per-uid 3: root's 4th and 5th silent connection on the Unix socket
    are closed at accept, logged once (per uid and minute), counted in status, while uid
    B's request and a TCP client's (capped per address) still go through;
  - --socket-group: the socket 0660 with that group; a group that does not exist stops
    the start with a clear error and exit code 1, no socket left behind;
  - --extend-limits on at a start below the node range (a fake scontrol and sacct: job 7
    submitted -N 2-3 --time=4, started on 2): one `scontrol update JobId=7 TimeLimit=6`
    (4 min x 3/2, the job's model saying nothing: perfect scaling, the cap), its journal
    line and log line; more views, requests and a kill -9 with a restart: never again.
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
# Bad frames the fuzz sends to the live daemon over the Unix socket (a tenth of it again
# over TCP).
BAD_FRAMES = int(os.environ.get("ARBITER_BAD_FRAMES", "10000"))


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def frame(payload):
    return struct.pack(">I", len(payload)) + payload


class Munge:
    """libmunge in this (root's) process, through ctypes: the daemon's replies are MUNGE
    credentials of its uid (root here) whose payload is the reply's JSON."""
    MUNGE_OPT_SOCKET = 8

    def __init__(self, sock):
        import ctypes
        self.c = ctypes
        self.lib = ctypes.CDLL("libmunge.so.2")
        self.libc = ctypes.CDLL(None)
        self.lib.munge_ctx_create.restype = ctypes.c_void_p
        self.lib.munge_ctx_strerror.restype = ctypes.c_char_p
        self.lib.munge_decode.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_uint),
                                          ctypes.POINTER(ctypes.c_uint)]
        self.sock = sock
        self.ctx = ctypes.c_void_p(self.lib.munge_ctx_create())
        if self.lib.munge_ctx_set(self.ctx, self.MUNGE_OPT_SOCKET, ctypes.c_char_p(sock.encode())) != 0:
            raise RuntimeError("munge_ctx_set failed")

    def decode(self, cred):
        """(uid, payload bytes) of a credential; raises ValueError with munge's reason."""
        c = self.c
        buf, n, uid, gid = c.c_void_p(), c.c_int(), c.c_uint(), c.c_uint()
        if self.lib.munge_decode(cred, self.ctx, c.byref(buf), c.byref(n), c.byref(uid), c.byref(gid)) != 0:
            raise ValueError(self.lib.munge_ctx_strerror(self.ctx).decode())
        payload = c.string_at(buf, n.value) if buf.value else b""
        self.libc.free(buf)
        return uid.value, payload


MUNGE = None  # set when the rig's munged runs
DAEMON_UID = 0  # the daemon runs as root here: its replies are root's credentials

# A reply to an authenticated request only its uid can decode (MUNGE's uid restriction;
# root cannot either): it is decoded by a process of that uid, one per uid, a credential a
# line in, "UID PAYLOAD-HEX" or "ERROR why" a line out.
DECODER = r"""
import ctypes, sys
lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
lib.munge_ctx_strerror.restype = ctypes.c_char_p
ctx = ctypes.c_void_p(lib.munge_ctx_create())
lib.munge_ctx_set(ctx, 8, ctypes.c_char_p(sys.argv[1].encode()))
for line in sys.stdin.buffer:
    buf, n, uid, gid = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_uint(), ctypes.c_uint()
    if lib.munge_decode(ctypes.c_char_p(line.strip()), ctx, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(uid),
                        ctypes.byref(gid)) != 0:
        print("ERROR " + lib.munge_ctx_strerror(ctx).decode(), flush=True)
    else:
        print("%d %s" % (uid.value, ctypes.string_at(buf, n.value).hex()), flush=True)
"""
DECODERS = {}


def decode_as(uid, cred):
    """(uid, payload) of `cred` decoded by a process of `uid` (None: root, in this process)."""
    if uid is None or uid == 0:
        return MUNGE.decode(cred)
    if uid not in DECODERS:
        DECODERS[uid] = subprocess.Popen(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--",
                                          sys.executable, "-c", DECODER, MUNGE.sock],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    d = DECODERS[uid]
    d.stdin.write(cred.strip() + b"\n")
    d.stdin.flush()
    line = d.stdout.readline().decode().strip()
    if line.startswith("ERROR") or not line:
        raise ValueError(line)
    who, hexed = line.split(" ", 1) if " " in line else (line, "")
    return int(who), bytes.fromhex(hexed)


# Credentials made by a process of the uid, one per line (a JSON string in, the credential
# out), restricted to the daemon's uid (MUNGE_OPT_UID_RESTRICTION, 9) as protocol version 2
# wants: only the daemon can read a request.
ENCODER_LINES = r"""
import ctypes, json, sys
lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
lib.munge_encode.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
ctx = ctypes.c_void_p(lib.munge_ctx_create())
lib.munge_ctx_set(ctx, 8, ctypes.c_char_p(sys.argv[1].encode()))
if int(sys.argv[2]) >= 0:
    lib.munge_ctx_set(ctx, 9, ctypes.c_uint(int(sys.argv[2])))
for line in sys.stdin:
    b = json.loads(line).encode("utf-8", "surrogateescape")
    cred = ctypes.c_char_p()
    if lib.munge_encode(ctypes.byref(cred), ctx, b, len(b)) != 0:
        print("ERROR", flush=True)
    else:
        print(cred.value.decode(), flush=True)
"""
ENCODERS = {}


def encode_as(uid, body, only=None):
    """A credential of `uid` for `body` (str), only the daemon's uid able to decode it
    (`only`: another uid; -1: any uid)."""
    only = DAEMON_UID if only is None else only
    if (uid, only) not in ENCODERS:
        ENCODERS[(uid, only)] = subprocess.Popen(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--",
                                                  sys.executable, "-c", ENCODER_LINES, MUNGE.sock, str(only)],
                                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    e = ENCODERS[(uid, only)]
    e.stdin.write(json.dumps(body) + "\n")
    e.stdin.flush()
    line = e.stdout.readline().strip()
    if not line or line == "ERROR":
        raise RuntimeError("encoding a credential as uid %d failed" % uid)
    return line.encode()


def read_challenge(s, limit=10):
    """The daemon's first frame on a new connection: its challenge (None: closed first,
    e.g. turned away at accept)."""
    s.settimeout(limit)
    data = b""
    try:
        while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
            want = 4 - len(data) if len(data) < 4 else 4 + struct.unpack(">I", data[:4])[0] - len(data)
            chunk = s.recv(want)  # exactly the frame: what follows is the reply's
            if not chunk:
                return None
            data += chunk
    except (ConnectionResetError, socket.timeout):
        return None
    j = json.loads(data[4:])
    if set(j) != {"v", "challenge"} or j["v"] != 2:
        raise AssertionError("the daemon's first frame is not a challenge: %r" % data[:200])
    return j["challenge"]


def request_body(request, challenge):
    return json.dumps(dict(v=2, challenge=challenge, **request))


def open_reply(frame_payload, uid=None):
    """The reply's JSON from its frame: a MUNGE credential of the daemon's uid, decoded as
    the uid that asked (`uid`; None: one nobody in particular asked, readable by all)."""
    who, payload = decode_as(uid, frame_payload)
    if who != DAEMON_UID:
        raise AssertionError("a reply of uid %d, not the daemon's" % who)
    return json.loads(payload)


def recv_reply(s, limit=10, uid=None):
    s.settimeout(limit)
    data = b""
    while True:
        if len(data) >= 4:
            n = struct.unpack(">I", data[:4])[0]
            if len(data) >= 4 + n:
                return open_reply(data[4:4 + n], uid)
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return None
        data += chunk


class Rig:
    def __init__(self, build):
        self.daemon_bin = os.path.join(build, "cluster", "malleable-arbiterd")
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
        global MUNGE
        MUNGE = Munge(self.munge_sock)
        self.fake = os.path.join(self.dir, "bin")
        os.mkdir(self.fake)
        # squeue blocks while $FAKE/slow exists (the daemon's timeout ends it at worst)
        slow = 'while [ -e "$FAKE/slow" ]; do touch "$FAKE/blocked"; sleep 0.1; done\n'
        # sacctmgr answers $FAKE/qos; without it, as with no slurmdbd (status 1)
        no_dbd = 'echo "sacctmgr: error: Problem talking to the database: Connection refused"; exit 1'
        # squeue prints $FAKE/jobs.json through the format it is asked for (-o), as Slurm
        # 22.05 prints it (FAKE_SQUEUE): whatever format the daemon asks for
        with open(os.path.join(self.dir, "squeue.py"), "w") as f:
            f.write(FAKE_SQUEUE)
        for name, body in (("squeue", slow + 'exec %s "$FAKE/squeue.py" "$@"' % sys.executable),
                           ("sinfo", 'cat "$FAKE/idle"'),
                           ("sacctmgr", '[ -e "$FAKE/qos" ] || { %s; }\ncat "$FAKE/qos"' % no_dbd)):
            path = os.path.join(self.fake, name)
            with open(path, "w") as f:
                f.write('#!/bin/sh\necho "%s $*" >> "$FAKE/calls"\n%s\n' % (name, body))
            os.chmod(path, 0o755)
        self.jobs([squeue_job("7", 2, "node[1-2]", "pdgemm", "small", UID_A),
                   squeue_job("8", 1, "node3", "jacobi", "normal", UID_B)])
        self.write("qos", "normal|||\nsmall|node=3||\n")  # job 7 holds 2: 1 more
        self.write("idle", "idle node[5-6]\n")
        self.write("calls", "")
        self.sock = os.path.join(self.dir, "arbiter.sock")
        self.state = os.path.join(self.dir, "state")
        self.log = os.path.join(self.dir, "arbiterd.log")
        self.proc = None
        self.tcp = None       # (host, port) the daemon listens on
        self.via_tcp = False  # send() over TCP instead of the Unix socket
        self.challenges = {}  # socket -> the challenge the daemon sent it (None: closed first)

    def jobs(self, jobs):
        """What the fake squeue lists: dicts of squeue's format letters (squeue_job)."""
        with open(os.path.join(self.dir, "jobs.json"), "w") as f:
            json.dump(jobs, f)

    def write(self, name, text):
        with open(os.path.join(self.fake, "..", name), "w") as f:
            f.write(text)

    def start(self, interval=3600, extra=(), prefix=()):
        env = dict(os.environ, PATH=self.fake + ":" + os.environ["PATH"], FAKE=self.dir)
        starts = open(self.log).read().count("listening on ") if os.path.exists(self.log) else 0
        self.proc = subprocess.Popen([*prefix, self.daemon_bin, "--socket", self.sock, "--state-dir", self.state,
                                      "--listen", "127.0.0.1:0",  # loopback only; the kernel picks the port
                                      "--munge-socket", self.munge_sock, "--interval", str(interval),
                                      "--slurm-user", str(SLURM_UID), "--deadline", "5",
                                      "--max-connections", "8", "--bid-window", "0", *extra],
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
               "munge", "-S", self.munge_sock, "-u", str(DAEMON_UID), "-s", body]
        if ttl:
            cmd += ["-t", str(ttl)]
        return subprocess.run(cmd, check=True, capture_output=True).stdout.strip()

    def connect(self, challenge=True):
        """A connection to the daemon over the transport in use, its challenge read (the
        daemon has accepted it: the event, not a wait), unless challenge=False."""
        if self.via_tcp:
            s = socket.create_connection(self.tcp, timeout=10)
        else:
            s = socket.socket(socket.AF_UNIX)
            s.connect(self.sock)
        if challenge:
            self.challenges[s] = read_challenge(s)
        return s

    def stop(self):
        self.proc.terminate()
        self.proc.wait()

    def send(self, payload, uid=None):
        """The reply to `payload` (a credential of `uid`: the reply is decoded as that uid),
        sent on a new connection whatever its challenge (replays, recorded requests)."""
        s = self.connect()
        s.sendall(frame(payload))
        try:
            return recv_reply(s, uid=uid)
        finally:
            s.close()
            self.challenges.pop(s, None)

    def ask_cred(self, uid, request):
        """(the reply, the credential sent): uid's request made for a new connection's challenge."""
        s = self.connect()
        try:
            c = encode_as(uid, request_body(request, self.challenges[s]))
            s.sendall(frame(c))
            return recv_reply(s, uid=uid), c
        finally:
            s.close()
            self.challenges.pop(s, None)

    def ask(self, uid, request):
        return self.ask_cred(uid, request)[0]

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        for d in list(DECODERS.values()) + list(ENCODERS.values()):
            d.kill()
            d.wait()
        DECODERS.clear()
        ENCODERS.clear()
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


def squeue_job(job, nodes, nodelist, name, qos, uid, state="RUNNING", comment="(null)"):
    """A job as the fake squeue knows it: its fields by squeue's format letters."""
    return dict(i=job, T=state, D=str(nodes), N=nodelist, j=name, r="None", Q="1", V="", P="", S="", Y="",
                q=qos, U=str(uid), k=comment, L="UNLIMITED")


# The fake squeue: $FAKE/jobs.json printed through -o FORMAT as Slurm 22.05's squeue prints
# it (print.c, _print_str: "%[.][W]x" is field x cut at W bytes and padded with blanks to
# W, right-justified with '.'; the whole value without W; other text as it stands), with
# -j ID and -t STATES (PD, R) filters. Bytes in the fields go out as they are.
FAKE_SQUEUE = r"""
import json, os, sys
args = sys.argv[1:]
fmt, only, states = "%i", None, None
for k, a in enumerate(args):
    if a == "-o": fmt = args[k + 1]
    if a == "-j": only = args[k + 1].split(",")
    if a == "-t": states = {"PD": "PENDING", "R": "RUNNING"}.get(args[k + 1], args[k + 1])
jobs = json.load(open(os.path.join(os.environ["FAKE"], "jobs.json")))
out = b""
for job in jobs:
    if (only and job["i"] not in only) or (states and job["T"] != states):
        continue
    k = 0
    while k < len(fmt):
        c = fmt[k]
        if c != "%":
            out += c.encode()
            k += 1
            continue
        k += 1
        right = fmt[k] == "."
        if right:
            k += 1
        w = 0
        while fmt[k].isdigit():
            w = w * 10 + int(fmt[k])
            k += 1
        v = job.get(fmt[k], "").encode("utf-8", "surrogateescape")
        k += 1
        if w:
            v = v[:w]
            v = (b" " * (w - len(v)) + v) if right else (v + b" " * (w - len(v)))
        out += v
    out += b"\n"
sys.stdout.buffer.write(out)
"""


def arbitrate(job, hosts, pays=True, min_nodes=1, hold=False):
    growth = [dict(n=n, pays=pays, saving_s=50.0 * n, why="test", pi=-1, pr=-1, mi=-1, left=-1) for n in (1, 2, 3)]
    growth += [dict(n=-1, pays=False, saving_s=-1000.0, why="test", pi=-1, pr=-1, mi=-1, left=-1)]
    return dict(kind="arbitrate", job=job, rank_hosts=hosts, per_node=1, min_nodes=min_nodes, max_nodes=4,
                hold=hold, bid_ttl_s=600, growth=growth)


# Credentials in bulk: libmunge through ctypes, in a child that runs as the uid (setpriv),
# about 0.3 ms each instead of a process per credential.
ENCODER = r"""
import ctypes, json, sys
lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
lib.munge_encode.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
ctx = lib.munge_ctx_create()
if lib.munge_ctx_set(ctypes.c_void_p(ctx), 8, ctypes.c_char_p(sys.argv[1].encode())) != 0:  # MUNGE_OPT_SOCKET
    sys.exit("munge_ctx_set failed")
if lib.munge_ctx_set(ctypes.c_void_p(ctx), 9, ctypes.c_uint(int(sys.argv[2]))) != 0:  # MUNGE_OPT_UID_RESTRICTION
    sys.exit("munge_ctx_set failed")
out = []
for body in json.load(sys.stdin):
    cred = ctypes.c_char_p()
    b = body.encode("utf-8", "surrogateescape")
    if lib.munge_encode(ctypes.byref(cred), ctypes.c_void_p(ctx), b, len(b)) != 0:
        sys.exit("munge_encode failed")
    out.append(cred.value.decode())
json.dump(out, sys.stdout)
"""


def creds(rig, uid, bodies):
    """Fresh MUNGE credentials of `uid`, one per body (str; bytes as surrogate escapes)."""
    p = subprocess.run(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups",
                        sys.executable, "-c", ENCODER, rig.munge_sock, str(DAEMON_UID)],
                       input=json.dumps(bodies), capture_output=True, text=True, errors="surrogateescape")
    if p.returncode != 0:
        raise RuntimeError("encoding credentials as uid %d: %s" % (uid, p.stderr))
    return [c.encode() for c in json.loads(p.stdout)]


def bad_body(rnd):
    """A request's JSON that the daemon's strict parser must refuse (each shape is invalid
    whatever the random values: an unknown key, a wrong type, a value out of range, a
    version or kind that does not exist, a proper prefix of an object, a non-object, deep
    nesting under an unknown key, bytes that are not UTF-8, a growth entry out of range)."""
    ch = "%032x" % rnd.getrandbits(128)
    base = rnd.choice([dict(v=2, challenge=ch, kind="status"), dict(v=2, challenge=ch, kind="settle", job="7", promises_too=False),
                       dict(v=2, challenge=ch, **arbitrate("7", ["node1", "node2"]))])
    shape = rnd.randrange(11)
    if shape == 0:
        base["x%d" % rnd.randrange(1000)] = rnd.choice([1, "a", None, [], {}])
    elif shape == 1:
        base["v"] = rnd.choice([0, 1, 3, -1, "2", 1.5, None, True])
    elif shape == 2:
        base["kind"] = rnd.choice(["grab", "", "STATUS", 1, None, ["status"]])
    elif shape == 3 and base["kind"] != "status":
        key = rnd.choice(sorted(k for k in base if k not in ("v", "kind", "challenge")))
        base[key] = {"job": rnd.choice([7, None, [], "", "7;rm -rf /", "x" * 300]),
                     "promises_too": rnd.choice([1, "true", None]),
                     "rank_hosts": rnd.choice(["node1", [1, 2], [None], {}]),
                     "per_node": rnd.choice([0, -1, 5000, 10 ** 12, "2", 1.5]),
                     "min_nodes": rnd.choice([-1, "1", 10 ** 12, None]),
                     "max_nodes": rnd.choice([-1, "4", 10 ** 12, None]),
                     "hold": rnd.choice([1, "false", None]),
                     "bid_ttl_s": rnd.choice([-1, "600", None, 1e300]),
                     "growth": rnd.choice([{}, "x", [1], [dict(n="1")], [dict(n=1)]])}[key]
    elif shape == 3:
        base["job"] = "7"  # status takes no job
    elif shape == 4:
        text = json.dumps(base)
        return text[:rnd.randrange(1, len(text))]
    elif shape == 5:
        return rnd.choice(["[1]", '"status"', "123", "null", "true", "", " ", "{", "}", "{]", "{}"])
    elif shape == 6:
        d = rnd.randrange(1000, 15000)
        return json.dumps(base)[:-1] + ',"deep":' + "[" * d + "]" * d + "}"
    elif shape == 7:
        return json.dumps(base)[:-1] + ',"x":"\udcff\udcfe"}'  # lone bytes 0xff 0xfe: not UTF-8
    elif shape == 8:
        return json.dumps(base) + rnd.choice(["x", "{}", " 1", "]"])  # trailing text
    elif shape == 9:
        return json.dumps(base).replace('"v": 2', '"v": NaN' if rnd.random() < 0.5 else '"v": 1e999')
    else:
        a = dict(v=2, challenge=ch, **arbitrate("7", ["node1", "node2"]))
        g = [dict(n=rnd.randrange(-4, 64), pays=False, saving_s=0.0, why="w", pi=-1, pr=-1, mi=-1, left=-1)
             for _ in range(rnd.randrange(100, 3000))]
        g.append(dict(n=rnd.choice([0, 100000, -100000]), pays=False, saving_s=0.0, why="w", pi=-1, pr=-1, mi=-1, left=-1))
        a["growth"] = g
        return json.dumps(a)
    return json.dumps(base)


# The fuzz's kinds of frames, and what the daemon may do with each: answer with a refusal
# ("refusal"), close without a reply ("closed"), or either ("either": it answers, then
# closes with bytes unread, and the kernel may reset the connection before the reply is
# read). Never an ok reply, never a connection left open past its deadline.
FUZZ_KINDS = [("oversized length", "either"), ("a good frame cut short, then EOF", "closed"),
              ("a length cut short, then EOF", "closed"), ("an empty frame", "refusal"),
              ("random bytes", "refusal"), ("a credential with bytes changed", "refusal"),
              ("a credential cut short inside a whole frame", "refusal"),
              ("a length longer than the bytes, then EOF", "closed"),
              ("random bytes and trailing bytes past the frame", "either"),
              ("a bad body in a fresh credential", "refusal"),
              ("uid B's request about uid A's job in a fresh credential", "refusal"),
              ("random bytes sent a few bytes at a time", "refusal"),
              ("a frame at the size limit", "either")]


def fuzz_frame(kind, rnd, good_cred, fresh_bad, fresh_forged):
    """(bytes to send, whether to shut the sending side after them, pieces to send in)."""
    if kind == 0:
        return struct.pack(">I", kMaxFrame + 1 + rnd.randrange(1 << 31)) + os.urandom(rnd.randrange(64)), False, 1
    if kind == 1:
        f = frame(good_cred)
        return f[:rnd.randrange(1, len(f))], True, 1
    if kind == 2:
        return struct.pack(">I", rnd.randrange(1, 1000))[:rnd.randrange(1, 4)], True, 1
    if kind == 3:
        return frame(b""), False, 1
    if kind == 4:
        return frame(bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 2000)))), False, 1
    if kind == 5:
        b = bytearray(good_cred)
        for _ in range(rnd.randrange(1, 8)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        return frame(bytes(b)), False, 1
    if kind == 6:
        return frame(good_cred[:rnd.randrange(0, len(good_cred))]), False, 1
    if kind == 7:
        body = os.urandom(rnd.randrange(0, 500))
        return struct.pack(">I", len(body) + rnd.randrange(1, 5000)) + body, True, 1
    if kind == 8:
        return frame(os.urandom(rnd.randrange(1, 300))) + os.urandom(rnd.randrange(1, 300)), False, 1
    if kind == 9:
        return frame(fresh_bad.pop()), False, 1
    if kind == 10:
        return frame(fresh_forged.pop()), False, 1
    if kind == 11:
        return frame(os.urandom(rnd.randrange(1, 400))), False, rnd.randrange(2, 12)
    return frame(os.urandom(kMaxFrame - rnd.randrange(0, 2))), False, 1


kMaxFrame = 64 * 1024  # the daemon's default --max-frame (protocol.hpp, kMaxFrame)
STUCK_S = 15  # the daemon's deadline is 5 s: a connection open past 15 s is stuck


def fuzz(rig, count, rnd, good_cred, how, window=3):
    """`count` generated bad frames (FUZZ_KINDS in turn, the values seeded), `window` at a
    time, each on its own connection, while a silent client and a slow one (a byte of a
    frame every 0.2 s) stay connected (reopened when the daemon closes them at their
    deadline) and a good request is sent every 500 frames: each bad connection is answered
    with a refusal or closed, as its kind allows, within STUCK_S; each good request is
    answered; the daemon stays up."""
    import selectors
    per = (count + len(FUZZ_KINDS) - 1) // len(FUZZ_KINDS)
    fresh_bad = creds(rig, UID_A, [bad_body(rnd) for _ in range(per)])
    forged = []
    for _ in range(per):  # B's bid, claim, promise or release for A's job 7, values random
        if rnd.random() < 0.3:
            forged.append(json.dumps(dict(v=2, challenge="%032x" % rnd.getrandbits(128), kind="settle", job="7",
                                          promises_too=rnd.random() < 0.5)))
        else:
            forged.append(json.dumps(dict(v=2, challenge="%032x" % rnd.getrandbits(128), **arbitrate("7", ["node1", "node2"][:rnd.randrange(1, 3)],
                                                             pays=rnd.random() < 0.7, min_nodes=rnd.randrange(1, 3),
                                                             hold=rnd.random() < 0.2))))
    fresh_forged = creds(rig, UID_B, forged)
    turned_away = open(rig.log).read().count("turned connections") + open(rig.log).read().count("to make room")
    sel = selectors.DefaultSelector()
    outcome = {k: {"refusal": 0, "closed": 0} for k in range(len(FUZZ_KINDS))}
    worst = 0.0
    slow = {"sock": None, "sent": 0, "at": 0.0, "closed": 0}
    silent = {"sock": None, "closed": 0}
    slow_bytes = frame(good_cred)

    def reopen_held():
        for h in (silent, slow):
            if h["sock"] is None:
                h["sock"] = rig.connect()
                h["sock"].setblocking(False)
                if h is slow:
                    h["sent"], h["at"] = 0, time.monotonic()

    def poke_held():
        for h in (silent, slow):
            try:
                if h is slow and time.monotonic() - h["at"] >= 0.2 and h["sent"] < len(slow_bytes):
                    h["sock"].send(slow_bytes[h["sent"]:h["sent"] + 1])
                    h["sent"] += 1
                    h["at"] = time.monotonic()
                gone = h["sock"].recv(1) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                h["sock"].close()
                h["sock"] = None
                h["closed"] += 1

    def finish(key, reply_or_none):
        nonlocal worst
        s, kind, t_sent = key.data["sock"], key.data["kind"], key.data["t"]
        sel.unregister(s)
        s.close()
        worst = max(worst, time.monotonic() - t_sent)
        if reply_or_none is not None and reply_or_none.get("ok"):
            raise AssertionError("%s: a bad frame was accepted: %s" % (how, FUZZ_KINDS[kind][0]))
        got = "closed" if reply_or_none is None else "refusal"
        want = FUZZ_KINDS[kind][1]
        if want != "either" and got != want:
            raise AssertionError("%s: %s: wanted %s, got %s" % (how, FUZZ_KINDS[kind][0], want,
                                                                 reply_or_none if reply_or_none else "closed"))
        outcome[kind][got] += 1

    def pump(block):
        for key, _ in sel.select(0.05 if block else 0):
            d = key.data
            try:
                chunk = d["sock"].recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                d["buf"] += chunk
                if len(d["buf"]) >= 4 and len(d["buf"]) >= 4 + struct.unpack(">I", d["buf"][:4])[0]:
                    n = struct.unpack(">I", d["buf"][:4])[0]
                    finish(key, open_reply(d["buf"][4:4 + n], {9: UID_A, 10: UID_B}.get(d["kind"])))
            else:
                finish(key, None)  # closed (a reply cut short counts as none)
        now = time.monotonic()
        for key in list(sel.get_map().values()):
            if now - key.data["t"] > STUCK_S:
                raise AssertionError("%s: a connection (%s) was neither answered nor closed within %d s"
                                     % (how, FUZZ_KINDS[key.data["kind"]][0], STUCK_S))

    t0 = time.monotonic()
    goods = 0
    for i in range(count):
        reopen_held()
        poke_held()
        while len(sel.get_map()) >= window:
            pump(True)
        kind = i % len(FUZZ_KINDS)
        data, shut, pieces = fuzz_frame(kind, rnd, good_cred, fresh_bad, fresh_forged)
        s = rig.connect()
        s.settimeout(STUCK_S)
        try:
            cut = sorted(rnd.sample(range(1, len(data)), min(pieces - 1, len(data) - 1))) if pieces > 1 else []
            for a, b in zip([0] + cut, cut + [len(data)]):
                s.sendall(data[a:b])
            if shut:
                s.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon refused and closed first
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, {"sock": s, "kind": kind, "t": time.monotonic(), "buf": b""})
        if i % 500 == 250:  # a good request of another client, while the held ones hang on
            r = rig.ask(UID_A, dict(kind="status"))
            if r is None or not r["ok"]:
                raise AssertionError("%s: a good request was not answered during the fuzz (%s)" % (how, r))
            goods += 1
    while sel.get_map():
        pump(True)
    for h in (silent, slow):
        if h["sock"] is not None:
            h["sock"].close()
    check(rig.proc.poll() is None and sum(sum(o.values()) for o in outcome.values()) == count,
          "%s: %d generated bad frames (seed 55, %d kinds) each refused or closed, none stuck (the longest %.1f s), "
          "the daemon up (%.1f s)" % (how, count, len(FUZZ_KINDS), worst, time.monotonic() - t0))
    for k, (name, want) in enumerate(FUZZ_KINDS):
        print("   %-58s %5d refused, %5d closed" % (name, outcome[k]["refusal"], outcome[k]["closed"]))
    check(goods == sum(1 for i in range(count) if i % 500 == 250),
          "%s: %d good requests of another client answered during the fuzz, while a silent and a slow client "
          "stayed connected (closed at their deadline %d and %d times)" % (how, goods, silent["closed"], slow["closed"]))
    check(open(rig.log).read().count("turned connections") + open(rig.log).read().count("to make room") == turned_away,
          "%s: no connection of the fuzz was turned away or closed to make room (its window is %d)" % (how, window))


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok: " + what)


def status_once_closed(rig):
    """The daemon's status asked as uid A until it answers (it sees closed connections at its
    next poll: ordering, not timing; at most 50 tries); None if it never does."""
    for _ in range(50):
        r = rig.ask(UID_A, dict(kind="status"))
        if r is not None:
            return r
        time.sleep(0.1)
    return None


def robustness(rig, count, rnd, good_cred, how):
    """Bad frames (the fuzz), silent clients and the cap over the transport rig.connect() uses."""
    fuzz(rig, count, rnd, good_cred, how)

    # A silent client and a half frame hold their own connections only.
    silent = rig.connect()
    half = rig.connect()
    half.sendall(frame(good_cred)[:10])
    check(rig.ask(UID_A, dict(kind="status"))["ok"], how + ": " + "a request is answered while two clients stay silent")
    silent.settimeout(15)
    check(silent.recv(1) == b"", how + ": " + "the silent client is closed at its deadline")
    half.close()
    # The cap (--max-connections 8, so 6 without a whole first frame): 8 silent connections
    # open, then a ninth with a request: the oldest silent ones are closed to make room
    # (the group holding the most: this one), and the ninth is answered, not queued.
    held = [rig.connect() for _ in range(8)]  # each accepted (its challenge read) before the next
    extra = rig.connect()
    extra.sendall(frame(good_cred))
    r = recv_reply(extra, 15)
    check(r is not None and not r["ok"] and "Replayed" in r["error"],
          how + ": " + "over the cap a request is answered (%s), not queued" % (r and r.get("error")))
    closed = 0
    for h in held:
        h.setblocking(False)
        try:
            closed += h.recv(1) == b""
        except BlockingIOError:
            pass
        except ConnectionResetError:
            closed += 1
    check(closed >= 3, how + ": " + "the oldest silent connections were closed to make room (%d of 8)" % closed)
    for h in held:
        h.close()
    r = status_once_closed(rig)
    check(r is not None and r["ok"], how + ": " + "answered again once the silent ones are gone")

# A request of another uid from its own process (the daemon sees that uid in SO_PEERCRED).
AS_CLIENT = r"""
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
# the daemon's challenge first; the request made for it, only the daemon's uid (0) able to read it
import ctypes
lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
lib.munge_encode.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
d = b""
while len(d) < 4 or len(d) < 4 + struct.unpack(">I", d[:4])[0]:
    k = s.recv(4 if len(d) < 4 else 4 + struct.unpack(">I", d[:4])[0] - len(d))
    if not k:
        sys.exit("closed without a challenge")
    d += k
request = json.loads(sys.stdin.read())
request.update(v=2, challenge=json.loads(d[4:])["challenge"])
body = json.dumps(request).encode()
ectx = ctypes.c_void_p(lib.munge_ctx_create())
lib.munge_ctx_set(ectx, 8, ctypes.c_char_p(sys.argv[2].encode()))
lib.munge_ctx_set(ectx, 9, ctypes.c_uint(0))
cred = ctypes.c_char_p()
if lib.munge_encode(ctypes.byref(cred), ectx, body, len(body)) != 0:
    sys.exit("munge_encode failed")
c = cred.value
s.sendall(struct.pack(">I", len(c)) + c)
d = b""
while len(d) < 4 or len(d) < 4 + struct.unpack(">I", d[:4])[0]:
    k = s.recv(65536)
    if not k:
        sys.exit("closed without a reply")
    d += k
# the reply is a MUNGE credential of the daemon's uid: decoded here, as this uid
import ctypes
lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
ctx = ctypes.c_void_p(lib.munge_ctx_create())
lib.munge_ctx_set(ctx, 8, ctypes.c_char_p(sys.argv[2].encode()))
buf, n, uid, gid = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_uint(), ctypes.c_uint()
if lib.munge_decode(ctypes.c_char_p(d[4:]), ctx, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(uid), ctypes.byref(gid)) != 0:
    sys.exit("the reply is not a credential this uid can decode")
if uid.value != 0:
    sys.exit("the reply comes from uid %d, not the daemon's" % uid.value)
print(ctypes.string_at(buf, n.value).decode())
"""


def per_uid_cap_and_group(rig):
    """The per-uid connection cap (root's connections, another uid, TCP per address) and
    --socket-group (the mode and group of the socket; a bad group)."""
    import grp
    group = grp.getgrnam("daemon")  # in every Debian base system (gid 1)
    rig.stop()
    rig.start(extra=("--max-connections", "64", "--max-connections-per-uid", "3", "--socket-group", "daemon"))
    st = os.stat(rig.sock)
    check(oct(st.st_mode & 0o777) == "0o660" and st.st_gid == group.gr_gid,
          "--socket-group daemon: the socket is 0660, group daemon (%s, gid %d)" % (oct(st.st_mode & 0o777), st.st_gid))
    # An answered request first: the daemon has seen rig.start's probe connection closed
    # (it handles closed connections before it accepts new ones); then root's 3 silent
    # ones, accepted before the 4th (the kernel's queue is in order).
    check(rig.ask(UID_A, dict(kind="status"))["ok"], "a status before root holds its connections")

    def over_cap():
        s = rig.connect()
        try:
            s.sendall(frame(encode_as(UID_A, request_body(dict(kind="status"), rig.challenges.get(s) or "0" * 32))))
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed before the request went out: turned away
        try:
            return recv_reply(s, 15, UID_A)
        finally:
            s.close()

    held = [rig.connect() for _ in range(3)]  # root (uid 0): its cap
    check(over_cap() is None, "root's 4th connection is closed at accept, not answered")
    check(over_cap() is None, "root's 5th connection too")
    c = json.dumps(dict(kind="status")).encode()
    p = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", "--",
                        sys.executable, "-c", AS_CLIENT, rig.sock, rig.munge_sock], input=c, capture_output=True)
    # uid B is not in group daemon: with the socket 0660 it could not connect at all, so
    # its own process keeps group daemon for the connect (setpriv --groups)
    if p.returncode != 0 and b"Permission denied" in p.stderr:
        check(True, "uid B outside group daemon cannot reach the 0660 socket")
        p = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--groups=%d" % group.gr_gid, "--",
                            sys.executable, "-c", AS_CLIENT, rig.sock, rig.munge_sock], input=c, capture_output=True)
    else:
        raise AssertionError("uid B outside group daemon reached the 0660 socket: %s" % p.stdout)
    r = json.loads(p.stdout) if p.returncode == 0 else None
    check(r is not None and r["ok"], "uid B's request goes through while root holds its 3 (%s)" % p.stderr.decode()[-300:])
    rig.via_tcp = True
    r = rig.ask(UID_A, dict(kind="status"))
    check(r is not None and r["ok"], "a TCP client (capped per address, 127.0.0.1) goes through too")
    held_tcp = [rig.connect() for _ in range(3)]
    check(over_cap() is None, "tcp: the 4th connection from 127.0.0.1 is closed at accept")
    for h in held_tcp:
        h.close()
    rig.via_tcp = False
    for h in held:
        h.close()
    r = status_once_closed(rig)
    check(r is not None and r["ok"] and r["status"]["connections_refused_per_client_cap"] >= 3,
          "root is answered again once its connections are closed; status counts the refused ones (%s)"
          % (r and r["ok"] and r["status"]["connections_refused_per_client_cap"]))
    lines = [l for l in open(rig.log).read().splitlines() if "turned connections of uid 0 away" in l]
    check(1 <= len(lines) <= 2, "the refusals of uid 0 logged at most once per minute (%d lines)" % len(lines))
    rig.stop()

    bad = os.path.join(rig.dir, "bad.sock")
    p = subprocess.run([rig.daemon_bin, "--socket", bad, "--state-dir", rig.state, "--munge-socket", rig.munge_sock,
                        "--slurm-user", str(SLURM_UID), "--socket-group", "no-such-group-55"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 1 and "--socket-group: no group 'no-such-group-55'" in p.stderr and not os.path.exists(bad),
          "a group that does not exist: exit 1, a clear error, no socket (%d, %s)" % (p.returncode, p.stderr.strip()[-200:]))


def without_slurmdbd(rig):
    """sacctmgr fails at every ask (no slurmdbd), asked with every view (--qos-interval 1):
    the daemon logs it once, arbitrates without QOS limits, and says so in its status."""
    rig.stop()
    os.unlink(os.path.join(rig.dir, "qos"))
    log_from = len(open(rig.log).read())
    calls = os.path.join(rig.dir, "calls")
    asked = lambda: sum(c.startswith("sacctmgr ") for c in open(calls).read().splitlines())
    before = asked()
    rig.start(interval=1, extra=("--qos-interval", "1"))
    for _ in range(3):  # three views, each past the last one's interval: a wait, not a measurement
        check(rig.ask(UID_A, dict(kind="status"))["ok"], "no slurmdbd: a status is answered")
        time.sleep(1.2)
    for _ in range(100):  # the last view's sacctmgr has returned: ordering, not timing
        r = rig.ask(UID_B, arbitrate("8", ["node3"]))
        if asked() - before >= 3 and r is not None and r["ok"]:
            break
        time.sleep(0.1)
    check(asked() - before >= 3, "sacctmgr asked with each view (%d times)" % (asked() - before))
    check(r["ok"] and r["rule"] and "qos" not in r["why"],
          "no slurmdbd: job 8 is still arbitrated (%s: %s)" % (r["rule"], r["why"]))
    log = open(rig.log).read()[log_from:]
    check(log.count("QOS limits unknown: sacctmgr failed (status 1)") == 1 and "no QOS limit is applied" in log,
          "the failure is logged once over %d asks" % (asked() - before))
    st = rig.ask(UID_A, dict(kind="status"))["status"]["qos"]
    check(not st["applied"] and "no QOS limit applied" in st["error"], "the status says no QOS limit is applied (%s)" % st)
    rig.write("qos", "normal|||\nsmall|node=3||\n")


def hostile_names(rig):
    """User B's job name and comment written to take over user A's job through squeue's
    output: a name that shifts the fields of a '|'-separated line so that a hostlist of a
    number too large for a long lands where the backfill plan is read (it ended the daemon
    with std::out_of_range, again after every restart), a comment whose line end starts a
    line naming A's job 7 with B's uid. The daemon stays up, job 7 stays A's, B's release
    of job 7 is refused."""
    rig.stop()
    forged7 = "7|RUNNING|2|node[1-2]|x|None|prio=1|submit=|part=|start=|plan=|qos=small|uid=%d|" % UID_B
    name = "x|None|prio=1|submit=|part=|start=|plan=n[99999999999999999999]|qos=normal|uid=%d" % UID_B
    rig.jobs([squeue_job("7", 2, "node[1-2]", "pdgemm", "small", UID_A),
              squeue_job("8", 1, "node3", name, "normal", UID_B, comment="c\n" + forged7)])
    rig.start(interval=1)
    st = None
    for _ in range(30):  # the first view: ordering, not timing
        st = rig.ask(0, dict(kind="status"))
        if st is None or rig.proc.poll() is not None or st["ok"]:
            break
        time.sleep(0.1)
    check(st is not None and st["ok"] and rig.proc.poll() is None,
          "a job name and comment crafted against the view's squeue: the daemon stays up (%s)"
          % ("ended: " + open(rig.log).read()[-300:] if rig.proc.poll() is not None else "up"))
    owners = {j["id"]: j["uid"] for j in st["status"]["jobs"]}
    check(owners.get("7") == UID_A and owners.get("8") == UID_B, "job 7 stays uid A's, job 8 uid B's (%s)" % owners)
    r = rig.ask(UID_B, dict(kind="settle", job="7", promises_too=True))
    check(r is not None and not r["ok"], "uid B's release of job 7 is refused (%s)" % (r and r.get("error")))
    rig.jobs([squeue_job("7", 2, "node[1-2]", "pdgemm", "small", UID_A),
              squeue_job("8", 1, "node3", "jacobi", "normal", UID_B)])


def log_lines_stay_lines(rig):
    """A request whose JSON key holds a line end and a forged log line: refused, and the
    log keeps it on the refusal's own line (the control bytes escaped), no forged line."""
    forged = "2026-01-01T00:00:00Z malleable-arbiterd: uid 0 refused: FORGED"
    body = json.dumps({"v": 2, "challenge": "0" * 32, "kind": "status", "x\n" + forged + "\r\x1b[2J": 1})
    r = rig.send(creds(rig, UID_A, [body])[0], UID_A)
    check(r is not None and not r["ok"] and "unknown key" in r["error"], "a key holding a line end is refused")
    lines = open(rig.log).read().splitlines()
    check(not any(l.startswith(forged) for l in lines) and any("\\x0a" + forged in l for l in lines),
          "the log escapes it: no forged line, the refusal on one line")


def state_dir_only_the_daemon_writes(rig):
    """The state directory made 0777 with journal.tmp a symbolic link to another file: the
    daemon narrows the directory to 0700 and never writes through the link; a state
    directory of another user stops the start."""
    rig.stop()
    state = os.path.join(rig.dir, "state-exposed")
    os.mkdir(state)
    os.chmod(state, 0o777)
    victim = os.path.join(rig.dir, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    os.symlink(victim, os.path.join(state, "journal.tmp"))
    rig.start(extra=("--state-dir", state))
    replies = [rig.ask(UID_A, arbitrate("7", ["node1", "node2"])) for _ in range(2)]
    check(all(r is not None and r["ok"] for r in replies), "job 7's owner is answered (the journal written)")
    check(open(victim).read() == "precious\n", "the journal was not written through a symbolic link")
    check(os.stat(state).st_mode & 0o777 == 0o700 and not os.path.islink(os.path.join(state, "journal")),
          "the state directory is narrowed to 0700 (%s), the journal a file of its own" % oct(os.stat(state).st_mode & 0o777))
    rig.stop()
    os.chown(state, UID_B, UID_B)
    p = subprocess.run([rig.daemon_bin, "--socket", os.path.join(rig.dir, "other.sock"), "--state-dir", state,
                        "--munge-socket", rig.munge_sock, "--slurm-user", str(SLURM_UID)],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 1 and "belongs to uid %d" % UID_B in p.stderr,
          "a state directory of another user stops the start (%d, %s)" % (p.returncode, p.stderr.strip()[-200:]))
    rig.start()


def open_file_limit(rig):
    """--max-connections above what the open-file limit allows: lowered at the start and
    said; the connections over it are closed at accept, not left waiting in the kernel's
    queue (an accept failing for want of descriptors made the loop spin), and a request
    is answered once they are gone."""
    rig.stop()
    log_from = len(open(rig.log).read())
    rig.start(extra=("--max-connections", "256", "--max-connections-per-uid", "256"), prefix=("prlimit", "--nofile=64:64", "--"))
    check("--max-connections 256 lowered to" in open(rig.log).read()[log_from:],
          "--max-connections 256 under an open-file limit of 64: lowered, and said")
    # Each connect waits for the daemon's answer to it: its challenge (accepted) or the close
    # at accept; the earlier ones it closed to make room are closed before it answers a later.
    held = [rig.connect() for _ in range(70)]
    closed = 0
    for s in held:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass  # open: accepted and waiting, or still in the kernel's queue
        except ConnectionResetError:
            closed += 1
    stat = open("/proc/%d/stat" % rig.proc.pid).read().split(")")[-1].split()
    print("   the daemon's CPU time so far: %.2f s" % ((int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")))
    check(closed >= 70 - 40, "%d of 70 silent connections past the limit were closed at accept, none left queued" % closed)
    for s in held:
        s.close()
    r = status_once_closed(rig)
    check(r is not None and r["ok"] and rig.proc.poll() is None, "answered again, the daemon up")


# A fake arbiter of another user (uid B) on a socket of its own: a challenge of its own
# first, then every request answered with a plan to acquire node5 for the asking job, the
# request's nonce echoed if B could read it (it cannot: the job restricts its credential
# to the arbiter's uid; "decoded" or "unreadable: WHY" printed for each), as plain JSON
# ("plain") or in a MUNGE credential of B's uid ("munge").
FAKE_ARBITER = r"""
import ctypes, json, os, socket, struct, sys
path, msock, mode, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
ctx = ctypes.c_void_p(lib.munge_ctx_create())
lib.munge_ctx_set(ctx, 8, ctypes.c_char_p(msock.encode()))
l = socket.socket(socket.AF_UNIX)
l.bind(path)
os.chmod(path, 0o666)
l.listen(8)
print("listening", flush=True)
for _ in range(count):
    c, _ = l.accept()
    hello = json.dumps(dict(v=2, challenge=os.urandom(16).hex())).encode()
    c.sendall(struct.pack(">I", len(hello)) + hello)
    d = b""
    while len(d) < 4 or len(d) < 4 + struct.unpack(">I", d[:4])[0]:
        k = c.recv(65536)
        if not k:
            break
        d += k
    buf, n, uid, gid = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_uint(), ctypes.c_uint()
    nonce = ""
    lib.munge_ctx_strerror.restype = ctypes.c_char_p
    if lib.munge_decode(ctypes.c_char_p(d[4:]), ctx, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(uid), ctypes.byref(gid)) == 0:
        nonce = json.loads(ctypes.string_at(buf, n.value)).get("nonce", "")
        print("decoded", flush=True)
    else:
        print("unreadable: " + lib.munge_ctx_strerror(ctx).decode(), flush=True)
    reply = json.dumps(dict(ok=True, nonce=nonce, plan="acquire", nodes=["node5"], acquire=1, why="forged", rule="acquire",
                            by_restart=False, pi=-1, pr=-1, mi=-1, held=["node3"], idle=["node5"], **{"for": ""})).encode()
    if mode == "munge":
        cred = ctypes.c_char_p()
        ectx = ctypes.c_void_p(lib.munge_ctx_create())  # a context of its own (the decode's keeps its error)
        lib.munge_ctx_set(ectx, 8, ctypes.c_char_p(msock.encode()))
        lib.munge_encode(ctypes.byref(cred), ectx, ctypes.c_char_p(reply), len(reply))
        reply = cred.value
    c.sendall(struct.pack(">I", len(reply)) + reply)
    c.close()
"""


def forged_replies(rig, unit):
    """A socket answered by someone else than the arbiter's user: the library's client (as
    uid A, a gtest case) takes neither a plain answer nor one in B's own credential, and
    runs no Slurm command on it."""
    if not os.path.exists(unit) or not reachable_as(UID_A, unit):
        print("note: not run: a forged arbiter's answers (uid A cannot run %s)" % unit)
        return
    where = os.path.join(rig.dir, "forged")
    os.mkdir(where)
    os.chown(where, UID_B, UID_B)
    for mode in ("plain", "munge"):
        sock = os.path.join(where, mode + ".sock")
        fake = subprocess.Popen(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", "--",
                                 sys.executable, "-c", FAKE_ARBITER, sock, rig.munge_sock, mode, "1"],
                                stdout=subprocess.PIPE, text=True)
        fake.stdout.readline()  # listening
        env = dict(os.environ, ARBITER_LIVE_FORGED=sock, ARBITER_LIVE_MUNGE=rig.munge_sock, ARBITER_LIVE_USER=str(DAEMON_UID))
        p = subprocess.run(["setpriv", "--reuid=%d" % UID_A, "--regid=%d" % UID_A, "--clear-groups", unit,
                            "--gtest_filter=ArbiterLive.AnAnswerNotFromTheArbitersUserGetsNothingDone"],
                           env=env, capture_output=True, text=True, timeout=60)
        fake.kill()
        said = fake.stdout.read()
        fake.wait()
        check(p.returncode == 0 and "[  PASSED  ] 1 test" in p.stdout,
              "a forged answer (%s, from uid B) gets nothing done" % mode + ("" if p.returncode == 0 else ":\n" + p.stdout[-2000:]))
        check(said.startswith("unreadable: ") and "decoded" not in said,
              "%s: uid B could not read the job's request (%s)" % (mode, said.strip()))


# One user's flood (run as uid B): silent connections, as many as the daemon keeps open,
# from 20 loopback addresses over TCP (127.0.0.2 to .21, one subnet) and on the Unix socket,
# each reopened as soon as the daemon closes it, for `seconds`; "flooding" once it holds
# its first round.
FLOOD = r"""
import selectors, socket, sys, time
path, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sel = selectors.DefaultSelector()
def open_one(where):
    try:
        if where == "unix":
            s = socket.socket(socket.AF_UNIX)
            s.setblocking(False)
            s.connect(path)
        else:
            s = socket.socket(socket.AF_INET)
            s.bind((where, 0))
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
        sel.register(s, selectors.EVENT_READ, where)
    except OSError:
        pass
places = ["unix"] * 8 + ["127.0.0.%d" % a for a in range(2, 22) for _ in range(8)]
for w in places:
    open_one(w)
print("flooding %d" % len(sel.get_map()), flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    for key, _ in sel.select(0.05):
        try:
            gone = key.fileobj.recv(1) == b""
        except BlockingIOError:
            gone = False
        except OSError:
            gone = True
        if gone:
            sel.unregister(key.fileobj)
            key.fileobj.close()
            open_one(key.data)
    for w in places:  # those refused at connect, again
        if sum(1 for k in sel.get_map().values() if k.data == w) < places.count(w):
            open_one(w)
"""


def two_users_flood(rig):
    """User B floods the daemon with silent connections from 20 addresses of one subnet
    and its own uid, reopening each as soon as it is closed; user A's 40 requests, on the
    Unix socket and over TCP from 127.0.0.1 (B's subnet), are each answered within the
    deadline (5 s)."""
    rig.stop()
    rig.start(extra=("--max-connections", "64"))
    flood = subprocess.Popen(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", "--",
                              sys.executable, "-c", FLOOD, rig.sock, str(rig.tcp[1]), "60"],
                             stdout=subprocess.PIPE, text=True)
    try:
        line = flood.stdout.readline()  # the flood has opened its first round: the event, not a wait
        check(line.startswith("flooding"), "uid B's flood is under way (%s)" % line.strip())
        encode_as(UID_A, "warm")  # the encoder process started before the clock runs
        answered, worst, missed = 0, 0.0, []
        for k in range(40):
            rig.via_tcp = k % 2 == 1
            t0 = time.monotonic()
            r = None
            try:
                s = rig.connect(challenge=False)
                ch = read_challenge(s, 5)
                s.settimeout(5)
                s.sendall(frame(encode_as(UID_A, request_body(dict(kind="status"), ch or "0" * 32))))
                r = recv_reply(s, 5, UID_A)
                s.close()
            except OSError as e:
                missed.append("%d (%s): %s" % (k, "tcp" if rig.via_tcp else "unix", e))
            dt = time.monotonic() - t0
            if r is not None and r["ok"] and dt < 5:
                answered += 1
                worst = max(worst, dt)
            elif r is None and len(missed) < 5:
                missed.append("%d (%s): no reply" % (k, "tcp" if rig.via_tcp else "unix"))
        rig.via_tcp = False
        check(answered == 40 and flood.poll() is None,
              "uid B floods (%s); all 40 of uid A's requests answered within the deadline: %d (the slowest %.2f s)%s"
              % ("running" if flood.poll() is None else "ended", answered, worst, "; " + "; ".join(missed) if missed else ""))
    finally:
        flood.kill()
        flood.wait()
        rig.via_tcp = False


# A squatter (uid B) on a socket or TCP port the jobs use while the daemon is down: each
# connection gets a challenge of B's own, the request that comes is written (hex, a line)
# to the record file, and the connection closed. "listening PORT" once it listens.
SQUATTER = r"""
import os, socket, struct, sys
where, record, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
if where == "tcp":
    l = socket.socket(socket.AF_INET)
    l.bind(("127.0.0.1", 0))
else:
    l = socket.socket(socket.AF_UNIX)
    l.bind(where)
    os.chmod(where, 0o666)
l.listen(8)
print("listening %d" % (l.getsockname()[1] if where == "tcp" else 0), flush=True)
for _ in range(count):
    c, _ = l.accept()
    hello = ('{"v":2,"challenge":"%s"}' % os.urandom(16).hex()).encode()
    c.sendall(struct.pack(">I", len(hello)) + hello)
    d = b""
    while len(d) < 4 or len(d) < 4 + struct.unpack(">I", d[:4])[0]:
        k = c.recv(65536)
        if not k:
            break
        d += k
    with open(record, "a") as f:
        f.write(d.hex() + "\n")
    c.close()
"""


def relayed_requests(rig):
    """Before the challenge, whoever holds the daemon's socket or TCP port while it is down (uid B)
    records uid A's requests (the library's `--status` client, and an arbitrate request of
    A's job 7) and relays them to the real daemon: B cannot read them (their credential is
    restricted to the daemon's uid), and the daemon refuses each relayed one (made for
    another connection's challenge), the ledger of job 7 as it was. A request whose
    credential any uid can read is refused too."""
    where = os.path.join(rig.dir, "squat")
    os.makedirs(where, exist_ok=True)
    os.chown(where, UID_B, UID_B)
    before = ledger_of(rig, "7")
    refusal = "uid %d: the request names another connection's challenge" % UID_A
    logged = open(rig.log).read().count(refusal)
    recorded = []
    for how in ("unix", "tcp"):
        record = os.path.join(where, how + ".rec")
        sock = os.path.join(where, "arbiter.sock") if how == "unix" else "tcp"
        squat = subprocess.Popen(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", "--",
                                  sys.executable, "-c", SQUATTER, sock, record, "2"], stdout=subprocess.PIPE, text=True)
        port = int(squat.stdout.readline().split()[1])
        address = sock if how == "unix" else "tcp://127.0.0.1:%d" % port
        # The library's client as uid A (a status): it sends the request to the squatter,
        # which closes without a reply: an error for the client, nothing more.
        if reachable_as(UID_A, rig.daemon_bin):
            p = subprocess.run(["setpriv", "--reuid=%d" % UID_A, "--regid=%d" % UID_A, "--clear-groups",
                                rig.daemon_bin, "--status", address, "--munge-socket", rig.munge_sock,
                                "--arbiter-user", str(DAEMON_UID)], capture_output=True, text=True, timeout=60)
            check(p.returncode != 0, "%s: the library's client gets no answer from the squatter (%s)"
                  % (how, p.stderr.strip()[-200:]))
        else:
            print("note: uid A cannot run %s: only the arbitrate request is recorded" % rig.daemon_bin)
            s = socket.socket(socket.AF_UNIX) if how == "unix" else socket.socket(socket.AF_INET)
            s.connect(sock if how == "unix" else ("127.0.0.1", port))
            s.sendall(frame(encode_as(UID_A, request_body(dict(kind="status"), read_challenge(s)))))
            s.close()
        # Job 7's owner asks for growth, as its job would: the request made for the
        # squatter's challenge, restricted to the daemon's uid.
        s = socket.socket(socket.AF_UNIX) if how == "unix" else socket.socket(socket.AF_INET)
        s.connect(sock if how == "unix" else ("127.0.0.1", port))
        s.sendall(frame(encode_as(UID_A, request_body(arbitrate("7", ["node1", "node2"]), read_challenge(s)))))
        s.settimeout(10)
        s.recv(1)  # closed by the squatter once it has the request
        s.close()
        squat.wait(timeout=30)
        frames = [bytes.fromhex(l) for l in open(record).read().split()]
        check(len(frames) == 2 and all(len(f) > 4 for f in frames), "%s: the squatter recorded 2 requests of uid A" % how)
        for f in frames:
            cred = f[4:4 + struct.unpack(">I", f[:4])[0]]
            try:
                decode_as(UID_B, cred)
                raise AssertionError("%s: uid B read uid A's request" % how)
            except ValueError as e:
                check("nauthorized" in str(e), "%s: uid B cannot read uid A's request (%s)" % (how, e))
            recorded.append(cred)
    # Relayed to the real daemon (each a credential never decoded before: munged's replay
    # cache does not stop it), over the Unix socket and TCP: refused, nothing done.
    for k, cred in enumerate(recorded):
        rig.via_tcp = k % 2 == 1
        r = rig.send(cred, UID_A)
        check(r is not None and not r["ok"] and "another connection's challenge" in r["error"],
              "a relayed request of uid A is refused (%s)" % (r and r.get("error")))
    rig.via_tcp = False
    check(ledger_of(rig, "7") == before, "job 7's ledger is as it was after the relayed requests")
    check(open(rig.log).read().count(refusal) == logged + len(recorded),
          "each relayed request logged with uid A and the reason")
    # A credential any uid could read (no restriction): refused before it is read.
    s = rig.connect()
    s.sendall(frame(encode_as(UID_A, request_body(dict(kind="status"), rig.challenges[s]), only=-1)))
    r = recv_reply(s, uid=UID_A)
    s.close()
    check(r is not None and not r["ok"] and "readable by any uid" in r["error"],
          "a request any uid could read is refused (%s)" % (r and r.get("error")))


def duplicated_keys_and_trailing_bytes(rig):
    """A request naming a key twice (the daemon acted on the last one) and bytes after the
    JSON (a NUL ended the parse), in fresh credentials of uid A: each refused with the
    reason, logged with uid A. Bytes after the credential in its frame (munged ignores
    what follows its last ':'): refused with the reason before it is decoded, logged as
    of an unknown uid."""
    c = '"challenge":"%s"' % ("0" * 32)
    bodies = ['{"v":2,%s,"kind":"settle","job":"8","job":"7","promises_too":false}' % c,
              '{"v":2,%s,"kind":"status"} {"kind":"settle"}' % c,
              '{"v":2,%s,"kind":"status"}\x00{"kind":"settle"}' % c]
    wanted = ["duplicated key 'job'", "trailing bytes after the JSON", "trailing bytes after the JSON (from a NUL byte on)"]
    log_from = len(open(rig.log).read())
    for cred, why in zip(creds(rig, UID_A, bodies), wanted):
        r = rig.send(cred, UID_A)
        check(r is not None and not r["ok"] and r["error"] == "refused: bad request: " + why,
              "a request with %s is refused with the reason (%s)" % (why, r and r.get("error")))
    s = rig.connect()
    good = encode_as(UID_A, request_body(dict(kind="status"), rig.challenges[s]))
    s.sendall(frame(good + b"\n{}"))
    r = recv_reply(s, uid=UID_A)
    s.close()
    check(r is not None and not r["ok"] and "refused: trailing bytes after the credential (3 bytes" in r["error"],
          "bytes after the credential in its frame are refused with the reason (%s)" % (r and r.get("error")))
    log = open(rig.log).read()[log_from:]
    check(all(("refused uid %d: bad request: " % UID_A) + why in log for why in wanted)
          and "refused unknown uid: trailing bytes after the credential" in log,
          "each refusal logged with the uid (unknown before the credential is decoded) and the reason")


def history_per_uid(rig):
    """Before per-uid lists, 250 refused requests of uid B evicted every decision of uid A from the
    shared list (A's status: 92 entries, then 0; the journal 199 of B's refusals, none of
    A's). With --recent 50: A's decisions stay in A's status and in the journal."""
    rig.stop()
    rig.start(extra=("--recent", "50"))
    replies = [rig.ask(UID_A, arbitrate("7", ["node1", "node2"])) for _ in range(20)]
    check(all(r is not None and r["ok"] for r in replies), "job 7's owner is answered 20 times")
    mine = lambda st: [d for d in st["status"]["recent"] if d.get("job") == "7" and "rule" in d]
    before = mine(rig.ask(UID_A, dict(kind="status")))
    check(len(before) >= 20, "uid A's status holds its decisions about job 7 (%d)" % len(before))
    for _ in range(250):
        r = rig.ask(UID_B, dict(kind="settle", job="7", promises_too=False))
        if r is None or r["ok"]:
            raise AssertionError("uid B's settle of job 7 was not refused: %s" % r)
    after = mine(rig.ask(UID_A, dict(kind="status")))
    check(after == before, "after 250 refusals of uid B, uid A's status still holds its %d decisions (%d)"
          % (len(before), len(after)))
    b = rig.ask(UID_B, dict(kind="status"))["status"]["recent"]
    check(len(b) == 50 and all("refused" in d for d in b), "uid B's own list is bounded at 50 (%d)" % len(b))
    rig.stop()  # the journal written at the stop holds the refusals too
    journal = json.load(open(os.path.join(rig.state, "journal")))
    lines = [json.loads(l) for l in journal["recent"]]
    a = [d for d in lines if d.get("job") == "7" and "rule" in d]
    refused = [d for d in lines if "refused" in d and d.get("uid") == UID_B]
    check(len(a) >= len(before) and len(refused) == 50,
          "the journal keeps uid A's %d decisions and uid B's newest 50 refusals (%d)" % (len(a), len(refused)))
    rig.start()


# A fake scontrol (show job -o, write batch_script, update) and sacct for --extend-limits at
# a start: job 7, submitted `sbatch -N 2-3 /home/a/job.sh` with #SBATCH -N 2-3, its
# TimeLimit in $FAKE/limit (an update writes it), its start in $FAKE/start.
FAKE_SCONTROL = r"""#!/bin/sh
echo "scontrol $*" >> "$FAKE/calls"
case "$1" in
show) printf 'JobId=7 JobName=pdgemm UserId=a(1000) GroupId=a(1000) JobState=RUNNING TimeLimit=%s TimeMin=N/A StartTime=%s EndTime=Unknown NodeList=node[1-2] NumNodes=2 NumCPUs=2 Command=/home/a/job.sh WorkDir=/home/a StdOut=/home/a/out\n' "$(cat "$FAKE/limit")" "$(cat "$FAKE/start")" ;;
write) printf '#!/bin/sh\n#SBATCH -N 2-3\n#SBATCH --time=4\nrun\n' ;;
update) m=${3#TimeLimit=}; printf '00:%02d:00' "$m" > "$FAKE/limit" ;;
*) exit 1 ;;
esac
"""
FAKE_SACCT = """#!/bin/sh
echo "sacct $*" >> "$FAKE/calls"
echo "sbatch -N 2-3 /home/a/job.sh"
"""


def extend_limits_at_start(rig):
    rig.stop()
    for name, body in (("scontrol", FAKE_SCONTROL), ("sacct", FAKE_SACCT)):
        path = os.path.join(rig.fake, name)
        with open(path, "w") as f:
            f.write(body)
        os.chmod(path, 0o755)
    start = int(time.time()) - 20
    rig.write("start", str(start))
    rig.write("limit", "00:04:00")
    rig.write("calls", "")
    job7 = squeue_job("7", 2, "node[1-2]", "pdgemm", "small", UID_A)
    job7.update(S=str(start), L="00:03:40")  # 4 min from its start, as the view takes it
    rig.jobs([job7, squeue_job("8", 1, "node3", "jacobi", "normal", UID_B)])
    rig.start(interval=1, extra=("--extend-limits", "on"))
    journal = os.path.join(rig.state, "journal")

    def updates():
        return [c for c in open(os.path.join(rig.dir, "calls")).read().splitlines() if c.startswith("scontrol update")]

    def asked_until(done, what):
        for _ in range(100):  # each request may start a view (interval 1 s): generous, 20 s
            check(rig.ask(UID_A, arbitrate("7", ["node1", "node2"]))["ok"], "job 7 is answered")
            if done():
                return
            time.sleep(0.2)
        raise AssertionError(what + ": " + open(os.path.join(rig.dir, "calls")).read()[-2000:])

    def lines():
        return [json.loads(l) for l in json.load(open(journal))["recent"]
                if json.loads(l).get("rule") == "limit-extended" and json.loads(l).get("job") == "7"]
    asked_until(lambda: len(lines()) == 1, "no limit-extended line for job 7 at its start")
    check(updates() == ["scontrol update JobId=7 TimeLimit=6"], "one raise at the start, 4 -> 6 min: %s" % updates())
    line = lines()[0]
    check(line["at"] == "start-below-range" and line["old_min"] == 4 and line["new_min"] == 6
          and "-N 2-3 (the sbatch command line)" in line["why"] and "perfect scaling" in line["why"],
          "its journal line: %s" % line)
    check("job 7: TimeLimit 4 -> 6 min (start-below-range" in open(rig.log).read(), "its log line")
    calls = open(os.path.join(rig.dir, "calls")).read()
    check(calls.count("scontrol show job -o 7") == 1 and calls.count("sacct ") == 1
          and calls.count("scontrol write batch_script 7 -") == 1, "its record, script and sbatch line read once")
    for restart in (False, True):
        if restart:
            rig.kill9()
            rig.start(interval=1, extra=("--extend-limits", "on"))
        t = time.time()
        asked_until(lambda: time.time() - t > 3, "")  # views and requests for 3 s: a wait, not a measurement
        check(updates() == ["scontrol update JobId=7 TimeLimit=6"] and len(lines()) == 1,
              "no second raise for the same start%s: %s" % (" after kill -9 and a restart" if restart else "", updates()))
    rig.stop()
    rig.start()


def reachable_as(uid, path):
    """Whether uid may run the program at path (every parent folder searchable)."""
    return subprocess.run(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--",
                           "test", "-x", path], capture_output=True).returncode == 0


def ledger_of(rig, job):
    st = rig.ask(0, dict(kind="status"))
    return [e for e in st["status"]["ledger"] if e["job"] == job]


def main():
    rig = Rig(sys.argv[1])
    try:
        rig.start()
        st = rig.ask(0, dict(kind="status"))
        check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == ["7", "8"], "root's status lists the two jobs")
        for uid, job in ((UID_A, "7"), (UID_B, "8")):
            st = rig.ask(uid, dict(kind="status"))
            check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == [job],
                  "uid %d's status lists its own job %s only (%s)" % (uid, job, [j["id"] for j in st["status"]["jobs"]]))

        # uid B about uid A's job 7: each kind of entry it could write, each refused.
        tries = {"bid": arbitrate("7", ["node1", "node2"]),
                 "claim": arbitrate("7", ["node1", "node2"]),
                 "promise": arbitrate("7", ["node1", "node2"], min_nodes=1),
                 "release": dict(kind="settle", job="7", promises_too=True)}
        for kind, req in tries.items():
            r = rig.ask(UID_B, req)
            check(not r["ok"] and "uid %d does not own job 7" % UID_B in r["error"] and str(UID_A) not in r["error"],
                  "uid B's %s for job 7 refused, naming no other user (%s)" % (kind, r["error"]))
        log = open(rig.log).read()
        check(log.count("uid %d refused: uid %d does not own job 7" % (UID_B, UID_B)) == 4, "the 4 refusals logged with uid")
        check(ledger_of(rig, "7") == [], "no entry of job 7 after B's tries")

        # A's own job: a bid, then a claim.
        replies = [rig.ask(UID_A, arbitrate("7", ["node1", "node2"])) for _ in range(3)]
        rules = [r["rule"] for r in replies]
        check("acquire" in rules, "job 7's owner gets a plan (%s)" % rules)
        claims = [e for e in ledger_of(rig, "7") if e["kind"] == "claim"]
        check(len(claims) == 1, "one claim of job 7 in the ledger")
        # QOS small, MaxTRESPerJob node=3: 1 of the 2 idle nodes, the reason in the reply,
        # the decisions and the log.
        acq = [r for r in replies if r["rule"] == "acquire"][0]
        reason = "qos small: MaxTRESPerJob node=3"
        check(len(acq["nodes"]) == 1 and len(claims[0]["nodes"]) == 1 and reason in acq["why"],
              "job 7's growth is capped by its QOS: %s (%s)" % (acq["nodes"], acq["why"]))
        recent = rig.ask(UID_A, dict(kind="status"))["status"]["recent"]
        check(any(d.get("rule") == "acquire" and reason in d.get("why", "") for d in recent),
              "the decision log carries the QOS reason")
        check("QOS limits: 2 QOS, node limits in small" in open(rig.log).read(), "the QOS table read is logged")
        if reachable_as(UID_B, rig.daemon_bin):
            out = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups",
                                  rig.daemon_bin, "--status", rig.sock, "--munge-socket", rig.munge_sock,
                                  "--arbiter-user", str(DAEMON_UID)],
                                 check=True, capture_output=True, text=True).stdout
            st = json.loads(out)
        else:
            # a build tree below a folder only root may enter (mktemp -d): uid B asks itself
            print("note: uid B cannot run %s (a parent folder's mode): its status asked directly" % rig.daemon_bin)
            st = rig.ask(UID_B, dict(kind="status"))["status"]
        check([j["id"] for j in st["jobs"]] == ["8"] and not any(e["job"] == "7" for e in st["ledger"])
              and not any(d.get("job") == "7" for d in st["recent"]) and str(UID_A) not in json.dumps(st)
              and sum("does not own job 7" in d.get("refused", "") for d in st["recent"]) == 4,
              "--status as uid B shows its own job and its 4 refusals, nothing of uid A's job 7 (%s)" % json.dumps(st)[:300])
        out = subprocess.run([rig.daemon_bin, "--status", rig.sock, "--munge-socket", rig.munge_sock, "--arbiter-user", "0"],
                             check=True, capture_output=True, text=True).stdout
        st = json.loads(out)
        check([e["kind"] for e in st["ledger"] if e["job"] == "7"] == ["claim"]
              and any(d.get("rule") == "acquire" for d in st["recent"])
              and any("does not own job 7" in d.get("refused", "") for d in st["recent"]),
              "--status as root shows job 7's claim, the decision and uid B's refusals")
        # SlurmUser may ask about any job.
        check(rig.ask(SLURM_UID, arbitrate("8", ["node3"], pays=False))["ok"], "SlurmUser may ask about job 8")

        # A replayed credential, an expired one.
        r, c = rig.ask_cred(UID_B, dict(kind="status"))
        check(r["ok"], "a fresh credential is taken")
        r = rig.send(c, UID_B)
        check(not r["ok"] and "Replayed" in r["error"], "the same credential again is refused (%s)" % r.get("error"))
        c = rig.cred(UID_B, request_body(dict(kind="status"), "0" * 32), ttl=1)
        time.sleep(2.2)  # past the credential's time-to-live: a wait, not a measurement
        r = rig.send(c, UID_B)
        check(not r["ok"] and "Expired" in r["error"], "an expired credential is refused (%s)" % r.get("error"))

        # The fuzz.
        rnd = random.Random(55)
        r, good_cred = rig.ask_cred(UID_A, dict(kind="status"))
        check(r["ok"], "used once, so that its copies below are replays at best")
        robustness(rig, BAD_FRAMES, rnd, good_cred, "unix")

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
        unit = os.path.join(os.path.dirname(rig.daemon_bin), "..", "tests", "cluster", "unit", "cluster_unit")
        if os.path.exists(unit) and not reachable_as(UID_B, unit):
            print("note: not run: the library's policy as uid B (uid B cannot run %s: a parent folder's mode)" % unit)
        elif os.path.exists(unit):
            env = dict(os.environ, ARBITER_LIVE_SOCKET=rig.sock, ARBITER_LIVE_MUNGE=rig.munge_sock,
                       ARBITER_LIVE_USER=str(DAEMON_UID))
            p = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", unit,
                                "--gtest_filter=ArbiterLive.*"], env=env, capture_output=True, text=True)
            check(p.returncode == 0 and "[  PASSED  ] 1 test" in p.stdout,
                  "the library's policy asks the daemon with its user's credential" + ("" if p.returncode == 0 else ":\n" + p.stdout[-2000:]))

        forged_replies(rig, unit)

        # The same over TCP on 127.0.0.1.
        rig.via_tcp = True
        st = rig.ask(0, dict(kind="status"))
        check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == ["7", "8"], "tcp: status lists the two jobs")
        refusal = "uid %d refused: uid %d does not own job 7" % (UID_B, UID_B)
        before = open(rig.log).read().count(refusal)
        r = rig.ask(UID_B, dict(kind="settle", job="7", promises_too=True))
        check(not r["ok"] and "uid %d does not own job 7" % UID_B in r["error"], "tcp: uid B's release for job 7 refused")
        check(open(rig.log).read().count(refusal) == before + 1,
              "tcp: the refusal logged with the uid")
        r, c = rig.ask_cred(UID_A, dict(kind="status"))
        check(r["ok"] and "Replayed" in rig.send(c, UID_A)["error"], "tcp: a replayed credential is refused")
        robustness(rig, max(BAD_FRAMES // 10, 100), rnd, good_cred, "tcp")
        if os.path.exists(unit) and reachable_as(UID_B, unit):
            env = dict(os.environ, ARBITER_LIVE_SOCKET="tcp://127.0.0.1:%d" % rig.tcp[1], ARBITER_LIVE_MUNGE=rig.munge_sock,
                       ARBITER_LIVE_USER=str(DAEMON_UID))
            p = subprocess.run(["setpriv", "--reuid=%d" % UID_B, "--regid=%d" % UID_B, "--clear-groups", unit,
                                "--gtest_filter=ArbiterLive.*"], env=env, capture_output=True, text=True)
            check(p.returncode == 0 and "[  PASSED  ] 1 test" in p.stdout,
                  "tcp: the library's policy asks the daemon at tcp://127.0.0.1:PORT" + ("" if p.returncode == 0 else ":\n" + p.stdout[-2000:]))
        rig.via_tcp = False

        calls = open(os.path.join(rig.dir, "calls")).read().splitlines()
        squeues = [c for c in calls if c.startswith("squeue ")]
        check(len(calls) == 6 and sum(c.startswith("sacctmgr ") for c in calls) == 2 and len(squeues) == 2 and
              all("%U" in c for c in squeues),
              "Slurm asked 3 commands per view (one squeue with the owners' uids, sinfo, sacctmgr with the first), "
              "one view per start: %d calls" % len(calls))

        # A slow Slurm: the view is taken on the side, requests are answered from the last one.
        rig.stop()
        rig.start(interval=1)
        st = rig.ask(0, dict(kind="status"))  # the first view (Slurm quick)
        check(st["ok"] and [j["id"] for j in st["status"]["jobs"]] == ["7", "8"], "interval 1: the first view")
        rig.jobs([squeue_job("7", 2, "node[1-2]", "pdgemm", "small", UID_A),
                  squeue_job("8", 1, "node3", "jacobi", "normal", UID_B), squeue_job("9", 1, "node4", "cg", "normal", UID_A)])
        rig.write("slow", "")
        blocked = os.path.join(rig.dir, "blocked")
        time.sleep(1.5)  # past the interval, so that the next request starts a new view: a wait, not a measurement
        r = rig.ask(0, dict(kind="status"))
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
            st = rig.ask(0, dict(kind="status"))
            jobs = [j["id"] for j in st["status"]["jobs"]]
            if "9" in jobs:
                break
            time.sleep(0.1)
        check(jobs == ["7", "8", "9"], "the new view is taken once Slurm answers (%s)" % jobs)
        check("asking Slurm failed" not in open(rig.log).read(), "no Slurm query failed (none hit the 20-s timeout)")
        without_slurmdbd(rig)

        # More recent decisions than a frame holds: the status leaves the oldest out (a
        # status too long for its frame stopped the daemon).
        rig.stop()
        rig.start(interval=1, extra=("--recent", "1000"))
        for _ in range(400):
            r = rig.ask(UID_A, arbitrate("7", ["node1", "node2"]))
            if r is None or not r["ok"]:
                raise AssertionError("job 7's owner was not answered: %s" % r)
        st = rig.ask(0, dict(kind="status"))
        check(st is not None and st["ok"] and st["status"].get("recent_left_out", 0) > 0 and rig.proc.poll() is None,
              "with 400 decisions kept (%d bytes in the journal) a status is answered, %s of them left out, the daemon up"
              % (os.path.getsize(os.path.join(rig.state, "journal")), st and st["ok"] and st["status"].get("recent_left_out")))
        hostile_names(rig)
        two_users_flood(rig)
        log_lines_stay_lines(rig)
        state_dir_only_the_daemon_writes(rig)
        open_file_limit(rig)
        per_uid_cap_and_group(rig)
        rig.start()
        relayed_requests(rig)
        duplicated_keys_and_trailing_bytes(rig)
        history_per_uid(rig)
        extend_limits_at_start(rig)
        return 0
    except AssertionError as e:
        print("FAIL: %s" % e)
        print(open(rig.log).read()[-3000:])
        return 1
    finally:
        rig.close()


if __name__ == "__main__":
    sys.exit(main())
