// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/resize/policy.hpp"
#include "common/config.hpp"
#include "policy/slurm_policy.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace resize {

Decision ScriptedPolicy::decide(const PolicyInput& in) {
  for (std::size_t k = 0; k < schedule_.size(); ++k)
    if (schedule_[k].iteration == in.iteration) {
      ran_[k] = 1;
      return schedule_[k].decision;
    }
  return Decision::none();
}

Schedule ScriptedPolicy::not_run() const {
  Schedule out;
  for (std::size_t k = 0; k < schedule_.size(); ++k)
    if (!ran_[k]) out.push_back(schedule_[k]);
  return out;
}

std::optional<std::string> ScriptedPolicy::state() const {
  std::string s;
  for (char r : ran_) s.push_back(r ? '1' : '0');
  return s;
}

void ScriptedPolicy::restore(const std::string& state) {
  if (state.size() != ran_.size() || state.find_first_not_of("01") != std::string::npos)
    throw Error("scripted policy: a state of " + std::to_string(state.size()) + " entries for a schedule of " +
                std::to_string(ran_.size()) + " ('" + state.substr(0, 64) + "')");
  for (std::size_t k = 0; k < ran_.size(); ++k) ran_[k] = state[k] == '1' ? 1 : 0;
}

bool PoolScheduler::confirm_expand(int, int extra) {
  if (extra > free_) return false;
  free_ -= extra;
  return true;
}

void PoolScheduler::released(int n) {
  free_ += n;
  want_back_ = std::max(0, want_back_ - n);
}

OfferFileScheduler::OfferFileScheduler(std::string path) : path_(std::move(path)) {
  if (path_.empty()) env_offer_ = config::read().policy.offer.value_or("");
}

void OfferFileScheduler::reload() {
  std::string content;
  if (path_.empty()) {
    content = env_offer_;
  } else {
    std::ifstream in(path_);
    std::stringstream ss;
    if (in) ss << in.rdbuf();
    content = ss.str();
  }
  if (content == last_content_) return;
  last_content_ = content;
  offer_ = 0;
  release_ = 0;
  release_done_ = false;
  for (char& c : content)
    if (c == ',' || c == '\n' || c == ';') c = ' ';
  std::stringstream ss(content);
  for (std::string tok; ss >> tok;) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = tok.substr(0, eq);
    int v = 0;
    try {
      v = std::stoi(tok.substr(eq + 1));
    } catch (const std::exception&) {
      throw Error("offer file '" + (path_.empty() ? std::string("$RESIZE_OFFER") : path_) +
                  "': value of '" + key + "' is not an integer: '" + tok + "'");
    }
    if (key == "offer") offer_ = std::max(0, v);
    else if (key == "release") release_ = std::max(0, v);
  }
}

int OfferFileScheduler::expand_offer(int) {
  reload();
  return offer_;
}

bool OfferFileScheduler::confirm_expand(int, int extra) {
  if (extra > offer_) return false;
  offer_ -= extra;
  return true;
}

int OfferFileScheduler::shrink_request(int) {
  reload();
  return release_done_ ? 0 : release_;
}

void OfferFileScheduler::released(int n) {
  if (n >= release_) release_done_ = true;
  offer_ += n;  // released processes return to the pool the offer comes from
}

Grid next_grid_step(const Grid& g) {
  return g.nprow <= g.npcol ? Grid{g.nprow + 1, g.npcol, {}} : Grid{g.nprow, g.npcol + 1, {}};
}

namespace {

// A resize to `procs` processes on nprow x npcol (0 x 0: the session chooses the grid).
Decision resize_to(Action action, int procs, int nprow, int npcol, Placement placement, std::string reason) {
  Decision d;
  d.action = action;
  d.procs = procs;
  d.nprow = nprow;
  d.npcol = npcol;
  d.placement = placement;
  d.reason = std::move(reason);
  return d;
}

// The largest measured size of at most `limit` processes, or 0.
int largest_measured(const std::map<int, double>& time_by_procs, int limit) {
  int target = 0;
  for (const auto& [p, t] : time_by_procs)
    if (p <= limit) target = p;
  return target;
}

}  // namespace

Decision SweetSpotPolicy::decide(const PolicyInput& in) {
  // The grid's size, not the world's: a world may hold idle processes outside the grid.
  const int cur = in.grid.size();
  std::optional<double> mean;
  if (in.metrics) mean = in.metrics->current_time(opt_.measure_iters, opt_.use_dedicated);
  if (mean) {
    sched_->report(cur, *mean);
    time_by_procs_[cur] = *mean;
    grid_by_procs_[cur] = in.grid;
  }
  // Shrink requests come first: the scheduler needs the processes (§3.1 step iii).
  if (const int want = sched_->shrink_request(cur); want > 0) {
    const int target = largest_measured(time_by_procs_, cur - want);  // the largest measured size that satisfies it
    const int procs = target > 0 ? target : cur - want;
    const Grid* g = target > 0 ? &grid_by_procs_[target] : nullptr;
    if (procs < 1) return Decision::none("release of " + std::to_string(want) + " refused: would leave no process");
    return resize_to(Action::Shrink, procs, g ? g->nprow : 0, g ? g->npcol : 0, opt_.placement,
                     "scheduler asked for " + std::to_string(want) + " back");
  }
  if (!mean || last_measured_iteration_ == in.iteration) return Decision::none("measuring");
  if (found_) return Decision::none("at sweet spot " + std::to_string(best_procs_));
  // The U-curve: if the last expansion did not pay, the size before it is the bottom.
  if (prev_procs_ > 0 && time_by_procs_.count(prev_procs_)) {
    const double before = time_by_procs_[prev_procs_];
    if (*mean > before * (1.0 - opt_.min_gain)) {
      found_ = true;
      best_procs_ = prev_procs_;
      const Grid& g = grid_by_procs_[prev_procs_];
      return resize_to(Action::Shrink, prev_procs_, g.nprow, g.npcol, opt_.placement,
                       "no gain (" + std::to_string(*mean) + " s vs " + std::to_string(before) +
                           " s): sweet spot at " + std::to_string(prev_procs_));
    }
  }
  // Still improving: one grid step up, when the scheduler offers the processes.
  best_procs_ = cur;
  const int offer = sched_->expand_offer(cur);
  if (offer <= 0) return Decision::none("no processes offered");
  const Grid next = next_grid_step(in.grid);
  const int extra = next.size() - cur;
  if (extra > offer) return Decision::none("offer of " + std::to_string(offer) + " too small for " + next.shape());
  if (!sched_->confirm_expand(cur, extra)) return Decision::none("scheduler withdrew the offer");
  prev_procs_ = cur;
  last_measured_iteration_ = in.iteration;
  return resize_to(Action::Expand, next.size(), next.nprow, next.npcol, opt_.placement,
                   "rate still improving: try " + next.shape());
}

void SweetSpotPolicy::completed(const Decision& d, int from_procs, bool ok) {
  if (d.action == Action::Expand && !ok) {
    found_ = true;  // cannot grow: stay where we are
    best_procs_ = prev_procs_ > 0 ? prev_procs_ : best_procs_;
  }
  if (d.action == Action::Shrink && ok) {
    // Released processes go back to the scheduler (§3.1 step iii.5).
    sched_->released(from_procs - d.procs);
  }
}

std::unique_ptr<Policy> make_policy(const std::string& name, const std::string& schedule,
                                    const std::string& offer_file, int total_iterations) {
  if (name == "fixed" || name == "none") return std::make_unique<FixedPolicy>();
  if (name == "slurm") {
    // The schedule names the run's iterations for the payoff test: "" (the caller's count,
    // else RESIZE_SLURM_ITERATIONS) or "iterations=N".
    if (!schedule.empty()) {
      const std::string key = "iterations=";
      const std::string v = schedule.rfind(key, 0) == 0 ? schedule.substr(key.size()) : "";
      const bool digits = !v.empty() && v.size() <= 9 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits)
        throw Error("policy slurm: the schedule must be empty or 'iterations=N' (the run's iterations, for the payoff "
                    "test), got '" + schedule.substr(0, 60) + "'");
      total_iterations = std::stoi(v);
    }
    return make_slurm_policy(total_iterations);
  }
  if (name == "scripted") return std::make_unique<ScriptedPolicy>(load_schedule(schedule));
  if (name == "sweetspot") {
    SweetSpotPolicy::Options o;
    return std::make_unique<SweetSpotPolicy>(std::make_shared<OfferFileScheduler>(offer_file), o);
  }
  throw Error("policy: expected fixed, scripted, sweetspot or slurm, got '" + name + "'");
}

}  // namespace resize
