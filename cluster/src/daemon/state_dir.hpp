// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd's state directory: DIR/journal, in a directory only the daemon can
// write. Made 0700 when missing; an existing one must be a directory (not a symbolic
// link) owned by the daemon's uid, and is narrowed to 0700 when its mode is wider; a
// directory of another user stops the start (that user could replace its files). Every
// file is opened relative to the directory's descriptor (taken once, at the start) with
// O_NOFOLLOW: a symbolic link planted as DIR/journal or DIR/journal.tmp is refused, never
// written through.
#pragma once

#include <optional>
#include <string>

namespace cluster::arbiter {

class StateDir {
 public:
  explicit StateDir(std::string path);  // throws Error naming what is wrong
  ~StateDir();
  StateDir(const StateDir&) = delete;
  StateDir& operator=(const StateDir&) = delete;
  const std::string& path() const { return path_; }
  // What the start changed, for the log ("narrowed from 0777 to 0700"); empty: nothing.
  const std::string& narrowed() const { return narrowed_; }
  // DIR/journal's text; nullopt when there is none. Throws Error when it is a symbolic
  // link, not a regular file, or cannot be read.
  std::optional<std::string> read_journal() const;
  // DIR/journal.tmp made anew (O_CREAT | O_EXCL | O_NOFOLLOW, 0600), written, fsynced,
  // renamed over DIR/journal, the directory fsynced. Throws Error.
  void write_journal(const std::string& text);

 private:
  std::string path_;
  std::string narrowed_;
  int fd_ = -1;
};

}  // namespace cluster::arbiter
