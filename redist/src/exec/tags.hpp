// SPDX-License-Identifier: BSD-3-Clause
// The MPI tags of redist's own messages, in one place. All travel on the duplicate of the
// caller's communicator that each redistribution makes (mpi_guard.hpp, DupComm), never
// on the caller's.
#pragma once

namespace redist::exec::tags {

// The engine (exchange.cpp): every data message, packed or a datatype in place.
inline constexpr int kData = 0x5ED1;
inline constexpr int kReady = 0x5ED2;  // split_wait_transfer: a partner is ready for the step
// Single-copy transfers (single_copy.cpp).
inline constexpr int kSingleWhere = 0x5ED3;     // where the sender's A is
inline constexpr int kSingleDone = 0x5ED4;      // the receiver has read (0) or could not (errno)
inline constexpr int kSingleFallback = 0x5ED5;  // the read refused: the transfer by message
// Single-copy transfers written by the sender into the receiver's B (single_copy.cpp).
inline constexpr int kSingleWhereB = 0x5ED9;  // where the receiver's B is
inline constexpr int kSingleWrote = 0x5EDA;   // the sender has written (0) or could not (errno)
// Node-shared windows (node_window.hpp).
inline constexpr int kWindowWhere = 0x5ED6;
inline constexpr int kWindowDone = 0x5ED7;
inline constexpr int kWindowByMessage = 0x5ED8;

}  // namespace redist::exec::tags
