// SPDX-License-Identifier: BSD-3-Clause
// The store of shared segments between processes of one node (node_window.cpp): their
// names, and the mapped arrays' segments (mapped.cpp); the staging window's own segment
// and its mappings are node_window.hpp's. Internal to redist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace redist::exec {

// What a receiver needs to find a sender's segment: the sender's pid and descriptor, the
// segment's generation, the sender process's random token (also written in the segment's
// header, so a pid that names another process is caught), its size. Sent as 5 int64.
struct SegmentId {
  std::int64_t pid = 0, fd = -1, gen = 0, token = 0, bytes = 0;
};

// A segment of this process: its data (past the header) and its name.
struct OwnSegment {
  char* data = nullptr;
  SegmentId id;
};

// Whether this build can share memory between the ranks of a node (Linux; not under
// SimGrid's SMPI, whose ranks are threads of one simulated process).
bool node_window_supported();

// Mapped arrays (redist_alloc, malleable/redist/mapped.h) are segments of their own, made
// with memfd_create (/dev/shm is often small), mapped read-write with their pages
// reserved, the same header as a window segment (token, generation), generations from
// kArrayGenerations up (never a window segment's). make_array_segment: nullopt and *why
// when none can be had (MALLEABLE_REDIST_FAULT=shm-unavailable too); thread-safe.
// drop_array_segment unmaps and closes it. map_peer_array maps a peer's array read-only
// like map_peer (its pages as they are read), cached per peer and generation within an
// exchange, at most kArrayMaps per peer (the least recently used dropped first; one whose
// descriptor the owner reused for a newer array at once); drop_peer_arrays lets go of them
// all, at the end of every exchange (OnNode::close), since a mapping keeps the pages of an
// array alive after its owner frees it (a resize's old arrays). Fault injection:
// shm-refused and mapped-refused make map_peer_array fail with EACCES.
constexpr std::int64_t kArrayGenerations = std::int64_t{1} << 40;
constexpr std::size_t kArrayMaps = 4;
std::optional<OwnSegment> make_array_segment(std::int64_t bytes, std::string* why);
void drop_array_segment(const OwnSegment& s);
const char* map_peer_array(const SegmentId& id, int* err);
void drop_peer_arrays();

}  // namespace redist::exec
