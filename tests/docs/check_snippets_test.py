#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs check_snippets.py on a scratch tree with one planted bad snippet of each kind (no
marker, a quoted line the file does not have, a C snippet that does not compile, a Fortran
signature and a constant the module lacks) and a good one of each; it must report exactly
the bad ones. Then on the project's README.md and docs/guide/*.md.
Usage: check_snippets_test.py <source dir> <build dir>"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_snippets  # noqa: E402
from doc_check_util import verdict, write  # noqa: E402


with tempfile.TemporaryDirectory() as t:
    write(os.path.join(t, "apps", "CMakeLists.txt"), "add_executable(x ex.c)\n")
    write(os.path.join(t, "apps", "ex.c"), "int f(int k) {\n  int it = 0;  /* start */\n  while (it < k)\n    ++it;\n  return it;\n}\n")
    write(os.path.join(t, "h", "int.c"), "#include <stddef.h>\n/* @INCLUDES@ */\nint g(int k) {\n  /* @SNIPPET@ */\n  return 0;\n}\n")
    write(os.path.join(t, "m.f90"), "module mm\n  public :: p, RESIZE_A\n  integer, parameter :: RESIZE_A = 1, RESIZE_B = 2\n"
          "contains\n  integer function p(s, t)\n    integer :: s, t\n    p = s + t\n  end function\nend module\n")
    write(os.path.join(t, "README.md"),
          "# R\n\n```c\nint x;\n```\n\n"                                          # 3: no marker
          "<!-- snippet: from apps/ex.c -->\n```c\nint it = 0;\nwhile (it < k) ++it;\n```\n\n"  # 8: good
          "<!-- snippet: from apps/ex.c -->\n```c\nwhile (it < iters) ++it;\n```\n\n"          # 14: planted
          "<!-- snippet: compile h/int.c -->\n```c\nint y = k * 2;\n(void)y;\n```\n\n"          # 19: good
          "<!-- snippet: compile h/int.c -->\n```c\nint y = undeclared + k;\n```\n\n"            # 25: planted
          "<!-- snippet: signatures m.f90 -->\n```fortran\ninteger function p(s, t)\n! RESIZE_A\n```\n\n"  # 30: good
          "<!-- snippet: signatures m.f90 -->\n```fortran\ninteger function p(s)\n```\n\n"      # 36: planted
          "<!-- snippet: signatures m.f90 -->\n```fortran\n! RESIZE_B\n```\n")                 # 41: planted
    kinds, bad = check_snippets.check(t, t)
    got = sorted(int(b.split(":")[1]) for b in bad)
    if got != [3, 14, 25, 36, 41] or "undeclared" not in " ".join(bad) or "RESIZE_B" not in " ".join(bad):
        print("\n".join(bad))
        print(f"FAILED: on the planted tree the checker reported lines {got}, expected [3, 14, 25, 36, 41]")
        sys.exit(1)

kinds, bad = check_snippets.check(sys.argv[1], sys.argv[2])
verdict(bad, f"{len(bad)} snippets in README.md and docs/guide/*.md",
        f"{kinds['from']} snippets quote a file the suite compiles, {kinds['compile']} compile in their harness, "
        f"{kinds['signatures']} signature list matches the module (the checker caught 5 of 5 planted bad snippets)")
