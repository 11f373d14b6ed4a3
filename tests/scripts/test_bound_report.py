#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of scripts/bench/bound_report.py on made-up text and rows: the median, the
load and runnable-count parsers, the quiet rule, and the table's fractions of the
single-copy bound (best and median) with the row's load. No timing, no MPI."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts", "bench")
sys.path.insert(0, SCRIPTS)
import bound_report as br  # noqa: E402

STAT = "cpu  1 2 3\nctxt 5\nprocs_running 3\nprocs_blocked 0\n"


def row(**kw):
    r = {"change": "64@1x2:100@1x2", "mib_per_rank": 64, "kept_bytes_by_rank": [2**20, 2 * 2**20],
         "moved_bytes_by_rank": [3 * 2**20, 2**20], "copy_Bps": 1e10, "single_copy_bound_s": 0.01,
         "redist_s": 0.02, "redist_median_s": 0.04, "pdgemr2d_s": 0.1, "pdgemr2d_median_s": 0.2,
         "costa_s": None, "costa_median_s": None, "load1_before": 1.5, "load1_after": 2.25,
         "runnable_others": 0.0, "quiet": True}
    r.update(kw)
    return r


class Stats(unittest.TestCase):
    def test_median(self):
        self.assertEqual(br.median([3, 1, 2]), 2)
        self.assertEqual(br.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(br.median([5]), 5)
        self.assertIsNone(br.median([]))
        self.assertEqual(br.median([None, 1, 3]), 2)

    def test_parse_loadavg(self):
        self.assertEqual(br.parse_loadavg("1.96 2.98 3.37 3/412 9999\n"), (1.96, 3, 412))

    def test_parse_procs_running(self):
        self.assertEqual(br.parse_procs_running(STAT), 3)
        self.assertIsNone(br.parse_procs_running("cpu 1 2\n"))

    def test_quiet_rule(self):
        self.assertTrue(br.is_quiet(1.9, 0, 2, 2))
        self.assertFalse(br.is_quiet(1.9, 1, 2, 2))      # one other runnable, no core free
        self.assertTrue(br.is_quiet(1.9, 14, 2, 16))     # 14 others fit 14 free cores
        self.assertFalse(br.is_quiet(2.5, 0, 2, 16))     # load above the ranks
        self.assertTrue(br.is_quiet(None, 0, 2, 2))
        self.assertFalse(br.is_quiet(0.1, None, 2, 2))   # unread: not quiet


class Table(unittest.TestCase):
    def test_fractions_best_and_median(self):
        cells = br.row_cells(row())
        col = dict(zip(br.COLUMNS, cells))
        self.assertEqual(col["redist / bound best"], "0.50")
        self.assertEqual(col["redist / bound median"], "0.25")
        self.assertEqual(col["PDGEMR2D / bound best"], "0.10")
        self.assertEqual(col["PDGEMR2D / bound median"], "0.05")
        self.assertEqual(col["COSTA / bound best"], "-")
        self.assertEqual(col["kept MiB"], "2.00")
        self.assertEqual(col["moved MiB"], "3.00")
        self.assertEqual(col["load1 before-after"], "1.50-2.25")
        self.assertEqual(col["quiet"], "yes")

    def test_costa_and_loaded(self):
        col = dict(zip(br.COLUMNS, br.row_cells(row(costa_s=0.04, costa_median_s=0.05, quiet=False))))
        self.assertEqual(col["COSTA / bound best"], "0.25")
        self.assertEqual(col["COSTA / bound median"], "0.20")
        self.assertEqual(col["quiet"], "**no**")
        col = dict(zip(br.COLUMNS, br.row_cells(row(costa_s="error: x", costa_median_s="error: x"))))
        self.assertEqual(col["COSTA / bound best"], "-")

    def test_old_rows_without_medians(self):
        r = row()
        for k in ("redist_median_s", "pdgemr2d_median_s", "load1_before", "load1_after", "runnable_others", "quiet"):
            del r[k]
        col = dict(zip(br.COLUMNS, br.row_cells(r)))
        self.assertEqual(col["redist / bound median"], "-")
        self.assertEqual(col["quiet"], "-")

    def test_heading_and_command(self):
        h = br.heading(["# machine: vm, 2 cores", "# commit abc1234"], [row(), row(quiet=False, load1_after=3.0)])
        self.assertIn("machine: vm, 2 cores", h)
        self.assertIn("commit abc1234", h)
        self.assertIn("load1 1.50-3.00", h)
        self.assertIn("1 of 2 rows quiet", h)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "bound.json"), "w") as f:
                json.dump({"rows": [row()]}, f)
            out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "bound_report.py"), "table", d],
                                 capture_output=True, text=True, check=True).stdout
            self.assertIn("| `64@1x2:100@1x2` | 64 |", out)


if __name__ == "__main__":
    unittest.main()
