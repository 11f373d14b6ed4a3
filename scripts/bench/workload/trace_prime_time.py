#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What a log's own schedule shows of its site's rules by the time of day
(docs/measurements/workload.md, "A replay that matches its log"): for the jobs of a
Standard Workload Format log (run time > 0, processors > 0), on weekdays, the share of
starts in each local hour by requested time; the share whose requested run crosses a cut
(a weekday's START or END hour, --prime-time); the mean and median recorded wait by
requested time, beside a simulated run's (--records, malleable-clustersim's per-job CSV);
the wait's distribution at a few points, log against simulation; the share of the log's waits
that are whole minutes; and, of the waiting that passed while the log's own schedule had
the job's nodes free, the share that passed while its user ran no other job (a per-user
limit would hold a job only while its user runs others); and the mean busy processors in
each local weekday hour, log against simulation (how far each drains before a cut).

    trace_prime_time.py TRACE.swf [--prime-time 8-17] [--records jobs.csv ...] [--machine N]
                        [--cores-per-node C]

--machine: the machine's size in the units of the jobs (default: the header's MaxNodes, else
MaxProcs); --cores-per-node C: each job's processors counted as ceil(procs / C) nodes, as the
simulator's --cores-per-node (give --machine in nodes with it).

Local time: the header's TimeZoneString (with daylight saving), else its TimeZone.
"""
import argparse
import bisect
import collections
import itertools
import csv
import datetime
import statistics
import sys
import zoneinfo

CLASSES = [("<=1h", 3600), ("1-2h", 7200), ("2-3h", 10800), ("3-4h", 14400), ("4-8h", 28800), (">8h", float("inf"))]


def load(path):
    head, jobs = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith(";"):
                key, _, value = line[1:].partition(":")
                head[key.strip()] = value.strip()
                continue
            x = line.split()
            if len(x) < 18:
                continue
            run, procs = float(x[3]), int(x[4]) if int(x[4]) > 0 else int(x[7])
            if run > 0 and procs > 0:
                jobs.append({"id": "j" + x[0], "submit": float(x[1]), "wait": max(0.0, float(x[2])), "run": run,
                             "req": float(x[8]), "procs": procs, "user": x[11], "raw_wait": float(x[2])})
    return head, jobs


def klass(req):
    return next(name for name, top in CLASSES if req <= top)


def local_clock(head):
    start = int(head.get("UnixStartTime", "0"))
    name = head.get("TimeZoneString", "")
    try:
        tz = zoneinfo.ZoneInfo(name) if name else datetime.timezone(datetime.timedelta(seconds=int(head.get("TimeZone", "0"))))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = datetime.timezone(datetime.timedelta(seconds=int(head.get("TimeZone", "0"))))
    return lambda t: datetime.datetime.fromtimestamp(start + t, tz)


def next_cut(clock, t, cuts):
    d = clock(t)
    day = d.replace(hour=0, minute=0, second=0, microsecond=0)
    for k in range(8):
        dd = day + datetime.timedelta(days=k)
        if dd.weekday() >= 5:
            continue
        for h in cuts:
            b = dd.replace(hour=h)
            if b > d:
                return t + (b - d).total_seconds()
    return t + 7 * 86400


def user_share(jobs, machine):
    """Of the seconds jobs waited while the log's schedule had their node count free, the
    share during which the same user ran no other job."""
    change = collections.Counter()
    for j in jobs:
        st = j["submit"] + j["wait"]
        change[st] += j["procs"]
        change[st + j["run"]] -= j["procs"]
    t = sorted(change)
    busy = list(itertools.accumulate(change[x] for x in t))
    by_user = collections.defaultdict(list)
    for j in jobs:
        st = j["submit"] + j["wait"]
        by_user[j["user"]].append((st, st + j["run"]))
    free = alone = 0.0
    for j in jobs:
        s, end = j["submit"], j["submit"] + j["wait"]
        k = max(bisect.bisect_right(t, s) - 1, 0)
        while k < len(t) and t[k] < end:
            a, b = max(t[k], s), min(t[k + 1] if k + 1 < len(t) else end, end)
            if b > a and machine - busy[k] >= j["procs"]:
                free += b - a
                mid = (a + b) / 2
                if not any(x <= mid < y for x, y in by_user[j["user"]] if (x, y) != (end, end + j["run"])):
                    alone += b - a
            k += 1
    return free, alone


def free_while_waiting(jobs, machine):
    """The seconds jobs waited while the schedule had their processor count free (user_share's
    first number, without the per-user part), by a prefix sum per distinct processor count."""
    change = collections.Counter()
    for j in jobs:
        st = j["submit"] + j["wait"]
        change[st] += j["procs"]
        change[st + j["run"]] -= j["procs"]
    t = sorted(change)
    free = [machine - b for b in itertools.accumulate(change[x] for x in t)]
    lengths = [b - a for a, b in zip(t, t[1:])] + [0.0]
    by_procs = collections.defaultdict(list)
    for j in jobs:
        by_procs[j["procs"]].append(j)
    total = 0.0
    for procs, sel in by_procs.items():
        ok = [f >= procs for f in free]
        pre = [0.0] + list(itertools.accumulate(d if o else 0.0 for d, o in zip(lengths, ok)))

        def upto(x):  # free seconds for this count in [t[0], x)
            k = bisect.bisect_right(t, x) - 1
            if k < 0:
                return 0.0
            return pre[k] + ((x - t[k]) if ok[k] else 0.0)
        total += sum(upto(j["submit"] + j["wait"]) - upto(j["submit"]) for j in sel)
    return total


def idle_while_waiting(jobs, machine):
    """The processors a schedule left idle while at least one job waited, between its first
    start and the last submission (the tail, with no later jobs to run, left out): their
    time-weighted mean, the share of that time with at least a tenth of the machine idle (a
    machine with nodes down, or a rule that holds jobs, shows as idle processors with a
    queue), and the hours with a queue and nothing running."""
    change = collections.Counter()
    queue = collections.Counter()
    for j in jobs:
        st = j["submit"] + j["wait"]
        change[st] += j["procs"]
        change[st + j["run"]] -= j["procs"]
        queue[j["submit"]] += 1
        queue[st] -= 1
    lo = min(j["submit"] + j["wait"] for j in jobs)
    hi = max(j["submit"] for j in jobs)
    t = sorted(set(change) | set(queue))
    busy = waiting = 0
    span = idle = tenth = empty = 0.0
    for a, b in zip(t, t[1:]):
        busy += change.get(a, 0)
        waiting += queue.get(a, 0)
        a, b = max(a, lo), min(b, hi)
        if waiting > 0 and b > a:
            span += b - a
            idle += max(0, machine - busy) * (b - a)
            tenth += (b - a) if machine - busy >= machine / 10 else 0.0
            empty += (b - a) if busy <= 0 else 0.0
    return (idle / span, tenth / span, empty / 3600) if span else (0.0, 0.0, 0.0)


def busy_by_hour(runs, clock, span):
    """Mean busy processors in each local weekday hour over [span[0], span[1]): runs are
    (start, end, processors) on the log's clock."""
    busy = [0.0] * 24
    for start, end, procs in runs:
        t = start
        while t < end:
            d = clock(t)
            step = min(end, t + 3600 - (d.minute * 60 + d.second + d.microsecond / 1e6))
            if d.weekday() < 5:
                busy[d.hour] += (step - t) * procs
            t = step
    hours = [0] * 24
    t = span[0] - span[0] % 3600
    while t < span[1]:
        d = clock(t)
        if d.weekday() < 5:
            hours[d.hour] += 1
        t += 3600
    return [b / (3600 * h) if h else 0.0 for b, h in zip(busy, hours)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--prime-time", default="8-17")
    ap.add_argument("--records", action="append", default=[], help="a simulated run's per-job CSV (repeatable)")
    ap.add_argument("--machine", type=int, default=0, help="the machine's size (default: the header's)")
    ap.add_argument("--cores-per-node", type=int, default=1, help="processors per node: a job's nodes ceil(procs / C)")
    a = ap.parse_args(argv)
    if not 0 <= a.machine < 2 ** 31 or not 1 <= a.cores_per_node < 2 ** 31:
        sys.exit("trace_prime_time: --machine must be at least 0, --cores-per-node at least 1")
    head, jobs = load(a.trace)
    for j in jobs:
        j["procs"] = -(-j["procs"] // a.cores_per_node)
    if not jobs:
        sys.exit(f"trace_prime_time: {a.trace}: no job")
    clock = local_clock(head)
    cuts = tuple(int(h) for h in a.prime_time.split("-"))
    print(f"{a.trace}: {len(jobs)} jobs; weekday starts by local hour (% of the class's weekday starts):")
    print("| requested | jobs | " + " | ".join(f"{h:02d}" for h in range(24)) + " |")
    print("|---|---|" + "---|" * 24)
    by = collections.defaultdict(collections.Counter)
    for j in jobs:
        d = clock(j["submit"] + j["wait"])
        if d.weekday() < 5:
            by[klass(j["req"])][d.hour] += 1
    for name, _ in CLASSES:
        c = by[name]
        n = sum(c.values())
        if n:
            print(f"| {name} | {n} | " + " | ".join(f"{100 * c[h] // n}" for h in range(24)) + " |")
    cross = collections.Counter()
    total = collections.Counter()
    for j in jobs:
        st = j["submit"] + j["wait"]
        total[klass(j["req"])] += 1
        if st + j["req"] > next_cut(clock, st, cuts):
            cross[klass(j["req"])] += 1
    n_cross = sum(cross.values())
    print(f"\njobs whose requested run crosses a cut ({cuts[0]:02d}:00 or {cuts[1]:02d}:00 of a weekday): "
          f"{n_cross} of {len(jobs)} ({n_cross / len(jobs):.1%}); by requested time: " +
          ", ".join(f"{k} {cross[k]}/{total[k]}" for k, _ in CLASSES if total[k]))
    sims = []
    runs_of = {}
    for path in a.records:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        sims.append((path, {r["id"]: float(r["start_s"]) - float(r["submit_s"]) for r in rows}))
        runs_of[path] = {r["id"]: (float(r["end_s"]) - float(r["start_s"]), int(r["start_nodes"])) for r in rows}
    print("\n| requested | jobs | log mean wait s | log median | " +
          " | ".join(f"{p}: mean | median" for p, _ in sims) + " |")
    print("|---|---|---|---|" + "---|---|" * len(sims))
    for name, _ in CLASSES:
        sel = [j for j in jobs if klass(j["req"]) == name]
        if not sel:
            continue
        cells = [name, str(len(sel)), f"{statistics.fmean(j['wait'] for j in sel):,.0f}",
                 f"{statistics.median(j['wait'] for j in sel):,.0f}"]
        for _, w in sims:
            ws = [w[j["id"]] for j in sel if j["id"] in w]
            cells += [f"{statistics.fmean(ws):,.0f}", f"{statistics.median(ws):,.0f}"] if ws else ["-", "-"]
        print("| " + " | ".join(cells) + " |")
    points = [0, 60, 120, 240, 600, 3600, 14400, 86400]
    print("\nshare of jobs that waited at most (s): " + ", ".join(map(str, points)))
    waits = [j["wait"] for j in jobs]
    print("  log: " + " ".join(f"{sum(1 for w in waits if w <= x) / len(waits):.3f}" for x in points))
    for p, w in sims:
        ws = list(w.values())
        print(f"  {p}: " + " ".join(f"{sum(1 for v in ws if v <= x + 1e-6) / len(ws):.3f}" for x in points))
    short = [5, 10, 15, 20, 25, 30, 45, 60]
    print("short waits, share of jobs that waited at most (s; a scheduler's pass interval shows as a flat "
          "spread up to it): " + ", ".join(map(str, short)))
    print("  log: " + " ".join(f"{sum(1 for w in waits if w <= x) / len(waits):.3f}" for x in short))
    for p, w in sims:
        ws = list(w.values())
        print(f"  {p}: " + " ".join(f"{sum(1 for v in ws if v <= x + 1e-6) / len(ws):.3f}" for x in short))
    recorded = [j["raw_wait"] for j in jobs if j["raw_wait"] >= 0]
    if recorded:
        whole = sum(1 for w in recorded if w % 60 == 0) / len(recorded)
        subs = sum(1 for j in jobs if j["submit"] % 60 == 0) / len(jobs)
        print(f"\nrecorded waits that are whole minutes: {whole:.2%} (submit times: {subs:.2%})")
        # the header's leading number: CTC's reads "338 (batch partition; 512 total)"
        lead = lambda key: int(next(iter(head.get(key, "").split()), "0")) if \
            (head.get(key, "").split() or ["0"])[0].isdigit() and len(head[key].split()[0]) < 10 else 0
        machine = a.machine or lead("MaxNodes") or lead("MaxProcs")
        if machine > 0:
            free, alone = user_share(jobs, machine)
            print(f"waiting while the log's schedule had the job's processors free: {free / len(jobs):,.0f} s a job; "
                  f"of it while its user ran no other job: {alone / free if free else 0:.1%}")
            for p, w in sims:
                sel = [dict(j, wait=w[j["id"]]) for j in jobs if j["id"] in w]
                print(f"  the same in {p}'s schedule: {free_while_waiting(sel, machine) / len(sel):,.0f} s a job")
            print("processors idle while a job waited, first start to last submission (time-weighted mean; share of "
                  "that time with >= 10% idle; hours with nothing running): "
                  + "; ".join(f"{name} {m:,.0f} ({s10:.1%}; {h:,.0f} h)" for name, (m, s10, h) in
                              [("log", idle_while_waiting(jobs, machine))] +
                              [(p, idle_while_waiting([dict(j, wait=w[j["id"]]) for j in jobs if j["id"] in w], machine))
                               for p, w in sims]))
    span = (min(j["submit"] + j["wait"] for j in jobs), max(j["submit"] + j["wait"] + j["run"] for j in jobs))
    rows = [("log", busy_by_hour([(j["submit"] + j["wait"], j["submit"] + j["wait"] + j["run"], j["procs"]) for j in jobs],
                                 clock, span))]
    for p, w in sims:
        runs = runs_of[p]
        rows.append((p, busy_by_hour([(j["submit"] + w[j["id"]], j["submit"] + w[j["id"]] + runs[j["id"]][0],
                                       runs[j["id"]][1]) for j in jobs if j["id"] in w], clock, span)))
    print("\nmean busy processors by local weekday hour (the drain before a cut shows as a dip):")
    print("| schedule | " + " | ".join(f"{h:02d}" for h in range(24)) + " |")
    print("|---|" + "---|" * 24)
    for name, busy in rows:
        print(f"| {name} | " + " | ".join(f"{b:.0f}" for b in busy) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
