#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The simulator's flags that describe how one emulated run (workload_cluster.sh's
share_<s>/ directory) ran its jobs, from the run's own files:

    run_flags.py DIR      prints e.g. "--start one --one-update on"

--start: meta.json's "start" (workload_cluster.sh writes it), else one or min when the
malleable jobs started one process or their minimum and spawned
onto the rest of their allocation (their command lines carry --lead-in; min when such a
job's first iteration ran on more than one process), else --start full. --one-update on:
Slurm kept no accounting, so it changed a job's allocation once: a job's output says so
("keeps no accounting"), or meta.json has "accounting": false; off when meta.json has
"accounting": true; without either, on (the runs before slurmdbd). --range-top requested
when meta.json's "range" is grow (Slurm was asked for at most the size each job asked).
"""
import glob
import json
import os
import sys


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
    # range grow: Slurm was asked for at most the size each job asked (-N min-size)
    top = ["--range-top", "requested"] if meta.get("range") == "grow" else []
    return ["--start", start, "--one-update", "off" if accounting else "on"] + top


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    print(" ".join(flags(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
