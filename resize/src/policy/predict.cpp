// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/resize/predict.hpp"
#include "common/config.hpp"
#include "policy/history_location.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace resize {

namespace {

// Median of a non-empty list (the mean of the two middle values for an even count).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double median(const std::deque<double>& d) { return median(std::vector<double>(d.begin(), d.end())); }

std::string num(double v) {
  char b[64];
  // Two decimals as in the progress lines; small non-zero values keep two digits.
  std::snprintf(b, sizeof b, (v == 0 || std::fabs(v) >= 0.01) ? "%.2f" : "%.2g", v);
  return b;
}

std::string dump(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

constexpr const char* kFormat = "malleable.resize_history";
constexpr int kVersion = 1;

}  // namespace

// ---------------------------------------------------------------------------------------
// SpeedEstimator

SpeedEstimator::SpeedEstimator(Options o) : opt_(o) {
  if (o.window < 1) throw Error("SpeedEstimator: window = " + std::to_string(o.window) + " must be >= 1");
  if (o.confirm < 1) throw Error("SpeedEstimator: confirm = " + std::to_string(o.confirm) + " must be >= 1");
  if (!std::isfinite(o.jump) || !(o.jump > 0))
    throw Error("SpeedEstimator: jump = " + dump(o.jump) + " must be finite and > 0");
}

void SpeedEstimator::add(int rank, double work, double seconds) {
  if (rank < 0) throw Error("SpeedEstimator::add: rank = " + std::to_string(rank) + " must be >= 0");
  if (!std::isfinite(work) || !std::isfinite(seconds) || !(work > 0) || !(seconds > 0)) return;
  const double s = work / seconds;
  if (!std::isfinite(s) || !(s > 0)) return;

  Track& t = tracks_[rank];
  const auto window = static_cast<std::size_t>(opt_.window);
  auto accept = [&](double x) {
    t.recent.push_back(x);
    while (t.recent.size() > window) t.recent.pop_front();
  };
  // Pending samples that turned out transient join the window; the median absorbs them.
  auto release = [&] {
    for (double x : t.pending) accept(x);
    t.pending.clear();
    t.estimate = median(t.recent);
  };

  if (t.count == 0) {  // first sample (or first after forget/renumber): taken as it is
    t.recent.clear();
    t.pending.clear();
    accept(s);
    t.estimate = s;
    t.count = 1;
    return;
  }
  ++t.count;
  const double rel = (s - t.estimate) / t.estimate;
  if (std::fabs(rel) <= opt_.jump) {
    release();
    accept(s);
    t.estimate = median(t.recent);
    return;
  }
  // Off the estimate: held out of it until it is either confirmed or proven transient.
  if (!t.pending.empty() && ((t.pending.front() > t.estimate) != (s > t.estimate))) release();
  const double rel_now = (s - t.estimate) / t.estimate;
  if (std::fabs(rel_now) <= opt_.jump) {  // the released samples moved the estimate to it
    accept(s);
    t.estimate = median(t.recent);
    return;
  }
  t.pending.push_back(s);
  if (t.pending.size() >= static_cast<std::size_t>(opt_.confirm)) {
    // A lasting change: restart from the confirming samples.
    t.recent.clear();
    for (double x : t.pending) accept(x);
    t.count = static_cast<int>(t.pending.size());
    t.pending.clear();
    t.estimate = median(t.recent);
  }
}

std::optional<double> SpeedEstimator::speed(int rank) const {
  const auto it = tracks_.find(rank);
  if (it == tracks_.end() || it->second.count == 0) return std::nullopt;
  return it->second.estimate;
}

int SpeedEstimator::samples(int rank) const {
  const auto it = tracks_.find(rank);
  return it == tracks_.end() ? 0 : it->second.count;
}

std::vector<double> SpeedEstimator::powers(int n) const {
  if (n < 0) throw Error("SpeedEstimator::powers: n = " + std::to_string(n) + " must be >= 0");
  std::vector<std::optional<double>> s(static_cast<std::size_t>(n));
  double top = 0;
  for (int k = 0; k < n; ++k) {
    s[static_cast<std::size_t>(k)] = speed(k);
    if (s[static_cast<std::size_t>(k)]) top = std::max(top, *s[static_cast<std::size_t>(k)]);
  }
  std::vector<double> out(static_cast<std::size_t>(n), 1.0);
  if (!(top > 0)) return out;
  double sum = 0;
  int known = 0;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (s[k]) {
      out[k] = *s[k] / top;
      sum += out[k];
      ++known;
    }
  const double mean = sum / known;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (!s[k]) out[k] = mean;
  return out;
}

void SpeedEstimator::renumber(const std::vector<int>& old_of_new) {
  std::map<int, Track> next;
  for (std::size_t k = 0; k < old_of_new.size(); ++k) {
    const int old = old_of_new[k];
    if (old < -1)
      throw Error("SpeedEstimator::renumber: old_of_new[" + std::to_string(k) + "] = " + std::to_string(old) +
                  " must be >= -1");
    if (old == -1) continue;
    if (const auto it = tracks_.find(old); it != tracks_.end()) next[static_cast<int>(k)] = it->second;
  }
  tracks_ = std::move(next);
}

void SpeedEstimator::forget(int rank) { tracks_.erase(rank); }

// ---------------------------------------------------------------------------------------
// ResizeHistory

namespace {
// Appends `e`, then drops the oldest event of e's program beyond kMaxEvents of it.
void push_capped(std::vector<ResizeEvent>& v, const ResizeEvent& e, std::size_t cap) {
  v.push_back(e);
  std::size_t same = 0;
  for (const auto& x : v) same += x.program == e.program;
  if (same <= cap) return;
  v.erase(std::find_if(v.begin(), v.end(), [&](const ResizeEvent& x) { return x.program == e.program; }));
}
}  // namespace

void ResizeHistory::add(ResizeEvent e) {
  if (e.action != Action::Expand && e.action != Action::Shrink && e.action != Action::Regrid) return;
  if (e.from_procs < 1 || e.to_procs < 1 || e.hosts < 0) return;
  for (double v : {e.t_spawn, e.t_redist, e.t_other, e.bytes_moved})
    if (!std::isfinite(v) || v < 0) return;
  if (e.program.empty()) e.program = program_;
  push_capped(all_, e, kMaxEvents);
  if (program_.empty() || e.program == program_) push_capped(events_, e, kMaxEvents);
}

void ResizeHistory::set_program(const std::string& key) {
  program_ = key;
  events_.clear();
  for (const auto& e : all_)
    if (key.empty() || e.program == key) events_.push_back(e);
}

namespace {
// t at x from the samples (x_i, t_i): the least-squares line when there are at least 3
// and the x_i are not all equal, else the median t (one x gives no slope); clamped to
// >= 0. With fewer than 3 samples, the smallest t: on a shared machine resize times are
// only ever inflated (preemption; one regrid measured 838 ms instead of ~1 ms), so one or
// two samples cannot tell an outlier, and the fastest is the undisturbed time. Empty
// without samples.
std::optional<double> line_or_median(const std::vector<double>& x, const std::vector<double>& t, double at) {
  if (x.empty()) return std::nullopt;
  if (t.size() < 3) return *std::min_element(t.begin(), t.end());
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  if (*lo == *hi) return median(t);
  const double n = static_cast<double>(x.size());
  double xbar = 0, tbar = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xbar += x[i];
    tbar += t[i];
  }
  xbar /= n;
  tbar /= n;
  double sxx = 0, sxt = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - xbar) * (x[i] - xbar);
    sxt += (x[i] - xbar) * (t[i] - tbar);
  }
  const double b = sxt / sxx;
  return std::max(0.0, tbar - b * xbar + b * at);
}
}  // namespace

std::optional<double> ResizeHistory::predict_spawn(Action a, int from_procs, int to_procs) const {
  // A respawn spawned its whole new grid (to_procs), whichever way the grid changed: an
  // expansion's spawn of that many; it exited nobody by itself.
  std::vector<double> k, t;
  for (const auto& e : events_)
    if (e.respawn ? a == Action::Expand : e.action == a) {
      k.push_back(e.respawn ? e.to_procs : std::abs(e.to_procs - e.from_procs));
      t.push_back(e.t_spawn);
    }
  return line_or_median(k, t, std::abs(to_procs - from_procs));
}

std::optional<double> ResizeHistory::predict_redist(double bytes) const {
  std::vector<double> b, t;
  for (const auto& e : events_)
    if (e.bytes_moved > 0) {
      b.push_back(e.bytes_moved);
      t.push_back(e.t_redist);
    }
  return line_or_median(b, t, bytes);
}

std::optional<double> ResizeHistory::predict_other(Action a, int /*from_procs*/, int /*to_procs*/) const {
  std::vector<double> t;
  for (const auto& e : events_)
    if (e.action == a && !e.respawn) t.push_back(e.t_other);  // a respawn's hand-over and end differ
  if (t.empty()) return std::nullopt;
  return t.size() < 3 ? *std::min_element(t.begin(), t.end()) : median(t);  // as line_or_median
}

std::string ResizeHistory::to_json() const {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  auto ev = nlohmann::ordered_json::array();
  for (const auto& e : all_) {
    nlohmann::ordered_json x;
    x["action"] = to_string(e.action);
    x["from_procs"] = e.from_procs;
    x["to_procs"] = e.to_procs;
    x["hosts"] = e.hosts;
    x["t_spawn"] = e.t_spawn;
    x["t_redist"] = e.t_redist;
    x["t_other"] = e.t_other;
    x["bytes_moved"] = e.bytes_moved;
    if (!e.program.empty()) x["program"] = e.program;
    if (e.respawn) x["respawn"] = true;
    ev.push_back(std::move(x));
  }
  j["events"] = std::move(ev);
  return j.dump(2) + "\n";
}

namespace {

// A history file's errors, named after the file (`source`).
struct HistoryFile {
  const std::string& source;
  [[noreturn]] void fail(const std::string& what) const { throw Error(source + ": " + what); }

  // The file's JSON object, its format, version and events array checked.
  nlohmann::json parse(const std::string& text) const {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse errors, number overflow (1e999)
      fail(std::string("not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object()) fail("expected a JSON object, found " + std::string(j.type_name()));
    if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kFormat)
      fail(std::string("\"format\" must be \"") + kFormat + "\"" +
           (j.contains("format") ? ", found " + j["format"].dump() : " (missing)"));
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<std::int64_t>() != kVersion)
      fail("\"version\" must be " + std::to_string(kVersion) +
           (j.contains("version") ? ", found " + j["version"].dump() : " (missing)"));
    if (!j.contains("events") || !j["events"].is_array())
      fail(std::string("\"events\" must be an array") +
           (j.contains("events") ? ", found " + j["events"].dump() : " (missing)"));
    return j;
  }

  // Field `key` of event `x` (named `at`): an integer in [min, 1e9]; 0 when absent and
  // not required.
  int integer(const nlohmann::json& x, const std::string& at, const char* key, int min, bool required) const {
    if (!x.contains(key)) {
      if (required) fail(at + "." + key + " is missing");
      return 0;
    }
    const auto& v = x[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < min || v.get<std::int64_t>() > 1'000'000'000)
      fail(at + "." + key + " = " + v.dump() + " must be an integer >= " + std::to_string(min));
    return static_cast<int>(v.get<std::int64_t>());
  }

  // Field `key` of event `x`: a finite number >= 0; 0 when absent and not required.
  double number(const nlohmann::json& x, const std::string& at, const char* key, bool required) const {
    if (!x.contains(key)) {
      if (required) fail(at + "." + key + " is missing");
      return 0;
    }
    const auto& v = x[key];
    if (!v.is_number()) fail(at + "." + key + " = " + v.dump() + " is not a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) fail(at + "." + key + " = " + v.dump() + " must be finite and >= 0");
    return d;
  }

  // Event `x` (named `at`).
  ResizeEvent event(const nlohmann::json& x, const std::string& at) const {
    if (!x.is_object()) fail(at + " must be an object, found " + x.dump());
    ResizeEvent e;
    if (!x.contains("action")) fail(at + ".action is missing");
    const auto& act = x["action"];
    if (act.is_string() && act.get<std::string>() == "expand")
      e.action = Action::Expand;
    else if (act.is_string() && act.get<std::string>() == "shrink")
      e.action = Action::Shrink;
    else if (act.is_string() && act.get<std::string>() == "regrid")
      e.action = Action::Regrid;
    else
      fail(at + ".action = " + act.dump() + " must be \"expand\", \"shrink\" or \"regrid\"");
    e.from_procs = integer(x, at, "from_procs", 1, true);
    e.to_procs = integer(x, at, "to_procs", 1, true);
    e.hosts = integer(x, at, "hosts", 0, false);
    e.t_spawn = number(x, at, "t_spawn", true);
    e.t_redist = number(x, at, "t_redist", true);
    e.t_other = number(x, at, "t_other", true);
    e.bytes_moved = number(x, at, "bytes_moved", false);
    if (x.contains("program")) {
      if (!x["program"].is_string()) fail(at + ".program = " + x["program"].dump() + " is not a string");
      e.program = x["program"].get<std::string>();
    }
    if (x.contains("respawn")) {
      if (!x["respawn"].is_boolean()) fail(at + ".respawn = " + x["respawn"].dump() + " is not true or false");
      e.respawn = x["respawn"].get<bool>();
    }
    return e;
  }
};

}  // namespace

ResizeHistory ResizeHistory::from_json(const std::string& text, const std::string& source) {
  const HistoryFile file{source};
  nlohmann::json j = file.parse(text);
  ResizeHistory h;
  const auto& events = j["events"];
  for (std::size_t i = 0; i < events.size(); ++i) h.add(file.event(events[i], "events[" + std::to_string(i) + "]"));
  return h;
}

void ResizeHistory::save(const std::string& path) const {
  namespace fs = std::filesystem;
  const std::string text = to_json();
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw Error("resize history " + path + ": cannot create its directory: " + ec.message());
  // Unique per process, so that two jobs saving at once do not write into one file.
  const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw Error("resize history " + path + ": cannot write " + tmp.string());
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw Error("resize history " + path + ": cannot rename into place: " + why);
  }
}

ResizeHistory ResizeHistory::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("resize history " + path + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return from_json(s.str(), "resize history " + path);
}

std::string resize_history_program(const std::string& app, const std::string& executable) {
  const std::string f = resize_history_file_name(app, executable);
  return f.substr(0, f.size() - 5);  // ".json"
}

std::string resize_history_file_name(const std::string& app, const std::string& executable) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (const unsigned char c : executable) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::string name = app.empty() ? std::string("app") : app;
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return name + "-" + hex + ".json";
}

HistoryLocation resize_history_location(const std::string& app, const std::string& executable) {
  return detail::history_location(config::read().policy, app, executable);
}

HistoryLocation detail::history_location(const config::Policies& env, const std::string& app,
                                         const std::string& executable) {
  if (const config::Text& v = env.history) {
    if (v->empty() || *v == "off") return {"", std::string("RESIZE_HISTORY=") + (v->empty() ? "(empty)" : "off"), true};
    return {*v, ""};
  }
  std::string dir;
  if (const config::Text& x = env.xdg_cache_home; x && !x->empty() && (*x)[0] == '/')
    dir = *x;
  else if (const config::Text& home = env.home; home && !home->empty()) {
    struct stat st {};
    if (::stat(home->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {"", "HOME=" + *home + " is not a directory"};
    dir = *home + "/.cache";
  } else
    return {"", "neither XDG_CACHE_HOME nor HOME is set"};
  return {dir + "/malleable/history/" + resize_history_file_name(app, executable), ""};
}

// ---------------------------------------------------------------------------------------
// Payoff

double compute_time(const std::vector<double>& work, const std::vector<double>& speed) {
  if (work.size() != speed.size())
    throw Error("compute_time: " + std::to_string(work.size()) + " work entries but " +
                std::to_string(speed.size()) + " speeds");
  double t = 0;
  for (std::size_t p = 0; p < work.size(); ++p) {
    if (!std::isfinite(work[p]) || work[p] < 0)
      throw Error("compute_time: work[" + std::to_string(p) + "] = " + dump(work[p]) + " must be finite and >= 0");
    if (work[p] == 0) continue;
    if (!std::isfinite(speed[p]) || !(speed[p] > 0))
      throw Error("compute_time: speed[" + std::to_string(p) + "] = " + dump(speed[p]) +
                  " must be finite and > 0 where work > 0");
    t = std::max(t, work[p] / speed[p]);
  }
  return t;
}

PayoffPrediction predict_payoff(double t_iter_now, double t_iter_new, double t_spawn, double t_redist,
                                double t_other, int remaining) {
  const std::pair<const char*, double> args[] = {{"t_iter_now", t_iter_now}, {"t_iter_new", t_iter_new},
                                                 {"t_spawn", t_spawn},       {"t_redist", t_redist},
                                                 {"t_other", t_other}};
  for (const auto& [name, v] : args)
    if (!std::isfinite(v) || v < 0)
      throw Error(std::string("predict_payoff: ") + name + " = " + dump(v) + " must be finite and >= 0");

  PayoffPrediction p;
  p.t_spawn = t_spawn;
  p.t_redist = t_redist;
  p.t_other = t_other;
  p.t_resize = t_spawn + t_redist + t_other;
  p.t_iter_now = t_iter_now;
  p.t_iter_new = t_iter_new;
  p.remaining = remaining;
  const double saving = t_iter_now - t_iter_new;
  if (saving > 0) {
    const double r = std::ceil(p.t_resize / saving);
    // Beyond 2^62 iterations (a vanishing saving) it never pays in practice.
    if (r < 4.6e18) p.payoff = static_cast<std::int64_t>(r);
  }
  if (remaining > 0) {
    p.gain = saving * remaining;
    p.pays = p.gain > p.t_resize;
  } else {
    p.pays = p.payoff.has_value();
  }

  std::ostringstream w;
  w << "predicted: resize " << num(p.t_resize) << " s (spawn " << num(t_spawn) << " + redist " << num(t_redist)
    << " + other " << num(t_other) << "), iteration " << num(t_iter_now) << " -> " << num(t_iter_new) << " s, ";
  if (p.payoff)
    w << "payoff after " << *p.payoff;
  else
    w << "never pays (the new iteration is not faster)";
  if (remaining > 0) {
    w << (p.payoff ? " of " : ", ") << remaining << " iterations left: gain " << num(p.gain) << " s "
      << (p.pays ? ">" : "<=") << " cost " << num(p.t_resize) << " s";
  } else {
    w << (p.payoff ? " iterations" : "") << " (iterations left unknown): " << (p.pays ? "pays" : "does not pay");
  }
  p.why = w.str();
  return p;
}

}  // namespace resize
