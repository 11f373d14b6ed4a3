#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs one case of the combination suite (combinations.py) and checks its outcome.

  run_case.py --build BUILD --src SRC [--user-bin DIR] [--mpiexec MPIEXEC] [--deadline S]
              NAME key=value ...

Builds the command line from the case's values, runs it under a deadline in a session of
its own (on the deadline every process of that session and every descendant is killed:
only this runner's own processes), injects the fault and checks the result:
  - no fault, or a fault the launcher recovers from (malleable-run --on-failure restart
    with a checkpoint): exit 0, the program's check line against its serial oracle says
    OK, the iteration count is the one asked for; a recovered case also shows the
    relaunch;
  - a process killed / a newcomer killed without recovery: the job ends non-zero before
    the deadline, the fault fired, and Open MPI or the session says why;
  - a full checkpoint directory (a 32 KiB tmpfs mounted here; root only, else exit 77 =
    SKIPPED): exit 5, "checkpoint failed" on every rank, no checkpoint file left.
Refusal cases (kind=refuse) run the impossible request of combinations.REFUSALS, controls
(kind=control) the deliberate mistake of combinations.CONTROLS, and check the exit status
and the message.
Exit 0: as expected; 1: not; 77: skipped.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import combinations  # noqa: E402

ITERS = 5           # iterations of the drivers and user programs (porting programs: 8, fixed)
KILL_ITER = 4       # a process is killed during this iteration (RESIZE_FAULT=pause-in-iteration)
PORTING_ITERS = 8
EXE = {"pdgemm": "apps/pdgemm_resizable", "pdgemv": "apps/pdgemv_resizable", "pdgetrf": "apps/pdgetrf_resizable",
       "life": "apps/life_resizable", "pdgemm_c": "apps/pdgemm_c", "pdgemv_fortran": "apps/pdgemv_fortran",
       "porting_cxx": "apps/porting_malleable_cxx", "porting_c": "apps/porting_malleable_c",
       "porting_f": "apps/porting_malleable_f"}
CONSTANT = {"pdgemm": "A", "pdgemv": "A", "pdgetrf": "A", "life": ""}


def fail(msg):
    print(f"combination case: FAILED: {msg}", flush=True)
    sys.exit(1)


# ---------------------------------------------------------------- processes
def proc_table():
    """pid -> (ppid, session id, command name, state) of every process we can read."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        rest = s[s.rindex(")") + 2:].split()
        out[int(d)] = (int(rest[1]), int(rest[3]), name, rest[0])
    return out


def own_processes(root):
    """The live processes of the session `root` leads, and every descendant of root."""
    t = proc_table()
    mine = {p for p, (_, sid, _, _) in t.items() if sid == root}
    grew = True
    while grew:
        grew = False
        for p, (pp, _, _, _) in t.items():
            if pp in mine or pp == root:
                if p not in mine:
                    mine.add(p)
                    grew = True
    mine.discard(os.getpid())
    # Zombies are ended processes nobody reaped (orphans here may not be): not running.
    return {p: t[p][2] for p in mine if p in t and t[p][3] not in "ZX"}


def kill_all(root):
    for _ in range(3):
        procs = own_processes(root)
        if not procs:
            return
        for p in procs:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)


class Job:
    """A command run in a session of its own; its output echoed and kept."""

    def __init__(self, argv, env, deadline, trigger=None, on_trigger=None):
        print("+ " + " ".join(argv), flush=True)
        self.lines = []
        self.p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  start_new_session=True, text=True, errors="replace")
        self.trigger, self.on_trigger, self.fired = trigger, on_trigger, False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.timed_out = False
        t0 = time.time()
        try:
            self.rc = self.p.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            self.timed_out = True
            print(f"combination case: the job did not end within {deadline} s: killing its processes", flush=True)
            kill_all(self.p.pid)
            self.rc = self.p.wait()
        self.reader.join(timeout=10)
        self.seconds = time.time() - t0
        # mpiexec may return a moment before the job's last processes are gone.
        for _ in range(50):
            if not own_processes(self.p.pid):
                break
            time.sleep(0.2)
        left = own_processes(self.p.pid)
        if left:
            print(f"combination case: processes left 10 s after the job ended, killed: {left}", flush=True)
            kill_all(self.p.pid)
        self.left = left
        self.text = "".join(self.lines)

    def _read(self):
        for line in self.p.stdout:
            self.lines.append(line)
            sys.stdout.write(line)
            sys.stdout.flush()
            if self.trigger and not self.fired and re.search(self.trigger, line):
                self.fired = True
                self.on_trigger(self)


LAUNCHERS = ("mpiexec", "mpirun", "orterun", "prterun", "hydra_pmi_proxy", "mpiexec.hydra")


def kill_one(job, exe_name, newest=False):
    """SIGKILL one process of the running launch of exe_name: the second oldest (world rank
    1, which stays in the job through every schedule here; a newcomer may be leaving in a
    shrink at that moment), else the next one alive; `newest` (after a respawn: the first
    launch's processes left the world and wait, parked, for the job's end) the youngest.
    Only live children of a live mpiexec count: an earlier launch's processes may linger as
    zombies (nothing reaps orphans here)."""
    t = proc_table()
    procs = sorted(p for p in own_processes(job.p.pid)
                   if p in t and t[p][2] == exe_name[:15] and t[p][3] not in "ZX"
                   and t.get(t[p][0], (0, 0, "", "Z"))[2] in LAUNCHERS and t[t[p][0]][3] not in "ZX")
    for p in (procs[::-1] if newest else procs[1:] + procs[:1]):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            continue
        print(f"combination case: killed pid {p} (one of {len(procs)} {exe_name} processes)", flush=True)
        return
    print(f"combination case: no {exe_name} process to kill", flush=True)


# ---------------------------------------------------------------- command lines
def schedule(c, prog):
    """(processes, grid, schedule) of the case's direction."""
    if c["dir"] == "expand":
        return 4, "2x2", "2:expand:3x2"
    if c["dir"] == "shrink":
        # The drivers start on 2x3 and shrink to 2x2; the other programs start on 2x2.
        return (6, "2x3", "2:shrink:2x2") if prog in combinations.DRIVERS else (4, "2x2", "2:shrink:1x2")
    if c["dir"] == "both":
        return 4, "2x2", "2:expand:3x2,3:shrink:2x2"
    return 4, "2x2", ""


def command(c, a, work, ck, ldir):
    prog = c["prog"]
    np_, grid, sched = schedule(c, prog)
    env = dict(os.environ)
    env.pop("RESIZE_FAULT", None)
    env["RESIZE_HISTORY"] = "off"
    env["MALLEABLE_JOB_ID"] = os.path.basename(work)
    if "reconf" in c:  # the respawn cases (combinations.RESPAWNS); the others leave the default
        env["RESIZE_RECONFIGURE"] = c["reconf"]
    if prog in combinations.USER:
        exe = os.path.join(a.user_bin, prog)
        args = ["--type", c["type"], "--mover", c["mover"], "--background", c["bg"], "--iters", str(ITERS)]
        if sched:
            args += ["--schedule", sched]
    elif prog in combinations.DRIVERS:
        exe = os.path.join(a.build, EXE[prog])
        args = ["-n", "96", "--nb", "16", "-i", str(ITERS), "-g", grid, "--json", os.path.join(work, "run.json"),
                "-r", c["mover"]]
        args += ["-p", "scripted", "-s", sched] if sched else ["-p", "fixed"]
        if c["bg"] != "off":
            args += ["--background", c["bg"]] + (["--constant", CONSTANT[prog]] if CONSTANT[prog] else [])
        if c["mech"] == "restart":
            args += ["--mechanism", "restart"]
        if c["ckpt"] in ("global", "global+partner"):
            args += ["--checkpoint", ck, "--checkpoint-every", "1", "--keep", "2"]
        if c["ckpt"] == "local":
            args += ["--checkpoint-local", "1", "--checkpoint-local-dir", ldir]
        if c["ckpt"] in ("partner", "global+partner"):
            args += ["--checkpoint-partner", "1", "--checkpoint-local-dir", ldir]
            env["MALLEABLE_NODE_MAP"] = "every=2"  # two processes a node: a partner ring
    elif prog in ("pdgemm_c", "pdgemv_fortran"):
        exe = os.path.join(a.build, EXE[prog])
        args = ["96", str(ITERS), sched] + (["background"] if c["bg"] == "wait" else [])
        env["RESIZE_MOVER"] = c["mover"]
    else:  # porting programs: [schedule]
        exe = os.path.join(a.build, EXE[prog])
        args = [sched]
        env["RESIZE_MOVER"] = c["mover"]
    return np_, exe, args, env


def mpiexec_argv(a):
    """mpiexec with the flavour's flags (MALL_MPIEXEC_FLAGS from the test environment)."""
    return [a.mpiexec] + os.environ.get("MALL_MPIEXEC_FLAGS", "--oversubscribe --bind-to none").split()


def launch(c, a, np_, exe, args, recover, env):
    mpiexec = mpiexec_argv(a)
    env["MALLEABLE_MPIEXEC"] = " ".join(mpiexec)
    if c["launcher"] == "mpiexec":
        return mpiexec + ["-n", str(np_), exe] + args
    run = [os.path.join(a.build, "bin", "malleable-run"), "-n", str(np_), "--max-restarts", "4"]
    return run + (["--on-failure", "restart"] if recover else []) + ["--", exe] + args


# ---------------------------------------------------------------- checks
def check_result(c, job, work, np_):
    """The program's own check against its serial oracle, and the iterations."""
    prog, t = c["prog"], job.text
    if job.rc != 0:
        fail(f"exit status {job.rc}, expected 0")
    if prog in combinations.DRIVERS:
        with open(os.path.join(work, "run.json")) as f:
            run = json.load(f)
        chk = run.get("check", {})
        ok = chk.get("ok") if isinstance(chk, dict) else run.get("check_ok")
        if not ok:
            fail(f"the driver's check against the serial oracle failed: {chk}")
        # The last launch's output: its last iteration, or where it restarted (a launch that
        # restarts from the last iteration's checkpoint has no iteration left to run).
        last = t[t.rfind("malleable-run: launch "):] if "malleable-run: launch " in t else t
        done = [int(k) for k in re.findall(rf"\[{prog}\] iter +(\d+) ", last)]
        done += [int(k) for k in re.findall(rf"\[{prog}\] restart from .* at iteration (\d+)", last)]
        if not done or max(done) != ITERS:
            fail(f"the last launch ended after iteration {max(done) if done else None}, expected {ITERS}")
        print(f"combination case: check OK ({chk.get('message', chk) if isinstance(chk, dict) else chk}), "
              f"iterations up to {ITERS}")
        return
    want = {"pdgemm_c": rf"result check: B = \(sA\)\^{ITERS} B0: .*: OK",
            "pdgemv_fortran": rf"result check: x = \(sA\)\^{ITERS} x0: .*OK",
            "porting_cxx": rf"porting_malleable_cxx: {PORTING_ITERS} iterations, .*: OK",
            "porting_c": rf"porting_malleable_c: {PORTING_ITERS} iterations, .*: OK",
            "porting_f": rf"porting_malleable_f: {PORTING_ITERS} iterations, .*: OK",
            "user_cxx": rf"user_cxx: type {c['type']}, {ITERS} iterations, .*on every process: OK",
            "user_c": rf"user_c: type {c['type']}, {ITERS} iterations, .*on every process: OK"}[prog]
    if not re.search(want, t):
        fail(f"no check line /{want}/ in the output")
    if re.search(r"result check: .*FAILED", t):
        fail("a check line says FAILED")
    print(f"combination case: check line /{want}/ found")


def check_respawned(c, job):
    """A respawn case (RESIZE_RECONFIGURE=respawn): every resize carried out in place says it
    was reconfigured by respawn and a program that resizes in the background was told that
    the respawn runs blocking. With the fallback's stalled newcomer or a killed one (under
    malleable-run) the shrink's respawn, which spawns too, fails as the expansion's did and
    falls back to a restart onto 2x2 as well: no resize is left in place."""
    lines = [ln for ln in job.text.splitlines() if re.search(r"remap after iter \d+: (expand|shrink)", ln)]
    if c["fault"] in ("stall", "newcomer"):
        want = [r"malleable-run: launch 3: 4 processes, -g 2x2 --restart"]
        if c["fault"] == "stall":
            want.append(r"the shrink by respawn after iteration 3 \(3x2 -> 2x2\) did not complete within its spawn deadline")
        for rx in want:
            if not re.search(rx, job.text):
                fail(f"the shrink by respawn did not fall back to a restart (no /{rx}/)")
        if lines:
            fail(f"a resize in place although every spawn failed: {lines[0].strip()}")
        print("combination case: the expansion's and the shrink's respawns both fell back to a restart")
        return
    if not lines:
        fail("no resize line (remap after iter N: expand|shrink ...) in the output")
    merged = [ln for ln in lines if "reconfigured by respawn" not in ln]
    if merged:
        fail(f"{len(merged)} of {len(lines)} resize lines do not say 'reconfigured by respawn': {merged[0].strip()}")
    background = c["bg"] != "off" and c["prog"] != "life"  # life has nothing constant: blocking anyway
    blocking = "carried out blocking: a respawn does not run in the background"
    if background and blocking not in job.text:
        fail(f"a background mode with a respawn, but no '{blocking}'")
    print(f"combination case: {len(lines)} resize line(s), each reconfigured by respawn"
          + (", carried out blocking" if background else ""))


def check_failed_cleanly(c, job, marker, why):
    if job.rc == 0:
        fail(f"the job ended with status 0 although {why}")
    if not re.search(marker, job.text):
        fail(f"the fault did not fire (no /{marker}/)")
    said = r"exited on signal 9|signal 9 \(Killed\)|FAILED|killed|Killed"
    if not re.search(said, job.text):
        fail(f"nobody said why the job ended (no /{said}/)")
    print(f"combination case: the job ended with status {job.rc} in {job.seconds:.1f} s, as expected ({why})")


def check_full(c, job, np_, ck):
    if job.rc != 5:
        fail(f"exit status {job.rc}, expected 5 (a checkpoint failed)")
    ranks = set(re.findall(r"\(rank (\d+)\): checkpoint failed", job.text))
    if len(ranks) != np_:
        fail(f"'checkpoint failed' said by ranks {sorted(ranks)}, expected all {np_}")
    left = [f for f in os.listdir(ck)] if os.path.isdir(ck) else []
    if any(f.endswith(".h5") for f in left):
        fail(f"a checkpoint file is in the full directory: {left}")
    print(f"combination case: the checkpoint failed on all {np_} ranks with status 5, no file left")


def mount_full(path):
    if os.geteuid() != 0:
        print("SKIPPED: mounting a small tmpfs needs root")
        sys.exit(77)
    os.makedirs(path)
    if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", path]) != 0:
        print("SKIPPED: cannot mount a tmpfs here")
        sys.exit(77)


def run_case(c, a):
    work = tempfile.mkdtemp(prefix="combination-")
    mounted = None
    try:
        ck, ldir = os.path.join(work, "ck"), os.path.join(work, "levels")
        if c["fault"] == "full":
            mounted = os.path.join(work, "full")
            mount_full(mounted)
            ck, ldir = os.path.join(mounted, "ck"), os.path.join(mounted, "levels")
        np_, exe, args, env = command(c, a, work, ck, ldir)
        has_ckpt = c["ckpt"] != "none"
        recover = c["launcher"] == "malleable-run" and has_ckpt and c["fault"] in ("kill", "newcomer")
        argv = launch(c, a, np_, exe, args, recover, env)
        trigger = on_trigger = None
        marker = ""
        if c["fault"] == "kill":
            # The session holds every process in iteration KILL_ITER (a test hook of every
            # session program) and says so; the pause ends on its release file, made after
            # the kill (120 s at most): the kill lands there whatever the load, and a
            # relaunch passes that iteration without a pause.
            released = os.path.join(work, "killed")
            env["RESIZE_FAULT"] = f"pause-in-iteration:{KILL_ITER}:120:{released}"
            trigger = marker = r"fault injection - every process pauses"
            name = os.path.basename(exe)

            def on_trigger(job, name=name, released=released, newest=c.get("reconf") == "respawn"):
                kill_one(job, name, newest)
                open(released, "w").close()
        elif c["fault"] == "newcomer":
            # (A respawn is carried out blocking, whatever the background mode.)
            background = c["bg"] != "off" and c.get("reconf", "merge") != "respawn"
            env["RESIZE_FAULT"] = "kill-newcomer-background" if background else "kill-newcomer"
            marker = r"fault injection - newcomer \(pid \d+\) kills itself"
        elif c["fault"] == "stall":  # the expansion fallback (FALLBACKS in combinations.py)
            env["BLACS_DYN_FAULT"] = "stall-newcomer-in-init"
            env["RESIZE_SPAWN_DEADLINE"] = "5"
            marker = r"fault injection - newcomer \d+ \(pid \d+\) stalls before its MPI_Init"
        elif c["fault"] == "refresh":  # the refresh (refresh_cases in combinations.py)
            env["RESIZE_REFRESH_AFTER"] = "1"
            marker = r"\] refresh after iteration 2: this launch spawned 0 processes; 2 more would pass RESIZE_REFRESH_AFTER=1"
        job = Job(argv, env, a.deadline, trigger, on_trigger)
        if job.timed_out:
            fail(f"no end within {a.deadline} s")
        print(f"combination case: the job ended with status {job.rc} after {job.seconds:.1f} s")
        if c["fault"] == "full":
            check_full(c, job, np_, ck)
        elif c["fault"] in ("kill", "newcomer") and not recover:
            check_failed_cleanly(c, job, marker, "a process was killed and nothing relaunches it")
        else:
            if c["fault"] != "none":
                if not re.search(marker, job.text):
                    fail(f"the fault did not fire (no /{marker}/)")
                # A newcomer that dies during an expansion by spawn (blocking or in the
                # background) ends as a resize by restart onto the target, from the state
                # secured before the spawn; any other killed process as a restart in place.
                relaunched = r"malleable-run: launch 2: 6 processes, -g 3x2 --restart" if c["fault"] in ("stall", "refresh") else \
                    r"malleable-run: launch \d+ (failed .*restarting|ended with status \d+ during an expansion by spawn: " \
                    r"a resize by restart)"
                if c["fault"] == "kill" and c.get("reconf") == "respawn":
                    # The kill lands after every resize: a relaunch in place, from the last
                    # checkpoint (no marker of a spawn left behind by a completed respawn).
                    relaunched = r"malleable-run: launch \d+ failed .*restarting"
                if not re.search(relaunched, job.text):
                    fail(f"malleable-run did not relaunch after the fault (no /{relaunched}/)")
            check_result(c, job, work, np_)
            if c.get("reconf") == "respawn":
                check_respawned(c, job)
        return 0
    finally:
        if mounted:
            subprocess.call(["umount", mounted])
        shutil.rmtree(work, ignore_errors=True)


def refuse_case(c, a):
    name = c["refusal"]
    _, prog, args, status, rx = next(r for r in combinations.REFUSALS + combinations.CONTROLS if r[0] == name)
    work = tempfile.mkdtemp(prefix="combination-")
    try:
        exe = os.path.join(a.user_bin if prog in combinations.USER else a.build,
                           prog if prog in combinations.USER else EXE[prog])
        argv = mpiexec_argv(a) + ["-n", "4", exe] + \
            args.format(ck=os.path.join(work, "ck")).split()
        env = dict(os.environ, RESIZE_HISTORY="off")
        job = Job(argv, env, a.deadline)
        if job.timed_out:
            fail(f"the refusal did not come within {a.deadline} s")
        if job.rc != status:
            fail(f"exit status {job.rc}, expected {status} (a refusal)")
        if not re.search(rx, job.text):
            fail(f"no message /{rx}/")
        if c["kind"] == "refuse" and re.search(r"\] iter +1 ", job.text):
            fail("an iteration ran although the request was refused")
        print(f"combination case: {'refused' if c['kind'] == 'refuse' else 'the control failed'} with status "
              f"{status} and /{rx}/")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="run one combination case")
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--user-bin", default="")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--deadline", type=float, default=150)
    ap.add_argument("name")
    ap.add_argument("values", nargs="+")
    a = ap.parse_args()
    c = dict(v.split("=", 1) for v in a.values)
    print(f"combination case {a.name}: " + " ".join(f"{k}={v}" for k, v in c.items()), flush=True)
    if c.get("kind") in ("refuse", "control"):
        return refuse_case(c, a)
    bad = combinations.violations(c)
    if bad:
        fail(f"the case breaks the constraints: {bad}")
    return run_case(c, a)


if __name__ == "__main__":
    sys.exit(main())
