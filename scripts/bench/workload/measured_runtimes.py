#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""For the comparison with the emulated cluster: the workload file with each
real driver's (program other than "sleep") work set from its measured run time, so that the
simulator predicts the batch system around jobs whose length the Amdahl model does not
know. Sleep jobs keep the model's work. Only rigid runs of a driver are used (a job that
resized keeps the model's work).

    measured_runtimes.py WORKLOAD.json EMULATED_JOBS.json -o OUT.json [--as-run STREAM.json]
EMULATED_JOBS.json: the emulated run's per-job list (id, program, start_s, end_s, resizes).
--as-run: also what the emulated run submitted: each job's submission time as the runner
measured it (EMULATED_JOBS.json's submit_s; sbatch itself takes up to a second) and its
time limit (the run's STREAM.json, time_limits_min: sbatch --time), which Slurm's
backfilling takes as the job's run time estimate (the simulator's limit_s), and the limit
it ended with when the runner lowered it at the start (jobcomp.txt beside STREAM.json,
TimeLimit of the job's last record; the simulator's run_limit_s).
"""
import argparse
import json
import os
import re
import sys


def apply(workload, jobs):
    measured = {j["id"]: j for j in jobs}
    changed = []
    for job in workload["jobs"]:
        e = measured.get(job["id"])
        # a job the runner lost (metrics.json's jobs_missing: no start or end seen) keeps the model's work
        if job.get("program", "sleep") == "sleep" or e is None or e.get("resizes", 0) or e.get("missing"):
            continue
        run = float(e["end_s"]) - float(e["start_s"])
        if run <= 0:
            continue
        sf = job["serial_fraction"]
        # the nodes it ran on (a range start, or one process of a malleable start, may not be its size)
        seen = e.get("nodes_seen") or [job["nodes"]]
        n = int(seen[0]) if len(seen) == 1 else job["nodes"]
        job["work_node_s"] = round(run / (sf + (1 - sf) / n), 3)
        changed.append(job["id"])
    return changed


def final_limits(jobcomp_text):
    """Job name -> TimeLimit (minutes) of its last record in Slurm's job completion log."""
    out = {}
    for m in re.finditer(r"\bName=(\S+) .*?\bTimeLimit=(\d+)", jobcomp_text):
        out[m.group(1)] = int(m.group(2))
    return out


def as_run(workload, jobs, stream, jobcomp_text=""):
    """Submission times and time limits as the emulated run had them."""
    measured = {j["id"]: j for j in jobs}
    limits = stream.get("time_limits_min", {})
    final = final_limits(jobcomp_text)
    for job in workload["jobs"]:
        if job["id"] in final and job["id"] in limits and final[job["id"]] < limits[job["id"]]:
            job["run_limit_s"] = 60.0 * final[job["id"]]
    for job in workload["jobs"]:
        e = measured.get(job["id"])
        if e is not None and e.get("submit_s") is not None:
            job["submit_s"] = round(float(e["submit_s"]), 3)
        if job["id"] in limits:
            job["limit_s"] = 60.0 * float(limits[job["id"]])
    workload["jobs"].sort(key=lambda j: j["submit_s"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload")
    ap.add_argument("jobs")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--as-run", metavar="STREAM.json", help="submission times and time limits of the emulated run")
    a = ap.parse_args(argv)
    try:
        with open(a.workload) as f:
            w = json.load(f)
        with open(a.jobs) as f:
            jobs = json.load(f)
        changed = apply(w, jobs)
        if a.as_run:
            comp = os.path.join(os.path.dirname(os.path.abspath(a.as_run)), "jobcomp.txt")
            with open(a.as_run) as f:
                as_run(w, jobs, json.load(f), open(comp).read() if os.path.exists(comp) else "")
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
