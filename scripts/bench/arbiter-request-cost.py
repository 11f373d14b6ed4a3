#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What one request costs malleable-arbiterd, which serves one at a time: N requests of
each kind sent one after another to a live daemon (the rig of
tests/cluster/unit/daemon/arbiter_daemon_test.py: its own munged, a fake Slurm, two uids; root), the
time per request. A kind that writes the journal (fsync) costs the daemon far more than
one refused before the state is touched: what a user flooding the daemon can take from
the others.
Usage: scripts/bench/arbiter-request-cost.py BUILD_DIR [N]   (N: 1000 per kind)"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "cluster", "unit", "daemon"))
import arbiter_daemon_test as t  # noqa: E402


def main():
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rig = t.Rig(sys.argv[1])
    try:
        rig.start()
        rig.ask(t.UID_A, dict(kind="status"))
        # Protocol version 2: each request names its connection's challenge, so its
        # credential is made once the connection is open (by a process of the uid, a line
        # each: its cost is in the times below).
        kinds = [("a bad body (unknown key), owner's credential", t.UID_A,
                  lambda i: dict(kind="status", **{"x%d" % i: 1})),
                 ("uid B's release for uid A's job (refused)", t.UID_B,
                  lambda i: dict(kind="settle", job="7", promises_too=False)),
                 ("uid A's arbitrate for its job (decided, journal written)", t.UID_A,
                  lambda i: t.arbitrate("7", ["node1", "node2"])),
                 ("a status", t.UID_B, lambda i: dict(kind="status"))]
        print("load average before: %s" % open("/proc/loadavg").read().split()[:3])
        for name, uid, request in kinds:
            t.encode_as(uid, "warm")  # the encoder started before the clock runs
            t0 = time.monotonic()
            for i in range(n):
                if rig.ask(uid, request(i)) is None:
                    raise RuntimeError("no answer to " + name)
            dt = time.monotonic() - t0
            print("%-58s %5d requests %6.2f s %6.2f ms each" % (name, n, dt, 1000 * dt / n))
    finally:
        rig.close()


if __name__ == "__main__":
    main()
