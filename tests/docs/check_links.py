#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every relative link in README.md and docs/**/*.md resolves: the file exists
and, for a link with #anchor, the target Markdown file has a heading with that GitHub-style
anchor (lower case, punctuation dropped, spaces to '-'; repeated headings get -1, -2).
External links (http, https, mailto) are not fetched. Usage: check_links.py <source dir>
Prints every broken link as FILE:LINE: link (why) and exits 1 if there is one."""
import os
import re
import sys

LINK = re.compile(r"(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")
HTML = re.compile(r"""(?:href|src)=["']([^"']+)["']""")


def anchors(path, cache={}):
    if path in cache:
        return cache[path]
    found, seen, fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
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
    fence = False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            plain = re.sub(r"`[^`]*`", "", line)  # code spans are not links
            for rx in (LINK, IMAGE, REFDEF, HTML):
                for target in rx.findall(plain):
                    yield no, target


def check(root):
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    for dp, dirs, fs in os.walk(docs):  # guide/, reference/, measurements/; not data/
        dirs[:] = sorted(x for x in dirs if os.path.join(dp, x) != os.path.join(docs, "data"))
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
    return files, count, bad


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    files, count, bad = check(sys.argv[1])
    for b in bad:
        print(b)
    if bad:
        print(f"FAILED: {len(bad)} of {count} relative links in {len(files)} files do not resolve")
        sys.exit(1)
    print(f"PASS: {count} relative links in {len(files)} files resolve")
