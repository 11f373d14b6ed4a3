#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Metrics of job streams on the emulated cluster, from the run directories
cluster_stream.py wrote:

    cluster_report.py run DIR [--csv docs/data/workload/summary.csv]   one run: DIR/metrics.json,
                                                                       its timeline plot, a summary row
    cluster_report.py costs DIR... -o docs/data/workload/costs_emulated.json
    cluster_report.py table DIR...                                     the Markdown table of the runs

Per job (Slurm's view, squeue every second): submit = the runner's sbatch time, start =
the first poll that shows it RUNNING, end = the last poll that shows it plus one poll
interval, node-seconds = nodes held at each poll x the time to the next poll. A job no
poll saw running (it ran less than a poll interval: e.g. a real PDGEMM of N = 800 on one
node, under a second) takes its start, end and nodes from Slurm's job completion log
(DIR/jobcomp.txt, whole seconds), placed on the run's clock by the runner's submission
epochs (DIR/submitted.tsv), and is listed in jobs_from_jobcomp. Resizes and
the time spent in them come from the job's own run JSON (its resize records, t_total_s).
Metrics (summary.py's metrics(), the simulator's too): makespan (first submission to
last end), mean/median wait, mean turnaround, mean bounded slowdown (tau 10 s),
utilisation (node-seconds held / nodes x makespan), resizes and resize seconds per job.
slurmctld's load: the RPC counts of `sdiag` after minus before (its own REQUEST_STATS_INFO
left out) less the runner's squeue polls (their cost measured on the idle cluster after
the stream), per job per minute of the jobs' run time.
"""
import argparse
import calendar
import contextlib
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, ".."))
import summary  # noqa: E402  (the one writer of summary.csv)
import data_archive  # noqa: E402  (docs/data/workload's runs are packed in runs.tar.xz)


def sdiag_counts(text):
    """Message type -> count from sdiag's "Remote Procedure Call statistics by message type"."""
    out = {}
    part = text.split("by message type", 1)[-1].split("by user", 1)[0]
    for m in re.finditer(r"^\s*([A-Z_]+)\s+\(\s*\d+\)\s+count:(\d+)", part, re.M):
        out[m.group(1)] = int(m.group(2))
    return out


def rpc_diff(before, after):
    b, a = sdiag_counts(before), sdiag_counts(after)
    return {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b) if k != "REQUEST_STATS_INFO"
            and a.get(k, 0) - b.get(k, 0) != 0}


def jobcomp_records(d):
    """{job name: (start, end wall seconds, nodes, submit wall seconds)} from DIR/jobcomp.txt (slurmctld writes
    local time, the emulated cluster's machine runs on UTC); {} without it."""
    path = os.path.join(d, "jobcomp.txt")
    out = {}
    if not os.path.exists(path):
        return out
    wall = lambda v: calendar.timegm(time.strptime(v, "%Y-%m-%dT%H:%M:%S"))  # noqa: E731
    for line in open(path, errors="replace"):
        f = dict(m.groups() for m in re.finditer(r"\b(Name|JobState|StartTime|EndTime|NodeCnt|SubmitTime)=(\S+)", line))
        try:
            out[f["Name"]] = (wall(f["StartTime"]), wall(f["EndTime"]), int(f["NodeCnt"]), wall(f["SubmitTime"]))
        except (KeyError, ValueError):
            continue
    return out


def run_clock_offset(d):
    """Wall-clock epoch of the run's time 0: the median of the runner's submission epochs less
    their run times (DIR/submitted.tsv), or None."""
    path = os.path.join(d, "submitted.tsv")
    if not os.path.exists(path):
        return None
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    offs = [float(r["epoch"]) - float(r["t"]) for r in rows if r.get("epoch") and r.get("t")]
    return statistics.median(offs) if offs else None


def load_run(d):
    w = json.load(open(os.path.join(d, "workload.json")))
    stream = json.load(open(os.path.join(d, "stream.json")))
    poll = stream["poll_s"]
    rows = list(csv.DictReader(open(os.path.join(d, "timeline.tsv")), delimiter="\t"))
    times = sorted({float(r["t"]) for r in rows})
    nxt = {t: u for t, u in zip(times, times[1:])}
    by_id = {}
    for r in rows:
        by_id.setdefault(r["name"], []).append(r)
    jobs = []
    comp, t0 = None, None
    for j in w["jobs"]:
        sub = stream["submitted"].get(j["id"])
        samples = by_id.get(j["id"], [])
        running = [s for s in samples if s["state"] == "RUNNING"]
        rec = {"id": j["id"], "malleable": j["malleable"], "program": j.get("program", "sleep"),
               "req_nodes": j["nodes"], "min_nodes": j["min_nodes"], "max_nodes": j["max_nodes"]}
        if sub is not None and not running:
            if comp is None:
                comp, t0 = jobcomp_records(d), run_clock_offset(d)
            c = comp.get(j["id"])
            if c is not None and t0 is not None and c[1] >= c[0]:
                # ran between two polls: Slurm's record, on the run's clock
                start, end, nodes = c[0] - t0, c[1] - t0, c[2]
                t_sub = sub["t"]
                start = max(start, t_sub)
                end = max(end, start)
                rec.update(submit_s=t_sub, start_s=start, end_s=end, node_s=nodes * (end - start),
                           steps=[(start, nodes)], nodes_seen=[nodes], from_jobcomp=True)
        if sub is None or not (running or rec.get("from_jobcomp")):
            rec["missing"] = True
            jobs.append(rec)
            continue
        if running:
            t_sub = sub["t"]
            start = float(running[0]["t"])
            end = float(samples[-1]["t"]) + poll
            ns = 0.0
            steps = []
            for s in running:
                t = float(s["t"])
                ns += int(s["nodes"]) * (nxt.get(t, t + poll) - t)
                steps.append((t, int(s["nodes"])))
            rec.update(submit_s=t_sub, start_s=max(start, t_sub), end_s=end, node_s=ns, steps=steps,
                       nodes_seen=sorted({n for _, n in steps}))
        rj = os.path.join(d, "jobs", j["id"] + ".json")
        rec["resizes"], rec["resize_s"], rec["check_ok"] = 0, 0.0, None
        if os.path.exists(rj):
            run = json.load(open(rj))
            ok = [r for r in run.get("resizes", []) if r.get("ok")]
            rec["resizes"] = len(ok)
            rec["resize_s"] = sum(r["t_total_s"] for r in ok)
            rec["check_ok"] = run.get("check", {}).get("ok")
            rec["iterations"] = len(run.get("iterations", []))
            # node-seconds the job's processes iterated (one process per node)
            rec["busy_node_s"] = sum(i["wall_s"] * i["procs"] for i in run.get("iterations", []))
        jobs.append(rec)
    return w, stream, jobs


def run_date(d):
    """The run's first submission (jobcomp.txt) as summary.csv's date, or "" (then the row's
    date is the report's)."""
    subs = [c[3] for c in jobcomp_records(d).values()]
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(min(subs))) if subs else ""


def run_metrics(d):
    w, stream, jobs = load_run(d)
    done = [j for j in jobs if not j.get("missing")]
    m = summary.metrics(done, w["nodes"])
    diff = rpc_diff(open(os.path.join(d, "sdiag_before.txt")).read(), open(os.path.join(d, "sdiag_after.txt")).read())
    cal = rpc_diff(stream["calibration_before"], stream["calibration_after"])
    per_poll = sum(cal.values()) / stream["calibration_polls"]
    total = sum(diff.values())
    jobs_rpcs = max(0.0, total - per_poll * stream["polls"])
    job_minutes = sum(j["end_s"] - j["start_s"] for j in done) / 60.0
    meta = json.load(open(os.path.join(d, "meta.json"))) if os.path.exists(os.path.join(d, "meta.json")) else {}
    malleable = any(j.get("malleable") for j in w["jobs"])
    m.update({
        # the setting and the arm as the run was made (workload_cluster.sh: a real trace's slice
        # is "emulated-trace:<name>", its arms rigid, moldable, malleable)
        "setting": meta.get("setting", "emulated"), "policy": meta.get("policy"),
        "nodes": w["nodes"], "malleable_share": w["malleable_share"], "seed": w["seed"],
        # the policy of the run (summary.py's range and start; "-" without malleable jobs)
        "range": (meta.get("range") or w.get("node_range") or "double") if malleable else "-",
        "start": meta.get("start", "") if malleable else "-",
        "slurm_rpcs_per_job_minute": jobs_rpcs / job_minutes if job_minutes > 0 else 0.0,
        "rpcs_total": total, "rpcs_runner_polls": per_poll * stream["polls"], "rpcs_jobs": jobs_rpcs,
        "rpcs_by_type": diff, "rpc_per_poll": per_poll,
        "jobs_submitted": len(jobs), "jobs_missing": [j["id"] for j in jobs if j.get("missing")],
        "jobs_from_jobcomp": [j["id"] for j in jobs if j.get("from_jobcomp")],
        "checks_failed": [j["id"] for j in done if j.get("check_ok") is False],
        "checks_missing": [j["id"] for j in done if j.get("check_ok") is None],
        "mean_turnaround_malleable_s": _mean([j["end_s"] - j["submit_s"] for j in done if j["malleable"]]),
        "mean_turnaround_rigid_s": _mean([j["end_s"] - j["submit_s"] for j in done if not j["malleable"]]),
        "utilisation_iterating": sum(j.get("busy_node_s", 0.0) for j in done) / (w["nodes"] * m["makespan_s"]),
        "wall_s": stream["wall_s"],
        # the load when the run ended (meta.json: a report made again later keeps it)
        "load_at_end": meta.get("load_at_end") or open("/proc/loadavg").read().split()[:3],
        # the run's commit (meta.json) and the day it ran (its first submission, jobcomp.txt),
        # for its summary row: the same row whenever the report is made
        "commit": (meta.get("commit") or "")[:8],
        "date": run_date(d),
    })
    return m, w, jobs


def _mean(v):
    return sum(v) / len(v) if v else None


def plot(w, jobs, m, path):
    """Nodes held by each job over time, stacked (gnuplot): one coloured band per job."""
    tmp = tempfile.mkdtemp()
    done = [j for j in jobs if not j.get("missing")]
    times = sorted({t for j in done for t, _ in j["steps"]})
    held = {j["id"]: dict(j["steps"]) for j in done}
    order = sorted(done, key=lambda j: j["start_s"])
    dat = os.path.join(tmp, "stack.dat")
    with open(dat, "w") as f:
        # steps: the nodes seen at one poll hold until just before the next
        for t, u in zip(times, times[1:] + [times[-1] + 1.0]):
            acc = 0
            vals = []
            for j in order:
                acc += held[j["id"]].get(t, 0)
                vals.append(str(acc))
            f.write(f"{t:.2f} " + " ".join(vals) + "\n")
            f.write(f"{u - 0.01:.2f} " + " ".join(vals) + "\n")
    n = w["nodes"]
    share = w["malleable_share"]
    title = (f"{len(done)} jobs on {n} emulated nodes, {100 * share:.0f}% malleable: makespan {m['makespan_s']:.0f} s, "
             f"mean turnaround {m['mean_turnaround_s']:.0f} s, utilisation {100 * m['utilisation']:.0f}%")
    script = ["set terminal pngcairo size 1000,420 font 'DejaVu Sans,9'", f"set output '{path}'",
              f"set title \"{title}\"", "set xlabel 'seconds since the first submission'",
              "set ylabel 'nodes held (one band per job)'", f"set yrange [0:{n + 0.5}]", "set ytics 1",
              "set grid ytics", "unset key", "set style fill solid 0.85 border lc rgb 'white'"]
    plots = []
    for k, j in enumerate(order):
        lower = "(0)" if k == 0 else f"{k + 1}"
        # rigid jobs blue, malleable orange; neighbours in three shades to tell them apart
        shades = ("#1f77b4", "#5fa2d0", "#0d4a75") if not j["malleable"] else ("#ff7f0e", "#ffb066", "#b35300")
        plots.append(f"'{dat}' using 1:{lower}:{k + 2} with filledcurves lc rgb '{shades[k % 3]}'")
    script.append("plot " + ", ".join(plots))
    sp = os.path.join(tmp, "plot.gp")
    open(sp, "w").write("\n".join(script) + "\n")
    subprocess.run(["gnuplot", sp], check=True)


def _fit(pts):
    """Least squares t = a + b * x over (x, t) points; None with fewer than 2 distinct x."""
    if len({x for x, _ in pts}) < 2:
        return None
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    mt = sum(t for _, t in pts) / n
    b = sum((x - mx) * (t - mt) for x, t in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return mt - b * mx, b


def _med(v):
    return statistics.median(v) if v else None


def costs(dirs):
    """Resize costs for the cluster simulator (sim/src/costs.hpp's keys; details under "_"
    keys, which it ignores), from every job's run JSON and Slurm's view of the runs. One
    process per node, so processes = nodes."""
    expand, shrink, ckpt, launch = [], [], [], []
    link = None
    for d in dirs:
        if os.path.exists(os.path.join(d, "meta.json")):
            link = json.load(open(os.path.join(d, "meta.json"))).get("rate", link)
        slurm_view = {}
        if os.path.exists(os.path.join(d, "jobs.json")):
            slurm_view = {j["id"]: j for j in json.load(open(os.path.join(d, "jobs.json"))) if not j.get("missing")}
        jd = os.path.join(d, "jobs")
        for name in sorted(os.listdir(jd)) if os.path.isdir(jd) else []:
            if not name.endswith(".json"):
                continue
            run = json.load(open(os.path.join(jd, name)))
            jid = name[:-5]
            for r in run.get("resizes", []):
                if not r.get("ok"):
                    continue
                e = {"job": jid, "app": run.get("app"), "from": r["from"]["rows"] * r["from"]["cols"],
                     "to": r["to"]["rows"] * r["to"]["cols"], "t_spawn_s": r["t_spawn_s"],
                     "t_redist_s": r["t_redist_s"], "t_other_s": r["t_other_s"], "t_total_s": r["t_total_s"],
                     "bytes_moved": r["bytes_moved"], "bytes_inter_node": r.get("bytes_inter_node", 0),
                     "bytes_total": r["bytes_total"]}
                (expand if r["action"] == "expand" else shrink).append(e)
            data = 2 * 8 * run.get("problem_size", {}).get("n", 0) ** 2
            its = run.get("iterations", [])
            for c in run.get("checkpoints", {}).get("written", []):
                nodes = its[-1]["procs"] if its else 1
                ckpt.append({"job": jid, "seconds": c["seconds"], "bytes": data, "nodes": nodes})
            v = slurm_view.get(jid)
            if v and its:
                # launch, MPI start-up, set-up and the end: Slurm's run time less the iterations,
                # the resizes and the checkpoint; a malleable job's also its policy's queries
                # (decisions logged) and Slurm's changes of its allocation (node counts seen)
                busy = sum(i["wall_s"] for i in its) + sum(r["t_total_s"] for r in run.get("resizes", []))
                busy += sum(c["seconds"] for c in run.get("checkpoints", {}).get("written", []))
                steps = v.get("steps", [])
                launch.append({"job": jid, "nodes": its[0]["procs"], "seconds": v["end_s"] - v["start_s"] - busy,
                               "malleable": bool(v.get("malleable")), "program": run.get("app"),
                               "decisions": _decisions(d, jid),
                               "changes": sum(1 for a, b in zip(steps, steps[1:]) if a[1] != b[1])})
    link_bps = _rate_bytes(link)
    spawn = _fit([(e["to"] - e["from"], e["t_spawn_s"]) for e in expand])
    moved = [e for e in expand + shrink if e["t_redist_s"] > 0 and e["bytes_total"] > 0]
    ratio = [e["t_redist_s"] / (e["bytes_total"] / (min(e["from"], e["to"]) * link_bps)) for e in moved] if link_bps else []
    fs = [c["bytes"] / c["seconds"] for c in ckpt if c["seconds"] > 0 and c["bytes"] > 0]
    fs_node = [c["bytes"] / (c["seconds"] * c["nodes"]) for c in ckpt if c["seconds"] > 0 and c["bytes"] > 0]
    out = {
        "_source": "scripts/bench/workload_cluster.sh on the emulated cluster (10 namespaces on one 2-core host, "
                   "links shaped with tc, one process per node), scripts/bench/workload/cluster_report.py costs; "
                   "medians over every resize, checkpoint and launch of the runs listed in _runs",
        "_runs": [os.path.basename(d.rstrip("/")) for d in dirs],
        "_counts": {"expansions": len(expand), "shrinks": len(shrink), "checkpoints": len(ckpt), "launches": len(launch)},
        "_samples": {"expand": expand, "shrink": shrink, "checkpoint": ckpt, "launch": launch},
        "expansion": True,
    }
    if spawn:
        out["spawn_fixed_s"], out["spawn_per_node_s"] = max(0.0, spawn[0]), max(0.0, spawn[1])
        out["_spawn_fit"] = "least squares of t_spawn over nodes added (negative parts clipped to 0)"
    elif expand:
        out["spawn_fixed_s"] = 0.0
        out["spawn_per_node_s"] = _med([e["t_spawn_s"] / max(1, e["to"] - e["from"]) for e in expand])
    if shrink:
        out["release_s"] = _med([e["t_spawn_s"] for e in shrink])
    if expand or shrink:
        out["other_s"] = _med([e["t_other_s"] for e in expand + shrink])
    if link_bps:
        out["link_Bps"] = link_bps
    if ratio:
        out["redist_link_ratio"] = _med(ratio)
        out["_redist_link_ratio"] = ("t_redist / (matrix bytes / (min(from, to) nodes x link_Bps)), the simulator's "
                                     "node-link bound; median")
    datas = [e["bytes_total"] for e in expand + shrink]
    if datas:
        out["_data_bytes_per_job"] = _med(datas)
        # the simulator's matrices per node: a resize's bytes over the nodes it started from
        out["data_bytes_per_node"] = _med([e["bytes_total"] / max(1, e["from"]) for e in expand + shrink])
    if fs:
        out["fs_Bps"], out["fs_node_Bps"] = _med(fs), _med(fs_node)
    quiet = [x["seconds"] for x in launch if not x["decisions"] and not x["changes"]]
    if quiet:
        out["restart_fixed_s"] = _med(quiet)
        out["_restart_fixed_s"] = ("a job's launch, MPI start-up, set-up and end: Slurm's run time less its iterations, "
                                   "resizes and checkpoint, of the jobs that never asked the policy; median")
        out["launch_s"] = out["restart_fixed_s"]  # the simulator pays it once per job
        asked = [x for x in launch if x["decisions"] or x["changes"]]
        fit = _fit_origin([(x["decisions"], x["changes"], x["seconds"] - out["launch_s"]) for x in asked])
        if fit:
            out["decision_s"], out["update_s"] = max(0.0, fit[0]), max(0.0, fit[1])
            out["_decision_update_fit"] = (f"least squares over {len(asked)} malleable jobs, no intercept: run time outside "
                                           "iterations, resizes and checkpoint, less launch_s = decision_s x decisions "
                                           "logged + update_s x changes of the allocation Slurm listed")
    conf = _sched_interval()
    if conf:
        out["sched_interval_s"] = conf
        out["_sched_interval_s"] = "scripts/cluster.sh's slurm.conf: SchedulerParameters sched_interval, bf_interval"
    out["one_update"] = not any(_accounting(d) for d in dirs)
    out["_one_update"] = "the runs' Slurm kept no accounting (meta.json 'accounting' false or absent): one change per job"
    return out


def _decisions(d, jid):
    """How many decisions job `jid`'s policy logged (shared/log/<slurm id>.jsonl)."""
    sub = os.path.join(d, "submitted.tsv")
    if not os.path.exists(sub):
        return 0
    ids = dict(line.split("\t")[:2] for line in open(sub).read().splitlines()[1:] if line)
    log = os.path.join(d, "shared", "log", f"{ids.get(jid, '-')}.jsonl")
    return sum(1 for line in open(log) if line.strip()) if os.path.exists(log) else 0


def _accounting(d):
    meta = os.path.join(d, "meta.json")
    return bool(json.load(open(meta)).get("accounting", False)) if os.path.exists(meta) else False


def _sched_interval():
    """The scheduling pass interval of the cluster's slurm.conf (scripts/cluster.sh writes it)."""
    conf = os.path.join(here, "..", "..", "cluster.sh")
    m = re.search(r"sched_interval=(\d+)", open(conf).read()) if os.path.exists(conf) else None
    b = re.search(r"bf_interval=(\d+)", open(conf).read()) if os.path.exists(conf) else None
    vals = [float(x.group(1)) for x in (m, b) if x]
    return min(vals) if vals else None


def _fit_origin(pts):
    """Least squares y = a x + b z through the origin over (x, z, y); None if singular."""
    sxx = sum(x * x for x, _, _ in pts)
    szz = sum(z * z for _, z, _ in pts)
    sxz = sum(x * z for x, z, _ in pts)
    sxy = sum(x * y for x, _, y in pts)
    szy = sum(z * y for _, z, y in pts)
    det = sxx * szz - sxz * sxz
    if abs(det) < 1e-12:
        return None
    return (sxy * szz - szy * sxz) / det, (szy * sxx - sxy * sxz) / det


def _rate_bytes(rate):
    if not rate:
        return None
    m = re.match(r"^([0-9.]+)([kmg]?)bit$", rate)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)] / 8


def table(dirs):
    rows = [json.load(open(os.path.join(d, "metrics.json"))) for d in dirs]
    rows.sort(key=lambda r: r["malleable_share"])
    base = next((r for r in rows if r["malleable_share"] == 0), None)
    o = ["| malleable | jobs | makespan s | mean wait s | median wait s | mean turnaround s | turnaround vs rigid | "
         "bounded slowdown | utilisation (held) | resizes/job | resize s/job | slurmctld RPCs/job/min | utilisation (iterating) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{base['mean_turnaround_s'] / r['mean_turnaround_s']:.2f}x" if base else "-"
        # the node range when the run names it (metrics of this build on)
        rng = f", {r['range']}" if r.get("range") not in (None, "", "-") else ""
        rng += f", {r['policy']}" if r.get("policy") else ""
        o.append(f"| {100 * r['malleable_share']:.0f}%{rng} | {r['jobs']} | {r['makespan_s']:.0f} | {r['mean_wait_s']:.1f} | "
                 f"{r['median_wait_s']:.1f} | {r['mean_turnaround_s']:.1f} | {ratio} | {r['bounded_slowdown']:.2f} | "
                 f"{100 * r['utilisation']:.0f}% | {r['resizes_per_job']:.2f} | {r['resize_time_s_per_job']:.2f} | "
                 f"{r['slurm_rpcs_per_job_minute']:.1f} | {100 * r.get('utilisation_iterating', 0):.0f}% |")
    return "\n".join(o)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    r = sp.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--csv")
    r.add_argument("--plot")
    c = sp.add_parser("costs")
    c.add_argument("dirs", nargs="+")
    c.add_argument("-o", "--out", required=True)
    t = sp.add_parser("table")
    t.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        if not os.path.isdir(a.dir) and data_archive.exists(a.dir):
            sys.exit(f"cluster_report.py: {a.dir} is packed; `scripts/bench/data_archive.py unpack "
                     f"{data_archive.study_root(a.dir)}` first (run writes metrics.json and jobs.json into it)")
        m, w, jobs = run_metrics(a.dir)
        with open(os.path.join(a.dir, "metrics.json"), "w") as f:
            json.dump(m, f, indent=1)
        with open(os.path.join(a.dir, "jobs.json"), "w") as f:
            json.dump(jobs, f, indent=1)
        if a.plot:
            plot(w, jobs, m, a.plot)
        if a.csv:
            summary.append_row(a.csv, {k: v for k, v in m.items() if k in summary.COLUMNS})
        print(json.dumps({k: v for k, v in m.items() if k != "rpcs_by_type"}, indent=1))
        return 0
    # a packed run (docs/data/workload/runs.tar.xz) is read from a scratch copy of its members
    with contextlib.ExitStack() as stack:
        # (a pattern the shell left unexpanded, share_*, names the packed run folders)
        names = [p for d in a.dirs for p in (data_archive.expand(d) if not os.path.exists(d) else [d]) or [d]]
        dirs = [stack.enter_context(data_archive.readable(d)) for d in names]
        if a.cmd == "costs":
            out = costs(dirs)
            with open(a.out, "w") as f:
                json.dump(out, f, indent=1)
            return 0
        print(table(dirs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
