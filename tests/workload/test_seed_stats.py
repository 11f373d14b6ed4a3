#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of scripts/bench/workload/seed_stats.py: the t quantiles, the mean's 95%
interval against values computed by hand, the paired per-seed ratios, the verdict ("no
difference" when the interval holds 1.0) and the report on a small runs table; and of
fit_speedup.py's fit (exact curves recovered, parameters kept >= 0)."""
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "bench", "workload"))
import fit_speedup  # noqa: E402
import seed_stats  # noqa: E402


class Interval(unittest.TestCase):
    def test_t_quantiles(self):
        self.assertAlmostEqual(seed_stats.t975(1), 12.706)
        self.assertAlmostEqual(seed_stats.t975(4), 2.776)
        self.assertAlmostEqual(seed_stats.t975(35), 2.021)
        self.assertAlmostEqual(seed_stats.t975(1000), 1.960)
        with self.assertRaises(ValueError):
            seed_stats.t975(0)

    def test_mean_interval_by_hand(self):
        # 1, 2, 3, 4, 5: mean 3, sample sd sqrt(2.5), t(4) = 2.776: half width 2.776 * 1.5811 / 2.2361
        m, lo, hi = seed_stats.mean_ci([1, 2, 3, 4, 5])
        self.assertAlmostEqual(m, 3.0)
        half = 2.776 * (2.5 ** 0.5) / (5 ** 0.5)
        self.assertAlmostEqual(lo, 3 - half, places=9)
        self.assertAlmostEqual(hi, 3 + half, places=9)
        m, lo, hi = seed_stats.mean_ci([1.2, 1.2, 1.2])
        self.assertEqual((lo, hi), (1.2, 1.2))
        with self.assertRaises(ValueError):
            seed_stats.mean_ci([1.0])

    def test_verdict(self):
        self.assertEqual(seed_stats.verdict(1.01, 1.3), "better")
        self.assertEqual(seed_stats.verdict(0.95, 1.3), "no difference")
        self.assertEqual(seed_stats.verdict(1.0, 1.3), "no difference")  # 1.0 inside: no difference
        self.assertEqual(seed_stats.verdict(0.8, 0.99), "worse")

    def test_paired_ratios(self):
        base = {1: 100.0, 2: 200.0, 3: 300.0}
        arm = {1: 50.0, 2: 100.0, 3: 200.0, 4: 10.0}  # seed 4 has no base: left out
        self.assertEqual(seed_stats.paired_ratios(base, arm), [2.0, 2.0, 1.5])
        self.assertEqual(seed_stats.paired_ratios({None: 90.0}, {1: 30.0, 2: 45.0}), [3.0, 2.0])


class Report(unittest.TestCase):
    def test_small_table(self):
        cols = ["trace", "share", "arm", "seed", "mean_turnaround_s", "mean_wait_s", "median_wait_s", "makespan_s",
                "killed", "killed_malleable", "time_limit_refusals", "starts_narrowed", "resizes_per_job"]
        rows = [["t", "0", "rigid", "0", "1000", "1", "1", "1", "0", "0", "0", "0", "0"]]
        for seed, (mold, mal) in enumerate([(900, 800), (920, 790), (880, 810), (910, 805), (890, 800)], 1):
            rows.append(["t", "0.5", "moldable", str(seed), str(mold), "1", "1", "1", "0", "0", "0", "0", "0"])
            # a worse moldable variant: not the baseline
            rows.append(["t", "0.5", "moldable_requested", str(seed), str(mold + 50), "1", "1", "1", "0", "0", "0",
                         "0", "0"])
            rows.append(["t", "0.5", "malleable", str(seed), str(mal), "1", "1", "1", "0", "0", "3", "1", "0.2"])
            # growth only: as fast as moldable on some seeds, slower on others: no difference
            rows.append(["t", "0.5", "growth", str(seed), str(mold + (10 if seed % 2 else -10)), "1", "1", "1", "0",
                         "0", "0", "0", "0.1"])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "runs.tsv")
            with open(path, "w") as f:
                f.write("\t".join(cols) + "\n")
                for r in rows:
                    f.write("\t".join(r) + "\n")
            text = seed_stats.report(seed_stats.read_runs(path))
        self.assertIn("t, 50% malleable", text)
        self.assertIn("seeds 1, 2, 3, 4, 5", text)
        mal = next(line for line in text.splitlines() if line.startswith("| both (malleable)"))
        self.assertIn("better", mal)
        growth = next(line for line in text.splitlines() if line.startswith("| growth only"))
        self.assertIn("no difference", growth)
        self.assertIn("Moldable baseline: the best of the moldable arms on this trace and share, moldable, start "
                      "in [n/2, min(M, 2n)], as many as free", text)
        mold = next(line for line in text.splitlines() if line.startswith("| moldable, start in [n/2, min"))
        self.assertIn("| - |", mold)  # moldable against itself: no ratio


class FitSpeedup(unittest.TestCase):
    @staticmethod
    def curve(s, c, procs=(1, 2, 4, 6, 9, 12, 16)):
        return [(p, s + (1 - s) / p + c * math.log2(p)) for p in procs]

    def test_recovers_exact_curves(self):
        for s, c in ((0.05, 0.01), (0.2, 0.0), (0.0, 0.03), (0.0, 0.0)):
            fs, fc, rms = fit_speedup.fit(self.curve(s, c))
            self.assertAlmostEqual(fs, s, places=9)
            self.assertAlmostEqual(fc, c, places=9)
            self.assertLess(rms, 1e-9)

    def test_parameters_stay_non_negative(self):
        # super-linear points (r below 1/p) would want a negative serial fraction
        pts = [(1, 1.0), (2, 0.45), (4, 0.2), (8, 0.1)]
        s, c, _ = fit_speedup.fit(pts)
        self.assertGreaterEqual(s, 0)
        self.assertGreaterEqual(c, 0)
        with self.assertRaises(ValueError):
            fit_speedup.fit([(1, 1.0)])


if __name__ == "__main__":
    unittest.main()
