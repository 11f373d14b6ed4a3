// SPDX-License-Identifier: BSD-3-Clause
// The expansion schema file read by blacs_setup ("blacs_setup.dat, the
// schema file for spawning"). Pure: text in, Schema out, no MPI.
#ifndef BLACS_DYN_SCHEMA_HPP
#define BLACS_DYN_SCHEMA_HPP

#include <string>
#include <string_view>
#include <vector>

namespace blacs_dyn {

// One expansion: run `executable` with `args` on `add` new processes, optionally placed
// on `hosts` and started in `wdir`.
struct Schema {
  std::string executable;
  std::vector<std::string> args;
  int add = 0;
  std::vector<std::string> hosts;
  std::string wdir;
};

// Parses the schema text (format in docs/reference/blacs-dyn.md). `source` names the file in error
// messages. Throws blacs_dyn::Error(BLACS_DYN_ERR_SCHEMA) naming the line and the value at fault.
Schema parse_schema(std::string_view text, std::string_view source);

// Splits an argument string the way a POSIX shell would for words, '...' and "..." quotes
// and backslash escapes (no expansion). Throws on an unterminated quote.
std::vector<std::string> split_args(std::string_view text);

// The schema path blacs_setup uses: `explicit_path` if given, else $BLACS_SETUP_FILE,
// else "blacs_setup.dat" (relative to the working directory).
std::string schema_path(const char* explicit_path, const char* env_value);

}  // namespace blacs_dyn
#endif
