#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs check_figures.py on a scratch tree with planted faults (a figure its data file does
not hold, one from the wrong CSV column, an untied figure in README.md and one in the guide,
a source that does not exist, a figure a named script does not compute, a range whose lower
end is not there, a figure an archive member does not hold, a setting the code does not set,
a setting marker naming no figure of its paragraph, a tied table's row whose numbers are not
in order on one line of its source) beside good ones (rounded, converted from seconds, found
in a column, computed by a script, listed as no measurement, found in an archive's member, a
setting found on its code line, converted from ms, a tied table's rows); it must report
exactly the faults. Then on the project's README.md and docs/guide/*.md.
Usage: check_figures_test.py <source dir>"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_figures  # noqa: E402
from doc_check_util import write  # noqa: E402


with tempfile.TemporaryDirectory() as t:
    write(os.path.join(t, "docs", "data", "t.csv"), "run,minutes,load\n1,27,9\n2,3.14,12\n")
    write(os.path.join(t, "docs", "data", "r.txt"), "recover 0.1534 s ratio 1.77\n")
    import io
    import tarfile
    os.makedirs(os.path.join(t, "docs", "data", "s"))
    with tarfile.open(os.path.join(t, "docs", "data", "s", "runs.tar.xz"), "w:xz") as tf:
        body = b"run 1 took 41.5 ms\n"
        info = tarfile.TarInfo("raw/run1.txt")
        info.size = len(body)
        tf.addfile(info, io.BytesIO(body))
    write(os.path.join(t, "scripts", "twice.py"), "import sys\nprint(2 * float(open(sys.argv[1]).read().split()[1]))\n")
    write(os.path.join(t, "README.md"),
          "# R\n\n"
          "It took 27 minutes, then 3.1 minutes; progress every 10%.\n"             # 3: good
          "<!-- figure: docs/data/t.csv column minutes --> <!-- not measured: 10% -->\n\n"
          "It took 12 minutes.\n<!-- figure: docs/data/t.csv column minutes -->\n\n"  # 6: 12 is a load
          "Recovery took 153 ms and 1.77x (`docs/data/r.txt`), not 1.78x (`docs/data/r.txt`).\n\n"  # 9: 1.78 planted
          "It took 5 s.\n\n"                                                         # 11: untied in README
          "Twice: 0.31 s and 0.32 s. <!-- figure: docs/data/r.txt via python3 scripts/twice.py -->\n\n"  # 13: 0.32 planted
          "Gone: 4 s (`docs/data/gone.csv`).\n\n"                                   # 15: no such source
          "Ranges 9-12 minutes, 2-27 minutes.\n<!-- figure: docs/data/t.csv column load -->\n"  # 17: 27 planted
          "<!-- figure: docs/data/t.csv column minutes -->\n\n"
          "Packed: 41.5 ms. <!-- figure: docs/data/s/runs.tar.xz:raw/run1.txt -->\n\n"  # 21: good, a member
          "Packed too: 41.5 ms (`docs/data/s/raw/run1.txt`).\n\n"                  # 23: good, inside the study
          "Packed wrong: 42.5 ms. <!-- figure: docs/data/s/runs.tar.xz:raw/run1.txt -->\n")  # 25: planted
    write(os.path.join(t, "src", "k.hpp"), "double interval_s = 2;\nint deadline_ms = 5000;  // 7\n")
    write(os.path.join(t, "docs", "data", "tab.txt"), "| 4 | 240 {ok: 240} | 163 | 2.72 |\n| 16 | 960 | 169 | 2.82 |\n")
    write(os.path.join(t, "docs", "guide", "g.md"),
          "# G\n\nUntied here: 8 ms.\n\n"                                                   # 3: untied in the guide
          "Every 2 s, at most 5 s.<!-- setting: 2 s in src/k.hpp at interval_s -->"
          "<!-- setting: 5 s in src/k.hpp at deadline_ms -->\n\n"                           # 5: good (5 s = 5000 ms)
          "Every 3 s. <!-- setting: 3 s in src/k.hpp at interval_s -->\n\n"                # 7: not the code's
          "Up to 7 s. <!-- setting: 8 s in src/k.hpp at deadline_ms -->\n\n"               # 9: names no figure (7 s untied)
          "<!-- table: docs/data/tab.txt -->\n"
          "| jobs | requests | RPCs in 60 s | per second |\n"                                # 12: 60 is no number of tab.txt
          "|---|---|---|---|\n"
          "| 4 | 240 | 163 | 2.72 |\n"                                                      # 14: good
          "| 16 | 960 | 2.82 | 169 |\n")                                                   # 15: out of order
    covered, skipped, bad = check_figures.check(t)
    if os.environ.get("VERBOSE"):
        print("\n".join(bad))
    got = sorted(int(b.split(":")[1]) for b in bad)
    want = [6, 9, 11, 13, 15, 15, 17, 25]
    gotg = sorted(int(b.split(":")[1]) for b in bad if b.startswith("docs/guide/g.md"))
    wantg = [3, 7, 9, 9, 12, 15]  # 9: the marker names no figure, and 7 s is untied
    got = sorted(int(b.split(":")[1]) for b in bad if b.startswith("README.md"))
    kinds = [c[4] for c in covered]
    if gotg != wantg or kinds.count("setting") != 3 or kinds.count("table") != 9:
        print("\n".join(bad))
        print(f"FAILED: in the planted guide the checker reported lines {gotg}, expected {wantg}; "
              f"{kinds.count('setting')} settings (expected 3), {kinds.count('table')} table cells (expected 9)")
        sys.exit(1)
    if got != want or len(skipped) != 3 or len(covered) != 14 + 3 + 9 \
            or not any("figure 1.78 x" in b for b in bad) or not any("figure 12 minutes" in b for b in bad) or not any("lower end 2 " in b for b in bad):
        print("\n".join(bad))
        print(f"FAILED: on the planted tree the checker reported README lines {got} ({len(covered)} covered, "
              f"{len(skipped)} skipped), expected {want} (26 covered, 3 skipped)")
        sys.exit(1)

covered, skipped, bad = check_figures.check(sys.argv[1])
for b in bad:
    print(b)
if bad:
    print(f"FAILED: {len(bad)} figures of README.md and docs/guide/*.md are not in the data they name")
    sys.exit(1)
if skipped:
    print(f"FAILED: {len(skipped)} figures of README.md and docs/guide/*.md are untied")
    sys.exit(1)
print(f"PASS: {check_figures.summary(covered, skipped)}; the checker caught 14 of 14 planted faults")
