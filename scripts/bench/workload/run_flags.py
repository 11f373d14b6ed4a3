#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The simulator's flags that describe how one emulated run (workload_cluster.sh's
share_<s>/ directory) ran its jobs, from the run's own files:

    run_flags.py DIR         prints e.g. "--start one --one-update on"
    run_flags.py --kind DIR  prints the run's kind: rigid, moldable or malleable

A rigid run (no malleable job in its workload.json: the rigid arm, or share 0) gets only
the backfilling's flags below: the simulator refuses every option that acts on malleable
jobs alone when none is (--start, --one-update, --range-top, --policy, the levers).

--start: meta.json's "start" (workload_cluster.sh writes it), else one or min when the
malleable jobs started one process or their minimum and spawned
onto the rest of their allocation (their command lines carry --lead-in; min when such a
job's first iteration ran on more than one process), else --start full. --one-update on:
Slurm kept no accounting, so it changed a job's allocation once: a job's output says so
("keeps no accounting"), or meta.json has "accounting": false; off when meta.json has
"accounting": true; without either, on (the runs before slurmdbd). --range-top: meta.json's
"top" (the top of the -N range sbatch was given: requested, max, or efficient with
--range-efficiency 0.5), else requested when its "range" is grow or requested (Slurm was
asked for at most the size each job asked). --policy none for the moldable arms (moldable,
moldable_max, moldable_efficient); --no-give-back for the growth arm, --no-growth for the
giveback arm (meta.json's "policy"). --range-start slurm (Slurm starts a job of a range on
what is idle whatever its limit, and ends it at that limit) but for the malleable_rule arm,
whose arbiter raised the limit at such a start (guarded, the simulator's default); meta.json's
"range_start" overrides it. Only for runs under the log's limits (meta.json's "limits": "log").
--bf-resolution 60 --bf-origin S when the run's jobcomp.txt is there: Slurm's backfilling
plans in 60-s blocks of the wall clock (bf_resolution, its default; scripts/cluster.sh sets
no other), and S is where the run's time 0 fell in its minute: the latest of
SubmitTime (whole seconds) - submit_s over the jobs (jobs.json), mod 60.
"""
import calendar
import glob
import json
import os
import math
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import data_archive  # noqa: E402  (docs/data/workload's runs are packed in runs.tar.xz)

BF_RESOLUTION_S = 60


def bf_origin(d):
    """The wall clock's seconds past a whole bf_resolution block at the run's time 0, or
    None without jobcomp.txt and jobs.json."""
    comp, runs = os.path.join(d, "jobcomp.txt"), os.path.join(d, "jobs.json")
    if not (os.path.exists(comp) and os.path.exists(runs)):
        return None
    submit = {j["id"]: j["submit_s"] for j in json.load(open(runs)) if j.get("submit_s") is not None}
    t0 = None
    for line in open(comp, errors="replace"):
        m = re.search(r"\bName=(\S+) .*\bSubmitTime=(\S+)", line)
        if not m or m.group(1) not in submit:
            continue
        # slurmctld writes local time; the emulated cluster's machine runs on UTC
        wall = calendar.timegm(time.strptime(m.group(2), "%Y-%m-%dT%H:%M:%S"))
        t0 = max(t0 if t0 is not None else -math.inf, wall - submit[m.group(1)])
    return None if t0 is None else t0 % BF_RESOLUTION_S


def kind(d):
    """rigid (no malleable job in the run's workload.json), moldable (meta.json's policy
    moldable*: node ranges, never resized) or malleable."""
    meta = json.load(open(os.path.join(d, "meta.json"))) if os.path.exists(os.path.join(d, "meta.json")) else {}
    path = os.path.join(d, "workload.json")
    if os.path.exists(path):  # without it (a run's files in part): its meta.json's arm
        if not any(j.get("malleable") for j in json.load(open(path)).get("jobs", [])):
            return "rigid"
    elif meta.get("policy") == "rigid":
        return "rigid"
    return "moldable" if meta.get("policy", "").startswith("moldable") else "malleable"


def sim_flags(d, interval="2"):
    """The flags a simulation of the run takes beyond its workload and costs: Slurm's
    conservative backfilling, and for malleable jobs their node ranges (--start-ranges), the
    policy asked every `interval` s when they resize (not --policy none), and flags(d)."""
    k = kind(d)
    ranges = [] if k == "rigid" else ["--start-ranges"] + (["--interval", interval] if k == "malleable" else [])
    return ranges + ["--backfill", "conservative"] + flags(d)


def flags(d):
    start = "full"
    for path in sorted(glob.glob(os.path.join(d, "jobs", "*.json"))):
        run = json.load(open(path))
        if "--lead-in" in run.get("command_line", []):
            its = run.get("iterations", [])
            if its and its[0].get("procs", 1) > 1:
                start = "min"
                break
            start = "one"
    meta = json.load(open(os.path.join(d, "meta.json"))) if os.path.exists(os.path.join(d, "meta.json")) else {}
    start = meta.get("start", start)
    accounting = meta.get("accounting")
    outs = glob.glob(os.path.join(d, "jobs", "*.out"))
    if any("keeps no accounting" in open(p, errors="replace").read() for p in outs):
        accounting = False
    # the top of the -N range sbatch was given; before meta.json named it, range grow and
    # requested both meant -N min-size (Slurm was asked for at most the size each job asked)
    top_name = meta.get("top") or ("requested" if meta.get("range") in ("grow", "requested") else None)
    top = [] if top_name is None else ["--range-top", top_name]
    if top_name == "efficient":
        top += ["--range-efficiency", "0.5"]
    origin = bf_origin(d)
    bf = [] if origin is None else ["--bf-resolution", str(BF_RESOLUTION_S), "--bf-origin", f"{origin:.2f}"]
    # the moldable arm: its malleable jobs asked Slurm for their range and were never resized
    arm = meta.get("policy", "")
    policy = ["--policy", "none"] if arm.startswith("moldable") else []
    if policy:
        start = "full"
    policy += {"growth": ["--no-give-back"], "giveback": ["--no-growth"]}.get(arm, [])
    # the arm whose arbiter raised the givers' limits in Slurm (--extend-limits on): the
    # simulator's time-limit rule, the same function (malleable/cluster/time_limit.hpp)
    if arm == "malleable_rule":
        policy += ["--limit-follows-size"]
    # how Slurm started a job of a -N min-top range: on whatever part of it was idle, under
    # the limit it was submitted with (--range-start slurm), except where the arbiter raised
    # that limit at the start by the rule (malleable_rule runs from 29 Nov 2026, 10:18 UTC:
    # the simulator's default with --limit-follows-size); meta.json's "range_start" names it
    # (only where the limits were the log's: under loose limits the two starts are one)
    if meta.get("limits") == "log" or meta.get("range_start"):
        range_start = meta.get("range_start") or ("guarded" if arm == "malleable_rule" else "slurm")
        policy += ["--range-start", range_start]
    if kind(d) == "rigid":  # none of the malleable-only options (the simulator refuses them)
        return bf
    return ["--start", start, "--one-update", "off" if accounting else "on"] + top + bf + policy


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    want_kind = argv[:1] == ["--kind"]
    if want_kind:
        argv = argv[1:]
    if len(argv) != 1 or not data_archive.exists(argv[0]):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    with data_archive.readable(argv[0]) as d:  # a packed run: a scratch copy of its members
        print(kind(d) if want_kind else " ".join(flags(d)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
