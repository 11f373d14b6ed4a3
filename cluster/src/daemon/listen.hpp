// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd's listeners (server.hpp): the Unix socket (its mode and group), the
// TCP listener, and who an accepted connection comes from (the kernel's word: SO_PEERCRED
// on the Unix socket, the peer address over TCP).
#pragma once

#include <sys/types.h>

#include <string>

#include "daemon/conn_cap.hpp"

namespace cluster::arbiter {

// A group's name or number to its gid; throws Error when there is no such group.
gid_t resolve_group(const std::string& g);
// The Unix socket: mode 0666 (MUNGE, not the file mode, decides who may ask what), or
// 0660 with `group` (a site that restricts who may reach the arbiter at all). A group that
// does not exist stops the start before anything is created or removed. Throws Error.
int listen_unix(const std::string& path, const std::string& group);
// HOST:PORT; "*" binds every address (IPv6 and IPv4 on one socket where the host has
// IPv6). `bound`: what it listens on (the port the kernel chose for port 0). Throws Error.
int listen_tcp(const std::string& text, std::string& bound);
// Who an accepted connection comes from, in the kernel's word: on the Unix socket its uid
// (SO_PEERCRED: group and address "uid N"), over TCP its peer address and subnet
// (tcp_peer); "unknown" when neither can be read (one shared count).
Peer peer_of(int fd, bool unix_socket);

}  // namespace cluster::arbiter
