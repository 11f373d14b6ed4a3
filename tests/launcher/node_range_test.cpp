// SPDX-License-Identifier: BSD-3-Clause
// The node range a Slurm job asked for, read back from its batch script and its command
// line (cluster's reader, malleable/cluster/node_range.hpp; the launcher's settings from it,
// launcher/src/node_range.hpp): sbatch's spellings of -N, where it stops reading
// directives, which source wins, values that are no range, and random bytes.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "node_range.hpp"

namespace launcher {
namespace {

using namespace cluster::slurm;  // the reader under test
using K = RangeRead::Kind;

void expect_range(const RangeRead& r, int lo, int hi) {
  ASSERT_EQ(r.kind, K::Found) << r.why;
  EXPECT_EQ(r.range.min, lo);
  EXPECT_EQ(r.range.max, hi);
}

TEST(NodeRange, Counts) {
  const auto r = parse_node_count("2-4");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min, 2);
  EXPECT_EQ(r->max, 4);
  const auto one = parse_node_count("3");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->min, 3);
  EXPECT_EQ(one->max, 3);
  EXPECT_TRUE(parse_node_count("999999"));
  for (const char* bad : {"", "0", "0-2", "4-2", "2k", "1000000", "2-", "-4", "02", "2-4-6", "1,3", " 2", "2 ", "+2", "2-04",
                          "99999999999999999999"})
    EXPECT_FALSE(parse_node_count(bad)) << bad;
  EXPECT_EQ(range_text({2, 4}), "2-4");
  EXPECT_EQ(range_text({3, 3}), "3");
}

TEST(NodeRange, SbatchSpellings) {
  expect_range(nodes_in_words({"-N", "2-4"}), 2, 4);
  expect_range(nodes_in_words({"-N2-4"}), 2, 4);
  expect_range(nodes_in_words({"--nodes=1-8"}), 1, 8);
  expect_range(nodes_in_words({"--nodes", "5"}), 5, 5);
  expect_range(nodes_in_words({"-N", "2", "--time=30", "-N", "3-6"}), 3, 6);  // the last wins
  EXPECT_EQ(nodes_in_words({"--ntasks-per-node=2", "--nodelist=node1", "-n", "8"}).kind, K::None);
  EXPECT_EQ(nodes_in_words({"-N"}).kind, K::Bad);
  const RangeRead bad = nodes_in_words({"-N", "2k"});
  EXPECT_EQ(bad.kind, K::Bad);
  EXPECT_NE(bad.why.find("'2k'"), std::string::npos) << bad.why;
  // the script's own arguments and a --wrap's command are not sbatch's
  expect_range(nodes_in_words({"-N", "2-4", "job.sh", "-N", "9"}, "job.sh"), 2, 4);
  expect_range(nodes_in_words({"-N", "2-4", "--wrap", "prog", "-N", "9"}), 2, 4);
  expect_range(nodes_in_words({"-N", "2-4", "--wrap=prog", "-N", "9"}), 2, 4);
}

TEST(NodeRange, BatchScript) {
  expect_range(script_node_range("#!/bin/bash\n#SBATCH -N 2-4 --ntasks-per-node=2 --time=02:00:00\nexec malleable-run\n"), 2, 4);
  expect_range(script_node_range("#!/bin/bash\n\n# a comment\n  # indented\n#SBATCH --nodes=3-5\n"), 3, 5);
  // sbatch stops at the first command: a later directive is not read
  expect_range(script_node_range("#!/bin/bash\n#SBATCH -N 2-4\necho hi\n#SBATCH -N 7\n"), 2, 4);
  // a '#' ends a directive; quotes are removed; "# SBATCH" and an indented one are comments
  expect_range(script_node_range("#SBATCH -N 2-4 # -N 9\n"), 2, 4);
  expect_range(script_node_range("#SBATCH --nodes=\"1-3\"\n# SBATCH -N 8\n  #SBATCH -N 9\n"), 1, 3);
  expect_range(script_node_range("#SBATCH -N 1\r\n#SBATCH -N 2-3\r\n"), 2, 3);
  // a heterogeneous job: its first component's
  expect_range(script_node_range("#SBATCH -N 2-4\n#SBATCH hetjob\n#SBATCH -N 9\n"), 2, 4);
  EXPECT_EQ(script_node_range("#!/bin/bash\n#SBATCH -n 8\nsrun prog -N 3\n").kind, K::None);
  EXPECT_EQ(script_node_range("#SBATCH -N 4-2\n").kind, K::Bad);
  EXPECT_EQ(script_node_range("").kind, K::None);
}

TEST(NodeRange, SubmitLine) {
  expect_range(submit_line_node_range("sbatch -N 2-4 job.sh", "/home/u/job.sh", "/home/u"), 2, 4);
  expect_range(submit_line_node_range("sbatch --parsable -N 1-3 ./job.sh -N 9", "/home/u/job.sh", "/home/u"), 1, 3);
  expect_range(submit_line_node_range("sbatch -N 1-3 /abs/job.sh -N 9\n", "/abs/job.sh", "/home/u"), 1, 3);
  expect_range(submit_line_node_range("sbatch -N 1-3 sub//job.sh -N 9", "/home/u/sub/job.sh", "/home/u"), 1, 3);
  // the script's name not recognised: every word is read (the last -N wins)
  expect_range(submit_line_node_range("sbatch -N 1-3 other.sh", "/home/u/job.sh", "/home/u"), 1, 3);
  EXPECT_EQ(submit_line_node_range("sbatch --parsable job.sh", "/home/u/job.sh", "/home/u").kind, K::None);
  EXPECT_EQ(submit_line_node_range("", "", "").kind, K::None);
  EXPECT_EQ(submit_line_node_range("sbatch -N two job.sh", "/home/u/job.sh", "/home/u").kind, K::Bad);
}

TEST(NodeRange, CommandLineWinsOverTheScript) {
  const RangeRead script = script_node_range("#SBATCH -N 2-4\n");
  const RangeRead line = submit_line_node_range("sbatch -N 1-8 job.sh", "/w/job.sh", "/w");
  const RangeRead none = submit_line_node_range("sbatch job.sh", "/w/job.sh", "/w");
  const JobRange a = job_node_range(script, line);
  expect_range(a.read, 1, 8);
  EXPECT_EQ(a.from, "the sbatch command line");
  const JobRange b = job_node_range(script, none);
  expect_range(b.read, 2, 4);
  EXPECT_EQ(b.from, "the batch script");
  EXPECT_EQ(job_node_range(script_node_range("#SBATCH -N x\n"), line).read.kind, K::Bad);
  EXPECT_EQ(job_node_range(none, none).read.kind, K::None);
}

TEST(NodeRange, RecipeSettingsKeepTheUsers) {
  const std::set<std::string> none, some{"RESIZE_SLURM_MAX_NODES"}, policy{"RESIZE_POLICY"};
  auto in = [](const std::set<std::string>& s) { return [&s](const std::string& k) { return s.count(k) > 0; }; };
  using V = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(recipe_settings(NodeRange{2, 4}, in(none)),
            (V{{"RESIZE_POLICY", "slurm"}, {"RESIZE_SLURM_MIN_NODES", "2"}, {"RESIZE_SLURM_MAX_NODES", "4"}}));
  EXPECT_EQ(recipe_settings(NodeRange{2, 4}, in(some)), (V{{"RESIZE_POLICY", "slurm"}, {"RESIZE_SLURM_MIN_NODES", "2"}}));
  EXPECT_EQ(recipe_settings(std::nullopt, in(none)), (V{{"RESIZE_POLICY", "slurm"}}));
  EXPECT_EQ(recipe_settings(std::nullopt, in(policy)), V{});
}

std::string random_text(std::mt19937& g, std::size_t most) {
  static const std::string alphabet = "0123456789 -N--nodes=#SBATCH\n\t\"'\\hetjob--wrapjob.sh/.";
  std::uniform_int_distribution<std::size_t> len(0, most), pick(0, alphabet.size() - 1), raw(0, 255), coin(0, 5);
  std::string s;
  const std::size_t n = len(g);
  for (std::size_t i = 0; i < n; ++i) s += coin(g) == 0 ? static_cast<char>(raw(g)) : alphabet[pick(g)];
  return s;
}

void expect_sane(const RangeRead& r) {
  if (r.kind == K::Found) {
    EXPECT_GE(r.range.min, 1);
    EXPECT_LE(r.range.min, r.range.max);
    EXPECT_LE(r.range.max, 999999);
  } else if (r.kind == K::Bad) {
    EXPECT_FALSE(r.why.empty());
    EXPECT_LE(r.why.size(), 200u);
  }
}

TEST(NodeRange, RandomBytes) {
  std::mt19937 g(20261129);
  for (int k = 0; k < 20000; ++k) {
    const std::string s = random_text(g, k % 10 == 0 ? 3000 : 120);
    expect_sane(script_node_range(s));
    expect_sane(submit_line_node_range(s, "/w/job.sh", "/w"));
    expect_sane(submit_line_node_range("sbatch " + s, s.substr(0, 10), s.substr(std::min<std::size_t>(5, s.size()), 10)));
    if (const auto n = parse_node_count(s)) {
      EXPECT_GE(n->min, 1);
      EXPECT_LE(n->min, n->max);
      EXPECT_EQ(s.find_first_not_of("0123456789-"), std::string::npos) << s;
    }
  }
  // a script of many directive lines and one huge line are read within their bounds
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "#SBATCH -N " + std::to_string(i % 50 + 1) + "\n";
  expect_range(script_node_range(big), 50, 50);  // 10000 lines: line 10000 says 50
  expect_sane(script_node_range("#SBATCH " + std::string(3u << 20, 'N')));
}

}  // namespace
}  // namespace launcher
