// SPDX-License-Identifier: BSD-3-Clause
#include "sacct.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

namespace clustersim {

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    const std::size_t e = s.find('|', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

bool all_digits(const std::string& s, std::size_t from = 0, std::size_t to = std::string::npos) {
  to = std::min(to, s.size());
  if (from >= to) return false;
  for (std::size_t k = from; k < to; ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  return true;
}

// A short token for a message: at most 40 characters, control bytes as '?'.
std::string shown(const std::string& s) {
  std::string t = s.substr(0, 40);
  for (char& ch : t)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return "'" + t + (s.size() > 40 ? "...'" : "'");
}

// Unsigned decimal of at most `digits` digits.
std::optional<double> whole(const std::string& s, std::size_t digits) {
  if (!all_digits(s) || s.size() > digits) return std::nullopt;
  double v = 0;
  for (char ch : s) v = v * 10 + (ch - '0');
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil).
long days_from_civil(long y, long m, long d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

struct Reader {
  SacctLog log;
  int line = 0;
  std::map<std::string, long> users, partitions;
  std::map<std::string, int> seen;  // job id -> line
  std::vector<double> submits;      // absolute, per record

  [[noreturn]] void bad(const std::string& what) const {
    throw Error("sacct line " + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void bad(const std::string& field, const std::string& value, const std::string& what) const {
    bad(field + " " + shown(value) + " " + what);
  }

  // A date: YYYY-MM-DDTHH:MM:SS or epoch seconds; nullopt for Unknown, None or empty.
  std::optional<double> date(const std::string& field, const std::string& v) const {
    if (v.empty() || v == "Unknown" || v == "None") return std::nullopt;
    if (all_digits(v)) {
      const auto s = whole(v, 10);
      if (!s || *s > 7258118400.0) bad(field, v, "is past the year 2200");  // 2200-01-01
      return s;
    }
    const bool shape = v.size() == 19 && v[4] == '-' && v[7] == '-' && v[10] == 'T' && v[13] == ':' && v[16] == ':' &&
                       all_digits(v, 0, 4) && all_digits(v, 5, 7) && all_digits(v, 8, 10) && all_digits(v, 11, 13) &&
                       all_digits(v, 14, 16) && all_digits(v, 17, 19);
    if (!shape) bad(field, v, "is not a date (YYYY-MM-DDTHH:MM:SS, epoch seconds, Unknown or None)");
    const long y = std::stol(v.substr(0, 4)), mo = std::stol(v.substr(5, 2)), d = std::stol(v.substr(8, 2));
    const long h = std::stol(v.substr(11, 2)), mi = std::stol(v.substr(14, 2)), s = std::stol(v.substr(17, 2));
    static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1970 || y > 2200) bad(field, v, "is outside the years 1970-2200");
    if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || s > 59)
      bad(field, v, "is not a calendar date and time");
    return static_cast<double>(days_from_civil(y, mo, d)) * 86400 + static_cast<double>(h * 3600 + mi * 60 + s);
  }

  // A duration: [D-]HH:MM:SS, MM:SS (each with an optional fraction of a second); nullopt
  // for empty, UNLIMITED, Partition_Limit and INVALID (where `limit`).
  std::optional<double> duration(const std::string& field, const std::string& v, bool limit) const {
    if (v.empty()) return std::nullopt;
    if (limit && (v == "UNLIMITED" || v == "Partition_Limit" || v == "INVALID")) return std::nullopt;
    const std::string why = "is not a duration ([D-]HH:MM:SS or MM:SS)";
    std::string rest = v;
    double days = 0;
    const auto dash = rest.find('-');
    if (dash != std::string::npos) {
      const auto d = whole(rest.substr(0, dash), 7);
      if (!d) bad(field, v, why);
      days = *d;
      rest = rest.substr(dash + 1);
    }
    double frac = 0;
    if (const auto dot = rest.find('.'); dot != std::string::npos) {
      const std::string f = rest.substr(dot + 1);
      if (!all_digits(f) || f.size() > 9) bad(field, v, why);
      frac = std::stod("0." + f);
      rest = rest.substr(0, dot);
    }
    std::vector<std::string> parts;
    std::istringstream in(rest);
    for (std::string p; std::getline(in, p, ':');) parts.push_back(p);
    if (!rest.empty() && rest.back() == ':') bad(field, v, why);
    if (parts.size() < 2 || parts.size() > 3 || (dash != std::string::npos && parts.size() != 3)) bad(field, v, why);
    std::vector<double> n;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const auto x = whole(parts[k], k == 0 ? 6 : 2);
      if (!x) bad(field, v, why);
      n.push_back(*x);
    }
    const double h = parts.size() == 3 ? n[0] : 0, m = n[n.size() - 2], s = n.back();
    if (m > 59 || s > 59 || (dash != std::string::npos && h > 23)) bad(field, v, why);
    return days * 86400 + h * 3600 + m * 60 + s + frac;
  }

  // A count: a whole number in [0, 2^32) (Slurm's uint32); empty: unknown (-1).
  long count(const std::string& field, const std::string& v) const {
    if (v.empty()) return -1;
    const auto x = whole(v, 10);
    if (!x || *x > 4294967295.0) bad(field, v, "is not a count (a whole number below 2^32)");
    return static_cast<long>(*x);
  }

  long numbered(std::map<std::string, long>& names, const std::string& v) {
    if (v.empty()) return -1;
    return names.emplace(v, static_cast<long>(names.size()) + 1).first->second;
  }
};

// The SWF status of an ended job's state (-2: not ended, -3: unknown).
int status_of(const std::string& state) {
  std::string word = state.substr(0, state.find(' '));
  if (!word.empty() && word.back() == '+') word.pop_back();  // sacct's mark of a cut field
  const std::string rest = state.size() > word.size() ? state.substr(state.find(' ') + 1) : "";
  if (word == "CANCELLED") {
    if (rest.empty()) return 5;
    if (rest.rfind("by ", 0) == 0 && all_digits(rest.substr(3))) return 5;
    return -3;
  }
  if (!rest.empty()) return -3;
  if (word == "COMPLETED") return 1;
  for (const char* s : {"FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED"})
    if (word == s) return 0;
  for (const char* s : {"PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING", "REVOKED"})
    if (word == s) return -2;
  return -3;
}

// An id: N, N_M, N_[...], N+K, each with an optional .step; the job number N.
struct Id {
  bool ok = false, step = false;
  long job = 0;
};
Id parse_id(const std::string& v) {
  Id id;
  std::size_t k = 0;
  while (k < v.size() && std::isdigit(static_cast<unsigned char>(v[k]))) ++k;
  if (k == 0 || k > 10) return id;
  id.job = std::stol(v.substr(0, k));
  std::string rest = v.substr(k);
  if (const auto dot = rest.find('.'); dot != std::string::npos) {
    const std::string step = rest.substr(dot + 1);
    if (step.empty() || step.size() > 32) return id;
    for (char ch : step)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '+') return id;
    id.step = true;
    rest = rest.substr(0, dot);
  }
  if (rest.empty()) {
    id.ok = true;
  } else if ((rest[0] == '_' || rest[0] == '+') && rest.size() <= 11 && all_digits(rest, 1)) {
    id.ok = true;
  } else if (rest.size() >= 3 && rest.rfind("_[", 0) == 0 && rest.back() == ']' && rest.size() <= 256) {
    id.ok = rest.find_first_not_of("0123456789,-%", 2) == rest.size() - 1;
  }
  return id;
}

}  // namespace

bool looks_like_sacct(const std::string& text) {
  std::istringstream in(text);
  std::string first;
  while (std::getline(in, first)) {
    if (first.size() > kSacctMaxLine) return false;
    if (first.find_first_not_of(" \t\r") != std::string::npos) break;
  }
  if (first.find('|') == std::string::npos) return false;
  if (!first.empty() && first.back() == '\r') first.pop_back();
  for (const auto& f : split(first))
    if (lower(f) == "jobidraw" || lower(f) == "jobid") return true;
  return false;
}

SacctLog parse_sacct(const std::string& text) {
  Reader r;
  std::istringstream in(text);
  std::string raw;
  std::map<std::string, std::size_t> col;  // lower-case name -> column
  std::size_t width = 0;
  bool trailing_bar = false;
  while (std::getline(in, raw)) {
    ++r.line;
    if (raw.size() > kSacctMaxLine)
      r.bad(std::to_string(raw.size()) + " bytes, longer than " + std::to_string(kSacctMaxLine));
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.empty()) continue;
    if (width == 0) {  // the header
      if (raw.back() == '|') trailing_bar = true, raw.pop_back();  // --parsable: a '|' at the end
      const auto names = split(raw);
      if (names.size() > kSacctMaxFields)
        r.bad(std::to_string(names.size()) + " fields in the header, more than " + std::to_string(kSacctMaxFields));
      for (std::size_t k = 0; k < names.size(); ++k)
        if (!names[k].empty() && !col.emplace(lower(names[k]), k).second)
          r.bad("the header names field " + shown(names[k]) + " twice");
      const auto has = [&col](const char* a, const char* b = nullptr) {
        return col.count(a) > 0 || (b != nullptr && col.count(b) > 0);
      };
      std::string missing;
      if (!has("jobidraw", "jobid")) missing += " JobIDRaw";
      if (!has("submit")) missing += " Submit";
      if (!has("start")) missing += " Start";
      if (!has("state")) missing += " State";
      if (!has("elapsed", "elapsedraw") && !has("end")) missing += " Elapsed";
      if (!has("nnodes", "allocnodes") && !has("ncpus", "alloccpus")) missing += " NNodes";
      if (!missing.empty())
        r.bad("not a sacct --parsable2 header with the fields the simulator reads (missing" + missing +
              "; sacct --format=" + kSacctFormat + ")");
      width = names.size();
      continue;
    }
    if (trailing_bar && raw.back() == '|') raw.pop_back();
    ++r.log.counts.lines;
    const auto f = split(raw);
    if (f.size() != width)
      r.bad(std::to_string(f.size()) + " fields, the header has " + std::to_string(width) +
            (f.size() > width ? " (a '|' inside a field? leave JobName and other free text out of --format)" : ""));
    const auto get = [&](const char* a, const char* b = nullptr) -> const std::string* {
      if (auto it = col.find(a); it != col.end()) return &f[it->second];
      if (b != nullptr)
        if (auto it = col.find(b); it != col.end()) return &f[it->second];
      return nullptr;
    };
    const bool raw_id = col.count("jobidraw") > 0;
    const std::string& id_text = *get("jobidraw", "jobid");
    const Id id = parse_id(id_text);
    if (!id.ok) r.bad(raw_id ? "JobIDRaw" : "JobID", id_text, "is not a job id (123, 123_4, 123+0, 123.batch)");
    if (id.step) {
      ++r.log.counts.steps;
      continue;
    }
    const std::string& state = *get("state");
    const int status = status_of(state);
    if (status == -3)
      r.bad("State", state, "is not a Slurm 22.05 job state (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, "
                            "OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED; PENDING, RUNNING, SUSPENDED, REQUEUED, "
                            "RESIZING, REVOKED)");
    const auto submit = r.date("Submit", *get("submit"));
    if (!submit) r.bad("Submit", *get("submit"), "is unknown: every job has a submit time");
    const auto start = r.date("Start", *get("start"));
    std::optional<double> end;
    if (const std::string* e = get("end")) end = r.date("End", *e);
    std::optional<double> elapsed;
    if (const std::string* e = get("elapsed")) {
      elapsed = r.duration("Elapsed", *e, false);
    } else if (const std::string* e2 = get("elapsedraw")) {
      if (!e2->empty()) {
        const auto x = whole(*e2, 12);
        if (!x) r.bad("ElapsedRaw", *e2, "is not whole seconds");
        elapsed = x;
      }
    }
    std::optional<double> limit;
    if (const std::string* t = get("timelimit")) {
      limit = r.duration("Timelimit", *t, true);
    } else if (const std::string* t2 = get("timelimitraw")) {
      if (!(t2->empty() || *t2 == "UNLIMITED" || *t2 == "Partition_Limit" || *t2 == "INVALID")) {
        const auto x = whole(*t2, 10);
        if (!x) r.bad("TimelimitRaw", *t2, "is not whole minutes");
        limit = *x * 60;
      }
    }
    const long nodes = get("nnodes", "allocnodes") ? r.count("NNodes", *get("nnodes", "allocnodes")) : -1;
    const long cpus = get("ncpus", "alloccpus") ? r.count("NCPUS", *get("ncpus", "alloccpus")) : -1;
    const long req_nodes = get("reqnodes") ? r.count("ReqNodes", *get("reqnodes")) : -1;
    const long req_cpus = get("reqcpus") ? r.count("ReqCPUS", *get("reqcpus")) : -1;
    // Every field read: only now is a job that had not ended dropped (a malformed line is
    // refused whatever its state).
    if (status == -2) {
      ++r.log.counts.not_ended;
      continue;
    }
    if (auto [it, fresh] = r.seen.emplace(id_text, r.line); !fresh)
      r.bad("job " + shown(id_text) + " again (first on line " + std::to_string(it->second) +
            "): a log taken with --duplicates? the simulator reads each job once");
    SwfRecord rec;
    rec.line = r.line;
    rec.job = id.job;
    rec.id = "j" + id_text;
    rec.submit_s = *submit;
    if (start) {
      rec.wait_s = *start - *submit;
      if (rec.wait_s < 0) {
        ++r.log.counts.start_before_submit;
        rec.wait_s = -1;
      }
    }
    if (elapsed) rec.run_s = *elapsed;
    else if (start && end && *end >= *start) rec.run_s = *end - *start;
    rec.alloc_procs = cpus;
    rec.alloc_nodes = nodes;
    rec.req_procs = req_cpus;
    rec.req_nodes = req_nodes;
    rec.req_time_s = limit ? *limit : -1;
    rec.status = status;
    if (const std::string* u = get("user")) rec.user = r.numbered(r.users, *u);
    else if (const std::string* uid = get("uid")) rec.user = r.numbered(r.users, *uid);
    if (const std::string* p = get("partition")) rec.partition = r.numbered(r.partitions, *p);
    r.log.trace.records.push_back(rec);
  }
  if (width == 0) throw Error("sacct: no header line (the text is empty)");
  auto& recs = r.log.trace.records;
  double first = 0;
  for (std::size_t k = 0; k < recs.size(); ++k) first = k == 0 ? recs[k].submit_s : std::min(first, recs[k].submit_s);
  for (auto& rec : recs) rec.submit_s -= first;
  auto& h = r.log.trace.header;
  h.computer = "sacct";
  h.conversion = "sacct --parsable2 (malleable-clustersim)";
  h.unix_start = static_cast<long>(first);
  r.log.counts.jobs = recs.size();
  return r.log;
}

}  // namespace clustersim
