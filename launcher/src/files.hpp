// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's files: the job directory on the launcher's side (made private, checked,
// its secret, command and environment written), and small bounded reads and writes. The
// names are the shared layout's (malleable_internal/job_dir_layout.hpp). Errors are
// Failure (failure.hpp): a message and the status the launcher exits with.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "failure.hpp"
#include "trust.hpp"

namespace launcher {

// The real path of `p` ("" when it cannot be resolved).
std::string real_path(const std::string& p);
// The names in a folder (not . and ..), at most `most`; empty when it cannot be read.
std::vector<std::string> list_dir(const std::string& dir, std::size_t most = 100000);
// At most `most` bytes of a file (no link followed); nullopt when it cannot be read.
std::optional<std::string> read_file(const std::string& p, std::size_t most);
// Every byte of `data` into fd; false with errno set (ENOSPC: a full disk) otherwise.
bool write_all(int fd, const std::string& data);
// A file of this user closed to others (0600), written whole: a temporary file renamed
// over it. Failure(2, "cannot write P: <why>") otherwise, the temporary file removed.
void write_private(const std::string& p, const std::string& data);
// NUL-separated words (DIR/command, DIR/environment) out of their text, and back.
std::vector<std::string> nul_words_of(const std::string& text);
std::string nul_words(const std::vector<std::string>& words);
bool exists(const std::string& p);
bool non_empty(const std::string& p);

// The job directory's start (malleable-run --job-dir): made 0700 if missing, then trusted
// only as this user's own (trust.hpp: it and every parent, Failure(2, why) otherwise); its
// join/, orders/ and expanders/ folders made (this user's, no link); old orders, requests
// and answers removed; a secret made if none. Returns it verified and open.
TrustedDir prepare_job_dir(const std::string& dir);
// DIR/command (the program, its path resolved when it names one, and its arguments) and
// DIR/environment (the saved variables of `env`, NAME=VALUE).
void write_command(const std::string& dir, const std::vector<std::string>& program);
void write_environment(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace launcher
