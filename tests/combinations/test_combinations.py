#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit test of the combination suite's generator (ctest combinations.generator, label unit):
every pair of values some valid case holds is covered, no case breaks a constraint, the
committed tests/combinations/cases.txt is the generator's output for its seed, and the
generator is deterministic."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import combinations as C  # noqa: E402


def parse(lines):
    out = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        name, *kv = line.split()
        out.append((name, dict(x.split("=", 1) for x in kv)))
    return out


class Generator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        lines, cls.n_pairs, cls.n_topped = C.case_lines(C.SEED)
        cls.cases = parse(lines)
        cls.runs = [c for _, c in cls.cases if c["kind"] == "run"]
        cls.ompi = [c for c in cls.runs if c["mpi"] == "openmpi"]
        cls.mpich = [c for c in cls.runs if c["mpi"] == "mpich"]

    def test_every_allowed_pair_is_covered_by_the_open_mpi_cases(self):
        allowed = C.allowed_pairs(C.valid_cases())
        covered = C.allowed_pairs(self.ompi)
        self.assertFalse(allowed - covered, f"pairs not covered: {sorted(allowed - covered)[:10]}")
        self.assertFalse(covered - allowed, "a covered pair no valid case holds")
        self.assertGreaterEqual(len(self.ompi), 40)

    def test_every_allowed_mpich_value_is_covered(self):
        space = C.valid_cases("mpich")
        want = {(n, c[n]) for c in space for n in C.NAMES}
        have = {(n, c[n]) for c in self.mpich for n in C.NAMES}
        self.assertEqual(want, have)

    def test_no_case_breaks_a_constraint(self):
        for c in self.ompi:
            self.assertEqual(C.violations(c), [], c)
        for c in self.mpich:
            self.assertTrue(C.valid(c, "mpich"), c)
        for c in self.runs:
            self.assertEqual(set(C.NAMES) | {"kind", "mpi"}, set(c), c)

    def test_the_checker_sees_a_broken_case(self):
        c = dict(self.ompi[0])
        c.update(prog="pdgemm_c", api="c", ckpt="global")
        self.assertIn("checkpoints: the drivers", C.violations(c))
        c = dict(prog="porting_f", api="cxx")
        self.assertIn("api is the program's language", C.violations(c))
        self.assertEqual(C.violations({"prog": "porting_f"}), [])  # partial: rules with unknown keys wait
        self.assertFalse(C.valid(dict(self.ompi[0], mech="spawn", fault="none"), "mpich"))

    def test_names_are_unique_and_refusals_known(self):
        names = [n for n, _ in self.cases]
        self.assertEqual(len(names), len(set(names)))
        refusals = {r[0] for r in C.REFUSALS + C.CONTROLS}
        for _, c in self.cases:
            if c["kind"] in ("refuse", "control"):
                self.assertIn(c["refusal"], refusals)

    def test_the_fallback_cases_cover_background_checkpoint_and_direction_pairwise(self):
        fb = [c for _, c in self.cases if c["kind"] == "fallback"]
        self.assertEqual(len(fb), len(C.FALLBACKS))
        for c in fb:
            self.assertEqual((c["mech"], c["fault"], c["launcher"]), ("spawn", "stall", "malleable-run"), c)
            self.assertIn(c["ckpt"], ("global", "global+partner"), c)  # the fallback needs the checkpoint directory
            self.assertIn(c["dir"], ("expand", "both"), c)
            self.assertIn(c["prog"], C.DRIVERS, c)
        dims = {"bg": ["off", "wait", "continue"], "ckpt": ["global", "global+partner"], "dir": ["expand", "both"]}
        for a, b in (("bg", "ckpt"), ("bg", "dir"), ("ckpt", "dir")):
            want = {(x, y) for x in dims[a] for y in dims[b]}
            self.assertEqual(want, {(c[a], c[b]) for c in fb}, (a, b))

    def test_the_refresh_cases_are_the_fallbacks_layout(self):
        rf = [c for _, c in self.cases if c["kind"] == "refresh"]
        fb = [c for _, c in self.cases if c["kind"] == "fallback"]
        self.assertEqual(len(rf), len(C.FALLBACKS))
        for r, f in zip(rf, fb):
            self.assertEqual(r["fault"], "refresh", r)
            self.assertEqual(dict(r, fault="stall", kind="fallback"), f)

    def test_the_respawn_cases_pair_respawn_with_every_value(self):
        rs = [c for _, c in self.cases if c["kind"] == "respawn"]
        self.assertEqual(len(rs), len(C.RESPAWNS))
        for c in rs:
            self.assertEqual((c["reconf"], c["mech"]), ("respawn", "spawn"), c)
            self.assertEqual(C.violations(c), [], c)
        self.assertNotIn("reconf", {k for _, c in self.cases if c["kind"] != "respawn" for k in c})
        want = {"prog": set(C.DRIVERS | C.USER) | {"pdgemm_c", "pdgemv_fortran"},
                "ckpt": {"none", "global", "local", "partner", "global+partner"},
                "bg": {"off", "wait", "continue"}, "dir": {"expand", "shrink", "both"},
                "fault": {"none", "kill", "newcomer", "stall", "refresh"}, "mover": {"redist", "pdgemr2d"},
                "launcher": {"mpiexec", "malleable-run"}, "api": {"cxx", "c", "fortran"}}
        for dim, values in want.items():
            self.assertLessEqual(values, {c[dim] for c in rs}, dim)
        for c in rs:  # the fallback and the refresh: their preconditions, and a shrink to respawn after the relaunch
            if c["fault"] in ("stall", "refresh", "newcomer") and c["launcher"] == "malleable-run":
                self.assertIn(c["ckpt"], ("global", "global+partner"), c)
                self.assertEqual(c["dir"], "both", c)

    def test_committed_list_is_the_generators_output(self):
        with open(os.path.join(HERE, "cases.txt")) as f:
            self.assertEqual(f.read(), C.case_text(), "cases.txt is stale: run combinations.py --write cases.txt")
        with open(os.path.join(HERE, "cases_full.txt")) as f:
            self.assertEqual(f.read(), C.full_text(),
                             f"cases_full.txt is stale: run combinations.py --full {C.FULL_N} --write cases_full.txt")

    def test_deterministic_and_other_seeds_cover_too(self):
        self.assertEqual(C.case_lines(C.SEED)[0], C.case_lines(C.SEED)[0])
        pairs, topped = C.openmpi_cases(7)
        allowed = C.allowed_pairs(C.valid_cases())
        self.assertFalse(allowed - C.allowed_pairs(pairs + topped))

    def test_full_draws_are_valid_and_seeded(self):
        a, b = C.full_lines(30, 3), C.full_lines(30, 3)
        self.assertEqual(a, b)
        self.assertNotEqual(a, C.full_lines(30, 4))
        for _, c in parse(a):
            self.assertEqual(C.violations(c), [], c)


if __name__ == "__main__":
    unittest.main()
