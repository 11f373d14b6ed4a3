#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Kept while docs/data/workload/ names this path: scripts/bench/slurm.sh rpc, arguments and
# environment passed through.
exec "$(dirname "${BASH_SOURCE[0]}")/slurm.sh" rpc "$@"
