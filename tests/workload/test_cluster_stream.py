#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of scripts/bench/workload/cluster_stream.py's job scripts: how a malleable
job starts on the nodes Slurm gave it (full, min, one), the floor the policy is given, and
the time limit a job started on more than its minimum lowers to that size's, and the job's
own TMPDIR removed also when Slurm ends the job (SIGTERM)."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "bench", "workload"))
import cluster_stream  # noqa: E402


def job(malleable=True):
    j = {"id": "j001", "serial_fraction": 0.05, "iterations": 10, "malleable": malleable, "nodes": 2,
         "min_nodes": 1, "max_nodes": 4, "work_node_s": 200.0}
    j["time_limit_min"] = cluster_stream.time_limit_min(j)
    return j


def run_prologue(script, nodes):
    """The script's lines up to mpirun, run by bash with Slurm's variables and a fake
    scontrol that records its arguments: (n, SALLOC_TIMELIMIT, scontrol calls)."""
    with tempfile.TemporaryDirectory() as d:
        fake = os.path.join(d, "scontrol")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\necho \"$*\" >>{d}/calls\n")
        os.chmod(fake, 0o755)
        body = [ln for ln in script.splitlines()
                if not ln.startswith(("mpirun", "hosts=", "export OMPI_MCA_ras")) and "/bin/malleable-run " not in ln]
        body.append('echo "n=$n tl=$SALLOC_TIMELIMIT it=${it:-} lead=${lead:-}"')
        env = dict(os.environ, PATH=f"{d}:{os.environ['PATH']}", SLURM_JOB_NUM_NODES=str(nodes),
                   SLURM_JOB_ID="42", SLURM_JOB_NODELIST="node1")
        out = subprocess.run(["bash", "-c", "\n".join(body)], env=env, capture_output=True, text=True, check=True)
        calls = []
        if os.path.exists(f"{d}/calls"):
            with open(f"{d}/calls") as f:
                calls = f.read().splitlines()
        return out.stdout.strip().splitlines()[-1], calls


class JobScript(unittest.TestCase):
    def test_full_start_lowers_the_time_limit_to_the_start_size(self):
        j = job()
        self.assertEqual(j["time_limit_min"], 8)  # 200 s x (0.05 + 0.95 / 1) x 2 + 60 s
        script = cluster_stream.job_script(j, "/s", "/b", "/o")
        self.assertIn("RESIZE_SLURM_MIN_NODES=$SLURM_JOB_NUM_NODES", script)
        last, calls = run_prologue(script, 4)
        self.assertEqual(calls, [f"update JobId=42 TimeLimit={cluster_stream.time_limit_min(j, 4)}"])
        self.assertEqual(cluster_stream.time_limit_min(j, 4), 3)
        self.assertTrue(last.startswith("n=4 tl=3 "), last)
        # started on its minimum: the submitted limit stays, no update
        last, calls = run_prologue(script, 1)
        self.assertEqual(calls, [])
        self.assertTrue(last.startswith("n=1 tl=8 "), last)

    def test_min_start_launches_the_minimum_and_leads_in_only_when_given_more(self):
        script = cluster_stream.job_script(job(), "/s", "/b", "/o", start="min")
        self.assertIn("RESIZE_SLURM_MIN_NODES=1 ", script)
        last, calls = run_prologue(script, 3)
        self.assertEqual(calls, [])
        self.assertEqual(last, "n=1 tl=8 it=11 lead=--lead-in")
        last, _ = run_prologue(script, 1)
        self.assertEqual(last, "n=1 tl=8 it=10 lead=")
        self.assertIn("-i $it ", script)

    def test_malleable_job_launches_on_its_own_nodes_only(self):
        # No host pool of other nodes: malleable-run on the first $n nodes of the job's
        # allocation (a growth beyond the launcher's daemons is a resize by restart).
        for start in ("full", "min", "one"):
            script = cluster_stream.job_script(job(), "/s", "/b", "/o", start=start)
            self.assertNotIn("/run/malleable-cluster/hostfile", script)
            self.assertNotIn("orte_default_hostfile", script)
            self.assertIn('hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n $n | paste -sd,)', script)
            self.assertIn("/b/bin/malleable-run -n $n --hosts $hosts -- /b/apps/flexsleep_resizable", script)
            self.assertIn("--checkpoint /o/ckpt/j001", script)
        self.assertNotIn("malleable-run", cluster_stream.job_script(job(malleable=False), "/s", "/b", "/o"))

    def test_recipe_start_runs_the_launcher_on_what_slurm_gave_down_to_the_minimum(self):
        # docs/guide/slurm.md's recipe: malleable-run --job-dir with no --hosts and no -n,
        # the grid from every node Slurm gave, the floor the job's minimum, no lead-in and
        # no lowered time limit (the job may give back down to its minimum)
        script = cluster_stream.job_script(job(), "/s", "/b", "/o", start="recipe")
        self.assertIn("RESIZE_SLURM_MIN_NODES=1 ", script)
        self.assertIn("/b/bin/malleable-run --job-dir /o/jobdirs/j001 -- /b/apps/flexsleep_resizable", script)
        self.assertNotIn("--hosts", script)
        self.assertNotIn("--lead-in", script)
        self.assertNotIn("TimeLimit", script)
        last, calls = run_prologue(script, 3)
        self.assertEqual(calls, [])
        self.assertTrue(last.startswith("n=3 "), last)

    def test_sbatch_range_top(self):
        j = {"nodes": 4, "min_nodes": 2, "max_nodes": 8, "malleable": True}
        self.assertEqual(cluster_stream.sbatch_nodes(j), "2-8")
        self.assertEqual(cluster_stream.sbatch_nodes(j, "requested"), "2-4")
        self.assertEqual(cluster_stream.sbatch_nodes(dict(j, malleable=False, min_nodes=4, max_nodes=4), "requested"), "4")

    def test_efficient_top_is_the_largest_size_whose_added_nodes_run_at_half_efficiency(self):
        # Amdahl with serial fraction 0.1 from 6 nodes: 12 nodes gain 0.43 for a doubling
        # (efficiency 0.43), 10 nodes 0.32 for 2/3 more (0.47), 9 nodes 0.25 for half again
        # (0.50): the top is 9
        j = {"nodes": 6, "min_nodes": 3, "max_nodes": 12, "malleable": True, "serial_fraction": 0.1}
        self.assertEqual(cluster_stream.efficient_top(j), 9)
        self.assertEqual(cluster_stream.sbatch_nodes(j, "efficient"), "3-9")
        # a perfectly parallel job runs well on all of its range; a serial one on none of it
        self.assertEqual(cluster_stream.efficient_top(dict(j, serial_fraction=0.0)), 12)
        self.assertEqual(cluster_stream.efficient_top(dict(j, serial_fraction=1.0)), 6)

    def test_a_lever_off_is_the_policys_environment(self):
        # the growth arm gives nothing back, the giveback arm never grows (RESIZE_SLURM_*)
        both = cluster_stream.job_script(job(), "/s", "/b", "/o", start="recipe")
        growth = cluster_stream.job_script(job(), "/s", "/b", "/o", start="recipe", levers="growth")
        giveback = cluster_stream.job_script(job(), "/s", "/b", "/o", start="recipe", levers="giveback")
        for s in (both, growth, giveback):
            self.assertIn("RESIZE_SLURM_MAX_NODES=", s)
        self.assertNotIn("RESIZE_SLURM_GIVE_BACK", both + giveback)
        self.assertNotIn("RESIZE_SLURM_GROW", both + growth)
        self.assertIn("RESIZE_SLURM_GIVE_BACK=off", growth)
        self.assertIn("RESIZE_SLURM_GROW=off", giveback)
        with self.assertRaises(KeyError):
            cluster_stream.job_script(job(), "/s", "/b", "/o", start="recipe", levers="neither")

    def test_rigid_job_starts_on_its_allocation_with_its_limit(self):
        script = cluster_stream.job_script(job(malleable=False), "/s", "/b", "/o")
        self.assertNotIn("TimeLimit", script)
        self.assertIn("-p fixed", script)
        last, calls = run_prologue(script, 2)
        self.assertEqual(calls, [])
        self.assertTrue(last.startswith("n=2 tl=8 "), last)

    def test_job_ended_by_slurm_removes_its_tmpdir(self):
        # Slurm ends a job (time limit, scancel) by SIGTERM to its processes: the script
        # exits and its EXIT trap removes the TMPDIR it made (bash killed by the signal
        # would leave it). mpirun here: a fake that reports TMPDIR and waits.
        script = cluster_stream.job_script(job(malleable=False), "/s", "/b", "/o")
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "mpirun")
            with open(fake, "w") as f:
                f.write(f"#!/bin/sh\necho \"$TMPDIR\" >{d}/tmpdir.part && mv {d}/tmpdir.part {d}/tmpdir\n"
                        "exec sleep 120\n")
            os.chmod(fake, 0o755)
            env = dict(os.environ, PATH=f"{d}:{os.environ['PATH']}", SLURM_JOB_NUM_NODES="2",
                       SLURM_JOB_ID="42", SLURM_JOB_NODELIST="node[1-2]")
            with open(f"{d}/log", "w") as log:  # bash says "Terminated" of the fake mpirun
                proc = subprocess.Popen(["bash", "-c", script], env=env, start_new_session=True,
                                        stdout=log, stderr=subprocess.STDOUT)
            tmpdir = None
            try:
                deadline = time.monotonic() + 60
                while not os.path.exists(f"{d}/tmpdir") and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertTrue(os.path.exists(f"{d}/tmpdir"), "the fake mpirun did not start")
                with open(f"{d}/tmpdir") as f:
                    tmpdir = f.read().strip()
                self.assertTrue(tmpdir.startswith("/tmp/malleable-wl-job.") and os.path.isdir(tmpdir), tmpdir)
                os.killpg(proc.pid, signal.SIGTERM)  # as Slurm: every process of the job
                self.assertEqual(proc.wait(timeout=60), 143)
                self.assertFalse(os.path.exists(tmpdir), tmpdir)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                if tmpdir and tmpdir.startswith("/tmp/malleable-wl-job."):
                    shutil.rmtree(tmpdir, ignore_errors=True)


class Limits(unittest.TestCase):
    def test_log_limits_keep_the_logs_limit_against_the_run_in_whole_minutes(self):
        w = {"nodes": 16, "jobs": [
            dict(job(), id="a", submit_s=0.0, limit_s=3000.0, recorded_run_s=100.0, serial_fraction=0.0),
            dict(job(False), id="b", submit_s=50.0, nodes=1, min_nodes=1, max_nodes=1, limit_s=1100.0,
                 recorded_run_s=1000.0, serial_fraction=0.0, work_node_s=1000.0)]}
        loose = cluster_stream.prepare(w, 10, 120, 4.0, 0, 800)
        self.assertEqual(loose["compression"]["limits"], "loose")
        self.assertNotIn("limit_from", loose["jobs"][0])
        a, b = cluster_stream.prepare(w, 10, 120, 4.0, 0, 800, "log")["jobs"]
        # a: 10 s on its 2 nodes after the compression, the log's limit 30x its run: 300 s
        self.assertEqual((a["limit_s"], cluster_stream.time_limit_min(a)), (300.0, 5))
        # ... the same on any size it starts on (the user gave one limit): no lowering
        self.assertEqual(cluster_stream.time_limit_min(a, 4), 5)
        # b: 120 s, its limit 1.1x its run: 132 s, up to 3 whole minutes
        self.assertEqual((b["limit_s"], cluster_stream.time_limit_min(b)), (180.0, 3))
        # a limit the log gave below the run: the run itself, at least a minute
        c = cluster_stream.prepare({"nodes": 16, "jobs": [dict(w["jobs"][1], limit_s=10.0)]}, 10, 120, 4.0, 0, 800,
                                   "log")["jobs"][0]
        self.assertEqual(c["limit_s"], 60.0)


if __name__ == "__main__":
    unittest.main()
