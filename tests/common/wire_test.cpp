// SPDX-License-Identifier: BSD-3-Clause
// The message codec every part uses (common/src/malleable_internal/wire.hpp): values,
// vectors, strings, flags and enums survive the round trip; the header's kind, version
// and size, every read past the end, a count the bytes cannot hold, a flag or an enum
// out of range and bytes left over are each a wire::Error naming the message.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "malleable_internal/wire.hpp"
#include "../support/thrown.hpp"

namespace {

using malleable::wire::Kind;
using malleable::wire::Reader;
using malleable::wire::Writer;

enum class Colour { Red = 1, Green, Blue };
constexpr Kind kTest{0x54534554u, 7, "test message"};

std::vector<char> sample() {
  Writer w(kTest);
  w.put(-5);
  w.put(std::int64_t{1} << 40);
  w.put(2.5);
  w.put_bool(true);
  w.put_enum(Colour::Blue);
  w.put_vector(std::vector<int>{1, 2, 3});
  w.put_vector(std::vector<double>{});
  w.put_string(std::string("x\0y", 3));
  return w.finish();
}

template <class F> std::string refusal(F&& f) { return test_support::thrown<malleable::wire::Error>(std::forward<F>(f)); }

}  // namespace

TEST(Wire, RoundTrip) {
  const auto bytes = sample();
  Reader r(bytes, kTest);
  EXPECT_EQ(r.get<int>(), -5);
  EXPECT_EQ(r.get<std::int64_t>(), std::int64_t{1} << 40);
  EXPECT_EQ(r.get<double>(), 2.5);
  EXPECT_TRUE(r.get_bool());
  EXPECT_EQ(r.get_enum(Colour::Red, Colour::Blue, "colour"), Colour::Blue);
  EXPECT_EQ(r.get_vector<int>(), (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(r.get_vector<double>().empty());
  EXPECT_EQ(r.get_string(), std::string("x\0y", 3));
  EXPECT_NO_THROW(r.done());
}

TEST(Wire, HeaderKindVersionAndSizeAreChecked) {
  const auto bytes = sample();
  EXPECT_NE(refusal([&] { Reader(bytes, Kind{0x1u, 7, "other"}); }).find("other: not one"), std::string::npos);
  EXPECT_NE(refusal([&] { Reader(bytes, Kind{kTest.magic, 8, "test message"}); })
                .find("test message: version 7, this process reads version 8 (the job's processes run different builds"),
            std::string::npos);
  EXPECT_NE(refusal([&] { Reader(std::vector<char>(bytes.begin(), bytes.begin() + 10), kTest); })
                .find("test message: 10 bytes, fewer than its 16-byte header"),
            std::string::npos);
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_NE(refusal([&] { Reader(longer, kTest); }).find("truncated or overlong"), std::string::npos);
}

TEST(Wire, ReadsPastTheEndAndLeftoversAreRefused) {
  Writer w(kTest);
  w.put(1);
  const auto bytes = w.finish();
  Reader r(bytes, kTest);
  EXPECT_NE(refusal([&] { r.get<std::int64_t>(); }).find("test message: truncated: 8 more bytes needed at byte 16"),
            std::string::npos);
  Reader left(bytes, kTest);
  EXPECT_NE(refusal([&] { left.done(); }).find("test message: 4 bytes left over"), std::string::npos);
}

TEST(Wire, CountsFlagsAndEnumsOutOfRangeAreRefused) {
  Writer w(kTest);
  w.put(std::uint64_t{1} << 62);  // a count of 2^62 ints in a 24-byte message
  w.put(std::uint8_t{2});
  w.put(std::int32_t{9});
  const auto bytes = w.finish();
  Reader r(bytes, kTest);
  EXPECT_NE(refusal([&] { r.get_vector<int>(); }).find("test message: truncated: 4611686018427387904 items"),
            std::string::npos);
  Reader f(bytes, kTest);
  f.get<std::uint64_t>();
  EXPECT_NE(refusal([&] { f.get_bool(); }).find("a flag of value 2"), std::string::npos);
  // (the refused flag was read: the enum follows)
  EXPECT_NE(refusal([&] { f.get_enum(Colour::Red, Colour::Blue, "colour"); }).find("colour 9 (valid: 1..3)"),
            std::string::npos);
}

namespace {
// A message whose fields are named once, for both directions.
struct Sample {
  int a = 0;
  std::int64_t b = 0;
  double c = 0;
  bool flag = false;
  Colour colour = Colour::Red;
  std::vector<int> ints;
  std::vector<double> none;
  std::string text;
  std::vector<std::string> words;
  std::vector<std::pair<std::string, int>> pairs;
  std::vector<char> raw;
  bool wide = false;  // travels as an int
  bool operator==(const Sample&) const = default;
};
constexpr auto sample_fields = [](auto& v, auto& m) {
  v(m.a);
  v(m.b);
  v(m.c);
  v(m.flag);
  v.enumeration(m.colour, Colour::Red, Colour::Blue, "colour");
  v(m.ints);
  v(m.none);
  v(m.text);
  v(m.words);
  v.list(m.pairs, sizeof(std::uint64_t) + sizeof(int), [&](auto& p) {
    v(p.first);
    v(p.second);
  });
  v(m.raw);
  v.template as<int>(m.wide);
  v.require(m.a <= 100, [&] { return "a of " + std::to_string(m.a); });
};
Sample full() {
  Sample s;
  s.a = -5;
  s.b = std::int64_t{1} << 40;
  s.c = 2.5;
  s.flag = true;
  s.colour = Colour::Blue;
  s.ints = {1, 2, 3};
  s.text = std::string("x\0y", 3);
  s.words = {"one", ""};
  s.pairs = {{"h", 4}};
  s.raw = {'r', '\0'};
  s.wide = true;
  return s;
}
}  // namespace

// fields(v, m) written by an Encoder gives the bytes of the same Writer calls made by
// hand, and a Decoder reads them back field for field.
TEST(WireFields, EncoderWritesWhatTheWriterWouldAndTheDecoderReadsItBack) {
  const Sample s = full();
  const auto bytes = malleable::wire::encode(kTest, s, sample_fields);
  Writer w(kTest);
  w.put(s.a);
  w.put(s.b);
  w.put(s.c);
  w.put_bool(s.flag);
  w.put_enum(s.colour);
  w.put_vector(s.ints);
  w.put_vector(s.none);
  w.put_string(s.text);
  w.put_count(s.words.size());
  for (const auto& x : s.words) w.put_string(x);
  w.put_count(s.pairs.size());
  for (const auto& [h, n] : s.pairs) {
    w.put_string(h);
    w.put(n);
  }
  w.put_bytes(s.raw);
  w.put(1);
  EXPECT_EQ(bytes, w.finish());
  EXPECT_EQ(malleable::wire::decode<Sample>(bytes, kTest, sample_fields), s);
}

// The Decoder keeps the Reader's checks: an enum out of range, a require() that fails,
// a check after the last field, a truncated message.
TEST(WireFields, TheDecoderRefusesWhatTheReaderRefuses) {
  Sample s = full();
  auto bytes = malleable::wire::encode(kTest, s, sample_fields);
  const auto decode = [&](const std::vector<char>& b) { return malleable::wire::decode<Sample>(b, kTest, sample_fields); };
  auto bad = bytes;
  bad[16 + 4 + 8 + 8 + 1] = 9;  // the colour
  EXPECT_EQ(refusal([&] { decode(bad); }), "test message: colour 9 (valid: 1..3)");
  s.a = 101;
  EXPECT_EQ(refusal([&] { decode(malleable::wire::encode(kTest, s, sample_fields)); }), "test message: a of 101");
  EXPECT_EQ(refusal([&] {
              malleable::wire::decode<Sample>(bytes, kTest, sample_fields, [](const Sample& m, const Reader& r) {
                if (m.words.size() != 3) r.fail("want three words");
              });
            }),
            "test message: want three words");
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_EQ(refusal([&] { decode(std::vector<char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n))); })
                  .rfind("test message: ", 0),
              0u)
        << n;
}

TEST(WireFields, HexIsTwoDigitsAByte) {
  EXPECT_EQ(malleable::wire::hex(std::vector<char>{'\0', '\x1f', static_cast<char>(0xab)}), "001fab");
}
