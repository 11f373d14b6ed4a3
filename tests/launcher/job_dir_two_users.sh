#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A job directory is trusted only when it is its user's own (docs/guide/threat-model.md,
# "The job directory"). Two users made by the test (removed at the end unless they were
# there): A runs malleable-run, B attacks. mpiexec is a stand-in (it runs the program it is
# given, as A, and records the --ompi-server it was given), so that a command of B's that
# the launcher let through would run and leave a file of A's uid where B's command writes
# (drop/, a folder anyone can write). First the stand-in is shown to run A's own job
# directory's command (the file appears, A's); then each attack is refused with its reason
# and nothing of A's uid appears in drop/:
#   - B's directory (open to A's reading, with B's command, secret and server.uri) given to
#     A's --join, with and without a program on the command line, and with --while-job;
#   - A's --job-dir below a folder of B's that others can write, and below root's 0777;
#   - A's directory (made by A) below a folder anyone can write, swapped by B for B's own;
#   - a link in place of the job directory (B's, in a sticky folder);
#   - a link in place of each file A's launcher reads in A's directory (secret, command,
#     server.uri, environment), each to B's file;
#   - an environment file that is B's, or that sets a variable the launcher never saves.
# Usage: job_dir_two_users.sh <malleable-run>
set -uo pipefail
RUN=$1
[[ $(id -u) -eq 0 ]] || { echo "SKIPPED: root is needed to make the test's two users"; exit 77; }
for tool in setpriv useradd userdel; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is needed"; exit 77; }
done
. "$(dirname "${BASH_SOURCE[0]}")/../support/test_users.sh"
USERS=(mallc-jd-a mallc-jd-b)
work=$(mktemp -d)
chmod 755 "$work"
# The launcher links no library of the project's: a copy in the test's folder runs for the
# test's users wherever the build tree is (a clone in a 0700 folder too).
cp "$RUN" "$work/malleable-run"
RUN=$work/malleable-run
setpriv --reuid=65534 --regid=65534 --clear-groups -- test -x "$RUN" ||
  { echo "SKIPPED: another user cannot run $RUN (a parent folder's mode)"; rm -rf "$work"; exit 77; }
finish() {
  local rc=$?
  test_users_remove
  if [[ $rc -ne 0 ]]; then echo "kept $work"; else rm -rf "$work"; fi
  exit $rc
}
trap finish EXIT
fail() { echo "FAILED: $*"; exit 1; }
for u in "${USERS[@]}"; do
  test_user_make "$u" "$work/home-$u" || exit 1
  mkdir -p "$work/home-$u"
  chown "$u" "$work/home-$u"
  chmod 755 "$work/home-$u"
done
A=${USERS[0]} B=${USERS[1]}
UA=$(id -u "$A") UB=$(id -u "$B")
HA=$work/home-$A HB=$work/home-$B
echo "users: $A (uid $UA), $B (uid $UB)"
mkdir -m 1777 "$work/drop"
chmod 1777 "$work/drop"

# The stand-in mpiexec: records its --ompi-server, then runs the program.
cat >"$work/mpiexec" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
  case "\$1" in
    --ompi-server) echo "\$2" >>"$work/drop/ompi-server.\$(id -u)"; shift 2 ;;
    -n|--host) shift 2 ;;
    --*) shift ;;
    *) break ;;
  esac
done
exec "\$@"
EOF
chmod 755 "$work/mpiexec"
as() {  # <user> <args of malleable-run...>: as that user, a clean environment; prints its output, returns its status
  local u=$1
  shift
  setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups -- env -i PATH=/usr/bin:/bin HOME="$work/home-$u" \
    MALLEABLE_MPIEXEC="$work/mpiexec" "$RUN" "$@" 2>&1
}
as_user() {  # <user> <command...>
  local u=$1
  shift
  setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups -- "$@"
}
# A program that leaves a file of its uid in drop/ (named after who wrote it).
for who in a b; do
  printf '#!/bin/sh\nid -u >"%s/drop/ran-%s-$(id -u)-$$"\n' "$work" "$who" >"$work/prog-$who"
  chmod 755 "$work/prog-$who"
done
chown "$B" "$work/prog-b"
# make_dir <user> <dir> <mode>: a job directory as malleable-run --job-dir leaves it, made by <user>
make_dir() {
  local u=$1 d=$2 mode=$3 who
  who=$([[ $u == "$A" ]] && echo a || echo b)
  as_user "$u" sh -c "umask 077 && mkdir -p '$d' && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >'$d/secret' &&
    echo '1234.0;tcp://127.0.0.1:1' >'$d/server.uri' && printf '%s\0' '$work/prog-$who' >'$d/command' &&
    printf 'PATH=/usr/bin:/bin\0' >'$d/environment' && chmod $mode '$d'" || fail "cannot make $d as $u"
  if [[ $mode != 700 ]]; then as_user "$u" chmod 644 "$d/secret" "$d/server.uri" "$d/command" "$d/environment"; fi
}
a_files() { find "$work/drop" -maxdepth 1 -name 'ran-*' -uid "$UA" | sort; }
nothing_of_b_ran() {  # <what>
  local got
  got=$(find "$work/drop" -maxdepth 1 -name "ran-b-*" | sort)
  [[ -z $got ]] || fail "$1: B's command ran: $got"
  [[ -z $(find "$work/drop" -maxdepth 1 -name "ompi-server.$UA" -newer "$work/mark") ]] ||
    fail "$1: A's mpiexec was started ($(cat "$work/drop/ompi-server.$UA"))"
}
refused() {  # <what> <regex of the reason> <malleable-run args...>
  local what=$1 re=$2 out rc
  shift 2
  touch "$work/mark"
  sleep 0.01
  out=$(as "$A" "$@")
  rc=$?
  echo "$what: status $rc: $out"
  ((rc == 2)) || fail "$what: status $rc, not 2"
  grep -Eq -- "$re" <<<"$out" || fail "$what: no '$re' in the refusal"
  nothing_of_b_ran "$what"
  [[ -z $(a_files | grep -v "ran-a-") ]] || fail "$what: a file of A's uid appeared: $(a_files)"
  echo "ok: $what"
}

# 0. The stand-in works: A's own directory's command runs, as A, with A's server.uri.
make_dir "$A" "$HA/job" 700
out=$(as "$A" --join "$HA/job" -n 1 --id own)
rc=$?
echo "$out"
((rc == 0)) || fail "A's join of A's own directory ended with status $rc"
[[ -n $(find "$work/drop" -maxdepth 1 -name "ran-a-$UA-*" -uid "$UA") ]] || fail "A's own command did not run"
grep -q "file:$HA/job/server.uri" "$work/drop/ompi-server.$UA" || fail "mpiexec was not given A's server.uri"
echo "ok: A's own job directory: its command ran as A"

# 1. B's directory, open to A's reading, with B's command: in a sticky folder (as /tmp) and
#    in B's home (there its parent is refused first).
mkdir -m 1777 "$work/sticky"
chmod 1777 "$work/sticky"
make_dir "$B" "$work/sticky/bjob" 755
refused "B's directory given to A's --join" \
  "the job directory $work/sticky/bjob \(--join\) belongs to another user \(uid $UB, mode 755\) in a folder anyone can write" \
  --join "$work/sticky/bjob" -n 1 --id x1
refused "B's directory with A's program" "belongs to another user \(uid $UB" --join "$work/sticky/bjob" -n 1 --id x2 -- "$work/prog-a"
refused "B's directory with --while-job (its environment file)" "belongs to another user \(uid $UB" \
  --join "$work/sticky/bjob" -n 1 --id x3 --while-job 12345
as_user "$B" chmod 700 "$work/sticky/bjob"
refused "B's private directory" "belongs to another user \(uid $UB, mode 700\)" --join "$work/sticky/bjob" -n 1 --id x4
make_dir "$B" "$HB/job" 755
refused "B's directory in B's home" "the job directory's parent $HB belongs to another user \(uid $UB, mode 755\)" \
  --join "$HB/job" -n 1 --id x4b

# 2. A's --job-dir below a folder of B's that others can write, and below root's 0777.
mkdir -m 777 "$work/bshared"
chown "$B" "$work/bshared"
chmod 777 "$work/bshared"
refused "--job-dir below B's folder" "parent $work/bshared belongs to another user \(uid $UB, mode 777\)" \
  --job-dir "$work/bshared/jobA" -- "$work/prog-a"
[[ -e $work/bshared/jobA ]] && fail "a job directory was made below B's folder"
mkdir -m 777 "$work/open"
chmod 777 "$work/open"
refused "--job-dir below root's 0777 folder" "parent $work/open is writable by others \(uid 0, mode 777\)" \
  --job-dir "$work/open/jobA" -- "$work/prog-a"
[[ -e $work/open/jobA ]] && fail "a job directory was made below a folder anyone can write"

# 3. A's directory (made by A) in that folder, swapped by B for B's own.
make_dir "$A" "$work/open/jobA" 700
as_user "$B" mv "$work/open/jobA" "$work/open/jobA.away" || fail "B could not move A's directory (the test's premise)"
make_dir "$B" "$work/open/jobA" 755
refused "A's directory swapped by B" "parent $work/open is writable by others" --join "$work/open/jobA" -n 1 --id x5

# 4. A link in place of the job directory: B's link in a sticky folder, to B's directory.
as_user "$B" ln -s "$HB/job" "$work/sticky/jobA"
refused "a link in place of the job directory" "the job directory $work/sticky/jobA \(--join\) is a symbolic link \(uid $UB" \
  --join "$work/sticky/jobA" -n 1 --id x6
make_dir "$A" "$work/sticky/jobA2" 700
out=$(as "$A" --join "$work/sticky/jobA2" -n 1 --id own2)
(($? == 0)) || fail "A's own directory in a sticky folder was refused: $out"
echo "ok: A's own directory in a sticky folder (/tmp's mode) is taken"

# 5. A link in place of each file A's launcher reads, to B's file.
for f in secret command server.uri environment; do
  make_dir "$A" "$HA/l-$f" 700
  as_user "$A" rm "$HA/l-$f/$f"
  as_user "$A" ln -s "$HB/job/$f" "$HA/l-$f/$f"
  refused "a link in place of $f" "$HA/l-$f/$f is a symbolic link" --join "$HA/l-$f" -n 1 --id "x-$f" --while-job 12345
done

# 6. The environment file: B's (root gives it to B, as a planted file would be), or not the launcher's.
make_dir "$A" "$HA/env-b" 700
chown "$B" "$HA/env-b/environment"
refused "B's environment file" "$HA/env-b/environment belongs to another user \(uid $UB" \
  --join "$HA/env-b" -n 1 --id x7 --while-job 12345
make_dir "$A" "$HA/env-x" 700
as_user "$A" sh -c "printf 'PATH=/usr/bin:/bin\0LD_PRELOAD=$work/evil.so\0' >'$HA/env-x/environment'"
refused "an environment file that sets LD_PRELOAD" "environment is not what malleable-run --job-dir wrote: it sets LD_PRELOAD" \
  --join "$HA/env-x" -n 1 --id x8 --while-job 12345
as_user "$A" sh -c "printf 'PATH=/usr/bin:/bin\0MALLEABLE_MPIEXEC=/bin/sh\0MALLEABLE_MPIEXEC=$work/prog-b\0' >'$HA/env-x/environment'"
refused "an environment file that sets a variable twice" "it sets MALLEABLE_MPIEXEC twice" \
  --join "$HA/env-x" -n 1 --id x9 --while-job 12345
echo "PASS"
