// SPDX-License-Identifier: BSD-3-Clause
// The bench programs' one entry (malleable_internal/bench_main.hpp): the case named first
// runs with argv[0] its own name and the rest after it, its status is the program's; no
// case or an unknown one lists the cases and returns 2, --help lists them and returns 0.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "malleable_internal/bench_main.hpp"

namespace {

std::vector<std::string> g_seen;

int record(int argc, char** argv) {
  g_seen.assign(argv, argv + argc);
  return 7;
}
int other(int, char**) { return 3; }

constexpr malleable_internal::BenchCase kCases[] = {
    {"one", other, "the first case"},
    {"two", record, "the second case"},
};

int run(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return malleable_internal::bench_main(static_cast<int>(args.size()), argv.data(), "test-bench", kCases);
}

}  // namespace

TEST(BenchMain, TheNamedCaseRunsWithItsNameFirstAndItsStatusIsTheProgramsOne) {
  g_seen.clear();
  EXPECT_EQ(run({"test-bench", "two", "--n", "5"}), 7);
  EXPECT_EQ(g_seen, (std::vector<std::string>{"two", "--n", "5"}));
  EXPECT_EQ(run({"test-bench", "one"}), 3);
}

TEST(BenchMain, NoCaseOrAnUnknownOneListsTheCasesAndFails) {
  g_seen.clear();
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"test-bench"}), 2);
  EXPECT_EQ(run({"test-bench", "three"}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("test-bench: unknown case 'three'"), std::string::npos) << err;
  EXPECT_NE(err.find("  two "), std::string::npos) << err;
  EXPECT_TRUE(g_seen.empty());
}

TEST(BenchMain, HelpListsTheCasesAndSucceeds) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(run({"test-bench", "--help"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("Subcommands:"), std::string::npos) << out;
  EXPECT_NE(out.find("  one "), std::string::npos) << out;
}
