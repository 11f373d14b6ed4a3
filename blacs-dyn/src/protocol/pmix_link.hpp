// SPDX-License-Identifier: BSD-3-Clause
// A leaving process's connection to its launcher's PMIx server, as the kernel's TCP table
// shows it (pure: text in, decisions out; runtime_leave.cpp reads the files).
//
// Why: Open MPI 4.1 over PMIx 4.2 hangs a later MPI_Comm_spawn when the launcher
// deregisters a departed client before PMIx's progress thread has seen that client's
// socket close (docs/reference/blacs-dyn.md, "The spawn hang"): the server then closes the
// socket without deleting its read event, and the next client that gets the same
// descriptor number is never read. PMIx_Finalize closes the client's end; the launcher
// deregisters only after the process has exited. So a leaving process that stays until the
// server has closed its own end of the connection (which only the progress thread's
// lost_connection does while the client lives, deleting its events first) takes the
// trigger away. These functions find the connection before MPI_Finalize and tell, after
// it, whether the server's end is still open.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blacs_dyn::pmix_link {

// An address and port as /proc/net/tcp{,6} write them: the address in hex as the kernel
// prints it (byte order as printed, compared as text), the port as a number.
struct Endpoint {
  std::string addr;
  unsigned port = 0;
  bool operator==(const Endpoint&) const = default;
};

// The TCP states of /proc/net/tcp that matter here (include/net/tcp_states.h).
inline constexpr int kEstablished = 0x01;
inline constexpr int kCloseWait = 0x08;

// One row of /proc/net/tcp or /proc/net/tcp6.
struct TcpRow {
  Endpoint local;
  Endpoint remote;
  int state = 0;
  unsigned long inode = 0;
};

// How long a leaving process waits for the server (BLACS_DYN_LEAVE_WAIT): seconds >= 0,
// "off" or "0" for no wait; unset, empty or anything else gives the default.
inline constexpr double kDefaultWaitSeconds = 10.0;
double wait_seconds(const std::optional<std::string>& setting);

// The port of a PMIx server URI as Open MPI hands it to its processes
// (PMIX_SERVER_URI41 and kin: "2103312384.0;tcp4://127.0.0.1:55921" or
// "...;tcp6://[::1]:55921"); nullopt for anything else (no TCP, no port, a port out of range).
std::optional<unsigned> server_port(std::string_view uri);

// The rows of a /proc/net/tcp or /proc/net/tcp6 text; the header and malformed lines are
// skipped.
std::vector<TcpRow> parse_tcp_table(std::string_view text);

// The inode of a descriptor's link text ("socket:[12345]"); nullopt if it is not a socket.
std::optional<unsigned long> socket_inode(std::string_view link);

// This process's connection to the server: the established row whose inode is one of the
// process's sockets and whose remote port is the server's. nullopt when there is none.
std::optional<TcpRow> client_link(const std::vector<TcpRow>& rows, const std::vector<unsigned long>& my_inodes,
                                  unsigned server_port);

// Whether the server still holds its end of `link` open: a row from the server's endpoint
// to the client's that is established (the client's close not yet seen by the kernel) or
// in CLOSE_WAIT (seen by the kernel, not yet by the server). Once the server has closed it
// the row is gone or in LAST_ACK.
bool server_end_open(const std::vector<TcpRow>& rows, const TcpRow& link);

}  // namespace blacs_dyn::pmix_link
