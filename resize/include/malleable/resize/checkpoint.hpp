// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint and restart, what a program calls besides the session: the "when to
// checkpoint" rule (every N iterations, every T seconds, on request, Young/Daly's interval
// from the measured cost and an MTBF), the files' names and the format's version. The
// file's layout, hyperslabs, checksums and validation are the library's
// (resize/src/checkpoint/file/format.hpp); the MPI and HDF5 shell is
// resize/src/checkpoint/file/write.cpp and file/read.cpp.
//
// One checkpoint is one HDF5 file. Each matrix is a global M x N dataset /matrices/<name>
// in which element (i, j) is at (i, j) (HDF5 is row-major: dims {M, N}), so h5dump and
// h5py read it as the matrix. Complex matrices are a compound {re, im}.
#pragma once

#include <string>
#include <vector>

namespace resize::checkpoint {

// Version 1: attributes on "/" (format, version, program, executable, iteration, grid,
// resize_history), /state (the application's bytes), /matrices/<name> with attributes
// type, layout, mb, nb, row_blocks, col_blocks, checksum.
// Version 2: the same, with each matrix's checksum summed with the cheaper element term
// of ChecksumV2 (the library's file/format.hpp). This library writes version 2 and reads both; version 1 is
// written on request (environment MALLEABLE_CHECKPOINT_FORMAT=1) for readers of 0.3.
inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestFormatVersion = 1;
inline constexpr const char* kFormatName = "malleable.checkpoint";

// ---- when ------------------------------------------------------------------------

// "6h", "30m", "45s", "1.5d" or a bare number of seconds; throws Error naming the text.
double parse_duration(const std::string& text);

// Young/Daly's optimal interval between checkpoints, sqrt(2 * C * MTBF) seconds for a
// checkpoint that costs C seconds (Young 1974, Daly 2006 first order).
double young_daly_interval(double cost_seconds, double mtbf_seconds);

struct Every {
  enum class Kind { Never, Iterations, Seconds, Auto };
  Kind kind = Kind::Never;
  int iterations = 0;     // Kind::Iterations
  double seconds = 0;     // Kind::Seconds
  double mtbf = 0;        // Kind::Auto (seconds)
};
// "N" (iterations), "<T>s|m|h" (time), "auto" (needs mtbf > 0), "never"/"" ; throws
// Error naming the text.
Every parse_every(const std::string& text, double mtbf_seconds = 0);

// Whether to checkpoint after `iteration` completed iterations, `since_last` seconds
// after the last checkpoint (or the start), given the last checkpoint's measured cost
// (< 0: none measured yet; Auto then checkpoints once to measure it). `requested`
// (a user's request) always wins.
bool due(const Every& e, int iteration, double since_last, double last_cost, bool requested = false);

// ---- files -----------------------------------------------------------------------

// DIR/<program>-<iteration, 6 digits>.h5
std::string file_name(const std::string& dir, const std::string& program, int iteration);
// Of the checkpoint files `names` (file_name()s of one program), those to delete so that
// the newest `keep` (by iteration) remain; keep <= 0 keeps all.
std::vector<std::string> to_remove(std::vector<std::string> names, int keep);
// The iteration in a file_name(), or -1 when the name is not one.
int iteration_of(const std::string& name);

}  // namespace resize::checkpoint
