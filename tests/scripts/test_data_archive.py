#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of scripts/bench/data_archive.py on a made-up study: packing moves exactly the
raw runs its rule names into runs.tar.xz and leaves the summaries; the same files pack to
the same bytes; members read back by path; a rerun's loose folder replaces its packed copy
(no stale round survives) and a loose file its member; unpacked() shows the rerun over the
archive; unpack restores the files; a folder that is no study is left alone; and
resize_phases_report.py renders the same summary.csv from the packed study as from the
loose one."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts", "bench")
sys.path.insert(0, SCRIPTS)
import data_archive as da  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tree(d):
    out = {}
    for base, _, files in os.walk(d):
        for f in files:
            p = os.path.join(base, f)
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return out


class DataArchive(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = os.path.join(self.tmp.name, "docs", "data", "redist_shapes")
        write(os.path.join(self.d, "section.md"), "## S\n")
        write(os.path.join(self.d, "runs.tsv"), "case\n0\n")
        write(os.path.join(self.d, "case0.cma.json"), '[{"t": 1.5}]')
        write(os.path.join(self.d, "case1.none.json"), '[{"t": 2.5}]')

    def tearDown(self):
        self.tmp.cleanup()

    def test_pack_read_unpack(self):
        before = tree(self.d)
        n, moved = da.pack(self.d)
        self.assertEqual((n, moved), (2, 2))
        self.assertEqual(sorted(os.listdir(self.d)), ["runs.tar.xz", "runs.tsv", "section.md"])
        first = open(os.path.join(self.d, da.ARCHIVE), "rb").read()
        self.assertEqual(da.read_text(os.path.join(self.d, "case0.cma.json")), '[{"t": 1.5}]')
        self.assertTrue(da.exists(os.path.join(self.d, "case1.none.json")))
        self.assertFalse(da.exists(os.path.join(self.d, "case2.none.json")))
        self.assertEqual(da.glob_members(os.path.join(self.d, "case*.json")),
                         [os.path.join(self.d, "case0.cma.json"), os.path.join(self.d, "case1.none.json")])
        # a rerun of case 0: its loose file replaces the member
        write(os.path.join(self.d, "case0.cma.json"), '[{"t": 9.5}]')
        with da.unpacked(self.d) as src:
            self.assertEqual(open(os.path.join(src, "case0.cma.json")).read(), '[{"t": 9.5}]')
            self.assertEqual(open(os.path.join(src, "case1.none.json")).read(), '[{"t": 2.5}]')
        da.pack(self.d)
        self.assertEqual(da.read_text(os.path.join(self.d, "case0.cma.json")), '[{"t": 9.5}]')
        # deterministic: the original files pack to the original bytes
        write(os.path.join(self.d, "case0.cma.json"), '[{"t": 1.5}]')
        da.pack(self.d)
        self.assertEqual(open(os.path.join(self.d, da.ARCHIVE), "rb").read(), first)
        da.unpack(self.d)
        self.assertEqual(tree(self.d), before)

    def test_rerun_folder_replaces_packed_folder(self):
        d = os.path.join(self.tmp.name, "docs", "data", "resize_phases")
        write(os.path.join(d, "summary.csv"), "x\n")
        for r in (1, 2, 3):
            write(os.path.join(d, "pdgemm_4000_node", f"resize.{r}.json"), "{}")
        da.pack(d)
        self.assertEqual(sorted(os.listdir(d)), ["runs.tar.xz", "summary.csv"])
        for r in (1, 2):  # the rerun has two rounds
            write(os.path.join(d, "pdgemm_4000_node", f"resize.{r}.json"), '{"new": 1}')
        with da.unpacked(d) as src:
            self.assertEqual(sorted(os.listdir(os.path.join(src, "pdgemm_4000_node"))),
                             ["resize.1.json", "resize.2.json"])
        da.pack(d)
        self.assertEqual(sorted(da.members(os.path.join(d, da.ARCHIVE))),
                         ["pdgemm_4000_node/resize.1.json", "pdgemm_4000_node/resize.2.json"])
        self.assertFalse(os.path.exists(os.path.join(d, "pdgemm_4000_node")))

    def test_retire_drops_a_folder_the_history_keeps(self):
        d = os.path.join(self.tmp.name, "docs", "data", "resize_phases")
        for f in ("old_run", "new_run"):
            write(os.path.join(d, f, "resize.1.json"), "{}")
        da.pack(d)
        self.assertEqual(da.retire(d, ["old_run/"]), 1)
        self.assertEqual(sorted(da.members(os.path.join(d, da.ARCHIVE))), ["new_run/resize.1.json"])
        before = open(os.path.join(d, da.ARCHIVE), "rb").read()
        for bad in (["old_run"], ["../x"], [""]):  # gone already, outside, empty: refused, nothing written
            with self.assertRaises(SystemExit):
                da.retire(d, bad)
        write(os.path.join(d, "new_run", "resize.2.json"), "{}")  # loose beside its packed copy
        with self.assertRaises(SystemExit):
            da.retire(d, ["new_run"])
        self.assertEqual(open(os.path.join(d, da.ARCHIVE), "rb").read(), before)

    def test_path_patterns(self):
        # a pattern with "/" matches the whole path (the workload arms' per-seed metrics and
        # their rigid run's and trace report's JSON); the arms' summaries stay loose
        pats = da.STUDIES["workload"]
        self.assertTrue(da.packed("arms/kth-sp2/malleable_0.5_s1.json", pats))
        self.assertTrue(da.packed("arms/kth-sp2/moldable_efficient_1.0_s12.json", pats))
        self.assertTrue(da.packed("arms/kth-sp2/replay.json", pats))
        self.assertTrue(da.packed("arms/kth-sp2/rigid.json", pats))
        for loose in ("arms/kth-sp2/arms.md", "arms/kth-sp2/runs.tsv", "arms/limit_extensions.md",
                      "speedup/life_n2048_1x1.json", "ground_truth/kth-sp2_3000/ground_truth.json"):
            self.assertFalse(da.packed(loose, pats), loose)
        self.assertTrue(da.packed("emulated_16n/share_0.5/jobs/1.json", pats))

    def test_no_study_left_alone(self):
        d = os.path.join(self.tmp.name, "out")
        write(os.path.join(d, "a.json"), "{}")
        self.assertEqual(da.pack(d), (None, 0))
        self.assertEqual(os.listdir(d), ["a.json"])

    def test_report_reads_the_archive(self):
        sys.path.insert(0, HERE)
        import test_resize_phases_report as t
        d = os.path.join(self.tmp.name, "docs", "data", "resize_phases")
        os.makedirs(d)
        t.make_row(d, "pdgemm_1600_cluster", 3, [2.0, 2.2, 2.4], 1.0, [0.35, 0.40, 0.30])
        t.make_row(d, "pdgemm_1600_node", 1, [1.8], 0.0, [None])
        report = [sys.executable, os.path.join(SCRIPTS, "resize_phases_report.py"), "--data", d]
        subprocess.run(report, check=True, capture_output=True)
        loose = open(os.path.join(d, "summary.csv")).read()
        da.pack(d)
        self.assertEqual(sorted(os.listdir(d)), ["runs.tar.xz", "summary.csv"])
        os.remove(os.path.join(d, "summary.csv"))
        subprocess.run(report, check=True, capture_output=True)
        self.assertEqual(open(os.path.join(d, "summary.csv")).read(), loose)

    def test_workload_runs_read_through_the_archive(self):
        """docs/data/workload: whole run folders (share_<s>/ with jobs/ two levels down) are
        packed, no empty folder is left, a run folder reads back under its own name, a
        pattern names the packed runs, and cluster_report.py's table is the same packed."""
        d = os.path.join(self.tmp.name, "docs", "data", "workload")
        write(os.path.join(d, "summary.csv"), "setting\n")
        keys = dict(jobs=2, makespan_s=10.0, mean_wait_s=1.0, median_wait_s=1.0, mean_turnaround_s=5.0,
                    bounded_slowdown=1.2, utilisation=0.5, resizes_per_job=0.0, resize_time_s_per_job=0.0,
                    slurm_rpcs_per_job_minute=1.0)
        for share, turnaround in (("0", 5.0), ("0.5", 4.0)):
            run = os.path.join(d, "emulated_x", f"share_{share}")
            write(os.path.join(run, "metrics.json"),
                  json.dumps(dict(keys, malleable_share=float(share), mean_turnaround_s=turnaround)))
            write(os.path.join(run, "jobs", "j000.json"), "{}")
            write(os.path.join(run, "shared", "log", "1.jsonl"), "{}\n")
        report = [sys.executable, os.path.join(SCRIPTS, "workload", "cluster_report.py"), "table"]
        loose = subprocess.run(report + da.expand(os.path.join(d, "emulated_x", "share_*")),
                               check=True, capture_output=True, text=True).stdout
        self.assertIn("| 1.25x |", loose)
        self.assertEqual(da.study_root(os.path.join(d, "emulated_x", "share_0")), os.path.abspath(d))
        self.assertEqual(da.pack(d), (6, 6))
        self.assertEqual(sorted(os.listdir(d)), ["runs.tar.xz", "summary.csv"])
        runs = da.expand(os.path.join(d, "emulated_x", "share_*"))
        self.assertEqual(runs, [os.path.join(d, "emulated_x", "share_0"), os.path.join(d, "emulated_x", "share_0.5")])
        with da.readable(runs[1]) as r:
            self.assertEqual(os.path.basename(r), "share_0.5")
            self.assertEqual(sorted(tree(r)), ["jobs/j000.json", "metrics.json", "shared/log/1.jsonl"])
        packed = subprocess.run(report + [os.path.join(d, "emulated_x", "share_*")],
                                check=True, capture_output=True, text=True).stdout
        self.assertEqual(packed, loose)
        # a rerun of one share unpacks the study, writes, and packs it again
        da.unpack(d)
        write(os.path.join(d, "emulated_x", "share_0.5", "jobs", "j001.json"), "{}")
        self.assertEqual(da.pack(d), (7, 7))
        self.assertTrue(da.exists(os.path.join(d, "emulated_x", "share_0.5", "jobs", "j001.json")))


if __name__ == "__main__":
    unittest.main()
