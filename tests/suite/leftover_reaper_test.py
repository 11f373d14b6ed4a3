#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/support/leftover_reaper.py kills what an ended test left, and only that.

This process takes the name of a stand-in ctest ("fake-ctest", /proc/self/comm) and
starts three sleeps: one tagged with a test that has ended (its shell exits at once, so
the sleep is handed to init: a leftover), one tagged with a live test (a child of this
process), one without a tag (handed to init too). After one scan of the reaper with
--owner fake-ctest --only reaper. (the tests beside this one are not its to judge), only
the leftover is dead and the log names its test."""
import os
import subprocess
import sys
import tempfile
import time

reaper = sys.argv[1]
with open("/proc/self/comm", "w") as f:
    f.write("fake-ctest")
work = tempfile.mkdtemp()
log = os.path.join(work, "leftovers.log")
pidfile = lambda n: os.path.join(work, n)


def orphan(tag, name):
    env = dict(os.environ)
    env.pop("MALL_CTEST_TEST", None)
    if tag:
        env["MALL_CTEST_TEST"] = tag
    # The shell starts the sleep in the background, writes its pid and exits: the sleep is
    # handed to init. setsid: not in this process's group, as a real leftover.
    # Its output goes nowhere: a process that holds ctest's pipe keeps the test open.
    subprocess.run(["setsid", "bash", "-c", f'sleep 300 & echo $! > "{pidfile(name)}"'], env=env, check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(pidfile(name)) and os.path.getsize(pidfile(name)):
            return int(open(pidfile(name)).read())
        time.sleep(0.05)
    sys.exit(f"FAILED: no pid for {name}")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


ended = orphan("reaper.ended_test", "ended")
untagged = orphan(None, "untagged")
env = dict(os.environ, MALL_CTEST_TEST="reaper.live_test")
live = subprocess.Popen(["sleep", "300"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
try:
    rc = subprocess.run([reaper, log, "--once", "--interval", "0.3", "--owner", "fake-ctest", "--only", "reaper."]).returncode
    # The kill is sent before the reaper exits; the process is gone once the kernel has
    # ended it: wait for that (10 s at most), not for a fixed time.
    deadline = time.time() + 10
    while alive(ended) and time.time() < deadline:
        time.sleep(0.02)
    text = open(log).read() if os.path.exists(log) else ""
    print(text, end="")
    problems = []
    if rc != 0:
        problems.append(f"the reaper exited with {rc}")
    if alive(ended):
        problems.append("the ended test's sleep is alive")
    if not alive(live.pid):
        problems.append("the live test's sleep was killed")
    if not alive(untagged):
        problems.append("a process without a tag was killed")
    if "leftover: reaper.ended_test left 1 processes: " not in text or "sleep 300" not in text:
        problems.append("the log does not name the ended test and its command")
    if "reaper.live_test" in text:
        problems.append("the log names the live test")
    print("FAILED: " + "; ".join(problems) if problems else "PASS")
finally:
    live.kill()
    for pid in (ended, untagged):
        try:
            os.kill(pid, 9)
        except OSError:
            pass
