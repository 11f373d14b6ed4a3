#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""N fake jobs asking malleable-arbiterd: each sends an arbitrate request for its job
every second for S seconds over TCP, with a MUNGE credential made through libmunge
(ctypes: no process per request). Used by scripts/bench/slurm.sh sdiag inside the emulated
cluster. Prints the replies counted by outcome.
Protocol version 2: each connection's challenge read first, the request made for it, its
credential only the daemon's uid can decode (ARBITER_UID, default 0: root's daemon).
Usage: arbiter-sdiag-clients.py HOST PORT MUNGE_SOCKET SECONDS JOB_ID..."""
import ctypes
import json
import os
import socket
import struct
import sys
import threading
import time

lib = ctypes.CDLL("libmunge.so.2")
lib.munge_ctx_create.restype = ctypes.c_void_p
lib.munge_ctx_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
lib.munge_encode.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
lib.munge_decode.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int),
                             ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
MUNGE_OPT_SOCKET = 8
MUNGE_OPT_UID_RESTRICTION = 9
ARBITER_UID = int(os.environ.get("ARBITER_UID", "0"))


def credential(ctx, body):
    out = ctypes.c_char_p()
    err = lib.munge_encode(ctypes.byref(out), ctx, body, len(body))
    if err != 0:
        raise RuntimeError("munge_encode: %d" % err)
    return out.value


def opened(ctx, cred):
    """The reply's JSON: the daemon seals it in a MUNGE credential (only this uid decodes it)."""
    buf, n, uid, gid = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_uint(), ctypes.c_uint()
    if lib.munge_decode(ctypes.c_char_p(cred), ctx, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(uid),
                        ctypes.byref(gid)) != 0:
        raise RuntimeError("the reply is not a credential")
    return json.loads(ctypes.string_at(buf, n.value))


def frame_from(s):
    data = b""
    while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
        chunk = s.recv(4 - len(data) if len(data) < 4 else 4 + struct.unpack(">I", data[:4])[0] - len(data))
        if not chunk:
            return None
        data += chunk
    return data[4:]


def ask(host, port, request, ectx, ctx):
    with socket.create_connection((host, port), timeout=10) as s:
        hello = frame_from(s)
        if hello is None:
            return None
        request = dict(request, challenge=json.loads(hello)["challenge"])
        payload = credential(ectx, json.dumps(request).encode())
        s.sendall(struct.pack(">I", len(payload)) + payload)
        data = b""
        while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
            chunk = s.recv(65536)
            if not chunk:
                return None
            data += chunk
        return opened(ctx, data[4:])


def client(host, port, sock, seconds, job, tally, lock):
    ctx = lib.munge_ctx_create()
    lib.munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock.encode())
    ectx = lib.munge_ctx_create()  # the requests': only the daemon's uid decodes them
    lib.munge_ctx_set(ectx, MUNGE_OPT_SOCKET, sock.encode())
    ctypes.CDLL("libmunge.so.2").munge_ctx_set(ctypes.c_void_p(ectx), MUNGE_OPT_UID_RESTRICTION, ctypes.c_uint(ARBITER_UID))
    growth = [dict(n=1, pays=True, saving_s=50.0, why="sdiag", pi=-1, pr=-1, mi=-1, left=-1)]
    body = dict(v=2, kind="arbitrate", job=job, rank_hosts=["node1"], per_node=1, min_nodes=1,
                max_nodes=2, hold=True, bid_ttl_s=0, growth=growth)
    end = time.monotonic() + seconds
    t = time.monotonic()
    while t < end:
        try:
            r = ask(host, port, body, ectx, ctx)
            key = "no reply" if r is None else "ok" if r["ok"] else r["error"].split(":")[0]
        except (OSError, RuntimeError) as e:
            key = "error " + type(e).__name__
        with lock:
            tally[key] = tally.get(key, 0) + 1
        t += 1
        time.sleep(max(0, t - time.monotonic()))


def main():
    host, port, sock, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    tally, lock = {}, threading.Lock()
    threads = [threading.Thread(target=client, args=(host, port, sock, seconds, j, tally, lock)) for j in sys.argv[5:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("requests: %d %s" % (sum(tally.values()), json.dumps(tally, sort_keys=True)))


if __name__ == "__main__":
    main()
