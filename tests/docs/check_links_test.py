#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs check_links.py on a small tree with known broken links (it must report exactly
those), then on the project's README.md and docs/*.md (every link must resolve).
Usage: check_links_test.py <source dir>"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_links  # noqa: E402

with tempfile.TemporaryDirectory() as t:
    os.mkdir(os.path.join(t, "docs"))
    with open(os.path.join(t, "README.md"), "w") as f:
        f.write("# Top\n[ok](docs/a.md#the-api-c) [gone](docs/missing.md) [bad anchor](docs/a.md#nope)\n"
                "[self](#top) `[code](not/a/link.md)` [web](https://example.org/x)\n")
    with open(os.path.join(t, "docs", "a.md"), "w") as f:
        f.write("# A\n## The API (C++)\n```\n[fenced](nowhere.md)\n```\n[back](../README.md#top)\n")
    _, count, bad = check_links.check(t)
    want = ["README.md:2: docs/missing.md", "README.md:2: docs/a.md#nope"]
    got = [b.split(" (")[0] for b in bad]
    if sorted(got) != sorted(want) or count != 5:
        print(f"FAILED: the checker found {got} in {count} links, expected {want} in 5")
        sys.exit(1)

files, count, bad = check_links.check(sys.argv[1])
for b in bad:
    print(b)
if bad:
    print(f"FAILED: {len(bad)} of {count} relative links in {len(files)} files do not resolve")
    sys.exit(1)
print(f"PASS: {count} relative links in {len(files)} files resolve (the checker caught 2 of 2 planted faults)")
