// SPDX-License-Identifier: BSD-3-Clause
// The schema file parser (pure): blacs_setup's input, docs/reference/blacs-dyn.md "The schema file".
#include <gtest/gtest.h>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/schema.hpp"

using blacs_dyn::Error;
using blacs_dyn::parse_schema;

namespace {
int code_of(const char* text) {
  try {
    parse_schema(text, "t.dat");
  } catch (const Error& e) {
    return e.code();
  }
  return BLACS_DYN_OK;
}
std::string message_of(const char* text) {
  try {
    parse_schema(text, "t.dat");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(blacsDynSchema, ReadsAllKeysWithCommentsAndQuotes) {
  const auto s = parse_schema(
      "# expansion\n"
      "executable = ./solver   # the program\n"
      "args = --n 100 \"two words\" 'a#b'\n"
      "add = 5\n"
      "hosts = node1, node2\n"
      "wdir = /tmp/run\n",
      "t.dat");
  EXPECT_EQ(s.executable, "./solver");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_EQ(s.args[2], "two words");
  EXPECT_EQ(s.args[3], "a#b");
  EXPECT_EQ(s.add, 5);
  ASSERT_EQ(s.hosts.size(), 2u);
  EXPECT_EQ(s.hosts[1], "node2");
  EXPECT_EQ(s.wdir, "/tmp/run");
}

TEST(blacsDynSchema, MinimalSchemaNeedsOnlyExecutableAndAdd) {
  const auto s = parse_schema("executable=a.out\nadd=1", "t.dat");
  EXPECT_EQ(s.executable, "a.out");
  EXPECT_TRUE(s.args.empty());
  EXPECT_TRUE(s.hosts.empty());
  EXPECT_EQ(s.add, 1);
}

TEST(blacsDynSchema, MissingRequiredKeysAreErrors) {
  EXPECT_EQ(code_of("add = 2\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_NE(message_of("add = 2\n").find("executable"), std::string::npos);
  EXPECT_EQ(code_of("executable = x\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_EQ(code_of(""), BLACS_DYN_ERR_SCHEMA);
}

TEST(blacsDynSchema, BadValuesNameTheLineAndValue) {
  const auto m = message_of("executable = x\nadd = zero\n");
  EXPECT_NE(m.find("t.dat:2"), std::string::npos) << m;
  EXPECT_NE(m.find("zero"), std::string::npos) << m;
  EXPECT_EQ(code_of("executable = x\nadd = 0\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_EQ(code_of("executable = x\nadd = -3\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_EQ(code_of("executable = x\nadd = 3x\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_EQ(code_of("executable = a b\nadd = 1\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_EQ(code_of("executable = x\nadd = 1\nhosts = a,,b\n"), BLACS_DYN_ERR_SCHEMA);
  EXPECT_EQ(code_of("executable = x\nadd = 1\nhosts = a,\n"), BLACS_DYN_ERR_SCHEMA);
}

TEST(blacsDynSchema, UnknownDuplicateAndKeylessLinesAreErrors) {
  EXPECT_NE(message_of("executable = x\nadd = 1\ncolour = red\n").find("unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(message_of("executable = x\nadd = 1\nadd = 2\n").find("twice"), std::string::npos);
  EXPECT_NE(message_of("executable x\n").find("t.dat:1"), std::string::npos);
}

TEST(blacsDynSchema, UnterminatedQuoteIsAnError) {
  const auto m = message_of("executable = x\nadd = 1\nargs = \"open\n");
  EXPECT_NE(m.find("t.dat:3"), std::string::npos) << m;
  EXPECT_NE(m.find("unterminated"), std::string::npos) << m;
}

TEST(blacsDynSplitArgs, SplitsLikeAShellWithoutExpansion) {
  const auto w = blacs_dyn::split_args(R"(a  "b c" 'd "e"' f\ g "h\"i" $HOME)");
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0], "a");
  EXPECT_EQ(w[1], "b c");
  EXPECT_EQ(w[2], "d \"e\"");
  EXPECT_EQ(w[3], "f g");
  EXPECT_EQ(w[4], "h\"i");
  EXPECT_EQ(w[5], "$HOME");
  EXPECT_EQ(blacs_dyn::split_args("  ").size(), 0u);
  EXPECT_EQ(blacs_dyn::split_args("''").size(), 1u);
}

TEST(blacsDynSchemaPath, ExplicitThenEnvironmentThenDefault) {
  EXPECT_EQ(blacs_dyn::schema_path("x.dat", "y.dat"), "x.dat");
  EXPECT_EQ(blacs_dyn::schema_path(nullptr, "y.dat"), "y.dat");
  EXPECT_EQ(blacs_dyn::schema_path("", ""), "blacs_setup.dat");
  EXPECT_EQ(blacs_dyn::schema_path(nullptr, nullptr), "blacs_setup.dat");
}
