// SPDX-License-Identifier: BSD-3-Clause
// Internal: replacing and removing large files without waiting for the file system to
// free them. Unlinking a 128 MB checkpoint on ext4 (directly, or by renaming a new file
// over it) took 70-85 ms on this machine, all of it in the call: the kernel drops the
// file's cached pages and frees its extents when the inode's last reference goes. These
// functions keep a descriptor open on the old file while its name is replaced or removed
// (so the call itself only edits the directory) and close that descriptor on a
// background thread, where the freeing then happens. No MPI here.
#pragma once

#include <cstdint>
#include <string>

namespace resize::detail {

// rename(from, to), replacing `to` atomically if it exists; the old file's blocks are
// freed in the background. Returns 0, or the errno of the failed rename (nothing changed).
int replace_file(const std::string& from, const std::string& to);

// Removes `path`; its blocks are freed in the background. Returns 0 or the errno of unlink.
int remove_file(const std::string& path);

// Waits until every file handed to the background has been let go (also done at exit).
void wait_for_released_files();

// Whether `bytes` can be written into the file system of `probe` (a path that must not
// exist) now: `probe` is made, `bytes` allocated to it (fallocate) and removed, freed in
// the call (the room must be free again for the file that needs it). Returns 0, or the
// errno (ENOSPC, EDQUOT, EROFS, EACCES, ...). Where fallocate is not supported the file
// system's free space (statvfs) decides. `free_bytes` (optional) gets statvfs's free bytes.
int check_room(const std::string& probe, std::uint64_t bytes, std::uint64_t* free_bytes = nullptr);

// fsync() of a file or directory (opened read-only). Returns 0 or the errno.
int sync_path(const std::string& path);

}  // namespace resize::detail
