// SPDX-License-Identifier: BSD-3-Clause
// The malleable-run program itself, without MPI: MALLEABLE_MPIEXEC names a stand-in
// mpiexec (it drops mpiexec's options and runs the program) so that the restart loop, the
// exit statuses, the banner filter, the messages and the signal handling are checked on
// their own. Every wait has a deadline.
#include <filesystem>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace {

const std::string kRule(74, '-');

struct Result {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_exe(const std::string& p, const std::string& text) {
  std::ofstream(p) << text;
  ::chmod(p.c_str(), 0755);
}

class LauncherProgram : public ::testing::Test {
 protected:
  std::string dir;
  void SetUp() override {
    char t[] = "/tmp/launcher-prog-XXXXXX";
    dir = ::mkdtemp(t);
    ::mkdir((dir + "/ck").c_str(), 0755);
    // the stand-in mpiexec: mpiexec's options dropped, the program run in its place
    write_exe(dir + "/mpiexec", "#!/bin/sh\n"
                                "while [ $# -gt 0 ]; do case $1 in\n"
                                "  -n|--host|--bind-to|--ompi-server) echo \"$1 $2\" >>\"" + dir + "/mpiexec.log\"; shift 2;;\n"
                                "  --oversubscribe) shift;;\n"
                                "  *) break;; esac; done\n"
                                "exec \"$@\"\n");
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  // Runs malleable-run with args (and env NAME=VALUE over ours); `term_after_s` >= 0 sends
  // it SIGTERM once that file exists. Deadline 60 s.
  Result run(const std::vector<std::string>& args, std::vector<std::string> env = {}, const std::string& term_when = "") {
    std::vector<std::string> argv{MALLEABLE_RUN_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    env.insert(env.begin(), "MALLEABLE_MPIEXEC=" + dir + "/mpiexec");
    std::vector<std::string> envw;
    for (auto it = env.rbegin(); it != env.rend(); ++it) {  // the last setting of a name wins
      const std::string name = it->substr(0, it->find('=') + 1);
      bool seen = false;
      for (const auto& w : envw) seen = seen || w.rfind(name, 0) == 0;
      if (!seen) envw.push_back(*it);
    }
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e, name = kv.substr(0, kv.find('=') + 1);
      bool over = false;
      for (const auto& w : env) over = over || w.rfind(name, 0) == 0;
      if (!over) envw.push_back(kv);
    }
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : envw) e.push_back(s.data());
    e.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, (dir + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, (dir + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, a[0], &fa, nullptr, a.data(), e.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    Result r;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool termed = false;
    int st = 0;
    while (::waitpid(pid, &st, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > end) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &st, 0);
        ADD_FAILURE() << "malleable-run did not end within 60 s";
        break;
      }
      if (!term_when.empty() && !termed && ::access(term_when.c_str(), F_OK) == 0) {
        ::kill(pid, SIGTERM);
        termed = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = slurp(dir + "/out");
    r.err = slurp(dir + "/err");
    return r;
  }
};

TEST_F(LauncherProgram, ResizeByRestartAndTheBannerFilter) {
  // first launch: asks for 2x3 from a checkpoint (status 4, Open MPI's banner on stderr); second: done
  write_exe(dir + "/prog", "#!/bin/sh\n"
                           "case \" $* \" in *\" --restart \"*) echo \"second: $*\"; exit 0;; esac\n"
                           "echo '2 3 " + dir + "/ck/app-000001.h5' >\"" + dir + "/ck/app.next\"\n"
                           "printf '%s\\nPrimary job  terminated normally, but 1 process returned\\n%s\\n' '" + kRule + "' '" + kRule + "' >&2\n"
                           "echo 'a line of its own' >&2\n"
                           "exit 4\n");
  const Result r = run({"--", dir + "/prog", "--checkpoint", dir + "/ck", "-g", "2x2"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("malleable-run: launch 1: 4 processes\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("malleable-run: launch 2: 6 processes, -g 2x3 --restart " + dir + "/ck/app-000001.h5\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("second: --checkpoint " + dir + "/ck -g 2x3 --restart " + dir + "/ck/app-000001.h5"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("terminated normally"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a line of its own"), std::string::npos) << r.err;
  EXPECT_NE(slurp(dir + "/mpiexec.log").find("-n 6"), std::string::npos);
  EXPECT_FALSE(std::ifstream(dir + "/ck/app.next").good());  // read and removed
}

TEST_F(LauncherProgram, StatusPassesThrough) {
  write_exe(dir + "/prog", "#!/bin/sh\nexit 7\n");
  const Result r = run({"-n", "2", "--", dir + "/prog"});
  EXPECT_EQ(r.status, 7);
  EXPECT_NE(r.err.find("malleable-run: the job ended with status 7 (launch 1)"), std::string::npos) << r.err;
  write_exe(dir + "/prog", "#!/bin/sh\nexit 3\n");
  EXPECT_EQ(run({"--", dir + "/prog"}).status, 3);
}

TEST_F(LauncherProgram, GarbageNextFileAndTooManyRestarts) {
  write_exe(dir + "/prog", "#!/bin/sh\nprintf 'rm -rf / now\\n' >\"" + dir + "/ck/app.next\"\nexit 4\n");
  Result r = run({"--", dir + "/prog", "--checkpoint=" + dir + "/ck"});
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.err.find("malleable-run: cannot read " + dir + "/ck/app.next: its first line is not \"NPROW NPCOL FILE\""),
            std::string::npos) << r.err;
  write_exe(dir + "/prog", "#!/bin/sh\necho '1 1 f' >\"" + dir + "/ck/app.next\"\nexit 4\n");
  r = run({"--max-restarts", "1", "--", dir + "/prog", "--checkpoint", dir + "/ck"});
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.err.find("malleable-run: more than 1 restarts, giving up"), std::string::npos) << r.err;
  write_exe(dir + "/prog", "#!/bin/sh\nexit 4\n");
  r = run({"--", dir + "/prog", "--checkpoint", dir + "/ck"});
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.err.find("malleable-run: status 4 but no " + dir + "/ck/<app>.next"), std::string::npos) << r.err;
}

TEST_F(LauncherProgram, RestartAfterAFailureFromTheNewestCheckpoint) {
  std::ofstream(dir + "/ck/app-000002.h5") << "x";
  std::ofstream(dir + "/ck/app-000001.h5") << "x";
  std::ofstream(dir + "/ck/app-000003.h5.tmp") << "x";
  write_exe(dir + "/prog", "#!/bin/sh\ncase \" $* \" in *\" --restart \"*) exit 0;; esac\nexit 9\n");
  const Result r = run({"--on-failure", "restart", "--", dir + "/prog", "--checkpoint", dir + "/ck"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("malleable-run: launch 1 failed (status 9): restarting on the same host\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("malleable-run: restarting from " + dir + "/ck/app-000002.h5 (the newest complete checkpoint): 4 processes, grid 2x2"),
            std::string::npos) << r.out;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/ck"))
    if (e.path().extension() == ".h5") std::filesystem::remove(e.path());
  const Result none = run({"--on-failure", "restart", "--", dir + "/prog", "--checkpoint", dir + "/ck"});
  EXPECT_EQ(none.status, 9);
  EXPECT_NE(none.err.find("malleable-run: no complete checkpoint in " + dir + "/ck to restart from"), std::string::npos) << none.err;
}

TEST_F(LauncherProgram, BadInputEndsWithStatus2AndLeavesNothing) {
  Result r = run({"--bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("malleable-run: unknown option --bogus"), std::string::npos);
  r = run({"--join", dir + "/nothing"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("malleable-run: '" + dir + "/nothing' is no job directory (No such file or directory; malleable-run --job-dir makes one)"),
            std::string::npos) << r.err;
  ::mkdir((dir + "/open").c_str(), 0755);
  ::chmod((dir + "/open").c_str(), 0755);
  r = run({"--job-dir", dir + "/open", "--", "true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("must be yours with mode 700 (it is uid " + std::to_string(::getuid()) + ", mode 755)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/open/secret").good());
  r = run({"--hosts", "a,b;reboot", "--", "true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is no list of host names"), std::string::npos) << r.err;
  r = run({"-n", "3", "--hosts", "a,b", "--", "true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("malleable-run: 3 processes do not divide evenly over the 2 hosts a,b"), std::string::npos) << r.err;
  r = run({"--hosts", "slurm", "--", "true"}, {"SLURM_JOB_NODELIST="});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--hosts slurm outside a Slurm job (no SLURM_JOB_NODELIST)"), std::string::npos) << r.err;
  r = run({"--hosts", "slurm", "--", "true"}, {"SLURM_JOB_NODELIST=n[1-99999999]"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot read the Slurm node list"), std::string::npos) << r.err;
  r = run({"--", dir + "/no-such-program"}, {"MALLEABLE_MPIEXEC=" + dir + "/no-such-mpiexec"});
  EXPECT_EQ(r.status, 127);
  EXPECT_NE(r.err.find("malleable-run: cannot run " + dir + "/no-such-mpiexec"), std::string::npos) << r.err;
}

TEST_F(LauncherProgram, ATermEndsTheLaunch) {
  write_exe(dir + "/prog", "#!/bin/sh\ntouch \"" + dir + "/running\"\nexec sleep 100\n");
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run({"--", dir + "/prog"}, {}, dir + "/running");
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

}  // namespace
