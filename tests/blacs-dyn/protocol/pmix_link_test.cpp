// SPDX-License-Identifier: BSD-3-Clause
// A leaving process's connection to its PMIx server (blacs-dyn/src/protocol/pmix_link.hpp): the URI,
// the kernel's TCP tables as Linux prints them, finding the connection and telling when
// the server has closed its end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/pmix_link.hpp"

using namespace blacs_dyn::pmix_link;

namespace {
// /proc/net/tcp of a node while one client (port 0xC350 = 50000) is connected to the PMIx
// server on 127.0.0.1:55921 (0xDA71): the listener, the server's end (inode 7001) and the
// client's end (inode 7002), plus an unrelated connection to another port.
const char* kTable =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:DA71 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7000 1 "
    "000000006b1a7a2a 100 0 0 10 0\n"
    "   1: 0100007F:DA71 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 7001 1 "
    "0000000000000000 20 4 30 10 -1\n"
    "   2: 0100007F:C350 0100007F:DA71 01 00000000:00000000 00:00000000 00000000     0        0 7002 1 "
    "0000000000000000 20 4 30 10 -1\n"
    "   3: 0100007F:C351 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 7003 1 "
    "0000000000000000 20 4 30 10 -1\n";

std::string with_states(const char* server_end, const char* client_end) {
  std::string t = kTable;
  // Row 1 is the server's end, row 2 the client's; the state is the 4th field.
  const auto set = [&t](const char* row, const char* state) {
    const auto p = t.find(row);
    t.replace(t.find(" 01 ", p), 4, std::string(" ") + state + " ");
  };
  set("   1: ", server_end);
  set("   2: ", client_end);
  return t;
}
}  // namespace

TEST(PmixLink, ServerPortFromOpenMpisUri) {
  EXPECT_EQ(server_port("2103312384.0;tcp4://127.0.0.1:55921"), 55921u);
  EXPECT_EQ(server_port("2103312384.0;tcp6://[::1]:40001"), 40001u);
  EXPECT_EQ(server_port("pmix-server.12;tcp4://10.0.0.2:1"), 1u);
  EXPECT_FALSE(server_port(""));
  EXPECT_FALSE(server_port("2103312384.0;usock:/tmp/pmix"));    // not TCP
  EXPECT_FALSE(server_port("2103312384.0;tcp4://127.0.0.1"));    // no port
  EXPECT_FALSE(server_port("2103312384.0;tcp4://127.0.0.1:0"));  // out of range
  EXPECT_FALSE(server_port("2103312384.0;tcp4://127.0.0.1:70000"));
  EXPECT_FALSE(server_port("2103312384.0;tcp4://127.0.0.1:x"));
}

TEST(PmixLink, ParsesTheKernelsTable) {
  const auto rows = parse_tcp_table(kTable);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].local, (Endpoint{"0100007F", 55921}));
  EXPECT_EQ(rows[0].remote, (Endpoint{"00000000", 0}));
  EXPECT_EQ(rows[0].state, 0x0A);
  EXPECT_EQ(rows[0].inode, 7000u);
  EXPECT_EQ(rows[2].local, (Endpoint{"0100007F", 50000}));
  EXPECT_EQ(rows[2].remote, (Endpoint{"0100007F", 55921}));
  EXPECT_EQ(rows[2].state, kEstablished);
  EXPECT_EQ(rows[2].inode, 7002u);
}

TEST(PmixLink, ParsesIpv6RowsAndSkipsMalformedLines) {
  const std::string t =
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
      "tm->when retrnsmt   uid  timeout inode\n"
      "   0: 00000000000000000000000001000000:9C41 00000000000000000000000001000000:C350 08 00000000:00000000 "
      "00:00000000 00000000     0        0 8100 1 0000000000000000 20 4 30 10 -1\n"
      "garbage\n"
      "   1: 0100007F 0100007F:C350 01 00000000:00000000 00:00000000 00000000 0 0 8101 1\n"  // no port
      "   2: 0100007F:C350 0100007F:ZZZZ 01 00000000:00000000 00:00000000 00000000 0 0 8102 1\n"
      "   3: 0100007F:C350 0100007F:DA71 01 00000000:00000000 00:00000000 00000000 0 0\n"  // short
      "\n";
  const auto rows = parse_tcp_table(t);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].local, (Endpoint{"00000000000000000000000001000000", 40001}));
  EXPECT_EQ(rows[0].state, kCloseWait);
  EXPECT_EQ(rows[0].inode, 8100u);
}

TEST(PmixLink, SocketInodeFromDescriptorLink) {
  EXPECT_EQ(socket_inode("socket:[7002]"), 7002ul);
  EXPECT_FALSE(socket_inode("pipe:[7002]"));
  EXPECT_FALSE(socket_inode("/dev/null"));
  EXPECT_FALSE(socket_inode("socket:[]"));
  EXPECT_FALSE(socket_inode("socket:[12x]"));
}

TEST(PmixLink, FindsOwnConnectionOnly) {
  const auto rows = parse_tcp_table(kTable);
  // The server's end (7001) has the client's port as remote, not the server's: not ours
  // even if we held it; the client's end (7002) is.
  const auto link = client_link(rows, {5, 7002, 9}, 55921);
  ASSERT_TRUE(link);
  EXPECT_EQ(link->inode, 7002u);
  EXPECT_EQ(link->local.port, 50000u);
  EXPECT_FALSE(client_link(rows, {7003}, 55921));       // our socket goes elsewhere
  EXPECT_FALSE(client_link(rows, {7002}, 8080));        // another server
  EXPECT_FALSE(client_link(rows, {}, 55921));           // no socket of ours
  EXPECT_FALSE(client_link(parse_tcp_table(with_states("01", "05")), {7002}, 55921));  // ours already closing
}

TEST(PmixLink, ServerEndOpenUntilTheServerClosesIt) {
  const auto link = client_link(parse_tcp_table(kTable), {7002}, 55921);
  ASSERT_TRUE(link);
  // Before the client's close reached the server's kernel: established.
  EXPECT_TRUE(server_end_open(parse_tcp_table(kTable), *link));
  // Client closed (FIN_WAIT2), the server's socket not yet closed (CLOSE_WAIT): still open.
  EXPECT_TRUE(server_end_open(parse_tcp_table(with_states("08", "05")), *link));
  // The server closed it: LAST_ACK while its FIN is unacknowledged, our end TIME_WAIT...
  EXPECT_FALSE(server_end_open(parse_tcp_table(with_states("09", "06")), *link));
  // ... and then the row is gone.
  std::string gone = kTable;
  gone.erase(gone.find("   1: "), gone.find("   2: ") - gone.find("   1: "));
  EXPECT_FALSE(server_end_open(parse_tcp_table(gone), *link));
  // Another client's row on the same server port does not count.
  TcpRow other = *link;
  other.local.port = 50001;
  EXPECT_FALSE(server_end_open(parse_tcp_table(kTable), other));
}

TEST(PmixLink, WaitSetting) {
  EXPECT_EQ(wait_seconds(std::nullopt), kDefaultWaitSeconds);
  EXPECT_EQ(wait_seconds(std::string()), kDefaultWaitSeconds);
  EXPECT_EQ(wait_seconds(std::string("off")), 0.0);
  EXPECT_EQ(wait_seconds(std::string("0")), 0.0);
  EXPECT_EQ(wait_seconds(std::string("2.5")), 2.5);
  EXPECT_EQ(wait_seconds(std::string("-1")), kDefaultWaitSeconds);
  EXPECT_EQ(wait_seconds(std::string("5s")), kDefaultWaitSeconds);
  EXPECT_EQ(wait_seconds(std::string("1e9")), kDefaultWaitSeconds);
}
