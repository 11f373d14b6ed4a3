// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's pure core: the command line, the .next file, the banner filter, the
// lost-node reading, hosts and grids, the remote shell's quoting, Slurm's answers.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.hpp"
#include "core.hpp"
#include "malleable_internal/job_dir_layout.hpp"

extern char** environ;

namespace launcher {
namespace {

Parsed parse(std::vector<std::string> a) { return parse_options(a); }

TEST(LauncherCli, Defaults) {
  const Parsed p = parse({"--", "./prog", "-x"});
  ASSERT_TRUE(p.options);
  EXPECT_EQ(p.options->np, 4);
  EXPECT_FALSE(p.options->np_set);
  EXPECT_EQ(p.options->max_restarts, 20);
  EXPECT_FALSE(p.options->restart_on_failure);
  EXPECT_EQ(p.options->program, (std::vector<std::string>{"./prog", "-x"}));
}

TEST(LauncherCli, EveryOption) {
  const Parsed p = parse({"-n", "6", "--max-restarts", "3", "--hosts", "a,b", "--on-failure", "restart", "--job-dir", "/d", "--", "p"});
  ASSERT_TRUE(p.options) << p.err;
  EXPECT_EQ(p.options->np, 6);
  EXPECT_TRUE(p.options->np_set);
  EXPECT_EQ(p.options->max_restarts, 3);
  EXPECT_EQ(p.options->hosts, "a,b");
  EXPECT_TRUE(p.options->restart_on_failure);
  EXPECT_EQ(p.options->job_dir, "/d");
  const Parsed j = parse({"--join", "/d", "--host", "n1", "--id", "x", "--at-start", "--while-job", "12"});
  ASSERT_TRUE(j.options) << j.err;
  EXPECT_TRUE(j.options->at_start);
  EXPECT_EQ(j.options->while_job, "12");
}

TEST(LauncherCli, BadInputSaysWhyWithStatus2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--bogus", "--", "p"}, "malleable-run: unknown option --bogus (usage: malleable-run"},
      {{"./prog"}, "malleable-run: unknown option ./prog"},
      {{"-n"}, "malleable-run: -n needs a value"},
      {{"-n", "0", "--", "p"}, "malleable-run: -n must be a positive whole number, got '0'"},
      {{"-n", "1000000", "--", "p"}, "-n must be a positive whole number, got '1000000'"},
      {{"-n", "4x", "--", "p"}, "got '4x'"},
      {{"--max-restarts", "-1", "--", "p"}, "--max-restarts must be a whole number, got '-1'"},
      {{"--max-restarts", "10000", "--", "p"}, "--max-restarts must be a whole number"},
      {{"--join", "/d", "--while-job", "0"}, "--while-job must be a Slurm job id, got '0'"},
      {{"--join", "/d", "--while-job", "1;x"}, "--while-job must be a Slurm job id"},
      {{"--join", "/d", "--hosts", "a"}, "--join takes no --job-dir or --hosts (one launch, one --host)"},
      {{"--host", "a", "--", "p"}, "--host, --id, --at-start and --while-job go with --join"},
      {{"-n", "2"}, "malleable-run: no program given"},
      {{"--on-failure", "retry", "--", "p"}, "--on-failure must be stop or restart, got 'retry'"},
  };
  for (const auto& [args, msg] : cases) {
    const Parsed p = parse(args);
    EXPECT_FALSE(p.options) << msg;
    EXPECT_EQ(p.status, 2) << msg;
    EXPECT_NE(p.err.find(msg), std::string::npos) << p.err;
  }
}

TEST(LauncherCli, Help) {
  for (const char* h : {"-h", "--help"}) {
    const Parsed p = parse({"-n", "2", h});
    EXPECT_FALSE(p.options);
    EXPECT_EQ(p.status, 0);
    EXPECT_EQ(p.out.rfind("usage: malleable-run [-n NP]", 0), 0u);
    EXPECT_NE(p.out.find("--while-job J"), std::string::npos);
    EXPECT_NE(p.out.find("MALLEABLE_PROBE_TIMEOUT"), std::string::npos);
  }
}

TEST(LauncherCore, TrimmedDropsTheBlanksAroundOnly) {
  EXPECT_EQ(trimmed("  RUNNING\r\n"), "RUNNING");
  EXPECT_EQ(trimmed("\t12 34 \n"), "12 34");
  EXPECT_EQ(trimmed(" \t\r\n"), "");
  EXPECT_EQ(trimmed(""), "");
  EXPECT_EQ(trimmed("idle"), "idle");
}

TEST(LauncherCore, Squarest) {
  EXPECT_EQ(squarest(1), std::make_pair(1, 1));
  EXPECT_EQ(squarest(6), std::make_pair(2, 3));
  EXPECT_EQ(squarest(12), std::make_pair(3, 4));
  EXPECT_EQ(squarest(16), std::make_pair(4, 4));
  EXPECT_EQ(squarest(7), std::make_pair(1, 7));
  EXPECT_EQ(squarest(999983), std::make_pair(1, 999983));
  EXPECT_EQ(grid_text(2, 3), "2x3");
}

TEST(LauncherCore, NextFile) {
  std::string why;
  auto n = parse_next("2 3 /ck/app-000010.h5\nhosts n1,n2\n", &why);
  ASSERT_TRUE(n) << why;
  EXPECT_EQ(n->p, 2);
  EXPECT_EQ(n->q, 3);
  EXPECT_EQ(n->file, "/ck/app-000010.h5");
  EXPECT_EQ(n->hosts, "n1,n2");
  EXPECT_FALSE(n->new_allocation);
  n = parse_next("1 2 levels\nnew-allocation\nspawn-fallback", &why);
  ASSERT_TRUE(n) << why;
  EXPECT_EQ(n->file, "");
  EXPECT_TRUE(n->new_allocation);
  EXPECT_TRUE(n->spawn_fallback);
  EXPECT_TRUE(has_spawn_fallback("1 2 f\nspawn-fallback\n"));
  EXPECT_FALSE(has_spawn_fallback("1 2 f\nspawn-fallback-not\n"));
  EXPECT_EQ(next_from("1 2 /x/y.h5\n"), "/x/y.h5");
}

TEST(LauncherCore, GarbageNextFiles) {
  std::string why;
  for (const std::string& bad : std::vector<std::string>{"", "\n", "2 3", "a b c", "0 2 f", "2 -3 f", "1000 1000 f", "99999999999 1 f",
                                "2 3 f g", "2 3 f\nhosts n1;reboot", "2 3 f\nhosts " + std::string(300, '-'),
                                std::string(70000, '7')}) {
    why.clear();
    EXPECT_FALSE(parse_next(bad, &why)) << bad.substr(0, 40);
    EXPECT_FALSE(why.empty());
  }
}

const std::string kRule(74, '-');

TEST(LauncherCore, BannerFilterDropsTheExitBanner) {
  const std::string banner = kRule + "\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code.\n" + kRule + "\n";
  const std::string other = kRule + "\nmpiexec noticed that process rank 0 ... exited on signal 9 (Killed).\n" + kRule + "\n";
  const std::string nonzero = kRule + "\nmpiexec detected that one or more processes exited with non-zero status\n" + kRule + "\n";
  const std::string in = "before\n" + banner + "middle\n" + other + nonzero + "after";
  // fed whole and byte by byte: the same
  BannerFilter whole;
  std::string a = whole.feed(in);
  a += whole.finish();
  BannerFilter bytes;
  std::string b;
  for (const char c : in) b += bytes.feed(std::string(1, c));
  b += bytes.finish();
  EXPECT_EQ(a, "before\nmiddle\n" + other + "after\n");
  EXPECT_EQ(a, b);
  // a line passes at once; an open block is shown at the end; short dashes are no rule
  BannerFilter f;
  EXPECT_EQ(f.feed("x\n"), "x\n");
  EXPECT_EQ(f.feed("----\n"), "----\n");
  EXPECT_EQ(f.feed(kRule + "\nopen"), "");
  EXPECT_EQ(f.finish(), kRule + "\nopen\n");
}

TEST(LauncherCore, LostLine) {
  const std::string log =
      "rank 1 ok\n"
      "mpiexec noticed that process rank 3 with PID 0 on node node10 exited on signal 9 (Killed).\n"
      "ORTE has lost communication with a remote daemon.\n"
      "  Remote daemon: [[1234,0],2]   on node node3\n";
  EXPECT_EQ(lost_line(log, "node1"), "");
  EXPECT_EQ(lost_line(log, "node10"), "mpiexec noticed that process rank 3 with PID 0 on node node10 exited on signal 9 (Killed).");
  EXPECT_EQ(lost_line(log, "node3"), "Remote daemon: [[1234,0],2] on node node3");
  EXPECT_EQ(lost_line("process on node n2 was killed by a signal\n", "n2"), "process on node n2 was killed by a signal");
  EXPECT_EQ(lost_line("on node n2 is fine\n", "n2"), "");
  EXPECT_EQ(lost_line(log, ""), "");
  EXPECT_TRUE(lost_state("down*"));
  EXPECT_TRUE(lost_state("drain"));
  EXPECT_TRUE(lost_state("fail"));
  EXPECT_FALSE(lost_state("idle"));
  EXPECT_FALSE(lost_state("alloc"));
}

// What a POSIX shell reads from the quoted line: sh -c 'printf "%s\0" LINE'.
std::vector<std::string> shell_reads(const std::string& line) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  const std::string script = "printf '%s\\0' " + line;
  const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(posix_spawnp(&pid, "sh", &fa, nullptr, const_cast<char**>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  std::vector<std::string> words;
  std::size_t from = 0;
  for (std::size_t z; (z = out.find('\0', from)) != std::string::npos; from = z + 1) words.push_back(out.substr(from, z - from));
  return words;
}

TEST(LauncherCore, ShellQuoting) {
  EXPECT_EQ(shell_quote("plain/path-1.x"), "plain/path-1.x");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  const std::vector<std::string> words{"env", "A=1 2", "$(touch /tmp/pwned)", "`id`", "x;y", "it's", "", "new\nline",
                                       "*", "~", "a\\b", "--", "\"q\"", "é", "${HOME}", "!", "&&", "|"};
  EXPECT_EQ(shell_reads(shell_line(words)), words);
  // and random words: whatever the bytes (no NUL, which no argument holds), they come back as given
  unsigned seed = 77;
  for (int k = 0; k < 200; ++k) {
    std::vector<std::string> w(1 + k % 4);
    for (auto& s : w)
      for (int i = 0; i < k % 13; ++i) {
        seed = seed * 1103515245u + 12345u;
        s += static_cast<char>(1 + (seed >> 16) % 255);
      }
    EXPECT_EQ(shell_reads(shell_line(w)), w) << k;
  }
}

TEST(LauncherCore, SplitWordsLikeReadA) {
  EXPECT_EQ(split_words("mpiexec --oversubscribe  --bind-to\tnone"),
            (std::vector<std::string>{"mpiexec", "--oversubscribe", "--bind-to", "none"}));
  EXPECT_EQ(split_words("  a;b $(x)\nsecond line"), (std::vector<std::string>{"a;b", "$(x)"}));
  EXPECT_TRUE(split_words("   ").empty());
}

TEST(LauncherCore, Variables) {
  for (const char* v : {"PATH", "LD_LIBRARY_PATH", "OMPI_MCA_btl", "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
                        "RESIZE_SLURM_ITERATIONS", "MALLEABLE_MPIEXEC", "MALLEABLE_RSH", "SLURM_CONF", "BLACS_DYN_JOIN_TIMEOUT"})
    EXPECT_TRUE(saved_variable(v)) << v;
  for (const char* v : {"HOME", "OMPI_MCA_", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_JOB_ID", "LD_PRELOAD", "PATHX"})
    EXPECT_FALSE(saved_variable(v)) << v;
  EXPECT_TRUE(forwarded_variable("BLACS_DYN_JOB_DIR"));
  EXPECT_TRUE(forwarded_variable("OMPI_MCA_btl"));
  EXPECT_FALSE(forwarded_variable("OMPI_MCA_BTL"));
  EXPECT_FALSE(forwarded_variable("LD_PRELOAD"));
  EXPECT_TRUE(runtime_variable("PMIX_NAMESPACE"));
  EXPECT_TRUE(runtime_variable("OMPI_COMM_WORLD_SIZE"));
  EXPECT_FALSE(runtime_variable("PATH"));
}

TEST(LauncherCore, HostsAndPlacement) {
  EXPECT_EQ(*host_list("n1,n2,,n3"), (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_FALSE(host_list("n1,-rf"));
  EXPECT_FALSE(host_list("n1,a b"));
  EXPECT_FALSE(host_list("n1,$(x)"));
  std::string many;
  for (int i = 0; i < 65537; ++i) {
    many += 'n';
    many += std::to_string(i);
    many += ',';
  }
  EXPECT_FALSE(host_list(many));  // too long a list: refused, not made
  EXPECT_EQ(host_arg({"a", "b"}, 3), "a:3,b:3");
  const auto env = placement_env({"a", "b"}, 2, 4, true, "8");
  const std::vector<std::pair<std::string, std::string>> want{
      {"MALLEABLE_RUN_HOSTS", "a,b"}, {"SLURM_JOB_NODELIST", "a,b"}, {"SLURM_NODELIST", "a,b"},     {"SLURM_JOB_NUM_NODES", "2"},
      {"SLURM_NNODES", "2"},          {"SLURM_TASKS_PER_NODE", "2(x2)"}, {"SLURM_NTASKS", "4"},     {"SLURM_NPROCS", "4"},
      {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"}};
  EXPECT_EQ(env, want);
  const auto one = placement_env({"a"}, 3, 3, true, "");
  EXPECT_EQ(one[5], std::make_pair(std::string("SLURM_TASKS_PER_NODE"), std::string("3")));
  EXPECT_EQ(one.size(), 8u);
  EXPECT_EQ(placement_env({"a"}, 3, 3, false, "8").size(), 1u);
  EXPECT_TRUE(placement_env({}, 3, 3, true, "8").empty());
  EXPECT_EQ(first_count("4(x2),3"), "4");
  EXPECT_EQ(first_count("12"), "12");
}

TEST(LauncherCore, ProgramArguments) {
  const auto c = checkpoint_args({"-n", "100", "--checkpoint", "/ck", "--checkpoint-local=/l"});
  EXPECT_EQ(c.dir, "/ck");
  EXPECT_TRUE(c.levels);
  EXPECT_EQ(checkpoint_args({"--checkpoint=/x"}).dir, "/x");
  EXPECT_FALSE(checkpoint_args({"--checkpoint=/x"}).levels);
  EXPECT_EQ(drop_grid_args({"a", "-g", "2x2", "--restart", "f", "--grid=1x4", "--restart-levels", "b", "--restart=g"}),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(newest_checkpoint({"app-000010.h5", "app-000009.h5", "app-000011.h5.tmp", "app-00012.h5", "x.next", "b-000010.h5"}),
            "b-000010.h5");  // the newest iteration; a tie goes to the name sorted last (as sort | tail did)
  EXPECT_EQ(newest_checkpoint({"a-000002.h5", "b-000001.h5"}), "a-000002.h5");
  EXPECT_EQ(newest_checkpoint({"junk", "-"}), "");
}

TEST(LauncherCore, OrdersResumeAndSqueue) {
  Order o = parse_order("host node2\nprocs 3\n");
  EXPECT_EQ(o.host, "node2");
  EXPECT_EQ(o.procs, "3");
  EXPECT_TRUE(o.valid());
  EXPECT_TRUE(parse_order("procs 1").valid());
  EXPECT_FALSE(parse_order("host node2\nprocs 0").valid());
  EXPECT_FALSE(parse_order("host a;b\nprocs 2").valid());
  EXPECT_FALSE(parse_order("host node2").valid());
  const auto r = parse_resume("2 4 /ck/a-000003.h5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->p * r->q, 8);
  EXPECT_FALSE(parse_resume("2 x f"));
  EXPECT_FALSE(parse_resume("2 4"));
  std::string shown;
  EXPECT_EQ(while_job_state("RUNNING", &shown), JobState::Runs);
  EXPECT_EQ(while_job_state("COMPLETING", &shown), JobState::Runs);
  EXPECT_EQ(while_job_state("", &shown), JobState::Gone);
  EXPECT_EQ(shown, "gone");
  EXPECT_EQ(while_job_state("slurm_load_jobs error: Invalid job id specified", &shown), JobState::Gone);
  EXPECT_EQ(while_job_state("CANCELLED", &shown), JobState::Gone);
  EXPECT_EQ(shown, "CANCELLED");
  EXPECT_EQ(while_job_state("slurm_load_jobs error: Socket timed out", &shown), JobState::Unknown);
}

TEST(LauncherLayout, JoinArgvAndNames) {
  namespace jd = malleable::job_dir;
  jd::JoinLaunch l;
  l.dir = "/d";
  l.host = "n2";
  l.id = "slurm-7-1";
  l.procs = 2;
  l.while_job = "7";
  EXPECT_EQ(jd::join_argv("/bin/malleable-run", l),
            (std::vector<std::string>{"/bin/malleable-run", "--join", "/d", "--host", "n2", "--id", "slurm-7-1", "-n", "2",
                                      "--while-job", "7"}));
  const auto argv = jd::join_argv("x", l);
  const Parsed p = parse_options({argv.begin() + 1, argv.end()});
  ASSERT_TRUE(p.options) << p.err;  // the launcher reads what the layout builds
  EXPECT_EQ(p.options->join_dir, "/d");
  EXPECT_EQ(p.options->np, 2);
  EXPECT_EQ(jd::order_file("/d", "x", jd::kCancel), "/d/orders/x.cancel");
  EXPECT_EQ(jd::join_file("/d", "x", jd::kRequest), "/d/join/x.req");
  EXPECT_EQ(jd::expander_output("/d"), "/d/expanders/%j.out");
  EXPECT_TRUE(jd::valid_launch_id("s0a1b2c3-1-2"));
  EXPECT_FALSE(jd::valid_launch_id(".hidden"));
  EXPECT_FALSE(jd::valid_launch_id("a/b"));
  EXPECT_FALSE(jd::valid_launch_id(std::string(65, 'a')));
  EXPECT_FALSE(jd::valid_host("-oProxyCommand=x"));
}

}  // namespace
}  // namespace launcher
