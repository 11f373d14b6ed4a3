// SPDX-License-Identifier: BSD-3-Clause
// blacs-dyn's control messages (blacs-dyn/src/protocol/messages.hpp): each survives its round trip
// field for field; another version, another kind of message, a truncated or an overlong
// one and a field out of range are refused with an error naming the message.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "protocol/messages.hpp"
#include "../../support/thrown.hpp"

namespace {

using namespace blacs_dyn::detail;

template <class F> std::string refusal(F&& f) { return test_support::thrown<malleable::wire::Error>(std::forward<F>(f)); }

// Every message of one kind: a changed version, each prefix, a byte more.
template <class Decode> void expect_refusals(const std::vector<char>& bytes, Decode decode, const std::string& name) {
  auto v = bytes;
  v[4] = static_cast<char>(v[4] + 1);
  const std::string why = refusal([&] { decode(v); });
  EXPECT_EQ(why.rfind(name + ": version 2, this process reads version 1", 0), 0u) << why;
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    const std::string w = refusal([&] { decode(cut); });
    EXPECT_EQ(w.rfind(name + ": ", 0), 0u) << "cut to " << n << " bytes: " << w;
  }
  auto more = bytes;
  more.push_back('x');
  EXPECT_NE(refusal([&] { decode(more); }).find("truncated or overlong"), std::string::npos);
}

}  // namespace

TEST(Messages, HelloRoundTripAndRefusals) {
  const Hello h{4242, 3};
  const auto bytes = encode(h);
  EXPECT_EQ(bytes.size(), hello_bytes());
  EXPECT_EQ(decode_hello(bytes), h);
  expect_refusals(bytes, decode_hello, "blacs-dyn check-in");
  // A go is no check-in.
  EXPECT_NE(refusal([&] { decode_hello(encode(cancelled_go(1))); }).find("blacs-dyn check-in: not one"),
            std::string::npos);
}

TEST(Messages, GoAndAbortRoundTripAndRefusals) {
  const Go go{true, 2, 3, 1, {0, 1, 2}, {7, 8, 9, 10, 11}};
  const auto bytes = encode(go);
  EXPECT_EQ(decode_go(bytes), go);
  const Go abort = cancelled_go(5);
  EXPECT_EQ(decode_go(encode(abort)), abort);
  EXPECT_FALSE(decode_go(encode(abort)).go);
  expect_refusals(bytes, decode_go, "blacs-dyn go");
  // A go whose group is not among its groups, or with a spawner missing.
  Go bad = go;
  bad.mine = 3;
  EXPECT_NE(refusal([&] { decode_go(encode(bad)); }).find("blacs-dyn go: group 3 of 3"), std::string::npos);
  bad = go;
  bad.spawner.pop_back();
  EXPECT_NE(refusal([&] { decode_go(encode(bad)); }).find("with 2 spawners"), std::string::npos);
}

TEST(Messages, ReleaseRoundTripAndRefusals) {
  for (Release r : {Release::Finalize, Release::Exit}) {
    const auto bytes = encode(r);
    EXPECT_EQ(bytes.size(), release_bytes());
    EXPECT_EQ(decode_release(bytes), r);
    expect_refusals(bytes, decode_release, "blacs-dyn release");
  }
  auto bytes = encode(Release::Exit);
  bytes[16] = 3;
  EXPECT_NE(refusal([&] { decode_release(bytes); }).find("blacs-dyn release: release 3 (valid: 1..2)"),
            std::string::npos);
}

TEST(Messages, SharedRequestRoundTripAndRefusals) {
  SharedRequest m;
  m.command = "./app";
  m.wdir = "/tmp/x";
  m.hosts = "n1,n2";
  m.args = {"--size", "", std::string("a\0b", 3)};
  m.groups = {{"n1", 2}, {"n2", 3}};
  m.info = {{"env", "A=1\nB=2"}, {"add-host", "n2"}};
  const auto bytes = encode(m);
  EXPECT_EQ(decode_request(bytes), m);
  EXPECT_EQ(decode_request(encode(SharedRequest{})), SharedRequest{});
  expect_refusals(bytes, decode_request, "blacs-dyn expansion request");
}

TEST(Messages, SchemaOutcomeRoundTripAndRefusals) {
  for (const SchemaOutcome s : {SchemaOutcome{true, 0}, SchemaOutcome{false, 6}}) {
    const auto bytes = encode(s);
    EXPECT_EQ(bytes.size(), schema_outcome_bytes());
    EXPECT_EQ(decode_schema_outcome(bytes), s);
    expect_refusals(bytes, decode_schema_outcome, "blacs-dyn schema outcome");
  }
  auto bytes = encode(SchemaOutcome{true, 0});
  bytes[16] = 5;  // the flag
  EXPECT_NE(refusal([&] { decode_schema_outcome(bytes); }).find("a flag of value 5"), std::string::npos);
}


// Each message's bytes pinned: a change of the wire format shows here (and needs a new
// version), not as processes of one build that misread each other.
TEST(Messages, GoldenBytes) {
  EXPECT_EQ(malleable::wire::hex(encode(Hello{4242, 3})),
            "4244484c010000000800000000000000"
            "9210000003000000");
  EXPECT_EQ(malleable::wire::hex(encode(Go{true, 2, 3, 1, {0, 1, 2}, {7, 8}})),
            "4244474f010000003100000000000000"
            "0102000000030000000100000003000000000000000000000001000000020000"
            "0002000000000000000700000008000000");
  EXPECT_EQ(malleable::wire::hex(encode(cancelled_go(5))),
            "4244474f010000001d00000000000000"
            "0005000000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(malleable::wire::hex(encode(Release::Exit)),
            "4244524c010000000400000000000000"
            "02000000");
  EXPECT_EQ(malleable::wire::hex(encode(SchemaOutcome{false, 6})),
            "42445343010000000500000000000000"
            "0006000000");
  SharedRequest m;
  m.command = "./a";
  m.wdir = "/t";
  m.hosts = "n1";
  m.args = {"-x", ""};
  m.groups = {{"n1", 2}};
  m.info = {{"k", "v"}};
  EXPECT_EQ(malleable::wire::hex(encode(m)),
            "42445251010000006900000000000000"
            "03000000000000002e2f6102000000000000002f7402000000000000006e3102"
            "0000000000000002000000000000002d78000000000000000001000000000000"
            "0002000000000000006e3102000000010000000000000001000000000000006b"
            "010000000000000076");
  EXPECT_EQ(decode_request(encode(m)), m);
}
