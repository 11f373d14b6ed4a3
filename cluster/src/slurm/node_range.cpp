// SPDX-License-Identifier: BSD-3-Clause
// The node range a Slurm job asked for (malleable/cluster/node_range.hpp).
#include "malleable/cluster/node_range.hpp"

#include <cstddef>

#include "malleable_internal/bounded_text.hpp"

namespace cluster::slurm {

namespace {

using malleable::text::count_of;

constexpr std::size_t kMaxScript = 1u << 20;
constexpr int kMaxLines = 10000;
constexpr std::size_t kMaxLine = 64u << 10;
constexpr int kMaxCount = 999999;

// A value as a message shows it: at most 40 bytes, anything but printable ASCII as '?'.
std::string shown(const std::string& v) {
  std::string s = v.substr(0, 40);
  for (char& c : s)
    if (c < 0x20 || c > 0x7e) c = '?';
  return v.size() > 40 ? s + "..." : s;
}

// The words of a #SBATCH directive as sbatch splits them: blanks between words, single
// and double quotes (removed), a backslash escaping the next byte, an unquoted '#' ending it.
std::vector<std::string> directive_words(const std::string& rest) {
  std::vector<std::string> out;
  std::string w;
  bool in_word = false, escape = false;
  char quote = 0;
  for (const char c : rest) {
    if (escape) {
      w += c, escape = false;
    } else if (c == '\\') {
      escape = in_word = true;
    } else if (quote) {
      if (c == quote) quote = 0;
      else w += c;
    } else if (c == '"' || c == '\'') {
      quote = c, in_word = true;
    } else if (c == '#') {
      break;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) out.push_back(w);
      w.clear(), in_word = false;
    } else {
      w += c, in_word = true;
    }
  }
  if (in_word) out.push_back(w);
  return out;
}

// Whether a line is blank or a comment (its first non-blank byte is '#').
bool blank_or_comment(const std::string& line) {
  for (const char c : line) {
    if (c == '#') return true;
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

RangeRead found(const std::string& value) {
  RangeRead r;
  if (const auto n = parse_node_count(value)) {
    r.kind = RangeRead::Kind::Found;
    r.range = *n;
  } else {
    r.kind = RangeRead::Kind::Bad;
    r.why = "-N '" + shown(value) + "' is no node count (N or MIN-MAX, 1..999999)";
  }
  return r;
}

// "./a/b" -> "a/b"; "a//b", "a/./b" -> "a/b" (only what changes nothing but the spelling).
std::string tidy(std::string p) {
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  for (std::size_t at; (at = p.find("/./")) != std::string::npos;) p.erase(at, 2);
  for (std::size_t at; (at = p.find("//")) != std::string::npos;) p.erase(at, 1);
  return p;
}

}  // namespace

std::string range_text(const NodeRange& r) {
  return r.min == r.max ? std::to_string(r.min) : std::to_string(r.min) + "-" + std::to_string(r.max);
}

std::optional<NodeRange> parse_node_count(const std::string& value) {
  if (value.size() > 13) return std::nullopt;
  const std::size_t dash = value.find('-');
  const auto lo = count_of(value.substr(0, dash));
  const auto hi = dash == std::string::npos ? lo : count_of(value.substr(dash + 1));
  if (!lo || !hi || *lo > *hi || *hi > kMaxCount) return std::nullopt;
  return NodeRange{*lo, *hi};
}

RangeRead nodes_in_words(const std::vector<std::string>& words, const std::string& stop_at) {
  RangeRead out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if ((!stop_at.empty() && w == stop_at) || w == "--wrap" || w.rfind("--wrap=", 0) == 0) break;
    std::optional<std::string> value;
    if (w == "-N" || w == "--nodes") {
      if (i + 1 >= words.size()) return RangeRead{RangeRead::Kind::Bad, {}, w + " without its value"};
      value = words[++i];
    } else if (w.rfind("--nodes=", 0) == 0) {
      value = w.substr(8);
    } else if (w.size() > 2 && w.rfind("-N", 0) == 0) {
      value = w.substr(2);
    }
    if (!value) continue;
    out = found(*value);
    if (out.kind == RangeRead::Kind::Bad) return out;
  }
  return out;
}

RangeRead script_node_range(const std::string& script) {
  const std::string text = script.substr(0, kMaxScript);
  std::vector<std::string> words;
  std::size_t at = 0;
  for (int n = 0; n < kMaxLines && at < text.size(); ++n) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, std::min(end - at, kMaxLine));
    at = end + 1;
    if (line.rfind("#SBATCH", 0) == 0) {
      const std::vector<std::string> w = directive_words(line.substr(7));
      if (!w.empty() && (w[0] == "hetjob" || w[0] == "packjob")) break;  // the first component's range
      words.insert(words.end(), w.begin(), w.end());
    } else if (!blank_or_comment(line)) {
      break;
    }
  }
  return nodes_in_words(words);
}

RangeRead submit_line_node_range(const std::string& line, const std::string& command, const std::string& workdir,
                                 bool* command_found) {
  if (command_found) *command_found = false;
  std::string first = line.substr(0, std::min(line.find('\n'), kMaxLine));
  const auto fields = malleable::text::blank_fields(first);
  std::vector<std::string> words(fields.begin(), fields.end());
  if (words.empty()) return {};
  words.erase(words.begin());  // sbatch (or salloc, srun)
  std::string stop;
  for (const auto& w : words) {
    const std::string p = w.empty() || w[0] == '/' || workdir.empty() ? tidy(w) : tidy(workdir + "/" + w);
    if (!command.empty() && p == tidy(command)) {
      stop = w;
      if (command_found) *command_found = true;
      break;
    }
  }
  return nodes_in_words(words, stop);
}

JobRange job_node_range(const RangeRead& script, const RangeRead& submit_line) {
  using K = RangeRead::Kind;
  if (submit_line.kind == K::Bad) return {submit_line, "the sbatch command line"};
  if (script.kind == K::Bad) return {script, "the batch script"};
  if (submit_line.kind == K::Found) return {submit_line, "the sbatch command line"};
  return {script, "the batch script"};
}

}  // namespace cluster::slurm
