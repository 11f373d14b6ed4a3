# SPDX-License-Identifier: BSD-3-Clause
"""The class-spread rule of tests/structure/check-structure.py (--class-spread, --class-spread-mutation):

  spread   a class (or struct) of the parts' sources defines its member functions in at
           most 2 .cpp files, or in at most as many as tests/structure/class-spread.txt lists
           for it; each listed ceiling is today's count exactly (a class spread over fewer
           files must have its line lowered, or taken out at 2 and below): a ratchet, the
           ceilings only go down. A class's member functions defined in a .cpp file are the
           `Class::name(` (and `Outer::Inner::name(`, counted for Outer::Inner) definitions
           at namespace scope: a body, or `= default`.

A class is named by its part and its qualified name below the namespaces (`resize
Session::Impl`); a component of a definition's qualified name is a class when some source
of the parts defines a class or struct of that name (the namespaces before it are dropped).
Heuristic limits: no C++ parser (comments and literals blanked, preprocessor lines out);
definitions of members of class templates (`Foo<T>::f`) count as Foo's; two classes of one
name in two namespaces of one part count as one.

Usage (through check-structure.py): --class-spread [source-dir], --class-spread-mutation [source-dir].
"""
import importlib.util
import os
import re
import shutil
import tempfile

from structure_walk import source_files

PASS_MESSAGE = ("no class defines its member functions in more .cpp files than 2 or its ceiling in "
                "tests/structure/class-spread.txt, and each ceiling is today's count")
PARTS = ("blacs-dyn", "redist", "gridmap", "cluster", "launcher", "resize", "common", "sim")
CEILINGS = os.path.join("tests", "structure", "class-spread.txt")
MAX_FILES = 2
HEADERS = (".hpp", ".h")
# A class or struct defined with a body (`struct Session::Impl {` names Impl), not an enum.
CLASS_DEF = re.compile(r"(?<!enum )\b(?:class|struct)\s+(?:\[\[[^\]]*\]\]\s*)?(?:alignas\s*\([^)]*\)\s*)?"
                       r"((?:\w+::)*\w+)\s*(?:final\s*)?(?::(?!:)[^;{]*)?\{")
# A qualified function name in a definition's head: the qualifiers (template arguments kept
# out), then the name.
QUALIFIED = re.compile(r"((?:\w+\s*(?:<[^<>;{}()]*>)?\s*::\s*)+)(~?\w+|operator\s*[^\s(]+)\s*\(")
NAMESPACE_HEAD = re.compile(r'^\s*(?:inline\s+)?namespace\b|^\s*extern\s*"\s*"\s*$')


def _blanker():
    """check-structure.py's blank() (comments and literals out, newlines kept): one copy."""
    spec = importlib.util.spec_from_file_location(
        "check_structure", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-structure.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.blank


def _code(path, blank):
    with open(path, encoding="utf-8", errors="replace") as f:
        code = blank(f.read())
    return re.sub(r"(?m)^[ \t]*#.*(\\\n.*)*$", lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def _sources(root):
    """(part, rel path) of every .cpp, .hpp and .h under the parts' src/ and include/ folders."""
    for part in PARTS:
        for top in ("src", "include"):
            for path in source_files(os.path.join(root, part, top), (".cpp",) + HEADERS):
                yield part, os.path.relpath(path, root)


def definitions(code):
    """The qualifier chains (e.g. ["resize", "Session", "Impl"]) of the functions a .cpp file
    defines at namespace scope with a qualified name: a body, or `= default`."""
    out = []
    stack = []  # per open brace: True for a namespace (or extern "C") scope
    head_start = 0
    for i, c in enumerate(code):
        if c not in "{};":
            continue
        at_namespace_scope = all(stack)
        head = code[head_start:i]
        if at_namespace_scope and (c == "{" or re.search(r"=\s*default\s*$", head)):
            m = QUALIFIED.search(head)
            if m and "=" not in head[:m.start()] and "(" not in head[:m.start()]:
                chain = re.sub(r"<[^<>;{}()]*>", "", m.group(1))
                out.append([w for w in re.split(r"\s*::\s*", chain.strip()) if w])
        if c == "{":
            stack.append(bool(NAMESPACE_HEAD.match(head)))
        elif c == "}" and stack:
            stack.pop()
        head_start = i + 1
    return out


def spread(root):
    """{(part, class): set of .cpp files defining its member functions}."""
    blank = _blanker()
    code = {rel: _code(os.path.join(root, rel), blank) for _, rel in _sources(root)}
    known = {name.split("::")[-1] for text in code.values() for name in CLASS_DEF.findall(text)}
    out = {}
    for part, rel in _sources(root):
        if rel.endswith(HEADERS):
            continue
        for chain in definitions(code[rel]):
            first = next((k for k, w in enumerate(chain) if w in known), None)
            if first is not None:
                out.setdefault((part, "::".join(chain[first:])), set()).add(rel)
    return out


def ceilings(root):
    """{(part, class): ceiling} of the ceiling file, and its own problems."""
    found, bad = {}, []
    path = os.path.join(root, CEILINGS)
    if not os.path.isfile(path):
        return found, [f"{CEILINGS}: missing"]
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 3 or not words[2].isdigit():
            bad.append(f"{CEILINGS}:{n}: not `<part> <class> <files>`")
        elif (words[0], words[1]) in found:
            bad.append(f"{CEILINGS}:{n}: {words[0]} {words[1]} listed twice")
        else:
            found[(words[0], words[1])] = int(words[2])
    return found, bad


def problems(root):
    limits, out = ceilings(root)
    counts = spread(root)
    for (part, name), files in sorted(counts.items()):
        limit = limits.get((part, name), MAX_FILES)
        if len(files) > limit:
            out.append(f"{part} {name}: member functions defined in {len(files)} .cpp files ("
                       f"{', '.join(sorted(files))}), over its ceiling {limit} ({CEILINGS}; "
                       f"unlisted classes at most {MAX_FILES}): keep a class in fewer files")
    for (part, name), limit in sorted(limits.items()):
        n = len(counts.get((part, name), ()))
        if n < limit:
            out.append(f"{CEILINGS}: {part} {name} is in {n} .cpp files, its ceiling says {limit}: "
                       + (f"lower it to {n}" if n > MAX_FILES else f"take its line out (at most {MAX_FILES} needs none)"))
    return out


def report(root):
    """The classes over MAX_FILES, most files first, as `part class files`."""
    counts = spread(root)
    return [f"{part} {name} {len(files)}" for (part, name), files in
            sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0])) if len(files) > MAX_FILES]


def _plant(copy, rel, text):
    path = os.path.join(copy, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def mutation(root):
    """On a copy of the parts' sources and the ceiling file, with a listed class of its own
    planted (a struct over 3 .cpp files and its line: the real list may be empty): a new
    nested class defined over 3 .cpp files, the listed class given one more file, a ceiling
    above today's count and one for a class in no file must each fail; a namespace-qualified
    free function over 3 files must not."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "tree")
        for part in PARTS:
            for top in ("src", "include"):
                if os.path.isdir(os.path.join(root, part, top)):
                    shutil.copytree(os.path.join(root, part, top), os.path.join(copy, part, top))
        # A listed class of the mutation's own, a struct over 3 .cpp files with its line: the
        # listed-class cases need one, and the real list may be empty (its target).
        part, name, limit = "gridmap", "PlantedListed", 3
        _plant(copy, os.path.join(part, "src", "planted_listed.hpp"),
               "namespace gridmap {\nstruct PlantedListed {\n  void f();\n};\n}\n")
        for k in range(limit):
            _plant(copy, os.path.join(part, "src", f"planted_listed_{k}.cpp"),
                   "namespace gridmap {\nvoid PlantedListed::f" + str(k) + "() {}\n}\n")
        _plant(copy, CEILINGS, open(os.path.join(root, CEILINGS), encoding="utf-8").read() + f"{part} {name} {limit}\n")
        before = problems(copy)
        if before:
            print("class-spread mutation: the copied tree fails already:", before)
            return False
        header = "namespace gridmap {\nstruct Planted {\n  struct Inner {\n    void f();\n  };\n};\n}\n"
        cases = []
        nested = [_plant(copy, os.path.join("gridmap", "src", "planted.hpp"), header)]
        for k in range(3):
            nested.append(_plant(copy, os.path.join("gridmap", "src", f"planted_{k}.cpp"),
                                 "namespace gridmap {\nvoid Planted::Inner::f" + str(k) + "() {}\n}\n"))
        cases.append(("a nested class over 3 .cpp files", "gridmap Planted::Inner", True, nested))
        free = [_plant(copy, os.path.join("gridmap", "src", f"free_{k}.cpp"),
                       "namespace gridmap::detail {\n}\nvoid gridmap::detail::g" + str(k) + "() {}\n")
                for k in range(3)]
        cases.append(("a namespace's free function over 3 .cpp files (no class)", "detail", False, free))
        extra = _plant(copy, os.path.join(part, "src", "planted_member.cpp"),
                       f"void {name}::planted_member() {{}}\n")
        cases.append((f"{part} {name} in one more file", f"{part} {name}", True, [extra]))
        for what, needle, want, planted in cases:
            hit = any(needle in p for p in problems(copy))
            print(f"class-spread mutation: {what}: " + ("caught" if hit else "not counted")
                  + ("" if hit == want else " (WRONG)"))
            ok = ok and hit == want
            for path in planted:
                os.remove(path)
        text = open(os.path.join(copy, CEILINGS), encoding="utf-8").read()
        _plant(copy, CEILINGS, text + f"{part} Absent 3\n")
        hit = any("Absent" in p for p in problems(copy))
        print("class-spread mutation: a ceiling for a class in no file: " + ("caught" if hit else "MISSED"))
        ok = ok and hit
        _plant(copy, CEILINGS, text.replace(f"{part} {name} {limit}", f"{part} {name} {limit + 1}", 1))
        hit = any(f"lower it to {limit}" in p for p in problems(copy))
        print(f"class-spread mutation: {part} {name}'s ceiling raised to {limit + 1}: " + ("caught" if hit else "MISSED"))
        ok = ok and hit
    print("check-structure --class-spread-mutation:", "PASS" if ok else "FAILED")
    return ok
