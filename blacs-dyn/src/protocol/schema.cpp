// SPDX-License-Identifier: BSD-3-Clause
// Schema file parsing (pure). Format: docs/reference/blacs-dyn.md, "The schema file".
#include "protocol/schema.hpp"

#include <charconv>
#include <set>

#include "malleable/blacs_dyn/error.hpp"

namespace blacs_dyn {
namespace {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// A '#' starts a comment unless it sits inside quotes.
std::string_view strip_comment(std::string_view line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\' && quote == '"' && i + 1 < line.size()) ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < line.size()) {
      ++i;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

[[noreturn]] void fail(std::string_view source, int line, const std::string& what) {
  throw Error(BLACS_DYN_ERR_SCHEMA,
              std::string(source) + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

std::vector<std::string> split_args(std::string_view text) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else cur += c;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && i + 1 < text.size() &&
               (text[i + 1] == '"' || text[i + 1] == '\\')) cur += text[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\') {
      if (i + 1 < text.size()) cur += text[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) throw Error(BLACS_DYN_ERR_SCHEMA, std::string("unterminated ") + quote + " quote in '" +
                                              std::string(text) + "'");
  if (in_word) words.push_back(std::move(cur));
  return words;
}

namespace {

// The words of a value (split_args), an error said at its line.
std::vector<std::string> words_at(std::string_view value, std::string_view source, int lineno) {
  try {
    return split_args(value);
  } catch (const Error& e) {
    fail(source, lineno, e.what());
  }
}

// `key = one path` (executable, wdir): the value's one word.
std::string one_path(const std::string& key, std::string_view value, std::string_view source, int lineno) {
  const auto w = words_at(value, source, lineno);
  if (w.size() != 1)
    fail(source, lineno, key + " must be one path, got '" + std::string(value) + "'");
  return w[0];
}

// `hosts = a, b, ...`: every name non-empty.
void parse_hosts(Schema& s, std::string_view value, std::string_view source, int lineno) {
  std::string_view rest = value;
  while (!rest.empty()) {
    const auto c = rest.find(',');
    const auto h = trim(rest.substr(0, c));
    if (h.empty()) fail(source, lineno, "empty host name in '" + std::string(value) + "'");
    s.hosts.emplace_back(h);
    if (c == std::string_view::npos) break;
    rest = rest.substr(c + 1);
    if (trim(rest).empty())
      fail(source, lineno, "empty host name in '" + std::string(value) + "'");
  }
}

// One `key = value` line into the schema.
void set_key(Schema& s, const std::string& key, std::string_view value, std::string_view source, int lineno) {
  if (key == "executable") {
    s.executable = one_path(key, value, source, lineno);
  } else if (key == "args") {
    s.args = words_at(value, source, lineno);
  } else if (key == "add") {
    int n = 0;
    const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || p != value.data() + value.size() || n < 1)
      fail(source, lineno, "add must be a positive integer, got '" + std::string(value) + "'");
    s.add = n;
  } else if (key == "hosts") {
    parse_hosts(s, value, source, lineno);
  } else if (key == "wdir") {
    s.wdir = one_path(key, value, source, lineno);
  } else {
    fail(source, lineno,
         "unknown key '" + key + "' (expected executable, args, add, hosts, wdir)");
  }
}

}  // namespace

Schema parse_schema(std::string_view text, std::string_view source) {
  Schema s;
  std::set<std::string> seen;
  int lineno = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    const std::string_view line = trim(strip_comment(raw));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos)
      fail(source, lineno, "expected 'key = value', got '" + std::string(line) + "'");
    const std::string key(trim(line.substr(0, eq)));
    const std::string_view value = trim(line.substr(eq + 1));
    if (!seen.insert(key).second) fail(source, lineno, "key '" + key + "' given twice");
    set_key(s, key, value, source, lineno);
  }
  if (s.executable.empty()) fail(source, lineno, "missing required key 'executable'");
  if (s.add == 0) fail(source, lineno, "missing required key 'add'");
  return s;
}

std::string schema_path(const char* explicit_path, const char* env_value) {
  if (explicit_path && *explicit_path) return explicit_path;
  if (env_value && *env_value) return env_value;
  return "blacs_setup.dat";
}

}  // namespace blacs_dyn
