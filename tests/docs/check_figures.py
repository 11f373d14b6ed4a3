#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every measured figure in README.md and docs/guide/*.md is tied to the data file its
paragraph names, and is found there.

A figure is a number with a unit of time, size, rate, or a ratio ("27 minutes", "1.07x",
"10%", "383 ms"), in prose (not in code spans or code blocks). A paragraph (lines up to a
blank line; a table row is its own paragraph) names its sources with
  - a link or code span to a file under docs/data (`docs/data/x.csv`, (../data/x.txt); a
    glob of at most 3 files; a folder is no source: name the file), or
  - an HTML comment  <!-- figure: docs/data/x.csv [column NAME] [via COMMAND] -->
    (a raw run packed in an archive: docs/data/SUB/runs.tar.xz:MEMBER, a member of the
    archive; a plain path inside a packed study reads its member too)
    column: only that CSV column's values count; via: the figure is computed from the
    file by COMMAND (run from the source root; its output is searched, not the file).
Each figure of such a paragraph must be a number of one of its sources (a source value
rounded to the figure's written decimals equals the figure; times also converted from s,
ms or minutes), and the figures of one clause (up to . ; or "), ") must stand on one line
of the source (a run's line, a table's row; a CSV column is one pool; a range
"0.70-0.94x" may take its ends from different runs: both must be in the data). A figure computed from
others of the paragraph says how:  <!-- derived: 31 s = 124.9 / 4 -->  (the operands with a
decimal point must be in its sources, the result must round to the figure). A figure that is a setting
of the code (a default, a timeout, a bound) rather than a measurement names the code that
sets it:
  <!-- setting: 2 s in cluster/src/daemon/state.hpp at interval_s -->
the first line of that file (a file of the repository outside docs/) holding the text after
"at" must hold the figure (rounded or converted as above), and the marker must name a figure
of its paragraph (so that a changed figure fails). A number the paragraph states that is
neither (a test's own bound, a limit quoted from elsewhere) is listed in
  <!-- not measured: 10%, 600 s -->
(counted and reported). A table is read cell by cell when the line above it is
  <!-- table: docs/data/x.txt [column NAME] [via COMMAND] -->
each number of a row (with a unit or none) is a figure, and a row's numbers must stand, in
the same order, on one line of the source. A paragraph with figures and no source is
"untied": an error in the strict files (README.md, docs/guide/*.md), elsewhere counted and
listed as skipped.

Usage: check_figures.py <source dir>   (prints FILE:LINE: why, the covered and skipped
counts; exits 1 on any error)"""
import csv
import glob
import io
import os
import re
import shlex
import subprocess
import sys

FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(x\b|%|ms\b|us\b|ns\b|s\b|minutes?\b|GB/s|MB/s|MiB\b|GiB\b)")
MARK = re.compile(r"<!--\s*figure:\s*(docs/data/\S+)((?:\s+column\s+\S+)?)((?:\s+via\s+.*?)?)\s*-->")
NOT_MEASURED = re.compile(r"<!--\s*not measured:\s*(.*?)\s*-->")
SETTING = re.compile(r"<!--\s*setting:\s*(\d+(?:\.\d+)?)\s*(\S+)\s+in\s+(\S+)\s+at\s+(.+?)\s*-->")
TABLE = re.compile(r"<!--\s*table:\s*(docs/data/\S+)((?:\s+column\s+\S+)?)((?:\s+via\s+.*?)?)\s*-->")
DERIVED = re.compile(r"<!--\s*derived:\s*(\d+(?:\.\d+)?)\s*(\S+)\s*=\s*([\d.+\-*/() ]+?)\s*-->")
DATA_PATH = re.compile(r"(?:docs/data/|(?:\.\./)+data/|(?<![\w/])data/)[\w./*-]+")
NUMBER = re.compile(r"(?<![\w.])-?(\d+(?:\.\d+)?)(?![\d])")
STRICT = ("README.md", "docs/guide/")  # a file, or a folder's files: an untied figure is an error
MAX_FILES = 3  # a glob names at most this many files (a folder is no source)


def doc_files(root):
    files = ["README.md"]
    g = os.path.join(root, "docs", "guide")
    if os.path.isdir(g):
        files += sorted("docs/guide/" + f for f in os.listdir(g) if f.endswith(".md"))
    return [f for f in files if os.path.exists(os.path.join(root, f))]


def paragraphs(text):
    """[(line number, line)] of each paragraph of prose, code blocks left out; a table row
    and a list item are paragraphs of their own."""
    out, cur, fence, fence_indent = [], [], False, False
    for no, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            if cur:
                out.append(cur)
                cur = []
            continue
        if fence:
            continue
        if not line.strip():
            if cur:
                out.append(cur)
                cur = []
            continue
        if not cur and line.startswith("    "):  # an indented code block (a paragraph cannot start so)
            fence_indent = True
        if not cur and not line.startswith("    "):
            fence_indent = False
        if fence_indent:
            continue
        if cur and re.match(r"^\s{0,3}(?:[-*+]|\d+\.)\s", line):  # a list item is a paragraph of its own
            out.append(cur)
            cur = []
        if line.lstrip().startswith("|"):
            if cur:
                out.append(cur)
                cur = []
            out.append([(no, line)])
            continue
        cur.append((no, line))
    if cur:
        out.append(cur)
    return out


def mask(text):
    """The text with code spans, HTML comments and link targets blanked (same length)."""
    text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), text)
    text = re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), text, flags=re.S)
    return re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), text)


def figures(lines):
    """(line number, offset in the paragraph's text, number text, unit) of every figure in prose."""
    joined = "\n".join(line for _, line in lines)
    for m in FIGURE.finditer(mask(joined)):
        yield lines[0][0] + joined.count("\n", 0, m.start(1)), m.start(1), m.group(1), m.group(2)


def column(joined, offset):
    """The offset's column in its line."""
    return offset - (joined.rfind("\n", 0, offset) + 1)


SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\[*`])|;\s+|\),\s+")


def range_low(joined, pos, num, unit):
    """The lower end of a range whose upper end is this figure ("0.70-0.94x", "1.21x-3.47x"),
    or None. A range's ends may come from different runs (lines): both must be in the data."""
    m = re.search(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:x|%|ms|us|s|minutes?)?\s*[-\u2013]\s*$",
                  joined[max(0, pos - 20):pos])
    return m.group(1) if m else None


def range_high(joined, pos, num, unit):
    """True when this figure is the lower end of a range of figures ("1.21x-3.47x")."""
    after = joined[pos + len(num):pos + len(num) + len(unit) + 20]
    return bool(re.match(r"\s*" + re.escape(unit) + r"\s*[-\u2013]\s*\d", after))


def sentence_start(joined, pos):
    start = 0
    for m in SENTENCE_END.finditer(joined):
        if m.end() <= pos:
            start = m.end()
        else:
            break
    return start


def sentence(joined, pos):
    """The sentence (or ;-separated clause) of the paragraph's text around offset pos."""
    start, end = 0, len(joined)
    for m in SENTENCE_END.finditer(joined):
        if m.end() <= pos:
            start = m.end()
        elif m.start() >= pos:
            end = m.start()
            break
    return joined[start:end]


def archive_member(f):
    """(archive, member) for a source ARCHIVE.tar.xz:MEMBER, else None."""
    m = re.match(r"(.*\.tar\.xz):(.+)$", f)
    return (m.group(1), m.group(2)) if m else None


def members(archive, cache={}):
    """{name: text} of a .tar.xz's files."""
    if archive not in cache:
        import tarfile
        with tarfile.open(archive, "r:xz") as tf:
            cache[archive] = {m.name: tf.extractfile(m).read().decode("utf-8", errors="ignore")
                              for m in tf.getmembers() if m.isfile()}
    return cache[archive]


def packed(full):
    """(archive, member) of a path inside a study whose raw runs are packed in its
    runs.tar.xz (docs/data/SUB/x/y.json: member x/y.json), else None."""
    d = os.path.dirname(full)
    while len(d) > 1 and os.path.basename(os.path.dirname(d)) != "docs":
        a = os.path.join(d, "runs.tar.xz")
        if os.path.isfile(a):
            rel = os.path.relpath(full, d)
            return (a, rel) if rel in members(a) else None
        d = os.path.dirname(d)
    return None


def read_source(f):
    am = archive_member(f)
    if am:
        return members(am[0])[am[1]]
    if not os.path.isfile(f) and packed(f):
        a, m = packed(f)
        return members(a)[m]
    return open(f, encoding="utf-8", errors="ignore").read()


def resolve(root, md, path):
    """Files a source path names (relative to the doc or as docs/data/...); a member of an
    archive as ARCHIVE.tar.xz:MEMBER."""
    am = archive_member(path)
    if am:
        arch = resolve(root, md, am[0])
        if len(arch) != 1:
            return []
        import fnmatch
        return [f"{arch[0]}:{n}" for n in sorted(members(arch[0])) if fnmatch.fnmatchcase(n, am[1])]
    if path.startswith("docs/"):
        full = os.path.join(root, path)
    elif path.startswith("data/"):  # a link's text: the file under docs/data
        full = os.path.join(root, "docs", path)
    else:
        full = os.path.normpath(os.path.join(root, os.path.dirname(md), path))
    full = full.rstrip("/")
    if any(ch in full for ch in "*?["):
        files = sorted(glob.glob(full))
    else:
        files = [full] if os.path.isfile(full) or packed(full) else []
    return [f for f in files if os.path.isfile(f) or packed(f)]


def values(root, md, source, cache={}):
    """(the numbers of each line of a source, or None and why). source = (path, column, via)."""
    key = (root, md, source)
    if key in cache:
        return cache[key]
    path, column, via = source
    files = resolve(root, md, path)
    if not files:
        cache[key] = (None, f"names {path}, which matches no file")
        return cache[key]
    if len(files) > MAX_FILES:
        cache[key] = (None, f"names {path}, {len(files)} files: name a file (at most {MAX_FILES})")
        return cache[key]
    texts = []
    if via and any(archive_member(f) or not os.path.isfile(f) for f in files):
        cache[key] = (None, f"via {via}: {path} is inside an archive: name a file on the disk")
        return cache[key]
    if via:
        try:
            r = subprocess.run(shlex.split(via) + files, cwd=root, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            cache[key] = (None, f"via {via}: {e}")
            return cache[key]
        if r.returncode != 0:
            cache[key] = (None, f"via {via} failed: {r.stderr.strip()[:200]}")
            return cache[key]
        texts.append(r.stdout)
    else:
        for f in files:
            text = read_source(f)
            if column:
                rows = list(csv.DictReader(io.StringIO(text)))
                if rows and column not in rows[0]:
                    cache[key] = (None, f"{path} has no column {column}")
                    return cache[key]
                text = "\n".join(r[column] or "" for r in rows)
            texts.append(text)
    if column:  # a column's values: one pool (a clause may cite several rows)
        lines = [sorted(set(n for t in texts for n in NUMBER.findall(t)))]
    else:  # each line's numbers in order (a table row is matched in order)
        lines = [NUMBER.findall(line) for t in texts for line in t.split("\n")]
    cache[key] = ([x for x in lines if x], None)
    return cache[key]


def matches(fig, unit, nums):
    """A source value, rounded to the figure's written decimals, equals it; in its own unit
    or, for times, converted from s, ms, ns (to us) or minutes."""
    dec = len(fig.split(".")[1]) if "." in fig else 0
    want = float(fig)
    scales = {"us": (1, 1e-3), "ms": (1, 1000), "s": (1, 1e-3, 60), "minutes": (1, 1 / 60),
              "minute": (1, 1 / 60)}.get(unit, (1,))
    for v in nums:
        if v == fig:
            return True
        x = float(v)
        vdec = len(v.split(".")[1]) if "." in v else 0
        for k in scales:
            if (k != 1 or vdec > dec) and abs(x * k - want) < 0.5 * 10 ** -dec - 1e-12:
                return True
    return False


def sources(text, marks=True):
    """The sources a text names: its <!-- figure: --> markers (marks) and docs/data paths."""
    found = []
    for m in (MARK.finditer(text) if marks else []):
        col = m.group(2).split()[1] if m.group(2).strip() else None
        via = m.group(3).strip()[len("via"):].strip() if m.group(3).strip() else None
        found.append((m.group(1), col, via))
    plain = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    marked = {x[0] for x in found}
    for p in DATA_PATH.findall(plain):
        p = p.rstrip(".,;:)")
        if p.endswith("/"):
            continue  # a folder ties no figure to its file
        key = p if p.startswith("docs/") else None
        if key in marked or (p, None, None) in found:
            continue  # a marker says how this file is read
        found.append((p, None, None))
    return found


def sources_of_marks(text):
    return [x for x in sources(text) if any(m.group(1) == x[0] for m in MARK.finditer(text))]


def setting_error(root, num, unit, path, anchor):
    """None when the first line of the repository file PATH that holds the text ANCHOR
    holds the figure (in its unit or converted, as matches() does), else why not."""
    if path.startswith("docs/") or os.path.isabs(path) or ".." in path.split("/"):
        return f"setting {num} {unit}: {path} is no file of the code (a setting is checked against the code that sets it)"
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        return f"setting {num} {unit}: {path} matches no file"
    for line in open(full, encoding="utf-8", errors="ignore"):
        if anchor in line:
            if matches(num, unit, NUMBER.findall(line)):
                return None
            return f"setting {num} {unit} is not on the line of {path} that holds {anchor!r}: {line.strip()[:120]}"
    return f"setting {num} {unit}: no line of {path} holds {anchor!r}"


def tables(text):
    """{line number of a table row: its sources} of each table whose line above is a
    <!-- table: docs/data/... --> marker."""
    rows, lines = {}, text.split("\n")
    for i, line in enumerate(lines):
        marks = list(TABLE.finditer(line))
        if not marks:
            continue
        srcs = []
        for m in marks:
            col = m.group(2).split()[1] if m.group(2).strip() else None
            via = m.group(3).strip()[len("via"):].strip() if m.group(3).strip() else None
            srcs.append((m.group(1), col, via))
        j = i + 1
        while j < len(lines) and lines[j].lstrip().startswith("|"):
            rows[j + 1] = srcs
            j += 1
    return rows


def row_figures(no, line):
    """(line number, offset, number, unit) of every number of a table row's cells (a tied
    table: unit or none, each is a figure)."""
    masked = mask(line)
    for m in NUMBER.finditer(masked):
        f = FIGURE.match(masked, m.start(1))
        yield no, m.start(1), m.group(1), f.group(2) if f and f.group(1) == m.group(1) else ""


def in_order(figs, line):
    """The figures (number, unit), in order, are numbers of the line in that order."""
    j = 0
    for num, unit in figs:
        while j < len(line) and not matches(num, unit, [line[j]]):
            j += 1
        if j == len(line):
            return False
        j += 1
    return True


def strict(md):
    return any(md == s or (s.endswith("/") and md.startswith(s)) for s in STRICT)


def check(root, texts=None):
    """(covered figures [(file, line, column in the line, number, kind)], skipped figures,
    errors). kind: "data" (found in its docs/data source), "table" (a tied table's cell),
    "setting" (found in the code that sets it). texts: file -> its text, in place of the
    file's (the mutation test). check.excused: the figures listed as not measured."""
    covered, skipped, bad = [], [], []
    check.excused = []
    for md in doc_files(root):
        text = texts[md] if texts and md in texts else open(os.path.join(root, md), encoding="utf-8").read()
        tied_rows = tables(text)
        for para in paragraphs(text):
            if len(para) == 1 and para[0][0] in tied_rows:
                no, line = para[0]
                row = list(row_figures(no, line))
                if not row:
                    continue
                srcs = tied_rows[no]
                lines = []
                for x in srcs:
                    got, why = values(root, md, x)
                    if why:
                        bad.append(f"{md}:{no}: the table {why}")
                    else:
                        lines += got
                for _, col, num, unit in row:
                    covered.append((md, no, col, num, "table"))
                if lines and not any(in_order([(n, u) for _, _, n, u in row], ln) for ln in lines):
                    bad.append(f"{md}:{no}: the row's numbers {' '.join(n for _, _, n, _ in row)} are not, in "
                               f"order, on one line of {', '.join(x[0] for x in srcs)}")
                continue
            figs = list(figures(para))
            if not figs:
                continue
            joined = " ".join(line for _, line in para)
            excused = set()
            for m in NOT_MEASURED.finditer(joined):
                excused.update(re.sub(r"\s+", "", x) for x in m.group(1).split(","))
            settings = {}
            for m in SETTING.finditer(joined):
                settings.setdefault((m.group(1), m.group(2)), []).append((m.group(3), m.group(4)))
            # <!-- derived: 31 s = 124.9 / 4 -->: the figure is that arithmetic on figures the
            # paragraph ties to its data (each operand with a decimal point must be one of them)
            derived = {}
            for m in DERIVED.finditer(joined):
                derived[(m.group(1), m.group(2))] = m.group(3)
            joined = "\n".join(line for _, line in para)
            for fig in list(derived) + list(settings):
                if fig not in {(f[2], f[3]) for f in figs}:
                    kind = "derived" if fig in derived else "setting"
                    bad.append(f"{md}:{para[0][0]}: <!-- {kind}: {fig[0]} {fig[1]} ... --> names no figure of the paragraph")
            for no, col, num, unit in figs:
                if (num, unit) in settings:
                    covered.append((md, no, column(joined, col), num, "setting"))
                    for path, anchor in settings[(num, unit)]:
                        why = setting_error(root, num, unit, path, anchor)
                        if why:
                            bad.append(f"{md}:{no}: {why}")
                elif (num + unit).replace(" ", "") in excused:
                    check.excused.append((md, no, column(joined, col), num))
            figs = [f for f in figs if (f[2] + f[3]).replace(" ", "") not in excused and (f[2], f[3]) not in settings]
            if not figs:
                continue
            para_marks = sources_of_marks(joined)  # markers anywhere in the paragraph cover all of it
            clauses = {}
            for fig in figs:
                clauses.setdefault(sentence_start(joined, fig[1]), []).append(fig)
            for start, group in clauses.items():
                srcs = para_marks + [x for x in sources(sentence(joined, group[0][1]), marks=False) if x not in para_marks]
                if not srcs:
                    for no, col, num, unit in group:
                        if strict(md):
                            bad.append(f"{md}:{no}: figure {num} {unit} has no source: name its docs/data file "
                                       "(<!-- figure: docs/data/... -->), the code that sets it (<!-- setting: ... -->) "
                                       "or list it in <!-- not measured: ... -->")
                        skipped.append((md, no, column(joined, col), num))
                    continue
                lines = []
                for x in srcs:
                    got, why = values(root, md, x)
                    if why:
                        bad.append(f"{md}:{group[0][0]}: the sentence {why}")
                    else:
                        lines += got
                union = set().union(*lines) if lines else set()
                measured = []
                for no, col, num, unit in group:
                    covered.append((md, no, column(joined, col), num, "data"))
                    if (num, unit) in derived:
                        expr = derived[(num, unit)]
                        value = eval(expr, {"__builtins__": {}})  # digits, + - * / ( ) only (DERIVED)
                        ops = [x for x in re.findall(r"\d+\.\d+", expr) if not matches(x, "", union)]
                        if ops or not matches(num, "", {repr(float(value))}):
                            bad.append(f"{md}:{no}: figure {num} {unit} is not {expr} of its data")
                    elif not matches(num, unit, union):
                        bad.append(f"{md}:{no}: figure {num} {unit} is not in {', '.join(x[0] for x in srcs)}")
                    elif range_low(joined, col, num, unit):
                        low = range_low(joined, col, num, unit)
                        if not matches(low, unit, union):
                            bad.append(f"{md}:{no}: figure {num} {unit}: its range's lower end {low} is not in "
                                       f"{', '.join(x[0] for x in srcs)}")
                    elif not range_high(joined, col, num, unit):
                        measured.append((no, num, unit))
                # The figures of one clause come from one line of the data (a run's line, a
                # table's row): the line holding most of them must hold each.
                if len(measured) > 1 and lines:
                    best = max(lines, key=lambda ln: sum(matches(n, u, ln) for _, n, u in measured))
                    for no, num, unit in measured:
                        if not matches(num, unit, best):
                            bad.append(f"{md}:{no}: figure {num} {unit} is not on the line of "
                                       f"{', '.join(x[0] for x in srcs)} that holds the other figures of its clause")
    return covered, skipped, bad


def summary(covered, skipped):
    kinds = {k: sum(1 for c in covered if c[4] == k) for k in ("data", "table", "setting")}
    return (f"{len(covered)} figures checked: {kinds['data']} in prose and {kinds['table']} in tables against "
            f"their docs/data source, {kinds['setting']} settings against the code that sets them; "
            f"{len(check.excused)} listed as not measured; {len(skipped)} skipped (untied"
            + (": " + ", ".join(sorted({f'{m}:{n}' for m, n, _, _ in skipped})[:60]) if skipped else "") + ")")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    covered, skipped, bad = check(sys.argv[1])
    for b in bad:
        print(b)
    print(summary(covered, skipped))
    if bad:
        print(f"FAILED: {len(bad)} figures")
        sys.exit(1)
    print("PASS")
