#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Kills the processes a test left behind, and names the test (scripts/test.sh runs it
beside ctest).

Every test carries MALL_CTEST_TEST=<its name> in its environment (mall_tag_tests in
cmake/MalleableTesting.cmake), and every process it starts inherits it. A test is live
while one of its processes still descends from a ctest process. A process whose test is
no longer live (the test ended, or ctest killed it at its timeout and its children were
handed to init) is a leftover: an MPI process spinning in a hung spawn takes a core from
every test after it, so that they time out one after another. Leftovers seen in two
scans in a row are killed (SIGKILL) and written to the log (and to stderr, but with --once),
one line a test:
  leftover: <test> left <n> processes: <pid> <command>; ...

Reads only /proc (environ, stat, cmdline of processes it may read); never a shell.
Usage: leftover_reaper.py LOG [--interval S] [--once] [--owner NAME] [--only PREFIX]
  --once: one scan (two passes, --interval apart), then exit: for tests of the reaper.
  --owner: the command name a live test descends from (ctest unless given).
  --only: only the tests whose name starts with PREFIX (a test of the reaper, which runs
          beside other tests, must not touch theirs).
Exits when its parent ends or on SIGTERM.
"""
import os
import signal
import sys
import time

TAG = b"MALL_CTEST_TEST="
MAX_ENVIRON = 1 << 20  # bytes read of one process's environment


def read(path, limit=65536):
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def stat_of(pid):
    """(ppid, state, comm) of a process, or None when it is gone."""
    raw = read(f"/proc/{pid}/stat", 4096)
    if not raw:
        return None
    # comm is in parentheses and may hold spaces or ')': split at the last ')'.
    close = raw.rfind(b")")
    open_ = raw.find(b"(")
    if close < 0 or open_ < 0:
        return None
    rest = raw[close + 2:].split()
    if len(rest) < 2:
        return None
    try:
        return int(rest[1]), rest[0].decode(errors="replace"), raw[open_ + 1:close].decode(errors="replace")
    except ValueError:
        return None


def tag_of(pid):
    env = read(f"/proc/{pid}/environ", MAX_ENVIRON)
    if not env:
        return None
    for entry in env.split(b"\0"):
        if entry.startswith(TAG):
            return entry[len(TAG):].decode(errors="replace")[:200]
    return None


def scan(me, owner, only):
    """{test name: [(pid, live)]}: the tagged processes, live when one descends from ctest
    (or is one: a ctest run inside a test)."""
    procs = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat_of(int(name))
            if s:
                procs[int(name)] = s
    tests = {}
    for pid, (ppid, state, comm) in procs.items():
        if pid == me or state == "Z":
            continue
        tag = tag_of(pid)
        if tag is None or not tag.startswith(only):
            continue
        live, p, hops = False, pid, 0
        while p > 1 and p in procs and hops < 4096:
            if procs[p][2] == owner:
                live = True
                break
            p, hops = procs[p][0], hops + 1
        tests.setdefault(tag, []).append((pid, live))
    return tests


def command(pid):
    raw = read(f"/proc/{pid}/cmdline", 4096) or b""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()[:160]


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    log_path, interval, once = argv[1], 5.0, "--once" in argv
    owner, only = "ctest", ""
    try:
        if "--interval" in argv:
            interval = float(argv[argv.index("--interval") + 1])
        if "--owner" in argv:
            owner = argv[argv.index("--owner") + 1][:15]  # a comm has at most 15 characters
        if "--only" in argv:
            only = argv[argv.index("--only") + 1]
    except (IndexError, ValueError):
        print("leftover_reaper.py: --interval needs seconds, --owner a name, --only a prefix", file=sys.stderr)
        return 2
    parent = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    me = os.getpid()
    suspects = {}  # pid -> test, seen as a leftover in the last scan
    passes = 0
    while True:
        now = {}
        for test, members in scan(me, owner, only).items():
            if any(live for _, live in members):
                continue
            for pid, _ in members:
                now[pid] = test
        killed, gone = {}, set()
        for pid, test in now.items():
            if suspects.get(pid) == test:
                cmd = command(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.setdefault(test, []).append(f"{pid} {cmd}")
                    gone.add(pid)
                except OSError:
                    pass
        if killed:
            with open(log_path, "a") as log:
                for test, lines in sorted(killed.items()):
                    line = f"leftover: {test} left {len(lines)} processes: {'; '.join(lines)}"
                    log.write(line + "\n")
                    if not once:  # as it happens, in the run's output too (a CI shows it)
                        print(f"{time.strftime('%H:%M:%S')} {line[:400]}", file=sys.stderr, flush=True)
        suspects = {p: t for p, t in now.items() if p not in gone}
        passes += 1
        if once and passes >= 2:
            return 0
        if not once and os.getppid() != parent:
            return 0
        time.sleep(interval)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
