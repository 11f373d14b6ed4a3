// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's files: the job directory made private and checked (another user's, a
// wrong mode), its secret, command and environment; writes that fail (a full disk, a
// missing folder) say so and leave nothing behind.
#include <filesystem>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "files.hpp"
#include "temp_dir.hpp"

namespace launcher {
namespace {

using test_support::TempDir;

unsigned mode_of(const std::string& p) {
  struct stat st{};
  ::stat(p.c_str(), &st);
  return st.st_mode & 07777;
}

TEST(LauncherFiles, PrepareMakesAPrivateDirectory) {
  TempDir t;
  const std::string d = t.path + "/a/job";  // its parent missing too (mkdir -p)
  const std::string real = prepare_job_dir(d).path();
  EXPECT_EQ(real, real_path(d));
  EXPECT_EQ(mode_of(real), 0700u);
  for (const char* sub : {"join", "orders", "expanders"}) EXPECT_EQ(mode_of(real + "/" + sub), 0700u) << sub;
  const auto secret = read_file(real + "/secret", 1000);
  ASSERT_TRUE(secret);
  EXPECT_EQ(secret->size(), 64u);
  EXPECT_EQ(mode_of(real + "/secret"), 0600u);
  // again: the secret kept, old orders and requests gone, other files kept
  ASSERT_TRUE(write_all(::open((real + "/orders/x").c_str(), O_WRONLY | O_CREAT, 0600), "host a\n"));
  ASSERT_TRUE(write_all(::open((real + "/join/x.req").c_str(), O_WRONLY | O_CREAT, 0600), "r"));
  ASSERT_TRUE(write_all(::open((real + "/join/x.log").c_str(), O_WRONLY | O_CREAT, 0600), "l"));
  prepare_job_dir(d);
  EXPECT_EQ(read_file(real + "/secret", 1000), secret);
  EXPECT_FALSE(exists(real + "/orders/x"));
  EXPECT_FALSE(exists(real + "/join/x.req"));
  EXPECT_TRUE(exists(real + "/join/x.log"));
}

TEST(LauncherFiles, WrongModeOrOwnerIsRefused) {
  TempDir t;
  const std::string d = t.path + "/job";
  ASSERT_EQ(::mkdir(d.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(d.c_str(), 0755), 0);
  try {
    prepare_job_dir(d);
    FAIL() << "a directory open to others was taken";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status, 2);
    EXPECT_EQ(std::string(f.what()), "the job directory " + real_path(d) + " (--job-dir) must be yours with mode 700 (it is uid " +
                                         std::to_string(::getuid()) + ", mode 755): chmod 700 " + real_path(d) +
                                         ", or let malleable-run --job-dir make a new one");
  }
  EXPECT_FALSE(exists(d + "/secret"));  // nothing left behind
  EXPECT_FALSE(exists(d + "/join"));
  if (::geteuid() != 0) GTEST_SKIP() << "another user's directory needs root to make";
  ASSERT_EQ(::chmod(d.c_str(), 0700), 0);
  ASSERT_EQ(::chown(d.c_str(), 65534, 65534), 0);
  try {
    prepare_job_dir(d);
    FAIL() << "another user's directory was taken";
  } catch (const Failure& f) {
    EXPECT_NE(std::string(f.what()).find("belongs to another user (uid 65534, mode 700)"), std::string::npos) << f.what();
  }
  EXPECT_FALSE(exists(d + "/secret"));
}

TEST(LauncherFiles, UnmakeableDirectory) {
  TempDir t;
  const std::string file = t.path + "/plain";
  ASSERT_TRUE(write_all(::open(file.c_str(), O_WRONLY | O_CREAT, 0600), "x"));
  try {
    prepare_job_dir(file + "/job");
    FAIL();
  } catch (const Failure& f) {
    EXPECT_EQ(f.status, 2);
    EXPECT_EQ(std::string(f.what()), "the job directory's parent " + file + " is a file (uid " + std::to_string(::getuid()) +
                                         ", mode 600), not a folder: a job directory lies below folders only");
  }
}

TEST(LauncherFiles, FullDiskAndMissingFolder) {
  const int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  errno = 0;
  EXPECT_FALSE(write_all(fd, std::string(100000, 'x')));
  EXPECT_EQ(errno, ENOSPC);
  ::close(fd);
  TempDir t;
  try {
    write_private(t.path + "/missing/command", "x");
    FAIL();
  } catch (const Failure& f) {
    EXPECT_EQ(f.status, 2);
    EXPECT_NE(std::string(f.what()).find("cannot write " + t.path + "/missing/command: No such file or directory"),
              std::string::npos)
        << f.what();
  }
}

TEST(LauncherFiles, CommandAndEnvironment) {
  TempDir t;
  const std::string d = prepare_job_dir(t.path + "/job").path();
  write_command(d, {"/bin/../bin/true", "a b", "", "c\nd"});
  EXPECT_EQ(nul_words_of(read_file(d + "/command", 1 << 20).value_or("")), (std::vector<std::string>{real_path("/bin/true"), "a b", "", "c\nd"}));
  write_environment(d, {{"PATH", "/x:/y"}, {"HOME", "/root"}, {"OMPI_MCA_btl", "self"}, {"LD_PRELOAD", "evil.so"}});
  EXPECT_EQ(nul_words_of(read_file(d + "/environment", 1 << 20).value_or("")), (std::vector<std::string>{"PATH=/x:/y", "OMPI_MCA_btl=self"}));
  EXPECT_EQ(mode_of(d + "/environment"), 0600u);
  EXPECT_FALSE(read_file(d + "/none", 100));
  // bounded: a huge file is read only so far
  write_private(d + "/big", std::string(5000, 'a'));
  EXPECT_EQ(read_file(d + "/big", 100)->size(), 100u);
  // a link is not followed
  ASSERT_EQ(::symlink((d + "/big").c_str(), (d + "/link").c_str()), 0);
  EXPECT_FALSE(read_file(d + "/link", 100));
}

}  // namespace
}  // namespace launcher
