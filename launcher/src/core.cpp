// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's pure core (core.hpp).
#include "core.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "malleable_internal/job_dir_layout.hpp"

namespace launcher {

namespace {

constexpr std::size_t kMaxNext = 64 * 1024;
constexpr std::size_t kMaxHosts = 65536;

bool positive(const std::string& s, int most, int* out) {
  if (s.empty() || s.size() > 9 || s[0] == '0') return false;
  long v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > most) return false;
  *out = static_cast<int>(v);
  return true;
}

std::vector<std::string> lines_of(const std::string& text, std::size_t most) {
  std::vector<std::string> out;
  std::stringstream in(text.substr(0, most));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool is_rule(const std::string& line) {
  return line.size() >= 40 && std::all_of(line.begin(), line.end(), [](char c) { return c == '-'; });
}

}  // namespace

std::pair<int, int> squarest(int n) {
  int g = 1;
  for (int p = 1; static_cast<long>(p) * p <= n; ++p)
    if (n % p == 0) g = p;
  return {g, n / g};
}

std::string grid_text(int p, int q) { return std::to_string(p) + "x" + std::to_string(q); }

std::optional<NextFile> parse_next(const std::string& text, std::string* why) {
  const auto lines = lines_of(text, kMaxNext);
  if (text.size() > kMaxNext) return *why = "longer than 64 KiB", std::nullopt;
  if (lines.empty()) return *why = "empty", std::nullopt;
  NextFile n;
  const auto w = words_of(lines[0]);
  if (w.size() != 3 || !positive(w[0], 999999, &n.p) || !positive(w[1], 999999, &n.q) ||
      static_cast<long>(n.p) * n.q > 999999)
    return *why = "its first line is not \"NPROW NPCOL FILE\"", std::nullopt;
  n.file = w[2] == "levels" ? std::string() : w[2];
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const std::string& l = lines[k];
    if (starts(l, "hosts ")) {
      n.hosts = l.substr(6);
      if (!host_list(n.hosts)) return *why = "its hosts line names no list of host names", std::nullopt;
    } else if (l == "new-allocation") {
      n.new_allocation = true;
    } else if (l == "spawn-fallback") {
      n.spawn_fallback = true;
    }
  }
  return n;
}

bool has_spawn_fallback(const std::string& text) {
  for (const auto& l : lines_of(text, kMaxNext))
    if (l == "spawn-fallback") return true;
  return false;
}

std::string next_from(const std::string& text) {
  const auto w = words_of(first_line(text));
  return w.size() >= 3 ? w[2] : std::string();
}

std::string BannerFilter::line_(const std::string& line) {
  if (is_rule(line)) {
    if (!in_block_) {
      block_ = line + "\n";
      in_block_ = true;
      return {};
    }
    block_ += line + "\n";
    in_block_ = false;
    std::string out;
    if (block_.find("terminated normally, but") == std::string::npos &&
        block_.find("exited with non-zero status") == std::string::npos)
      out = block_;
    block_.clear();
    return out;
  }
  if (in_block_) {
    block_ += line + "\n";
    // a block that never closes is shown once it is too long to be the banner
    if (block_.size() > (64u << 10)) {
      in_block_ = false;
      return std::exchange(block_, {});
    }
    return {};
  }
  return line + "\n";
}

std::string BannerFilter::feed(const std::string& chunk) {
  std::string out;
  partial_ += chunk;
  std::size_t from = 0;
  for (std::size_t nl; (nl = partial_.find('\n', from)) != std::string::npos; from = nl + 1)
    out += line_(partial_.substr(from, nl - from));
  partial_.erase(0, from);
  if (partial_.size() > (64u << 10) && !in_block_) out += std::exchange(partial_, {});
  return out;
}

std::string BannerFilter::finish() {
  std::string out;
  if (!partial_.empty()) out = line_(std::exchange(partial_, {}));
  if (in_block_) out += std::exchange(block_, {});
  in_block_ = false;
  return out;
}

std::string lost_line(const std::string& log, const std::string& host) {
  if (host.empty()) return {};
  const std::string on = "on node " + host;
  std::size_t from = 0;
  while (from < log.size()) {
    std::size_t nl = log.find('\n', from);
    if (nl == std::string::npos) nl = log.size();
    const std::string l = log.substr(from, nl - from);
    from = nl + 1;
    bool hit = false;
    for (std::size_t at = l.find(on); at != std::string::npos && !hit; at = l.find(on, at + 1)) {
      const std::string rest = l.substr(at + on.size());
      const bool boundary = rest.empty() || !(std::isalnum(static_cast<unsigned char>(rest[0])) || rest[0] == '_');
      if (starts(rest, " exited on signal")) hit = true;
      else if (starts(rest, " ") && (rest.find("killed") != std::string::npos || rest.find("terminated") != std::string::npos)) hit = true;
      else if (boundary && l.substr(0, at).find("Remote daemon: ") != std::string::npos) hit = true;
    }
    if (!hit) continue;
    std::string squeezed;
    for (const char c : l)
      if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
    if (!squeezed.empty() && squeezed[0] == ' ') squeezed.erase(0, 1);
    return squeezed;
  }
  return {};
}

bool lost_state(const std::string& s) { return starts(s, "down") || starts(s, "drain") || starts(s, "fail"); }

std::string shell_quote(const std::string& word) { return malleable::job_dir::shell_word(word); }

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : first_line(s, 65536)) {
    if (c == ' ' || c == '\t') {
      if (!cur.empty()) out.push_back(std::exchange(cur, {}));
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

namespace {
bool word_chars(const std::string& s, std::size_t from, bool lower_ok, bool upper_ok, bool digit_ok) {
  if (from > s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(), [&](unsigned char c) {
    return c == '_' || (lower_ok && std::islower(c)) || (upper_ok && std::isupper(c)) || (digit_ok && std::isdigit(c));
  });
}
}  // namespace

bool saved_variable(const std::string& n) {
  for (const char* exact : {"PATH", "LD_LIBRARY_PATH", "MALLEABLE_MPIEXEC", "MALLEABLE_RSH", "OPENBLAS_NUM_THREADS",
                            "OMP_NUM_THREADS", "SLURM_CONF", "BLACS_DYN_JOIN_TIMEOUT"})
    if (n == exact) return true;
  if (starts(n, "OMPI_MCA_")) return n.size() > 9 && word_chars(n, 9, true, true, true);
  if (starts(n, "OMPI_ALLOW_RUN_AS_ROOT")) return word_chars(n, 22, false, true, false);
  if (starts(n, "RESIZE_")) return n.size() > 7 && word_chars(n, 7, false, true, true);
  return false;
}

namespace {
// Bytes of a file shown in a message: printable ASCII as it is, any other byte (and a backslash) as \xNN.
std::string printable(const std::string& s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') out += c;
    else out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
  }
  return out;
}
}  // namespace

std::optional<std::vector<std::pair<std::string, std::string>>> parse_environment(const std::string& text,
                                                                                  std::string* why) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  auto no = [&](const std::string& w) -> std::optional<std::vector<std::pair<std::string, std::string>>> {
    if (why) *why = w;
    return std::nullopt;
  };
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t z = text.find('\0', from);
    if (z == std::string::npos) return no("its last entry is not ended by a NUL (a file cut short, or not the launcher's)");
    const std::string word = text.substr(from, z - from);
    from = z + 1;
    const std::size_t eq = word.find('=');
    const std::string name = word.substr(0, std::min(eq, word.size()));
    const std::string shown = printable(name.substr(0, 64));
    if (eq == std::string::npos || eq == 0) return no("entry " + std::to_string(out.size() + 1) + " is no NAME=VALUE");
    if (!saved_variable(name)) return no("it sets " + shown + ", which malleable-run never saves for a job");
    if (!seen.insert(name).second) return no("it sets " + shown + " twice");
    if (out.size() >= 4096) return no("it holds more than 4096 variables");
    out.emplace_back(name, word.substr(eq + 1));
  }
  return out;
}

bool forwarded_variable(const std::string& n) {
  for (const char* exact : {"MALLEABLE_MPIEXEC", "OPENBLAS_NUM_THREADS", "PATH", "LD_LIBRARY_PATH"})
    if (n == exact) return true;
  if (starts(n, "BLACS_DYN_")) return word_chars(n, 10, false, true, false);
  if (starts(n, "OMPI_MCA_")) return word_chars(n, 9, true, false, false);
  if (starts(n, "OMPI_ALLOW_")) return word_chars(n, 11, false, true, false);
  if (starts(n, "RESIZE_")) return word_chars(n, 7, false, true, false);
  return false;
}

bool runtime_variable(const std::string& n) {
  for (const char* p : {"OMPI_", "PMIX_", "ORTE_", "OPAL_", "PRTE_"})
    if (starts(n, p)) return true;
  return false;
}

std::optional<std::vector<std::string>> host_list(const std::string& csv) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= csv.size()) {
    std::size_t comma = csv.find(',', from);
    if (comma == std::string::npos) comma = csv.size();
    std::string h = csv.substr(from, comma - from);
    from = comma + 1;
    if (h.empty()) continue;
    if (!malleable::job_dir::valid_host(h) || out.size() >= kMaxHosts) return std::nullopt;
    out.push_back(std::move(h));
  }
  return out;
}

std::string joined(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += sep;
    out += w;
  }
  return out;
}

std::string host_arg(const std::vector<std::string>& hosts, int ppn) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h + ":" + std::to_string(ppn));
  return joined(out, ",");
}

std::vector<std::pair<std::string, std::string>> placement_env(const std::vector<std::string>& hosts, int ppn, int np,
                                                              bool slurm, const std::string& cpus) {
  std::vector<std::pair<std::string, std::string>> env;
  if (hosts.empty()) return env;
  const std::string list = joined(hosts, ","), n = std::to_string(hosts.size());
  env.emplace_back("MALLEABLE_RUN_HOSTS", list);
  if (!slurm) return env;
  for (const char* v : {"SLURM_JOB_NODELIST", "SLURM_NODELIST"}) env.emplace_back(v, list);
  for (const char* v : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"}) env.emplace_back(v, n);
  const bool one = hosts.size() == 1;
  env.emplace_back("SLURM_TASKS_PER_NODE", one ? std::to_string(ppn) : std::to_string(ppn) + "(x" + n + ")");
  env.emplace_back("SLURM_NTASKS", std::to_string(np));
  env.emplace_back("SLURM_NPROCS", std::to_string(np));
  if (!cpus.empty()) env.emplace_back("SLURM_JOB_CPUS_PER_NODE", one ? cpus : cpus + "(x" + n + ")");
  return env;
}

std::string first_count(const std::string& v) { return v.substr(0, v.find_first_of("(,")); }

CheckpointArgs checkpoint_args(const std::vector<std::string>& args) {
  CheckpointArgs c;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (a == "--checkpoint") c.dir = k + 1 < args.size() ? args[k + 1] : std::string();
    if (starts(a, "--checkpoint=")) c.dir = a.substr(13);
    if (a == "--checkpoint-local" || a == "--checkpoint-partner" || starts(a, "--checkpoint-local=") ||
        starts(a, "--checkpoint-partner="))
      c.levels = true;
  }
  return c;
}

std::vector<std::string> drop_grid_args(const std::vector<std::string>& args) {
  std::vector<std::string> kept;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (a == "-g" || a == "--grid" || a == "--restart") ++k;
    else if (!(starts(a, "--grid=") || starts(a, "--restart=") || a == "--restart-levels")) kept.push_back(a);
  }
  return kept;
}

std::string newest_checkpoint(const std::vector<std::string>& names) {
  std::string best_key, best;
  for (const auto& n : names) {
    const std::size_t dash = n.rfind('-');
    if (dash == std::string::npos || n.size() != dash + 10 || n.compare(dash + 7, 3, ".h5") != 0) continue;
    if (!std::all_of(n.begin() + static_cast<std::ptrdiff_t>(dash) + 1, n.begin() + static_cast<std::ptrdiff_t>(dash) + 7,
                     [](unsigned char c) { return std::isdigit(c); }))
      continue;
    const std::string key = n.substr(dash + 1) + "\t" + n;  // the iteration, then the name
    if (best.empty() || key > best_key) best_key = key, best = n;
  }
  return best;
}

bool Order::valid() const {
  int v = 0;
  return positive(procs, 999999, &v) && (host.empty() || malleable::job_dir::valid_host(host));
}

Order parse_order(const std::string& text) {
  Order o;
  for (const auto& l : lines_of(text, 4096)) {
    std::stringstream in(l);
    std::string k, v;
    in >> k;
    std::getline(in >> std::ws, v);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();
    if (k == malleable::job_dir::kOrderHost) o.host = v;
    if (k == malleable::job_dir::kOrderProcs) o.procs = v;
  }
  return o;
}

std::optional<Resume> parse_resume(const std::string& s) {
  const auto w = words_of(first_line(s));
  Resume r;
  if (w.size() != 3 || !positive(w[0], 999999, &r.p) || !positive(w[1], 999999, &r.q) || static_cast<long>(r.p) * r.q > 999999)
    return std::nullopt;
  r.file = w[2];
  return r;
}

JobState while_job_state(const std::string& line, std::string* shown) {
  for (const char* s : {"RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING"})
    if (line == s) return JobState::Runs;
  const bool upper = !line.empty() && std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isupper(c) || c == '_'; });
  const bool invalid = line.find("nvalid job id") != std::string::npos;
  if (!(line.empty() || invalid || upper)) return JobState::Unknown;
  std::string s;
  for (const char c : line.substr(0, 200))
    if (std::isalpha(static_cast<unsigned char>(c)) || c == ' ' || c == '_') s += c;
  *shown = s.empty() ? "gone" : s;
  return JobState::Gone;
}

std::string first_line(const std::string& text, std::size_t most) {
  return text.substr(0, std::min(text.find('\n'), most));
}

std::string trimmed(const std::string& text) {
  const auto b = text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return text.substr(b, text.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace launcher
