#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The combination suite's fixture: installs the build into a scratch prefix (as
# tests/install/run_install_test.sh does) and builds the user programs of
# tests/combinations/user against it with find_package(malleable), as a user would.
# Usage: install_user.sh <build dir> <user program sources> <work dir>
set -euo pipefail
build=$1 src=$2 work=$3
unset LD_LIBRARY_PATH
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 1; }
cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >"$work/build.log" 2>&1 &&
  cmake --build "$work/build" >>"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
echo "user programs built against $work/prefix: $(ls "$work/build" | grep -E '^user_' | tr '\n' ' ')"
