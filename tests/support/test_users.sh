# SPDX-License-Identifier: BSD-3-Clause
# Unix users a test makes (as root), sourced by the tests that need a second user
# (tests/launcher/job_dir_two_users.sh, tests/cluster/arbiter_two_users.sh,
# arbiter_extend_limits.sh, slurm_operator_limit.sh). Each user gets a uid of its own from
# 23000 up that no account names and no process holds: at the end a test kills its users'
# processes (userdel refuses a user that has any), and with useradd's next free uid that
# reached other tests' processes of a bare numeric uid (cluster.arbiter.daemon_live runs
# as uids 1000 and 1001 without accounts: its credential helper of uid 1001 was killed when
# a two-user test ended beside it). Two tests picking the same uid at once: useradd refuses
# the second, which takes the next.
#
#   test_user_make NAME HOME   make NAME unless it exists (0; 1 when no uid was free);
#                              a user made is appended to TEST_USERS_MADE
#   test_users_remove [S]      each user made: its processes given S seconds (default 0) to
#                              end, then killed, then userdel
TEST_USERS_MADE=()

test_user_make() {
  local name=$1 home=$2 uid
  getent passwd "$name" >/dev/null && return 0
  for ((uid = 23000; uid < 24000; ++uid)); do
    getent passwd "$uid" >/dev/null && continue
    pgrep -U "$uid" >/dev/null && continue
    if useradd --uid "$uid" --no-create-home --no-user-group --shell /bin/sh --home-dir "$home" "$name" 2>/dev/null; then
      TEST_USERS_MADE+=("$name")
      return 0
    fi
  done
  echo "test_user_make: no free uid in 23000-23999 for $name" >&2
  return 1
}

test_users_remove() {
  local wait_s=${1:-0} u i
  for u in "${TEST_USERS_MADE[@]}"; do
    for ((i = 0; i < wait_s * 10; ++i)); do pgrep -u "$u" >/dev/null || break; sleep 0.1; done
    for p in $(pgrep -u "$u"); do kill -9 "$p" 2>/dev/null || true; done
    for ((i = 0; i < 20; ++i)); do pgrep -u "$u" >/dev/null || break; sleep 0.1; done
    userdel "$u" || echo "the test's user $u could not be removed" >&2
  done
  TEST_USERS_MADE=()
}
