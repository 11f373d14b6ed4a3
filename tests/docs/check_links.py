#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every relative link in README.md and docs/**/*.md (docs/data included) resolves: the
file exists and, for a link with #anchor, the target Markdown file has a heading with that
GitHub-style anchor (lower case, punctuation dropped, spaces to '-'; repeated headings get
-1, -2). A heading named in words after its file (`docs/x.md, "The spawn hang"`, or
`[x](x.md), "The spawn hang"`) is the start of a heading there (or of a paragraph's bold
lead, "**The node map** groups ..."). External links (http,
https, mailto) are not fetched.
Wording: in README.md, CHANGELOG.md and docs/**/*.md, "cures", "cannot hang" and "never
hang(s)" stand only in a sentence that gives a measured rate (N%, "N in M", "N of M").
Usage: check_links.py <source dir>
Prints every broken link as FILE:LINE: link (why) and exits 1 if there is one."""
import os
import re
import sys

from doc_check_util import md_lines, verdict

LINK = re.compile(r"(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")
HTML = re.compile(r"""(?:href|src)=["']([^"']+)["']""")


HEADING_REF = re.compile(r"([\w./-]+\.md)\)?`?,?\s+\"([^\"]{3,120})\"")
ABSOLUTE = re.compile(r"\bcures\b|\bcannot hang\b|\bnever hangs?\b", re.I)
RATE = re.compile(r"\d(?:\.\d+)?\s*%|\b\d[\d,]*\s+(?:\w+\s+)?(?:in|of)\s+\d[\d,]*")


def norm(text):
    return re.sub(r"\s+", " ", re.sub(r"[`*_]", "", text)).strip().lower()


def headings(path, cache={}):
    if path not in cache:
        found = []
        for _, line, fence in md_lines(path):
            m = None if fence else (re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                                    or re.match(r"^\s*(?:\d+\.\s+|[-*]\s+)?\*\*(.+?)\*\*", line))
            if m:  # a heading, or a paragraph's bold lead ("**The node map** groups ...")
                found.append(norm(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))))
        cache[path] = found
    return cache[path]


def heading_refs(root, md):
    """(line, why) for every heading named in words that its file does not have."""
    for no, line, fence in md_lines(md):
        if fence:
            continue
        for path, title in HEADING_REF.findall(line):
            dest = os.path.join(root, path) if path.startswith(("docs/", "README.md", "CHANGELOG.md")) \
                else os.path.normpath(os.path.join(os.path.dirname(md), path))
            if not os.path.isfile(dest):
                continue  # not a file of this tree (the link check reports links)
            if not any(h.startswith(norm(title)) for h in headings(dest)):
                yield no, f'{path}, "{title}" (no heading starting so in {os.path.relpath(dest, root)})'


def wording(md):
    """(line, why) for an absolute reliability word without a measured rate in its sentence."""
    text = open(md, encoding="utf-8").read()
    text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"`[^`]*`", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for m in ABSOLUTE.finditer(text):
        start = max(text.rfind(". ", 0, m.start()), text.rfind("\n\n", 0, m.start()), -1) + 1
        ends = [e for e in (text.find(". ", m.end()), text.find("\n\n", m.end())) if e >= 0]
        sent = text[start:min(ends) if ends else len(text)]
        if not RATE.search(sent):
            yield text.count("\n", 0, m.start()) + 1, f'"{m.group(0)}" without a measured rate in its sentence'


def anchors(path, cache={}):
    if path in cache:
        return cache[path]
    found, seen = set(), {}
    for _, line, fence in md_lines(path):
        if fence:
            continue
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            text = re.sub(r"`([^`]*)`", r"\1", m.group(2))
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
            slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
        for a in re.findall(r"""<a\s+(?:name|id)=["']([^"']+)["']""", line):
            found.add(a)
    cache[path] = found
    return found


def links(path):
    for no, line, fence in md_lines(path):
        if fence:
            continue
        plain = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for rx in (LINK, IMAGE, REFDEF, HTML):
            for target in rx.findall(plain):
                yield no, target


def check(root):
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    for dp, dirs, fs in os.walk(docs):  # guide/, reference/, measurements/, data/
        dirs[:] = sorted(dirs)
        files += sorted(os.path.join(dp, f) for f in fs if f.endswith(".md"))
    bad, count = [], 0
    for md in files:
        for no, target in links(md):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, mailto:, ...
                continue
            count += 1
            path, _, anchor = target.partition("#")
            dest = md if not path else os.path.normpath(os.path.join(os.path.dirname(md), path))
            where = f"{os.path.relpath(md, root)}:{no}: {target}"
            if not os.path.exists(dest):
                bad.append(f"{where} (no such file {os.path.relpath(dest, root)})")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append(f"{where} (no heading with anchor #{anchor} in {os.path.relpath(dest, root)})")
        for no, why in heading_refs(root, md):
            bad.append(f"{os.path.relpath(md, root)}:{no}: {why}")
    for md in files + [os.path.join(root, "CHANGELOG.md")]:
        if os.path.isfile(md):
            for no, why in wording(md):
                bad.append(f"{os.path.relpath(md, root)}:{no}: {why}")
    return files, count, bad


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    files, count, bad = check(sys.argv[1])
    verdict(bad, f"{len(bad)} of {count} relative links in {len(files)} files do not resolve",
            f"{count} relative links in {len(files)} files resolve")
