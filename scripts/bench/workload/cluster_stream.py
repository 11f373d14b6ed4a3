#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One job stream on the emulated cluster's Slurm (scripts/bench/workload_cluster.sh
runs it between `cluster.sh up N --slurm` and `down`).

    cluster_stream.py prepare --workload w.json --lo 20 --hi 120 [--limits loose|log] -o run.json
    cluster_stream.py run --workload run.json --out DIR --src SRC --build BUILD [--deadline S]

prepare: compresses a generated workload (generate.py) to the emulated cluster's time
budget: each job's run time on its requested size r is mapped into [lo, hi] seconds on a
log scale, r' = lo * (hi/lo)^((ln r - ln r_min) / (ln r_max - ln r_min)) (order and
relative spread in log kept; Lublin-Feitelson run times span four orders of magnitude,
which the 2 shared cores cannot run in minutes), work_node_s scaled by r'/r, the arrival
times scaled so that the offered load sum(size * r') / (nodes * span) stays what the
generator gave, and the iterations set to about one per `--iteration-s` seconds (6 to 40).
Every --real-every-th job (by index) runs a real driver (PDGEMM, N = --real-n) instead of
the flexible-sleep job, for as many iterations as the model says (its length is then its
own).

run: submits each job with sbatch at its submit time (rigid: -N nodes; malleable:
-N min-max, or with --top requested -N min-size, and the Slurm policy within [min, max]), one process per node, records
Slurm's view (squeue) every --poll seconds in DIR/timeline.tsv, sdiag before and after
(DIR/sdiag_before.txt, sdiag_after.txt), the submission times (DIR/submitted.tsv), and
waits until every job has left the queue. Each job writes DIR/jobs/<id>.out and its run
JSON DIR/jobs/<id>.json. Exit 0 when every job ended; 1 at the deadline (jobs cancelled).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

SUBNET = "10.213.7"


def submitted_limit_s(j, run_s, mode):
    """The time limit (s, whole minutes) a job of the compressed stream is submitted with,
    run_s its compressed run time on its requested size. log: the limit its log gave it
    against its run (limit_s / recorded_run_s of trace_slice.py's window), at least the run
    itself, so that a job that ran near its limit in the log runs near it here, and a
    give-back or a start below the request is held back by it as there (the time-limit rule,
    the one the arbiter applies); None for loose, time_limit_min's rule below."""
    if mode != "log":
        return None
    ratio = j["limit_s"] / j["recorded_run_s"] if j.get("limit_s") and j.get("recorded_run_s") else 1.0
    return 60.0 * max(1, math.ceil(max(run_s, run_s * ratio) / 60.0 - 1e-9))


def prepare(w, lo, hi, iteration_s, real_every, real_n, limits="loose"):
    jobs = w["jobs"]

    def runtime(j, n):
        sf = j["serial_fraction"]
        return j["work_node_s"] * (sf + (1.0 - sf) / n)

    rts = [runtime(j, j["nodes"]) for j in jobs]
    lmin, lmax = math.log(min(rts)), math.log(max(rts))
    nodes = w["nodes"]
    span = max(max(j["submit_s"] for j in jobs) - min(j["submit_s"] for j in jobs), 1e-9)
    load = sum(j["nodes"] * r for j, r in zip(jobs, rts)) / (nodes * span)
    out = []
    for k, (j, r) in enumerate(zip(jobs, rts)):
        x = (math.log(r) - lmin) / (lmax - lmin) if lmax > lmin else 0.5
        r2 = lo * (hi / lo) ** x
        j2 = dict(j)
        j2["work_node_s"] = round(j["work_node_s"] * r2 / r, 3)
        j2["iterations"] = max(6, min(40, int(round(r2 / iteration_s))))
        if limits == "log":
            j2["limit_s"] = submitted_limit_s(j, r2, limits)
            j2["limit_from"] = "log"
        if real_every > 0 and k % real_every == real_every // 2:
            j2["program"] = "pdgemm"
            j2["real_n"] = real_n
        out.append(j2)
    new_work = sum(j["nodes"] * runtime(j, j["nodes"]) for j in out)
    new_span = new_work / (nodes * load)
    t0 = min(j["submit_s"] for j in jobs)
    for j in out:
        j["submit_s"] = round((j["submit_s"] - t0) * new_span / span, 3)
    w2 = dict(w)
    w2["jobs"] = out
    w2["compression"] = {"lo_s": lo, "hi_s": hi, "iteration_s": iteration_s, "offered_load": round(load, 4),
                         "arrival_factor": round(new_span / span, 6),
                         "real_every": real_every, "real_n": real_n,
                         "limits": limits,
                         "rule": "run time on the requested size mapped log-linearly into [lo, hi]; "
                                 "arrivals scaled to keep the offered load"}
    return w2


def near_square(n):
    p = int(math.isqrt(n))
    while n % p:
        p -= 1
    return p, n // p


def job_script(j, src, build, out, start="full", arbiter=None, levers="both"):
    """The batch script of one job: mpirun from the first node, daemons through the rsh
    agent (a shrink of the allocation must not kill a Slurm step holding them). `start`:
    how a malleable job starts on the nodes Slurm gave it ("full", the default: on all of
    them, which cannot leave; "min": on its minimum, spawning onto the rest at once;
    "one": on one process, spawning onto the rest; "join": submitted for its minimum, growing
    by expander jobs; "recipe": the one recipe of docs/guide/slurm.md, malleable-run --job-dir
    on every node Slurm gave in [min, max], one launch per node, giving back any node but the
    batch host down to its minimum and growing by expander jobs). `arbiter`: (socket, munge socket, its user) of
    the cluster's malleable-arbiterd, which the Slurm policy then asks instead of the
    run's shared directory. `levers`: both (the default), growth (give-backs off:
    RESIZE_SLURM_GIVE_BACK=off) or giveback (growth off: RESIZE_SLURM_GROW=off), the
    simulator's --no-give-back and --no-growth arms."""
    start_one = start == "one"
    floor = {"one": str(j["min_nodes"]), "min": str(j["min_nodes"]), "join": str(j["min_nodes"]),
             "recipe": str(j["min_nodes"]), "full": "$SLURM_JOB_NUM_NODES"}[start]
    sf, iters = j["serial_fraction"], j["iterations"]
    policy = "slurm" if j["malleable"] else "fixed"
    lines = [
        "#!/bin/bash",
        "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1",
        "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off",
        f"export OMPI_MCA_btl_tcp_if_include={SUBNET}.0/24 OMPI_MCA_oob_tcp_if_include={SUBNET}.0/24",
        f"export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent={src}/scripts/cluster-rsh",
        # Open MPI's session directories in a folder of this job's own: the emulated nodes
        # share the host's /tmp, and two mpiruns starting in the same second on one node
        # raced to create its /tmp/ompi.<node>.<uid> ("orte_session_dir failed ... File
        # exists", a job lost at launch); the daemons inherit TMPDIR through cluster-rsh.
        # A job Slurm ends (time limit, scancel) gets SIGTERM, which would kill bash without
        # its EXIT trap: SIGTERM makes it exit once mpirun (not exec'd) has ended, and so
        # remove the folder.
        'export TMPDIR=$(mktemp -d /tmp/malleable-wl-job.XXXXXX); trap \'rm -rf "$TMPDIR"\' EXIT; '
        "trap 'exit 143' TERM",
        f"export RESIZE_SLURM_PROCS_PER_NODE=1 RESIZE_SLURM_MIN_NODES={floor} "
        f"RESIZE_SLURM_MAX_NODES={j['max_nodes']}"
        + {"both": "", "growth": " RESIZE_SLURM_GIVE_BACK=off", "giveback": " RESIZE_SLURM_GROW=off"}[levers],
        # the jobs of this run ask the cluster's arbiter (one daemon, MUNGE-authenticated),
        # or else share one directory (the policy's cluster view, ledger and decision logs;
        # a fresh one per run)
        (f"export RESIZE_ARBITER={arbiter[0]} RESIZE_ARBITER_MUNGE={arbiter[1]} RESIZE_ARBITER_USER={arbiter[2]}" if arbiter
         else f"export RESIZE_SLURM_SHARED={out}/shared"),
        # the expansion's allocation may not outlive the job it joins
        f"export SALLOC_TIMELIMIT={j['time_limit_min']}",
        # Every job starts one process on each node Slurm gave it (a malleable job: as many
        # as Slurm could give within [min, max]). Processes of the first launch share
        # MPI_COMM_WORLD with rank 0 and cannot leave in a shrink: a malleable job's floor
        # is the size it started with (RESIZE_SLURM_MIN_NODES below); it grows by spawn
        # onto nodes Slurm grants and gives those back when a job waits. (Starting one
        # process and spawning onto the rest of the allocation, --start-one, lets it shrink
        # to min; the flexible-sleep job then does no work in its first iteration, so that
        # it spreads onto its allocation at once.) The default, start on the minimum: the
        # first launch is as large as the job's floor anyway, and only the nodes Slurm gave
        # above it are spawned onto (none when Slurm gave the minimum).
        ("n=1" if start_one else f"n={j['min_nodes']}") if j["malleable"] and start not in ("full", "recipe")
        else "n=$SLURM_JOB_NUM_NODES",
        "p=$(python3 -c \"import math,sys; n=int(sys.argv[1]); p=math.isqrt(n)\n"
        "while n % p: p -= 1\nprint(f'{p}x{n//p}')\" $n)",
        f"echo \"job {j['id']} ({policy}) Slurm job $SLURM_JOB_ID on $SLURM_JOB_NODELIST ($SLURM_JOB_NUM_NODES node(s)), "
        f"starting on $n, grid $p\"",
    ]
    if j["malleable"] and start == "full":
        # Its floor is the size it started on, so it never runs longer than on those nodes:
        # the time limit (submitted for its min) comes down to that size's, by the same rule
        # as every job's (time_limit_min), which lets Slurm's backfilling plan with it.
        cases = " ".join(f"{n}) tl={time_limit_min(j, n)};;" for n in range(j["min_nodes"] + 1, j["max_nodes"] + 1)
                         if time_limit_min(j, n) < j["time_limit_min"])
        if cases:
            lines.append(f"tl=; case $SLURM_JOB_NUM_NODES in {cases} esac; "
                         "[ -n \"$tl\" ] && scontrol update JobId=$SLURM_JOB_ID TimeLimit=$tl && export SALLOC_TIMELIMIT=$tl")
    common = f"-g $p -i {iters} -p {policy} -q --json {out}/jobs/{j['id']}.json"
    if j.get("program") == "pdgemm":
        # a real PDGEMM, three times the model's iterations (its own length: ~0.3-0.5 s an
        # iteration at N = 800 here)
        common = common.replace(f"-i {iters} ", f"-i {3 * iters} ")
        run = f"{build}/apps/pdgemm_resizable -n {j.get('real_n', 800)} --nb 32 --meter-kernels {common}"
    else:
        # a real checkpoint at the end (parallel HDF5), for its cost
        # a lead-in iteration (no work, so that the first remap point spreads the job onto
        # its allocation at once) when the job starts on fewer nodes than Slurm gave
        lead_in = j["malleable"] and start not in ("full", "recipe")
        if lead_in:
            lines.append(f"it={iters}; lead=; if [ \"$SLURM_JOB_NUM_NODES\" -gt \"$n\" ]; then it={iters + 1}; lead=--lead-in; fi")
            common = common.replace(f"-i {iters} ", "-i $it ")
        run = (f"{build}/apps/flexsleep_resizable -n 512 --nb 64 --work {j['work_node_s']} --serial {sf} "
               f"--checkpoint {out}/ckpt/{j['id']} --keep 1 {common}{' $lead' if lead_in else ''}")
    # rigid: one process per node (--map-by node; the nodes have 2 slots); malleable: one
    # process, no mapping option (with --map-by node, a later spawn onto nodes Slurm added
    # failed in Open MPI 4.1.4's daemons: "ppr pattern ... topology information missing")
    mapping = "" if j["malleable"] else "--map-by node "
    if j["malleable"] and start == "recipe":
        # The recipe: malleable-run inside the Slurm job, no --hosts and no -n (it runs on
        # the job's nodes, one launch per node, the tasks per node Slurm gave on each)
        lines.append(f"{build}/bin/malleable-run --job-dir {out}/jobdirs/{j['id']} -- {run}")
        return "\n".join(lines) + "\n"
    if j["malleable"]:
        # Processes only where Slurm says: the launcher gets the job's own first $n nodes
        # (this node first, so rank 0 is here; one slot each) and starts its daemons there
        # alone (the emulated cluster refuses a launch onto a node the job does not hold,
        # scripts/cluster-rsh). Open MPI 4.1.4 cannot add a daemon on a node granted after
        # launch once it runs daemons on other nodes (routed_radix "Not found"): a growth
        # onto such a node is a resize by restart (the Slurm policy decides so), which
        # malleable-run carries out on the grown allocation; a job started on one node
        # grows once by spawn, add-host starting the daemons.
        lines.append("hosts=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n $n | paste -sd,)")
        lines.append("export OMPI_MCA_ras=^slurm "
                     "MALLEABLE_MPIEXEC=\"mpirun --oversubscribe --bind-to none\"")
        if start == "join":
            # Growing by joining (docs/guide/joining.md, "Under Slurm"): one launch per node
            # of its minimum, each joined at the start; every further node an expander job
            # whose launch joins it, given back by ending that launch (no job expansion).
            lines.append(f"{build}/bin/malleable-run --job-dir {out}/jobdirs/{j['id']} -n $n --hosts $hosts -- {run}")
        else:
            lines.append(f"{build}/bin/malleable-run -n $n --hosts $hosts -- {run}")
        return "\n".join(lines) + "\n"
    lines.append(f"mpirun --oversubscribe --bind-to none {mapping}-n $n {run}")
    return "\n".join(lines) + "\n"


def efficient_top(j, efficiency=0.5):
    """The largest size up to max_nodes whose added nodes run at `efficiency` or better
    over the size the job asked (the job's Amdahl model: speed-up gained over the share of
    nodes added), the simulator's --range-top efficient (sim/src/cluster.cpp)."""
    sf, n = j["serial_fraction"], j["nodes"]
    def runtime(m):
        return sf + (1.0 - sf) / m
    top = n
    for m in range(n + 1, j["max_nodes"] + 1):
        if (runtime(n) / runtime(m) - 1) / ((m - n) / n) >= efficiency:
            top = m
    return top


def sbatch_nodes(j, top="max", efficiency=0.5):
    """sbatch -N of a job: a rigid job its size; a malleable one min-max, or with top
    "requested" min-size (Slurm starts it on no more than it asked; the policy grows it
    above, up to max_nodes, into idle nodes), or with top "efficient" up to efficient_top."""
    if not j["malleable"]:
        return str(j["nodes"])
    if top == "max":
        hi = j["max_nodes"]
    elif top == "efficient":
        hi = efficient_top(j, efficiency)
    else:
        hi = max(j["min_nodes"], min(j["nodes"], j["max_nodes"]))
    return f"{j['min_nodes']}-{hi}"


def time_limit_min(j, nodes=None):
    """Slurm time limit (minutes): the model's run time on the fewest nodes the job may
    run on (or on `nodes`), doubled, plus a minute for start-up and resizes on 2 shared
    cores; a job prepared with --limits log: its limit as its log gave it (the same on any
    size: the user gave one limit)."""
    if j.get("limit_from") == "log":
        return int(round(j["limit_s"] / 60.0))
    sf = j["serial_fraction"]
    t = j["work_node_s"] * (sf + (1.0 - sf) / (nodes or j["min_nodes"]))
    return int(math.ceil((2 * t + 60) / 60.0))


class Head:
    def __init__(self, src):
        self.cluster = os.path.join(src, "scripts", "cluster.sh")

    def run(self, *args, check=True):
        r = subprocess.run([self.cluster, "exec", "head", *args], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return r.stdout


def run(a):
    w = json.load(open(a.workload))
    out = os.path.abspath(a.out)
    os.makedirs(os.path.join(out, "jobs"), exist_ok=True)
    head = Head(a.src)
    jobs = sorted(w["jobs"], key=lambda j: j["submit_s"])
    for j in jobs:
        j["time_limit_min"] = time_limit_min(j)
        path = os.path.join(out, "jobs", j["id"] + ".sh")
        # moldable: a malleable job asks Slurm for its node range and runs on what it got,
        # never resized (the rigid job's script on $SLURM_JOB_NUM_NODES nodes, policy fixed)
        script_job = dict(j, malleable=False) if a.moldable else j
        arbiter = (a.arbiter, a.arbiter_munge, a.arbiter_user) if a.arbiter else None
        with open(path, "w") as f:
            f.write(job_script(script_job, a.src, a.build, out, a.start, arbiter, a.levers))
        os.chmod(path, 0o755)
    with open(os.path.join(out, "sdiag_before.txt"), "w") as f:
        f.write(head.run("sdiag"))
    t0 = time.monotonic()
    submitted = {}  # id -> (slurm id, t)
    polls = 0
    tl = open(os.path.join(out, "timeline.tsv"), "w")
    tl.write("t\tjob\tname\tstate\tnodes\tnodelist\n")
    sub = open(os.path.join(out, "submitted.tsv"), "w")
    sub.write("id\tslurm_id\tt\tepoch\n")
    nxt = 0
    last_poll = -1e9
    while True:
        t = time.monotonic() - t0
        while nxt < len(jobs) and jobs[nxt]["submit_s"] <= t:
            j = jobs[nxt]
            # growing by joining: a malleable job starts on exactly its minimum
            size = str(j["min_nodes"]) if a.start == "join" and j["malleable"] else sbatch_nodes(j, a.top, a.top_efficiency)
            # a malleable job's comment names its minimum: the policy of the running jobs
            # sees what it waits for (Slurm prints its own estimate, up to the maximum)
            comment = [f"--comment=min_nodes={j['min_nodes']}"] if j["malleable"] else []
            sid = head.run("sbatch", "--parsable", "-J", j["id"], "-N", size, "--ntasks-per-node=1", *comment,
                           f"--time={j['time_limit_min']}", "-o", os.path.join(out, "jobs", j["id"] + ".out"),
                           "-D", out, os.path.join(out, "jobs", j["id"] + ".sh")).strip().split(";")[0]
            ts = time.monotonic() - t0
            submitted[j["id"]] = (sid, ts)
            sub.write(f"{j['id']}\t{sid}\t{ts:.3f}\t{time.time():.3f}\n")
            sub.flush()
            nxt += 1
        if t - last_poll >= a.poll:
            last_poll = t
            text = head.run("squeue", "-h", "-o", "%i|%j|%T|%D|%N", check=False)
            polls += 1
            lines = [ln for ln in text.splitlines() if ln.strip()]
            for ln in lines:
                f = ln.split("|")
                if len(f) == 5:
                    tl.write(f"{t:.2f}\t" + "\t".join(f) + "\n")
            tl.flush()
            if nxt == len(jobs) and not lines:
                break
        if t > a.deadline:
            for sid, _ in submitted.values():
                head.run("scancel", sid, check=False)
            print(f"cluster_stream.py: the jobs did not end within {a.deadline} s; cancelled", file=sys.stderr)
            break
        nxt_t = jobs[nxt]["submit_s"] if nxt < len(jobs) else 1e18
        time.sleep(max(0.02, min(a.poll - (time.monotonic() - t0 - last_poll), nxt_t - (time.monotonic() - t0))))
    wall = time.monotonic() - t0
    with open(os.path.join(out, "sdiag_after.txt"), "w") as f:
        f.write(head.run("sdiag"))
    # RPCs one squeue poll costs slurmctld, measured now on the idle cluster
    before = head.run("sdiag")
    for _ in range(10):
        head.run("squeue", "-h", "-o", "%i|%j|%T|%D|%N", check=False)
    after = head.run("sdiag")
    with open(os.path.join(out, "stream.json"), "w") as f:
        json.dump({"wall_s": wall, "polls": polls, "poll_s": a.poll, "calibration_before": before,
                   "calibration_after": after, "calibration_polls": 10,
                   "submitted": {k: {"slurm_id": v[0], "t": v[1]} for k, v in submitted.items()},
                   "time_limits_min": {j["id"]: j["time_limit_min"] for j in jobs}}, f, indent=1)
    return 0 if t <= a.deadline else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    p = sp.add_parser("prepare")
    p.add_argument("--workload", required=True)
    p.add_argument("--lo", type=float, default=20.0)
    p.add_argument("--hi", type=float, default=120.0)
    p.add_argument("--iteration-s", type=float, default=4.0)
    p.add_argument("--real-every", type=int, default=8)
    p.add_argument("--real-n", type=int, default=800)
    p.add_argument("--limits", choices=("loose", "log"), default="loose",
                   help="each job's time limit: loose (twice its run on its minimum plus a minute: no limit "
                        "ever holds a job back) or log (its log's limit against its run, whole minutes)")
    p.add_argument("-o", "--out", required=True)
    r = sp.add_parser("run")
    r.add_argument("--workload", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--src", required=True)
    r.add_argument("--build", required=True)
    r.add_argument("--poll", type=float, default=1.0)
    r.add_argument("--deadline", type=float, default=1200.0)
    r.add_argument("--top", choices=("max", "requested", "efficient"), default="max",
                   help="the top of a malleable job's -N range: its max_nodes (max), or the size it asked "
                        "(requested: Slurm starts it on no more; the policy may grow it to max_nodes), or "
                        "the largest size whose added nodes run at --top-efficiency or better (efficient)")
    r.add_argument("--top-efficiency", type=float, default=0.5,
                   help="--top efficient: the parallel efficiency of the added nodes (default 0.5)")
    r.add_argument("--levers", choices=("both", "growth", "giveback"), default="both",
                   help="the malleable jobs' levers: both, growth only (give-backs off) or give-back only (growth off)")
    r.add_argument("--moldable", action="store_true",
                   help="malleable jobs start on the node range Slurm gives and are never resized")
    r.add_argument("--arbiter", help="the cluster arbiter's socket (malleable-arbiterd): the jobs ask it")
    r.add_argument("--arbiter-munge", help="munged's socket for the arbiter's credentials")
    r.add_argument("--arbiter-user", default="slurm",
                   help="the user the arbiter runs as: the jobs take its replies only (default slurm, as workload_cluster.sh runs it)")
    r.add_argument("--start", choices=("full", "min", "one", "join", "recipe"), default="full",
                   help="a malleable job starts on all of its allocation (full), or on its minimum (min) or one "
                        "process (one) and spawns onto the rest, or is submitted for its minimum and grows by "
                        "expander jobs whose launches join it (join: malleable-run --job-dir), or starts by the "
                        "recipe on what Slurm gives in its range and gives back down to its minimum (recipe)")
    a = ap.parse_args(argv)
    if a.cmd == "prepare":
        w = prepare(json.load(open(a.workload)), a.lo, a.hi, a.iteration_s, a.real_every, a.real_n, a.limits)
        with open(a.out, "w") as f:
            json.dump(w, f, indent=1)
        return 0
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
