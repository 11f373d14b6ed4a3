#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A site's sacct --parsable2 log as Standard Workload Format text, for the scripts that read
a log's own schedule from SWF (trace_prime_time.py, replay_gap.py): the same jobs the
simulator's --sacct reader keeps (sim/src/sacct.hpp): steps skipped, jobs not ended dropped,
each job's id "j<JobIDRaw>" as in the simulator's records (the SWF job-number field holds
the id's text, e.g. 1008_3), its nodes NNodes (with --cores-per-node C: ceil(NCPUS / C)),
its wait Start - Submit, its run Elapsed, its requested time Timelimit. Dates are read as
the simulator reads them, the log's wall clock (UnixStartTime the first submission, time
zone 0). Run the simulator on the log first: it refuses a malformed log with the line; here
a line that does not parse is skipped and counted on stderr.

    sacct_swf.py LOG --nodes N [--cores-per-node C] -o OUT.swf
"""
import argparse
import calendar
import math
import re
import sys
import time

MAX_LINE = 65536  # the simulator's kSacctMaxLine
MAX_FIELDS = 256  # its kSacctMaxFields
NOT_ENDED = {"PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING", "REVOKED"}
MAX_S = 10 * 365 * 86400  # run or requested times past ten years: dropped, as the simulator does


def date(text):
    """Epoch seconds of sacct's YYYY-MM-DDTHH:MM:SS (the wall clock read as UTC) or of epoch
    seconds; None for Unknown, None or anything else."""
    if re.fullmatch(r"\d{1,11}", text):
        return int(text)
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", text):
        return None
    try:
        t = calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None
    return t if 0 <= t < 7258118400 else None  # 1970-2200, as the simulator


def duration(text):
    """Seconds of [D-][HH:]MM:SS[.frac] (or plain seconds); None when it does not parse."""
    m = re.fullmatch(r"(?:(\d{1,6})-)?(?:(\d{1,2}):)?(\d{1,2}):(\d{1,2})(?:\.\d{1,6})?", text)
    if m:
        d, h, mi, s = (int(x) if x else 0 for x in m.groups())
        return ((d * 24 + h) * 60 + mi) * 60 + s
    return int(text) if re.fullmatch(r"\d{1,12}", text) else None


def count(text):
    return int(text) if re.fullmatch(r"\d{1,10}", text) and int(text) < 2 ** 32 else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log")
    p.add_argument("--nodes", type=int, required=True, help="the machine's nodes (sacct does not record them)")
    p.add_argument("--cores-per-node", type=int, default=0, help="a job's nodes ceil(NCPUS / C) instead of NNodes")
    p.add_argument("-o", "--out", required=True)
    a = p.parse_args(argv)
    if not 0 < a.nodes < 2 ** 31 or not 0 <= a.cores_per_node < 2 ** 31:
        sys.exit("sacct_swf: --nodes must be at least 1, --cores-per-node at least 0")
    jobs, skipped, users, first = [], 0, {}, None
    with open(a.log, errors="replace") as f:
        head = None
        for line in f:
            if len(line) > MAX_LINE:
                sys.exit(f"sacct_swf: {a.log}: a line longer than {MAX_LINE} characters")
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            x = line.split("|")
            if head is None:
                if len(x) > MAX_FIELDS:
                    sys.exit(f"sacct_swf: {a.log}: a header of more than {MAX_FIELDS} fields")
                head = {k.strip().lower(): i for i, k in enumerate(x)}
                if not ({"jobidraw", "jobid"} & head.keys()) or "submit" not in head or "start" not in head:
                    sys.exit(f"sacct_swf: {a.log}: its first line is no sacct header (JobIDRaw, Submit, Start)")
                continue
            if len(x) != len(head):
                skipped += 1
                continue

            def get(*names):
                for n in names:
                    if n in head:
                        return x[head[n]].strip()
                return ""
            jid = get("jobidraw", "jobid")
            if not re.fullmatch(r"\d+[_+][\w\[\]%+-]*|\d+", jid) or "." in jid:
                skipped += "." not in jid  # steps: skipped silently, as the simulator does
                continue
            state = get("state").split()[0].upper() if get("state") else ""
            if state in NOT_ENDED:
                continue
            submit, start = date(get("submit")), date(get("start"))
            if submit is None:
                skipped += 1
                continue
            first = submit if first is None else min(first, submit)
            run = duration(get("elapsedraw", "elapsed"))
            if run is None and date(get("end")) is not None and start is not None:
                run = date(get("end")) - start
            if a.cores_per_node:
                cpus = count(get("ncpus", "alloccpus"))
                nodes = math.ceil(cpus / a.cores_per_node) if cpus is not None else None
            else:
                nodes = count(get("nnodes", "allocnodes"))
            limit = duration(get("timelimitraw")) * 60 if count(get("timelimitraw")) is not None else \
                duration(get("timelimit"))
            user = get("user", "uid")
            uid = users.setdefault(user, len(users) + 1) if user else -1
            status = 1 if state == "COMPLETED" else 5 if state == "CANCELLED" else 0
            wait = start - submit if start is not None and start >= submit else -1
            if run is None or nodes is None or run > MAX_S or (limit or 0) > MAX_S:
                skipped += 1
                continue
            jobs.append((jid, submit, wait, run, nodes, limit if limit is not None else -1, status, uid))
    if not jobs:
        sys.exit(f"sacct_swf: {a.log}: no ended job")
    with open(a.out, "w") as o:
        o.write(f"; Computer: a site's sacct log ({a.log.rsplit('/', 1)[-1]})\n; UnixStartTime: {first}\n"
                f"; TimeZone: 0\n; MaxNodes: {a.nodes}\n; MaxProcs: {a.nodes}\n"
                "; Note: converted by scripts/bench/workload/sacct_swf.py; processors are nodes\n")
        for jid, submit, wait, run, nodes, limit, status, uid in sorted(jobs, key=lambda j: j[1]):
            o.write(f"{jid} {submit - first} {wait} {run} {nodes} -1 -1 {nodes} {limit} -1 {status} {uid} "
                    "-1 -1 -1 -1 -1 -1\n")
    if skipped:
        print(f"sacct_swf: {a.log}: {skipped} line(s) skipped (not parsed, or a time past ten years)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
