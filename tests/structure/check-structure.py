#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tree's structure limits: no library file over 600 lines, no function over 100
lines outside `main` (and the case_* entries of the parts' bench programs), no two files of one part that include each other; and in the
library sources (the src/ and include/ folders of the parts) no class or struct with
more than 20 data members, no `getenv` outside the parts' configuration files
(config.cpp / config.hpp, docs/guide/configuration.md), no "issue N" citation (the issues
are not in the repository; comments say what the code does), and redist's exchange
entry points and data messages only in the move's one builder and redist's executor
(ENTRY_POINTS); inside resize/src (and cluster/src, blacs-dyn/src), every include points
down the rooms' layers, none across a layer (LAYERS: no room includes the session's
internals, session/, from below) and the facade's state, session/session_impl.hpp, is
included by at most MAX_INCLUDERS files.

Usage: check-structure.py [source-dir]   (exit 1 and a list when something is over)
       check-structure.py --self-test     (proves on a scratch tree that it catches each
                                           breach, honours the allow-list and spares main)
       check-structure.py --entry-points [source-dir]   (the ENTRY_POINTS rules alone)
       check-structure.py --layers [source-dir]   (the LAYERS and MAX_INCLUDERS rules alone)
       check-structure.py --components [source-dir]   (structure_components.py: each
                                           component includes only those it depends on;
                                           the daemon's code in no library)
       check-structure.py --components-mutation [source-dir]   (plants a breach of each
                                           of those rules on a copy, proves each fails)
       check-structure.py --layers-mutation [source-dir]   (copies the src/ of the
                                           parts in LAYERS, plants an include of the
                                           session's internals in each lower room, of each
                                           room above and of each other room of its layer
                                           in every room, and a ninth includer, and proves
                                           --layers fails on each)
       check-structure.py --matrix-types [source-dir]   (structure_matrix_types.py: every
                                           type describing a matrix is one of the at most 4
                                           of tests/structure/matrix-types.txt)
       check-structure.py --matrix-types-mutation [source-dir]   (plants a fifth type, an
                                           unlisted one and a fifth entry; proves each fails)
       check-structure.py --test-tree [source-dir]   (structure_test_tree.py: the tests
                                           of resize, blacs-dyn and cluster in the folders
                                           of their src/)
       check-structure.py --test-tree-mutation [source-dir]   (plants a flat test and a
                                           folder that mirrors nothing; proves each fails)
       check-structure.py --benches [source-dir]   (structure_benches.py: each part's
                                           benchmarks one program in its bench/)
       check-structure.py --benches-mutation [source-dir]   (plants a second program and
                                           a bench in tests/; proves each fails)
       check-structure.py --sizes [source-dir]   (structure_sizes.py: scripts/bench at most
                                           60 files, docs/data 500 files and 5 MB)
       check-structure.py --sizes-mutation   (plants a file and a byte over each limit on a
                                           scratch tree; proves each fails)
       check-structure.py --class-spread [source-dir]   (structure_class_spread.py: no class
                                           defines its member functions in more .cpp files than 2
                                           or its ceiling in tests/structure/class-spread.txt,
                                           each ceiling today's count)
       check-structure.py --class-spread-mutation [source-dir]   (plants a class over 3 files,
                                           a file more and a raised ceiling; proves each fails)

Scope: the C++ sources (.cpp, .hpp, .h) of the parts blacs-dyn, redist, gridmap, resize,
apps (tests/ and build folders are not looked at). Exceptions are read from
tests/structure/structure-allow.txt: lines `file <path>`, `function <path> <name>`,
`members <path> <class>` or `issue <path>`, each with a comment saying why and until when.

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
  b.cpp -> a.hpp count as a.* <-> b.*, one module per folder and base name);
- a class's data members are the statements ending in `;` directly in a `class`/`struct`
  body (at namespace or class level) that are not functions (a `(` before any `=`, with
  template arguments removed), `using`, `typedef`, `friend`, `static`, `enum`, nested
  types or `static_assert`; `int a, b;` counts two.
"""
import os
import re
import sys

PARTS = ["blacs-dyn", "redist", "gridmap", "cluster", "launcher", "resize", "apps", "common"]
EXTS = (".cpp", ".hpp", ".h")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 100          # programs: benches, CLIs, drivers, tests (main aside)
MAX_LIBRARY_FUNCTION_LINES = 60   # library sources (src/, include/ of a part)
MAX_DATA_MEMBERS = 20
ISSUE_CITATION = re.compile(r"\bissues?\s+[0-9]", re.I)
# The design's papers are cited by author or title ("the thesis", "DRMS"): the
# numbered copies the project started from are not in the repository either.
SEED_CITATION = re.compile(r"\bseeds? 00[0-9]", re.I)
TEXT_EXTS = (".cpp", ".hpp", ".h", ".c", ".f90", ".py", ".sh", ".txt", ".cmake", ".md", ".in", ".json")
# Not read for citations: the history (it names what each change answered), measured
# runs' own notes, this checker and its allow-list.
CITATION_SKIP = ("CHANGELOG.md", os.path.join("tests", "structure", "check-structure.py"),
                 os.path.join("tests", "structure", "structure-allow.txt"))
CONFIG_FILES = ("config.cpp", "config.hpp")
# One way in to the engine that moves a matrix: a pattern (in code; comments and literals
# are blanked) that only the named files of the folder may hold. Not allow-listable: a
# second place is a second executor or a second builder. resize: the move's one builder
# of exchange items (move/move_items.*) is the only caller of redist's exchange entry
# points. redist: data goes point to point only in its one engine (exec/exchange.cpp,
# docs/reference/redist.md, "One engine for every move") and the on-node steps it runs
# (single_copy.cpp, node_window.hpp); a new file that posts data messages or exchanges
# them collectively is a second executor.
ENTRY_POINTS = [
    (os.path.join("resize", "src"),
     re.compile(r"\bExchangeItem\b|\bredist::Exchange\b|\bredist::redistribute\b"),
     {os.path.join("resize", "src", "move", f) for f in ("move_items.hpp", "move_items.cpp")},
     "redist's exchange entry point outside the move's one builder (resize/src/move/move_items.*)"),
    (os.path.join("redist", "src"),
     re.compile(r"\bMPI_(I?[sbr]?send|I?recv|Sendrecv|R?put|R?get|I?alltoall[vw]?|I?neighbor_alltoall[vw]?)\b",
                re.I),
     {os.path.join("redist", "src", "exec", f) for f in ("exchange.cpp", "single_copy.cpp", "node_window.hpp")},
     "a data message outside redist's one engine (redist/src/exec/exchange.cpp and its on-node steps "
     "single_copy.cpp, node_window.hpp): one engine moves every matrix"),
]

# The rooms of a part's src/ as layers, top first: a file may include its own room and the
# layers below, never a layer above ("no include points back up") nor another room of its
# layer (the rooms of one layer include neither each other: one that includes another sits
# above it). resize: the session's facade (session/: Session::Impl and the Session's
# methods) on top; the report (its planner reads the background part's plan), the
# background part, then the checkpoints, take the parts they need as arguments; the
# executor of a resize's plan (exec/: the start of processes, the hand-over, the commit)
# over the parts (parts/: the world, the registry, the grid switch, the recording, the
# shrink); below them the movers, the policies (and the plan as a value) and resize's values. Not allow-listable; a room that
# is in no layer is itself a problem (place it).
LAYERS = [
    (os.path.join("resize", "src"),
     [["session"], ["report"], ["background"], ["checkpoint"], ["exec"], ["parts"], ["move", "policy"], ["common"]]),
    # cluster: the daemon and the job's agent on top, both over the arbiter's wire protocol
    # and client; the arbitration between jobs over Slurm's words (slurm/).
    (os.path.join("cluster", "src"),
     [["daemon", "agent"], ["arbiter"], ["arbitration"], ["slurm"]]),
    # blacs-dyn: the entry points (interposition, C API, the background seat) call the
    # Runtime; the runtime calls the platform (the BLACS glue, the MPI probe, the
    # configuration), which knows no runtime; the pure protocol/ at the bottom.
    (os.path.join("blacs-dyn", "src"),
     [["entry"], ["runtime"], ["platform"], ["protocol"]]),
]
# Headers that only a few files may include: the facade's state is the facade's business.
MAX_INCLUDERS = {os.path.join("resize", "src", "session", "session_impl.hpp"): 8}
# A part's public facade, included in its src/ only by the room on top: the rooms below
# speak the vocabulary beneath it (resize: malleable/resize/session_options.hpp), so that
# nothing below the session is built against the Session it serves. Not allow-listable.
FACADES = [(os.path.join("resize", "src"), "malleable/resize/session.hpp", "session")]


def layer_problems(root):
    """LAYERS and MAX_INCLUDERS over the tree: an include that points up a layer or across
    one, a room in no layer, a header included by more files than allowed (tests/ counted
    too)."""
    problems = []
    for src, layers in LAYERS:
        level = {room: k for k, rooms in enumerate(layers) for room in rooms}
        base = os.path.join(root, src)
        part_dir = os.path.join(root, src.split(os.sep)[0])
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, base)
            if rel_dir == ".":
                continue
            room = rel_dir.split(os.sep)[0]
            for f in sorted(filenames):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                if room not in level:
                    problems.append(f"{rel}: room {room}/ is in no layer of {src} (tests/structure/check-structure.py LAYERS)")
                    continue
                text = open(path, encoding="utf-8", errors="replace").read()
                code = blank_comments(text)
                for m in re.finditer(r'(?m)^[ \t]*#[ \t]*include\s*"([^"]+)"', code):
                    target = m.group(1)
                    other = target.split("/")[0]
                    if "/" not in target or other == room or other not in level:
                        if "/" in target and other not in level and os.path.isdir(os.path.join(base, other)):
                            problems.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: includes {target}: "
                                            f"room {other}/ is in no layer of {src}")
                        continue
                    if level[other] < level[room]:
                        problems.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: includes {target}: "
                                        f"{room}/ is below {other}/ (an include points back up a layer; pass the "
                                        "parts it needs as arguments)")
                    elif level[other] == level[room]:
                        problems.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: includes {target}: "
                                        f"{room}/ and {other}/ share a layer (rooms of one layer include neither "
                                        f"each other: put {room}/ above {other}/)")
    for src, header, top in FACADES:
        base = os.path.join(root, src)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            room = os.path.relpath(dirpath, base).split(os.sep)[0]
            if room in (".", top):
                continue
            for f in sorted(filenames):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, f)
                code = blank_comments(open(path, encoding="utf-8", errors="replace").read())
                for m in re.finditer(r'(?m)^[ \t]*#[ \t]*include\s*"' + re.escape(header) + '"', code):
                    problems.append(f"{os.path.relpath(path, root)}:{code.count(chr(10), 0, m.start()) + 1}: includes "
                                    f"{header}, the facade: only {top}/ may (include its vocabulary, "
                                    "malleable/resize/session_options.hpp)")
    for header, most in MAX_INCLUDERS.items():
        name = os.path.relpath(header, os.path.join(header.split(os.sep)[0], "src"))
        users = []
        for top in ["tests"] + PARTS:
            for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
                for f in sorted(filenames):
                    if f.endswith(EXTS):
                        text = blank_comments(open(os.path.join(dirpath, f), encoding="utf-8", errors="replace").read())
                        if re.search(r'(?m)^\s*#\s*include\s*"' + re.escape(name) + '"', text):
                            users.append(os.path.relpath(os.path.join(dirpath, f), root))
        if len(users) > most:
            problems.append(f"{header}: included by {len(users)} files (limit {most}): {', '.join(users)}")
    return problems


def blank_comments(text):
    """Comments replaced by spaces (newlines kept); literals kept, so include names stay."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def first_file(folder, exts):
    """The first file (sorted, walking down) under `folder` whose name ends with one of
    `exts`, relative to `folder`; None if there is none."""
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(exts):
                return os.path.relpath(os.path.join(dirpath, f), folder)
    return None


def planted_layer_breaches(tmp, src, layers):
    """On the copy `tmp`: in a file of each room of `src`'s layers, an include of a header of
    each room on a layer above it and of each other room of its own layer, planted one at a
    time; True if the layer check flags every one."""
    ok = True
    for k, rooms in enumerate(layers):
        for room in rooms:
            folder = os.path.join(tmp, src, room)
            victim = first_file(folder, EXTS)
            path = os.path.join(folder, victim)
            text = open(path, encoding="utf-8").read()
            for upper in [r for above in layers[:k] for r in above] + [r for r in rooms if r != room]:
                # a header of that room, else any of its files (cluster's agent/ has no header)
                target = first_file(os.path.join(tmp, src, upper), (".hpp", ".h")) or \
                    first_file(os.path.join(tmp, src, upper), EXTS)
                planted = upper + "/" + target.replace(os.sep, "/")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(f'#include "{planted}"\n' + text)
                rel = os.path.join(src, room, victim)
                hit = any(p.startswith(rel + ":1: includes " + planted) for p in layer_problems(tmp))
                where = "its own layer" if upper in rooms else "a layer up"
                print(f"layers mutation: {rel} includes {planted} ({where}): " + ("caught" if hit else "MISSED"))
                ok = ok and hit
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    return ok


def layers_mutation(root):
    """On a copy of the tree's src/ of every part in LAYERS and of tests/: the layer check
    passes as it is, and fails on an include of the session's internals or of its facade
    (session.hpp) planted in each room below resize's session/, on an include of each room
    above and of each other room of its layer planted in each room (every part), and on one
    includer of session_impl.hpp past the limit."""
    import shutil
    import tempfile
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for src, _ in LAYERS:
            shutil.copytree(os.path.join(root, src), os.path.join(tmp, src))
        os.makedirs(os.path.join(tmp, "tests"))
        clean = layer_problems(tmp)
        if clean:
            print("layers mutation: the copied tree fails already:", clean)
            return False
        _, layers = LAYERS[0]
        below = [room for rooms in layers[1:] for room in rooms]
        for room in below:
            folder = os.path.join(tmp, "resize", "src", room)
            victim = sorted(f for f in os.listdir(folder) if f.endswith(EXTS))[0]
            path = os.path.join(folder, victim)
            text = open(path, encoding="utf-8").read()
            for planted in ("session/session_impl.hpp", "session/cached_map.hpp", "malleable/resize/session.hpp"):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(f'#include "{planted}"\n' + text)
                got = layer_problems(tmp)
                hit = any(p.startswith(os.path.join("resize", "src", room, victim) + ":1: includes " + planted)
                          for p in got)
                print(f"layers mutation: {room}/{victim} includes {planted}: " + ("caught" if hit else "MISSED"))
                ok = ok and hit
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        for src, layers in LAYERS:
            ok = planted_layer_breaches(tmp, src, layers) and ok
        # the includers' limit: the copy's resize/src holds as many as allowed; one more fails
        for k in range(1):
            with open(os.path.join(tmp, "tests", f"user{k}.cpp"), "w", encoding="utf-8") as f:
                f.write('#include "session/session_impl.hpp"\n')
        got = layer_problems(tmp)
        hit = any("session_impl.hpp: included by" in p for p in got)
        print("layers mutation: one more includer of session_impl.hpp: " + ("caught" if hit else "MISSED"))
        ok = ok and hit
    print("check-structure --layers-mutation:", "PASS" if ok else "FAILED")
    return ok


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

CLASS_HEAD = re.compile(r'^\s*(?:template\s*<.*>\s*)?(?:class|struct)\s+(?:\[\[[^\]]*\]\]\s*)?(?:alignas\s*\([^)]*\)\s*)?([\w:]+)', re.S)
NOT_DATA = re.compile(r"^(using|typedef|friend|static|enum|struct|class|union|template|static_assert|namespace)\b")


from structure_matrix_types import strip_nested  # noqa: E402  (the text outside nested brackets; one copy)
from structure_walk import source_files  # noqa: E402  (the walk of a source folder; one copy)


def data_members(statement):
    """How many data members a statement directly in a class body declares."""
    st = re.sub(r"\b(public|private|protected)\s*:(?!:)", " ", statement).strip()
    if not st or NOT_DATA.match(st) or st.startswith("~"):
        return 0
    decl = re.split(r"=(?!=)", st, maxsplit=1)[0] if not st.startswith("operator") else st
    decl = strip_nested(decl, "<", ">")
    if "(" in decl or "operator" in decl:
        return 0
    whole = strip_nested(strip_nested(strip_nested(strip_nested(st, "<", ">"), "(", ")"), "{", "}"), "[", "]")
    return whole.count(",") + 1


def classes(text):
    """(name, first line, data member count) of every class/struct body at namespace/class level."""
    code = blank(text)
    code = re.sub(r"(?m)^[ \t]*#.*(\\\n.*)*$", lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)
    found = []
    stack = []  # per open brace: [kind, name, line, members, statement-so-far]
    head_start = 0
    for i, c in enumerate(code):
        top = stack[-1] if stack else None
        if c == ";":
            if top and top[0] == "class":
                top[3] += data_members(code[head_start:i])
            head_start = i + 1
        elif c == "{":
            head = code[head_start:i]
            in_function = any(k[0] in ("function", "block") for k in stack)
            m = CLASS_HEAD.match(head)
            if in_function:
                kind = "block"
            elif m and not re.search(r"=\s*$", head):
                kind = "class"
            elif top and top[0] == "class" and "(" not in strip_nested(re.split(r"=(?!=)", head, maxsplit=1)[0], "<", ">") :
                kind = "init"  # a brace initialiser of a member: the statement goes on
            elif SCOPE_HEAD.match(head) or "(" not in head or re.search(r"=\s*$", head):
                kind = "scope"
            else:
                kind = "function"
            stack.append([kind, m.group(1) if m and kind == "class" else "", code.count("\n", 0, i) + 1, 0, head])
            if kind != "init":
                head_start = i + 1
        elif c == "}":
            if stack:
                kind, name, line, members, head = stack.pop()
                if kind == "class":
                    found.append((name, line, members))
                if kind != "init":
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


def is_library(rel):
    """A library source: under a src/ or include/ folder of a part."""
    return any(d in ("src", "include") for d in rel.split(os.sep)[1:-1])


def library_problems(rel, text, allow_members, allow_issues):
    problems = []
    for name, line, count in classes(text):
        if count > MAX_DATA_MEMBERS and (rel, name) not in allow_members:
            problems.append(f"{rel}:{line}: class {name} has {count} data members (limit {MAX_DATA_MEMBERS})")
    for folder, pattern, allowed, what in ENTRY_POINTS:
        if rel.startswith(folder + os.sep) and rel not in allowed:
            code = blank(text)
            for m in pattern.finditer(code):
                problems.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: {m.group(0)}: {what}")
    if os.path.basename(rel) not in CONFIG_FILES:
        code = blank(text)
        for m in re.finditer(r"\bgetenv\b", code):
            problems.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: getenv outside the part's config.cpp "
                            "(read the environment there, docs/guide/configuration.md)")
    return problems


def check(root):
    allow_files, allow_functions, allow_members, allow_issues = set(), set(), set(), set()
    unexplained = []
    allow_path = os.path.join(root, "tests", "structure", "structure-allow.txt")
    if os.path.isfile(allow_path):
        for line in open(allow_path, encoding="utf-8"):
            words = line.split("#", 1)[0].split()
            if len(words) == 2 and words[0] == "file":
                allow_files.add(words[1])
            elif len(words) == 3 and words[0] == "function":
                allow_functions.add((words[1], words[2]))
                if "#" not in line or not line.split("#", 1)[1].strip():
                    unexplained.append(f"tests/structure/structure-allow.txt: function {words[1]} {words[2]} "
                                       "has no reason (a one-line reason after '#')")
            elif len(words) == 3 and words[0] == "members":
                allow_members.add((words[1], words[2]))
            elif len(words) == 2 and words[0] == "issue":
                allow_issues.add(words[1])
    problems = list(unexplained)
    for part in PARTS:
        part_dir = os.path.join(root, part)
        edges = {}
        for path in source_files(part_dir, EXTS):
            rel = os.path.relpath(path, root)
            text = open(path, encoding="utf-8", errors="replace").read()
            lines = text.count("\n")
            if lines > MAX_FILE_LINES and rel not in allow_files:
                problems.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES})")
            if rel not in allow_files:
                limit = MAX_LIBRARY_FUNCTION_LINES if is_library(rel) else MAX_FUNCTION_LINES
                for name, first, count in functions(text):
                    short = name.split("::")[-1]
                    if count > limit and not entry_function(rel, short) and (rel, short) not in allow_functions:
                        problems.append(f"{rel}:{first}: function {name} {count} lines (limit {limit})")
            if is_library(rel):
                problems += library_problems(rel, text, allow_members, allow_issues)
            for inc in includes(path, text, part_dir):
                a, b = module(path), module(inc)
                if a != b:
                    edges.setdefault(a, set()).add(b)
        for a in sorted(edges):
            for b in sorted(edges[a]):
                if a < b and a in edges.get(b, set()):
                    problems.append(f"{os.path.relpath(a, root)}.* and {os.path.relpath(b, root)}.* include each other")
    problems += citation_problems(root, allow_issues)
    problems += layer_problems(root)
    return problems


def citation_problems(root, allow_issues):
    """No tracked text (sources, scripts, tests, CMake, README, docs; not docs/data, the
    changelog, this checker) cites an issue or a numbered seed paper: a reader cannot
    follow either; say what the code or the text does."""
    problems = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith((".", "build")) and d != "node_modules"
                             and os.path.normpath(os.path.join(rel_dir, d)) != os.path.join("docs", "data"))
        for f in sorted(filenames):
            if not f.endswith(TEXT_EXTS):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            if rel in CITATION_SKIP or rel in allow_issues:
                continue
            text = open(path, encoding="utf-8", errors="replace").read()
            for rx, what in ((ISSUE_CITATION, "an issue"), (SEED_CITATION, "a numbered seed paper")):
                for m in rx.finditer(text):
                    problems.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: cites {what} ('{m.group(0)}'); "
                                    "neither is in the repository: say what it is")
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
        write("resize/src/ok.cpp", "struct S {\n  int g(int x) const {\n" + body(57) + "  return x; }\n};\n")
        # a library function of 62 lines: over the library's 60; a bench's of 82: within 100
        write("redist/src/sixty.cpp", "namespace a {\nint s(int x) {\n" + body(59) + "  return x;\n}\n}\n")
        write("redist/bench/eighty.cpp", "namespace a {\nint e(int x) {\n" + body(79) + "  return x;\n}\n}\n")
        write("apps/main.cpp", "int main(int argc, char** argv) {\n  int x = 0;\n" + body(150) + "  return x;\n}\n")
        write("gridmap/src/big.hpp", "#pragma once\n" + "// line\n" * 600)
        write("blacs-dyn/src/a.hpp", '#include "b.hpp"\n')
        write("blacs-dyn/src/b.hpp", "#pragma once\n")
        write("blacs-dyn/src/b.cpp", '#include "a.hpp"\n#include "b.hpp"\n')
        write("blacs-dyn/src/c.cpp", '#include "a.hpp"\n')
        members = lambda n: "".join(f"  int m{k} = {k};  // a; b;\n" for k in range(n))
        # 21 data members (one line declares two), beside functions, types and statics
        write("redist/src/wide.hpp", "#pragma once\n#include <vector>\nnamespace r {\nstruct Wide {\n" + members(18) +
              "  std::vector<int> v{1, 2};\n  double x, y;\n  int f(int a) const { return a; }\n  void g(int);\n"
              "  static constexpr int kMax = 3;\n  using T = int;\n  enum class E { a, b };\n"
              "  struct Inner { int p; };\n  bool operator==(const Wide&) const = default;\n};\n}\n")
        # 20 data members, a class in a class, a brace-initialised member: within the limit
        write("resize/src/narrow.hpp", "#pragma once\nclass Narrow {\n public:\n" + members(19) +
              "  std::function<void(int)> cb{};\n  class Deep {\n" + members(3) + "  };\n};\n")
        write("resize/src/common/config.cpp", "#include <cstdlib>\nconst char* v() { return std::getenv(\"X\"); }\n")
        write("resize/src/session/reads.cpp", "#include <cstdlib>\n// reads X\nconst char* w() { return std::getenv(\"X\"); }\n")
        write("blacs-dyn/include/malleable/cites.hpp", "#pragma once\n// as Issue 12 asked\n")
        write("resize/bench/bench.cpp", "// issue 3: benches cite nothing either\n#include <cstdlib>\n"
              "int main() { return std::getenv(\"X\") != nullptr; }\n")
        write("docs/guide/cites.md", "# A page\n\nFixed in issue 7.\n")
        write("docs/data/x/section.md", "issue 8 in a measured run's own notes\n")
        write("scripts/run.sh", "# after seed 002 \u00a73\n")
        write("CHANGELOG.md", "- issue 9: the history may name them\n")
        # One builder, one executor: named in a comment anywhere, called only in their files
        call = "  redist::Exchange ex(c, items);  // redist::redistribute in a comment\n"
        write("resize/src/move/move_items.cpp", "void f() {\n" + call + "}\n")
        write("resize/src/session/second_move.cpp", "// std::vector<redist::ExchangeItem>\nvoid g() {\n" + call + "}\n")
        write("redist/src/exec/exchange.cpp", "void h() { MPI_Isend(b, 1, t, 0, 0, c, &r); }\n")
        write("redist/src/exec/single_copy.cpp", "void h() { MPI_Irecv(b, 1, t, 0, 0, c, &r); }\n")
        write("redist/src/exec/second_engine.cpp", "// MPI_Irecv\nvoid e() {\n  MPI_Irecv(b, 1, t, 0, 0, c, &r);\n}\n")
        # The layers: the session's internals included from the checkpoints (up), a part
        # included from the facade (down: fine)
        write("resize/src/checkpoint/up.cpp", '#include "session/session_impl.hpp"\n')
        write("resize/src/session/down.cpp", '#include "parts/registry.hpp"\n#include "session/session_impl.hpp"\n')
        # the executor that was merged into the engine, back beside it: its sends and an alltoall
        write("redist/src/exec/nonblocking.cpp", "void n(int k) {\n  MPI_Isend(b, k, t, 0, 0, c, &r);\n"
              "  MPI_Ialltoallv(x, c, d, t, y, c, d, t, m, &r);\n}\n")
        got = check(root)
        want = ["resize/src/checkpoint/up.cpp:1: includes session/session_impl.hpp: checkpoint/ is below session/",
                "docs/guide/cites.md:3: cites an issue ('issue 7",
                "resize/bench/bench.cpp:1: cites an issue ('issue 3",
                "scripts/run.sh:1: cites a numbered seed paper ('seed 002",
                "resize/src/long.cpp:2: function f 102 lines",
                "redist/src/sixty.cpp:2: function s 62 lines (limit 60)",
                "gridmap/src/big.hpp: 601 lines",
                "blacs-dyn/src/a.* and blacs-dyn/src/b.* include each other",
                "redist/src/wide.hpp:4: class Wide has 21 data members",
                "resize/src/session/reads.cpp:3: getenv outside",
                "blacs-dyn/include/malleable/cites.hpp:2: cites an issue ('Issue 1",
                "resize/src/session/second_move.cpp:3: redist::Exchange: redist's exchange entry point outside",
                "redist/src/exec/second_engine.cpp:3: MPI_Irecv: a data message outside redist's one engine",
                "redist/src/exec/nonblocking.cpp:2: MPI_Isend: a data message outside redist's one engine",
                "redist/src/exec/nonblocking.cpp:3: MPI_Ialltoallv: a data message outside redist's one engine"]
        ok = len(got) == len(want) and all(any(p.startswith(w) for p in got) for w in want)
        write("tests/structure/structure-allow.txt", "function resize/src/long.cpp f  # why\nfile gridmap/src/big.hpp\n"
              "function redist/src/sixty.cpp s\n"
              "members redist/src/wide.hpp Wide  # why\nissue blacs-dyn/include/malleable/cites.hpp  # why\n"
              "issue docs/guide/cites.md  # why\nissue resize/bench/bench.cpp  # why\nissue scripts/run.sh  # why\n")
        allowed = check(root)
        kept = ["include each other", "getenv", "second_move.cpp:3", "second_engine.cpp:3", "up.cpp:1",
                "nonblocking.cpp:2", "nonblocking.cpp:3", "function redist/src/sixty.cpp s has no reason"]
        ok = ok and len(allowed) == len(kept) and all(any(k in p for p in allowed) for k in kept)
    print("check-structure self-test:", "PASS" if ok else f"FAILED (found {got}, with the allow-list {allowed})")
    return ok


def entry_point_problems(root):
    """ENTRY_POINTS alone, over the library sources of the tree."""
    problems = []
    for folder, _, _, _ in ENTRY_POINTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(EXTS):
                    rel = os.path.relpath(os.path.join(dirpath, f), root)
                    text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
                    problems += [p for p in library_problems(rel, text, set(), set()) if ": MPI_" in p or
                                 "exchange entry point" in p]
    return problems


BENCH_PROGRAMS = ("redist", "resize", "blacs-dyn")  # the parts whose bench/ is one program of cases


def entry_function(rel, short):
    """A program's entry, spared the function limit: `main`, and a case of
    malleable-redist-bench, -resize-bench or -blacs-dyn-bench (<part>/bench/*.cpp's case_*, each a
    former program's main)."""
    return short == "main" or (any(rel.startswith(os.path.join(part, "bench", "")) for part in BENCH_PROGRAMS)
                               and short.startswith("case_"))


def run_rule_module(name, flag):
    """structure_components.py or structure_matrix_types.py: its problems(root) printed with a
    verdict (the module's pass_message()), or its mutation(root)."""
    import importlib
    module = importlib.import_module(name)
    root = arg_root(2)
    if sys.argv[1].endswith("-mutation"):
        return 0 if module.mutation(root) else 1
    return verdict(module.problems(root), flag, module.PASS_MESSAGE)


def arg_root(k):
    """The source tree: argument k, else the one this checker is in."""
    return os.path.abspath(sys.argv[k] if len(sys.argv) > k else os.path.join(os.path.dirname(__file__), "..", ".."))


def verdict(problems, flag, pass_message):
    """Each problem on a line, then the rule's verdict; the exit status."""
    for p in problems:
        print(p)
    print(f"check-structure {flag}:", f"FAILED, {len(problems)}" if problems else "PASS: " + pass_message)
    return 1 if problems else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    # The rules kept in modules of their own: --NAME checks the tree, --NAME-mutation proves
    # the rule catches each planted breach.
    for flag, module in (("--components", "structure_components"), ("--matrix-types", "structure_matrix_types"),
                         ("--test-tree", "structure_test_tree"), ("--benches", "structure_benches"),
                         ("--sizes", "structure_sizes"), ("--class-spread", "structure_class_spread")):
        if sys.argv[1:2] in ([flag], [flag + "-mutation"]):
            return run_rule_module(module, flag)
    if sys.argv[1:2] == ["--layers-mutation"]:
        return 0 if layers_mutation(arg_root(2)) else 1
    if sys.argv[1:2] == ["--layers"]:
        return verdict(layer_problems(arg_root(2)), "--layers",
                       "every include in resize/src, cluster/src and blacs-dyn/src points down its rooms' layers, "
                       "none across one; "
                       "session_impl.hpp within its includers' limit")
    if sys.argv[1:2] == ["--entry-points"]:  # the one builder and the one executor alone
        return verdict(entry_point_problems(arg_root(2)), "--entry-points",
                       "redist's exchange entry points only in resize/src/move/move_items.*, data messages only in "
                       "redist's one engine")
    root = arg_root(1)
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check-structure: FAILED, {len(problems)} over the limits (tests/structure/check-structure.py)")
        return 1
    print("check-structure: PASS: files <= 600 lines, library functions <= 60 lines (programs 100), no two files of a part include each other, "
          "classes <= 20 data members, getenv only in config files, no issue citations, one move builder and one "
          "executor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
