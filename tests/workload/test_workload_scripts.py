#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of scripts/bench/workload/{generate,summary,measured_runtimes,run_flags}.py and
cluster_report.py's cost fit, replay_gap.py's schedule measures and limit_extensions.py's
ranges: the generator is
seeded and deterministic, keeps sizes within the machine and the malleable ranges, and
reproduces the Lublin-Feitelson statistics it is built from; the summary writer keeps one
column order and computes the metrics as documented."""
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts", "bench", "workload")
sys.path.insert(0, SCRIPTS)
import compare  # noqa: E402
import cluster_report  # noqa: E402
import limit_extensions  # noqa: E402
import slice_scan  # noqa: E402
import slice_table  # noqa: E402
import measured_runtimes  # noqa: E402
import replay_gap  # noqa: E402
import run_flags  # noqa: E402
import summary_table  # noqa: E402
import sim_report  # noqa: E402
import generate  # noqa: E402
import summary  # noqa: E402


def read(path):
    with open(path) as f:
        return f.read()


class Generator(unittest.TestCase):
    def test_seeded_and_deterministic(self):
        a = generate.generate(128, 300, 7, 0.5)
        b = generate.generate(128, 300, 7, 0.5)
        c = generate.generate(128, 300, 8, 0.5)
        self.assertEqual(json.dumps(a), json.dumps(b))
        self.assertNotEqual(json.dumps(a), json.dumps(c))

    def test_command_line_writes_the_documented_form(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "w.json")
            subprocess.run([sys.executable, os.path.join(SCRIPTS, "generate.py"), "--nodes", "8",
                            "--jobs", "30", "--seed", "3", "--malleable-share", "0.25",
                            "--time-scale", "0.01", "-o", out], check=True)
            w = json.loads(read(out))
        for key in ("model", "seed", "nodes", "malleable_share", "time_scale", "jobs"):
            self.assertIn(key, w)
        self.assertIn("Lublin", w["model"])
        self.assertEqual((w["seed"], w["nodes"], w["malleable_share"], w["time_scale"]), (3, 8, 0.25, 0.01))
        self.assertEqual(len(w["jobs"]), 30)
        keys = {"id", "submit_s", "nodes", "min_nodes", "max_nodes", "malleable", "program",
                "work_node_s", "serial_fraction", "iterations"}
        for j in w["jobs"]:
            self.assertEqual(set(j), keys)
            self.assertEqual(j["program"], "sleep")

    def test_bad_input_is_refused(self):
        for args in ((0, 10, 1, 0.5), (8, 0, 1, 0.5), (8, 10, 1, 1.5), (8, 10, 1, -0.1)):
            with self.assertRaises(ValueError):
                generate.generate(*args)
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "generate.py"), "--nodes", "8",
                            "--jobs", "5", "--malleable-share", "2"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("malleable share", r.stderr)

    def test_sizes_within_machine_and_ranges(self):
        for nodes in (8, 16, 1000, 10000):
            w = generate.generate(nodes, 500, 1, 0.5)
            for j in w["jobs"]:
                self.assertTrue(1 <= j["min_nodes"] <= j["nodes"] <= j["max_nodes"] <= nodes, j)
                if not j["malleable"]:
                    self.assertEqual(j["min_nodes"], j["max_nodes"])
                self.assertGreater(j["work_node_s"], 0)
                self.assertTrue(0 < j["serial_fraction"] < 1)
                self.assertGreaterEqual(j["iterations"], 1)
            subs = [j["submit_s"] for j in w["jobs"]]
            self.assertEqual(subs, sorted(subs))
            self.assertEqual(subs[0], 0.0)

    def test_malleable_share_exact_and_nested(self):
        ws = {f: generate.generate(256, 400, 5, f) for f in (0.0, 0.2, 0.5, 1.0)}
        sets = {f: {j["id"] for j in w["jobs"] if j["malleable"]} for f, w in ws.items()}
        self.assertEqual([len(sets[f]) for f in (0.0, 0.2, 0.5, 1.0)], [0, 80, 200, 400])
        self.assertTrue(sets[0.2] <= sets[0.5] <= sets[1.0])
        # the same jobs at every share
        strip = [[(j["submit_s"], j["nodes"], j["work_node_s"]) for j in w["jobs"]] for w in ws.values()]
        self.assertTrue(all(s == strip[0] for s in strip))

    def test_model_statistics_reproduced(self):
        n_jobs, nodes = 4000, 128
        w = generate.generate(nodes, n_jobs, 11, 0.0, load=0.7)
        jobs = w["jobs"]
        sizes = [j["nodes"] for j in jobs]
        serial = sum(s == 1 for s in sizes) / n_jobs
        self.assertAlmostEqual(serial, generate.SERIAL_PROB, delta=0.03)
        pow2 = sum(s > 1 and s & (s - 1) == 0 for s in sizes) / n_jobs
        # the 0.576 share is rounded to powers of two; others may land on one by chance
        self.assertGreater(pow2, generate.POW2_PROB - 0.03)
        self.assertLess(pow2, generate.POW2_PROB + 0.12)
        # run time on the requested size: log-runtime is a hyper-gamma mixture
        runtimes = [generate.runtime_on(j, j["nodes"]) for j in jobs]
        logs = [math.log(r) for r in runtimes]
        p = [min(1, max(0, generate.PA * s + generate.PB)) for s in sizes]
        expect = statistics.mean(pi * generate.A1 * generate.B1 + (1 - pi) * generate.A2 * generate.B2
                                 for pi in p)
        self.assertAlmostEqual(statistics.mean(logs), expect, delta=0.25)
        # the offered load is the one asked for
        span = jobs[-1]["submit_s"] - jobs[0]["submit_s"]
        load = sum(s * r for s, r in zip(sizes, runtimes)) / (nodes * span)
        self.assertAlmostEqual(load, 0.7, delta=0.01)

    def test_daily_cycle_peaks_in_daytime(self):
        wts = generate.daily_weights()
        self.assertAlmostEqual(statistics.mean(wts), 1.0, places=6)
        peak = max(range(len(wts)), key=wts.__getitem__)
        self.assertTrue(16 <= peak <= 40, peak)    # between 8:00 and 20:00

    def test_time_scale_scales_times_only(self):
        a = generate.generate(64, 100, 2, 0.5, time_scale=1.0)
        b = generate.generate(64, 100, 2, 0.5, time_scale=0.01)
        for x, y in zip(a["jobs"], b["jobs"]):
            self.assertEqual(x["nodes"], y["nodes"])
            self.assertAlmostEqual(y["work_node_s"], x["work_node_s"] * 0.01, delta=0.002)
            self.assertAlmostEqual(y["submit_s"], x["submit_s"] * 0.01, delta=0.002)


class Summary(unittest.TestCase):
    def test_header_order_and_rows(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "sub", "summary.csv")
            summary.append_row(path, {"setting": "simulated", "nodes": 1000, "malleable_share": 0.5,
                                      "jobs": 10, "makespan_s": 12.5, "commit": "abc", "date": "x"})
            subprocess.run([sys.executable, os.path.join(SCRIPTS, "summary.py"), "--csv", path,
                            "setting=emulated", "nodes=8", "malleable_share=0.25", "jobs=30",
                            "slurm_rpcs_per_job_minute=3.5"], check=True)
            rows = list(csv.reader(read(path).splitlines()))
        self.assertEqual(rows[0], summary.COLUMNS)
        self.assertEqual(rows[0][:4], ["setting", "nodes", "malleable_share", "jobs"])
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows[1][summary.COLUMNS.index("makespan_s")], "12.5")
        self.assertEqual(rows[1][summary.COLUMNS.index("median_wait_s")], "")
        self.assertEqual(rows[2][summary.COLUMNS.index("slurm_rpcs_per_job_minute")], "3.5")
        self.assertRegex(rows[2][summary.COLUMNS.index("date")], r"^\d{4}-\d\d-\d\dT")

    def test_refuses_unknown_columns_and_foreign_headers(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.csv")
            with self.assertRaises(ValueError):
                summary.append_row(path, {"setting": "simulated", "nodes": 1, "malleable_share": 0,
                                          "jobs": 1, "turnaround": 3})
            with self.assertRaises(ValueError):
                summary.append_row(path, {"setting": "real", "nodes": 1, "malleable_share": 0, "jobs": 1})
            self.assertFalse(os.path.exists(path))
            with open(path, "w") as f:
                f.write("a,b\n")
            with self.assertRaises(ValueError):
                summary.append_row(path, {"setting": "simulated", "nodes": 1, "malleable_share": 0, "jobs": 1})
            self.assertEqual(read(path), "a,b\n")

    def test_trace_settings_and_the_policy_column(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.csv")
            base = {"setting": "trace:nasa", "nodes": 128, "malleable_share": 0.5, "jobs": 300}
            for policy in ("rigid", "moldable", "malleable"):
                summary.append_row(path, dict(base, policy=policy))
            summary.append_row(path, {"setting": "simulated", "nodes": 8, "malleable_share": 0, "jobs": 3})
            summary.append_row(path, {"setting": "simulated", "nodes": 8, "malleable_share": 0.5, "jobs": 3})
            with self.assertRaises(ValueError):
                summary.append_row(path, dict(base, policy="elastic"))
            with self.assertRaises(ValueError):
                summary.append_row(path, dict(base, setting="trace:"))
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([r["policy"] for r in rows], ["rigid", "moldable", "malleable", "rigid", "malleable"])
            self.assertEqual(rows[0]["setting"], "trace:nasa")

    def test_range_and_start_tell_policies_apart(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.csv")
            base = {"setting": "emulated", "nodes": 10, "malleable_share": 0.5, "jobs": 32}
            summary.append_row(path, dict(base, range="double", start="full"))
            summary.append_row(path, dict(base, malleable_share=0, range="-", start="-"))
            for bad in ({"range": "wide"}, {"start": "half"}):
                with self.assertRaises(ValueError):
                    summary.append_row(path, dict(base, **bad))
            rows = list(csv.DictReader(read(path).splitlines()))
        self.assertEqual([(r["range"], r["start"]) for r in rows], [("double", "full"), ("-", "-")])

    def test_metrics(self):
        recs = [
            {"submit_s": 0, "start_s": 0, "end_s": 100, "node_s": 200, "resizes": 1, "resize_s": 4},
            {"submit_s": 10, "start_s": 30, "end_s": 35, "node_s": 5},
            {"submit_s": 20, "start_s": 60, "end_s": 120, "node_s": 120, "resizes": 2, "resize_s": 2},
        ]
        m = summary.metrics(recs, nodes=4)
        self.assertEqual(m["jobs"], 3)
        self.assertEqual(m["makespan_s"], 120)
        self.assertAlmostEqual(m["mean_wait_s"], (0 + 20 + 40) / 3)
        self.assertEqual(m["median_wait_s"], 20)
        self.assertAlmostEqual(m["mean_turnaround_s"], (100 + 25 + 100) / 3)
        # bounded slowdown: 100/100, 25/max(5,10), 100/60
        self.assertAlmostEqual(m["bounded_slowdown"], (1 + 2.5 + 100 / 60) / 3)
        self.assertAlmostEqual(m["utilisation"], 325 / 480)
        self.assertAlmostEqual(m["resizes_per_job"], 1.0)
        self.assertAlmostEqual(m["resize_time_s_per_job"], 2.0)
        with self.assertRaises(ValueError):
            summary.metrics([{"submit_s": 5, "start_s": 1, "end_s": 9, "node_s": 1}], nodes=1)


class SummaryTable(unittest.TestCase):
    def test_every_row_with_the_nearest_rigid_run_between_markers(self):
        with tempfile.TemporaryDirectory() as d:
            path, doc = os.path.join(d, "s.csv"), os.path.join(d, "w.md")
            for share, turn, rng, date in ((0, 100.0, "-", "2026-01-01T10:00:00Z"), (0.5, 80.0, "grow", "2026-01-01T10:10:00Z"),
                                           (0, 50.0, "-", "2026-01-01T12:00:00Z"), (0.5, 40.0, "double", "2026-01-01T11:55:00Z")):
                summary.append_row(path, {"setting": "emulated", "nodes": 10, "malleable_share": share, "jobs": 32,
                                          "range": rng, "start": "full" if share else "-", "makespan_s": 10.0,
                                          "mean_turnaround_s": turn, "date": date})
            with open(doc, "w") as f:
                f.write("a\n<!-- runs-table -->\nold\n<!-- /runs-table -->\nb\n")
            self.assertEqual(summary_table.main(["--csv", path, "--doc", doc]), 0)
            text = read(doc)
        self.assertNotIn("old", text)
        self.assertTrue(text.startswith("a\n<!-- runs-table -->\n| setting"))
        self.assertTrue(text.endswith("<!-- /runs-table -->\nb\n"))
        rows = [ln.split(" | ") for ln in text.splitlines() if ln.startswith("| emulated")]
        self.assertEqual(len(rows), 4)
        by_range = {r[3]: r for r in rows if r[2] == "50%"}
        self.assertEqual(by_range["grow"][10], "1.25x")   # against the rigid run of 10:00
        self.assertEqual(by_range["double"][10], "1.25x")  # against the rigid run of 12:00

    def test_a_rigid_run_of_another_seed_is_not_the_base(self):
        with tempfile.TemporaryDirectory() as d:
            path, doc = os.path.join(d, "s.csv"), os.path.join(d, "w.md")
            for share, turn, seed, date in ((0, 100.0, 1, "2026-01-01T10:00:00Z"), (0.5, 80.0, 1, "2026-01-01T12:00:00Z"),
                                            (0, 40.0, 6, "2026-01-01T12:05:00Z")):
                summary.append_row(path, {"setting": "emulated", "nodes": 16, "malleable_share": share, "jobs": 32,
                                          "makespan_s": 10.0, "mean_turnaround_s": turn, "seed": seed, "date": date})
            with open(doc, "w") as f:
                f.write("<!-- runs-table -->\n<!-- /runs-table -->\n")
            self.assertEqual(summary_table.main(["--csv", path, "--doc", doc]), 0)
            rows = [ln.split(" | ") for ln in read(doc).splitlines() if ln.startswith("| emulated")]
        self.assertEqual([r[10] for r in rows if r[2] == "50%"], ["1.25x"])  # seed 1's rigid, not seed 6's nearer one


class SimReport(unittest.TestCase):
    def test_table_between_markers_latest_rows_and_ratios(self):
        with tempfile.TemporaryDirectory() as d:
            path, doc = os.path.join(d, "s.csv"), os.path.join(d, "w.md")
            for share, turn in ((0, 999.0), (0, 200.0), (0.5, 100.0)):
                summary.append_row(path, {"setting": "simulated", "nodes": 1000, "malleable_share": share,
                                          "jobs": 10, "makespan_s": 50.0, "mean_turnaround_s": turn})
            summary.append_row(path, {"setting": "emulated", "nodes": 8, "malleable_share": 0.5, "jobs": 30,
                                      "mean_turnaround_s": 1.0, "makespan_s": 1.0})
            with open(doc, "w") as f:
                f.write("# t\n<!-- sim-table -->\nold\n<!-- /sim-table -->\nkept\n")
            self.assertEqual(sim_report.main(["--csv", path, "--doc", doc]), 0)
            text = read(doc)
        self.assertNotIn("old", text)
        self.assertTrue(text.endswith("<!-- /sim-table -->\nkept\n"))
        lines = [ln for ln in text.splitlines() if ln.startswith("| 1,000")]
        self.assertEqual(len(lines), 2)          # the latest rigid row only; no emulated row
        self.assertIn("| 2.00x |", lines[1])     # 200 / 100
        self.assertIn("| 1.00x |", lines[0])


class MeasuredRuntimes(unittest.TestCase):
    def test_only_rigid_drivers_take_their_measured_time(self):
        w = generate.generate(8, 6, 1, 0.0)
        w["jobs"][1]["program"] = "pdgemm"
        w["jobs"][2]["program"] = "pdgemm"
        before = [j["work_node_s"] for j in w["jobs"]]
        emu = [{"id": j["id"], "start_s": 10.0, "end_s": 21.0, "resizes": 0} for j in w["jobs"]]
        emu[2]["resizes"] = 1
        self.assertEqual(measured_runtimes.apply(w, emu), [w["jobs"][1]["id"]])
        self.assertAlmostEqual(generate.runtime_on(w["jobs"][1], w["jobs"][1]["nodes"]), 11.0, delta=0.01)
        self.assertEqual([j["work_node_s"] for k, j in enumerate(w["jobs"]) if k != 1],
                         [b for k, b in enumerate(before) if k != 1])


    def test_a_driver_that_ran_on_fewer_nodes_is_scaled_from_those(self):
        w = generate.generate(8, 2, 1, 1.0)
        j = w["jobs"][0]
        j["program"] = "pdgemm"
        emu = [{"id": j["id"], "start_s": 0.0, "end_s": 30.0, "resizes": 0, "nodes_seen": [1]}]
        measured_runtimes.apply(w, emu)
        self.assertAlmostEqual(generate.runtime_on(j, 1), 30.0, delta=0.01)

    def test_as_run_takes_submissions_limits_and_lowered_limits(self):
        w = generate.generate(8, 3, 1, 0.0)
        ids = [j["id"] for j in w["jobs"]]
        emu = [{"id": ids[0], "submit_s": 5.0}, {"id": ids[1], "submit_s": 1.0}, {"id": ids[2], "submit_s": 9.0}]
        stream = {"time_limits_min": {ids[0]: 4, ids[1]: 3, ids[2]: 2}}
        comp = (f"JobId=1 Name={ids[0]} JobState=RESIZING TimeLimit=4 \n"
                f"JobId=1 Name={ids[0]} JobState=COMPLETED TimeLimit=2 \n"
                f"JobId=2 Name={ids[1]} JobState=COMPLETED TimeLimit=3 \n")
        measured_runtimes.as_run(w, emu, stream, comp)
        self.assertEqual([j["id"] for j in w["jobs"]], [ids[1], ids[0], ids[2]])  # by submission
        by = {j["id"]: j for j in w["jobs"]}
        self.assertEqual(by[ids[0]]["limit_s"], 240.0)
        self.assertEqual(by[ids[0]]["run_limit_s"], 120.0)  # lowered at its start
        self.assertNotIn("run_limit_s", by[ids[1]])
        self.assertEqual(by[ids[2]]["submit_s"], 9.0)


class SimSide(unittest.TestCase):
    def test_fit_through_the_origin(self):
        pts = [(x, z, 0.5 * x + 2.0 * z) for x, z in [(1, 0), (3, 1), (5, 2), (2, 1)]]
        a, b = cluster_report._fit_origin(pts)
        self.assertAlmostEqual(a, 0.5)
        self.assertAlmostEqual(b, 2.0)
        self.assertIsNone(cluster_report._fit_origin([(1, 1, 1), (2, 2, 2)]))

    def test_run_flags_from_the_runs_files(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "jobs"))
            with open(os.path.join(d, "jobs", "j000.json"), "w") as f:
                json.dump({"command_line": ["x", "--lead-in"], "iterations": [{"procs": 1}]}, f)
            self.assertEqual(run_flags.flags(d), ["--start", "one", "--one-update", "on"])
            with open(os.path.join(d, "jobs", "j001.json"), "w") as f:
                json.dump({"command_line": ["x", "--lead-in"], "iterations": [{"procs": 2}]}, f)
            self.assertEqual(run_flags.flags(d)[1], "min")
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"start": "full", "accounting": True}, f)
            self.assertEqual(run_flags.flags(d), ["--start", "full", "--one-update", "off"])
            with open(os.path.join(d, "jobs", "j000.out"), "w") as f:
                f.write("[slurm] Slurm keeps no accounting (AccountingStorageType=none) ...\n")
            self.assertEqual(run_flags.flags(d)[3], "on")
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"start": "full", "accounting": True, "range": "grow"}, f)
            self.assertEqual(run_flags.flags(d)[-2:], ["--range-top", "requested"])
            # with jobcomp.txt: Slurm's 60-s planning blocks, and where time 0 fell in its
            # minute (the latest SubmitTime - submit_s: 12:00:47 - 5.6 and 12:00:50 - 8.2)
            with open(os.path.join(d, "jobs.json"), "w") as f:
                json.dump([{"id": "j000", "submit_s": 5.6}, {"id": "j001", "submit_s": 8.2}], f)
            with open(os.path.join(d, "jobcomp.txt"), "w") as f:
                f.write("JobId=1 UserId=root(0) Name=j000 JobState=COMPLETED SubmitTime=2026-11-25T12:00:47 x=y\n"
                        "JobId=2 UserId=root(0) Name=j001 JobState=COMPLETED SubmitTime=2026-11-25T12:00:50 x=y\n")
            self.assertEqual(run_flags.flags(d)[-6:], ["--range-top", "requested", "--bf-resolution", "60",
                                                       "--bf-origin", "41.80"])
            # the moldable arm: no resizes (--policy none), so no start mode but full
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"start": "recipe", "accounting": True, "policy": "moldable"}, f)
            f = run_flags.flags(d)
            self.assertEqual((f[:2], f[-2:]), (["--start", "full"], ["--policy", "none"]))
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"start": "recipe", "accounting": True, "policy": "malleable"}, f)
            self.assertEqual(run_flags.flags(d)[:2], ["--start", "recipe"])
            # the -N top as sbatch had it; the levers' arms; a moldable run before meta.json
            # named its top asked for at most its size
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"start": "recipe", "accounting": True, "policy": "moldable", "range": "requested"}, f)
            self.assertIn("--range-top requested", " ".join(run_flags.flags(d)))
            for arm, top, want in (("moldable_max", "max", "--range-top max"),
                                   ("moldable_efficient", "efficient", "--range-top efficient --range-efficiency 0.5"),
                                   ("growth", "requested", "--range-top requested"),
                                   ("giveback", "requested", "--range-top requested"),
                                   ("malleable_rule", "max", "--range-top max"),
                                   ("malleable", "max", "--range-top max")):
                with open(os.path.join(d, "meta.json"), "w") as f:
                    json.dump({"start": "recipe", "accounting": True, "policy": arm, "top": top}, f)
                got = " ".join(run_flags.flags(d))
                self.assertIn(want, got)
                # the arm whose arbiter raised the givers' limits is simulated with the rule
                self.assertEqual("--limit-follows-size" in got, arm == "malleable_rule", got)
                self.assertEqual("--policy none" in got, arm.startswith("moldable"), got)
                self.assertEqual("--no-give-back" in got, arm == "growth", got)
                self.assertEqual("--no-growth" in got, arm == "giveback", got)
                self.assertNotIn("--range-start", got)  # loose limits: one start
                # under the log's limits: Slurm's start below the range, but where the
                # arbiter raised the limit at that start (the rule's arm)
                with open(os.path.join(d, "meta.json"), "w") as f:
                    json.dump({"start": "recipe", "accounting": True, "policy": arm, "top": top, "limits": "log"}, f)
                got = " ".join(run_flags.flags(d))
                want_start = "guarded" if arm == "malleable_rule" else "slurm"
                self.assertIn(f"--range-start {want_start}", got)
                with open(os.path.join(d, "meta.json"), "w") as f:
                    json.dump({"start": "recipe", "policy": arm, "limits": "log", "range_start": "slurm"}, f)
                self.assertIn("--range-start slurm", " ".join(run_flags.flags(d)))


class SliceTable(unittest.TestCase):
    def test_decisions_name_the_most_frequent_rules_and_count_the_rest(self):
        import collections
        dec = collections.Counter({f"r{i}": 20 - i for i in range(10)})
        text = slice_table.decision_text(dec)
        self.assertTrue(text.startswith("r0 20, r1 19"), text)
        self.assertEqual(text.count(","), slice_table.MOST_RULES)
        self.assertIn(f"{sum(20 - i for i in range(slice_table.MOST_RULES, 10))} other", text)
        self.assertEqual(slice_table.decision_text(collections.Counter({"bid": 2})), "bid 2")
        self.assertEqual(slice_table.decision_text(collections.Counter()), "-")

    def test_killed_counts_the_workloads_jobs_and_the_expanders_apart(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(slice_table.timeouts(d), (0, 0))  # no accounting file: nothing known killed
            with open(os.path.join(d, "jobcomp.txt"), "w") as f:
                f.write("JobId=63 UserId=root(0) Name=malleable-expand-41 JobState=TIMEOUT TimeLimit=1\n"
                        "JobId=19 UserId=root(0) Name=j8884 JobState=TIMEOUT TimeLimit=2\n"
                        "JobId=20 UserId=root(0) Name=j8885 JobState=COMPLETED TimeLimit=2\n"
                        "JobId=21 UserId=root(0) Name=xmalleable-expand-4 JobState=TIMEOUT TimeLimit=2\n")
            self.assertEqual(slice_table.timeouts(d), (2, 1))
        self.assertEqual(slice_table.killed_text([{"killed": (2, 1)}, {"killed": (1, 0)}]), "3 (+1 expander)")
        self.assertEqual(slice_table.killed_text([{"killed": (0, 0)}]), "0")


class JobcompRecovery(unittest.TestCase):
    def test_a_job_no_poll_saw_takes_slurms_record_on_the_runs_clock(self):
        # j1 ran in the polls; j2 started and ended between two (under a second), j3 never ran
        with tempfile.TemporaryDirectory() as d:
            w = {"nodes": 4, "malleable_share": 0, "seed": 1,
                 "jobs": [{"id": i, "malleable": False, "nodes": n, "min_nodes": n, "max_nodes": n}
                          for i, n in (("j1", 2), ("j2", 1), ("j3", 1))]}
            json.dump(w, open(os.path.join(d, "workload.json"), "w"))
            json.dump({"poll_s": 1.0, "submitted": {"j1": {"t": 0.5}, "j2": {"t": 2.0}, "j3": {"t": 3.0}}},
                      open(os.path.join(d, "stream.json"), "w"))
            with open(os.path.join(d, "timeline.tsv"), "w") as f:
                f.write("t\tjob\tname\tstate\tnodes\tnodelist\n")
                for t in (1.0, 2.0, 3.0, 4.0):
                    f.write(f"{t}\t7\tj1\tRUNNING\t2\tnode[1-2]\n")
            # time 0 of the run is epoch 1764331200 (2025-11-28T12:00:00 UTC)
            with open(os.path.join(d, "submitted.tsv"), "w") as f:
                f.write("id\tslurm_id\tt\tepoch\n7\t7\t0.5\t1764331200.5\n8\t8\t2.0\t1764331202.0\n")
            with open(os.path.join(d, "jobcomp.txt"), "w") as f:
                f.write("JobId=8 UserId=root(0) Name=j2 JobState=COMPLETED StartTime=2025-11-28T12:00:05 "
                        "EndTime=2025-11-28T12:00:06 NodeList=node3 NodeCnt=1 SubmitTime=2025-11-28T12:00:02\n")
            _, _, jobs = cluster_report.load_run(d)
            by = {j["id"]: j for j in jobs}
            self.assertNotIn("from_jobcomp", by["j1"])
            self.assertEqual((by["j2"]["start_s"], by["j2"]["end_s"], by["j2"]["node_s"]), (5.0, 6.0, 1.0))
            self.assertTrue(by["j2"]["from_jobcomp"])
            self.assertTrue(by["j3"].get("missing"))
            self.assertEqual(cluster_report.run_date(d), "2025-11-28T12:00:02Z")


class Compare(unittest.TestCase):
    def test_relative_errors_and_target(self):
        sim = {"makespan_s": 110.0, "mean_wait_s": 5.0, "mean_turnaround_s": 40.0, "median_wait_s": 0.0}
        emu = {"makespan_s": 100.0, "mean_wait_s": 10.0, "mean_turnaround_s": 40.0, "median_wait_s": 0.0}
        rows = {m: (err, ok) for m, _, _, err, ok in compare.compare(sim, emu, 0.15)}
        self.assertAlmostEqual(rows["makespan_s"][0], 0.10)
        self.assertTrue(rows["makespan_s"][1])
        self.assertAlmostEqual(rows["mean_wait_s"][0], -0.5)
        self.assertFalse(rows["mean_wait_s"][1])
        self.assertEqual(rows["median_wait_s"], (None, None))   # emulated 0: not compared
        self.assertEqual(rows["utilisation"], (None, None))     # missing on both sides

    def test_from_summary_csv_and_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.csv")
            for setting, t in (("emulated", 100.0), ("simulated", 1.0), ("emulated", 50.0)):
                summary.append_row(path, {"setting": setting, "nodes": 8, "malleable_share": 0.5, "jobs": 30,
                                          "mean_turnaround_s": t, "makespan_s": 1000.0})
            self.assertEqual(compare.emulated_from_csv(path, 8, 0.5)["mean_turnaround_s"], 50.0)  # the latest
            # Rows of another node range are not taken (the latest row is "requested").
            summary.append_row(path, {"setting": "emulated", "nodes": 8, "malleable_share": 0.5, "jobs": 30,
                                      "range": "grow", "mean_turnaround_s": 40.0, "makespan_s": 900.0})
            summary.append_row(path, {"setting": "emulated", "nodes": 8, "malleable_share": 0.5, "jobs": 30,
                                      "range": "requested", "mean_turnaround_s": 60.0, "makespan_s": 950.0})
            self.assertEqual(compare.emulated_from_csv(path, 8, 0.5)["mean_turnaround_s"], 60.0)
            self.assertEqual(compare.emulated_from_csv(path, 8, 0.5, "grow")["mean_turnaround_s"], 40.0)
            with self.assertRaises(ValueError):
                compare.emulated_from_csv(path, 8, 0.5, "double")
            with self.assertRaises(ValueError):
                compare.emulated_from_csv(path, 16, 0.5)
            sim = os.path.join(d, "sim.json")
            with open(sim, "w") as f:
                json.dump({"mean_turnaround_s": 52.0, "makespan_s": 1010.0}, f)
            cmd = [sys.executable, os.path.join(SCRIPTS, "compare.py"), "--sim", sim, "--csv", path,
                   "--nodes", "8", "--share", "0.5"]
            self.assertEqual(subprocess.run(cmd, capture_output=True).returncode, 0)
            with open(sim, "w") as f:
                json.dump({"mean_turnaround_s": 80.0, "makespan_s": 1010.0}, f)
            self.assertEqual(subprocess.run(cmd, capture_output=True).returncode, 1)
            self.assertEqual(subprocess.run(cmd[:4], capture_output=True).returncode, 2)


class ReplayGap(unittest.TestCase):
    # id -> (submit, start, run, processors) on a 5-processor machine: a (3 processors) runs
    # [0, 100); b (2) is submitted at 10 and waits until 100 though 2 are free; c (1), submitted
    # at 20, starts at once: it passes over b; d (1), submitted at 30, starts at 40, after c's
    # end at 35 left 2 free: it passes over b too.
    JOBS = {"a": (0, 0, 100, 3), "b": (10, 100, 10, 2), "c": (20, 20, 15, 1), "d": (30, 40, 10, 1)}
    LOG = {"a": (0, 3, 100), "b": (90, 2, 50), "c": (0, 1, 20), "d": (10, 1, 60)}

    def test_passed_over(self):
        count, larger, longer = replay_gap.passed_over(self.JOBS, 5, self.LOG)
        # both over b, larger than either; b asked for longer than c (50 > 20), not than d (60)
        self.assertEqual((count, larger, longer), (2, 2, 1))
        # On a machine of 4 processors b never fits beside a: no start passes over a job that fit.
        self.assertEqual(replay_gap.passed_over(self.JOBS, 4, self.LOG)[0], 0)

    def test_free_while_waiting(self):
        free = replay_gap.free_while_waiting(self.JOBS, 5)
        # b waits [10, 100): 2 free in [10, 20), [35, 40) (c ended, d not started), [50, 100)
        self.assertEqual(free["b"], 10 + 5 + 50)
        self.assertEqual(free["d"], 10)  # d waits [30, 40): 1 free until 35, then 2
        self.assertEqual(replay_gap.free_while_waiting(self.JOBS, 4)["b"], 0)  # never 2 free beside a
        self.assertEqual(free["a"], 0)


class LimitExtensions(unittest.TestCase):
    def test_ranges_over_the_seeds(self):
        with tempfile.TemporaryDirectory() as d:
            runs = {"malleable_0.5_s1.json": {"limit_extensions": 10, "limit_extension_s": 1000.0,
                                              "limit_extensions_capped": 2, "limit_extension_capped_s": 1000.0},
                    "malleable_0.5_s2.json": {"limit_extensions": 20, "limit_extension_s": 4000.0, "killed": 1},
                    "moldable_0.5_s1.json": {"limit_extensions": 0, "limit_extension_s": 0.0}}
            for name, m in runs.items():
                with open(os.path.join(d, name), "w") as f:
                    json.dump(m, f)
            rows = limit_extensions.rows(d)
            self.assertEqual([arm for arm, _ in rows], ["malleable_0.5"])  # no extension: left out
            ext, mean, capped, share, killed = limit_extensions.summary(rows[0][1])
            self.assertEqual((ext, mean, capped, killed), ((10, 20), (100.0, 200.0), (0, 2), 1))
            self.assertEqual(share, (0.0, 0.5))  # seed 1: 1,000 s cut of 2,000 s


class SliceScan(unittest.TestCase):
    def row(self, first, seed, rigid_wait, rigid_run, makespan, moldable, moldable_max, rule, norule):
        r = {c: (0 if c.endswith("_killed") else 0.0) for c in slice_scan.COLS}
        r.update(first=first, seed=seed, jobs=60, malleable=30, rigid_run_s=rigid_run, rigid_makespan_s=makespan,
                 rigid_turnaround_s=rigid_wait + rigid_run, rigid_wait_s=rigid_wait, moldable_turnaround_s=moldable,
                 moldable_max_turnaround_s=moldable_max, moldable_efficient_turnaround_s=1e9,
                 malleable_rule_turnaround_s=rule, malleable_turnaround_s=norule)
        return r

    def test_the_rule_picks(self):
        rows = []
        for seed in (1, 2, 3):
            rows.append(self.row(100, seed, 50, 40, 900, 100, 90, 75, 85))           # gain 1.2: the gain pick
            rows.append(self.row(160, seed, 50, 40, 900, 100, 120, [98, 102, 100][seed - 1], 100))  # holds 1.0
            rows.append(self.row(220, seed, 10, 40, 900, 100, 100, 50, 50))          # gain 2, no queue
            rows.append(self.row(280, seed, 50, 40, 5000, 100, 100, 50, 50))         # gain 2, too long
            rows.append(self.row(340, seed, 50, 40, 900, 100, 100, 100.001, 100.001))  # nearer 1.0, seeds do not hold it
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "scan.tsv")
            with open(path, "w") as f:
                f.write("\t".join(slice_scan.COLS) + "\n")
                for r in rows:
                    f.write("\t".join(str(r[c]) for c in slice_scan.COLS) + "\n")
            ws = slice_scan.windows(slice_scan.read_scan(path), 1800)
        by = {w["first"]: w for w in ws}
        self.assertEqual(by[100]["best"], "moldable_max")
        self.assertAlmostEqual(by[100]["gain"], 1.2)
        self.assertFalse(by[220]["eligible"])  # no queue
        self.assertFalse(by[280]["eligible"])  # its rigid makespan past 1,800 s
        gain, same, holds = slice_scan.choose(ws)
        self.assertEqual(gain["first"], 100)
        self.assertEqual(same["first"], 160)  # 340 is nearer 1.0 in the mean but its seeds do not hold 1.0
        self.assertTrue(holds)
        self.assertIsNone(slice_scan.choose([w for w in ws if not w["eligible"]]))

    def write(self, d, rows, cols):
        path = os.path.join(d, "scan.tsv")
        with open(path, "w") as f:
            f.write("\t".join(cols) + "\n")
            for r in rows:
                f.write("\t".join(str(r[c]) for c in cols) + "\n")
        return path

    def test_kills_are_read_and_an_older_scan_still_is(self):
        rows = [dict(self.row(100, s, 50, 40, 900, 100, 90, 75, 85), moldable_max_killed=s - 1, malleable_killed=1)
                for s in (1, 2, 3)]
        with tempfile.TemporaryDirectory() as d:
            w = slice_scan.windows(slice_scan.read_scan(self.write(d, rows, slice_scan.COLS)), 1800)[0]
            self.assertEqual((w["killed_best"], w["killed_norule"], w["killed_rule"]), (1.0, 1.0, 0.0))
            old = slice_scan.windows(slice_scan.read_scan(self.write(d, rows, slice_scan.COLS_V1)), 1800)[0]
            self.assertAlmostEqual(old["gain"], w["gain"])
            self.assertIsNone(old["killed_best"])  # a scan before the kill columns: no kill figures
            with open(os.path.join(d, "scan.tsv"), "a") as f:
                f.write("100\t1\n")
            with self.assertRaises(SystemExit):  # a short line is refused, not guessed
                slice_scan.read_scan(os.path.join(d, "scan.tsv"))

    def test_slurm_start_in_every_arm_but_the_rules(self):
        self.assertEqual(slice_scan.start_flags("rigid", "slurm"), [])
        self.assertEqual(slice_scan.start_flags("moldable_max", "slurm"), ["--range-start", "slurm"])
        self.assertEqual(slice_scan.start_flags("malleable", "slurm"), ["--range-start", "slurm"])
        self.assertEqual(slice_scan.start_flags("malleable_rule", "slurm"), ["--range-start", "guarded"])
        self.assertEqual(slice_scan.start_flags("moldable", "guarded"), ["--range-start", "guarded"])

    def test_limits_as_submitted(self):
        job = {"nodes": 2, "min_nodes": 1, "serial_fraction": 0.0, "work_node_s": 100.0, "limit_s": 3000.0,
               "recorded_run_s": 1000.0}  # runs 50 s on 2 nodes; the log's limit was 3x its run
        w = slice_scan.set_limits({"jobs": [dict(job)]}, "log")
        self.assertEqual(w["jobs"][0]["limit_s"], 180.0)  # 150 s, up to whole minutes
        w = slice_scan.set_limits({"jobs": [dict(job, limit_s=500.0)]}, "log")
        self.assertEqual(w["jobs"][0]["limit_s"], 60.0)  # never below the run itself (50 s), a minute at least
        w = slice_scan.set_limits({"jobs": [dict(job)]}, "loose")
        self.assertEqual(w["jobs"][0]["limit_s"], 300.0)  # 2 * 100 s on its minimum + 60 s


if __name__ == "__main__":
    unittest.main(verbosity=1)
