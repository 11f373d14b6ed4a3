// SPDX-License-Identifier: BSD-3-Clause
// When malleable-run trusts a job directory (launcher/src/trust.hpp): the rules over one
// path's owner and mode, then the walk on real folders (made another uid's with chown, as
// root), the files read through the directory's descriptor (links, another uid's, open to
// others), and DIR/environment read back strictly.
#include <filesystem>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>
#include <set>

#include "core.hpp"
#include "files.hpp"
#include "temp_dir.hpp"
#include "trust.hpp"

namespace launcher {
namespace {

using K = Inode::Kind;

using test_support::TempDir;

constexpr uid_t kMe = 1000, kOther = 4242;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(LauncherTrust, ParentRules) {
  EXPECT_EQ(parent_refusal("/", {K::Directory, 0, 0755}, kMe), "");
  EXPECT_EQ(parent_refusal("/home/me", {K::Directory, kMe, 0755}, kMe), "");
  EXPECT_EQ(parent_refusal("/home/me", {K::Directory, kMe, 0711}, kMe), "");
  EXPECT_EQ(parent_refusal("/tmp", {K::Directory, 0, 01777}, kMe), "");
  EXPECT_TRUE(shared_parent({K::Directory, 0, 01777}));
  EXPECT_FALSE(shared_parent({K::Directory, kMe, 0755}));
  const std::string other = parent_refusal("/tmp/b", {K::Directory, kOther, 0755}, kMe);
  EXPECT_TRUE(has(other, "/tmp/b belongs to another user (uid 4242, mode 755)")) << other;
  EXPECT_TRUE(has(other, "put the job directory below a folder of yours")) << other;
  for (const unsigned m : {0777u, 0775u, 0757u}) {
    const std::string open = parent_refusal("/srv/x", {K::Directory, kMe, m}, kMe);
    EXPECT_TRUE(has(open, "/srv/x is writable by others")) << open;
    EXPECT_TRUE(has(open, "chmod go-w /srv/x")) << open;
  }
  EXPECT_TRUE(has(parent_refusal("/srv/x", {K::Directory, 0, 0777}, kMe), "writable by others"));
  EXPECT_TRUE(has(parent_refusal("/srv/x", {K::Link, kMe, 0777}, kMe), "is a symbolic link"));
}

TEST(LauncherTrust, JobDirectoryRules) {
  EXPECT_EQ(job_dir_refusal("/h/job", {K::Directory, kMe, 0700}, kMe, "--join", false), "");
  EXPECT_EQ(job_dir_refusal("/tmp/job", {K::Directory, kMe, 0700}, kMe, "--join", true), "");
  const std::string b = job_dir_refusal("/tmp/job", {K::Directory, kOther, 0700}, kMe, "--join", true);
  EXPECT_TRUE(has(b, "the job directory /tmp/job (--join) belongs to another user (uid 4242, mode 700) in a folder anyone can write")) << b;
  const std::string open = job_dir_refusal("/h/job", {K::Directory, kMe, 0755}, kMe, "--job-dir", false);
  EXPECT_TRUE(has(open, "must be yours with mode 700 (it is uid 1000, mode 755): chmod 700 /h/job")) << open;
  EXPECT_TRUE(has(job_dir_refusal("/h/job", {K::File, kMe, 0700}, kMe, "--join", false), "is a file"));
  // root is no exception: root's --join of a user's directory is refused too
  EXPECT_TRUE(has(job_dir_refusal("/h/job", {K::Directory, kMe, 0700}, 0, "--join", false), "another user"));
}

TEST(LauncherTrust, FileRules) {
  EXPECT_EQ(file_refusal("/j/command", {K::File, kMe, 0600}, kMe, false), "");
  EXPECT_EQ(file_refusal("/j/server.uri", {K::File, kMe, 0644}, kMe, false), "");
  EXPECT_EQ(file_refusal("/j/secret", {K::File, kMe, 0600}, kMe, true), "");
  EXPECT_EQ(file_refusal("/j/secret", {K::File, kMe, 0400}, kMe, true), "");
  EXPECT_TRUE(has(file_refusal("/j/secret", {K::File, kMe, 0640}, kMe, true), "/j/secret is readable by others (uid 1000, mode 640)"));
  EXPECT_TRUE(has(file_refusal("/j/command", {K::File, kMe, 0620}, kMe, false), "/j/command is writable by others"));
  EXPECT_TRUE(has(file_refusal("/j/command", {K::File, kOther, 0600}, kMe, false), "/j/command belongs to another user (uid 4242"));
  EXPECT_TRUE(has(file_refusal("/j/command", {K::Link, kMe, 0777}, kMe, false), "/j/command is a symbolic link"));
  EXPECT_TRUE(has(file_refusal("/j/command", {K::Other, kMe, 0600}, kMe, false), "not a plain file"));
}

void write(const std::string& p, const std::string& text, unsigned mode) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0) << p;
  ASSERT_TRUE(write_all(fd, text));
  ::close(fd);
  ASSERT_EQ(::chmod(p.c_str(), mode), 0);
}

std::string refusal(const std::string& given, const char* option = "--join") {
  try {
    TrustedDir::open(given, option, ::getuid());
  } catch (const Failure& f) {
    EXPECT_EQ(f.status, 2);
    return f.what();
  }
  return "";
}

TEST(LauncherTrust, OwnDirectoryIsTakenAndReadThroughItsDescriptor) {
  TempDir t;
  const std::string d = t.path + "/job";
  ASSERT_EQ(::mkdir(d.c_str(), 0700), 0);
  write(d + "/secret", "0123", 0600);
  write(d + "/command", std::string("/bin/true\0x\0", 12), 0644);
  const TrustedDir dir = TrustedDir::open(d, "--join", ::getuid());
  EXPECT_EQ(dir.path(), real_path(d));
  EXPECT_EQ(dir.read("secret", 100, true), "0123");
  EXPECT_EQ(dir.read("command", 100), std::string("/bin/true\0x\0", 12));
  EXPECT_EQ(dir.read("command", 4), "/bin");  // bounded
  EXPECT_EQ(dir.read("environment", 100), std::nullopt);
  EXPECT_TRUE(dir.has("secret"));
  EXPECT_FALSE(dir.has("environment"));
  // a relative path and a link above the directory lead to the same verified directory
  ASSERT_EQ(::symlink(t.path.c_str(), (t.path + "/up").c_str()), 0);
  EXPECT_EQ(TrustedDir::open(t.path + "/up/job", "--join", ::getuid()).path(), real_path(d));
  // ...but a link in place of the directory itself is refused, whatever it leads to
  ASSERT_EQ(::symlink(d.c_str(), (t.path + "/jl").c_str()), 0);
  EXPECT_TRUE(has(refusal(t.path + "/jl"), "(--join) is a symbolic link")) << refusal(t.path + "/jl");
  EXPECT_TRUE(has(refusal(t.path + "/jl/"), "is a symbolic link"));
  EXPECT_TRUE(has(refusal(t.path + "/none"), "is no job directory (No such file or directory"));
  // the directory opened to others, then kept open: a later chmod does not reach the reads' checks of files
  ASSERT_EQ(::chmod(d.c_str(), 0750), 0);
  EXPECT_TRUE(has(refusal(d), "must be yours with mode 700 (it is uid " + std::to_string(::getuid()) + ", mode 750)"));
}

TEST(LauncherTrust, FilesThatAreNotTheUsersOwnAreRefused) {
  TempDir t;
  const std::string d = t.path + "/job";
  ASSERT_EQ(::mkdir(d.c_str(), 0700), 0);
  write(t.path + "/elsewhere", "/bin/sh\0-c\0touch /tmp/x\0", 0600);
  ASSERT_EQ(::symlink((t.path + "/elsewhere").c_str(), (d + "/command").c_str()), 0);
  write(d + "/secret", "0123", 0644);
  write(d + "/environment", "PATH=/bin", 0666);
  const TrustedDir dir = TrustedDir::open(d, "--join", ::getuid());
  auto read_refusal = [&](const char* name, bool secret) -> std::string {
    try {
      (void)dir.read(name, 100, secret);
    } catch (const Failure& f) {
      return f.what();
    }
    return "";
  };
  EXPECT_TRUE(has(read_refusal("command", false), d + "/command is a symbolic link")) << read_refusal("command", false);
  EXPECT_TRUE(has(read_refusal("secret", true), d + "/secret is readable by others")) << read_refusal("secret", true);
  EXPECT_TRUE(has(read_refusal("environment", false), d + "/environment is writable by others"));
  ASSERT_EQ(::mkdir((d + "/fifo-dir").c_str(), 0700), 0);
  EXPECT_TRUE(has(read_refusal("fifo-dir", false), "is a directory"));
  EXPECT_TRUE(has(read_refusal("../secret", false), "no file name"));
  if (::geteuid() != 0) GTEST_SKIP() << "another uid's file needs root to make";
  write(d + "/server.uri", "1.0;tcp://x", 0644);
  ASSERT_EQ(::chown((d + "/server.uri").c_str(), kOther, kOther), 0);
  EXPECT_TRUE(has(read_refusal("server.uri", false), "/server.uri belongs to another user (uid 4242, mode 644)"));
}

TEST(LauncherTrust, ParentsAndDirectoriesOfAnotherUid) {
  if (::geteuid() != 0) GTEST_SKIP() << "another uid's folders need root to make";
  TempDir t;
  // B's folder (0755): A's job directory below it is refused by its parent, whoever owns it
  const std::string b = t.path + "/b";
  ASSERT_EQ(::mkdir(b.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((b + "/job").c_str(), 0700), 0);
  ASSERT_EQ(::chown(b.c_str(), kOther, kOther), 0);
  std::string why = refusal(b + "/job");
  EXPECT_TRUE(has(why, "parent " + real_path(b) + " belongs to another user (uid 4242, mode 755)")) << why;
  // a folder anyone can write (0777, not sticky), even root's: refused
  const std::string open = t.path + "/open";
  ASSERT_EQ(::mkdir(open.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  ASSERT_EQ(::mkdir((open + "/job").c_str(), 0700), 0);
  why = refusal(open + "/job", "--job-dir");
  EXPECT_TRUE(has(why, real_path(open) + " is writable by others (uid 0, mode 777)")) << why;
  // --job-dir makes nothing there either
  try {
    prepare_job_dir(open + "/job2");
    ADD_FAILURE() << "a job directory below a folder anyone can write was taken";
  } catch (const Failure& f) {
    EXPECT_TRUE(has(f.what(), "is writable by others")) << f.what();
  }
  EXPECT_FALSE(std::filesystem::exists(open + "/job2/secret"));
  // a sticky folder (/tmp's 1777): the user's own directory is taken, another uid's is not
  const std::string sticky = t.path + "/sticky";
  ASSERT_EQ(::mkdir(sticky.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(sticky.c_str(), 01777), 0);
  ASSERT_EQ(::mkdir((sticky + "/mine").c_str(), 0700), 0);
  EXPECT_EQ(refusal(sticky + "/mine"), "");
  ASSERT_EQ(::mkdir((sticky + "/theirs").c_str(), 0700), 0);
  ASSERT_EQ(::chown((sticky + "/theirs").c_str(), kOther, kOther), 0);
  why = refusal(sticky + "/theirs");
  EXPECT_TRUE(has(why, "belongs to another user (uid 4242, mode 700) in a folder anyone can write")) << why;
  // a sub-folder of the job directory that is another uid's or a link: --job-dir refuses
  ASSERT_EQ(::mkdir((sticky + "/mine/orders").c_str(), 0700), 0);
  ASSERT_EQ(::chown((sticky + "/mine/orders").c_str(), kOther, kOther), 0);
  try {
    prepare_job_dir(sticky + "/mine");
    ADD_FAILURE() << "another uid's orders/ was taken";
  } catch (const Failure& f) {
    EXPECT_TRUE(has(f.what(), "/orders belongs to another user (uid 4242")) << f.what();
  }
  ASSERT_EQ(::rmdir((sticky + "/mine/orders").c_str()), 0);
  ASSERT_EQ(::symlink(b.c_str(), (sticky + "/mine/orders").c_str()), 0);
  try {
    prepare_job_dir(sticky + "/mine");
    ADD_FAILURE() << "a link as orders/ was taken";
  } catch (const Failure& f) {
    EXPECT_TRUE(has(f.what(), "/orders is a symbolic link")) << f.what();
  }
}

TEST(LauncherTrust, EnvironmentReadBackStrictly) {
  TempDir t;
  const TrustedDir dir = prepare_job_dir(t.path + "/job");
  write_environment(dir.path(), {{"PATH", "/x:/y"}, {"OMPI_MCA_btl", "self"}, {"LD_PRELOAD", "evil.so"}, {"HOME", "/h"}});
  std::string why;
  const auto back = parse_environment(*dir.read("environment", 1 << 20), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(*back, (std::vector<std::pair<std::string, std::string>>{{"PATH", "/x:/y"}, {"OMPI_MCA_btl", "self"}}));
  EXPECT_EQ(parse_environment("", &why)->size(), 0u);
  EXPECT_EQ(*parse_environment(std::string("PATH=a=b\0", 9), &why),
            (std::vector<std::pair<std::string, std::string>>{{"PATH", "a=b"}}));
  const std::pair<std::string, std::string> bad[] = {
      {std::string("PATH=/x\0LD_PRELOAD=/tmp/e.so\0", 29), "it sets LD_PRELOAD, which malleable-run never saves"},
      {std::string("PATH=/x\0PATH=/evil\0", 19), "it sets PATH twice"},
      {std::string("PATH=/x", 7), "not ended by a NUL"},
      {std::string("PATH\0", 5), "entry 1 is no NAME=VALUE"},
      {std::string("=x\0", 3), "entry 1 is no NAME=VALUE"},
      {std::string("\x01\\A=1\0", 6), "it sets \\x01\\x5cA, which"},
  };
  for (const auto& [text, said] : bad) {
    why.clear();
    EXPECT_FALSE(parse_environment(text, &why));
    EXPECT_TRUE(has(why, said)) << why;
  }
  std::string many;
  for (int i = 0; i < 4097; ++i) many += "RESIZE_V" + std::to_string(i) + "=1" + '\0';
  EXPECT_FALSE(parse_environment(many, &why));
  EXPECT_TRUE(has(why, "more than 4096")) << why;
}

TEST(LauncherTrust, EnvironmentParserOfRandomBytes) {
  std::mt19937 g(20261129);
  // words of environments, right and wrong, and stray bytes
  const std::vector<std::string> tokens = {"PATH", "LD_PRELOAD", "OMPI_MCA_btl", "RESIZE_X", "OMP_NUM_THREADS", "=",
                                           "/x", std::string(1, '\0'), std::string(1, '\0'), "\x01", "\xff", "a"};
  std::uniform_int_distribution<std::size_t> len(0, 40), pick(0, tokens.size() - 1);
  int accepted = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string s;
    for (std::size_t i = 0, n = len(g); i < n; ++i) s += tokens[pick(g)];
    std::string why;
    if (const auto v = parse_environment(s, &why)) {
      ++accepted;
      std::set<std::string> names;
      for (const auto& [k2, v2] : *v) {
        EXPECT_TRUE(saved_variable(k2)) << k2;
        EXPECT_TRUE(names.insert(k2).second) << k2;
        EXPECT_EQ(v2.find('\0'), std::string::npos);
      }
    } else {
      EXPECT_FALSE(why.empty());
      EXPECT_LT(why.size(), 400u);
    }
  }
  EXPECT_GT(accepted, 0);  // the generator reaches the accepting side too
}

}  // namespace
}  // namespace launcher
