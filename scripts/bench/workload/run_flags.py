#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The simulator's flags that describe how one emulated run (workload_cluster.sh's
share_<s>/ directory) ran its jobs, from the run's own files:

    run_flags.py DIR      prints e.g. "--start one --one-update on"

--start one: the malleable jobs started one process and spawned onto their allocation
(their command lines carry --lead-in), else --start full. --one-update on: Slurm kept no
accounting (meta.json "accounting" false or absent: the runs before slurmdbd), so it
changed a job's allocation once; off with accounting.
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
            start = "one"
            break
    meta = os.path.join(d, "meta.json")
    accounting = bool(json.load(open(meta)).get("accounting", False)) if os.path.exists(meta) else False
    return ["--start", start, "--one-update", "off" if accounting else "on"]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    print(" ".join(flags(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
