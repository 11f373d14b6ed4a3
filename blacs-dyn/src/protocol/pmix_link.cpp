// SPDX-License-Identifier: BSD-3-Clause
// A leaving process's connection to its launcher's PMIx server (pmix_link.hpp; pure).
#include "protocol/pmix_link.hpp"

#include <algorithm>
#include <charconv>

#include "malleable_internal/bounded_text.hpp"

namespace blacs_dyn::pmix_link {
namespace {

std::optional<unsigned long> parse_number(std::string_view s, int base) {
  unsigned long v = 0;
  if (s.empty()) return std::nullopt;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "0100007F:DA71" -> {"0100007F", 0xDA71}
std::optional<Endpoint> parse_endpoint(std::string_view s) {
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const auto port = parse_number(s.substr(colon + 1), 16);
  if (!port || *port > 65535) return std::nullopt;
  return Endpoint{std::string(s.substr(0, colon)), static_cast<unsigned>(*port)};
}

}  // namespace

double wait_seconds(const std::optional<std::string>& setting) {
  if (!setting || setting->empty()) return kDefaultWaitSeconds;
  if (*setting == "off") return 0.0;
  double v = 0;
  const char* b = setting->data();
  const auto [p, ec] = std::from_chars(b, b + setting->size(), v);
  if (ec != std::errc() || p != b + setting->size() || !(v >= 0) || v > 3600) return kDefaultWaitSeconds;
  return v;
}

std::optional<unsigned> server_port(std::string_view uri) {
  const auto scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::nullopt;
  const std::string_view proto = uri.substr(0, scheme);
  if (!proto.ends_with("tcp4") && !proto.ends_with("tcp6") && !proto.ends_with("tcp")) return std::nullopt;
  const std::string_view rest = uri.substr(scheme + 3);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view port = rest.substr(colon + 1);
  if (const auto end = port.find_first_not_of("0123456789"); end != std::string_view::npos) port = port.substr(0, end);
  const auto v = parse_number(port, 10);
  if (!v || *v == 0 || *v > 65535) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::vector<TcpRow> parse_tcp_table(std::string_view text) {
  std::vector<TcpRow> rows;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const auto f = malleable::text::blank_fields(line);
    if (f.size() < 10 || !f[0].ends_with(':')) continue;
    const auto local = parse_endpoint(f[1]);
    const auto remote = parse_endpoint(f[2]);
    const auto state = parse_number(f[3], 16);
    const auto inode = parse_number(f[9], 10);
    if (!local || !remote || !state || !inode) continue;
    rows.push_back(TcpRow{*local, *remote, static_cast<int>(*state), *inode});
  }
  return rows;
}

std::optional<unsigned long> socket_inode(std::string_view link) {
  constexpr std::string_view prefix = "socket:[";
  if (!link.starts_with(prefix) || !link.ends_with(']')) return std::nullopt;
  return parse_number(link.substr(prefix.size(), link.size() - prefix.size() - 1), 10);
}

std::optional<TcpRow> client_link(const std::vector<TcpRow>& rows, const std::vector<unsigned long>& my_inodes,
                                  unsigned server_port) {
  for (const TcpRow& r : rows) {
    if (r.state != kEstablished || r.remote.port != server_port || r.inode == 0) continue;
    if (std::find(my_inodes.begin(), my_inodes.end(), r.inode) != my_inodes.end()) return r;
  }
  return std::nullopt;
}

bool server_end_open(const std::vector<TcpRow>& rows, const TcpRow& link) {
  return std::any_of(rows.begin(), rows.end(), [&](const TcpRow& r) {
    return r.local == link.remote && r.remote == link.local && (r.state == kEstablished || r.state == kCloseWait);
  });
}

}  // namespace blacs_dyn::pmix_link
