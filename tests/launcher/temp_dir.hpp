// SPDX-License-Identifier: BSD-3-Clause
// A folder of the test's own below /tmp (mkdtemp: 0700, in the sticky /tmp a job directory
// may lie below), removed with everything in it at the end of its scope.
#pragma once

#include <filesystem>
#include <stdlib.h>
#include <string>
#include <system_error>

namespace launcher::test_support {

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/launcher-test-XXXXXX";  // mkdtemp's template
    path = ::mkdtemp(t);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace launcher::test_support
