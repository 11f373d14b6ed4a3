// SPDX-License-Identifier: BSD-3-Clause
// No shell between a name and a command: Slurm's commands run as argument vectors
// (process_runner: posix_spawnp, stdout and stderr captured apart, a timeout, the process
// group killed at it), and a node name that is not a name never reaches one. Fake Slurm
// commands on PATH record the arguments they got.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "malleable/cluster/cluster.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster;
using namespace cluster::slurm;

namespace {

// A scratch directory with fake Slurm commands, first on PATH while it lives.
struct FakeSlurm {
  std::string dir, old_path;
  FakeSlurm() {
    std::string t = (std::filesystem::temp_directory_path() / "run-command-XXXXXX").string();
    if (::mkdtemp(t.data()) != nullptr) dir = t;
    old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (dir + ":" + old_path).c_str(), 1);
  }
  ~FakeSlurm() {
    ::setenv("PATH", old_path.c_str(), 1);
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
  void file(const std::string& name, const std::string& text, bool exe = false) const {
    std::ofstream(dir + "/" + name) << text;
    if (exe) ::chmod((dir + "/" + name).c_str(), 0755);
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  bool exists(const std::string& name) const { return std::filesystem::exists(dir + "/" + name); }
  FakeSlurm(const FakeSlurm&) = delete;
  FakeSlurm& operator=(const FakeSlurm&) = delete;
};

// Job 42 on node1; node5 joins it once salloc ran. Every command records its arguments,
// one a line.
void slurm_of_job_42(const FakeSlurm& f) {
  f.file("own-before", slurm_snapshot::own_record("42", "node1", "batch", "normal"));
  f.file("own-after", slurm_snapshot::own_record("42", "node[1,5]", "batch", "normal"));
  const std::string log = "for a in \"$@\"; do printf '%s\\n' \"$a\"; done >> \"" + f.dir + "/$(basename \"$0\").args\"\n";
  f.file("squeue",
         "#!/bin/sh\n" + log + "if [ -e \"" + f.dir + "/salloc.args\" ]; then cat \"" + f.dir + "/own-after\"; else cat \"" +
             f.dir + "/own-before\"; fi\n",
         true);
  f.file("salloc", "#!/bin/sh\n" + log + "echo 'salloc: Granted job allocation 43' >&2\n", true);
  f.file("scontrol", "#!/bin/sh\n" + log, true);
  f.file("scancel", "#!/bin/sh\n" + log, true);
}

}  // namespace

// A node name holding a shell's separators (as a forged reply or a view file could carry
// one): refused before any command, and nothing it names runs.
TEST(SlurmCommands, ANodeNameNeverReachesAShell) {
  FakeSlurm f;
  ASSERT_FALSE(f.dir.empty());
  slurm_of_job_42(f);
  Client c(process_runner(), "42");
  const std::string evil = "node5;touch " + f.dir + "/pwned";
  EXPECT_THROW(c.acquire(std::vector<std::string>{evil}), Error);
  EXPECT_THROW(c.release({"node1", "node2$(touch " + f.dir + "/pwned)"}), Error);
  EXPECT_FALSE(f.exists("pwned")) << "a command named in a node list ran";
  EXPECT_FALSE(f.exists("salloc.args"));
  // A good name: salloc gets it as one argument, each option its own.
  EXPECT_EQ(c.acquire(std::vector<std::string>{"node5"}), std::vector<std::string>{"node5"});
  EXPECT_EQ(f.read("salloc.args"),
            "-N\n1\n-w\nnode5\n--no-shell\n--immediate=10\n-J\nmalleable-expand\n--dependency=expand:42\n-p\nbatch\n"
            "--qos=normal\n");
  EXPECT_NE(f.read("scontrol.args").find("update\nJobId=43\nNumNodes=0\n"), std::string::npos) << f.read("scontrol.args");
}

// The runner itself: arguments as they stand (blanks, quotes, $(), ';' stay one argument),
// stdout and stderr apart, the exit status, SLURM_TIME_FORMAT=standard set, a program that
// is not there said, a command past its timeout ended with its process group.
TEST(SlurmCommands, TheRunnerTakesArgumentsAsTheyStandWithATimeout) {
  FakeSlurm f;
  ASSERT_FALSE(f.dir.empty());
  const Runner run = process_runner();
  const std::string touch = "$(touch " + f.dir + "/pwned)";
  Command c = run({"printf", "%s\\n", "a b", touch, "x;y", "'q'"});
  EXPECT_EQ(c.status, 0);
  EXPECT_EQ(c.out, "a b\n" + touch + "\nx;y\n'q'\n");
  EXPECT_FALSE(f.exists("pwned"));
  c = run({"sh", "-c", "echo out; echo err >&2; echo $SLURM_TIME_FORMAT; exit 3"});
  EXPECT_EQ(c.status, 3);
  EXPECT_EQ(c.out, "out\nstandard\n");
  EXPECT_EQ(c.err, "err\n");
  c = run({"no-such-program-malleable"});
  EXPECT_EQ(c.status, -1);
  EXPECT_NE(c.err.find("no-such-program-malleable"), std::string::npos) << c.err;
  EXPECT_EQ(command_line({"squeue", "-o", "%i|%T", "NodeList=n[1-2]", "a b"}), "squeue -o '%i|%T' NodeList=n[1-2] 'a b'");
  RunOptions quick;
  quick.timeout_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  c = process_runner(quick)({"sh", "-c", "sleep 30; echo late"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(c.timed_out);
  EXPECT_EQ(c.status, -1);
  EXPECT_EQ(c.out, "");
  EXPECT_LT(took, 20) << "the 30-s sleep was waited for";
  // A command that leaves a child holding its output: its own status, not the child's life.
  c = process_runner(quick)({"sh", "-c", "sleep 30 & echo started"});
  EXPECT_EQ(c.out, "started\n");
  EXPECT_EQ(c.status, 0);
  EXPECT_FALSE(c.timed_out);
  RunOptions small;
  small.max_output = 1000;
  c = process_runner(small)({"sh", "-c", "yes | head -c 100000"});
  EXPECT_EQ(c.status, -1);
  EXPECT_NE(c.err.find("more than 1000 bytes"), std::string::npos) << c.err;
}
