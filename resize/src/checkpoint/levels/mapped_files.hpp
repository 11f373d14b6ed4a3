// SPDX-License-Identifier: BSD-3-Clause
// Internal to the checkpoint levels: the level files a process keeps mapped between
// checkpoints, the file side of levels::MappedTable. Pure of MPI (the unit tests and the
// pure core build it); the levels' MPI and file shell, node_io.hpp, holds one per session.
#pragma once

#include <cstddef>
#include <string>

#include "checkpoint/levels/levels.hpp"

namespace resize::detail {

// The level files this process keeps mapped between checkpoints (levels::MappedTable's
// bookkeeping, the system calls here): a checkpoint that overwrites an older version in
// place copies into that file's pages, already mapped and touched by the previous write,
// instead of write()'s path through the kernel. Released when the session ends, the world
// changes or keep changes. No MPI.
class MappedFiles {
 public:
  MappedFiles() = default;
  MappedFiles(const MappedFiles&) = delete;
  MappedFiles& operator=(const MappedFiles&) = delete;
  ~MappedFiles() { clear(); }
  void set_capacity(std::size_t capacity);
  // A writable shared mapping of the file `path`, exactly `length` bytes long with every
  // page allocated (so that a full file system is ENOSPC here, not SIGBUS in the copy):
  // the file `recycle` (or "") renamed to `path` first, its mapping reused when this
  // process has it mapped. nullptr with `why` empty: no mapping here (capacity 0, or the
  // file system cannot fallocate or mmap): the caller writes with write(). nullptr with
  // `why`: the error (errno's text), `path` removed.
  char* open(const std::string& path, const std::string& recycle, std::size_t length, std::string& why);
  // After rename(from, to): the mapping follows (a mapping of the replaced `to` is released).
  void renamed(const std::string& from, const std::string& to);
  // Before `path` is removed or replaced: its mapping released.
  void forget(const std::string& path);
  void clear();
  std::size_t size() const { return table_.size(); }
 private:
  levels::MappedTable table_;
};

}  // namespace resize::detail
