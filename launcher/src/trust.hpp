// SPDX-License-Identifier: BSD-3-Clause
// When malleable-run trusts a job directory (--job-dir, --join, --while-job): only when it
// is its user's own, as ssh's StrictModes trusts a home directory (docs/guide/threat-model.md,
// "The job directory"). Two parts:
//   - pure rules over what stat says of one path (owner, mode, kind): a parent, the job
//     directory, a file in it; each refusal names the path, its owner and mode, and what
//     to do;
//   - TrustedDir, the walk: the directory's real path opened from "/" one component at a
//     time relative to the last one (never following a link), each component judged by the
//     rules, the directory kept open; every file read in it is opened relative to that
//     descriptor, without following a link, and judged before a byte of it is used. Nothing
//     another user makes can be swapped in between the check and the use.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace launcher {

// What lstat/fstat says of one path, as the rules read it.
struct Inode {
  enum class Kind { Directory, File, Link, Other };
  Kind kind = Kind::Other;
  uid_t uid = 0;
  unsigned mode = 0;  // st_mode & 07777
};

// "uid 1001, mode 755" (the refusals' words).
std::string owner_mode(const Inode& n);

// A folder above the job directory: a directory owned by `me` or root, not writable by
// group or others unless sticky (/tmp: others cannot rename or remove what is not theirs).
// "" when it may be trusted, else why not and what to do.
std::string parent_refusal(const std::string& path, const Inode& n, uid_t me);
// Whether a trusted parent is one others can write (sticky): then the job directory in it
// is trusted only as `me`'s own directory, which no other uid can make or replace there.
bool shared_parent(const Inode& n);
// The job directory: a directory owned by `me` with mode 700 exactly. `option` names the
// option that gave it (--job-dir, --join); `shared` that its parent is shared.
std::string job_dir_refusal(const std::string& path, const Inode& n, uid_t me, std::string_view option, bool shared);
// A file the launcher reads in the job directory: a regular file (no link) owned by `me`,
// writable by no one else; with `secret`, readable by no one else either.
std::string file_refusal(const std::string& path, const Inode& n, uid_t me, bool secret);

// Every folder from "/" to the existing directory `dir` (its real path), `dir` included,
// judged as a parent of a job directory: Failure(2, why) when one cannot be trusted. Run
// before anything is made there (malleable-run --job-dir).
void check_parents(const std::string& dir, uid_t me, std::string_view option);

// The job directory, verified and held open (O_DIRECTORY). Moved, never copied.
class TrustedDir {
 public:
  // Opens `given` (absolute or relative) for `option` ("--job-dir", "--join"): throws
  // Failure(2, refusal) when it, a parent or its real path cannot be trusted, Failure(2,
  // "'given' is no job directory ...") when it does not exist. `me`: the user (getuid()).
  static TrustedDir open(const std::string& given, std::string_view option, uid_t me);
  TrustedDir(TrustedDir&& o) noexcept;
  TrustedDir& operator=(TrustedDir&& o) noexcept;
  TrustedDir(const TrustedDir&) = delete;
  TrustedDir& operator=(const TrustedDir&) = delete;
  ~TrustedDir();

  const std::string& path() const { return path_; }  // its real path
  int fd() const { return fd_; }

  // At most `most` bytes of the file `name` in it (no '/' in name): nullopt when there is
  // none; Failure(2, refusal) when there is one that cannot be trusted (a link, another
  // user's, writable by others; with `secret`, readable by others) or that cannot be read.
  std::optional<std::string> read(std::string_view name, std::size_t most, bool secret = false) const;
  // Whether it holds an entry `name` (any kind, links not followed).
  bool has(std::string_view name) const;
  // A sub-folder `name`: "" when it is a directory of `me` (not a link) that others cannot
  // write, else why not.
  std::string subdir_refusal(std::string_view name) const;

 private:
  TrustedDir(int fd, std::string path, uid_t me) : fd_(fd), path_(std::move(path)), me_(me) {}
  int fd_ = -1;
  std::string path_;
  uid_t me_ = 0;
};

}  // namespace launcher
