#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The evidence lines of workload.sh second-log, each computed from the log given (its SWF
text: the log itself, or a sacct log through sacct_swf.py), none from another log:

    second_log_evidence.py passes LOG.swf --machine N [--cores-per-node C]
        prints the pass interval the log's short waits show (0: none below 60 s) and one
        line of its evidence (jobs started at once, the waits of 1-60 s by 5 s, whole minutes)
    second_log_evidence.py prime LOG.swf --prime-time A-B
        one line: the share of the log's jobs whose requested run crossed a weekday A:00 or B:00
    second_log_evidence.py idle LOG.swf RECORDS.csv --machine N [--cores-per-node C]
        prints the nodes the log left idle while a job waited less the replay's (RECORDS.csv,
        a rigid replay's --records), rounded, and one line of its evidence
    second_log_evidence.py scheduler LOG.swf
        one line: the header's notes that name a scheduler, else "-"

The lines hold no '|' (workload.sh second-log's separator) and only this script's words,
numbers and the header's note text reduced to letters, digits and plain punctuation."""
import argparse
import csv
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_prime_time as tpt  # noqa: E402


def jobs_of(path, cores):
    head, jobs = tpt.load(path)
    if not jobs:
        sys.exit(f"second_log_evidence: {path}: no job")
    for j in jobs:
        j["procs"] = -(-j["procs"] // cores)
    return head, jobs


def passes(jobs):
    waits = [j["raw_wait"] for j in jobs if j["raw_wait"] >= 0]
    if not waits:
        return 0, "the log records no wait"
    at_once = sum(1 for w in waits if w == 0) / len(waits)
    whole = sum(1 for w in waits if w % 60 == 0) / len(waits)
    short = [w for w in waits if 0 < w <= 60]
    text = f"the log: {at_once:.1%} of its jobs started at once, {whole:.1%} of its waits are whole minutes"
    if whole > 0.5 or len(short) < 50:
        return 0, text + f", {len(short)} waited 1-60 s: no pass interval below 60 s shows"
    # passes every P s spread the waits of jobs that found room flat over (0, P]: the 5-s
    # buckets from the fullest one on, up to the first that holds less than half of it
    counts = [sum(1 for w in short if 5 * k < w <= 5 * (k + 1)) for k in range(12)]
    top = max(range(12), key=lambda k: counts[k])
    end = next((k for k in range(top, 12) if counts[k] < counts[top] / 2), 12)
    est = 5 * end
    return est, text + (f"; its {len(short)} waits of 1-60 s by 5 s: " + " ".join(map(str, counts)) +
                        f", flat to {est} s (passes about every {est} s)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=["passes", "prime", "idle", "scheduler"])
    p.add_argument("log")
    p.add_argument("records", nargs="?")
    p.add_argument("--machine", type=int, default=0)
    p.add_argument("--cores-per-node", type=int, default=1)
    p.add_argument("--prime-time", default="")
    a = p.parse_args(argv)
    if not 0 <= a.machine < 2 ** 31 or not 1 <= a.cores_per_node < 2 ** 31:
        sys.exit("second_log_evidence: --machine at least 0, --cores-per-node at least 1")
    head, jobs = jobs_of(a.log, a.cores_per_node)
    if a.what == "passes":
        est, text = passes(jobs)
        print(est)
        print(text)
    elif a.what == "prime":
        m = re.fullmatch(r"(\d{1,2})-(\d{1,2})", a.prime_time)
        if not m or not int(m.group(1)) < int(m.group(2)) <= 24:
            sys.exit("second_log_evidence: --prime-time START-END, 0 <= START < END <= 24")
        clock, cuts = tpt.local_clock(head), (int(m.group(1)), int(m.group(2)) % 24)
        cross = sum(1 for j in jobs if j["submit"] + j["wait"] + j["req"] >
                    tpt.next_cut(clock, j["submit"] + j["wait"], cuts))
        with_req = sum(1 for j in jobs if j["req"] > 0)
        print(f"the log: {cross / len(jobs):.1%} of its jobs ran their requested time across a weekday "
              f"{cuts[0]:02d}:00 or {int(m.group(2)):02d}:00 ({with_req} of {len(jobs)} with a requested time; "
              "a prime-time rule keeps long jobs from crossing)")
    elif a.what == "idle":
        if not a.records or a.machine <= 0:
            sys.exit("second_log_evidence: idle needs RECORDS.csv and --machine")
        with open(a.records, newline="") as f:
            sim = {r["id"]: float(r["start_s"]) - float(r["submit_s"]) for r in csv.DictReader(f)}
        mine = [j for j in jobs if j["id"] in sim] or jobs  # the replay's jobs (a window of the log)
        log_idle = tpt.idle_while_waiting(mine, a.machine)[0]
        sel = [dict(j, wait=sim[j["id"]]) for j in mine]
        sim_idle = tpt.idle_while_waiting(sel, a.machine)[0] if sel else 0.0
        print(max(0, round(log_idle - sim_idle)))
        print(f"the log left {log_idle:,.0f} of {a.machine} nodes idle while a job waited, the default replay "
              f"{sim_idle:,.0f}: the machine less the difference")
    else:
        notes = []
        with open(a.log, errors="replace") as f:
            for line in f:
                if not line.startswith(";"):
                    break
                key, _, v = line[1:].partition(":")
                if key.strip().lower() == "note" and re.search(r"schedul", v, re.I) and len(notes) < 2:
                    notes.append(re.sub(r"[^A-Za-z0-9 .,:;/()+-]", "", v[:200]).strip()[:100])
        print("the header: " + "; ".join(notes[:2]) if notes else "-")
    return 0


if __name__ == "__main__":
    sys.exit(main())
