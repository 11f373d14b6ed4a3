#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every name the docs give a reader exists: README.md and docs/*.md checked against the
source tree and a build tree.

  paths      a code span or code-block word that starts with a source folder
             (apps/ blacs-dyn/ redist/ gridmap/ resize/ scripts/ tests/ docs/ cmake/
             packaging/ .ci/) exists in the tree (globs must match something); a header
             named from its include root (`resize/session.hpp`) is found under some
             `*/include/malleable/`.
  binaries   a word `build/<dir>/<file>` exists in the build tree (the suite runs after
             the build, so a wrong folder or a renamed target is caught).
  options    every `--option` written after a driver's name on one command line is in
             that driver's `--help` (drivers: the executables of the build tree built with
             CLI11, whose --help prints and exits; no other program is started).
  variables  every environment variable of the library's prefixes (RESIZE_, BLACS_DYN_,
             REDIST_, MALLEABLE_, MALL_) that the docs name is read or set somewhere in
             the sources, scripts or tests, so a renamed or removed variable is caught.

  figures    every measured figure in README's prose (a number with a unit of time, size,
             rate, or a ratio) is found in a file under docs/data.
  counts     a test count the README or the user guide gives for the suite ("N tests", on a
             line that says "suite") is within 5% of `ctest -N -LE 'bench|walks'` in the build tree.

Exceptions, each with its reason, are lines of tests/docs/names-allow.txt:
`<kind> <name>  # why` (kind: path, binary, option, variable; option names are
`<driver>:--opt`).

Usage: check_names.py <source dir> <build dir>   (prints FILE:LINE: what, exits 1 on any)
"""
import fnmatch
import glob
import os
import re
import subprocess
import sys

SOURCE_DIRS = ("apps", "blacs-dyn", "redist", "gridmap", "resize", "scripts", "tests", "docs",
               "cmake", "packaging", ".ci")
PARTS = ("blacs_dyn", "blacs-dyn", "redist", "gridmap", "resize")
VAR = re.compile(r"\b((?:RESIZE|BLACS_DYN|REDIST|MALLEABLE|MALL)_[A-Z0-9_]*[A-Z0-9])\b")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
WORD = re.compile(r"[^\s`'\"()<>|;=]+")


def doc_files(root):
    files = [os.path.join(root, "README.md")]
    d = os.path.join(root, "docs")
    files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".md"))
    return [f for f in files if os.path.exists(f)]


def code_pieces(path):
    """(line number, text) of every code span and every line of a fenced block."""
    fence = False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:
                yield no, line.rstrip("\n")
            else:
                for span in re.findall(r"`([^`]+)`", line):
                    yield no, span


def all_lines(path):
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            yield no, line


def load_allow(root):
    allow = set()
    p = os.path.join(root, "tests", "docs", "names-allow.txt")
    if os.path.exists(p):
        for line in open(p, encoding="utf-8"):
            line = line.split("#", 1)[0].strip()
            if line:
                kind, _, name = line.partition(" ")
                allow.add((kind, name.strip()))
    return allow


def clean(word):
    return word.rstrip(".:,;)]}'\"").lstrip("([{'\"")


def path_exists(root, word):
    if any(c in word for c in "*?["):
        return bool(glob.glob(os.path.join(root, word)))
    if "{" in word or "}" in word:  # a{b,c} -> every alternative exists
        m = re.match(r"(.*)\{([^{}]*)\}(.*)", word)
        if not m:  # a brace cut off by the word's end (a shell snippet): nothing to check
            return True
        return all(path_exists(root, m.group(1) + alt + m.group(3)) for alt in m.group(2).split(","))
    if os.path.exists(os.path.join(root, word)):
        return True
    # A header named from its include root: resize/session.hpp -> */include/malleable/resize/session.hpp
    return bool(glob.glob(os.path.join(root, "*", "include", "malleable", word)))


def check_paths(root, files, allow):
    bad = []
    for md in files:
        for no, text in code_pieces(md):
            for w in WORD.findall(text):
                w = clean(w)
                first = w.split("/", 1)[0]
                if "/" not in w or first not in SOURCE_DIRS or "$" in w or "..." in w:
                    continue
                if ("path", w) in allow or path_exists(root, w):
                    continue
                bad.append(f"{os.path.relpath(md, root)}:{no}: path {w} does not exist in the tree")
    return bad


def check_binaries(root, build, files, allow):
    bad = []
    for md in files:
        for no, text in code_pieces(md):
            for w in WORD.findall(text):
                w = clean(w)
                if not w.startswith("build/") or "$" in w or "..." in w or "*" in w:
                    continue
                rel = w[len("build/"):]
                if not rel or ("binary", w) in allow:
                    continue
                if not os.path.exists(os.path.join(build, rel)):
                    bad.append(f"{os.path.relpath(md, root)}:{no}: {w} is not in the build tree")
    return bad


def cli11_program(path):
    """Built with CLI11 (its help line is in the binary): --help prints and exits, so it
    is safe to run; other programs (MPI benches, spawners) are never started."""
    with open(path, "rb") as f:
        return b"Print this help message and exit" in f.read()


def drivers(build):
    """name -> path of the executables that answer --help with an option list."""
    found = {}
    for d in ("apps", "gridmap", "resize", "redist", "blacs-dyn"):
        for p in glob.glob(os.path.join(build, d, "*")):
            if os.path.isfile(p) and os.access(p, os.X_OK) and not p.endswith((".so", ".a")) \
                    and ".so." not in p and cli11_program(p):
                found.setdefault(os.path.basename(p), p)
    return found


def help_text(argv, cache={}):
    key = tuple(argv)
    if key not in cache:
        try:
            out = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=20,
                                 stdin=subprocess.DEVNULL)
            cache[key] = out.stdout + out.stderr
        except (OSError, subprocess.TimeoutExpired):
            cache[key] = ""
    return cache[key]


def help_options(path, sub=None):
    """The options a program's --help lists (with a subcommand's, when one is given);
    None when its --help is no option list (fewer than 3 options: nothing to check)."""
    top = help_text([path])
    known = set(OPTION.findall(top))
    if len(known) < 3:
        return None
    if sub and re.search(r"^\s+" + re.escape(sub) + r"\s", top.split("Subcommands:", 1)[-1], re.M) \
            and "Subcommands:" in top:
        known |= set(OPTION.findall(help_text([path, sub])))
    return known


def check_options(root, build, files, allow):
    bad, exes = [], drivers(build)
    for md in files:
        for no, text in code_pieces(md):
            words = [clean(w) for w in WORD.findall(text)]
            for i, w in enumerate(words):
                name = os.path.basename(w)
                if name not in exes:
                    continue
                rest = words[i + 1:]
                sub = next((x for x in rest if not x.startswith("-")), None)
                known = help_options(exes[name], sub)
                if known is None:
                    continue
                for opt in rest:
                    if opt in ("&&", "||") or opt.startswith("2>"):
                        break
                    if not opt.startswith("--") or not OPTION.fullmatch(opt.split("=")[0]):
                        continue
                    opt = opt.split("=")[0]
                    if opt in known or ("option", f"{name}:{opt}") in allow:
                        continue
                    bad.append(f"{os.path.relpath(md, root)}:{no}: {name} has no option {opt} (not in its --help)")
    return bad


def source_text(root, cache={}):
    if root not in cache:
        chunks = []
        for top in SOURCE_DIRS + ("CMakeLists.txt",):
            if top == "docs":
                continue
            base = os.path.join(root, top)
            paths = [base] if os.path.isfile(base) else \
                [os.path.join(dp, f) for dp, _, fs in os.walk(base) for f in fs]
            for p in paths:
                if p.endswith((".md", ".png", ".h5", ".so", ".o", ".a")):
                    continue
                try:
                    with open(p, encoding="utf-8", errors="ignore") as f:
                        chunks.append(f.read())
                except OSError:
                    pass
        cache[root] = "\n".join(chunks)
    return cache[root]


def check_variables(root, files, allow):
    bad, text, seen = [], source_text(root), {}
    for md in files:
        for no, line in all_lines(md):
            for v in VAR.findall(line):
                if v in seen or ("variable", v) in allow:
                    continue
                seen[v] = re.search(r"\b" + re.escape(v) + r"\b", text) is not None
                if not seen[v]:
                    bad.append(f"{os.path.relpath(md, root)}:{no}: variable {v} is read or set nowhere in the sources")
    return bad


FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:x\b|%|ms\b|us\b|s\b|minutes?\b|GB/s|MB/s|MiB\b|GiB\b)")


def data_text(root, cache={}):
    if root not in cache:
        chunks = []
        for dp, _, fs in os.walk(os.path.join(root, "docs", "data")):
            for f in fs:
                try:
                    with open(os.path.join(dp, f), encoding="utf-8", errors="ignore") as fh:
                        chunks.append(fh.read())
                except OSError:
                    pass
        cache[root] = "\n".join(chunks)
    return cache[root]


def check_figures(root, allow):
    """Every measured figure in README's prose (a number with a unit of time, size, rate or a
    ratio) is found in a file under docs/data, the run it comes from."""
    bad, text, fence = [], data_text(root), False
    readme = os.path.join(root, "README.md")
    for no, line in all_lines(readme):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for num in FIGURE.findall(re.sub(r"`[^`]*`", "", line)):
            if ("figure", num) in allow:
                continue
            if not re.search(r"(?<![\d.])" + re.escape(num) + r"(?![\d])", text):
                bad.append(f"README.md:{no}: figure {num} is in no file under docs/data")
    return bad


def check_counts(root, build, allow):
    """A test count the README or the user guide gives for the suite ("N tests") is within
    5% of ctest's count of the default run (-LE 'bench|walks', as scripts/test.sh runs it)
    in the build tree."""
    try:
        out = subprocess.run(["ctest", "-N", "-LE", "bench|walks"], cwd=build, capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    m = re.search(r"Total Tests: (\d+)", out)
    if not m:
        return []
    total, bad = int(m.group(1)), []
    for md in (os.path.join(root, "README.md"), os.path.join(root, "docs", "guide.md")):
        if not os.path.exists(md):
            continue
        for no, line in all_lines(md):
            if "suite" not in line:
                continue
            for n in re.findall(r"(\d[\d,]*) tests", line):
                claim = int(n.replace(",", ""))
                if claim >= 100 and abs(claim - total) > 0.05 * total and ("count", n) not in allow:
                    bad.append(f"{os.path.relpath(md, root)}:{no}: says {claim} tests, ctest counts {total} in the default run")
    return bad


def check(root, build):
    files, allow = doc_files(root), load_allow(root)
    return files, (check_paths(root, files, allow) + check_binaries(root, build, files, allow)
                   + check_options(root, build, files, allow) + check_variables(root, files, allow)
                   + check_figures(root, allow) + check_counts(root, build, allow))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    files, bad = check(sys.argv[1], sys.argv[2])
    for b in bad:
        print(b)
    if bad:
        print(f"FAILED: {len(bad)} stale names in {len(files)} files")
        sys.exit(1)
    print(f"PASS: every path, binary, option and variable named in {len(files)} files exists")
