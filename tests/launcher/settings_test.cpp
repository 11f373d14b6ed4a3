// SPDX-License-Identifier: BSD-3-Clause
// The settings table (launcher/src/settings.hpp): every row whole, every name once, the
// recipe's and the launcher's own settings in it, its markdown lines within the docs' 400
// characters, and `--settings` and `--help` as the command line gives them.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "cli.hpp"
#include "settings.hpp"

namespace launcher {
namespace {

TEST(Settings, EveryRowWholeEveryNameOnce) {
  std::size_t n = 0;
  const Setting* t = settings_table(&n);
  ASSERT_GE(n, 90u);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < n; ++i) {
    for (const char* f : {t[i].names, t[i].part, t[i].type, t[i].read, t[i].meaning}) EXPECT_NE(std::string(f), "") << t[i].names;
    std::stringstream names(t[i].names);
    for (std::string w; std::getline(names, w, ',');) {
      if (w.front() == ' ') w.erase(0, 1);
      EXPECT_TRUE(seen.insert(w).second) << w << " twice";
    }
  }
  for (const char* must : {"MALLEABLE_RSH", "MALLEABLE_MPIEXEC", "MALLEABLE_PROBE_TIMEOUT", "RESIZE_POLICY", "RESIZE_SLURM_MIN_NODES",
                           "RESIZE_SLURM_MAX_NODES", "BLACS_DYN_JOB_DIR", "REDIST_GEMR2D"})
    EXPECT_TRUE(seen.count(must)) << must;
}

TEST(Settings, MarkdownLinesShortAndTheRangeDefaultRight) {
  const std::string md = settings_markdown();
  std::stringstream in(md);
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    EXPECT_LE(line.size(), 400u) << line.substr(0, 80);
    EXPECT_EQ(line.front(), '|');
    EXPECT_EQ(line.back(), '|');
  }
  std::size_t n = 0;
  settings_table(&n);
  EXPECT_EQ(rows, n + 2);
  EXPECT_NE(md.find("| `RESIZE_SLURM_MAX_NODES` | resize | integer | the most nodes the job held; the job's `-N` maximum"), std::string::npos);
}

TEST(Settings, CommandLine) {
  const Parsed s = parse_options({"--settings"});
  EXPECT_FALSE(s.options);
  EXPECT_EQ(s.status, 0);
  EXPECT_EQ(s.out, settings_markdown());
  const Parsed h = parse_options({"--help"});
  EXPECT_NE(h.out.find("[--while-job J]"), std::string::npos);
  EXPECT_NE(h.out.find("malleable-run --settings"), std::string::npos);
  EXPECT_NE(h.out.find("docs/guide/slurm.md"), std::string::npos);
}

}  // namespace
}  // namespace launcher
