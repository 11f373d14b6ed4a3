// SPDX-License-Identifier: BSD-3-Clause
// GoogleTest main for MPI tests: every rank runs every test; only rank 0 prints, and the
// process exits non-zero on every rank if any rank saw a failure, so mpiexec fails too.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {
// Non-zero ranks print only their failures, tagged with the rank.
class FailureOnlyListener : public testing::EmptyTestEventListener {
 public:
  explicit FailureOnlyListener(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed()) {
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
    }
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailureOnlyListener(rank));
  }
  int local_fail = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_fail = 0;
  MPI_Allreduce(&local_fail, &any_fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (local_fail && rank != 0) {
    std::fprintf(stderr, "[rank %d] had failing tests\n", rank);
  }
  MPI_Finalize();
  return any_fail;
}
