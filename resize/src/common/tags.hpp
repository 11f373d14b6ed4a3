// SPDX-License-Identifier: BSD-3-Clause
// The MPI tags of the session's own point-to-point messages, in one place. Each travels
// on a communicator the library duplicated (never the application's): the remap-point
// arrival on the arrival check's dup of the world (parts/watchdog.cpp), the level
// checkpoints' copies and the restart from levels on Nodes::traffic, the node discovery
// on Nodes::leaders.
#pragma once

namespace resize::detail::tags {

// Remap-point arrival (parts/watchdog.cpp).
inline constexpr int kArrivalHere = 4201;    // root -> others: the root is at the remap point
inline constexpr int kArrivalArrive = 4202;  // others -> root: arrived after iteration N
inline constexpr int kArrivalGo = 4203;      // root -> others: every process arrived

// Node discovery between node leaders (checkpoint/levels/node_io.cpp).
inline constexpr int kLeadersSizeToSource = 1;    // my node's size, to the node I keep copies of
inline constexpr int kLeadersSizeToPartner = 2;   // my node's size, to my partner node
inline constexpr int kLeadersRanksToSource = 3;   // my node's world ranks, to the node I keep copies of
inline constexpr int kLeadersRanksToPartner = 4;  // my node's world ranks, to my partner node

// A level checkpoint's partner copy (checkpoint/levels/write.cpp).
inline constexpr int kLevelLengths = 701;  // header and payload bytes
inline constexpr int kLevelHeader = 702;
inline constexpr int kLevelPayload = 703;
// Restart from levels: each new owner's blocks (checkpoint/levels/recover.cpp).
inline constexpr int kLevelRestart = 704;

}  // namespace resize::detail::tags
