#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Nothing generated in git, nothing left in the source tree by the tests. The patterns of
# generated files are .gitignore's (the one list: ctest's Testing/, Slurm's slurm-*.out, ...).
#   source_tree.sh tracked DIR          exit 1 naming each tracked file of DIR that matches
#                                       a pattern of .gitignore (a generated file in git)
#   source_tree.sh snapshot DIR FILE    writes the untracked and the ignored paths of DIR to
#                                       FILE, the build folders setup.sh makes left out
#                                       (/build*/, /build*.log)
#   source_tree.sh compare DIR FILE     exit 1 naming each such path that FILE does not hold
#                                       (what was written into the source tree since)
#   source_tree.sh --self-test          the three on a scratch repository with this .gitignore
# DIR not a git work tree (a release tarball): says so and exits 77 (ctest: SKIPPED).
# scripts/test.sh takes a snapshot before the suite and compares after it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

in_git() {  # <dir>
  if ! command -v git >/dev/null || [[ $(git -C "$1" rev-parse --is-inside-work-tree 2>/dev/null) != true ]]; then
    echo "SKIPPED: $1 is not a git work tree (or git is missing): nothing to check"
    exit 77
  fi
}

tracked() {  # <dir>
  local bad
  in_git "$1"
  bad=$(git -C "$1" ls-files --cached --ignored --exclude-standard)
  if [[ -n $bad ]]; then
    echo "FAILED: tracked files match a pattern of generated files in .gitignore (git rm --cached them):"
    sed 's/^/  /' <<<"$bad"
    return 1
  fi
  echo "PASS: no tracked file matches a pattern of .gitignore"
}

# Untracked files one by one; ignored ones as git names them (a directory whole).
paths() {  # <dir>
  git -C "$1" status --porcelain=v1 --ignored=matching --untracked-files=all |
    sed -nE 's/^(\?\?|!!) //p' | grep -Ev '^"?build[^/]*(/|\.log"?$)' | LC_ALL=C sort -u || true
}

snapshot() {  # <dir> <file>
  in_git "$1"
  paths "$1" >"$2"
}

compare() {  # <dir> <file>
  local new
  in_git "$1"
  [[ -f $2 ]] || { echo "FAILED: no snapshot $2"; return 1; }
  new=$(paths "$1" | LC_ALL=C comm -13 "$2" -)
  if [[ -n $new ]]; then
    echo "FAILED: written into the source tree $1 since the snapshot (tests must write into the build tree or a temporary folder):"
    sed 's/^/  /' <<<"$new"
    return 1
  fi
  echo "PASS: nothing new in the source tree $1"
}

self_test() {
  local t rc out
  t=$(mktemp -d)
  trap 'rm -rf "$t"' RETURN
  git -C "$t" init -q
  cp "$here/.gitignore" "$t/.gitignore"
  echo 'int main() {}' >"$t/main.cpp"
  git -C "$t" add .gitignore main.cpp
  # a clean tree passes
  out=$(tracked "$t") || { echo "FAILED: self-test: a clean tree: $out"; return 1; }
  # what ctest and sbatch leave in a source root, committed with add -f as happened
  mkdir -p "$t/Testing/Temporary"
  : >"$t/Testing/Temporary/LastTest.log"
  : >"$t/Testing/Temporary/CTestCostData.txt"
  : >"$t/slurm-1.out"
  : >"$t/slurm_job_7_resize.sh"
  git -C "$t" add -f Testing slurm-1.out slurm_job_7_resize.sh
  rc=0
  out=$(tracked "$t") || rc=$?
  [[ $rc -eq 1 ]] || { echo "FAILED: self-test: tracked generated files not refused (exit $rc): $out"; return 1; }
  for f in Testing/Temporary/LastTest.log Testing/Temporary/CTestCostData.txt slurm-1.out slurm_job_7_resize.sh; do
    grep -qx "  $f" <<<"$out" || { echo "FAILED: self-test: $f not named: $out"; return 1; }
  done
  git -C "$t" rm -q --cached -r Testing slurm-1.out slurm_job_7_resize.sh
  # snapshot / compare: the build folders and what was there before do not count; a new
  # untracked file and a new ignored one do
  mkdir -p "$t/build/x" "$t/build-mpich"
  : >"$t/build/x/a.o"
  : >"$t/build-mpich.log"
  snapshot "$t" "$t.snap"
  mkdir -p "$t/build/tests" "$t/build-asan"
  : >"$t/build/tests/out.json"
  : >"$t/build-asan.log"
  out=$(compare "$t" "$t.snap") || { echo "FAILED: self-test: build folders counted: $out"; return 1; }
  : >"$t/slurm-2.out"
  mkdir -p "$t/docs"
  : >"$t/docs/run.json"
  rc=0
  out=$(compare "$t" "$t.snap") || rc=$?
  rm -f "$t.snap"
  [[ $rc -eq 1 ]] && grep -qx "  slurm-2.out" <<<"$out" && grep -qx "  docs/run.json" <<<"$out" &&
    ! grep -qE "^  (Testing|slurm-1.out|build)" <<<"$out" ||
    { echo "FAILED: self-test: compare (exit $rc): $out"; return 1; }
  echo "PASS: self-test (tracked generated files named, new files in the source tree named, build folders and earlier files not)"
}

case ${1:-} in
  tracked) tracked "${2:?tracked DIR}" ;;
  snapshot) snapshot "${2:?snapshot DIR FILE}" "${3:?snapshot DIR FILE}" ;;
  compare) compare "${2:?compare DIR FILE}" "${3:?compare DIR FILE}" ;;
  --self-test) self_test ;;
  *) sed -n '3,13p' "$0" >&2; exit 2 ;;
esac
