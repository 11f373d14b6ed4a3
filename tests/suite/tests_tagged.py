#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every test but the unit tests and the benchmarks carries MALL_CTEST_TEST=<its name>
(mall_tag_tests_here in cmake/MalleableTesting.cmake), so that the leftover reaper can kill
what it leaves behind and name it. Reads `ctest --show-only=json-v1` of a build folder.
Usage: tests_tagged.py CTEST BUILD_DIR   (--self-test: the check on made-up listings)"""
import json
import subprocess
import sys


def untagged(listing):
    bad = []
    for test in listing.get("tests", []):
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = props.get("LABELS", [])
        if "unit" in labels or "bench" in labels:
            continue
        if f"MALL_CTEST_TEST={test['name']}" not in props.get("ENVIRONMENT", []):
            bad.append(test["name"])
    return bad


def made_up(env, labels):
    return {"tests": [{"name": "a.b", "properties": [{"name": "ENVIRONMENT", "value": env},
                                                     {"name": "LABELS", "value": labels}]}]}


def self_test():
    cases = [(made_up(["MALL_CTEST_TEST=a.b"], ["mpi"]), []),
             (made_up(["X=1"], ["mpi"]), ["a.b"]),
             (made_up(["MALL_CTEST_TEST=other"], ["mpi"]), ["a.b"]),
             (made_up([], ["unit"]), []),
             (made_up([], ["bench", "mpi"]), [])]
    for listing, want in cases:
        if untagged(listing) != want:
            print(f"FAILED: self-test {listing}: {untagged(listing)} != {want}")
            return 1
    print("PASS (self-test)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    ctest, build = argv[1], argv[2]
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    listing = json.loads(out.stdout)
    bad = untagged(listing)
    if bad:
        print(f"FAILED: {len(bad)} tests without MALL_CTEST_TEST (call mall_tag_tests_here() in their folder): "
              + ", ".join(bad[:20]))
        return 1
    print(f"PASS: {len(listing['tests'])} tests listed, every one outside unit and bench tagged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
