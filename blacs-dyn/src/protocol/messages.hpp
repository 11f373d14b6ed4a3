// SPDX-License-Identifier: BSD-3-Clause
// blacs-dyn's control messages, typed and versioned (the codec of
// malleable_internal/wire.hpp): a newcomer's check-in, the spawning world's go or abort,
// rank 0's release of a parked process, the expansion request rank 0 shares, and the
// outcome of reading a schema file. Pure: the runtime only moves the bytes. A message of
// another kind or version, or a truncated one, is a wire::Error naming it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "malleable_internal/wire.hpp"

namespace blacs_dyn::detail {

// Newcomer -> its spawning rank: "I am here" (kTagHello).
struct Hello {
  int pid = 0;
  int level = 0;  // the level of the expansion that spawned it
  bool operator==(const Hello&) const = default;
};
std::vector<char> encode(const Hello& m);
Hello decode_hello(std::span<const char> bytes);
// Every Hello has this many bytes (the spawning rank posts receives of this size).
std::size_t hello_bytes();

// Spawning rank -> newcomer (kTagGo): go with the grown stack, or the expansion was cancelled.
struct Go {
  bool go = false;  // false: cancelled (a sibling did not check in, or another spawn failed)
  int level = 0;
  int groups = 0;             // the number of spawn groups of this expansion
  int mine = 0;               // the newcomer's group
  std::vector<int> spawner;   // spawner[j]: the world rank that spawned group j
  std::vector<int> stack;     // the grown level stack (LevelStack::encode)
  bool operator==(const Go&) const = default;
};
inline Go cancelled_go(int level) {
  Go g;
  g.level = level;
  return g;
}
std::vector<char> encode(const Go& m);
// Also checks a go's fields: 0 <= mine < groups and one spawner per group.
Go decode_go(std::span<const char> bytes);

// Rank 0 -> parked process (kTagRelease).
enum class Release : int {
  Finalize = 1,  // the job ends: finalize with everybody
  Exit = 2,      // your spawn group leaves: disconnect and exit
};
std::vector<char> encode(Release m);
Release decode_release(std::span<const char> bytes);
std::size_t release_bytes();

// Rank 0's expansion request as every rank of the world receives it (an MPI_Info object
// cannot be sent: its keys and values are).
struct SharedRequest {
  std::string command, wdir, hosts;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, int>> groups;           // host, count
  std::vector<std::pair<std::string, std::string>> info;     // MPI_Info keys and values
  bool operator==(const SharedRequest&) const = default;
};
std::vector<char> encode(const SharedRequest& m);
SharedRequest decode_request(std::span<const char> bytes);

// Rank 0's reading of a schema file (blacs_dyn_expand_schema).
struct SchemaOutcome {
  bool missing = false;  // no file, and that is fine: nothing to do
  int nnew = 0;
  bool operator==(const SchemaOutcome&) const = default;
};
std::vector<char> encode(const SchemaOutcome& m);
SchemaOutcome decode_schema_outcome(std::span<const char> bytes);
std::size_t schema_outcome_bytes();

}  // namespace blacs_dyn::detail
