#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Kept while docs/data/workload/ names this path: scripts/bench/workload.sh sensitivity, arguments and
# environment passed through.
exec "$(dirname "${BASH_SOURCE[0]}")/workload.sh" sensitivity "$@"
