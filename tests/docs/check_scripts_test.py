#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs check_scripts.py on a small git repository with known faults (it must report
exactly those), then on the project (every script a page names is at HEAD with its run
bit, or named as retired with a commit that holds it).

The planted faults (mutations of a page that passes): a page citing a script missing from
HEAD; a script with "#!" committed without its run bit; a script named retired with a
commit that does not hold it; a script named retired without a commit. What must pass: a
script with its run bit, a module without "#!" and without the bit, a retired script named
with the commit that holds it, a script only in the working tree named nowhere.
Usage: check_scripts_test.py <source dir>"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_scripts  # noqa: E402


def git(root, *args):
    subprocess.run(["git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def write(root, path, text, mode=0o644):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    os.chmod(full, mode)


def rev(root):
    return subprocess.run(["git", "-C", root, "rev-parse", "--short=8", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


fails = []
with tempfile.TemporaryDirectory() as t:
    git(t, "init", "-q")
    write(t, "scripts/ok.sh", "#!/bin/sh\necho ok\n", 0o755)
    write(t, "scripts/old.sh", "#!/bin/sh\necho old\n", 0o755)
    write(t, "scripts/lib.py", "X = 1\n")  # a module: named for its contents, never run
    write(t, "tests/t.sh", "#!/bin/sh\n", 0o755)
    write(t, "docs/a.md", "Run `scripts/ok.sh` and tests/t.sh; its rules in `scripts/lib.py`.\n")
    git(t, "add", "-A")
    git(t, "commit", "-q", "-m", "one")
    old = rev(t)
    git(t, "rm", "-q", "scripts/old.sh")
    git(t, "commit", "-q", "-m", "two")
    if check_scripts.check(t):
        fails.append(f"the clean tree fails: {check_scripts.check(t)}")

    def mutant(name, page, want, setup=None, n=1):
        """Commit `page` as docs/m.md (and setup's change), check, then undo the commit."""
        write(t, "docs/m.md", page)
        if setup:
            setup()
        git(t, "add", "-A")
        git(t, "commit", "-q", "-m", name)
        got = check_scripts.check(t)
        git(t, "reset", "-q", "--hard", "HEAD~1")
        if want is None:
            if got:
                fails.append(f"{name}: should pass, reported {got}")
        elif len(got) != n or not all(want in g for g in got) or not any(g.startswith("docs/m.md:") for g in got):
            fails.append(f"{name}: expected {n} report(s) with '{want}', got {got}")

    mutant("missing script", "Then\n`scripts/bench/gone.sh --n 4`.\n", "scripts/bench/gone.sh is not in the tree")
    mutant("missing test script", "python3 tests/gone.py\n", "tests/gone.py is not in the tree")
    mutant("no run bit", "Run `scripts/noexec.py`.\n", "scripts/noexec.py has no run bit",
           lambda: write(t, "scripts/noexec.py", "#!/usr/bin/env python3\n", 0o644))
    mutant("run bit dropped", "Run `scripts/ok.sh`.\n", "scripts/ok.sh has no run bit",  # docs/a.md names it too
           lambda: os.chmod(os.path.join(t, "scripts/ok.sh"), 0o644), n=2)
    mutant("retired, commit does not hold it", f"`scripts/old.sh` (retired; at commit {rev(t)})\n",
           "no commit on its line")
    mutant("retired, no commit", "`scripts/old.sh` (retired)\n", "scripts/old.sh is not in the tree")
    mutant("gone, commit but not retired", f"`scripts/old.sh` at commit {old}\n", "scripts/old.sh is not in the tree")
    mutant("retired with its commit", f"`scripts/old.sh` (retired; at commit {old})\n", None)
    mutant("retired, in a code block", f"```\nscripts/old.sh --x  # retired: at commit {old}\n```\n", None)
    # only in the working tree, not committed: not at HEAD
    write(t, "scripts/new.sh", "#!/bin/sh\n", 0o755)
    write(t, "docs/n.md", "Run `scripts/new.sh`.\n")
    got = check_scripts.check(t)
    if not (len(got) == 1 and "scripts/new.sh is not in the tree" in got[0]):
        fails.append(f"a script not committed: expected one report, got {got}")

for f in fails:
    print(f"FAILED: {f}")
if fails:
    sys.exit(1)

bad = check_scripts.check(sys.argv[1])
for b in bad:
    print(b)
if bad:
    print(f"FAILED: {len(bad)} script(s) named in the docs are missing at HEAD or lack their run bit")
    sys.exit(1)
print("PASS: every script the docs name is at HEAD with its run bit (or named retired with its commit); "
      "the checker caught 7 planted faults")
