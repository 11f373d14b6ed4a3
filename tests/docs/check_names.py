#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every name the docs give a reader exists: README.md and docs/**/*.md checked against the
source tree and a build tree.

  paths      a code span or code-block word that starts with a source folder
             (apps/ blacs-dyn/ redist/ gridmap/ cluster/ resize/ launcher/ scripts/ tests/ docs/ cmake/
             packaging/ .ci/) exists in the tree (globs must match something); a header
             named from its include root (`resize/session.hpp`) is found under some
             `*/include/malleable/`. A retired script is named with a commit that holds
             it on the same line ("produced by scripts/bench/X.sh at commit abc1234").
  binaries   a word `build/<dir>/<file>` exists in the build tree (the suite runs after
             the build, so a wrong folder or a renamed target is caught).
  options    every `--option` written after a driver's name on one command line is in
             that driver's `--help` (drivers: the executables of the build tree built with
             CLI11, whose --help prints and exits; no other program is started).
  variables  every environment variable of the library's prefixes (RESIZE_, BLACS_DYN_,
             REDIST_, MALLEABLE_, MALL_) that the docs name is read or set somewhere in
             the sources, scripts or tests, so a renamed or removed variable is caught.

  (figures: tests/docs/check_figures.py ties each to the data file its sentence names)
  counts     a test count the README or the user guide gives for the suite ("N tests", on a
             line that says "suite") is within 5% of `ctest -N -LE 'bench|walks'` in the build tree.
  provenance every level-2 section of docs/measurements/*.md starts (its first line of text)
             with the line
               Measured: YYYY-MM-DD, commit <hash>, `<command>`, data: `<docs/data path>`[, ...]
             (the data may instead be "not committed (<why>)"), or, for a section that holds
             no measured number (method, reading, model), with "Not measured: <why>". The
             commit must be one git knows (when the tree is a git checkout), the command's
             scripts/, tests/, redist/... paths (in the tree, or at that commit: a retired
             script) and the data paths (globs allowed) must exist.

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

from doc_check_util import md_lines, verdict

SOURCE_DIRS = ("apps", "blacs-dyn", "redist", "gridmap", "cluster", "resize", "launcher", "scripts", "tests", "docs",
               "cmake", "packaging", ".ci")
PARTS = ("blacs_dyn", "blacs-dyn", "redist", "gridmap", "cluster", "resize")
VAR = re.compile(r"\b((?:RESIZE|BLACS_DYN|REDIST|MALLEABLE|MALL)_[A-Z0-9_]*[A-Z0-9])\b")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
WORD = re.compile(r"[^\s`'\"()<>|;=]+")


def doc_files(root):
    """README.md and every .md under docs/ (guide/, reference/, measurements/), not docs/data."""
    files = [os.path.join(root, "README.md")]
    d = os.path.join(root, "docs")
    for dp, dirs, fs in os.walk(d):
        dirs[:] = sorted(x for x in dirs if os.path.join(dp, x) != os.path.join(d, "data"))
        files += sorted(os.path.join(dp, f) for f in fs if f.endswith(".md"))
    return [f for f in files if os.path.exists(f)]


def code_pieces(path):
    """(line number, text) of every code span and every line of a fenced block."""
    for no, line, fence in md_lines(path):
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


def data_archive(root, cache={}):
    """scripts/bench/data_archive.py (the packed raw runs of docs/data; its functions take
    full paths, so this checkout's copy serves any tree checked)."""
    if "m" not in cache:
        import importlib.util
        here = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location(
            "data_archive", os.path.join(here, "..", "..", "scripts", "bench", "data_archive.py"))
        cache["m"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cache["m"])
    return cache["m"]


def path_exists(root, word):
    if any(c in word for c in "*?["):
        return bool(glob.glob(os.path.join(root, word))
                    or (word.startswith("docs/data/") and data_archive(root).glob_members(os.path.join(root, word))))
    if "{" in word or "}" in word:  # a{b,c} -> every alternative exists
        m = re.match(r"(.*)\{([^{}]*)\}(.*)", word)
        if not m:  # a brace cut off by the word's end (a shell snippet): nothing to check
            return True
        return all(path_exists(root, m.group(1) + alt + m.group(3)) for alt in m.group(2).split(","))
    if os.path.exists(os.path.join(root, word)):
        return True
    if word.startswith("docs/data/") and data_archive(root).exists(os.path.join(root, word.rstrip("/"))):
        return True  # a raw run packed in its study's runs.tar.xz
    # A header named from its include root: resize/session.hpp -> */include/malleable/resize/session.hpp
    return bool(glob.glob(os.path.join(root, "*", "include", "malleable", word)))


AT_COMMIT = re.compile(r"\bcommit ([0-9a-f]{7,40})\b")
RETIRED_AT = re.compile(r"\bat commit ([0-9a-f]{7,40})\b")


def path_at_commit(root, word, commit, cache={}):
    """True when git has `word` at `commit` (a retired script, named with the commit that
    still holds it), or when the tree is no git checkout (a tarball: nothing to ask)."""
    if not os.path.exists(os.path.join(root, ".git")):
        return True
    key = (commit, word)
    if key not in cache:
        r = subprocess.run(["git", "-C", root, "cat-file", "-e", f"{commit}:{word}"], capture_output=True)
        cache[key] = r.returncode == 0
    return cache[key]


def retired_path(root, word, line, file_text=""):
    """A script (scripts/...) gone from the tree, held by a commit that its line names (a
    Measured line's commit) or that its page gives "at commit abc1234" ("produced by
    scripts/bench/X.sh at commit abc1234")."""
    commits = set(AT_COMMIT.findall(line)) | set(RETIRED_AT.findall(file_text))
    return word.startswith("scripts/") and any(path_at_commit(root, word, c) for c in sorted(commits))


def check_paths(root, files, allow):
    bad = []
    for md in files:
        lines, text_all = dict(all_lines(md)), open(md, encoding="utf-8").read()
        for no, text in code_pieces(md):
            for w in WORD.findall(text):
                w = clean(w)
                first = w.split("/", 1)[0]
                if "/" not in w or first not in SOURCE_DIRS or "$" in w or "..." in w:
                    continue
                if ("path", w) in allow or path_exists(root, w) or retired_path(root, w, lines[no], text_all):
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
    if sub and re.search(r"^\s+" + re.escape(sub) + r"\s", top.split("Subcommands:", 1)[-1], re.M) \
            and "Subcommands:" in top:  # (a program of cases, as malleable-redist-bench: the case's own)
        known |= set(OPTION.findall(help_text([path, sub])))
    if len(known) < 3:
        return None
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
    for md in (os.path.join(root, "README.md"), os.path.join(root, "docs", "guide", "README.md")):
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


MEASURED = re.compile(r"^Measured: (\d{4}-\d\d-\d\d), commit ([0-9a-f]{7,40}), `([^`]+)`, data: (.+?)\s*$")
NOT_MEASURED = re.compile(r"^Not measured: \S.{9,}")


def commit_known(root, commit, cache={}):
    """True when git knows the commit, or when the tree is no git checkout (a tarball)."""
    if commit not in cache:
        if not os.path.exists(os.path.join(root, ".git")):
            cache[commit] = True
        else:
            r = subprocess.run(["git", "-C", root, "cat-file", "-e", commit + "^{commit}"],
                               capture_output=True)
            cache[commit] = r.returncode == 0
    return cache[commit]


def provenance_problem(root, line, file_text=""):
    """What is wrong with a section's first line (None when it is a valid block)."""
    if NOT_MEASURED.match(line):
        return None
    m = MEASURED.match(line)
    if not m:
        return "does not start with 'Measured: DATE, commit HASH, `COMMAND`, data: `PATH`' or 'Not measured: why'"
    date, commit, command, data = m.groups()
    if not commit_known(root, commit):
        return f"commit {commit} is not in git"
    for w in WORD.findall(command):
        w = clean(w)
        if "/" in w and w.split("/", 1)[0] in SOURCE_DIRS and "$" not in w and not path_exists(root, w) \
                and not path_at_commit(root, w, commit) and not retired_path(root, w, line, file_text):
            return f"the command's {w} does not exist (in the tree or at commit {commit})"
    if data.startswith("not committed (") and data.endswith(")"):
        return None
    paths = re.findall(r"`([^`]+)`", data)
    if not paths or re.sub(r"`[^`]+`", "", data).strip(" ,") != "":
        return "data is neither `docs/data/...` paths nor 'not committed (why)'"
    for d in paths:
        if not d.startswith("docs/data/") or not path_exists(root, d.rstrip("/")):
            return f"data {d} is not under docs/data or does not exist"
    return None


def check_provenance(root):
    """Every level-2 section of a measurements file says when, at which commit, by which
    command and into which data file it was measured (or that it measures nothing)."""
    bad, d = [], os.path.join(root, "docs", "measurements")
    if not os.path.isdir(d):
        return bad
    for md in sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".md")):
        lines, fence, heading = list(all_lines(md)), False, None
        for no, line in lines:
            if line.lstrip().startswith("```"):
                fence = not fence
            if fence:
                continue
            if line.startswith("## "):
                heading = (no, line[3:].strip())
                continue
            if heading and line.strip():
                why = provenance_problem(root, line.strip(), "".join(l for _, l in lines))
                if why:
                    bad.append(f"{os.path.relpath(md, root)}:{heading[0]}: section \"{heading[1][:50]}\" {why}")
                heading = None
        if heading:
            bad.append(f"{os.path.relpath(md, root)}:{heading[0]}: section \"{heading[1][:50]}\" is empty")
    return bad


def check(root, build):
    files, allow = doc_files(root), load_allow(root)
    return files, (check_paths(root, files, allow) + check_binaries(root, build, files, allow)
                   + check_options(root, build, files, allow) + check_variables(root, files, allow)
                   + check_counts(root, build, allow)
                   + check_provenance(root))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    files, bad = check(sys.argv[1], sys.argv[2])
    verdict(bad, f"{len(bad)} stale names in {len(files)} files",
            f"every path, binary, option and variable named in {len(files)} files exists")
