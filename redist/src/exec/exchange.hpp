// SPDX-License-Identifier: BSD-3-Clause
// The exchange of one plan on this rank (exec/exchange.cpp): step by step, each step's
// messages within the memory budget and message window, the local copies overlapped with
// the first step's messages or fused with its packing or unpacking. Arguments must have
// been checked and agreed on (exec/checks) before. Internal to redist.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

// Runs plan p on this rank of `comm` (redist's private duplicate of the caller's
// `user_comm`, on which a node-shared window is kept): B := A between the local
// column-major arrays a (lda) and b (ldb). sleep: waiters sleep between tests instead of
// spinning (oversubscribed nodes). node: the ranks of this node, sorted, when single copy
// or the node window is on (else null). Adds its times and counts to st.
template <class T>
void exchange_plan(MPI_Comm user_comm, MPI_Comm comm, const RedistPlan& p, const T* a, std::int64_t lda, T* b,
                   std::int64_t ldb, const ExecOptions& opt, bool sleep, ExecStats& st, const std::vector<int>* node);

// One item's blocking redistribution (redistribute(comm, items) with one item): the plan's
// steps with every transport (node window, single copy, fused local copies), as
// redistribute<T>(comm, plan, ...) for T of the item's element size. Defined in execute.cpp.
void redistribute_item(MPI_Comm comm, const ExchangeItem& item, const ExecOptions& opt, ExecStats* stats);

}  // namespace redist::exec
