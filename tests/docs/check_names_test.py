#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs check_names.py on a scratch tree with one planted stale name of each kind (it must
report exactly those, and nothing the allow-list excuses), then on the project's README.md
and docs/**/*.md against the build tree. Usage: check_names_test.py <source dir> <build dir>"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_names  # noqa: E402
from doc_check_util import verdict, write  # noqa: E402


with tempfile.TemporaryDirectory() as t:
    src, build = os.path.join(t, "src"), os.path.join(t, "build")
    write(os.path.join(src, "scripts", "run.sh"), "echo RESIZE_KNOWN\n")
    write(os.path.join(src, "resize", "include", "malleable", "resize", "session.hpp"), "\n")
    write(os.path.join(src, "tests", "docs", "names-allow.txt"),
          "binary build/made_by_a_script.so  # a script makes it\n")
    write(os.path.join(build, "apps", "tool"),
          "#!/bin/sh\n# Print this help message and exit\necho 'Options:\n  --alpha\n  --beta N\n  --gamma'\n", exe=True)
    write(os.path.join(src, "README.md"),
          "# R\nRun `scripts/run.sh` and `scripts/gone.sh`; include `resize/session.hpp`.\n"
          "```sh\nmpiexec -n 4 build/apps/tool --alpha --beta 3 --delta\nbuild/apps/missing\n"
          "ls build/made_by_a_script.so\n```\n"
          "Set RESIZE_KNOWN or RESIZE_RENAMED.\n"
          "It took 7.25 s, then 12.5 s (`99 s` in code is no claim).\n")
    write(os.path.join(src, "docs", "data", "run.txt"), "wall 7.25\n")
    write(os.path.join(src, "docs", "a.md"), "# A\n`docs/a.md` and `docs/{a,b}.md`\n")
    # Measurement sections: one with its block, one saying it measures nothing, one whose
    # block is missing (planted), one naming a data file that is not there (planted).
    write(os.path.join(src, "docs", "measurements", "m.md"),
          "# M\n\n## Good\n\nMeasured: 2026-11-24, commit abc1234, `scripts/run.sh --x`, data: `docs/data/run.txt`\n\n"
          "## Method\n\nNot measured: how the runs are made\n\n"
          "## No block\n\nIt took 7.25 s.\n\n"
          "## Gone data\n\nMeasured: 2026-11-24, commit abc1234, `scripts/run.sh`, data: `docs/data/gone.csv`\n")
    _, bad = check_names.check(src, build)
    got = sorted(b.split(": ", 1)[0] + ": " + b.split(": ", 1)[1].split(" ")[0] for b in bad)
    want = sorted(["README.md:2: path", "README.md:4: tool", "README.md:5: build/apps/missing",
                   "README.md:8: variable", "docs/a.md:2: path",
                   "docs/measurements/m.md:11: section", "docs/measurements/m.md:15: section",
                   "docs/measurements/m.md:17: path"])
    if got != want:
        print(f"FAILED: on the planted tree the checker reported {bad}, expected {want}")
        sys.exit(1)
    if not any("--delta" in b for b in bad) or not any("scripts/gone.sh" in b for b in bad) \
            or not any("RESIZE_RENAMED" in b for b in bad) or not any("docs/{a,b}.md" in b for b in bad) \
            or not any('"No block" does not start with' in b for b in bad) \
            or not any("docs/data/gone.csv" in b for b in bad):
        print(f"FAILED: the planted names are not the ones reported: {bad}")
        sys.exit(1)

# In a git checkout, a block naming a commit git does not know is caught too.
if os.path.exists(os.path.join(sys.argv[1], ".git")):
    why = check_names.provenance_problem(sys.argv[1], "Measured: 2026-11-24, commit 0123abcd0123, `scripts/run.sh`, "
                                                      "data: `docs/data`")
    if not why or "not in git" not in why:
        print(f"FAILED: a block with an unknown commit was not caught ({why})")
        sys.exit(1)
    # A retired script passes only with a commit that holds it, named on its line or page.
    root, gone = sys.argv[1], "scripts/bench/redist_node_window.sh"  # removed in 58f7ebec; kept at 351c483b
    held = "produced by scripts/bench/redist_node_window.sh at commit 351c483b"
    if check_names.path_exists(root, gone) or not check_names.retired_path(root, gone, held) \
            or check_names.retired_path(root, gone, "produced by scripts/bench/redist_node_window.sh") \
            or check_names.retired_path(root, gone, "", "at commit 58f7ebec") \
            or check_names.retired_path(root, "scripts/bench/never_was.sh", held) \
            or check_names.retired_path(root, "docs/data/gone.csv", "at commit 351c483b"):
        print("FAILED: a retired script's commit is not what decides it (retired_path)")
        sys.exit(1)

files, bad = check_names.check(sys.argv[1], sys.argv[2])
verdict(bad, f"{len(bad)} stale names in {len(files)} files",
        f"every path, binary, option and variable named in {len(files)} files exists "
        "and every measurement section says when, at which commit, by which command and into which data "
        "it was measured (the checker caught 8 of 8 planted stale names and missing blocks)")
