#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""For the comparison with the emulated cluster (issue 44 §3): the workload file with each
real driver's (program other than "sleep") work set from its measured run time, so that the
simulator predicts the batch system around jobs whose length the Amdahl model does not
know. Sleep jobs keep the model's work. Only rigid runs of a driver are used (a job that
resized keeps the model's work).

    measured_runtimes.py WORKLOAD.json EMULATED_JOBS.json -o OUT.json
EMULATED_JOBS.json: the emulated run's per-job list (id, program, start_s, end_s, resizes).
"""
import argparse
import json
import sys


def apply(workload, jobs):
    measured = {j["id"]: j for j in jobs}
    changed = []
    for job in workload["jobs"]:
        e = measured.get(job["id"])
        if job.get("program", "sleep") == "sleep" or e is None or e.get("resizes", 0):
            continue
        run = float(e["end_s"]) - float(e["start_s"])
        if run <= 0:
            continue
        sf, n = job["serial_fraction"], job["nodes"]
        job["work_node_s"] = round(run / (sf + (1 - sf) / n), 3)
        changed.append(job["id"])
    return changed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload")
    ap.add_argument("jobs")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args(argv)
    try:
        with open(a.workload) as f:
            w = json.load(f)
        with open(a.jobs) as f:
            jobs = json.load(f)
        changed = apply(w, jobs)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"measured_runtimes.py: {e}", file=sys.stderr)
        return 2
    with open(a.out, "w") as f:
        json.dump(w, f, indent=1)
    print(f"measured_runtimes.py: {len(changed)} driver job(s) take their measured run time: {' '.join(changed)}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
