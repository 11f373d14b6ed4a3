// SPDX-License-Identifier: BSD-3-Clause
// file_release (internal, no MPI): replacing and removing files with the old file's
// blocks freed on a background thread. The names change at once, failures change
// nothing, and no descriptor is left open once the background has let go.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "checkpoint/file_release.hpp"

namespace {

using resize::detail::remove_file;
using resize::detail::replace_file;
using resize::detail::wait_for_released_files;

class FileRelease : public ::testing::Test {
 protected:
  void SetUp() override {
    // A directory of its own per test: the process id and a counter name it.
    static int count = 0;
    dir_ = (std::filesystem::temp_directory_path() /
            ("file_release." + std::to_string(getpid()) + "." + std::to_string(count++)))
               .string();
    std::filesystem::remove_all(dir_);
    ASSERT_TRUE(std::filesystem::create_directory(dir_)) << dir_;
  }
  void TearDown() override {
    wait_for_released_files();
    std::filesystem::remove_all(dir_);
  }
  std::string path(const char* name) const { return dir_ + "/" + name; }
  static void put(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string get(const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  static bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }
  static int open_fds() {
    int n = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
      while (readdir(d)) ++n;
      closedir(d);
    }
    return n;
  }
  std::string dir_;
};

TEST_F(FileRelease, ReplaceTakesTheNewFileUnderTheOldName) {
  put(path("ck.h5"), "old checkpoint");
  put(path("ck.h5.tmp"), "new checkpoint");
  const int before = open_fds();
  EXPECT_EQ(replace_file(path("ck.h5.tmp"), path("ck.h5")), 0);
  EXPECT_EQ(get(path("ck.h5")), "new checkpoint");
  EXPECT_FALSE(exists(path("ck.h5.tmp")));
  wait_for_released_files();
  EXPECT_EQ(open_fds(), before);  // the old file's descriptor was closed
}

TEST_F(FileRelease, ReplaceOfANameThatIsFreeIsARename) {
  put(path("a.tmp"), "data");
  EXPECT_EQ(replace_file(path("a.tmp"), path("a")), 0);
  EXPECT_EQ(get(path("a")), "data");
  EXPECT_FALSE(exists(path("a.tmp")));
}

TEST_F(FileRelease, AFailedReplaceChangesNothing) {
  put(path("ck.h5"), "old checkpoint");
  const int before = open_fds();
  EXPECT_EQ(replace_file(path("missing.tmp"), path("ck.h5")), ENOENT);
  EXPECT_EQ(get(path("ck.h5")), "old checkpoint");
  EXPECT_EQ(open_fds(), before);  // the held descriptor is closed at once
  // Into a directory that does not exist: the source stays.
  put(path("b.tmp"), "b");
  EXPECT_EQ(replace_file(path("b.tmp"), path("no/such/dir/b")), ENOENT);
  EXPECT_EQ(get(path("b.tmp")), "b");
}

TEST_F(FileRelease, RemoveTakesTheNameAndLetsGoOfTheFile) {
  put(path("old.h5"), std::string(1 << 20, 'x'));
  const int before = open_fds();
  EXPECT_EQ(remove_file(path("old.h5")), 0);
  EXPECT_FALSE(exists(path("old.h5")));
  wait_for_released_files();
  EXPECT_EQ(open_fds(), before);
  EXPECT_EQ(remove_file(path("old.h5")), ENOENT);
}

TEST_F(FileRelease, ManyHandOversLeaveNoDescriptorBehind) {
  const int before = open_fds();
  for (int k = 0; k < 50; ++k) {
    put(path("f.tmp"), std::to_string(k));
    ASSERT_EQ(replace_file(path("f.tmp"), path("f")), 0);
  }
  EXPECT_EQ(get(path("f")), "49");
  wait_for_released_files();
  EXPECT_EQ(open_fds(), before);
}

}  // namespace

// the room check before a checkpoint is made leaves no probe behind, says yes
// to what fits and no (ENOSPC, EFBIG) to what cannot; fsync of a file and a directory.
TEST_F(FileRelease, RoomCheckAnswersAndLeavesNothingBehind) {
  using resize::detail::check_room;
  using resize::detail::sync_path;
  std::uint64_t free_bytes = 0;
  EXPECT_EQ(check_room(path("probe.tmp"), 4096, &free_bytes), 0);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_FALSE(exists(path("probe.tmp")));
  const int e = check_room(path("probe.tmp"), std::uint64_t{1} << 60);
  EXPECT_TRUE(e == ENOSPC || e == EFBIG) << e;
  EXPECT_FALSE(exists(path("probe.tmp")));
  put(path("taken"), "x");
  EXPECT_EQ(check_room(path("taken"), 1), EEXIST);  // never over an existing file
  EXPECT_EQ(sync_path(path("taken")), 0);
  EXPECT_EQ(sync_path(dir_), 0);
  EXPECT_EQ(sync_path(path("missing")), ENOENT);
}
