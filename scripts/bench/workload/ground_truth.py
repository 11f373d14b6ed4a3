#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Ground truth for the simulator: a rigid job stream run on the emulated cluster's real
Slurm (accounting on), its sacct log, and that log replayed by malleable-clustersim with the
rules read from the same Slurm's configuration, nothing fitted to the waits
(scripts/bench/workload.sh ground-truth runs the three steps).

    ground_truth.py submit --workload run.json --load 1.3 --out DIR --src SRC [--deadline S]
    ground_truth.py replay --sim BIN --out DIR [--nodes 16]

submit: the jobs of a prepared stream (cluster_stream.py prepare --limits log: each job's
run time on its size, its limit as its log gave it, in whole minutes), their arrivals
scaled so that the offered load sum(nodes * run) / (machine nodes * span of submissions)
is --load, each submitted at its time as `sbatch -N nodes --time=limit --wrap "sleep run"`
(a sleeping job: the run time is Slurm's and the machine's 2 shared cores do not stretch
it); waits until the queue is empty, then writes DIR/sacct.txt (the simulator's documented
sacct command), DIR/slurm_config.txt (scontrol show config) and DIR/submitted.tsv (each job's
nodes, run time, limit and submission time).

replay: the rules from DIR/slurm_config.txt (rules_from_config below: SchedulerType,
sched_interval, bf_resolution, PriorityType; a rule the simulator cannot follow refuses the
replay), the simulator run with them on DIR/sacct.txt, every job rigid; and, for contrast,
with two rule sets that are not this Slurm's (EASY; conservative on exact times).
DIR/ground_truth.json and DIR/ground_truth.md: each replay's mean and
median wait against the log's, and the relative error of each.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

SACCT_FORMAT = "JobIDRaw,User,Partition,Submit,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqNodes,ReqCPUS,State"


def run_s(j):
    sf = j["serial_fraction"]
    return j["work_node_s"] * (sf + (1.0 - sf) / j["nodes"])


def scaled(jobs, nodes, load):
    """The jobs with their submissions scaled to the offered load `load` on `nodes` nodes;
    each job's run time rounded to whole seconds (sleep's and sacct's unit)."""
    out = [dict(j, run_s=max(1, int(round(run_s(j))))) for j in sorted(jobs, key=lambda j: j["submit_s"])]
    t0 = out[0]["submit_s"]
    span = max(out[-1]["submit_s"] - t0, 1e-9)
    work = sum(j["nodes"] * j["run_s"] for j in out)
    factor = work / (nodes * load) / span
    for j in out:
        j["submit_s"] = round((j["submit_s"] - t0) * factor, 3)
        j["limit_min"] = max(1, int(math.ceil(max(j["limit_s"], j["run_s"]) / 60.0 - 1e-9)))
    return out, factor


def head(src, *args, check=True):
    r = subprocess.run([os.path.join(src, "scripts", "cluster.sh"), "exec", "head", *args],
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def submit_all(a, jobs, out):
    t0 = time.monotonic()
    with open(os.path.join(out, "submitted.tsv"), "w") as sub:
        sub.write("id\tslurm_id\tnodes\trun_s\tlimit_min\tt\n")
        for j in jobs:
            time.sleep(max(0.0, j["submit_s"] - (time.monotonic() - t0)))
            sid = head(a.src, "sbatch", "--parsable", "-J", j["id"], "-N", str(j["nodes"]), "--exclusive",
                       f"--time={j['limit_min']}", "-o", "/dev/null", "--wrap", f"sleep {j['run_s']}")
            sub.write(f"{j['id']}\t{sid.strip().split(';')[0]}\t{j['nodes']}\t{j['run_s']}\t{j['limit_min']}\t"
                      f"{time.monotonic() - t0:.3f}\n")
            sub.flush()
    while time.monotonic() - t0 < a.deadline:
        if not head(a.src, "squeue", "-h", "-o", "%i", check=False).strip():
            return True
        time.sleep(2)
    head(a.src, "scancel", "--user=root", check=False)
    return False


def submit(a):
    w = json.load(open(a.workload))
    jobs, factor = scaled(w["jobs"], w["nodes"], a.load)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    print(f"ground_truth.py: {len(jobs)} jobs, arrivals x {factor:.4f} for offered load {a.load}", file=sys.stderr)
    ended = submit_all(a, jobs, out)
    # the accounting of the run: every job ended, from an hour before the first
    text = head(a.src, "sacct", "-a", "-X", "-P", "-S", "now-6hours", "-E", "now", f"--format={SACCT_FORMAT}")
    with open(os.path.join(out, "sacct.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "slurm_config.txt"), "w") as f:
        f.write(head(a.src, "scontrol", "show", "config"))
    if not ended:
        sys.exit(f"ground_truth.py: the jobs did not end within {a.deadline} s; cancelled")


def config_values(text):
    """scontrol show config's `Key = value` lines as a dict (untrusted text: a bounded
    split, no evaluation)."""
    kv = {}
    for line in text.splitlines()[:5000]:
        if " = " in line:
            k, v = line.split(" = ", 1)
            kv[k.strip()] = v.strip()[:4096]
    return kv


def rules_from_config(text):
    """The simulator's options for the rules a Slurm configuration names, and the ones it
    cannot follow (returned as reasons: the replay is then refused, never approximated).
    Slurm 22.05's defaults where a parameter is absent (man slurm.conf)."""
    kv = config_values(text)
    params = {}
    for p in kv.get("SchedulerParameters", "").split(","):
        k, _, v = p.partition("=")
        params[k.strip()] = v.strip()
    flags, unknown = [], []
    sched = kv.get("SchedulerType", "")
    if sched == "sched/backfill":
        flags += ["--backfill", "conservative", "--bf-resolution", params.get("bf_resolution", "60")]
    elif sched != "sched/builtin":
        unknown.append(f"SchedulerType {sched!r}")
    flags += ["--sched-interval", params.get("sched_interval", "60")]
    prio = kv.get("PriorityType", "priority/basic")
    if prio != "priority/basic":
        unknown.append(f"PriorityType {prio!r} (the replay follows priority/basic: submission order)")
    return flags, unknown, {"bf_window_min": int(params.get("bf_window", "1440")),
                            "bf_max_job_test": int(params.get("bf_max_job_test", "500"))}


def recorded_waits(sacct_text):
    lines = sacct_text.splitlines()
    hdr = lines[0].split("|")
    ix = {k: i for i, k in enumerate(hdr)}
    waits = []
    for ln in lines[1:]:
        f = ln.split("|")
        if len(f) != len(hdr) or f[ix["State"]] != "COMPLETED":
            continue
        s = time.strptime(f[ix["Submit"]], "%Y-%m-%dT%H:%M:%S")
        t = time.strptime(f[ix["Start"]], "%Y-%m-%dT%H:%M:%S")
        waits.append(time.mktime(t) - time.mktime(s))
    return waits


def simulate(a, out, flags):
    """(mean, median) wait of the simulator's rigid replay of DIR/sacct.txt with `flags`."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [a.sim, "--sacct", os.path.join(out, "sacct.txt"), "--nodes", str(a.nodes), "--rigid",
               "--time-limits", "on", *flags, "--out", os.path.join(tmp, "replay.json")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"ground_truth.py: the replay failed: {' '.join(cmd)}\n{r.stderr.strip()}")
        m = json.load(open(os.path.join(tmp, "replay.json")))
    return m["mean_wait_s"], m["median_wait_s"]


def replay(a):
    out = os.path.abspath(a.out)
    sacct = open(os.path.join(out, "sacct.txt")).read()
    flags, unknown, limits = rules_from_config(open(os.path.join(out, "slurm_config.txt")).read())
    if unknown:
        sys.exit("ground_truth.py: the replay cannot follow " + "; ".join(unknown))
    waits = recorded_waits(sacct)
    if not waits:
        sys.exit("ground_truth.py: no completed job in the accounting")
    if len(waits) > limits["bf_max_job_test"]:
        print(f"ground_truth.py: note: {len(waits)} jobs, bf_max_job_test {limits['bf_max_job_test']}", file=sys.stderr)
    # the wall clock's second past a whole bf_resolution block at the first submission
    first = min(time.mktime(time.strptime(ln.split("|")[3], "%Y-%m-%dT%H:%M:%S"))
                for ln in sacct.splitlines()[1:] if ln.count("|") >= 3)
    res = float(flags[flags.index("--bf-resolution") + 1]) if "--bf-resolution" in flags else 0.0
    rules = flags + (["--bf-origin", f"{first % res:.0f}"] if res > 0 else [])
    rec = (statistics.mean(waits), statistics.median(waits))
    rows = [("Slurm's accounting", "", rec), ("simulator, the rules of its slurm.conf", " ".join(rules),
                                                simulate(a, out, rules))]
    # the same log under rules that are not this Slurm's: how much the known rules matter
    si = flags[flags.index("--sched-interval"):flags.index("--sched-interval") + 2]
    for label, other in (("contrast: FCFS + EASY", ["--backfill", "easy", *si]),
                         ("contrast: conservative, exact times (no bf_resolution)",
                          ["--backfill", "conservative", "--bf-resolution", "0", *si])):
        rows.append((label, " ".join(other), simulate(a, out, other)))

    def err(s, r):
        return f"{100 * (s - r) / r:+.1f}%" if r else "-"

    with open(os.path.join(out, "ground_truth.md"), "w") as f:
        commit = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or "unknown"
        f.write(f"Ground truth: {len(waits)} rigid jobs on the emulated Slurm ({a.nodes} nodes): its accounting "
                "(sacct.txt) replayed by malleable-clustersim --sacct --rigid with the rules of slurm_config.txt "
                f"(replayed {time.strftime('%Y-%m-%d', time.gmtime())}, commit {commit})\n\n")
        f.write("| | flags | mean wait s | vs accounting | median wait s | vs accounting |\n|---|---|---|---|---|---|\n")
        for label, fl, (mean, med) in rows:
            f.write(f"| {label} | {('`' + fl + '`') if fl else '-'} | {mean:.1f} | {err(mean, rec[0])} | "
                    f"{med:.1f} | {err(med, rec[1])} |\n")
    json.dump({"jobs": len(waits), "recorded": rec, "rules": rules, "replayed": rows[1][2],
               "contrast": {r[0]: r[2] for r in rows[2:]}},
              open(os.path.join(out, "ground_truth.json"), "w"), indent=1)
    print(open(os.path.join(out, "ground_truth.md")).read())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    s = sp.add_parser("submit")
    s.add_argument("--workload", required=True)
    s.add_argument("--load", type=float, default=1.3)
    s.add_argument("--out", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--deadline", type=float, default=5400)
    r = sp.add_parser("replay")
    r.add_argument("--sim", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--nodes", type=int, default=16)
    a = ap.parse_args(argv)
    if a.cmd == "submit":
        if not (0.1 <= a.load <= 10):
            ap.error("--load must be in [0.1, 10]")
        submit(a)
    else:
        replay(a)


if __name__ == "__main__":
    main()
