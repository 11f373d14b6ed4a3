// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd's listeners (listen.hpp).
#include "daemon/listen.hpp"

#include <arpa/inet.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "arbiter/protocol.hpp"

namespace cluster::arbiter {

gid_t resolve_group(const std::string& g) {
  std::vector<char> buf(1 << 16);
  group gr{};
  group* found = nullptr;
  const int rc = ::getgrnam_r(g.c_str(), &gr, buf.data(), buf.size(), &found);
  if (rc == 0 && found) return found->gr_gid;
  char* end = nullptr;
  const unsigned long n = std::strtoul(g.c_str(), &end, 10);
  if (!g.empty() && *end == 0 && g[0] != '-' && n < 0xffffffffUL) return static_cast<gid_t>(n);
  throw Error("--socket-group: no group '" + g + "'" + (rc ? std::string(" (") + std::strerror(rc) + ")" : ""));
}

int listen_unix(const std::string& path, const std::string& group) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    throw Error("the socket path '" + path + "' is empty or too long");
  const bool grouped = !group.empty();
  const gid_t gid = grouped ? resolve_group(group) : 0;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ::unlink(path.c_str());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      (grouped && ::chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) ||
      ::chmod(path.c_str(), grouped ? 0660 : 0666) != 0 || ::listen(fd, 128) != 0) {
    std::string why = std::strerror(errno);
    if (grouped && errno == EPERM) why += " (the daemon's user must be a member of the group: SupplementaryGroups= in its unit)";
    if (fd >= 0) {
      ::close(fd);
      ::unlink(path.c_str());
    }
    throw Error("cannot listen on " + path + (grouped ? " with group " + group : std::string()) + ": " + why);
  }
  return fd;
}

Peer peer_of(int fd, bool unix_socket) {
  if (unix_socket) {
    ucred cr{};
    socklen_t len = sizeof cr;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0) {
      const std::string who = "uid " + std::to_string(cr.uid);
      return Peer{who, who};
    }
    return Peer{"unknown", "unknown"};
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  char host[INET6_ADDRSTRLEN] = {0};
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return Peer{"unknown", "unknown"};
  if (ss.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr, host, sizeof host);
  else if (ss.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr, host, sizeof host);
  return host[0] ? tcp_peer(host) : Peer{"unknown", "unknown"};
}

int listen_tcp(const std::string& text, std::string& bound) {
  const HostPort hp = parse_host_port(text, true);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(hp.port);
  if (const int e = ::getaddrinfo(hp.host.empty() ? nullptr : hp.host.c_str(), port.c_str(), &hints, &res); e != 0)
    throw Error("cannot listen on " + text + ": " + ::gai_strerror(e));
  std::vector<addrinfo*> order;
  for (addrinfo* a = res; a; a = a->ai_next) order.push_back(a);
  if (hp.host.empty())  // the IPv6 wildcard first: it takes IPv4 too
    std::stable_sort(order.begin(), order.end(), [](addrinfo* x, addrinfo* y) {
      return (x->ai_family == AF_INET6) > (y->ai_family == AF_INET6);
    });
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a : order) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int one = 1, zero = 0;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (a->ai_family == AF_INET6 && hp.host.empty()) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) break;
    why = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  if (fd < 0) throw Error("cannot listen on " + text + ": " + why);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0)
    ::getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
  HostPort b{host, static_cast<std::uint16_t>(std::atoi(serv))};
  bound = to_string(b);
  return fd;
}
}  // namespace cluster::arbiter
