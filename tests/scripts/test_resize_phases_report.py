#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of scripts/bench/resize_phases_report.py on a made-up data directory: the
cluster rows' ratio over the raw spawn of a job started on node1 alone with add-host, the
move over `redistribute`'s median warm call, their spread over the rounds, the columns of
summary.csv and the section's tables; older runs without those files keep their other
figures and leave the new ones empty."""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts", "bench")
sys.path.insert(0, SCRIPTS)
import resize_phases_report as rp  # noqa: E402


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def make_row(data, name, rounds, total, bound, addhost_first, med=True):
    """One row's directory: per round r the resize (spawn 0.4 s, move 1.0 s, total
    total[r]), a fresh job, the redist bench's two cases and the raw spawns; addhost_first[r]
    None: no add-host files (a node row, or a run made before they were measured)."""
    d = os.path.join(data, name)
    os.makedirs(d)
    write(os.path.join(d, "meta.txt"), "load_before 0.10 0.20 0.30\n")
    for r in range(1, rounds + 1):
        its = [{"iteration": i, "wall_s": 1.0 + 0.01 * i, "dedicated_s": 0.9} for i in range(4)]
        resize = {"resizes": [{"ok": True, "t_spawn_s": 0.4, "t_redist_s": 1.0, "t_other_s": total[r - 1] - 1.4,
                               "t_total_s": total[r - 1], "bytes_moved": 1e8, "bytes_inter_node": 5e7,
                               "after_iteration": 1}], "iterations": its}
        write(os.path.join(d, f"resize.{r}.json"), json.dumps(resize))
        write(os.path.join(d, f"fresh.{r}.json"), json.dumps({"iterations": its}))
        cases = [{"redist_s": 0.40, "redist_cold_s": 0.60, "floor_s": 0.01, "link_bound_s": bound / 2},
                 {"redist_s": 0.40, "redist_cold_s": 0.60, "floor_s": 0.01, "link_bound_s": bound / 2}]
        if med:  # the median warm call: 0.5 s a case, 1.0 s in all
            for c in cases:
                c["redist_med_s"] = 0.50
                c["redist_touched_s"] = 0.25  # the first call into touched arrays: 0.5 s in all
        write(os.path.join(d, f"redist.{r}.json"), json.dumps(cases))
        write(os.path.join(d, f"raw.{r}.txt"), "raw_spawn_merge_ms 2 250.0 260.0\n")
        write(os.path.join(d, f"rawlibs.{r}.txt"), "raw_spawn_merge_ms 2 255.0 270.0\n")
        if addhost_first[r - 1] is not None:
            write(os.path.join(d, f"raw_addhost.{r}.txt"), f"raw_spawn_merge_ms 2 300.0 {addhost_first[r - 1] * 1e3}\n")
            write(os.path.join(d, f"rawlibs_addhost.{r}.txt"), "raw_spawn_merge_ms 2 310.0 380.0\n")


class Report(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.data = self.tmp.name
        # cluster: 3 rounds, totals 2.0/2.2/2.4 s, link bound 1.0 s, add-host first spawns 0.35/0.40/0.30 s
        make_row(self.data, "pdgemm_1600_cluster", 3, [2.0, 2.2, 2.4], 1.0, [0.35, 0.40, 0.30])
        make_row(self.data, "pdgemm_1600_node", 1, [1.8], 0.0, [None])
        make_row(self.data, "pdgetrf_1600_cluster", 1, [2.0], 1.0, [None], med=False)  # an older run
        write(os.path.join(self.data, "meta.txt"), "commit abcdef1\ndate 2026-11-26T07:00:00Z\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_addhost_ratio_per_round(self):
        row = rp.row_of(self.data, "pdgemm_1600_cluster")
        per_round = [2.0 / (0.35 + 1.0), 2.2 / (0.40 + 1.0), 2.4 / (0.30 + 1.0)]
        self.assertAlmostEqual(row["raw_addhost_first_s"], 0.35)
        self.assertAlmostEqual(row["raw_addhost_s"], 0.30)
        self.assertAlmostEqual(row["raw_libs_addhost_first_s"], 0.38)
        self.assertAlmostEqual(row["resize_over_addhost_spawn_plus_bound"], sorted(per_round)[1])
        self.assertAlmostEqual(row["resize_over_addhost_spawn_plus_bound_min"], min(per_round))
        self.assertAlmostEqual(row["resize_over_addhost_spawn_plus_bound_max"], max(per_round))
        self.assertAlmostEqual(row["spawn_over_raw_addhost_first"], 0.4 / 0.35)
        # the pool baseline is kept: the median raw spawn of the job with both nodes
        self.assertAlmostEqual(row["resize_over_spawn_plus_bound"], 2.2 / (0.25 + 1.0))

    def test_move_over_median_beside_best(self):
        row = rp.row_of(self.data, "pdgemm_1600_cluster")
        self.assertAlmostEqual(row["redistribute_s"], 0.8)
        self.assertAlmostEqual(row["redistribute_med_s"], 1.0)
        self.assertAlmostEqual(row["move_over_redistribute"], 1.0 / 0.8)
        self.assertAlmostEqual(row["move_over_redistribute_median"], 1.0)
        self.assertAlmostEqual(row["move_over_redistribute_median_min"], 1.0)
        self.assertAlmostEqual(row["redistribute_touched_s"], 0.5)
        self.assertAlmostEqual(row["move_over_redistribute_touched"], 2.0)
        self.assertAlmostEqual(row["move_over_redistribute_touched_max"], 2.0)

    def test_older_runs_leave_the_new_columns_empty(self):
        node = rp.row_of(self.data, "pdgemm_1600_node")
        old = rp.row_of(self.data, "pdgetrf_1600_cluster")
        for k in ("raw_addhost_first_s", "resize_over_addhost_spawn_plus_bound"):
            self.assertNotIn(k, node)
            self.assertNotIn(k, old)
        self.assertNotIn("move_over_redistribute_median", old)
        self.assertNotIn("move_over_redistribute_touched", old)
        self.assertAlmostEqual(old["move_over_redistribute"], 1.0 / 0.8)
        self.assertAlmostEqual(old["resize_over_spawn_plus_bound"], 2.0 / 1.25)

    def test_summary_and_section(self):
        subprocess.run([sys.executable, os.path.join(SCRIPTS, "resize_phases_report.py"), "--data", self.data,
                        "--section"], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, "summary.csv")) as f:
            rows = list(csv.DictReader(f))
        cols = rows[0].keys()
        for c in ("move_over_redistribute", "resize_over_spawn_plus_bound", "after_over_fresh", "raw_addhost_first_s",
                  "resize_over_addhost_spawn_plus_bound", "resize_over_addhost_spawn_plus_bound_min",
                  "resize_over_addhost_spawn_plus_bound_max", "move_over_redistribute_median",
                  "move_over_redistribute_median_min", "move_over_redistribute_median_max",
                  "move_over_redistribute_touched"):
            self.assertIn(c, cols)
        by = {(r["driver"], r["setting"]): r for r in rows}
        self.assertEqual(by[("pdgemm", "cluster")]["raw_addhost_first_s"], "0.3500")
        self.assertEqual(by[("pdgemm", "cluster")]["resize_over_addhost_spawn_plus_bound"], f"{2.2 / 1.4:.4f}")
        self.assertEqual(by[("pdgemm", "cluster")]["move_over_redistribute_median"], "1.0000")
        self.assertEqual(by[("pdgemm", "node")]["resize_over_addhost_spawn_plus_bound"], "")
        with open(os.path.join(self.data, "section.md")) as f:
            text = f.read()
        self.assertIn("resize / (add-host first spawn + bound)", text)
        self.assertIn("move / redist. (warm median)", text)
        self.assertIn("like-for-like", text)
        self.assertIn("### The cluster's raw spawn: two baselines", text)
        line = next(l for l in text.splitlines() if l.startswith("| pdgemm | 1600 | cluster | node |"))
        per = [2.0 / 1.35, 2.2 / 1.4, 2.4 / 1.3]  # the add-host ratio per round: its median, min and max
        self.assertIn(f"| {sorted(per)[1]:.2f}x ({min(per):.2f}-{max(per):.2f}) |", line)
        self.assertIn("| 250 / 350 |", line)  # raw spawn: median of the pool job / first of the add-host job
        self.assertIn("| 800 / 1000 / 1200 |", line)  # redistribute warm best / warm median / cold


if __name__ == "__main__":
    unittest.main()
