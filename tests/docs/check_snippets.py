#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every C++, C and Fortran snippet (a ```cpp, ```c or ```fortran block) in README.md and
docs/guide/*.md either quotes a file the suite compiles or is compiled here. The HTML
comment on the line before the block (blank lines between allowed) says which:

  <!-- snippet: from apps/examples/porting/malleable.cpp -->
      every code line of the block (comments, blank lines and "..." dropped, white space
      ignored) is found in that file, in order; the file must be one a CMakeLists.txt
      of the project builds (its name appears in one).
  <!-- snippet: compile tests/docs/snippets/NAME.cpp -->
      the block is put into that harness (it declares what the block uses) at the line
      `@SNIPPET@`; the block's #include / `use` lines go where the harness has `@INCLUDES@`.
      Then mpicxx -std=c++20 / mpicc / mpif90 -fsyntax-only against the source tree's
      include/ folders and the build tree's Fortran modules.
  <!-- snippet: signatures resize/fortran/malleable_resize.f90 -->
      a list of Fortran signatures: every `function|subroutine NAME(ARGS)` line names a
      procedure of that module with those argument names, and every RESIZE_* constant
      the block names is a parameter the module exports.

Usage: check_snippets.py <source dir> <build dir>   (prints FILE:LINE: why, exits 1 on any)"""
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from doc_check_util import verdict

LANGS = {"cpp": "cxx", "c": "c", "fortran": "f"}
MARK = re.compile(r"^<!--\s*snippet:\s*(from|compile|signatures)\s+(\S+)\s*-->\s*$")


def blocks(path):
    """(line of the fence, language, marker match or None, the block's lines)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, out = 0, []
    while i < len(lines):
        m = re.match(r"^\s*```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        if lang in LANGS:
            k = start - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            mark = MARK.match(lines[k].strip()) if k >= 0 else None
            out.append((start + 1, lang, mark, lines[start + 1:j]))
        i = j + 1
    return out


def strip_comment(line, lang):
    """The line without its comment (no comment markers inside strings in these snippets)."""
    if lang == "fortran":
        q, out = None, []
        for ch in line:
            if q:
                q = None if ch == q else q
            elif ch in "'\"":
                q = ch
            elif ch == "!":
                break
            out.append(ch)
        return "".join(out)
    line = re.sub(r"/\*.*?\*/", "", line)
    line = re.sub(r"/\*.*$", "", line)
    return re.sub(r"//.*$", "", line)


def squash(text, lang):
    return "".join(re.sub(r"\s+", "", strip_comment(line, lang)) for line in text.split("\n"))


def built_by_cmake(root, rel):
    name = os.path.basename(rel)
    for dp, dirs, fs in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "build", "docs") and not d.startswith("build")]
        if "CMakeLists.txt" in fs and name in open(os.path.join(dp, "CMakeLists.txt"), encoding="utf-8").read():
            return True
    return False


def check_from(root, rel, lang, body):
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return f"quotes {rel}, which does not exist"
    if not built_by_cmake(root, rel):
        return f"quotes {rel}, which no CMakeLists.txt builds"
    text, pos = squash(open(path, encoding="utf-8").read(), lang), 0
    for line in body:
        s = re.sub(r"\s+", "", strip_comment(line, lang))
        if not s or s == "...":
            continue
        at = text.find(s, pos)
        if at < 0:
            return f"line `{line.strip()}` is not in {rel} (in this order)"
        pos = at + len(s)
    return None


def fortran_procs(text):
    procs = {}
    for line in text.split("\n"):
        m = re.match(r"^\s*(?:\w+(?:\([^)]*\))?\s+)*(?:function|subroutine)\s+(\w+)\s*\(([^)]*)\)", line, re.I)
        if m:
            args = [a.strip().lower() for a in m.group(2).split(",") if a.strip()]
            procs.setdefault(m.group(1).lower(), []).append(args)
    return procs


def check_signatures(root, rel, body):
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return f"names {rel}, which does not exist"
    text = open(path, encoding="utf-8").read()
    # continuation lines joined, so that a signature split with & is read whole
    procs = fortran_procs(re.sub(r"&\s*\n\s*", " ", text))
    public = set(re.findall(r"\b(\w+)\b", " ".join(re.findall(r"public\s*::((?:[^\n]*&\s*\n)*[^\n]*)", text, re.I))))
    params = set(re.findall(r"\b(RESIZE_\w+)\s*=", text))
    for line in body:
        code = strip_comment(line, "fortran")
        m = re.search(r"\b(?:function|subroutine)\s+(\w+)\s*\(([^)]*)\)", code, re.I)
        if m:
            name = m.group(1).lower()
            args = [a.strip().lower() for a in m.group(2).split(",") if a.strip()]
            if name not in {p.lower() for p in public}:
                return f"{m.group(1)} is not public in {rel}"
            if args not in procs.get(name, []):
                return f"{m.group(1)}({', '.join(args)}): {rel} has {name} with arguments {procs.get(name)}"
    text_body = "\n".join(body)
    for const in sorted(set(re.findall(r"\bRESIZE_[A-Z_]*[A-Z]\b", text_body))):
        if const not in params or const not in public:
            return f"constant {const} is not a public parameter of {rel}"
    # the shorthand after a full name: RESIZE_NONE / _EXPAND
    for short in re.findall(r"/\s*(_[A-Z][A-Z_]*[A-Z])\b", text_body):
        if not any(c.endswith(short) for c in params & public):
            return f"constant ..{short} is not a public parameter of {rel}"
    return None


def compile_cmd(lang, root, build, src):
    inc = [f"-I{os.path.join(root, d, 'include')}" for d in ("resize", "redist", "gridmap", "blacs-dyn", "common")]
    inc += [f"-I{os.path.join(build, 'include')}", f"-I{os.path.join(build, 'generated')}"]
    if lang == "cpp":
        return ["mpicxx", "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wno-unused",
                "-DOMPI_SKIP_MPICXX=1", "-DMPICH_SKIP_MPICXX=1", *inc, "-x", "c++", src]
    if lang == "c":
        return ["mpicc", "-std=c11", "-fsyntax-only", "-Wall", "-Wno-unused", *inc, "-x", "c", src]
    return ["mpif90", "-fsyntax-only", f"-I{os.path.join(build, 'fortran-modules')}",
            f"-J{os.path.dirname(src)}", src]


def compile_snippet(root, build, harness_rel, lang, body, tmp):
    harness = os.path.join(root, harness_rel)
    if not os.path.isfile(harness):
        return f"harness {harness_rel} does not exist"
    text = open(harness, encoding="utf-8").read()
    if "@SNIPPET@" not in text:
        return f"harness {harness_rel} has no @SNIPPET@ line"
    hoist = re.compile(r"^\s*#include\b" if lang != "fortran" else r"^\s*use\b", re.I)
    heads = [x for x in body if hoist.match(x)]
    rest = [x for x in body if not hoist.match(x)]
    out = []
    for line in text.split("\n"):
        if "@INCLUDES@" in line:
            out += heads
        elif "@SNIPPET@" in line:
            out += rest
        else:
            out.append(line)
    ext = {"cpp": ".cpp", "c": ".c", "fortran": ".f90"}[lang]
    d = tempfile.mkdtemp(dir=tmp)
    src = os.path.join(d, "snippet" + ext)
    with open(src, "w") as f:
        f.write("\n".join(out) + "\n")
    try:
        r = subprocess.run(compile_cmd(lang, root, build, src), capture_output=True, text=True, timeout=120, cwd=d)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"could not compile: {e}"
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip().split("\n")
        return "does not compile in " + harness_rel + ":\n    " + "\n    ".join(msg[:12])
    return None


def doc_files(root):
    files = [os.path.join(root, "README.md")]
    g = os.path.join(root, "docs", "guide")
    if os.path.isdir(g):
        files += sorted(os.path.join(g, f) for f in os.listdir(g) if f.endswith(".md"))
    return [f for f in files if os.path.exists(f)]


def check(root, build):
    """(number of snippets per kind, problems)."""
    root, build = os.path.abspath(root), os.path.abspath(build)
    bad, jobs, kinds = [], [], {"from": 0, "compile": 0, "signatures": 0}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=2) as pool:
        for md in doc_files(root):
            rel_md = os.path.relpath(md, root)
            for no, lang, mark, body in blocks(md):
                where = f"{rel_md}:{no}: {lang} snippet"
                if not mark:
                    bad.append(f"{where} has no <!-- snippet: from|compile|signatures PATH --> line before it")
                    continue
                kind, rel = mark.groups()
                kinds[kind] += 1
                if kind == "from":
                    why = check_from(root, rel, lang, body)
                    if why:
                        bad.append(f"{where} {why}")
                elif kind == "signatures":
                    why = check_signatures(root, rel, body)
                    if why:
                        bad.append(f"{where}: {why}")
                else:
                    jobs.append((where, pool.submit(compile_snippet, root, build, rel, lang, body, tmp)))
        for where, fut in jobs:
            why = fut.result()
            if why:
                bad.append(f"{where} {why}")
    return kinds, bad


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kinds, bad = check(sys.argv[1], sys.argv[2])
    verdict(bad, f"{len(bad)} snippets", f"{kinds['from']} snippets quote a compiled file, {kinds['compile']} compile, "
            f"{kinds['signatures']} signature lists match the module")
