// SPDX-License-Identifier: BSD-3-Clause
// The one form of an error (common/include/malleable/error.hpp): the code, the part and the
// message survive a rethrow with context (the same object), a part's conversion of another
// part's error keeps that part and code, copies cannot throw, every code and part has words
// of its own, and the C values of malleable/error.h stay what they are.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "malleable/error.h"
#include "malleable/error.hpp"

namespace {

using malleable::Errc;
using malleable::Error;
using malleable::Part;

// A part's own error type, as gridmap's: its callers catch it, so it takes another part's
// error in with that part's code.
struct Caller : Error {
  Caller(const Error& cause, std::string_view context) : Error(cause, context) {}
};

TEST(OneForm, ContextKeepsTheObjectItsCodeAndPart) {
  const Error* thrown = nullptr;
  try {
    try {
      throw Error(Part::BlacsDyn, Errc::Spawn, "too many processes: 4 running + 5 new exceeds 6");
    } catch (Error& e) {
      thrown = &e;
      e.prepend("expansion: ");
      throw;
    }
  } catch (const Error& e) {
    EXPECT_EQ(&e, thrown);  // rethrown, not re-wrapped
    EXPECT_EQ(e.errc(), Errc::Spawn);
    EXPECT_EQ(e.part(), Part::BlacsDyn);
    EXPECT_STREQ(e.what(), "expansion: too many processes: 4 running + 5 new exceeds 6");
  }
}

TEST(OneForm, APartTakingAnothersErrorKeepsItsCodeAndPart) {
  const Error cause(Part::Redist, Errc::Layout, "row block 3 of 0 rows");
  const Caller c(cause, "layout: ");
  EXPECT_EQ(c.errc(), Errc::Layout);
  EXPECT_EQ(c.part(), Part::Redist);
  EXPECT_STREQ(c.what(), "layout: row block 3 of 0 rows");
  EXPECT_STREQ(cause.what(), "row block 3 of 0 rows");  // the cause as it was
}

TEST(OneForm, AMessageAloneIsABadArgumentOfTheSession) {
  const Error e("register_matrix: M = -1 must be >= 0");
  EXPECT_EQ(e.errc(), Errc::InvalidArgument);
  EXPECT_EQ(e.part(), Part::Resize);
  EXPECT_EQ(Error("x", Errc::Checkpoint).errc(), Errc::Checkpoint);
}

TEST(OneForm, CopiesShareTheMessageAndCannotThrow) {
  static_assert(std::is_nothrow_copy_constructible_v<Error>);
  static_assert(std::is_base_of_v<std::runtime_error, Error>);
  Error a(Part::Cluster, Errc::BatchSystem, "squeue said nothing");
  const Error b = a;
  a.prepend("agent: ");  // a copy keeps the message it was made with
  EXPECT_STREQ(b.what(), "squeue said nothing");
  EXPECT_STREQ(a.what(), "agent: squeue said nothing");
  EXPECT_EQ(b.part(), Part::Cluster);
}

TEST(OneForm, EveryCodeAndPartHasWordsOfItsOwn) {
  const Errc codes[] = {Errc::Ok, Errc::InvalidArgument, Errc::State, Errc::Mpi, Errc::Internal,
                        Errc::Inconsistent, Errc::Timeout, Errc::Schema, Errc::Spawn, Errc::SpawnUnsupported,
                        Errc::Join, Errc::Layout, Errc::SizeMismatch, Errc::Region, Errc::LeadingDimension,
                        Errc::NullBuffer, Errc::NotInGrid, Errc::Impossible, Errc::ResizeFailed,
                        Errc::Checkpoint, Errc::BatchSystem};
  std::set<std::string> words;
  for (Errc c : codes) words.insert(malleable::to_string(c));
  EXPECT_EQ(words.size(), std::size(codes));
  EXPECT_EQ(words.count("unknown error code"), 0u);
  EXPECT_STREQ(malleable::to_string(static_cast<Errc>(99)), "unknown error code");
  const Part parts[] = {Part::None, Part::BlacsDyn, Part::Redist, Part::Gridmap, Part::Resize, Part::Cluster};
  std::set<std::string> names;
  for (Part p : parts) names.insert(malleable::to_string(p));
  EXPECT_EQ(names.size(), std::size(parts));
  EXPECT_STREQ(malleable::to_string(Part::BlacsDyn), "blacs-dyn");
}

// The C values are an ABI (resize_last_error_code() returns them): they never change.
TEST(OneForm, TheCValuesNeverChange) {
  const int values[] = {MALLEABLE_OK, MALLEABLE_ERR_ARG, MALLEABLE_ERR_STATE, MALLEABLE_ERR_MPI,
                        MALLEABLE_ERR_INTERNAL, MALLEABLE_ERR_INCONSISTENT, MALLEABLE_ERR_TIMEOUT,
                        MALLEABLE_ERR_SCHEMA, MALLEABLE_ERR_SPAWN, MALLEABLE_ERR_SPAWN_UNSUPPORTED, MALLEABLE_ERR_JOIN,
                        MALLEABLE_ERR_LAYOUT, MALLEABLE_ERR_SIZE_MISMATCH, MALLEABLE_ERR_REGION, MALLEABLE_ERR_LLD,
                        MALLEABLE_ERR_NULL_BUFFER, MALLEABLE_ERR_NOT_IN_GRID, MALLEABLE_ERR_IMPOSSIBLE,
                        MALLEABLE_ERR_RESIZE, MALLEABLE_ERR_CHECKPOINT, MALLEABLE_ERR_BATCH};
  const int want[] = {0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 20, 21, 22, 23, 24, 25, 30, 40, 41, 50};
  static_assert(std::size(values) == std::size(want));
  for (std::size_t k = 0; k < std::size(want); ++k) EXPECT_EQ(values[k], want[k]) << "value " << k;
  const int parts[] = {MALLEABLE_PART_NONE, MALLEABLE_PART_BLACS_DYN, MALLEABLE_PART_REDIST, MALLEABLE_PART_GRIDMAP,
                       MALLEABLE_PART_RESIZE, MALLEABLE_PART_CLUSTER};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(parts[k], k);
}

}  // namespace
