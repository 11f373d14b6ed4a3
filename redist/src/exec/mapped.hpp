// SPDX-License-Identifier: BSD-3-Clause
// The lookup side of mapped arrays (malleable/redist/mapped.h, mapped.cpp): whether a
// local array of A lies in one of this process's shareable segments, and where, for a
// sender that lets its node peers copy straight out of it. Internal to redist.
#pragma once

#include <cstdint>
#include <optional>

#include "segment_store.hpp"

namespace redist::exec {

// A registered array's segment and a byte offset into its data.
struct MappedSource {
  SegmentId id;
  std::int64_t offset = 0;
};

// Where [p, p + bytes) lies when one array of redist_alloc holds it (thread-safe).
std::optional<MappedSource> find_mapped(const void* p, std::int64_t bytes);

// Whether this process has any registered array (a lock-free test before find_mapped).
bool any_mapped();

// Says once per process that a peer's mapped array could not be mapped (errno `err`).
void say_mapped_refused(int err);

}  // namespace redist::exec
