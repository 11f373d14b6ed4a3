// SPDX-License-Identifier: BSD-3-Clause
// A resize's move under a per-process memory budget (SessionOptions::move_budget_bytes,
// move_batches.hpp) through the session on 4 processes: three double matrices of 60 x 60
// (block-cyclic 7 x 5, block, extended-descriptor) move through a regrid onto 1x2 (ranks 0
// and 1: each then holds half of every matrix), a regrid back to 2x2, an expansion to 2x3
// (the two newcomers must batch alike: the budget is handed over) and a shrink back to
// 2x2. After each, every element is checked against its global index on every process.
// argv[1] is the budget in bytes (given to the original processes only); the records must show the batches it forces (0: one
// exchange each time) and a peak at least the matrices' old + new bytes it implies.
//   mpiexec -n 4 session_move_budget 12000   (3, 3, 2, 3 batches)
//   mpiexec -n 4 session_move_budget 0       (1, 1, 1, 1)
// With argv[2] = no-memory and argv[3] = K, a regrid onto 1x2 whose move cannot allocate
// the K-th matrix's buffer on world rank 1 (RESIZE_FAULT=no-memory-in-move:K, set before
// the session is made: it reads its configuration once, then) instead: the same error on
// every process, nothing moved (or, in a later batch, the error says what did).
//   mpiexec -n 4 session_move_budget 12000 no-memory 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/resize/session.hpp"
#include "session_test_util.hpp"

namespace {

constexpr int kN = 60;

double value(int k, int i, int j) { return 1e6 * k + 1000.0 * i + j; }

// Halves (thirds...) with the remainder on the last part.
void even(int n, int parts, std::vector<long long>& out) {
  out.assign(static_cast<std::size_t>(parts), n / parts);
  out.back() += n % parts;
}

using session_test::decision;

// RESIZE_FAULT=no-memory-in-move:K (world rank 1 cannot allocate the K-th matrix's new
// buffer; the session `s` read it when it was made) in a regrid onto 1x2: every process
// gets the same resize::Error naming the matrix and rank 1. K = 0: nothing moved, the grid
// and every element as they were (`intact` checks). K = 1: one exchange: the same; with
// the budget (three batches) A has already moved, and the error says so. Returns 0 when
// all of that holds.
template <class Check>
int no_memory(resize::Session& s, int k, bool limited, Check&& intact) {
  const auto fails = [&](const std::vector<std::string>& want) {
    resize::Decision d = decision(resize::Action::Regrid, 0, 1, 2);
    d.ranks = {0, 1};
    std::string why;
    try {
      s.resize_now(d);
    } catch (const resize::Error& e) {
      why = e.what();
    }
    bool good = !why.empty();
    for (const auto& w : want) good = good && why.find(w) != std::string::npos;
    // The same text on every process: its length and a checksum agree.
    unsigned long long sum = 0;  // wraps (unsigned: defined), as a checksum may
    for (char c : why) sum = sum * 31 + static_cast<unsigned char>(c);
    long long mine[2] = {static_cast<long long>(why.size()), static_cast<long long>(sum >> 1)}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_LONG_LONG, MPI_MIN, s.world());
    MPI_Allreduce(mine, hi, 2, MPI_LONG_LONG, MPI_MAX, s.world());
    good = good && lo[0] == hi[0] && lo[1] == hi[1];
    int all = good ? 1 : 0, every = 0;
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, s.world());
    if (s.world_rank() == 0 || !good)
      std::printf("session_move_budget: no memory for matrix %d on rank 1: %s: '%s'\n", k, good ? "ok" : "FAILED", why.c_str());
    return every == 1;
  };
  bool ok = false;
  if (k == 0) {
    ok = fails({"matrix 'A'", "does not fit in memory", "world rank 1", "no data of this exchange moved"});
    ok = ok && s.grid().shape() == "2x2" && s.in_grid();
    intact();
  } else if (!limited) {
    ok = fails({"matrix 'B'", "does not fit in memory", "world rank 1"});
    ok = ok && s.grid().shape() == "2x2";
    intact();
  } else {
    ok = fails({"batch 2 of 3", "after matrices A reached the new grid", "matrix 'B'", "world rank 1"});
  }
  if (s.world_rank() == 0) std::printf("%s\n", ok ? "PASS" : "FAILED: the failed moves");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = 0;
  {
    resize::SessionOptions o;
    o.app = "session_move_budget";
    o.progress = false;
    o.persist_history = false;
    o.resize_timeout = 60;
    // Only the original processes are given the budget (as with RESIZE_MOVE_BUDGET under
    // mpiexec, which spawned copies need not see): the newcomers must take it from the
    // hand-over, or they batch differently and the expansion's move goes wrong.
    const std::int64_t budget = argc > 1 ? std::atoll(argv[1]) : 0;
    const bool limited = budget > 0;
    if (!blacs_dyn_is_new()) o.move_budget_bytes = budget;
    const bool fault = argc > 3 && std::string(argv[2]) == "no-memory";
    const int fault_matrix = fault ? std::atoi(argv[3]) : -1;
    // Before the session: it reads RESIZE_FAULT once, when it is made.
    if (fault) setenv("RESIZE_FAULT", ("no-memory-in-move:" + std::to_string(fault_matrix)).c_str(), 1);
    resize::Session s(argc, argv, std::move(o));
    using resize::Distribution;
    auto a = s.register_matrix<double>("A", kN, kN, 7, 5, Distribution::BlockCyclic);
    auto b = s.register_matrix<double>("B", kN, kN, 1, 1, Distribution::Block);
    auto e = s.register_matrix<double>("E", kN, kN, [](const resize::Grid& g, std::vector<long long>& r,
                                                        std::vector<long long>& c) {
      even(kN, g.nprow, r);
      even(kN, g.npcol, c);
    });
    resize::Matrix<double>* mats[3] = {&a, &b, &e};
    const auto check = [&](const char* phase) {
      long long bad = 0;
      if (s.in_grid())
        for (int k = 0; k < 3; ++k)
          mats[k]->for_each_local([&](int i, int j, const double& v) { bad += v != value(k, i, j); });
      session_test::all_right(s, bad, "session_move_budget", phase, "elements wrong", nullptr);
    };
    const auto require = [&](const resize::RemapResult& r, const char* shape, int procs, const char* what) {
      session_test::reached(s, r, procs, "session_move_budget", what, shape);
      check(what);
    };
    if (fault) {
      s.start(resize::Grid{2, 2, {}});
      for (int k = 0; k < 3; ++k) mats[k]->for_each_local([&](int i, int j, double& v) { v = value(k, i, j); });
      failed = no_memory(s, fault_matrix, limited, [&] { check("the failed move"); });
    } else if (s.is_newcomer()) {
      s.join();
      check("the expansion");
    } else {
      s.start(resize::Grid{2, 2, {}});
      for (int k = 0; k < 3; ++k) mats[k]->for_each_local([&](int i, int j, double& v) { v = value(k, i, j); });
      check("start");
      resize::Decision d = decision(resize::Action::Regrid, 0, 1, 2);
      d.ranks = {0, 1};
      require(s.resize_now(d), "1x2", 4, "the regrid onto 1x2");
      d = decision(resize::Action::Regrid, 0, 2, 2);
      d.ranks = {0, 1, 2, 3};
      require(s.resize_now(d), "2x2", 4, "the regrid back to 2x2");
      require(s.resize_now(decision(resize::Action::Expand, 6, 2, 3)), "2x3", 6, "the expansion");
    }
    if (argc <= 2) require(s.resize_now(decision(resize::Action::Shrink, 4, 2, 2)), "2x2", 4, "the shrink");
    if (argc <= 2 && s.world_rank() == 0) {
      // Batches with a budget of 12000 bytes: new buffers per process are 14400 per matrix
      // on 1x2; 7680 (A: 32 rows of 7-row blocks), 7200, 7200 on 2x2; 5120, 4800, 4800 on 2x3.
      const std::vector<int> want = limited ? std::vector<int>{3, 3, 2, 3} : std::vector<int>{1, 1, 1, 1};
      // Rank 0's matrix buffers at the peak of the first regrid: old 7680 + 7200 + 7200,
      // new 3 x 14400; with three batches the last one holds old E and all three new.
      const std::int64_t first_peak = limited ? 7200 + 3 * 14400 : 7680 + 7200 + 7200 + 3 * 14400;
      const auto& recs = s.metrics().resizes();
      std::string got;
      for (const auto& r : recs) {
        char one[48];
        std::snprintf(one, sizeof one, " %d/%lld", r.move.batches, static_cast<long long>(r.move.peak_bytes));
        got += one;
      }
      bool good = recs.size() == want.size();
      for (std::size_t k = 0; good && k < want.size(); ++k) good = recs[k].move.batches == want[k];
      good = good && recs[0].move.peak_bytes >= first_peak;
      std::printf("session_move_budget: budget %s: batches/peak bytes per resize:%s\n",
                  limited ? "12000" : "none", got.c_str());
      if (!good) {
        std::fprintf(stderr, "session_move_budget: FAILED: expected batches %d %d %d %d and a first peak >= %lld\n",
                     want[0], want[1], want[2], want[3], static_cast<long long>(first_peak));
        failed = 1;
      } else {
        std::printf("PASS\n");
      }
    }
  }
  MPI_Finalize();
  return failed;
}
