#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tree's structure limits (issue 31): no library file over 600 lines, no function
over 100 lines outside `main`, no two files of one part that include each other.

Usage: check-structure.py [source-dir]   (exit 1 and a list when something is over)
       check-structure.py --self-test     (proves on a scratch tree that it catches each
                                           breach, honours the allow-list and spares main)

Scope: the C++ sources (.cpp, .hpp, .h) of the parts blacs-dyn, redist, gridmap, resize,
apps (tests/ and build folders are not looked at). Exceptions are read from
scripts/structure-allow.txt: lines `file <path>` or `function <path> <name>`, each with
a comment saying why and until when.

Limits of the heuristic (no C++ parser):
- comments, string and character literals are blanked first (raw strings R"(...)" too,
  but not with a custom delimiter);
- a function is a `{` at namespace or class level whose head (the text since the last
  `;`, `{` or `}`) holds a `(` and does not start with namespace/class/struct/union/enum,
  extern "C" or a `=` initialiser; its length counts the lines from the head's `{` to
  the matching `}`; its name is the identifier before the head's first `(`. Macros that
  open braces, or brace initialisers in a constructor's member list, can confuse it;
- an include edge is `#include "x"` resolved against the including file's folder, the
  part's src/ and include/ folders; two files include each other when each reaches the
  other directly or through a header of the other's name (a.cpp -> b.hpp and
  b.cpp -> a.hpp count as a.* <-> b.*, one module per folder and base name).
"""
import os
import re
import sys

PARTS = ["blacs-dyn", "redist", "gridmap", "resize", "apps"]
EXTS = (".cpp", ".hpp", ".h")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 100


def blank(text):
    """Comments and literals replaced by spaces (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"(', i):
            j = text.find(')"', i + 3)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()):  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " ")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


SCOPE_HEAD = re.compile(r'^\s*(template\s*<.*>\s*)?(namespace|class|struct|union|enum|extern\s*"\s*")\b', re.S)


def functions(text):
    """(name, first line, line count) of every function body at namespace/class level."""
    code = blank(text)
    # preprocessor lines out (they hold no braces that matter, and #define bodies confuse)
    code = re.sub(r"(?m)^[ \t]*#.*(\\\n.*)*$", lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)
    found = []
    stack = []  # per open brace: 'scope' or 'function' or 'block'
    head_start = 0
    fn_open = None
    for i, c in enumerate(code):
        if c in ";":
            head_start = i + 1
        elif c == "{":
            head = code[head_start:i]
            in_function = any(k == "function" for k, _ in stack)
            if in_function:
                kind = "block"
            elif SCOPE_HEAD.match(head) or "(" not in head or re.search(r"=\s*$", head):
                kind = "scope"
            else:
                kind = "function"
            stack.append((kind, i))
            if kind == "function":
                m = re.search(r"([~\w:]+|operator\s*\S+)\s*\(", head)
                name = m.group(1) if m else "?"
                fn_open = (name, code.count("\n", 0, i) + 1)
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, _ = stack.pop()
                if kind == "function" and fn_open:
                    last = code.count("\n", 0, i) + 1
                    found.append((fn_open[0], fn_open[1], last - fn_open[1] + 1))
                    fn_open = None
            head_start = i + 1
    return found


def includes(path, text, part_dir):
    here = os.path.dirname(path)
    out = []
    for m in re.finditer(r'(?m)^\s*#\s*include\s*"([^"]+)"', text):
        name = m.group(1)
        for base in (here, os.path.join(part_dir, "src"), os.path.join(part_dir, "include"), part_dir):
            p = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(p):
                out.append(p)
                break
    return out


def module(path):
    return os.path.splitext(path)[0]


def check(root):
    allow_files, allow_functions = set(), set()
    allow_path = os.path.join(root, "scripts", "structure-allow.txt")
    if os.path.isfile(allow_path):
        for line in open(allow_path, encoding="utf-8"):
            words = line.split("#", 1)[0].split()
            if len(words) == 2 and words[0] == "file":
                allow_files.add(words[1])
            elif len(words) == 3 and words[0] == "function":
                allow_functions.add((words[1], words[2]))
    problems = []
    for part in PARTS:
        part_dir = os.path.join(root, part)
        edges = {}
        for dirpath, dirnames, filenames in os.walk(part_dir):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
            for f in sorted(filenames):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8", errors="replace").read()
                lines = text.count("\n")
                if lines > MAX_FILE_LINES and rel not in allow_files:
                    problems.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES})")
                if rel not in allow_files:
                    for name, first, count in functions(text):
                        short = name.split("::")[-1]
                        if count > MAX_FUNCTION_LINES and short != "main" and (rel, short) not in allow_functions:
                            problems.append(f"{rel}:{first}: function {name} {count} lines (limit {MAX_FUNCTION_LINES})")
                for inc in includes(path, text, part_dir):
                    a, b = module(path), module(inc)
                    if a != b:
                        edges.setdefault(a, set()).add(b)
        for a in sorted(edges):
            for b in sorted(edges[a]):
                if a < b and a in edges.get(b, set()):
                    problems.append(f"{os.path.relpath(a, root)}.* and {os.path.relpath(b, root)}.* include each other")
    return problems


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        body = lambda n: "".join(f"  x += {k};  // {{ not a brace\n" for k in range(n))
        write("resize/src/long.cpp", "namespace a {\nint f(int x) {\n" + body(99) + "  return x;\n}\n}\n")
        write("resize/src/ok.cpp", "struct S {\n  int g(int x) const {\n" + body(97) + "  return x; }\n};\n")
        write("apps/main.cpp", "int main(int argc, char** argv) {\n  int x = 0;\n" + body(150) + "  return x;\n}\n")
        write("gridmap/src/big.hpp", "#pragma once\n" + "// line\n" * 600)
        write("blacs-dyn/src/a.hpp", '#include "b.hpp"\n')
        write("blacs-dyn/src/b.hpp", "#pragma once\n")
        write("blacs-dyn/src/b.cpp", '#include "a.hpp"\n#include "b.hpp"\n')
        write("blacs-dyn/src/c.cpp", '#include "a.hpp"\n')
        got = check(root)
        want = ["resize/src/long.cpp:2: function f 102 lines",
                "gridmap/src/big.hpp: 601 lines",
                "blacs-dyn/src/a.* and blacs-dyn/src/b.* include each other"]
        ok = len(got) == len(want) and all(any(p.startswith(w) for p in got) for w in want)
        write("scripts/structure-allow.txt", "function resize/src/long.cpp f  # why\nfile gridmap/src/big.hpp\n")
        allowed = check(root)
        ok = ok and len(allowed) == 1 and "include each other" in allowed[0]
    print("check-structure self-test:", "PASS" if ok else f"FAILED (found {got}, with the allow-list {allowed})")
    return ok


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check-structure: FAILED, {len(problems)} over the limits (scripts/check-structure.py)")
        return 1
    print("check-structure: PASS: files <= 600 lines, functions <= 100 lines, no two files of a part include each other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
